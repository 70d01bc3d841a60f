"""ONNX: the ``RNN``, ``GRU`` and ``LSTM`` operators (``onnx/defs/rnn/defs.cc``)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, YES_NO, CellSpec, Framework, register

__all__ = ["ONNX"]


def _onnx_name(base: str, layer: object, direction: int) -> str:
    return base if layer is None else f"node{layer}.{base}"


#: ONNX ``RNN``, ``GRU``, ``LSTM`` (``onnx/defs/rnn/defs.cc``, opset 22; one node = one layer):
#: ``W`` [D, G·H, I], ``R`` [D, G·H, H], optional ``B`` [D, 2·G·H] = [Wb, Rb] (two biases),
#: optional LSTM peepholes ``P`` [D, 3H]. Every input carries the direction axis, D = 1 for
#: ``forward`` and ``reverse``. Gate order: LSTM i, o, f, c; GRU z, r, h (the spec's names).
ONNX = Convention(
    name="ONNX",
    tensors=(
        TensorLayout("W", "weight", ("ih",)),
        TensorLayout("R", "weight", ("hh",)),
        TensorLayout("B", "bias", ("ih", "hh"), join="rows"),
        TensorLayout("P", "peephole", ("c",)),
    ),
    layer_name=_onnx_name,
    source="onnx/defs/rnn/defs.cc (RNN, GRU, LSTM schemas, opset 22)",
    gate_order={"LSTM": ("i", "o", "f", "g"), "GRU": ("z", "r", "n")},
    gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
    direction_axis=True,
)


register(
    Framework(
        "onnx",
        "ONNX",
        (
            CellSpec("RNN", "RNN_TANH", "rnn", ONNX, "node", {"bias": YES_NO}),
            CellSpec("LSTM", "LSTM", "lstm", ONNX, "node", {"bias": YES_NO, "peepholes": ON_OFF}),
            CellSpec("GRU", "GRU", "gru", ONNX, "node", {"bias": YES_NO, "reset_after": (False, True)}),
        ),
        ("onnx", "onnxruntime"),
        ONNX.source,
        order=10,
    )
)
