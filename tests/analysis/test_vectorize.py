"""derive.vectorize: exact NumPy evaluation, never a silent int64 overflow."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest
import sympy
from torch import nn

import derive.analysis.vectorize
import derive.torch as dt
from derive import H, I, L, P, T
from derive.analysis.cost import N, cost
from derive.analysis.vectorize import vectorize


def test_docstring_examples():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    assert doctest.testmod(derive.analysis.vectorize, optionflags=flags).failed == 0


@pytest.mark.parametrize(
    "cls,kwargs",
    [
        ("LSTM", {}),
        ("LSTM", {"bidirectional": True}),
        ("GRU", {"bias": False}),
        ("RNN", {"bidirectional": True}),
    ],
)
def test_matches_the_library_on_random_arrays(cls, kwargs):
    f = vectorize(getattr(dt, cls)(I, H, L, **kwargs).count)
    rng = np.random.default_rng(3)
    i, h, layers = rng.integers(1, 5000, 300), rng.integers(1, 5000, 300), rng.integers(1, 9, 300)
    got = f(I=i, H=h, L=layers)
    assert got.dtype == np.int64
    expected = [getattr(dt, cls)(int(a), int(b), int(c), **kwargs).count for a, b, c in zip(i, h, layers)]
    assert got.tolist() == expected


def test_matches_torch_for_a_few():
    f = vectorize(dt.LSTM(I, H, L, bidirectional=True, proj_size=P).count)
    for i, h, layers, p in [(32, 128, 2, 64), (10, 20, 1, 5), (7, 9, 3, 2)]:
        module = nn.LSTM(i, h, layers, bidirectional=True, proj_size=p)
        assert f(H=h, I=i, L=layers, P=p) == sum(q.numel() for q in module.parameters())


def test_int64_boundary_is_exact():
    """Sizes around the point where the count crosses 2**63: every entry equals the Python-int value."""
    expr = dt.LSTM(I, H, L).count
    f = vectorize(expr)
    exact = sympy.lambdify((H, I, L), expr)  # Python ints
    rng = random.Random(7)
    h = [rng.randint(1, 2**31) for _ in range(200)] + [2**30, 2**31, 2**31 + 1, 3 * 10**9]
    i = [rng.randint(1, 2**31) for _ in h]
    layers = [rng.randint(1, 2**3) for _ in h]
    got = f(H=np.array(h), I=np.array(i), L=np.array(layers))
    assert [int(v) for v in got] == [exact(a, b, c) for a, b, c in zip(h, i, layers)]
    assert any(exact(a, b, c) >= 2**63 for a, b, c in zip(h, i, layers))  # the test does cross int64
    assert got.dtype == object


def test_no_wrap_around_ever():
    """Around 2**63 int64 would wrap to a negative number; the result here stays exact."""
    f = vectorize(H**2)
    big = np.array([3037000499, 3037000500, 2**32], dtype=np.int64)  # 3037000500**2 > 2**63
    assert [int(v) for v in f(big)] == [int(b) ** 2 for b in big]
    with pytest.raises(OverflowError, match="int64"):
        vectorize(H**2, overflow="raise")(big)
    assert vectorize(H**2, overflow="raise")(np.array([3, 4])).tolist() == [9, 16]


def test_negative_coefficients_bounded_by_absolute_terms():
    # 8 H^2 L - 4 H^2 : the partial product 8 H^2 L can overflow while the total would not
    f = vectorize(8 * H**2 * L - 4 * H**2)
    h, layers = 2**29, 2**4  # 8·2^58·2^4 = 2^65 > int64, total 2^65 - 2^60
    assert int(f(H=h, L=layers)) == 8 * h**2 * layers - 4 * h**2


def test_costs_vectorize_too():
    macs = cost(dt.GRU(I, H, L)).macs
    f = vectorize(macs)
    assert f.symbols == (H, I, L, N, T)
    assert int(f(H=20, I=10, L=2, N=3, T=7)) == cost(dt.GRU(10, 20, 2), 7, 3).macs


def test_bad_input():
    f = vectorize(dt.LSTM(I, H).count)
    with pytest.raises(TypeError, match="integer"):
        f(H=np.array([1.5]), I=3)
    with pytest.raises(TypeError, match="missing sizes: I"):
        f(H=3)
    with pytest.raises(TypeError, match="unknown size 'Q'"):
        f(H=3, I=3, Q=1)
    with pytest.raises(TypeError, match="polynomial"):
        vectorize(sympy.sqrt(H))
    with pytest.raises(ValueError, match="overflow must be"):
        vectorize(H, overflow="wrap")
    with pytest.raises(ValueError, match="missing"):
        vectorize(H * I, symbols=(H,))


def test_entries_safe_one_by_one_stay_int64():
    """The whole-call bound combines the largest I and the largest H of different entries; when it is too
    large the entries are bounded one by one, and if each is safe the result stays int64 and exact."""
    f = vectorize(H * I)
    i = np.array([2**40, 1], dtype=np.int64)
    h = np.array([1, 2**40], dtype=np.int64)
    got = f(H=h, I=i)
    assert got.dtype == np.int64 and got.tolist() == [2**40, 2**40]


def test_python_int_object_arrays():
    f = vectorize(H**2)
    assert f(np.array([2**40, 3], dtype=object)).tolist() == [2**80, 9]
    assert vectorize(H**2, overflow="raise")(np.array([3, 4], dtype=object)).dtype == np.int64
    with pytest.raises(OverflowError):
        vectorize(H**2, overflow="raise")(np.array([2**40], dtype=object))
