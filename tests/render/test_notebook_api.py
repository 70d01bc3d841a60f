"""Notebook API: the LaTeX/HTML reprs, derive.solve against live torch, the fast count path."""

from __future__ import annotations

import doctest
import html
import random
import re

import pytest
import sympy
from torch import nn

import derive
import derive.analysis.solving
import derive.render.display
import derive.torch as dt
from derive import H, I, L, P, solve
from derive.engine.stack import Stack


def torch_count(module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("module", [derive.analysis.solving, derive.render.display], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


# --- reprs ------------------------------------------------------------------------------------


def test_latex_repr_sums_the_layers_of_torch():
    module = nn.LSTM(32, 128, 2, bidirectional=True)
    per_layer = [sum(p.numel() for n, p in module.named_parameters() if f"_l{k}" in n) for k in range(2)]
    text = dt.LSTM(32, 128, 2, bidirectional=True)._repr_latex_()
    assert text.startswith("$") and text.endswith("$")
    numbers = [int(s.replace("{,}", "")) for s in re.findall(r"\d+(?:\{,\}\d+)*", text.split("N =")[1])]
    assert numbers == per_layer + [torch_count(module)]


def test_latex_repr_symbolic_is_the_factored_closed_form():
    stack = dt.GRU(I, H, L)
    text = stack._repr_latex_()
    assert sympy.latex(sympy.factor(stack.count)) in text


@pytest.mark.parametrize(
    "call",
    [
        "LSTM(32, 128, 2, bidirectional=True)",
        "GRU(10, 20, 3, bias=False)",
        "RNN(25, 50, 4, bidirectional=True)",
        "LSTM(10, 20, 1, proj_size=5)",
        "LSTMCell(10, 20)",
    ],
)
def test_html_repr_lists_torch_parameters(call):
    module = eval("nn." + call)  # test-only: a fixed literal from this file
    ours = eval("dt." + call)
    page = ours._repr_html_()
    rows = re.findall(r"<tr><td><code>([^<]+)</code></td><td>([^<]+)</td><td[^>]*>([^<]+)</td></tr>", page)
    expected = [(name, str(tuple(p.shape)), f"{p.numel():,}") for name, p in module.named_parameters()]
    assert [(n, s.replace(",)", ",)"), c) for n, s, c in rows] == expected
    total = re.search(r"<tfoot>.*?<th[^>]*>([\d,]+)</th></tr></tfoot>", page).group(1)
    assert total == f"{torch_count(module):,}"


def test_html_repr_symbolic_layers_and_escaping():
    page = dt.LSTM(I, H, L, proj_size=P)._repr_html_()
    assert "weight_hr_l{k}" in page and "any layer k ≥ 1" in page
    assert "<script" not in page
    assert html.unescape(page).count("<table") == 1


# --- counts with int sizes: the shape-only cells against the symbolic derivation ---------------


def test_int_count_equals_the_symbolic_derivation():
    """The count of an int stack (its tree, shape-only cells) is the symbolic cells' tensors summed."""
    rng = random.Random(5)
    for _ in range(200):
        cls = rng.choice(["LSTM", "GRU", "RNN", "LSTMP"])
        i, h, layers = rng.randint(1, 300), rng.randint(2, 300), rng.randint(1, 5)
        kwargs = {"bidirectional": rng.random() < 0.5, "bias": rng.random() < 0.7}
        if cls == "LSTMP":
            cls, kwargs["proj_size"] = "LSTM", rng.randint(1, h - 1)
        stack = getattr(dt, cls)(i, h, layers, **kwargs)
        slow = sympy.Add(*(t.numel for k in range(layers) for t in stack.layer_tensors(k)))
        assert stack.count == slow
        assert type(stack.count) is int  # json.dumps takes it
        assert [stack.layer_count(k) for k in range(layers)] == [
            sympy.Add(*(t.numel for t in stack.layer_tensors(k))) for k in range(layers)
        ]


def test_count_follows_a_subclass_that_derives_differently():
    class Wider(dt.LSTM):
        def layer_input_size(self, layer, direction=0):
            return Stack.layer_input_size(self, layer, direction) + 1

    stack = Wider(3, 4, 2)
    assert stack.count == dt.LSTM(3, 4, 2).count + 2 * 4 * 4  # one more input column per layer: 4H weights
    assert stack.shapes["weight_ih_l1"] == (16, 5)


# --- solve ------------------------------------------------------------------------------------


def _check_against_torch(make, solution):
    assert torch_count(make(solution.n)) == solution.count <= solution.budget < solution.next_count
    assert torch_count(make(solution.n + 1)) == solution.next_count


def test_solve_largest_hidden_size_of_a_bidirectional_lstm_under_a_million():
    solution = solve(lambda h: dt.LSTM(32, h, 2, bidirectional=True), 1_000_000)
    _check_against_torch(lambda h: nn.LSTM(32, h, 2, bidirectional=True), solution)
    assert solution.n == sympy.floor(solution.root)
    assert sympy.simplify(solution.polynomial.subs(derive.analysis.solving.x, solution.root) - 1_000_000) == 0


@pytest.mark.parametrize(
    "cls,kwargs,budget",
    [
        ("GRU", {"num_layers": 3}, 250_000),
        ("RNN", {"num_layers": 4, "bidirectional": True}, 77_777),
        ("LSTM", {"num_layers": 2, "bias": False}, 10_000_000),
        ("LSTM", {"num_layers": 1}, 561_152 // 2),
    ],
)
def test_solve_against_torch(cls, kwargs, budget):
    solution = solve(lambda h: getattr(dt, cls)(20, h, **kwargs), budget)
    _check_against_torch(lambda h: getattr(nn, cls)(20, h, **kwargs), solution)


def test_solve_exact_match_is_reported():
    budget = torch_count(nn.LSTM(28, 128, bidirectional=True))
    solution = solve(lambda h: dt.LSTM(28, h, bidirectional=True), budget)
    assert solution.n == 128 and solution.exact and solution.root == 128


def test_solve_other_sizes_and_expressions():
    # solve for the input size instead (linear in I)
    solution = solve(lambda i: dt.GRU(i, 64), 100_000)
    _check_against_torch(lambda i: nn.GRU(i, 64), solution)
    # a SymPy count expression and its symbol
    expr = dt.LSTM(32, H, 2).count
    assert solve(expr, 10**6, H).n == solve(lambda h: dt.LSTM(32, h, 2), 10**6).n
    assert solve(expr, 10**6).n == solve(expr, 10**6, H).n


def test_solve_works_with_integer_only_callables():
    calls = []

    def integer_only(k):
        if not isinstance(k, int):
            raise TypeError("integers only")
        calls.append(k)
        return dt.LSTM(32, k, 2, bidirectional=True)

    solution = solve(integer_only, 1_000_000)
    assert solution.root is None
    assert solution.n == solve(lambda h: dt.LSTM(32, h, 2, bidirectional=True), 1_000_000).n


def test_solve_refuses_bad_input():
    with pytest.raises(ValueError, match="no size >= 1 fits"):
        solve(lambda h: dt.LSTM(32, h), 10)
    with pytest.raises(TypeError, match="budget"):
        solve(lambda h: dt.LSTM(32, h), 1e6)
    with pytest.raises(ValueError, match="other than the size"):
        solve(dt.LSTM(I, H).count, 10**6, H)
    with pytest.raises(ValueError, match="does not depend"):
        solve(lambda h: dt.LSTM(32, 64), 10**6)
    with pytest.raises(ValueError, match="not increasing"):
        solve(1000 - H, 10, H)
    with pytest.raises(TypeError, match="callable or a SymPy"):
        solve("LSTM(32, H)", 10**6)


def test_solve_says_how_to_use_a_keras_layer():
    import derive.keras as dk

    with pytest.raises(TypeError, match=r"derive\.keras\.count\(layer, input_dim\)"):
        solve(lambda u: dk.LSTM(u), 10**6)
    solution = solve(lambda u: dk.count(dk.Bidirectional(dk.LSTM(u)), 28), int(dk.count(dk.LSTM(256), 28)))
    assert solution.count <= int(dk.count(dk.LSTM(256), 28)) < solution.next_count
