"""The code reader (:mod:`derive.models.source`): sizes computed as Python computes them, as Keras builds them.

Arithmetic of sizes is checked against Python's own evaluation of the same expression, and sizes
written as arithmetic against real Keras 3 built from the same code; refusals name the construct.
"""

from __future__ import annotations

import ast

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402
from keras_code_live import agree  # noqa: E402

from derive.models import explain  # noqa: E402
from derive.models.source import (  # noqa: E402
    MAX_DEPTH,
    MAX_INT,
    MAX_ITEMS,
    MAX_TEXT,
    Call,
    Opaque,
    Reader,
    SourceError,
    dotted,
    parse_expression,
    parse_module,
)


def read(expression: str, env: dict | None = None):
    return Reader(env).value(ast.parse(expression, mode="eval").body)


@settings(max_examples=15, deadline=None)
@given(
    st.integers(-50, 50),
    st.integers(-50, 50).filter(bool),
    st.sampled_from(["+", "-", "*", "//"]),
    st.sampled_from(["", "-", "+"]),
)
def test_integer_arithmetic_is_python_arithmetic(a, b, op, sign):
    expression = f"{sign}(a {op} b)"
    assert read(expression, {"a": a, "b": b}) == eval(expression, {"a": a, "b": b})  # the test's own expression


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 40), st.integers(1, 6))
def test_sizes_written_as_arithmetic_build_like_keras(units, features):
    code = f"""
units = {units}
half = units // 2
model = Sequential([Input((3, {features})), Dense(half + 1), Dense(-(-units) * 2 - 1), LSTM(+units)])
"""
    agree(code)


def test_symbolic_floor_division_and_repeated_layers():
    hidden = sympy.Symbol("hidden", integer=True, positive=True)
    assert read("hidden // 2") == sympy.floor(hidden / 2)
    assert read("-hidden") == -hidden
    three = read("hidden * 2 - (hidden + hidden) + 3")  # a symbolic size that cancels is a plain int
    assert three == 3 and type(three) is int
    report = explain("model = Sequential([Dense(3) for _ in range(2)])", input_dim=4)
    keras.backend.clear_session(free_memory=False)
    real = keras.Sequential([keras.Input((4,)), kl.Dense(3), kl.Dense(3)])
    assert [(r.name, r.params) for r in report.rows] == [(x.name, x.count_params()) for x in real.layers]


@pytest.mark.parametrize(
    "expression",
    [
        "[Dense(i) for i in range(3)]",  # the element uses the loop variable
        "[Dense(3) for _ in range(3) if _]",
        "[Dense(3) for a, b in range(3)]",
        "[Dense(3) for _ in items]",
        "[Dense(3) for _ in range(1, 3)]",
        "[Dense(3) for _ in range(n)]",
        "[Dense(3) for _ in range(1001)]",
        "[Dense(3) for _ in range(2) for _ in range(2)]",
        "{'units': 3}",
        "not flag",
        "-'a'",
        "'a' + 'b'",
        "True + 1",
        "2.5 * 2",
        "b'raw'",
        "1j",
        "...",
        "cfg.model.hidden",
        "f(3)(4)",
    ],
)
def test_constructs_kept_as_their_text(expression):
    value = read(expression)
    assert isinstance(value, Opaque)
    assert value.source == ast.unparse(ast.parse(expression, mode="eval").body)
    assert repr(value) == value.unread_source


def test_names_attributes_and_calls():
    assert read("cfg.hidden", {"cfg.hidden": 8}) == 8
    assert read("self.hidden") == sympy.Symbol("hidden", integer=True, positive=True)
    call = read("layers.Dense(*sizes, units=3, **options)")
    assert isinstance(call, Call)
    assert (call.name, call.dotted, call.kwargs["units"]) == ("Dense", "layers.Dense", 3)
    assert [a.source for a in call.args] == ["*sizes"] and call.kwargs["**"].source == "options"
    assert call.unread_source == "layers.Dense(...)"
    assert dotted(ast.parse("super().lstm.hidden", mode="eval").body) == "super().lstm.hidden"
    assert dotted(ast.parse("items[0].hidden", mode="eval").body) is None
    assert parse_expression("LSTM(hidden * 2, 64)").args[1] == 64


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        (f"Dense({MAX_INT + 1})", "integer literal beyond"),
        (f"{MAX_INT} * 10", "size beyond"),
        ("units // 0", "division by zero"),
        ("[" + "0, " * (MAX_ITEMS + 1) + "]", f"more than {MAX_ITEMS} items"),
        ("f(" * (MAX_DEPTH + 2) + ")" * (MAX_DEPTH + 2), "calls nested too deeply"),
    ],
)
def test_values_refused(expression, words):
    with pytest.raises(SourceError, match=words):
        read(expression)


def test_code_refused():
    with pytest.raises(TypeError, match="code must be a str, got bytes"):
        parse_module(b"LSTM(3)")
    for text, words in [
        ("  \n", "empty code"),
        ("#" * (MAX_TEXT + 1), "code longer than"),
        ("LSTM(3)\x00", "null byte"),
        ("LSTM(3", "syntax error on line 1"),
        ("-" * 100_000 + "1", "code nested too deeply"),
        ("x = " + " + ".join(["1"] * 200), "code nested too deeply \\(line 1\\)"),
    ]:
        with pytest.raises(SourceError, match=words):
            parse_module(text)
    for text in ("x = LSTM(3)", "LSTM(3)\nGRU(2)", "3"):
        with pytest.raises(SourceError, match="expected one call"):
            parse_expression(text)
