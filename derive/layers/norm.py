"""Normalisation layers: LayerNorm, RMSNorm, BatchNorm, GroupNorm (and their Keras spellings).

Sources: ``torch/nn/modules/normalization.py`` (``LayerNorm``: ``weight``, ``bias`` of
``normalized_shape`` when ``elementwise_affine``; ``RMSNorm``: ``weight``; ``GroupNorm``: ``weight``,
``bias`` (num_channels,) when ``affine``), ``batchnorm.py`` (``weight``, ``bias`` when ``affine``;
buffers ``running_mean``, ``running_var`` (num_features,) and ``num_batches_tracked`` () when
``track_running_stats``); Keras ``LayerNormalization`` / ``BatchNormalization`` (``gamma``, ``beta``;
``moving_mean``, ``moving_variance`` are non-trainable weights, which ``count_params()`` counts).

>>> batch_norm(64).count, [p.name for p in batch_norm(64).params if p.buffer]
(128, ['running_mean', 'running_var', 'num_batches_tracked'])
"""

from __future__ import annotations

from ..tree import Dim, Module, Param
from . import Spelling
from . import spelling as _spelling

__all__ = ["layer_norm", "rms_norm", "batch_norm", "instance_norm", "group_norm"]


def layer_norm(
    shape: tuple[Dim, ...],
    *,
    weight: bool = True,
    bias: bool = True,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
) -> Module:
    """LayerNorm over the trailing ``shape``: a gain (and shift) of that shape.

    Parameters
    ----------
    shape : tuple of int or sympy.Expr
        ``normalized_shape``.
    weight : bool, default True
        ``elementwise_affine`` (Keras ``scale``).
    bias : bool, default True
        torch ``bias`` (Keras ``center``).
    name : str
    spelling : str or Spelling, default "torch"
        ``weight``/``bias``; Keras ``gamma``/``beta``.
    type : str, optional

    Returns
    -------
    derive.tree.Module
    """
    s = _spelling(spelling)
    keras = s.framework == "keras"
    params: tuple[Param, ...] = ()
    if weight:
        params += (Param("gamma" if keras else "weight", tuple(shape)),)
    if bias:
        params += (Param("beta" if keras else "bias", tuple(shape)),)
    return Module(name, type or ("LayerNormalization" if keras else "LayerNorm"), params, sep=s.sep, part="norms")


def rms_norm(
    shape: tuple[Dim, ...],
    *,
    weight: bool = True,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
) -> Module:
    """RMSNorm over the trailing ``shape``: a gain of that shape (none when ``weight`` is False).

    Parameters
    ----------
    shape : tuple of int or sympy.Expr
    weight : bool, default True
        ``elementwise_affine`` (FalconMamba's B/C/dt norms have none).
    name : str
    spelling : str or Spelling, default "torch"
    type : str, optional
        The class name (default ``RMSNorm``; transformers' own classes: ``MambaRMSNorm`` ...).

    Returns
    -------
    derive.tree.Module
    """
    s = _spelling(spelling)
    params = (Param("weight", tuple(shape)),) if weight else ()
    return Module(name, type or "RMSNorm", params, sep=s.sep, part="norms")


def batch_norm(
    num_features: Dim,
    *,
    affine: bool = True,
    track_running_stats: bool = True,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
    center: bool | None = None,
    scale: bool | None = None,
    renorm: bool = False,
    bias: bool = True,
) -> Module:
    """BatchNorm over ``num_features`` channels; the running statistics are buffers in torch and
    non-trainable weights in Keras (counted by ``count_params()``).

    Parameters
    ----------
    num_features : int or sympy.Expr
    affine : bool, default True
        ``weight``/``bias`` (Keras: ``gamma``/``beta``, both).
    track_running_stats : bool, default True
    bias : bool, default True
        torch's keyword-only ``bias``: with ``affine``, False leaves ``weight`` alone.
    name : str
    spelling : str or Spelling, default "torch"
    type : str, optional
    center, scale : bool, optional
        Keras' ``center`` (``beta``, torch ``bias``) and ``scale`` (``gamma``, torch ``weight``),
        each on its own; default ``affine``.
    renorm : bool, default False
        Keras' batch renormalisation: three more non-trainable weights, ``moving_stddev``,
        ``renorm_mean``, ``renorm_stddev`` (``keras/src/layers/normalization/batch_normalization.py``,
        ``build``); Keras only.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        ``renorm`` with the torch spelling.

    Examples
    --------
    >>> [p.name for p in batch_norm(8, scale=False, spelling="keras").params]
    ['beta', 'moving_mean', 'moving_variance']
    """
    s = _spelling(spelling)
    n = (num_features,)
    weight = affine if scale is None else scale
    shift = affine if center is None else center
    if s.framework == "keras":
        params: tuple[Param, ...] = ((Param("gamma", n),) if weight else ()) + ((Param("beta", n),) if shift else ())
        stats = ("moving_mean", "moving_variance") + (
            ("moving_stddev", "renorm_mean", "renorm_stddev") if renorm else ()
        )
        params += tuple(Param(stat, n, trainable=False) for stat in stats)
        return Module(name, type or "BatchNormalization", params, sep=s.sep, part="norms")
    if renorm:
        raise ValueError("renorm is Keras' batch renormalisation; torch.nn.BatchNorm has none")
    params = ((Param("weight", n),) if weight else ()) + ((Param("bias", n),) if shift and bias else ())
    if track_running_stats:
        params += (
            Param("running_mean", n, buffer=True),
            Param("running_var", n, buffer=True),
            Param("num_batches_tracked", (), buffer=True, dtype="int64"),
        )
    return Module(name, type or "BatchNorm1d", params, sep=s.sep, part="norms")


def instance_norm(
    num_features: Dim,
    rank: int = 1,
    *,
    affine: bool = False,
    track_running_stats: bool = False,
    bias: bool = True,
    name: str = "",
) -> Module:
    """InstanceNorm{rank}d: BatchNorm's tensors, but off by default (``torch/nn/modules/instancenorm.py``).

    Parameters
    ----------
    num_features : int or sympy.Expr
    rank : {1, 2, 3}
        Spatial axes (the class ``InstanceNorm1d`` / ``2d`` / ``3d``).
    affine : bool, default False
    track_running_stats : bool, default False
        The buffers ``running_mean``, ``running_var``, ``num_batches_tracked``.
    bias : bool, default True
    name : str

    Returns
    -------
    derive.tree.Module

    Examples
    --------
    >>> [p.name for p in instance_norm(8, 2, affine=True).params], instance_norm(8).count
    (['weight', 'bias'], 0)
    """
    return batch_norm(
        num_features,
        affine=affine,
        track_running_stats=track_running_stats,
        bias=bias,
        name=name,
        type=f"InstanceNorm{rank}d",
    )


def group_norm(
    num_groups: Dim,
    num_channels: Dim,
    *,
    affine: bool = True,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
    bias: bool = True,
) -> Module:
    """GroupNorm: ``num_channels`` split in ``num_groups``; a gain and shift per channel.

    Parameters
    ----------
    num_groups, num_channels : int or sympy.Expr
    affine : bool, default True
    bias : bool, default True
        torch's keyword-only ``bias``: with ``affine``, False leaves ``weight`` alone.
    name : str
    spelling : str or Spelling, default "torch"
    type : str, optional

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        Int sizes where ``num_groups`` does not divide ``num_channels`` (torch's check).
    """
    ints = isinstance(num_groups, int) and isinstance(num_channels, int)
    if ints and num_channels % num_groups:
        raise ValueError("num_channels must be divisible by num_groups")
    s = _spelling(spelling)
    c = (num_channels,)
    params = ((Param("weight", c),) + ((Param("bias", c),) if bias else ())) if affine else ()
    return Module(name, type or "GroupNorm", params, sep=s.sep, part="norms")
