"""MXNet Gluon: PyTorch's tensors under other names (mxnet 1.9.1)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import CellSpec, Framework, register

__all__ = ["MXNET", "MXNET_CELLS"]


def _mxnet_name(base: str, layer: object, direction: int) -> str:
    return base if layer is None else f"{'lr'[direction]}{layer}_{base}"


#: MXNet Gluon ``rnn.RNN``, ``rnn.LSTM``, ``rnn.GRU`` (mxnet 1.9.1,
#: ``python/mxnet/gluon/rnn/rnn_layer.py``, ``_RNNLayer.__init__``): per layer and direction
#: (prefix ``l``/``r``) ``i2h_weight`` (G·H, I_l), ``h2h_weight`` (G·H, H_out), ``i2h_bias``,
#: ``h2h_bias`` (G·H,), with ``projection_size`` ``h2r_weight`` (P, H); fused into one flat
#: vector for the kernel (and held as one flat ``rnn_param`` in MXNet 2). PyTorch's total.
MXNET = Convention(
    name="MXNet Gluon",
    tensors=(
        TensorLayout("i2h_weight", "weight", ("ih",)),
        TensorLayout("h2h_weight", "weight", ("hh",)),
        TensorLayout("i2h_bias", "bias", ("ih",)),
        TensorLayout("h2h_bias", "bias", ("hh",)),
        TensorLayout("h2r_weight", "weight", ("hr",)),
    ),
    layer_name=_mxnet_name,
    source="python/mxnet/gluon/rnn/rnn_layer.py (mxnet 1.9.1, _RNNLayer.__init__)",
)


#: MXNet Gluon ``rnn.RNNCell``, ``rnn.LSTMCell``, ``rnn.GRUCell``
#: (``python/mxnet/gluon/rnn/rnn_cell.py``): the same four tensors per cell; a stack is a
#: ``SequentialRNNCell`` of cells (of ``BidirectionalCell(l_cell, r_cell)`` for a bidirectional
#: one), named here with the prefixes the fused layer uses, ``l<k>_`` and ``r<k>_``
#: (``LSTMCell(H, prefix="l0_")``).
MXNET_CELLS = Convention(
    name="MXNet Gluon cells",
    tensors=MXNET.tensors[:4],
    layer_name=_mxnet_name,
    source="python/mxnet/gluon/rnn/rnn_cell.py (mxnet 1.9.1, RNNCell, LSTMCell, GRUCell, SequentialRNNCell, BidirectionalCell)",
)


register(
    Framework(
        "mxnet",
        "MXNet Gluon",
        (
            CellSpec("RNN", "RNN_TANH", "rnn", MXNET, "layer"),
            CellSpec("LSTM", "LSTM", "lstm", MXNET, "layer", {"proj_size": ()}),
            CellSpec("GRU", "GRU", "gru", MXNET, "layer"),
            CellSpec("RNNCell", "RNN_TANH", "rnn", MXNET_CELLS, "cell"),
            CellSpec("LSTMCell", "LSTM", "lstm", MXNET_CELLS, "cell"),
            CellSpec("GRUCell", "GRU", "gru", MXNET_CELLS, "cell"),
        ),
        ("mxnet",),
        f"{MXNET.source}; {MXNET_CELLS.source}",
        order=70,
        environment="mxnet",
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``mx.gluon.rnn.LSTM(128)`` or, after ``from mxnet.gluon import rnn``, ``rnn.LSTM(128)``:
# signatures of python/mxnet/gluon/rnn/rnn_layer.py and rnn_cell.py (mxnet 1.9.1). With the
# default ``input_size=0`` the weights' input width is inferred at the first call
# (``--input-dim``). Names are without the block's automatic prefix (``lstm0_``); a ``prefix``
# given is prepended, as Gluon does. Initializers, ``dtype`` and ``params`` change no tensor.

from dataclasses import replace  # noqa: E402
from types import FunctionType  # noqa: E402
from typing import Any  # noqa: E402

from ..engine import validate  # noqa: E402
from ..tree import Module, Param, count  # noqa: E402
from .mirror import Deferred, choice, constructor, optional_size, stack_module  # noqa: E402

_PREFIXES = ("mx.gluon.rnn.", "mxnet.gluon.rnn.", "gluon.rnn.", "rnn.")
#: The keywords ``rnn.RNN``/``LSTM``/``GRU`` take beyond their own signatures (mxnet 1.9.1,
#: rnn_layer.py ``_RNNLayer.__init__``'s ``use_sequence_length``; block.py ``Block.__init__``'s
#: ``prefix`` and ``params``).
_LAYER_KEYWORDS = ("use_sequence_length", "prefix", "params")
_LETTERS = {"hidden_size": "H", "num_layers": "L", "input_size": "I", "projection_size": "P"}


def _prefixed(module: Module, prefix: Any) -> Module:
    if prefix is None:
        return module
    if not isinstance(prefix, str):
        raise TypeError(f"prefix should be a str or None, got: {validate.shown(prefix)}")
    return module.replace(params=tuple(replace(p, name=prefix + p.name) for p in module.params))


def _gluon(cls: str, input_size: Any, hidden_size: Any, prefix: Any, **options: Any) -> Any:
    def make(width: Any) -> Module:
        return _prefixed(stack_module("mxnet", cls, width, hidden_size, type=cls, sep="_", **options), prefix)

    if isinstance(input_size, int) and not isinstance(input_size, bool) and input_size == 0:
        return Deferred(make)
    return make(validate.size("input_size", input_size))


def _layer(
    cls: str,
    hidden_size: Any,
    num_layers: Any,
    layout: Any,
    bidirectional: Any,
    input_size: Any,
    kwargs: dict[str, Any],
    **options: Any,
) -> Any:
    choice(
        "layout", layout, ("TNC", "NTC"), f"Invalid layout {validate.shown(layout)}; must be one of ['TNC' or 'NTC']"
    )
    # ``_RNNLayer.__init__(..., use_sequence_length=False, **kwargs)`` passes the rest to
    # ``HybridBlock.__init__(prefix=None, params=None)``, which refuses any other keyword.
    # ``use_sequence_length`` adds an input (the lengths), no parameter; MXNet checks nothing of it.
    unknown = [k for k in kwargs if k not in _LAYER_KEYWORDS]
    if unknown:
        raise TypeError(f"HybridBlock.__init__() got an unexpected keyword argument {unknown[0]!r}")
    return _gluon(
        cls,
        input_size,
        hidden_size,
        kwargs.get("prefix"),
        num_layers=num_layers,
        bidirectional=bidirectional,
        **options,
    )


@constructor("mxnet", "RNN", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET.source)
def _rnn(
    hidden_size: Any,
    num_layers: Any = 1,
    activation: Any = "relu",
    layout: Any = "TNC",
    dropout: Any = 0,
    bidirectional: Any = False,
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    input_size: Any = 0,
    dtype: Any = "float32",
    **kwargs: Any,
) -> Any:
    choice("activation", activation, ("relu", "tanh"))
    return _layer("RNN", hidden_size, num_layers, layout, bidirectional, input_size, kwargs)


@constructor("mxnet", "LSTM", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET.source)
def _lstm(
    hidden_size: Any,
    num_layers: Any = 1,
    layout: Any = "TNC",
    dropout: Any = 0,
    bidirectional: Any = False,
    input_size: Any = 0,
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    projection_size: Any = None,
    h2r_weight_initializer: Any = None,
    state_clip_min: Any = None,
    state_clip_max: Any = None,
    state_clip_nan: Any = False,
    dtype: Any = "float32",
    **kwargs: Any,
) -> Any:
    proj = 0 if projection_size == 0 else optional_size("projection_size", projection_size)
    return _layer("LSTM", hidden_size, num_layers, layout, bidirectional, input_size, kwargs, proj_size=proj)


@constructor("mxnet", "GRU", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET.source)
def _gru(
    hidden_size: Any,
    num_layers: Any = 1,
    layout: Any = "TNC",
    dropout: Any = 0,
    bidirectional: Any = False,
    input_size: Any = 0,
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    dtype: Any = "float32",
    **kwargs: Any,
) -> Any:
    return _layer("GRU", hidden_size, num_layers, layout, bidirectional, input_size, kwargs)


@constructor("mxnet", "RNNCell", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET_CELLS.source)
def _rnn_cell(
    hidden_size: Any,
    activation: Any = "tanh",
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    input_size: Any = 0,
    prefix: Any = None,
    params: Any = None,
) -> Any:
    return _gluon("RNNCell", input_size, hidden_size, prefix)


@constructor("mxnet", "LSTMCell", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET_CELLS.source)
def _lstm_cell(
    hidden_size: Any,
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    input_size: Any = 0,
    prefix: Any = None,
    params: Any = None,
    activation: Any = "tanh",
    recurrent_activation: Any = "sigmoid",
) -> Any:
    return _gluon("LSTMCell", input_size, hidden_size, prefix)


@constructor("mxnet", "GRUCell", prefixes=_PREFIXES, letters=_LETTERS, source=MXNET_CELLS.source)
def _gru_cell(
    hidden_size: Any,
    i2h_weight_initializer: Any = None,
    h2h_weight_initializer: Any = None,
    i2h_bias_initializer: Any = "zeros",
    h2h_bias_initializer: Any = "zeros",
    input_size: Any = 0,
    prefix: Any = None,
    params: Any = None,
) -> Any:
    return _gluon("GRUCell", input_size, hidden_size, prefix)


# --------------------------------------------------------------------------- the symbol API's fused RNN
# ``mx.sym.RNN(data=data, state_size=512, num_layers=5, mode="lstm", state=h0, state_cell=c0)``
# (mxnet 1.9.1, src/operator/rnn-inl.h ``RNNParam``; python/mxnet/symbol/gen_op.py is generated
# from it): one operator whose weights are a single flat variable, ``<name>_parameters``, of the
# length infer_shape gives from the data's features — the fused vector a Gluon layer of the same
# mode, sizes and direction packs (rnn_layer.py ``_RNNLayer._forward_kernel`` concatenates exactly
# these tensors). The symbols ``data``, ``state``, ``state_cell`` and ``sequence_length`` hold
# no weight: what the line passes there is not read.

_SYM_MODES = {"lstm": "LSTM", "gru": "GRU", "rnn_relu": "RNN", "rnn_tanh": "RNN"}
_SYM_SOURCE = "src/operator/rnn-inl.h (mxnet 1.9.1, RNNParam; the fused parameters' length: GetRnnParamSize)"


def _sym_rnn(
    data: Any = None,
    parameters: Any = None,
    state: Any = None,
    state_cell: Any = None,
    sequence_length: Any = None,
    state_size: Any = None,
    num_layers: Any = None,
    bidirectional: Any = False,
    mode: Any = None,
    p: Any = 0.0,
    state_outputs: Any = False,
    projection_size: Any = None,
    lstm_state_clip_min: Any = None,
    lstm_state_clip_max: Any = None,
    lstm_state_clip_nan: Any = False,
    use_sequence_length: Any = False,
    name: Any = None,
    attr: Any = None,
    out: Any = None,
) -> Any:
    for key, value in (("state_size", state_size), ("num_layers", num_layers), ("mode", mode)):
        if value is None:
            raise TypeError(
                f"Required parameter {key} of RNN is not presented (mx.sym.RNN needs state_size, num_layers and mode)"
            )
    choice("mode", mode, tuple(_SYM_MODES))
    cls = _SYM_MODES[mode]
    options: dict[str, Any] = {"num_layers": num_layers, "bidirectional": bidirectional}
    if cls == "LSTM":
        options["proj_size"] = 0 if projection_size in (None, 0) else optional_size("projection_size", projection_size)
    elif projection_size not in (None, 0):
        raise ValueError(f"projection_size is for mode='lstm' only, got mode={mode!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name should be a str or None, got: {validate.shown(name)}")
    tensor = f"{name or 'rnn0'}_parameters"

    def make(width: Any) -> Module:
        layers = stack_module("mxnet", cls, width, state_size, type=cls, sep="_", **options)
        return Module("", "RNN", params=(Param(tensor, (count(layers),)),))

    return Deferred(make)


for _written in ("sym.RNN", "symbol.RNN"):  # one function object each: the decorator names it "<class>.__init__"
    constructor(
        "mxnet",
        _written,
        prefixes=("mx.", "mxnet.", ""),
        letters={"state_size": "H", "num_layers": "L", "projection_size": "P"},
        deferred=True,
        source=_SYM_SOURCE,
    )(FunctionType(_sym_rnn.__code__, _sym_rnn.__globals__, _written, _sym_rnn.__defaults__))
