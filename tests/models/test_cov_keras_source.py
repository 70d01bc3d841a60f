"""Sizes written as arithmetic in Keras code, built as Keras builds them, and the limits of parsing pasted
code (:mod:`derive.read.source`): refusals name the construct.

The reader's arithmetic itself is checked against Python in ``tests/models/test_code_python.py``.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402
from keras_code_live import agree  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import (  # noqa: E402
    MAX_TEXT,
    SourceError,
    dotted,
    parse_module,
)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.integers(2, 40), st.integers(1, 6))
def test_sizes_written_as_arithmetic_build_like_keras(units, features):
    code = f"""
units = {units}
half = units // 2
model = Sequential([Input((3, {features})), Dense(half + 1), Dense(-(-units) * 2 - 1), LSTM(+units)])
"""
    agree(code)


def test_repeated_layers_build_like_keras():
    report = explain("model = Sequential([Dense(3) for _ in range(2)])", input_dim=4)
    keras.backend.clear_session(free_memory=False)
    real = keras.Sequential([keras.Input((4,)), kl.Dense(3), kl.Dense(3)])
    assert [(r.name, r.params) for r in report.rows] == [(x.name, x.count_params()) for x in real.layers]


def test_dotted_names():
    assert dotted(ast.parse("super().lstm.hidden", mode="eval").body) == "super().lstm.hidden"
    assert dotted(ast.parse("items[0].hidden", mode="eval").body) is None


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
