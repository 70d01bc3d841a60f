"""cuDNN: NVIDIA's RNN kernels, per-gate linear layers with two biases."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, register

__all__ = ["CUDNN"]


def _cudnn_name(base: str, layer: object, direction: int) -> str:
    return base if layer is None else f"l{layer}{'_reverse' if direction == 1 else ''}.{base}"


#: cuDNN (``cudnnGetRNNWeightParams``; ``aten/src/ATen/native/cudnn/RNN.cpp``): per layer and
#: direction (cuDNN's pseudo-layer) G "linear layers" on the input (IDs 0..G-1) and G on the
#: recurrent state (G..2G-1), each a matrix (H, I_l) or (H, H_out) and, in ``CUDNN_RNN_DOUBLE_BIAS``
#: mode, a bias (H,); an LSTM projection is linear layer 8, a matrix (P, H) without bias. Gate
#: order: LSTM i, f, g, o; GRU r, z, n (PyTorch's, which views cuDNN's buffer).
CUDNN = Convention(
    name="cuDNN",
    tensors=(
        TensorLayout("lin{n}.matrix", "weight", ("ih", "hh"), per_gate=True),
        TensorLayout("lin{n}.bias", "bias", ("ih", "hh"), per_gate=True),
        TensorLayout("lin8.matrix", "weight", ("hr",)),
    ),
    layer_name=_cudnn_name,
    source="aten/src/ATen/native/cudnn/RNN.cpp (_num_linear_layers, get_parameters, "
    "add_projection_weights); cuDNN API cudnnGetRNNWeightParams",
)


register(
    Framework(
        "cudnn",
        "cuDNN",
        (
            CellSpec("CUDNN_RNN_TANH", "RNN_TANH", "rnn", CUDNN, "layer", {"bias": YES_NO}),
            CellSpec("CUDNN_LSTM", "LSTM", "lstm", CUDNN, "layer", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("CUDNN_GRU", "GRU", "gru", CUDNN, "layer", {"bias": YES_NO}),
        ),
        (),
        CUDNN.source,
        order=20,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# cuDNN itself has no constructor; users reach it through two wrappers that hold its weights as the
# one flat buffer cuDNN sizes (``cudnnGetRNNParamsSize``), never as the tensors above:
#
# * TensorFlow 1's ``tf.contrib.cudnn_rnn.CudnnLSTM`` / ``CudnnGRU`` / ``CudnnRNNTanh`` /
#   ``CudnnRNNRelu(num_layers, num_units, input_mode="linear_input", direction="unidirectional",
#   dropout=0., seed=None, dtype=tf.float32, kernel_initializer=None, bias_initializer=None,
#   name=None)`` (tensorflow/contrib/cudnn_rnn/python/layers/cudnn_rnn.py, ``_CudnnRNN.__init__``
#   and ``build``, TF 1.x; contrib left with TF 2, and ``tf.compat.v1`` has no ``cudnn_rnn``): one
#   variable ``<name>/opaque_kernel``, made when the layer is first applied (``--input-dim``), its
#   name the class's in snake case unless ``name=`` says otherwise.
# * torch7's cudnn.torch ``cudnn.LSTM`` / ``BLSTM`` / ``GRU`` / ``BGRU`` / ``RNNTanh`` /
#   ``RNNReLU`` / ``RNN(inputSize, hiddenSize, numLayers, batchFirst, dropout, rememberStates)``
#   (RNN.lua ``RNN:__init`` and ``reset``: ``self.weight``, resized to cudnnGetRNNParamsSize's
#   floats; the B classes set CUDNN_BIDIRECTIONAL; ``cudnn.RNN`` itself is CUDNN_RNN_RELU), a Lua
#   line: its ``true``/``false`` are Lua's booleans, read as the names they are (never evaluated).
#
# Both count what cuDNN's layout holds (:data:`CUDNN`, two biases per gate): PyTorch's nn.LSTM /
# GRU / RNN of the same sizes, whose tensors on CUDA are views of that buffer. TF's
# ``input_mode="skip_input"`` (and ``"auto_select"`` when the input width equals ``num_units``)
# is cuDNN's CUDNN_SKIP_INPUT: "no operation is performed at the input of the first recurrent
# layer" where CUDNN_LINEAR_INPUT performs "a biased matrix multiplication" (cuDNN's
# cudnnRNNInputMode_t), so layer 0 has neither input matrices nor their biases in either direction
# (NVIDIA's review of pytorch/pytorch PR 658: "You don't have to have w_ih and b_ih parameters for
# the first layer if you set skip_input"; TensorFlow issue 16042: cuDNN reports that region as
# 0 elements, "Params size mismatch. Expected 0, got 10000", where TF's own ``build`` passes the
# canonical (num_units, input_size) matrices it makes in every input mode and fails).

from typing import Any  # noqa: E402

from ..engine import validate  # noqa: E402
from ..engine.symbols import plain  # noqa: E402
from ..tree import Module, Param, count  # noqa: E402
from .mirror import Deferred, choice, constructor, stack_module  # noqa: E402

_TF_SOURCE = "tensorflow/contrib/cudnn_rnn/python/layers/cudnn_rnn.py (TF 1.x, _CudnnRNN.__init__, build)"
_TORCH7_SOURCE = (
    "cudnn.torch RNN.lua (RNN:__init, RNN:reset: cudnnGetRNNParamsSize), LSTM.lua, BLSTM.lua, GRU.lua, BGRU.lua"
)
#: cuDNN's mode -> (the cell of :data:`CUDNN`, the linear layers per pseudo-layer on the input).
_MODES = {
    "lstm": ("CUDNN_LSTM", 4),
    "gru": ("CUDNN_GRU", 3),
    "rnn_tanh": ("CUDNN_RNN_TANH", 1),
    "rnn_relu": ("CUDNN_RNN_TANH", 1),  # CUDNN_RNN_RELU: the same tensors, another activation
}
_LUA_BOOLEANS = ("true", "false", "nil")


def _buffer(mode: str, width: Any, hidden: Any, layers: Any, bidirectional: bool, skip_input: bool = False) -> Any:
    """The floats of cuDNN's weight buffer: every pseudo-layer's matrices and biases (:data:`CUDNN`),
    less layer 0's input matrices and biases in CUDNN_SKIP_INPUT mode."""
    cell, gates = _MODES[mode]
    total = count(stack_module("cudnn", cell, width, hidden, num_layers=layers, bidirectional=bidirectional))
    if skip_input:
        total -= (2 if bidirectional else 1) * gates * hidden * (width + 1)
    return plain(total)


# ----------------------------------------------------------------------------- TensorFlow 1
_TF_PREFIXES = (
    "tf.contrib.cudnn_rnn.",
    "tensorflow.contrib.cudnn_rnn.",
    "contrib.cudnn_rnn.",
    "cudnn_rnn.",
    "tf.contrib.cudnn_rnn.python.layers.cudnn_rnn.",
    "",
)
_TF_LETTERS = {"num_units": "H", "num_layers": "L"}
_TF_CLASSES = {"CudnnLSTM": "lstm", "CudnnGRU": "gru", "CudnnRNNTanh": "rnn_tanh", "CudnnRNNRelu": "rnn_relu"}
_DIRECTIONS = ("unidirectional", "bidirectional")
_INPUT_MODES = ("linear_input", "skip_input", "auto_select")


def _snake(name: str) -> str:
    """TF's ``to_snake_case`` of a class name: the layer's default name (``CudnnLSTM`` -> ``cudnn_lstm``)."""
    import re

    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def _tf_class(cls: str) -> Any:
    """The constructor of ``tf.contrib.cudnn_rnn.<cls>``, with the signature of ``_CudnnRNN.__init__``."""

    def init(
        num_layers: Any,
        num_units: Any,
        input_mode: Any = "linear_input",
        direction: Any = "unidirectional",
        dropout: Any = 0.0,
        seed: Any = None,
        dtype: Any = "float32",
        kernel_initializer: Any = None,
        bias_initializer: Any = None,
        name: Any = None,
    ) -> Any:
        _tf_dtype(dtype)
        return _tf_cudnn(cls, num_layers, num_units, input_mode, direction, name)

    return init


#: TF's dtype names (``tf.int32`` or ``"int32"``) and those ``_CudnnRNN.__init__`` takes.
_TF_DTYPES = {
    "float16",
    "half",
    "float32",
    "float",
    "float64",
    "double",
    "bfloat16",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
    "complex128",
    "string",
}
_TF_FLOATS = {"float16", "half", "float32", "float", "float64", "double"}


def _tf_dtype(dtype: Any) -> None:
    """Refuse a dtype written as one of TF's that the layer refuses ("Only support float16, float32,
    float64"); a variable's name is not read."""
    written = dtype if isinstance(dtype, str) else getattr(dtype, "unread_source", None)
    if not isinstance(written, str):
        return
    base = written.rpartition(".")[2]
    if base in _TF_DTYPES and base not in _TF_FLOATS:
        raise ValueError(f"Only support float16, float32, float64, provided {written}")


def _tf_cudnn(
    cls: str,
    num_layers: Any,
    num_units: Any,
    input_mode: Any,
    direction: Any,
    name: Any,
) -> Any:
    mode = _TF_CLASSES[cls]
    # cudnn_rnn_ops.check_direction and check_input_mode, then the layer's own checks
    choice(
        "direction",
        direction,
        _DIRECTIONS,
        f"Invalid direction: {validate.shown(direction)}, expecting {_DIRECTIONS[0]} or {_DIRECTIONS[1]}",
    )
    choice(
        "input_mode",
        input_mode,
        _INPUT_MODES,
        f"Invalid input_mode: {validate.shown(input_mode)}, expect one of {list(_INPUT_MODES)}",
    )
    layers = validate.size("num_layers", num_layers)
    units = validate.size("num_units", num_units)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name should be a str or None, got: {validate.shown(name)}")
    scope = name or _snake(cls)
    bidirectional = direction == "bidirectional"

    def make(width: Any) -> Module:
        skip = input_mode == "skip_input" or (input_mode == "auto_select" and width == units)
        if skip and input_mode == "skip_input" and _unequal(width, units):
            raise ValueError(
                f"input_mode='skip_input' is only allowed when input_size == num_units, got input_size={width}, num_units={units}"
            )
        size = _buffer(mode, width, units, layers, bidirectional, skip_input=skip)
        return Module("", cls, params=(Param(f"{scope}/opaque_kernel", (size,)),))

    return Deferred(make)


def _unequal(a: Any, b: Any) -> bool:
    """Whether two sizes differ (for symbols: unless provably equal)."""
    import sympy

    return bool(sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) != 0)


# ----------------------------------------------------------------------------- torch7's cudnn.torch
_TORCH7_CLASSES = {
    "LSTM": ("lstm", False),
    "BLSTM": ("lstm", True),
    "GRU": ("gru", False),
    "BGRU": ("gru", True),
    "RNNTanh": ("rnn_tanh", False),
    "RNNReLU": ("rnn_relu", False),
    "RNN": ("rnn_relu", False),
}
_TORCH7_LETTERS = {"inputSize": "I", "hiddenSize": "H", "numLayers": "L"}


def _lua_name(value: Any) -> str | None:
    """The Lua name an argument is written as (``true``), or None: the reader keeps a bare name
    as its source text (:class:`derive.read.source.Opaque`)."""
    source = getattr(value, "unread_source", None)
    return source if isinstance(source, str) and source.isidentifier() else None


def _lua_size(argument: str, value: Any) -> Any:
    if _lua_name(value) in _LUA_BOOLEANS:
        raise TypeError(f"{argument} should be a number, got the Lua value {_lua_name(value)}")
    return validate.size(argument, value)


def _lua_flag(argument: str, value: Any) -> None:
    """A Lua boolean: ``true``, ``false`` or ``nil`` as written (or omitted, or a variable's name);
    Python's ``True``/``False`` are not Lua (there they are undefined globals, ``nil``)."""
    if isinstance(value, bool):
        raise TypeError(
            f"{argument}: {value!r} is Python's; the line is Lua (cudnn.torch), whose booleans are "
            f"true and false: write {str(value).lower()}"
        )


def _torch7_class(cls: str) -> Any:
    """The constructor of ``cudnn.<cls>``: Lua's positional arguments (Lua has no keywords)."""

    def init(
        inputSize: Any,
        hiddenSize: Any,
        numLayers: Any,
        batchFirst: Any = None,
        dropout: Any = None,
        rememberStates: Any = None,
        /,
    ) -> Module:
        return _torch7(cls, inputSize, hiddenSize, numLayers, batchFirst, dropout, rememberStates)

    return init


def _torch7(
    cls: str,
    inputSize: Any,
    hiddenSize: Any,
    numLayers: Any,
    batchFirst: Any,
    dropout: Any,
    rememberStates: Any,
) -> Module:
    mode, bidirectional = _TORCH7_CLASSES[cls]
    width = _lua_size("inputSize", inputSize)
    hidden = _lua_size("hiddenSize", hiddenSize)
    layers = _lua_size("numLayers", numLayers)
    _lua_flag("batchFirst", batchFirst)
    _lua_flag("rememberStates", rememberStates)
    if isinstance(dropout, bool) or _lua_name(dropout) in ("true", "false"):
        raise TypeError(f"dropout should be a number, got {validate.shown(dropout)}")
    size = _buffer(mode, width, hidden, layers, bidirectional)
    return Module("", cls, params=(Param("weight", (size,)),))


for _cls in _TORCH7_CLASSES:
    constructor("cudnn", _cls, prefixes=("cudnn.",), letters=_TORCH7_LETTERS, source=_TORCH7_SOURCE)(
        _torch7_class(_cls)
    )

# registered after cudnn.torch's, so that ``derive --help`` shows ``cudnn.`` first
for _cls in _TF_CLASSES:  # one function object each: the decorator names it "<class>.__init__"
    constructor("cudnn", _cls, prefixes=_TF_PREFIXES, letters=_TF_LETTERS, deferred=True, source=_TF_SOURCE)(
        _tf_class(_cls)
    )
