"""Flax: linen (a ``Dense`` per gate and side) and nnx (``Linear`` layers as attributes)."""

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

from typing import Any  # noqa: E402

from .mirror import Deferred, constructor, stack_module  # noqa: E402

_LINEN = ("flax.linen.", "linen.", "nn.")
_NNX = ("flax.nnx.", "nnx.")
_LINEN_LETTERS = {"features": "H"}
_NNX_LETTERS = {"in_features": "I", "hidden_features": "H"}


def _linen(cls: str, features: Any, **options: Any) -> Deferred:
    return Deferred(lambda width: stack_module("flax.linen", cls, width, features, type=cls, sep="/", **options))


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
) -> Deferred:
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
    ) -> Deferred:
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
) -> Deferred:
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
) -> Deferred:
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
