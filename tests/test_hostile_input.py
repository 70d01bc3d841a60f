"""Bad and hostile input to the library: refused with a clear error, never evaluated, never slow.

Sizes that are zero, negative, floats (also integral ones), bools, NaN, infinities,
strings, None, containers, fractions, decimals, complex numbers or objects that
merely *behave* like ints are refused with ``TypeError`` (not an integer) or
``ValueError`` (an integer out of range) — the message names the argument and what
is allowed. Strings are never handed to ``eval``/``sympify``: a string holding code
runs nothing. Huge sizes are exact: ``10**30`` gives an exact integer count, held
against a polynomial fitted live to ``torch.nn`` at small sizes (torch cannot build
a layer that big), and asking for a listing that could never finish is refused.

The command line's parser (``derive.read.line.parse``, pasted constructors with
``__import__``, attribute access, lambdas, comprehensions, ...) is held to the
same standard in ``tests/cli/test_cli.py``; a few more shapes of hostile text are here.
"""

from __future__ import annotations

import decimal
import fractions
import itertools
import signal
from contextlib import contextmanager

import numpy as np
import pytest
import sympy
import torch

import derive.torch as dt
from derive import cells
from derive.engine.symbols import H, I, L

HUGE = 10**30
NAN, INF = float("nan"), float("inf")


class Sneaky:
    """An object that would run code if derive converted it with int(), index() or ==."""

    calls: list[str] = []

    def __int__(self):
        Sneaky.calls.append("__int__")
        return 3

    def __index__(self):
        Sneaky.calls.append("__index__")
        return 3

    def __eq__(self, other):
        Sneaky.calls.append("__eq__")
        return False

    __hash__ = object.__hash__

    def __repr__(self):
        return "Sneaky()"


# value -> exception type expected wherever a size goes
NOT_AN_INTEGER = [
    1.0,
    2.5,
    True,
    False,
    NAN,
    INF,
    -INF,
    "32",
    "10**30",
    "__import__('os')",
    None,
    [32],
    (32,),
    {"n": 32},
    1 + 2j,
    fractions.Fraction(3),
    decimal.Decimal(3),
    np.float64(5.0),
    np.bool_(True),
    sympy.Float(3.0),
    sympy.Rational(1, 2),
    sympy.nan,
    sympy.oo,
    -sympy.oo,
    sympy.zoo,
    Sneaky(),
    b"32",
    bytearray(b"3"),
]
OUT_OF_RANGE = [
    0,
    -1,
    -HUGE,
    np.int64(0),
    np.int32(-5),
    sympy.Integer(0),
    sympy.Integer(-3),
    sympy.Symbol("n", negative=True),
]

TORCH_SIZES = [
    ("LSTM", ("input_size", "hidden_size", "num_layers")),
    ("GRU", ("input_size", "hidden_size", "num_layers")),
    ("RNN", ("input_size", "hidden_size", "num_layers")),
    ("RNNCell", ("input_size", "hidden_size")),
    ("LSTMCell", ("input_size", "hidden_size")),
    ("GRUCell", ("input_size", "hidden_size")),
]
SIZE_CASES = [(cls, arg) for cls, args in TORCH_SIZES for arg in args]


@contextmanager
def time_limit(seconds: int):
    """Fail instead of hanging (SIGALRM; the suite runs on Linux)."""

    def expire(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def call(cls: str, arg: str, value):
    kwargs = {"input_size": 10, "hidden_size": 20}
    if "num_layers" in dict(TORCH_SIZES)[cls]:
        kwargs["num_layers"] = 2
    kwargs[arg] = value
    return getattr(dt, cls)(**kwargs)


@pytest.fixture(autouse=True)
def no_sympify_of_strings(monkeypatch):
    """Fail if anything hands a str to sympy's parser (which evaluates Python)."""
    import sympy.parsing.sympy_parser as parser

    real = parser.parse_expr

    def guarded(s, *args, **kwargs):
        raise AssertionError(f"parse_expr called on {s!r}")

    monkeypatch.setattr(parser, "parse_expr", guarded)
    yield
    assert parser.parse_expr is guarded and real is not guarded


@pytest.mark.parametrize("cls,arg", SIZE_CASES)
@pytest.mark.parametrize("value", NOT_AN_INTEGER, ids=repr)
def test_sizes_that_are_not_integers_are_a_type_error(cls, arg, value):
    Sneaky.calls.clear()
    with pytest.raises(TypeError) as info:
        call(cls, arg, value)
    message = str(info.value)
    assert arg in message and "int" in message, message
    assert Sneaky.calls == [], "derive converted an unknown object (ran its code)"


@pytest.mark.parametrize("cls,arg", SIZE_CASES)
@pytest.mark.parametrize("value", OUT_OF_RANGE, ids=repr)
def test_sizes_out_of_range_are_a_value_error(cls, arg, value):
    with pytest.raises(ValueError) as info:
        call(cls, arg, value)
    assert arg in str(info.value) and "greater than zero" in str(info.value)


def test_strings_holding_code_run_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    payload = "__import__('pathlib').Path('PWNED').touch() or 3"
    for cls, arg in SIZE_CASES:
        with pytest.raises(TypeError):
            call(cls, arg, payload)
    for kwargs in ({"nonlinearity": payload}, {"dropout": payload}, {"bias": payload}, {"proj_size": payload}):
        with pytest.raises((TypeError, ValueError)):
            dt.LSTM(3, 4, **kwargs) if "nonlinearity" not in kwargs else dt.RNN(3, 4, **kwargs)
    with pytest.raises((TypeError, ValueError)):
        cells.lstm(payload, 4)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["sigmoid", "TANH", "", None, 1, True, "relu ", sympy.Symbol("tanh")], ids=repr)
@pytest.mark.parametrize("cls", ["RNN", "RNNCell"])
def test_unknown_nonlinearity(cls, value):
    with pytest.raises(ValueError) as info:
        getattr(dt, cls)(3, 4, nonlinearity=value)
    message = str(info.value)
    assert "nonlinearity" in message and "'tanh'" in message and "'relu'" in message, message


@pytest.mark.parametrize("value", ["sigmoid", "gelu", None])
def test_cells_refuse_an_unknown_nonlinearity(value):
    with pytest.raises(ValueError) as info:
        cells.elman(3, 4, True, value)
    assert "nonlinearity" in str(info.value) and "tanh" in str(info.value)


@pytest.mark.parametrize("mode", ["TRANSFORMER", "lstm", "", None, 3])
def test_unknown_cell(mode):
    with pytest.raises(ValueError) as info:
        cells.make_cell(mode, 3, 4)
    assert "mode" in str(info.value) and "LSTM" in str(info.value) and "GRU" in str(info.value)


@pytest.mark.parametrize("bias", ["three", "", None, 2, 1.0])
def test_unknown_bias_policy(bias):
    with pytest.raises(ValueError) as info:
        cells.bias_policy(bias)
    assert "bias" in str(info.value) and "'two'" in str(info.value)


@pytest.mark.parametrize("value", [-0.1, 1.5, NAN, INF, "0.5", True])
def test_bad_dropout_is_refused(value):
    with pytest.raises((TypeError, ValueError)) as info:
        dt.LSTM(3, 4, 2, dropout=value)
    assert "dropout" in str(info.value) and "[0, 1]" in str(info.value)


@pytest.mark.parametrize("flag", ["bias", "batch_first", "bidirectional"])
@pytest.mark.parametrize("value", [1, 0, "True", None, np.bool_(True), NAN])
def test_flags_must_be_bools(flag, value):
    with pytest.raises(TypeError) as info:
        dt.LSTM(3, 4, **{flag: value})
    assert flag in str(info.value) and "bool" in str(info.value)


@pytest.mark.parametrize(
    "kwargs", [{"proj_size": 4}, {"proj_size": HUGE}, {"proj_size": -1}, {"proj_size": 2.0}, {"proj_size": True}]
)
def test_bad_proj_size(kwargs):
    with pytest.raises((TypeError, ValueError)) as info:
        dt.LSTM(3, 4, **kwargs)
    assert "proj_size" in str(info.value)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        dt.GRU(3, 4, hidden=5)
    with pytest.raises(TypeError):
        dt.LSTM(3, 4, hidden=5)


# --- huge sizes: exact, checked against torch without building a huge module ------------------


def torch_count(cls: str, *args, **kwargs) -> int:
    module = getattr(torch.nn, cls)(*args, device="meta", **kwargs)
    return sum(p.numel() for p in module.parameters())


def fitted(points: dict[tuple[int, ...], int], monomials) -> callable:
    """Exact least-degree polynomial through torch's counts (Fractions, Gaussian elimination)."""
    rows = [[fractions.Fraction(m(*x)) for m in monomials] + [fractions.Fraction(y)] for x, y in points.items()]
    n = len(monomials)
    for col in range(n):
        pivot = next(r for r in range(col, len(rows)) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rows[col] = [v / rows[col][col] for v in rows[col]]
        for r in range(len(rows)):
            if r != col and rows[r][col] != 0:
                rows[r] = [a - rows[r][col] * b for a, b in zip(rows[r], rows[col])]
    coefficients = [rows[k][n] for k in range(n)]
    for r in rows[n:]:  # the extra points must lie on the polynomial: it really is one
        assert all(v == 0 for v in r), "torch's counts are not a polynomial of this form"

    def evaluate(*x):
        value = sum(c * m(*x) for c, m in zip(coefficients, monomials))
        assert value.denominator == 1
        return int(value)

    return evaluate


QUADRATIC = [lambda i, h: 1, lambda i, h: i, lambda i, h: h, lambda i, h: i * i, lambda i, h: i * h, lambda i, h: h * h]


@pytest.mark.parametrize(
    "cls,kwargs",
    [
        ("LSTM", {}),
        ("LSTM", {"bidirectional": True}),
        ("GRU", {"num_layers": 3}),
        ("RNN", {"bias": False}),
        ("LSTMCell", {}),
        ("GRUCell", {}),
        ("RNNCell", {}),
    ],
)
def test_huge_sizes_give_exact_integers(cls, kwargs):
    points = {(i, h): torch_count(cls, i, h, **kwargs) for i, h in itertools.product((1, 2, 3, 5), (1, 2, 4))}
    polynomial = fitted(points, QUADRATIC)
    for size in [(HUGE, HUGE), (HUGE, 7), (3, HUGE), (2**100 + 1, 3**70)]:
        with time_limit(30):
            count = getattr(dt, cls)(*size, **kwargs).count
        assert type(count) is int, type(count)
        assert int(count) == polynomial(*size), size
        assert int(count) != int(float(int(count))) or int(count) < 2**53  # more digits than a float holds


def test_huge_num_layers_is_exact():
    points = {(n,): torch_count("LSTM", 4, 6, n, bidirectional=True) for n in (1, 2, 3, 4)}
    polynomial = fitted(points, [lambda n: 1, lambda n: n])
    with time_limit(30):
        count = dt.LSTM(4, 6, HUGE, bidirectional=True).count
    assert int(count) == polynomial(HUGE)
    assert dt.LSTM(I, H, L, bidirectional=True).count.subs({I: 4, H: 6, L: HUGE}) == count


def test_huge_shapes_are_exact():
    shapes = dt.LSTM(HUGE, HUGE + 1, 2, proj_size=HUGE).shapes
    assert shapes["weight_ih_l0"] == (4 * (HUGE + 1), HUGE)
    assert shapes["weight_hr_l1"] == (HUGE, HUGE + 1)
    assert all(type(d) is int for shape in shapes.values() for d in shape)


def test_listing_a_huge_number_of_layers_is_refused_not_attempted():
    stack = dt.GRU(3, 4, HUGE)
    with time_limit(10):
        assert int(stack.count) > HUGE
        with pytest.raises(ValueError) as info:
            stack.shapes  # noqa: B018
    assert "num_layers" in str(info.value)
    with time_limit(10):
        assert stack.layer_count(5) == stack.layer_count(1)


def test_count_is_exact_at_float_boundaries():
    """At 2**53 + 1 a float would round; the count does not."""
    n = 2**53 + 1
    count = dt.RNNCell(n, n, bias=False).count
    assert int(count) == 2 * n * n
    assert int(float(2 * n * n)) != 2 * n * n  # a float count would be off


# --- the command line's parser: more shapes of hostile text -------------------------------------

cli = pytest.importorskip("derive.cli", reason="derive.cli (issue 5) not present")


@pytest.mark.parametrize(
    "text",
    [
        "nn.LSTM(" * 200 + ")" * 200,  # deep nesting
        "nn.LSTM(" + ", ".join(["1"] * 5000) + ")",  # very long
        "nn.LSTM(3, 4)\x00",  # NUL byte
        "nn.LSTM(input_size=3, input_size=4, hidden_size=2)",  # repeated keyword
        "nn.LSTM(3, 4, **__builtins__)",
        "nn.LSTM(3, 4)[0]",
        "nn.LSTM(3, 4)(x)",
        "(yield)",
        "nn.LSTM(3, 4) if True else 0",
        "nn.LSTM(globals(), 4)",
        "nn.LSTM(3, {1: 2})",
        "nn.LSTM(3, 4, nonlinearity=print)",
        "nn.LSTM(3, H:=4)",
        "nn.LSTM(3, 4).count",
        "nn.LSTM(0x10, 0b11, 0o7, 1_000)",  # literals are fine but sizes checked: see below
    ],
)
def test_cli_parse_refuses_or_checks(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        parsed = cli.parse(text)
    except cli.InputError as error:
        assert str(error) and "\n" not in str(error)
        return
    except (TypeError, ValueError) as error:  # refused by the adapters' checks
        assert str(error)
        return
    finally:
        assert list(tmp_path.iterdir()) == []
    assert text.startswith("nn.LSTM(0x10") and parsed.args == [16, 3, 7, 1000], (text, parsed)


@pytest.mark.parametrize("builder", ["elman", "lstm", "gru"])
@pytest.mark.parametrize("bad", ["a", 2.5, True, None])
def test_cell_builders_refuse_non_sizes_naming_the_argument(builder, bad):
    import derive.cells as cells

    with pytest.raises(TypeError, match="input_size"):
        getattr(cells, builder)(bad, 4)


def test_calculator_refuses_an_unknown_cell_naming_the_allowed_ones():
    from docs_src.calculator import evaluate

    with pytest.raises(ValueError, match="LSTM"):
        evaluate("TRANSFORMER", 3, 4, 1, False, True)


# --- issue 13, item 3: out-of-range layers and sizes are refused, not answered -----------------


@pytest.mark.parametrize("layer", [2, 5, -1, HUGE])
@pytest.mark.parametrize("method", ["layer_count", "layer_tensors", "cell", "layer_input_size"])
def test_a_layer_the_stack_does_not_have_is_refused(method, layer):
    stack = dt.LSTM(3, 4, 2)
    assert len(list(torch.nn.LSTM(3, 4, 2, device="meta").named_parameters())) == 8  # layers 0 and 1 only
    with pytest.raises(ValueError) as info:
        getattr(stack, method)(layer)
    assert "layer" in str(info.value) and "range(0, 2)" in str(info.value)


@pytest.mark.parametrize("layer", [True, 1.0, "1", None, Sneaky()])
def test_a_layer_that_is_not_an_int_is_a_type_error(layer):
    Sneaky.calls.clear()
    with pytest.raises(TypeError, match="layer"):
        dt.GRU(3, 4, 3).layer_count(layer)
    assert Sneaky.calls == []


def test_upper_layer_of_a_one_layer_stack_is_refused():
    from derive.engine.stack import UPPER

    with pytest.raises(ValueError, match="num_layers is 1"):
        dt.LSTM(3, 4).layer_count(UPPER)


@pytest.mark.parametrize("value", [0, -1, -(2**80), np.array([3, 0]), np.array([5, -2], dtype=object)])
def test_vectorize_refuses_sizes_below_one(value):
    from derive.analysis.vectorize import vectorize

    f = vectorize(dt.LSTM(I, H, L).count)
    with pytest.raises(ValueError, match="H must be a positive integer"):
        f(H=value, I=3, L=2)


# --- issue 13, item 7: public functions raise only ValueError/TypeError naming the argument -----


def _public_calls():
    from derive import compare, solve
    from derive.analysis.cost import cost, step_ops, stored_elements
    from derive.analysis.vectorize import vectorize
    from derive.render import display, latex

    return {
        "solve-count": (lambda v: solve(v, 100), "count"),
        "solve-budget": (lambda v: solve(H**2 + H, v), "budget"),
        "solve-symbol": (lambda v: solve(H**2 + I, 100, v), "symbol"),
        "cost-stack": (lambda v: cost(v, 5), "stack"),
        "cost-seq_len": (lambda v: cost(dt.LSTM(3, 4), v), "seq_len"),
        "step_ops": (lambda v: step_ops(v), "cell"),
        "stored_elements": (lambda v: stored_elements(v), "cell"),
        "compare": (lambda v: compare(v, dt.LSTM(3, 4)), "a"),
        "vectorize": (lambda v: vectorize(v), "expr"),
        "vectorize-symbols": (lambda v: vectorize(H + I, v), "symbols"),
        "latex_repr": (lambda v: display.latex_repr(v), "stack"),
        "html_repr": (lambda v: display.html_repr(v), "stack"),
        "latex": (lambda v: latex.latex(v), "expr"),
        "equations_latex": (lambda v: latex.equations_latex(v), "cell"),
        "shape_latex": (lambda v: latex.shape_latex(v), "shape"),
    }


WRONG = [None, "x", "__import__('os')", 2.5, [1], object(), sympy.sqrt(H), sympy.log(H), H / I, sympy.I, sympy.oo]


@pytest.mark.parametrize("name", sorted(_public_calls()))
# ids without an object's address: the same on every run and in every parallel worker
@pytest.mark.parametrize("value", WRONG, ids=lambda v: "object()" if type(v) is object else repr(v))
def test_public_functions_raise_only_value_or_type_errors(name, value):
    function, argument = _public_calls()[name]
    try:
        function(value)
    except (TypeError, ValueError) as error:
        message = str(error)
        assert message and "\n" not in message.strip()
        assert argument in message or "count" in message or "size" in message, (name, message)
    # an answer is fine where the value is a valid one (e.g. latex(sqrt(H)))


def test_solve_of_a_non_polynomial_is_a_type_error():
    from derive import solve

    with pytest.raises(TypeError, match="not a polynomial"):
        solve(sympy.sqrt(H), 100)


def test_cost_of_none_is_a_type_error():
    from derive.analysis.cost import cost

    with pytest.raises(TypeError, match="stack must be a derive stack"):
        cost(None, 5)


# --- issue 13, item 9: solve is exact at any budget, fast ----------------------------------------


@pytest.mark.parametrize("exponent", [6, 50, 100, 212, 213, 250, 299, 300])
@pytest.mark.parametrize(
    "cls,kwargs", [("LSTM", {"num_layers": 2, "bidirectional": True}), ("GRU", {}), ("RNN", {"bias": False})]
)
def test_solve_is_exact_for_huge_budgets(cls, kwargs, exponent):
    import time

    from derive import solve

    # torch's count as a function of H, fitted exactly at sizes torch builds (I = 32)
    points = {(1, h): torch_count(cls, 32, h, **kwargs) for h in (1, 2, 3, 4, 5)}
    polynomial = fitted(points, [lambda i, h: 1, lambda i, h: h, lambda i, h: h * h])
    for budget in (10**exponent, 10**exponent + 12345, 10**exponent - 1):
        solve(lambda h: getattr(dt, cls)(32, h, **kwargs), budget)  # warm
        start = time.perf_counter()
        s = solve(lambda h: getattr(dt, cls)(32, h, **kwargs), budget)
        elapsed = time.perf_counter() - start
        assert polynomial(1, s.n) <= budget < polynomial(1, s.n + 1)
        assert (s.count, s.next_count) == (polynomial(1, s.n), polynomial(1, s.n + 1))
        assert elapsed < 0.05, f"{elapsed:.3f} s"


def test_solve_root_is_exact():
    from derive import solve
    from derive.analysis.solving import x

    s = solve(lambda h: dt.LSTM(32, h, 2, bidirectional=True), 10**300 + 7)
    # the root solves count(x) = budget exactly; count increasing and count(n) <= budget < count(n + 1)
    # (checked above against torch) put it in [n, n + 1)
    assert sympy.expand(s.polynomial.xreplace({x: s.root}) - (10**300 + 7)) == 0
    assert s.root.is_positive
