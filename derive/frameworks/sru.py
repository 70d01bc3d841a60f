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


# --------------------------------------------------------------------------- constructors as users write them
# ``sru.SRU(32, 128, num_layers=2)``: signatures of sru/modules.py (sru 2.6.0). The options that add
# or replace tensors (a projection, layer norm, a custom weight module) are not modelled and are
# refused; the others (dropout, activations, initial values, kernels) change no tensor.

from typing import Any  # noqa: E402

from ..engine import validate  # noqa: E402
from .mirror import constructor, stack_module, unsupported  # noqa: E402

_PREFIXES = ("sru.", "")
_LETTERS = {"input_size": "I", "hidden_size": "H", "num_layers": "L"}


def _unmodelled(projection: tuple[str, Any], layer_norm: Any, custom_m: Any, first: Any = False) -> None:
    unsupported(projection[0], projection[1], 0, "it adds projection weights")
    unsupported("layer_norm", layer_norm, False, "it adds LayerNorm weights")
    unsupported("custom_m", custom_m, None, "it replaces the weight matrix by a module of yours")
    unsupported("proj_input_to_hidden_first", first, False, "it adds a projection of the input")


@constructor("sru", "SRU", prefixes=_PREFIXES, letters=_LETTERS, source=_SOURCE)
def _sru(
    input_size: Any,
    hidden_size: Any,
    num_layers: Any = 2,
    dropout: Any = 0.0,
    rnn_dropout: Any = 0.0,
    bidirectional: Any = False,
    projection_size: Any = 0,
    use_tanh: Any = False,
    layer_norm: Any = False,
    highway_bias: Any = 0.0,
    has_skip_term: Any = True,
    rescale: Any = False,
    v1: Any = False,
    nn_rnn_compatible_return: Any = False,
    custom_m: Any = None,
    proj_input_to_hidden_first: Any = False,
    amp_recurrence_fp16: Any = False,
    normalize_after: Any = False,
    weight_c_init: Any = None,
) -> Any:
    _unmodelled(("projection_size", projection_size), layer_norm, custom_m, proj_input_to_hidden_first)
    validate.probability("dropout", dropout)
    return stack_module(
        "sru",
        "SRU",
        input_size,
        hidden_size,
        num_layers=num_layers,
        bidirectional=bidirectional,
        has_skip_term=has_skip_term,
    )


@constructor("sru", "SRUCell", prefixes=_PREFIXES, letters=_LETTERS, source=_SOURCE)
def _sru_cell(
    input_size: Any,
    hidden_size: Any,
    dropout: Any = 0.0,
    rnn_dropout: Any = 0.0,
    bidirectional: Any = False,
    n_proj: Any = 0,
    use_tanh: Any = False,
    highway_bias: Any = 0.0,
    has_skip_term: Any = True,
    layer_norm: Any = False,
    rescale: Any = True,
    v1: Any = False,
    custom_m: Any = None,
    amp_recurrence_fp16: Any = False,
    normalize_after: Any = False,
    weight_c_init: Any = None,
) -> Any:
    _unmodelled(("n_proj", n_proj), layer_norm, custom_m)
    validate.probability("dropout", dropout)
    return stack_module(
        "sru", "SRUCell", input_size, hidden_size, bidirectional=bidirectional, has_skip_term=has_skip_term
    )
