"""Flax: linen (a ``Dense`` per gate and side) and nnx (``Linear`` layers as attributes); their
sequence wrappers (``nn.RNN``, ``nn.Bidirectional``, ``nnx.RNN``, ``nnx.Bidirectional``, ``nnx.Sequential``)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, layer_path, register

__all__ = ["FLAX_LINEN", "FLAX_LINEN_CONV", "FLAX_NNX", "FLAX_NNX_LSTM"]


_LINEN_DIRECTIONS = {1: ("cell",), 2: ("forward_rnn/cell", "backward_rnn/cell")}


#: Flax linen (``flax/linen/recurrent.py``): one ``Dense`` per gate and side, named ``i<gate>``
#: (input) and ``h<gate>`` (hidden), kernels (in, H); ``SimpleCell`` has ``i`` and ``h``. Biases:
#: only where a sum needs one — LSTM on the hidden side (``hi``, ``hf``, ``hg``, ``ho``), GRU
#: ``ir``, ``iz``, ``in`` and ``hn`` (4H), MGU ``if``, ``in`` and, with ``reset_gate``, ``hn``,
#: ``SimpleCell`` ``i``. ``OptimizedLSTMCell`` keeps ``LSTMCell``'s names and shapes.
FLAX_LINEN = Convention(
    name="Flax linen",
    tensors=(
        TensorLayout("i{gate}/kernel", "weight", ("ih",), transpose=True, per_gate=True),
        TensorLayout("i{gate}/bias", "bias", ("ih",), per_gate=True),
        TensorLayout("h{gate}/kernel", "weight", ("hh",), transpose=True, per_gate=True),
        TensorLayout("h{gate}/bias", "bias", ("hh",), per_gate=True),
    ),
    layer_name=layer_path("layers_{layer}/{label}/{base}"),
    source="flax/linen/recurrent.py (SimpleCell, LSTMCell, OptimizedLSTMCell, GRUCell, MGUCell)",
    biases={"RNN_TANH": "input", "LSTM": "hidden", "GRU": "input", "MGU": "input"},
    gate_labels={"RNN_TANH": {"h": ""}},
    direction_names=_LINEN_DIRECTIONS,
)


#: Flax linen ``ConvLSTMCell`` (``flax/linen/recurrent.py``): two ``Conv`` layers, ``ih`` and
#: ``hh``, kernels (*kernel_size, C, 4F) and (*kernel_size, F, 4F), each with a bias (4F,) — two
#: biases where Keras' ``ConvLSTM*D`` has one. Gate order i, g, f, o.
FLAX_LINEN_CONV = Convention(
    name="Flax linen ConvLSTMCell",
    tensors=(
        TensorLayout("ih/kernel", "weight", ("ih",), transpose=True),
        TensorLayout("ih/bias", "bias", ("ih",)),
        TensorLayout("hh/kernel", "weight", ("hh",), transpose=True),
        TensorLayout("hh/bias", "bias", ("hh",)),
    ),
    layer_name=layer_path("layers_{layer}/{label}/{base}"),
    source="flax/linen/recurrent.py (ConvLSTMCell)",
    gate_order={"CONVLSTM": ("i", "g", "f", "o")},
    direction_names=_LINEN_DIRECTIONS,
)


#: Flax nnx ``SimpleCell``, ``OptimizedLSTMCell``, ``GRUCell`` (``flax/nnx/nn/recurrent.py``): two
#: ``Linear`` layers, ``dense_i`` (I, G·H) and ``dense_h`` (H, G·H). Biases: ``SimpleCell`` and
#: ``GRUCell`` on ``dense_i`` only — so the GRU has 3H of bias, H fewer than linen's, and no
#: recurrent bias inside the reset product; ``OptimizedLSTMCell`` on ``dense_h``.
FLAX_NNX = Convention(
    name="Flax nnx",
    tensors=(
        TensorLayout("dense_i/kernel", "weight", ("ih",), transpose=True),
        TensorLayout("dense_i/bias", "bias", ("ih",)),
        TensorLayout("dense_h/kernel", "weight", ("hh",), transpose=True),
        TensorLayout("dense_h/bias", "bias", ("hh",)),
    ),
    layer_name=layer_path("layers/{layer}/{label}/{base}"),
    source="flax/nnx/nn/recurrent.py (SimpleCell, OptimizedLSTMCell, GRUCell)",
    biases={"RNN_TANH": "input", "LSTM": "hidden", "GRU": "input_only"},
    direction_names=_LINEN_DIRECTIONS,
)


#: Flax nnx ``LSTMCell`` (``flax/nnx/nn/recurrent.py``): linen's per-gate layout as attributes
#: ``ii``, ``if_`` (``if`` is a Python keyword), ``ig``, ``io`` (no bias) and ``hi``, ``hf``,
#: ``hg``, ``ho`` (with bias).
FLAX_NNX_LSTM = Convention(
    name="Flax nnx LSTMCell",
    tensors=(
        TensorLayout("ii/kernel", "weight", ("ih",), transpose=True, gates=("i",)),
        TensorLayout("if_/kernel", "weight", ("ih",), transpose=True, gates=("f",)),
        TensorLayout("ig/kernel", "weight", ("ih",), transpose=True, gates=("g",)),
        TensorLayout("io/kernel", "weight", ("ih",), transpose=True, gates=("o",)),
        TensorLayout("h{gate}/kernel", "weight", ("hh",), transpose=True, per_gate=True),
        TensorLayout("h{gate}/bias", "bias", ("hh",), per_gate=True),
    ),
    layer_name=layer_path("layers/{layer}/{label}/{base}"),
    source="flax/nnx/nn/recurrent.py (LSTMCell)",
    biases={"LSTM": "hidden"},
    direction_names=_LINEN_DIRECTIONS,
)


register(
    Framework(
        "flax.linen",
        "Flax linen",
        (
            CellSpec("SimpleCell", "RNN_TANH", "rnn", FLAX_LINEN, "cell"),
            CellSpec("LSTMCell", "LSTM", "lstm", FLAX_LINEN, "cell"),
            CellSpec("OptimizedLSTMCell", "LSTM", "lstm", FLAX_LINEN, "cell"),
            CellSpec("GRUCell", "GRU", "gru", FLAX_LINEN, "cell"),
            CellSpec("MGUCell", "MGU", "mgu", FLAX_LINEN, "cell", {"reset_gate": YES_NO}),
            CellSpec(
                "ConvLSTMCell", "CONVLSTM", "convlstm", FLAX_LINEN_CONV, "cell", {"bias": YES_NO, "kernel_size": ()}
            ),
        ),
        ("flax", "jax"),
        FLAX_LINEN.source,
        order=50,
    )
)

register(
    Framework(
        "flax.nnx",
        "Flax nnx",
        (
            CellSpec("SimpleCell", "RNN_TANH", "rnn", FLAX_NNX, "cell"),
            CellSpec("LSTMCell", "LSTM", "lstm", FLAX_NNX_LSTM, "cell"),
            CellSpec("OptimizedLSTMCell", "LSTM", "lstm", FLAX_NNX, "cell"),
            CellSpec("GRUCell", "GRU", "gru", FLAX_NNX, "cell"),
        ),
        ("flax", "jax"),
        FLAX_NNX.source,
        order=51,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# Flax linen cells make their weights when first applied (``--input-dim``): ``nn.LSTMCell(128)``
# after ``import flax.linen as nn`` (torch's ``nn.LSTMCell`` by default; ``--framework
# flax.linen`` chooses Flax). nnx cells take both widths and a required keyword ``rngs``.
# Signatures of flax/linen/recurrent.py and flax/nnx/nn/recurrent.py (flax 0.12.8): the
# initializers, dtypes, activation functions and ``rngs`` change no tensor and are not read.

from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

from ..engine import validate  # noqa: E402
from ..tree import Module  # noqa: E402
from .mirror import Deferred, constructor, stack_module  # noqa: E402

_LINEN = ("flax.linen.", "linen.", "nn.")
_NNX = ("flax.nnx.", "nnx.")
_LINEN_LETTERS = {"features": "H"}
_NNX_LETTERS = {"in_features": "I", "hidden_features": "H"}


@dataclass(frozen=True)
class Linen(Deferred):
    """A Flax linen module derive knows: :class:`Deferred` (its weights made on the input width), with
    what it is and the features of its output.

    Attributes
    ----------
    make : callable
        ``make(input_width) -> Module`` (:class:`Deferred`).
    kind : str
        The class (``"LSTMCell"`` ..., a cell: one step; ``"RNN"``, a cell over a sequence;
        ``"Bidirectional"``).
    output : int, sympy.Expr or None
        The features of its output (a cell's ``features``; a ``Bidirectional``'s merge of its two
        RNNs' outputs); None where derive does not evaluate the merge (``merge_fn=`` given).
    """

    kind: str = ""
    output: Any = None

    @property
    def is_cell(self) -> bool:
        """Whether it is a cell (one time step), which ``nn.RNN`` takes."""
        return self.kind.endswith("Cell")


def _linen(cls: str, features: Any, **options: Any) -> Linen:
    return Linen(
        lambda width: stack_module("flax.linen", cls, width, features, type=cls, sep="/", **options), cls, features
    )


@constructor(
    "flax.linen", "SimpleCell", prefixes=_LINEN, letters=_LINEN_LETTERS, deferred=True, source=FLAX_LINEN.source
)
def _simple_cell(
    features: Any,
    activation_fn: Any = None,
    kernel_init: Any = None,
    recurrent_kernel_init: Any = None,
    bias_init: Any = None,
    dtype: Any = None,
    param_dtype: Any = None,
    carry_init: Any = None,
    residual: Any = False,
    parent: Any = None,
    name: Any = None,
) -> Linen:
    return _linen("SimpleCell", features)


def _linen_lstm(cls: str) -> None:
    def make(
        features: Any,
        gate_fn: Any = None,
        activation_fn: Any = None,
        kernel_init: Any = None,
        recurrent_kernel_init: Any = None,
        bias_init: Any = None,
        dtype: Any = None,
        param_dtype: Any = None,
        carry_init: Any = None,
        parent: Any = None,
        name: Any = None,
    ) -> Linen:
        return _linen(cls, features)

    constructor("flax.linen", cls, prefixes=_LINEN, letters=_LINEN_LETTERS, deferred=True, source=FLAX_LINEN.source)(
        make
    )


for _cls in ("LSTMCell", "OptimizedLSTMCell", "GRUCell"):
    _linen_lstm(_cls)


@constructor("flax.linen", "MGUCell", prefixes=_LINEN, letters=_LINEN_LETTERS, deferred=True, source=FLAX_LINEN.source)
def _mgu_cell(
    features: Any,
    gate_fn: Any = None,
    activation_fn: Any = None,
    kernel_init: Any = None,
    recurrent_kernel_init: Any = None,
    forget_bias_init: Any = None,
    activation_bias_init: Any = None,
    dtype: Any = None,
    param_dtype: Any = None,
    carry_init: Any = None,
    reset_gate: Any = True,
    parent: Any = None,
    name: Any = None,
) -> Linen:
    return _linen("MGUCell", features, reset_gate=reset_gate)


@constructor(
    "flax.linen", "ConvLSTMCell", prefixes=_LINEN, letters=_LINEN_LETTERS, deferred=True, source=FLAX_LINEN_CONV.source
)
def _conv_lstm_cell(
    features: Any,
    kernel_size: Any,
    strides: Any = None,
    padding: Any = "SAME",
    use_bias: Any = True,
    dtype: Any = None,
    param_dtype: Any = None,
    carry_init: Any = None,
    parent: Any = None,
    name: Any = None,
) -> Linen:
    return _linen("ConvLSTMCell", features, bias=use_bias, kernel_size=kernel_size)


def _nnx_cell(cls: str) -> None:
    def make(in_features: Any, hidden_features: Any, *, rngs: Any, **unread: Any) -> Any:
        """Every other argument of the nnx cells is keyword-only and changes no tensor."""
        unknown = sorted(set(unread) - _NNX_KEYWORDS)
        if unknown:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument {unknown[0]!r}")
        return stack_module("flax.nnx", cls, in_features, hidden_features, type=cls, sep="/")

    constructor("flax.nnx", cls, prefixes=_NNX, letters=_NNX_LETTERS, source=FLAX_NNX.source)(make)


#: The nnx cells' keyword-only arguments besides ``rngs`` (none changes a tensor).
_NNX_KEYWORDS = {
    "gate_fn",
    "activation_fn",
    "kernel_init",
    "recurrent_kernel_init",
    "bias_init",
    "dtype",
    "param_dtype",
    "carry_init",
    "residual",
    "promote_dtype",
    "keep_rngs",
    "kernel_metadata",
    "recurrent_kernel_metadata",
    "bias_metadata",
}

for _cls in ("SimpleCell", "LSTMCell", "OptimizedLSTMCell", "GRUCell"):
    _nnx_cell(_cls)


# --------------------------------------------------------------------------- the sequence wrappers
# ``nn.RNN(cell)`` scans a cell over time (flax/linen/recurrent.py ``RNN``: ``nn.scan`` with the
# ``params`` broadcast, so one copy of the cell's weights, under ``cell/``); ``nn.Bidirectional(
# forward_rnn, backward_rnn)`` runs two of them, under ``forward_rnn/`` and ``backward_rnn/``, and
# merges their outputs with ``merge_fn`` (parameter-free; concatenation by default). No ``name=``
# changes a path: Flax names a wrapped module by the attribute that holds it. nnx's ``RNN`` and
# ``Bidirectional`` (flax/nnx/nn/recurrent.py) hold the same attributes; ``nnx.Sequential(*layers)``
# holds its layers under ``layers/<position>/`` (a function between them keeps its position).

_RNN_SOURCE = "flax/linen/recurrent.py (RNN, Bidirectional)"
_NNX_RNN_SOURCE = "flax/nnx/nn/recurrent.py (RNN, Bidirectional), flax/nnx/helpers.py (Sequential)"
#: ``merge_fn``'s default: Flax's concatenation of the two outputs on the last axis (any other merge is
#: not evaluated: the width of its output is not known).
_CONCATENATE = object()


def _written(value: Any, prefix: str) -> str:
    """An argument as its user wrote it: the source of one derive did not evaluate, the class of one
    it made (``nn.GRUCell(...)``), else its repr."""
    source = getattr(value, "unread_source", None)
    if isinstance(source, str):
        return source
    if isinstance(value, (Linen, Module)):
        return f"{prefix}{value.kind if isinstance(value, Linen) else value.type}(...)"
    return validate.shown(value)


def _scanned_once(variable_axes: Any, variable_broadcast: Any) -> None:
    """Refuse the ``nn.scan`` options that give each time step its own weights (``variable_axes``
    naming ``params``, ``params`` not broadcast): the tensors would gain the time axis."""
    if variable_broadcast is not True and variable_broadcast != "params":
        if not (isinstance(variable_broadcast, (list, tuple)) and "params" in variable_broadcast):
            raise ValueError(
                f"variable_broadcast={_written(variable_broadcast, '')} is not supported by derive: without 'params' "
                "broadcast, the cell's weights are scanned per time step (their shapes gain the sequence length)"
            )
    if variable_axes is None or variable_axes == {}:
        return
    if not isinstance(variable_axes, dict):
        raise ValueError(
            f"variable_axes={_written(variable_axes, '')}: derive does not evaluate it (an axis for 'params' would "
            "give every time step its own weights): write the dict out, e.g. variable_axes={'intermediates': 1}"
        )
    if "params" in variable_axes or True in variable_axes:
        raise ValueError(
            f"variable_axes={_written(variable_axes, '')} is not supported by derive: scanning 'params' over an axis "
            "gives every time step its own weights (their shapes gain the sequence length)"
        )


def _linen_rnn_of(value: Any, argument: str) -> Linen:
    if not isinstance(value, Linen) or value.kind != "RNN":
        raise TypeError(
            f"{argument} must be an nn.RNN of a cell derive knows (nn.RNN(nn.LSTMCell(64))), got {_written(value, 'nn.')}"
        )
    return value


@constructor("flax.linen", "RNN", prefixes=_LINEN, deferred=True, source=_RNN_SOURCE)
def _rnn(
    cell: Any,
    time_major: Any = False,
    return_carry: Any = False,
    reverse: Any = False,
    keep_order: Any = False,
    unroll: Any = 1,
    variable_axes: Any = None,
    variable_broadcast: Any = "params",
    variable_carry: Any = False,
    split_rngs: Any = None,
    parent: Any = None,
    name: Any = None,
) -> Linen:
    """``nn.RNN(cell, ...)``: the cell's parameters once, under ``cell/``; its output the cell's features."""
    if not isinstance(cell, Linen) or not cell.is_cell:
        raise TypeError(
            f"cell must be a Flax linen cell derive knows (nn.LSTMCell, nn.GRUCell, nn.SimpleCell, nn.MGUCell, "
            f"nn.OptimizedLSTMCell, nn.ConvLSTMCell), got {_written(cell, 'nn.')}"
        )
    _scanned_once(variable_axes, variable_broadcast)
    return Linen(
        lambda width: Module("", "RNN", children=(cell.make(width).replace(name="cell"),), sep="/"), "RNN", cell.output
    )


def _merged(forward: Any, backward: Any, merge_fn: Any) -> Any:
    """The features of a ``Bidirectional``'s output: the two RNNs' concatenated, unknown for another merge."""
    if merge_fn is not _CONCATENATE or forward is None or backward is None:
        return None
    return forward + backward


@constructor("flax.linen", "Bidirectional", prefixes=_LINEN, deferred=True, source=_RNN_SOURCE)
def _bidirectional(
    forward_rnn: Any,
    backward_rnn: Any,
    merge_fn: Any = _CONCATENATE,
    time_major: Any = False,
    return_carry: Any = False,
    parent: Any = None,
    name: Any = None,
) -> Linen:
    """``nn.Bidirectional(forward_rnn, backward_rnn, merge_fn=...)``: both RNNs' parameters, under
    ``forward_rnn/`` and ``backward_rnn/``; the merge has none."""
    forward = _linen_rnn_of(forward_rnn, "forward_rnn")
    backward = _linen_rnn_of(backward_rnn, "backward_rnn")

    def make(width: Any) -> Module:
        both = (forward.make(width).replace(name="forward_rnn"), backward.make(width).replace(name="backward_rnn"))
        return Module("", "Bidirectional", children=both, sep="/")

    return Linen(make, "Bidirectional", _merged(forward.output, backward.output, merge_fn))


#: Functions a ``Sequential`` may hold between its layers (no parameters; the width unchanged).
_LINEN_FUNCTIONS = ("jax.nn.", "jnp.", "jax.numpy.", *_LINEN)


@constructor(
    "flax.linen", "Sequential", prefixes=("flax.linen.", "linen."), asked_prefixes=("nn.",), deferred=True,
    source=_RNN_SOURCE,
)  # fmt: skip
def _sequential(layers: Any, parent: Any = None, name: Any = None) -> Linen:
    """``flax.linen.Sequential([...])`` (flax/linen/combinators.py): each layer reads the output of the one
    before; its parameters under ``layers_<position>/`` (a function's position counts). ``nn.Sequential``
    is Flax's only where ``--framework flax.linen`` is asked for: on a line of no stated framework it is
    PyTorch's."""
    if not isinstance(layers, (list, tuple)) or not layers:
        raise TypeError(
            f"layers must be a non-empty list of nn.RNN, nn.Bidirectional and functions, got {_written(layers, '')}"
        )
    for layer in layers:
        source = getattr(layer, "unread_source", None)
        if isinstance(layer, Linen) and not layer.is_cell:
            continue
        if not (isinstance(source, str) and source.startswith(_LINEN_FUNCTIONS) and "(" not in source):
            raise TypeError(
                f"{_written(layer, 'linen.')} is not a layer of a Sequential derive knows (nn.RNN, nn.Bidirectional, "
                "a function of flax.linen, jax.nn or jnp; a cell takes a carry: wrap it in nn.RNN)"
            )

    def make(width: Any) -> Module:
        children = []
        for k, layer in enumerate(layers):
            if not isinstance(layer, Linen):
                continue
            if width is None:
                raise ValueError(
                    f"layers_{k} reads the output of a merge_fn derive does not evaluate: its width is not known"
                )
            children.append(layer.make(width).replace(name=f"layers_{k}"))
            width = layer.output
        return Module("", "Sequential", children=tuple(children), sep="/")

    outputs = [layer.output for layer in layers if isinstance(layer, Linen)]
    return Linen(make, "Sequential", outputs[-1] if outputs else None)


#: The nnx cells (:func:`_nnx_cell`), by the type of the module they make.
_NNX_CELLS = ("SimpleCell", "LSTMCell", "OptimizedLSTMCell", "GRUCell")


def _nnx_part(value: Any, argument: str, types: tuple[str, ...], what: str) -> Module:
    if not isinstance(value, Module) or value.type not in types:
        raise TypeError(f"{argument} must be {what}, got {_written(value, 'nnx.')}")
    return value


@constructor("flax.nnx", "RNN", prefixes=_NNX, source=_NNX_RNN_SOURCE)
def _nnx_rnn(
    cell: Any,
    *,
    time_major: Any = False,
    return_carry: Any = False,
    reverse: Any = False,
    keep_order: Any = False,
    unroll: Any = 1,
    state_axes: Any = None,
    broadcast_rngs: Any = None,
    rngs: Any = True,
) -> Module:
    """``nnx.RNN(cell, ...)``: the cell's parameters, under ``cell/`` (``state_axes`` is the carry's)."""
    made = _nnx_part(cell, "cell", _NNX_CELLS, "an nnx cell derive knows (nnx.LSTMCell(3, 4, rngs=...) ...)")
    return Module("", "RNN", children=(made.replace(name="cell"),), sep="/")


@constructor("flax.nnx", "Bidirectional", prefixes=_NNX, source=_NNX_RNN_SOURCE)
def _nnx_bidirectional(
    forward_rnn: Any,
    backward_rnn: Any,
    *,
    merge_fn: Any = None,
    time_major: Any = False,
    return_carry: Any = False,
    rngs: Any = True,
) -> Module:
    """``nnx.Bidirectional(forward_rnn, backward_rnn, ...)``: both RNNs' parameters, under
    ``forward_rnn/`` and ``backward_rnn/``; the merge has none."""
    what = "an nnx.RNN of a cell derive knows (nnx.RNN(nnx.LSTMCell(3, 4, rngs=...)))"
    forward = _nnx_part(forward_rnn, "forward_rnn", ("RNN",), what)
    backward = _nnx_part(backward_rnn, "backward_rnn", ("RNN",), what)
    both = (forward.replace(name="forward_rnn"), backward.replace(name="backward_rnn"))
    return Module("", "Bidirectional", children=both, sep="/")


#: Functions an ``nnx.Sequential`` may hold between its layers (no parameters).
_FUNCTIONS = ("jax.nn.", "jnp.", "jax.numpy.", "nnx.", "flax.nnx.")


@constructor("flax.nnx", "Sequential", prefixes=_NNX, source=_NNX_RNN_SOURCE)
def _nnx_sequential(*layers: Any) -> Module:
    """``nnx.Sequential(*layers)``: each layer's parameters under ``layers/<position>/`` (a function's
    position counts, as nnx's list of layers keeps it)."""
    if not layers:
        raise TypeError("Sequential needs at least one layer")
    children = []
    for k, layer in enumerate(layers):
        if isinstance(layer, Module) and layer.type in (*_NNX_CELLS, "RNN", "Bidirectional"):
            children.append(layer.replace(name=str(k)))
            continue
        source = getattr(layer, "unread_source", None)
        if not (isinstance(source, str) and source.startswith(_FUNCTIONS) and "(" not in source):
            raise TypeError(
                f"{_written(layer, 'nnx.')} is not an nnx layer derive knows (nnx.RNN, nnx.Bidirectional, the nnx "
                "cells) nor a function of jax.nn / jnp"
            )
    return Module("", "Sequential", children=(Module("layers", "list", children=tuple(children), sep="/"),), sep="/")
