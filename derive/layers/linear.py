"""The affine map ``y = W x + b``: ``torch.nn.Linear``, Keras ``Dense``.

Sources: ``torch/nn/modules/linear.py`` (``weight`` (out_features, in_features), ``bias``
(out_features,)); ``keras/src/layers/core/dense.py`` (``kernel`` (input_dim, units), ``bias``
(units,)).

>>> linear(256, 10).count
2570
>>> [(p.name, p.shape) for p in linear(256, 10, spelling="keras").params]
[('kernel', (256, 10)), ('bias', (10,))]
"""

from __future__ import annotations

from ..tree import Dim, Module, Param
from . import Spelling
from . import spelling as _spelling

__all__ = ["linear", "bilinear"]

_TYPES = {"torch": "Linear", "keras": "Dense"}


def linear(
    in_features: Dim,
    out_features: Dim,
    bias: bool = True,
    *,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
) -> Module:
    """``y = W x + b``: W (out, in) — (in, out) where the framework stores kernels transposed.

    Parameters
    ----------
    in_features, out_features : int or sympy.Expr
        Features in and out (units: scalars).
    bias : bool, default True
    name : str
        The module's name in its parent.
    spelling : str or Spelling, default "torch"
        ``"torch"``: ``weight`` (out, in), ``bias``; ``"keras"``: ``kernel`` (in, out), ``bias``.
    type : str, optional
        The class name to show (default ``Linear`` / ``Dense``).

    Returns
    -------
    derive.tree.Module
        out·in + out parameters (out·in without bias).
    """
    s = _spelling(spelling)
    if s.transposed:
        params: tuple[Param, ...] = (Param("kernel", (in_features, out_features)),)
    else:
        params = (Param("weight", (out_features, in_features)),)
    if bias:
        params += (Param("bias", (out_features,)),)
    return Module(name, type or _TYPES.get(s.framework, "Linear"), params, sep=s.sep)


def bilinear(
    in1_features: Dim,
    in2_features: Dim,
    out_features: Dim,
    bias: bool = True,
    *,
    name: str = "",
    spelling: str | Spelling = "torch",
) -> Module:
    """``y = x1ᵀ A x2 + b``: ``torch.nn.Bilinear``, ``weight`` (out, in1, in2), ``bias`` (out,).

    Source: ``torch/nn/modules/linear.py`` (``Bilinear``).

    Parameters
    ----------
    in1_features, in2_features, out_features : int or sympy.Expr
    bias : bool, default True
    name : str
    spelling : str or Spelling, default "torch"

    Returns
    -------
    derive.tree.Module
        out·in1·in2 + out parameters.

    Examples
    --------
    >>> bilinear(3, 4, 5).count
    65
    """
    s = _spelling(spelling)
    params: tuple[Param, ...] = (Param("weight", (out_features, in1_features, in2_features)),)
    if bias:
        params += (Param("bias", (out_features,)),)
    return Module(name, "Bilinear", params, sep=s.sep)
