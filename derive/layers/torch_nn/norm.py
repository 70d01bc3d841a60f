"""``torch.nn``'s normalisations with torch's signatures: BatchNorm, SyncBatchNorm, InstanceNorm,
LayerNorm, GroupNorm, RMSNorm (LocalResponseNorm and CrossMapLRN2d have no tensors:
:mod:`~derive.layers.torch_nn.stateless`).

Sources: ``torch/nn/modules/batchnorm.py``, ``instancenorm.py``, ``normalization.py`` (torch 2.13).
The running statistics are buffers (listed, never counted); InstanceNorm has none of either by
default.

>>> from derive.engine.constructors import lookup
>>> bn = lookup("torch", "BatchNorm2d").make(64)
>>> bn.count, [p.name for p in bn.params if p.buffer]
(128, ['running_mean', 'running_var', 'num_batches_tracked'])
"""

from __future__ import annotations

from typing import Any

from ...engine import validate
from ...tree import Module
from ..norm import batch_norm, group_norm, instance_norm, layer_norm, rms_norm
from ._base import define, refusing, signature

__all__: list[str] = []


def _batch(type_name: str) -> Any:
    def make(
        num_features: Any,
        eps: Any = 1e-5,
        momentum: Any = 0.1,
        affine: Any = True,
        track_running_stats: Any = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: Any = True,
    ) -> Module:
        c = validate.size("num_features", num_features)
        return batch_norm(
            c,
            affine=validate.flag("affine", affine),
            track_running_stats=validate.flag("track_running_stats", track_running_stats),
            bias=validate.flag("bias", bias),
            type=type_name,
        )

    make.__doc__ = f"``nn.{type_name}``: ``weight``, ``bias`` (C,) when affine; running statistics as buffers."
    return make


def SyncBatchNorm(
    num_features: Any,
    eps: Any = 1e-5,
    momentum: Any = 0.1,
    affine: Any = True,
    track_running_stats: Any = True,
    process_group: Any = None,
    device: Any = None,
    dtype: Any = None,
    *,
    bias: Any = True,
) -> Module:
    """``nn.SyncBatchNorm``: BatchNorm's tensors, statistics synchronised across processes.

    Parameters
    ----------
    num_features : int or sympy.Expr
        Channels ``C``, as ``torch.nn.SyncBatchNorm``.
    eps, momentum : float
        As torch; ignored (they change no tensor).
    affine : bool, default True
        ``weight`` and ``bias`` (C,).
    track_running_stats : bool, default True
        The buffers ``running_mean``, ``running_var``, ``num_batches_tracked``.
    process_group : object, optional
        As torch; ignored.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).
    bias : bool, default True
        torch's keyword-only ``bias``: with ``affine``, False leaves ``weight`` alone.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        ``num_features`` is not an integer, or a flag not a bool.
    ValueError
        ``num_features`` below 1.
    """
    return _batch("SyncBatchNorm")(num_features, eps, momentum, affine, track_running_stats, bias=bias)


def _instance(rank: int) -> Any:
    def make(
        num_features: Any,
        eps: Any = 1e-5,
        momentum: Any = 0.1,
        affine: Any = False,
        track_running_stats: Any = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: Any = True,
    ) -> Module:
        return instance_norm(
            validate.size("num_features", num_features),
            rank,
            affine=validate.flag("affine", affine),
            track_running_stats=validate.flag("track_running_stats", track_running_stats),
            bias=validate.flag("bias", bias),
        )

    make.__doc__ = f"``nn.InstanceNorm{rank}d``: no tensors by default; ``affine``, ``track_running_stats``."
    return make


def _shape(normalized_shape: Any) -> tuple[Any, ...]:
    dims = normalized_shape if isinstance(normalized_shape, (tuple, list)) else (normalized_shape,)
    return tuple(validate.size("normalized_shape", d) for d in dims)


def LayerNorm(
    normalized_shape: Any,
    eps: Any = 1e-5,
    elementwise_affine: Any = True,
    bias: Any = True,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.LayerNorm``: ``weight``, ``bias`` of ``normalized_shape`` when ``elementwise_affine``.

    Parameters
    ----------
    normalized_shape : int or sympy.Expr, or list or tuple of them
        The trailing dimensions normalised (sizes), as ``torch.nn.LayerNorm``.
    eps : float, default 1e-5
        As torch; ignored.
    elementwise_affine : bool, default True
        Whether there are ``weight`` and ``bias``.
    bias : bool, default True
        With ``elementwise_affine``, False leaves ``weight`` alone.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A dimension that is not an integer, or a flag not a bool.
    ValueError
        A dimension below 1.
    """
    shape = _shape(normalized_shape)
    affine = validate.flag("elementwise_affine", elementwise_affine)
    with_bias = validate.flag("bias", bias)
    return layer_norm(shape, weight=affine, bias=affine and with_bias).replace(config={"normalized_shape": shape})


def RMSNorm(
    normalized_shape: Any, eps: Any = None, elementwise_affine: Any = True, device: Any = None, dtype: Any = None
) -> Module:
    """``nn.RMSNorm``: ``weight`` of ``normalized_shape`` when ``elementwise_affine``.

    Parameters
    ----------
    normalized_shape : int or sympy.Expr, or list or tuple of them
        The trailing dimensions normalised (sizes), as ``torch.nn.RMSNorm``.
    eps : float, optional
        As torch; ignored.
    elementwise_affine : bool, default True
        Whether there is a ``weight``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A dimension that is not an integer, or ``elementwise_affine`` not a bool.
    ValueError
        A dimension below 1.
    """
    shape = _shape(normalized_shape)
    return rms_norm(shape, weight=validate.flag("elementwise_affine", elementwise_affine)).replace(
        config={"normalized_shape": shape}
    )


def GroupNorm(
    num_groups: Any,
    num_channels: Any,
    eps: Any = 1e-5,
    affine: Any = True,
    device: Any = None,
    dtype: Any = None,
    *,
    bias: Any = True,
) -> Module:
    """``nn.GroupNorm``: ``weight``, ``bias`` (num_channels,) when affine; torch's divisibility check.

    Parameters
    ----------
    num_groups : int or sympy.Expr
        Groups the channels are split in, as ``torch.nn.GroupNorm``.
    num_channels : int or sympy.Expr
        Channels ``C``.
    eps : float, default 1e-5
        As torch; ignored.
    affine : bool, default True
        Whether there are ``weight`` and ``bias`` (C,).
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).
    bias : bool, default True
        torch's keyword-only ``bias``: with ``affine``, False leaves ``weight`` alone.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, or a flag not a bool.
    ValueError
        A size below 1, or int sizes where ``num_groups`` does not divide ``num_channels``.
    """
    g = validate.size("num_groups", num_groups)
    c = validate.size("num_channels", num_channels)
    if type(g) is int and type(c) is int and c % g:
        raise ValueError(f"num_channels ({c}) must be divisible by num_groups ({g})")
    return group_norm(g, c, affine=validate.flag("affine", affine), bias=validate.flag("bias", bias))


def _lazy(name: str) -> Any:
    spec = (("eps", 1e-5), ("momentum", 0.1), ("affine", True), ("track_running_stats", True))
    sig = signature(*spec, ("device", None), ("dtype", None), ("*bias", True))
    why = (
        f"{name} takes num_features from its first input, which code does not show; "
        f"write nn.{name.removeprefix('Lazy')}(num_features, ...)"
    )
    return refusing(name, sig, why)


def _affine_bias(m: Any) -> bool:
    return m.bias is not None if getattr(m, "affine", getattr(m, "elementwise_affine", False)) else True


def _read_batch(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (m.num_features,), {
        "eps": m.eps,
        "momentum": m.momentum,
        "affine": m.affine,
        "track_running_stats": m.track_running_stats,
        "bias": _affine_bias(m),
    }


_C = {"num_features": "C"}
for _n in (1, 2, 3):
    define(
        f"BatchNorm{_n}d",
        _batch(f"BatchNorm{_n}d"),
        source="torch/nn/modules/batchnorm.py",
        letters=_C,
        read=_read_batch,
    )
    define(f"InstanceNorm{_n}d", _instance(_n), source="torch/nn/modules/instancenorm.py", letters=_C, read=_read_batch)
    define(f"LazyBatchNorm{_n}d", _lazy(f"LazyBatchNorm{_n}d"), source="torch/nn/modules/batchnorm.py")
    define(f"LazyInstanceNorm{_n}d", _lazy(f"LazyInstanceNorm{_n}d"), source="torch/nn/modules/instancenorm.py")
define("SyncBatchNorm", SyncBatchNorm, source="torch/nn/modules/batchnorm.py", letters=_C, read=_read_batch)
define(
    "LayerNorm",
    LayerNorm,
    source="torch/nn/modules/normalization.py",
    letters={"normalized_shape": "N"},
    read=lambda m: (
        (m.normalized_shape,),
        {"eps": m.eps, "elementwise_affine": m.elementwise_affine, "bias": _affine_bias(m)},
    ),
)
define(
    "RMSNorm",
    RMSNorm,
    source="torch/nn/modules/normalization.py",
    letters={"normalized_shape": "N"},
    read=lambda m: ((m.normalized_shape,), {"eps": m.eps, "elementwise_affine": m.elementwise_affine}),
)
define(
    "GroupNorm",
    GroupNorm,
    source="torch/nn/modules/normalization.py",
    letters={"num_groups": "G", "num_channels": "C"},
    read=lambda m: ((m.num_groups, m.num_channels), {"eps": m.eps, "affine": m.affine, "bias": _affine_bias(m)}),
)
