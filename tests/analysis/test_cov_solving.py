"""``derive.solve`` against brute force over real torch counts (meta device), and its refusals."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from derive import solve  # noqa: E402
from derive.analysis.solving import x  # noqa: E402


def torch_count(factory, k: int) -> int:
    with torch.device("meta"):
        return sum(p.numel() for p in factory(k).parameters())


def brute(factory, budget: int, minimum: int = 1) -> int:
    k = minimum
    while torch_count(factory, k + 1) <= budget:
        k += 1
    return k


@settings(max_examples=10, deadline=None)
@given(st.integers(200, 20_000))
def test_int_only_function_is_searched(budget):
    # A function that only takes ints (torch refuses a symbol): searched numerically, no root.
    factory = lambda h: nn.GRU(7, h)  # noqa: E731
    solution = solve(lambda h: torch_count(factory, h), budget)
    assert solution.n == brute(factory, budget)
    assert solution.root is None and solution.polynomial is None
    assert solution.count == torch_count(factory, solution.n) <= budget < solution.next_count
    assert "N(n + 1)" in solution._repr_latex_()


def test_linear_and_cubic_counts_have_exact_roots():
    h = sympy.Symbol("h", positive=True, integer=True)
    linear = 10 * h + 10  # nn.Linear(h, 10)
    assert torch_count(lambda k: nn.Linear(k, 10), 37) == linear.subs(h, 37)
    solution = solve(linear, 1000)
    assert solution.n == brute(lambda k: nn.Linear(k, 10), 1000) and solution.root == sympy.Rational(99)
    assert solution.exact is (solution.count == 1000)
    # Three stacked nn.Linear(h, h) blocks and an h x h x h conv kernel: a cubic count.
    cubic = h**3 + 3 * (h * h + h)
    factory = lambda k: nn.Sequential(nn.Conv1d(k, k, k, bias=False), *[nn.Linear(k, k) for _ in range(3)])  # noqa: E731
    assert torch_count(factory, 5) == cubic.subs(h, 5)
    solution = solve(cubic, 50_000)
    assert solution.n == brute(factory, 50_000)
    assert solution.n < sympy.N(solution.root) < solution.n + 1
    assert int(solution) == solution.n


def test_refusals():
    h, w = sympy.symbols("h w", positive=True, integer=True)
    cases = [
        ((10 * h, 1.5), TypeError, "budget must be an int"),
        ((10 * h, -1), ValueError, "budget must be >= 0"),
        ((10 * h, 10), ValueError, "minimum must be an int"),
        ((h * w, 10), ValueError, "symbol must be given"),
        ((h * w, 10, h), ValueError, "free symbols other than the size"),
        ((10 * h, 10, "h"), TypeError, "symbol must be a sympy.Symbol"),
        ((sympy.Integer(5) + 0 * h, 10, h), ValueError, "does not depend on the size"),
        ((sympy.sqrt(h) + h, 10), TypeError, "not a polynomial in the size"),
        ((h / 2 + h, 10), TypeError, "integer coefficients"),
        ((100 * h - h**2, 10), ValueError, "not increasing"),
        ((1000 * h, 10), ValueError, "no size >= 1 fits"),
        (("h", 10), TypeError, "callable or a SymPy expression"),
        ((lambda k: "many", 10), TypeError, "count must be an int"),
    ]
    for args, error, message in cases:
        kwargs = {"minimum": -1} if message.startswith("minimum") else {}
        with pytest.raises(error, match=message):
            solve(*args, **kwargs)
    assert x.is_positive
