"""``derive.compare`` of two torch configurations: the total is real torch's difference of counts."""

from __future__ import annotations

import pytest
import sympy

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import derive.torch as dt  # noqa: E402
from derive.analysis.difference import compare  # noqa: E402


def count(module) -> int:
    with torch.device("meta"):
        return sum(p.numel() for p in module().parameters())


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((32, 64, 3), (32, 64, 1)),
        ((16, 64, 2), (32, 64, 2)),
        ((32, 64, 2), (32, 64, 2)),
    ],
)
def test_compare_matches_torch(a, b):
    diff = compare(dt.LSTM(*a), dt.LSTM(*b))
    assert diff.total == count(lambda: nn.LSTM(*a)) - count(lambda: nn.LSTM(*b))
    assert sum(c.amount for c in diff.changes) == diff.total
    text = str(diff)
    assert text.startswith(f"a - b = {diff.total}")
    latex = diff._repr_latex_()
    assert latex.endswith(f"= {sympy.latex(diff.total)}$")
    if not diff.changes:
        assert diff.latex() == "0"
    for change in diff.changes:
        assert change.layers in str(change)
        assert change.layers_latex
