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

__all__ = ["XLSTM_SLSTM", "XLSTM_MLSTM", "check_embedding", "XlstmConfig", "bind_fields"]

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


# --------------------------------------------------------------------------- constructors as users write them
# ``sLSTMLayer(sLSTMLayerConfig(embedding_dim=128, num_heads=4))``: the layers take a config
# dataclass (xlstm/blocks/slstm/layer.py, xlstm/blocks/mlstm/layer.py, xlstm 2.0.6). The configs
# are registered too; their ``make`` returns an :class:`XlstmConfig`, the argument of the layer's.
# Fields that change no tensor (dropout, backends, dtypes, initializations) are not read.

from dataclasses import dataclass  # noqa: E402
from types import MappingProxyType  # noqa: E402

from ..engine import validate  # noqa: E402
from .mirror import constructor, stack_module, unsupported  # noqa: E402

_PREFIXES = ("xlstm.", "")

#: The fields of ``sLSTMLayerConfig`` (with its cell's config) and their defaults, in order.
_SLSTM_FIELDS: dict[str, Any] = {
    "hidden_size": -1,
    "num_heads": 4,
    "num_states": 4,
    "backend": "cuda",
    "function": "slstm",
    "bias_init": "powerlaw_blockdependent",
    "recurrent_weight_init": "zeros",
    "_block_idx": 0,
    "_num_blocks": 1,
    "num_gates": 4,
    "gradient_recurrent_cut": False,
    "gradient_recurrent_clipval": None,
    "forward_clipval": None,
    "batch_size": 8,
    "input_shape": "BSGNH",
    "internal_input_shape": "SBNGH",
    "output_shape": "BNSH",
    "constants": None,
    "dtype": "bfloat16",
    "dtype_b": "float32",
    "dtype_r": None,
    "dtype_w": None,
    "dtype_g": None,
    "dtype_s": None,
    "dtype_a": None,
    "enable_automatic_mixed_precision": True,
    "initial_val": 0.0,
    "embedding_dim": -1,
    "conv1d_kernel_size": 4,
    "group_norm_weight": True,
    "dropout": 0.0,
}

#: The fields of ``mLSTMLayerConfig`` and their defaults, in order.
_MLSTM_FIELDS: dict[str, Any] = {
    "proj_factor": 2.0,
    "round_proj_up_dim_up": True,
    "round_proj_up_to_multiple_of": 64,
    "_proj_up_dim": None,
    "conv1d_kernel_size": 4,
    "qkv_proj_blocksize": 4,
    "num_heads": 4,
    "embedding_dim": -1,
    "bias": False,
    "dropout": 0.0,
    "context_length": -1,
    "_num_blocks": 1,
    "_inner_embedding_dim": None,
}


@dataclass(frozen=True)
class XlstmConfig:
    """An ``sLSTMLayerConfig`` or ``mLSTMLayerConfig`` as written: its class and every field.

    Attributes
    ----------
    cls : str
        ``"sLSTMLayerConfig"`` or ``"mLSTMLayerConfig"``.
    fields : mapping of str -> object
        Every field, the defaults where not given.
    """

    cls: str
    fields: MappingProxyType[str, Any]


def bind_fields(cls: str, defaults: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> XlstmConfig:
    """An xlstm config dataclass as written: ``args``/``kwargs`` bound to its fields as its ``__init__`` binds them.

    Parameters
    ----------
    cls : str
        The dataclass' name (``"mLSTMLayerConfig"``).
    defaults : dict
        Its fields, in order, with their defaults.
    args : tuple
    kwargs : dict

    Returns
    -------
    XlstmConfig

    Raises
    ------
    TypeError
        Too many positional arguments, an unknown or a repeated field (the dataclass' words).
    """
    names = list(defaults)
    if len(args) > len(names):
        raise TypeError(
            f"{cls}.__init__() takes from 1 to {len(names) + 1} positional arguments but {len(args) + 1} were given"
        )
    values = dict(defaults)
    values.update(zip(names, args))
    for key, value in kwargs.items():
        if key not in defaults:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument {key!r}")
        if key in names[: len(args)]:
            raise TypeError(f"{cls}.__init__() got multiple values for argument {key!r}")
        values[key] = value
    return XlstmConfig(cls, MappingProxyType(values))


@constructor(
    "xlstm", "sLSTMLayerConfig", prefixes=_PREFIXES, source=_SOURCE, module_types=("xlstm.blocks.slstm.layer",)
)
def _slstm_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    return bind_fields("sLSTMLayerConfig", _SLSTM_FIELDS, args, kwargs)


@constructor(
    "xlstm", "mLSTMLayerConfig", prefixes=_PREFIXES, source=_SOURCE, module_types=("xlstm.blocks.mlstm.layer",)
)
def _mlstm_config(*args: Any, **kwargs: Any) -> XlstmConfig:
    return bind_fields("mLSTMLayerConfig", _MLSTM_FIELDS, args, kwargs)


def _fields(layer: str, config: Any, wanted: str) -> MappingProxyType[str, Any]:
    if not isinstance(config, XlstmConfig) or config.cls != wanted:
        raise TypeError(f"{layer} takes a {wanted}(...), got: {validate.shown(config)}")
    fields = config.fields
    if isinstance(fields["embedding_dim"], int) and fields["embedding_dim"] == -1:
        raise ValueError(f"{wanted}: embedding_dim must be given (the width the layer reads and writes)")
    return fields


@constructor("xlstm", "sLSTMLayer", prefixes=_PREFIXES, source=_SOURCE, module_types=("xlstm.blocks.slstm.layer",))
def _slstm_layer(config: Any) -> Any:
    fields = _fields("sLSTMLayer", config, "sLSTMLayerConfig")
    unsupported("num_gates", fields["num_gates"], 4, "the sLSTM cell has four gates")
    unsupported("num_states", fields["num_states"], 4, "the sLSTM cell has four states")
    unsupported("function", fields["function"], "slstm", "another cell function")
    width = fields["embedding_dim"]
    return stack_module(
        "xlstm",
        "sLSTMLayer",
        width,
        width,
        num_heads=fields["num_heads"],
        conv1d_kernel_size=fields["conv1d_kernel_size"],
        group_norm_weight=fields["group_norm_weight"],
    )


@constructor("xlstm", "mLSTMLayer", prefixes=_PREFIXES, source=_SOURCE, module_types=("xlstm.blocks.mlstm.layer",))
def _mlstm_layer(config: Any) -> Any:
    fields = _fields("mLSTMLayer", config, "mLSTMLayerConfig")
    unsupported("_proj_up_dim", fields["_proj_up_dim"], None, "it sets the inner width directly")
    unsupported("_inner_embedding_dim", fields["_inner_embedding_dim"], None, "it sets the inner width directly")
    width = fields["embedding_dim"]
    return stack_module(
        "xlstm",
        "mLSTMLayer",
        width,
        width,
        bias=fields["bias"],
        **{
            k: fields[k]
            for k in (
                "num_heads",
                "conv1d_kernel_size",
                "qkv_proj_blocksize",
                "proj_factor",
                "round_proj_up_dim_up",
                "round_proj_up_to_multiple_of",
            )
        },
    )
