"""derive.engine.validate's refusals, each next to the framework check it mirrors where there is one."""

from __future__ import annotations

import contextlib
import io
import math

import pytest
import sympy
import torch

from derive.engine import validate


def test_size_with_minimum_zero_names_the_bound():
    assert validate.size("window", 0, minimum=0) == 0
    with pytest.raises(ValueError, match="window must be >= 0"):
        validate.size("window", -1, minimum=0)
    # torch's own wording for proj_size
    with pytest.raises(ValueError, match="proj_size should be a positive integer or zero") as ours:
        validate.size("proj_size", -1, minimum=0)
    with pytest.raises(ValueError) as theirs:
        torch.nn.LSTM(3, 4, proj_size=-1, device="meta")
    assert str(ours.value).split(" to ")[0] in str(theirs.value)


@pytest.mark.parametrize("value", [2, 0.5, 1e300, sympy.Rational(3, 2), sympy.Symbol("f", positive=True)])
def test_positive_number_accepts(value):
    assert validate.positive_number("proj_factor", value) == value


@pytest.mark.parametrize(
    "value,error,words",
    [
        (True, TypeError, "must be a positive number, got bool"),
        ("2", TypeError, "got str"),
        (None, TypeError, "got NoneType"),
        (sympy.I, TypeError, "positive number or a SymPy expression"),
        (sympy.nan, TypeError, "positive number or a SymPy expression"),
        (sympy.true, TypeError, "positive number or a SymPy expression"),
        (sympy.Integer(0), ValueError, "positive finite number"),
        (-sympy.Symbol("f", positive=True), ValueError, "positive finite number"),
        (sympy.oo, ValueError, "positive finite number"),
        (0, ValueError, "positive finite number, got 0"),
        (-1.5, ValueError, "got -1.5"),
        (math.inf, ValueError, "got inf"),
        (math.nan, ValueError, "got nan"),
    ],
)
def test_positive_number_refuses(value, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(")):
        validate.positive_number("proj_factor", value)


def test_probability_refuses_a_complex_number_as_torch_does():
    with pytest.raises(TypeError, match="dropout should be a number in range"):
        validate.probability("dropout", 1j)
    with pytest.raises(TypeError):  # torch compares it with 0 and 1: a TypeError too
        torch.nn.LSTM(3, 4, dropout=1j, device="meta")


def test_shown_bounds_what_it_prints():
    assert validate.shown(10**1000) == "<an int of about 1,001 digits>"
    assert validate.shown(-(10**1000)) == "-<an int of about 1,001 digits>"

    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert validate.shown(Hostile()) == "<Hostile object>"
    long = validate.shown("x" * 1000, limit=40)
    assert len(long) < 80 and "characters" in long and long.startswith("'xxxxxxxxx")


def test_a_size_named_by_an_undefined_variable_is_that_symbol() -> None:
    """``LSTMCell(num_units=state_size)`` pasted alone: the count comes in terms of ``state_size``;
    anything else derive did not evaluate (an attribute, a call) is still refused, naming it."""
    from derive.read.source import Opaque

    got = validate.size("num_units", Opaque("state_size"))
    assert got == sympy.Symbol("state_size", integer=True, positive=True) and got.is_positive
    for source in ("args.hidden", "int(sys.argv[1])", "lambda"):
        with pytest.raises(TypeError, match="not evaluated"):
            validate.size("num_units", Opaque(source))


def test_tf1_line_with_an_undefined_size_in_the_cli() -> None:
    """TensorFlow issue 15087's line as pasted: the formula in state_size; at 70 (the asker's) the TF1 count."""
    import json

    from derive.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["tf.nn.rnn_cell.LSTMCell(num_units=state_size, state_is_tuple=True)", "--framework", "tf1",
                       "--input-dim", "27", "--json"])  # fmt: skip
    data = json.loads(out.getvalue())
    assert status == 0 and "state_size" in data["notes"][0] and "in terms of it" in data["notes"][0]
    assert (
        sympy.sympify(data["total"]).subs("state_size", 70) == 4 * 70 * (27 + 70) + 4 * 70
    )  # TF1's kernel (97, 280) and bias
