"""xLSTM's layers as the ``xlstm`` package (2.0.6, NX-AI) builds them: ``sLSTMLayer`` and ``mLSTMLayer``.

Tensor names are ``named_parameters()`` of the modules: the layer's own parameters first, then
its submodules' in the order ``__init__`` creates them. Sources (xlstm 2.0.6):
``xlstm/blocks/slstm/layer.py`` (``sLSTMLayer.__init__``, lines 36-82),
``xlstm/blocks/slstm/cell.py`` (``sLSTMCellBase.__init__``, lines 217-266: ``_recurrent_kernel_``
(N_H, H/N_H, 4, H/N_H) reshaped by the vanilla backend's ``_recurrent_kernel_ext2int``, lines
614-631, to (N_H, 4H/N_H, H/N_H), and ``_bias_`` to (4H,)), ``xlstm/blocks/mlstm/layer.py``
(``mLSTMLayer.__init__``, lines 42-99), ``xlstm/blocks/mlstm/cell.py`` (``mLSTMCell.__init__``,
lines 23-41), ``xlstm/components/linear_headwise.py`` (lines 49-64), ``conv.py`` (lines 71-90),
``ln.py`` (lines 11-25) and ``xlstm/utils.py`` (``_set_proj_up_dim``, lines 20-29).
"""

from __future__ import annotations

from typing import Any

from ..engine.conventions import Convention, TensorLayout
from ..engine.symbols import Size
from .registry import ON_OFF, POSITIVE_NUMBER, SIZE_OR_ZERO, YES_NO, CellSpec, Framework, register

__all__ = ["XLSTM_SLSTM", "XLSTM_MLSTM", "check_embedding"]

_SOURCE = (
    "xlstm/blocks/slstm/layer.py, xlstm/blocks/slstm/cell.py, xlstm/blocks/mlstm/layer.py, "
    "xlstm/blocks/mlstm/cell.py, xlstm/components/ (xlstm 2.0.6, __init__ of each module)"
)
_DIRECTIONS = {1: ("",), 2: ("forward", "backward")}


def _name(base: str, layer: Any, label: str) -> str:
    """``base`` for one layer; ``<n>.base`` in an ``nn.ModuleList`` of layers, n = layer·D + direction."""
    if layer is None:
        return base
    n = layer * (2 if label else 1) + int(label == "backward")
    return f"{n}.{base}"


_CONV = (
    TensorLayout("conv1d.conv.weight", "weight", ("conv",)),
    TensorLayout("conv1d.conv.bias", "bias", ("conv",)),
)

#: ``sLSTMLayer(sLSTMLayerConfig(embedding_dim=H, num_heads=N, conv1d_kernel_size=K,
#: group_norm_weight=True, backend="vanilla"))``: ``conv1d.conv.weight`` (H, 1, K) and
#: ``conv1d.conv.bias`` (H,) when K > 0; ``fgate.weight``, ``igate.weight``, ``zgate.weight``,
#: ``ogate.weight`` (N, H/N, H/N) each (the layer feeds ``fgate``'s output to the cell's input
#: gate and ``igate``'s to its forget gate: xlstm/blocks/slstm/layer.py, lines 144-153);
#: ``slstm_cell._recurrent_kernel_`` (N, 4H/N, H/N) (gates i, f, z, o); ``slstm_cell._bias_``
#: (4H,); ``group_norm.weight`` (H,) when ``group_norm_weight``.
XLSTM_SLSTM = Convention(
    name="xlstm sLSTMLayer",
    tensors=(
        *_CONV,
        TensorLayout("{gate}gate.weight", "weight", ("ih",), per_gate=True),
        TensorLayout("slstm_cell._recurrent_kernel_", "weight", ("hh",)),
        TensorLayout("slstm_cell._bias_", "bias", ("hh",)),
        TensorLayout("group_norm.weight", "gain", ("norm",)),
    ),
    layer_name=_name,
    source=_SOURCE,
    gate_labels={"SLSTM": {"i": "f", "f": "i"}},
    direction_names=_DIRECTIONS,
)

#: ``mLSTMLayer(mLSTMLayerConfig(embedding_dim=H, num_heads=N, ...))``, D its inner width
#: (:func:`derive.cells.mlstm_cell.inner_size`), B = D // ``qkv_proj_blocksize`` blocks:
#: ``learnable_skip`` (D,); ``proj_up.weight`` (2D, H); ``q_proj.weight``, ``k_proj.weight``,
#: ``v_proj.weight`` (B, D/B, D/B); ``conv1d.conv.weight`` (D, 1, K), ``conv1d.conv.bias`` (D,);
#: ``mlstm_cell.igate.weight``, ``mlstm_cell.fgate.weight`` (N, 3D) with biases (N,);
#: ``mlstm_cell.outnorm.weight`` (D,); ``proj_down.weight`` (H, D); with ``bias=True`` a bias
#: after each of ``proj_up``, the q, k, v projections and ``proj_down``.
XLSTM_MLSTM = Convention(
    name="xlstm mLSTMLayer",
    tensors=(
        TensorLayout("learnable_skip", "gain", ("skip",)),
        TensorLayout("proj_up.weight", "weight", ("proj",), gates=("m", "z")),
        TensorLayout("proj_up.bias", "bias", ("proj",), gates=("m", "z")),
        *(
            layout
            for g in ("q", "k", "v")
            for layout in (
                TensorLayout(f"{g}_proj.weight", "weight", ("proj",), gates=(g,)),
                TensorLayout(f"{g}_proj.bias", "bias", ("proj",), gates=(g,)),
            )
        ),
        *_CONV,
        *(
            layout
            for g in ("i", "f")
            for layout in (
                TensorLayout(f"mlstm_cell.{g}gate.weight", "weight", ("proj",), gates=(g,)),
                TensorLayout(f"mlstm_cell.{g}gate.bias", "bias", ("proj",), gates=(g,)),
            )
        ),
        TensorLayout("mlstm_cell.outnorm.weight", "gain", ("norm",)),
        TensorLayout("proj_down.weight", "weight", ("proj",), gates=("y",)),
        TensorLayout("proj_down.bias", "bias", ("proj",), gates=("y",)),
    ),
    layer_name=_name,
    source=_SOURCE,
    direction_names=_DIRECTIONS,
)


def check_embedding(*, input_size: Size, hidden_size: Size, proj_size: Size, **options: Any) -> None:
    """xlstm's layers read and write one ``embedding_dim``: ``input_size`` equals ``hidden_size``.

    Symbolic sizes are not refused (the closed forms hold for I = H).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H: xlstm's ``embedding_dim`` both.
    proj_size : int or sympy.Expr
        Not read (xlstm's layers have none).
    **options
        The class's other options (not read).

    Raises
    ------
    ValueError
        Two different int sizes.

    Examples
    --------
    >>> check_embedding(input_size=8, hidden_size=8, proj_size=0)
    >>> check_embedding(input_size=4, hidden_size=8, proj_size=0)
    Traceback (most recent call last):
    ...
    ValueError: input_size must equal hidden_size for xlstm's layers (one embedding_dim), got 4 and 8
    """
    if isinstance(input_size, int) and isinstance(hidden_size, int) and input_size != hidden_size:
        raise ValueError(
            f"input_size must equal hidden_size for xlstm's layers (one embedding_dim), got {input_size} and {hidden_size}"
        )


register(
    Framework(
        "xlstm",
        "xLSTM (xlstm package)",
        (
            CellSpec(
                "sLSTMLayer",
                "SLSTM",
                "slstm",
                XLSTM_SLSTM,
                "cell",
                {
                    "bias": (True,),
                    "num_heads": (),
                    "conv1d_kernel_size": SIZE_OR_ZERO,
                    "group_norm_weight": YES_NO,
                },
                check=check_embedding,
            ),
            CellSpec(
                "mLSTMLayer",
                "MLSTM",
                "mlstm",
                XLSTM_MLSTM,
                "cell",
                {
                    "bias": ON_OFF,
                    "num_heads": (),
                    "conv1d_kernel_size": (),
                    "qkv_proj_blocksize": (),
                    "proj_factor": POSITIVE_NUMBER,
                    "round_proj_up_dim_up": YES_NO,
                    "round_proj_up_to_multiple_of": (),
                },
                check=check_embedding,
            ),
        ),
        ("xlstm", "torch"),
        _SOURCE,
        order=82,
    )
)
