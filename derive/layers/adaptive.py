"""The adaptive softmax of Grave et al. (2017): ``nn.AdaptiveLogSoftmaxWithLoss``.

Source: ``torch/nn/modules/adaptive.py``: a ``head`` Linear (in, shortlist + clusters) and, per
cluster i, a ``tail.i`` Sequential of two bias-free Linears, (in -> in // div_value^(i+1)) and
(that -> cluster size); ``cutoffs`` end with ``n_classes``.

>>> adaptive_log_softmax(16, 100, [10, 50], 2.0, True).count
916
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tree import Dim, Module
from .linear import linear

__all__ = ["adaptive_log_softmax"]


def _hidden(in_features: Dim, div_value: Any, i: int) -> Any:
    """``int(in_features // (div_value ** (i + 1)))``: Python's floor of a float quotient."""
    if isinstance(in_features, int):
        return int(in_features // (div_value ** (i + 1)))
    import sympy

    return sympy.floor(in_features / sympy.nsimplify(div_value) ** (i + 1))


def adaptive_log_softmax(
    in_features: Dim, n_classes: Dim, cutoffs: Sequence[int], div_value: float = 4.0, head_bias: bool = False
) -> Module:
    """Tensors of ``nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value, head_bias)``.

    Parameters
    ----------
    in_features, n_classes : int or sympy.Expr
    cutoffs : sequence of int
        Increasing class indices where the clusters start (checked by the caller).
    div_value : float, default 4.0
    head_bias : bool, default False

    Returns
    -------
    derive.tree.Module
    """
    bounds = [*cutoffs, n_classes]
    shortlist, clusters = bounds[0], len(bounds) - 1
    head = linear(in_features, shortlist + clusters, head_bias, name="head")
    tails = []
    for i in range(clusters):
        hidden = _hidden(in_features, div_value, i)
        tails.append(
            Module(
                str(i),
                "Sequential",
                children=(
                    linear(in_features, hidden, False, name="0"),
                    linear(hidden, bounds[i + 1] - bounds[i], False, name="1"),
                ),
            )
        )
    return Module(
        "", "AdaptiveLogSoftmaxWithLoss", children=(head, Module("tail", "ModuleList", children=tuple(tails)))
    )
