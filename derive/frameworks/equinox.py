"""Equinox: JAX cells as PyTorch writes them, with one merged bias."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, layer_path, register

__all__ = ["EQUINOX"]


#: Equinox ``LSTMCell``, ``GRUCell`` (``equinox/nn/_rnn.py``): ``weight_ih`` (G·H, I),
#: ``weight_hh`` (G·H, H), one ``bias`` (G·H,) added to the input side; the GRU adds ``bias_n``
#: (H,), the recurrent bias inside the reset product. Gate order PyTorch's.
EQUINOX = Convention(
    name="Equinox",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias", "bias", ("ih",)),
        TensorLayout("bias_n", "bias", ("hh",)),
    ),
    layer_name=layer_path("[{layer}]{label}.{base}"),
    source="equinox/nn/_rnn.py (LSTMCell, GRUCell)",
    biases={"LSTM": "input", "GRU": "input"},
    direction_names={1: ("",), 2: ("[0]", "[1]")},
)


register(
    Framework(
        "equinox",
        "Equinox",
        (
            CellSpec("LSTMCell", "LSTM", "lstm", EQUINOX, "cell", {"bias": YES_NO}),
            CellSpec("GRUCell", "GRU", "gru", EQUINOX, "cell", {"bias": YES_NO}),
        ),
        ("equinox", "jax"),
        EQUINOX.source,
        order=60,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``eqx.nn.LSTMCell(32, 128, key=key)``: signatures of equinox/nn/_rnn.py (equinox 0.13.8); the
# required keyword ``key`` and ``dtype`` change no tensor and are not read.

from typing import Any  # noqa: E402

from .mirror import constructor, stack_module  # noqa: E402

_PREFIXES = ("eqx.nn.", "equinox.nn.")
_LETTERS = {"input_size": "I", "hidden_size": "H"}


def _cell(cls: str) -> None:
    def make(input_size: Any, hidden_size: Any, use_bias: Any = True, dtype: Any = None, *, key: Any) -> Any:
        return stack_module("equinox", cls, input_size, hidden_size, bias=use_bias)

    constructor("equinox", cls, prefixes=_PREFIXES, letters=_LETTERS, source=EQUINOX.source)(make)


for _cls in ("LSTMCell", "GRUCell"):
    _cell(_cls)
