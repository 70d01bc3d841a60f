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
