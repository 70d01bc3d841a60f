"""PaddlePaddle: PyTorch's tensors per cell, a transposed projection, frozen disabled biases."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, layer_path, register

__all__ = ["PADDLE"]


#: PaddlePaddle ``paddle.nn.SimpleRNN``, ``LSTM``, ``GRU`` and their cells
#: (``python/paddle/nn/layer/rnn.py``): PyTorch's tensors per cell, ``weight_ih``, ``weight_hh``,
#: ``bias_ih``, ``bias_hh``, and with ``proj_size`` ``weight_ho`` (H, P) — the transpose of
#: PyTorch's ``weight_hr``. A layer is a list of ``RNN(cell)`` / ``BiRNN(cell_fw, cell_bw)``, so
#: names are ``<layer>.cell.<name>`` or ``<layer>.cell_fw.<name>``. ``bias_ih_attr=False`` does
#: not remove the bias: it is a zero vector with ``stop_gradient=True``, still in ``parameters()``.
PADDLE = Convention(
    name="PaddlePaddle",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_ho", "weight", ("hr",), transpose=True),
    ),
    layer_name=layer_path("{layer}.{label}.{base}"),
    source="python/paddle/nn/layer/rnn.py (SimpleRNNCell, LSTMCell, GRUCell, RNNBase.__init__)",
    direction_names={1: ("cell",), 2: ("cell_fw", "cell_bw")},
    frozen_bias=True,
)


register(
    Framework(
        "paddle",
        "PaddlePaddle",
        (
            CellSpec("SimpleRNN", "RNN_TANH", "rnn", PADDLE, "layer", {"bias": YES_NO}),
            CellSpec("LSTM", "LSTM", "lstm", PADDLE, "layer", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("GRU", "GRU", "gru", PADDLE, "layer", {"bias": YES_NO}),
            CellSpec("SimpleRNNCell", "RNN_TANH", "rnn", PADDLE, "cell", {"bias": YES_NO}),
            CellSpec("LSTMCell", "LSTM", "lstm", PADDLE, "cell", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("GRUCell", "GRU", "gru", PADDLE, "cell", {"bias": YES_NO}),
        ),
        ("paddlepaddle",),
        PADDLE.source,
        order=80,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``paddle.nn.LSTM(32, 128, 2, direction="bidirect")``: signatures and checks of
# python/paddle/nn/layer/rnn.py (paddlepaddle 3.3.1). A ``*_attr=False`` creates that tensor
# frozen (``stop_gradient=True``), still counted; a ``ParamAttr(trainable=False)`` likewise.

import ast  # noqa: E402
from typing import Any  # noqa: E402

from ..engine import validate  # noqa: E402
from .mirror import choice, constructor, stack_module  # noqa: E402

_PREFIXES = ("paddle.nn.", "nn.")
_LETTERS = {"input_size": "I", "hidden_size": "H", "num_layers": "L", "proj_size": "P"}
_ATTRS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
_DIRECTIONS = {"forward": False, "bidirect": True, "bidirectional": True}


def _trainable(name: str, attr: Any) -> bool:
    """Whether the tensor of a ``*_attr`` argument is trained: False for ``False`` and for a
    ``ParamAttr(..., trainable=False)`` written as code (read with :mod:`ast`, never run)."""
    if attr is None or attr is True:
        return True
    if attr is False:
        return False
    source = getattr(attr, "unread_source", None)
    if isinstance(source, str) and "trainable" in source:
        try:
            call = ast.parse(source, mode="eval").body
        except SyntaxError:
            call = None
        keywords = {k.arg: k.value for k in getattr(call, "keywords", ())}
        value = keywords.get("trainable")
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            return value.value
        raise ValueError(f"{name}: cannot tell whether the tensor is trained from {source} (not evaluated)")
    return True


def _paddle(cls: str, input_size: Any, hidden_size: Any, attrs: tuple[Any, ...], **options: Any) -> Any:
    frozen = {base for base, attr in zip(_ATTRS, attrs) if not _trainable(f"{base}_attr", attr)}
    if "num_layers" in options:
        _flattens(cls, attrs, options)
    proj = options.get("proj_size", 0)
    if isinstance(proj, int) and isinstance(hidden_size, int) and not isinstance(proj, bool) and proj >= hidden_size:
        raise ValueError("proj_size must be smaller than hidden_size")
    return stack_module(
        "paddle",
        cls,
        input_size,
        hidden_size,
        type=cls,
        frozen=lambda name: name.rsplit(".", 1)[-1] in frozen,
        **options,
    )


def _flattens(cls: str, attrs: tuple[Any, ...], options: dict[str, Any]) -> None:
    """Refuse a layer Paddle cannot build: ``RNNBase.flatten_parameters`` (run when every cell has
    four tensors, no projection) lays the layer's own parameters out four per cell, but a bias
    whose attr is False is not among them, and for some stacks an index falls past the list
    (IndexError in paddlepaddle 3.3.1; e.g. ``LSTM(3, 4, 2, bias_ih_attr=False, bias_hh_attr=False)``)."""
    missing = sum(1 for attr in attrs[2:] if attr is False)
    layers, proj = options["num_layers"], options.get("proj_size", 0)
    if not missing or not isinstance(layers, int) or proj != 0:
        return
    cells = layers * (2 if options["bidirectional"] else 1)
    n = cells * (4 - missing)
    if any((0 if i % 4 < 2 else 2 * cells) + (i // 4) * 2 + i % 2 >= n for i in range(n)):
        raise ValueError(
            f"paddle.nn.{cls} cannot be built with a bias attr False and {layers} layer(s) "
            f"{'in both directions' if cells > layers else 'in one direction'}: RNNBase.flatten_parameters indexes "
            "past its parameters (IndexError in paddlepaddle 3.3.1)"
        )


def _layer_options(num_layers: Any, direction: Any, dropout: Any) -> dict[str, Any]:
    if not isinstance(direction, str) or direction not in _DIRECTIONS:
        raise ValueError(
            f"direction should be forward or bidirect (or bidirectional), received direction = {validate.shown(direction)}"
        )
    validate.probability("dropout", dropout)
    return {"num_layers": num_layers, "bidirectional": _DIRECTIONS[direction]}


@constructor("paddle", "SimpleRNN", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _simple_rnn(
    input_size: Any,
    hidden_size: Any,
    num_layers: Any = 1,
    direction: Any = "forward",
    time_major: Any = False,
    dropout: Any = 0.0,
    activation: Any = "tanh",
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    name: Any = None,
) -> Any:
    choice("activation", activation, ("tanh", "relu"), f"Unknown activation {validate.shown(activation)}")
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    return _paddle("SimpleRNN", input_size, hidden_size, attrs, **_layer_options(num_layers, direction, dropout))


@constructor("paddle", "LSTM", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _lstm(
    input_size: Any,
    hidden_size: Any,
    num_layers: Any = 1,
    direction: Any = "forward",
    time_major: Any = False,
    dropout: Any = 0.0,
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    proj_size: Any = 0,
    name: Any = None,
) -> Any:
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    options = _layer_options(num_layers, direction, dropout)
    return _paddle("LSTM", input_size, hidden_size, attrs, proj_size=proj_size, **options)


@constructor("paddle", "GRU", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _gru(
    input_size: Any,
    hidden_size: Any,
    num_layers: Any = 1,
    direction: Any = "forward",
    time_major: Any = False,
    dropout: Any = 0.0,
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    name: Any = None,
) -> Any:
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    return _paddle("GRU", input_size, hidden_size, attrs, **_layer_options(num_layers, direction, dropout))


@constructor("paddle", "SimpleRNNCell", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _simple_rnn_cell(
    input_size: Any,
    hidden_size: Any,
    activation: Any = "tanh",
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    name: Any = None,
) -> Any:
    choice(
        "activation",
        activation,
        ("tanh", "relu"),
        f"activation for SimpleRNNCell should be tanh or relu, but get {validate.shown(activation)}",
    )
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    return _paddle("SimpleRNNCell", input_size, hidden_size, attrs)


@constructor("paddle", "LSTMCell", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _lstm_cell(
    input_size: Any,
    hidden_size: Any,
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    proj_size: Any = 0,
    name: Any = None,
) -> Any:
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    return _paddle("LSTMCell", input_size, hidden_size, attrs, proj_size=proj_size)


@constructor("paddle", "GRUCell", prefixes=_PREFIXES, letters=_LETTERS, source=PADDLE.source)
def _gru_cell(
    input_size: Any,
    hidden_size: Any,
    weight_ih_attr: Any = None,
    weight_hh_attr: Any = None,
    bias_ih_attr: Any = None,
    bias_hh_attr: Any = None,
    name: Any = None,
) -> Any:
    attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
    return _paddle("GRUCell", input_size, hidden_size, attrs)
