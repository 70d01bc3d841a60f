"""SRU (the ``sru`` package, 2.6.0): one input weight per layer, both directions side by side."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, layer_path, register

__all__ = ["SRU_LAYERS", "SRU_CELL"]

_SOURCE = "sru/modules.py (sru 2.6.0; SRUCell.__init__, SRU.__init__)"

_TENSORS = (
    TensorLayout("weight", "weight", ("ih",), transpose=True),
    TensorLayout("weight_c", "peephole", ("c",)),
    TensorLayout("bias", "bias", ("ih",)),
)

#: ``sru.SRU(input_size, hidden_size, num_layers=2, bidirectional=False)``: per layer k, in
#: ``rnn_lst.<k>``, ``weight`` (I_k, D·m·H) with m = 3 or 4 matrices (see
#: :func:`derive.cells.sru.sru_matrices`), ``weight_c`` (2·D·H,) = [v_f, v_r] and ``bias``
#: (2·D·H,) = [b_f, b_r]; the directions side by side in each tensor (columns per direction,
#: then per unit, then per matrix: ``weight.view(I, D, H, m)``).
SRU_LAYERS = Convention(
    name="sru SRU",
    tensors=_TENSORS,
    layer_name=layer_path("rnn_lst.{layer}.{base}"),
    source=_SOURCE,
    direction_axis="last",
)

#: ``sru.SRUCell``: one layer's tensors without the prefix; a stack of cells is an
#: ``nn.ModuleList`` (``<k>.weight``).
SRU_CELL = Convention(
    name="sru SRUCell",
    tensors=_TENSORS,
    layer_name=layer_path("{layer}.{base}"),
    source=_SOURCE,
    direction_axis="last",
)

register(
    Framework(
        "sru",
        "SRU (sru package)",
        (
            CellSpec("SRU", "SRU", "sru", SRU_LAYERS, "layer", {"has_skip_term": YES_NO}),
            CellSpec("SRUCell", "SRU", "sru", SRU_CELL, "node", {"has_skip_term": YES_NO}),
        ),
        ("sru", "torch"),
        _SOURCE,
        order=80,
    )
)
