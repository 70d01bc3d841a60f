"""``derive.torch`` refuses what ``torch.nn`` refuses, with torch's exception type.

For every bad call torch refuses, the expected exception type is captured live from
``torch.nn`` (same arguments, meta device) and derive must raise exactly that type, with a
message that names the offending argument. Where torch does not refuse, or refuses by
accident of its implementation (bool sizes, float ``num_layers``, cell sizes <= 0, an
unknown ``nonlinearity`` for ``RNNCell``), derive's documented behaviour is asserted:
TypeError for a size that is not an integer, ValueError naming the argument for a size <= 0.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
import torch

import derive.torch as dt
from derive import H, I, L, P

NAN = float("nan")


def build_torch(name: str, *args, **kwargs) -> torch.nn.Module:
    return getattr(torch.nn, name)(*args, device="meta", **kwargs)


def torch_exception(name: str, *args, **kwargs) -> type[BaseException] | None:
    """The exception type ``torch.nn.<name>(*args, **kwargs)`` raises, or None if it builds."""
    try:
        build_torch(name, *args, **kwargs)
    except Exception as exc:
        return type(exc)
    return None


def derive_exception(name: str, *args, **kwargs) -> BaseException:
    """Call ``derive.torch.<name>``; it must raise. Returns the exception."""
    try:
        getattr(dt, name)(*args, **kwargs)
    except Exception as exc:
        return exc
    pytest.fail(f"derive.torch.{name}{args}{kwargs} did not raise")


def _id(case) -> str:
    name, args, kwargs, argument = case
    shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
    return f"{name}({shown})"


# (class, args, kwargs, argument the message must name); torch refuses every one of these.
TORCH_REFUSES = [
    # projection
    ("LSTM", (3, 4), {"proj_size": 4}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": 5}, "proj_size"),
    ("LSTM", (3, 1), {"proj_size": 1}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": -1}, "proj_size"),
    ("LSTM", (3, 4, 2), {"proj_size": -3, "bidirectional": True}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": 2.0}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": NAN}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": True}, "proj_size"),
    ("LSTM", (3, 4), {"proj_size": "1"}, "proj_size"),
    ("RNN", (3, 4), {"proj_size": 0}, "proj_size"),
    ("RNN", (3, 4), {"proj_size": 2}, "proj_size"),
    ("RNN", (3, 4), {"proj_size": 2, "nonlinearity": "relu"}, "proj_size"),
    ("GRU", (3, 4), {"proj_size": 0}, "proj_size"),
    ("GRU", (3, 4), {"proj_size": 2}, "proj_size"),
    # sizes <= 0
    *[
        (name, args, {}, argument)
        for name in ("RNN", "LSTM", "GRU")
        for args, argument in [
            ((0, 4), "input_size"),
            ((-2, 4), "input_size"),
            ((3, 0), "hidden_size"),
            ((3, -1), "hidden_size"),
            ((3, 4, 0), "num_layers"),
            ((3, 4, -2), "num_layers"),
        ]
    ],
    # sizes that are not integers
    *[
        (name, args, {}, argument)
        for name in ("RNN", "LSTM", "GRU")
        for args, argument in [
            ((3.0, 4), "input_size"),
            ((3, 4.0), "hidden_size"),
            ((3, 4, 2.0), "num_layers"),
            ((3, 4, 2.5), "num_layers"),
            ((NAN, 4), "input_size"),
            ((3, NAN), "hidden_size"),
            ((3, 4, NAN), "num_layers"),
            (("3", 4), "input_size"),
            ((3, "4"), "hidden_size"),
            ((3, 4, "2"), "num_layers"),
            ((None, 4), "input_size"),
        ]
    ],
    # nonlinearity
    # RNN's gate block is hidden_size itself: torch.empty((True, 3)) is a TypeError
    ("RNN", (3, True), {}, "hidden_size"),
    ("RNN", (3, 4), {"nonlinearity": "gelu"}, "nonlinearity"),
    ("RNN", (3, 4, 1, "gelu"), {}, "nonlinearity"),
    ("RNN", (3, 4), {"nonlinearity": "TANH"}, "nonlinearity"),
    ("RNN", (3, 4), {"nonlinearity": None}, "nonlinearity"),
    # dropout
    *[
        (name, (3, 4, 2), {"dropout": dropout}, "dropout")
        for name in ("RNN", "LSTM", "GRU")
        for dropout in (-0.1, 1.5, True, False, NAN, "0.5", "high")
    ],
    # flags
    *[
        (name, (3, 4), {flag: value}, flag)
        for name in ("RNN", "LSTM", "GRU")
        for flag, value in [("bias", 1), ("bias", 0), ("bias", None), ("bias", "yes"), ("batch_first", 1)]
    ],
    # cells: torch refuses non-integer sizes when it allocates
    *[
        (name, args, {}, argument)
        for name in ("RNNCell", "LSTMCell", "GRUCell")
        for args, argument in [
            ((3.0, 4), "input_size"),
            ((3, 4.0), "hidden_size"),
            ((NAN, 4), "input_size"),
            (("3", 4), "input_size"),
        ]
    ],
]


@pytest.mark.parametrize("case", TORCH_REFUSES, ids=_id)
def test_same_exception_type_as_torch(case):
    name, args, kwargs, argument = case
    expected = torch_exception(name, *args, **kwargs)
    assert expected is not None, "torch accepts this call; the case belongs to the documented-behaviour tests"
    exc = derive_exception(name, *args, **kwargs)
    assert type(exc) is expected, f"torch raises {expected.__name__}, derive {type(exc).__name__}: {exc}"
    assert argument in str(exc)


# ---------------------------------------------------------------- where torch does not refuse


# (class, args, kwargs, derive's exception, argument); torch builds these, or raises another type.
DOCUMENTED = [
    # bools are not sizes (torch: isinstance(True, int) holds, so it builds a 1-wide layer)
    *[
        (name, args, {}, TypeError, argument)
        for name in ("RNN", "LSTM", "GRU")
        for args, argument in [((True, 4), "input_size"), ((3, 4, True), "num_layers"), ((3, 4, False), "num_layers")]
    ],
    *[(name, (3, True), {}, TypeError, "hidden_size") for name in ("LSTM", "GRU")],
    # a float num_layers is a TypeError even where torch's `num_layers <= 0` check fires first
    *[(name, (3, 4, layers), {}, TypeError, "num_layers") for name in ("RNN", "LSTM", "GRU") for layers in (0.0, -1.0)],
    # torch does not check bidirectional
    *[(name, (3, 4), {"bidirectional": 1}, TypeError, "bidirectional") for name in ("RNN", "LSTM", "GRU")],
    # cells: torch does not check sizes (0 builds an empty tensor, < 0 is a RuntimeError of torch.empty)
    *[
        (name, args, {}, ValueError, argument)
        for name in ("RNNCell", "LSTMCell", "GRUCell")
        for args, argument in [
            ((0, 4), "input_size"),
            ((-1, 4), "input_size"),
            ((3, 0), "hidden_size"),
            ((3, -2), "hidden_size"),
        ]
    ],
    *[
        (name, args, {}, TypeError, argument)
        for name in ("RNNCell", "LSTMCell", "GRUCell")
        for args, argument in [((True, 4), "input_size"), ((3, True), "hidden_size")]
    ],
    # cells: torch accepts any truthy bias
    *[
        (name, (3, 4), {"bias": bias}, TypeError, "bias")
        for name in ("RNNCell", "LSTMCell", "GRUCell")
        for bias in (1, "x", None)
    ],
    # RNNCell: torch only fails at the first forward call
    ("RNNCell", (3, 4), {"nonlinearity": "gelu"}, ValueError, "nonlinearity"),
    ("RNNCell", (3, 4, True, "sigmoid"), {}, ValueError, "nonlinearity"),
]


def _doc_id(case) -> str:
    name, args, kwargs, _, argument = case
    return _id((name, args, kwargs, argument))


@pytest.mark.parametrize("case", DOCUMENTED, ids=_doc_id)
def test_documented_refusals_where_torch_differs(case):
    name, args, kwargs, expected, argument = case
    torch_type = torch_exception(name, *args, **kwargs)
    # Keep this table honest: each case is one torch does not refuse with derive's type.
    assert torch_type is not expected
    exc = derive_exception(name, *args, **kwargs)
    assert type(exc) is expected, f"{type(exc).__name__}: {exc}"
    assert argument in str(exc)


@pytest.mark.parametrize("name", ["LSTM", "LSTMCell", "GRU", "RNNCell"])
def test_numpy_integer_sizes_are_accepted(name):
    """derive accepts NumPy integers (validate.size: "a Python or NumPy integer"); the count is torch's for the int."""
    args = (np.int64(5), np.int32(7)) + ((np.int16(2),) if not name.endswith("Cell") else ())
    obj = getattr(dt, name)(*args)
    expected = sum(p.numel() for p in build_torch(name, *(int(a) for a in args)).parameters())
    assert obj.count == expected
    assert type(obj.count) is int


def test_dropout_does_not_change_the_weights_but_is_checked():
    torch_counts = {d: sum(p.numel() for p in build_torch("GRU", 3, 4, 2, dropout=d).parameters()) for d in (0, 0.5, 1)}
    assert len(set(torch_counts.values())) == 1
    for d, expected in torch_counts.items():
        assert dt.GRU(3, 4, 2, dropout=d).count == expected


# ---------------------------------------------------------------- SymPy inputs


@pytest.mark.parametrize(
    "value",
    [
        sympy.Symbol("x", integer=False),
        sympy.Float(2.5),
        sympy.Rational(5, 2),
        sympy.oo,
        sympy.zoo,
        sympy.I,
        sympy.Symbol("y", noninteger=True, positive=True),
    ],
    ids=repr,
)
@pytest.mark.parametrize("argument", ["input_size", "hidden_size", "num_layers"])
def test_sympy_non_integers_are_type_errors(value, argument):
    args = {"input_size": 3, "hidden_size": 4, "num_layers": 2, argument: value}
    with pytest.raises(TypeError, match=argument):
        dt.LSTM(**args)


@pytest.mark.parametrize("argument", ["input_size", "hidden_size", "num_layers"])
def test_sympy_integral_float_is_a_type_error(argument):
    args = {"input_size": 3, "hidden_size": 4, "num_layers": 2, argument: sympy.Float(2.0)}
    with pytest.raises(TypeError, match=argument):
        dt.LSTM(**args)


def test_sympy_nan_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="input_size"):
        dt.LSTM(sympy.nan, 4)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"input_size": sympy.Integer(0)}, "input_size"),
        ({"hidden_size": sympy.Integer(-2)}, "hidden_size"),
        ({"num_layers": -L}, "num_layers"),
        ({"input_size": sympy.Symbol("n", integer=True, negative=True)}, "input_size"),
        ({"hidden_size": sympy.Symbol("z", integer=True, nonpositive=True)}, "hidden_size"),
        ({"proj_size": -P}, "proj_size"),
        ({"proj_size": H}, "proj_size"),
        ({"proj_size": H + 1}, "proj_size"),
        ({"proj_size": 2 * H}, "proj_size"),
    ],
    ids=lambda v: str(v),
)
def test_sympy_provably_out_of_range_is_a_value_error(kwargs, argument):
    args = {"input_size": I, "hidden_size": H, "num_layers": L, **kwargs}
    with pytest.raises(ValueError, match=argument):
        dt.LSTM(**args)


def test_sympy_integer_proj_size_checked_like_torch():
    expected = torch_exception("LSTM", 3, 4, proj_size=4)
    assert expected is ValueError
    with pytest.raises(ValueError, match="proj_size"):
        dt.LSTM(3, 4, proj_size=sympy.Integer(4))
    with pytest.raises(ValueError, match="proj_size"):
        dt.LSTM(I, 4, proj_size=sympy.Integer(4))


@pytest.mark.parametrize("proj_size", [P, H - 1, 3], ids=str)
def test_sympy_undecidable_projection_is_accepted(proj_size):
    """P < H cannot be decided for free symbols (nor H - 1 >= 1, nor 3 < H): accepted, as documented."""
    obj = dt.LSTM(I, H, L, proj_size=proj_size)
    assert obj.proj_size == proj_size
    # and the count is torch's wherever the projection is valid
    for i, h, layers, p_value in [(3, 5, 1, 2), (7, 4, 3, 3), (2, 9, 2, 1)]:
        p = int(sympy.sympify(proj_size).subs({H: h, P: p_value}))
        assert 0 < p < h
        expected = sum(t.numel() for t in build_torch("LSTM", i, h, layers, proj_size=p).parameters())
        assert obj.count.subs({I: i, H: h, L: layers, P: p}) == expected


def test_sympy_symbol_without_assumptions_is_accepted():
    """validate.size: "a symbol with unknown assumptions is accepted"."""
    x = sympy.Symbol("x")
    obj = dt.GRU(x, 4)
    expected = sum(t.numel() for t in build_torch("GRU", 6, 4).parameters())
    assert obj.count.subs(x, 6) == expected


# ---------------------------------------------------------------- known gaps (reported)


@pytest.mark.parametrize("dropout", [None, [0.5]], ids=repr)
def test_dropout_non_number_type_like_torch(dropout):
    expected = torch_exception("LSTM", 3, 4, 2, dropout=dropout)
    assert expected is TypeError
    exc = derive_exception("LSTM", 3, 4, 2, dropout=dropout)
    assert type(exc) is expected and "dropout" in str(exc)


@pytest.mark.parametrize("name", ["RNN", "GRU"])
def test_proj_size_none_refused_like_torch(name):
    expected = torch_exception(name, 3, 4, proj_size=None)
    assert expected is ValueError
    exc = derive_exception(name, 3, 4, proj_size=None)
    assert type(exc) is expected and "proj_size" in str(exc)
