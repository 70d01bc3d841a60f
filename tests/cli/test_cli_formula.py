"""The CLI's formula is in the user's own symbols (issue 13, item 2).

Numbers are generalized to I, H, L, P only where the user did not write that symbol; whatever is
shown, the formula at the shown values is the count, and the count is torch's / Keras'.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
import sympy
from torch import nn

from derive.cli import describe
from derive.engine.symbols import H, I, L, P

SYMBOLS = {"I": I, "H": H, "L": L, "P": P}


def as_sympy(formula):  # type: ignore[no-untyped-def]
    """describe()'s formula as SymPy: a kept form (derive.engine.closed_forms.ClosedForm) built from its terms."""
    return formula.to_sympy() if hasattr(formula, "to_sympy") else formula


def torch_count(cls: str, *args, **kwargs) -> int:
    return sum(p.numel() for p in getattr(nn, cls)(*args, device="meta", **kwargs).parameters())


@pytest.mark.parametrize(
    "text,user,numbers",
    [
        ("nn.LSTM(32, I)", {I}, {"hidden_size": 7}),
        ("nn.LSTM(H, I)", {H, I}, {"input_size": 5, "hidden_size": 7}),
        ("nn.GRU(L, H, I)", {L, H, I}, {"input_size": 3, "hidden_size": 4, "num_layers": 2}),
        ("nn.LSTM(P, H, proj_size=I)", {P, H, I}, {"input_size": 5, "hidden_size": 7, "proj_size": 2}),
        ("nn.RNN(32, L, 2)", {L}, {"hidden_size": 6}),
        ("nn.LSTMCell(H, I)", {H, I}, {"input_size": 3, "hidden_size": 4}),
    ],
)
def test_formula_keeps_the_users_symbols(text, user, numbers):
    info = describe(text)
    formula, values = as_sympy(info["formula"]), info["values"]
    assert not set(values) & {str(s) for s in user}, "a user's symbol was given a value"
    # the user's symbols mean what the user wrote: the formula at the shown values is the count
    assert sympy.expand(formula.subs({SYMBOLS[k]: v for k, v in values.items()}) - info["object"].count) == 0
    # and at numbers for the user's symbols, it is torch's count
    name = text.split("(")[0].split(".")[-1]
    args = [a.strip() for a in text.split("(", 1)[1].rstrip(")").split(",")]
    at = {}
    torch_args, torch_kwargs = [], {}
    arg_names = ["input_size", "hidden_size", "num_layers"]
    for position, arg in enumerate(args):
        key, _, value = arg.partition("=") if "=" in arg else (arg_names[position], "", arg)
        value = value.strip()
        number = numbers[key.strip()] if value in SYMBOLS else int(value)
        if value in SYMBOLS:
            at[SYMBOLS[value]] = number
        if "=" in arg:
            torch_kwargs[key.strip()] = number
        else:
            torch_args.append(number)
    expected = torch_count(name, *torch_args, **torch_kwargs)
    assert formula.subs({SYMBOLS[k]: v for k, v in values.items()}).subs(at) == expected


def test_numbers_are_generalized_when_no_symbol_is_written():
    info = describe("nn.LSTM(32, 128, 2, bidirectional=True)")
    assert info["values"] == {"I": 32, "H": 128, "L": 2}
    assert as_sympy(info["formula"]).subs({I: 32, H: 128, L: 2}) == torch_count("LSTM", 32, 128, 2, bidirectional=True)


def test_keras_formula_keeps_the_users_symbols():
    pytest.importorskip("keras")
    info = describe("Bidirectional(LSTM(I))", keras=True, input_dim=28)
    assert "I" not in info["values"]
    assert as_sympy(info["formula"]).subs(I, 128) == 160768  # keras: Bidirectional(LSTM(128)) on 28 features


@pytest.mark.parametrize(
    "text,args,kwargs",
    [
        ("nn.LSTM(10, 20)", (10, 20), {}),
        ("nn.GRU(10, 20, 3, bidirectional=True)", (10, 20, 3), {"bidirectional": True}),
        ("nn.LSTM(16, 32, proj_size=8)", (16, 32), {"proj_size": 8}),
        ("nn.GRUCell(5, 7)", (5, 7), {}),
    ],
)
def test_the_command_line_and_explain_give_one_formula(text, args, kwargs):
    """Issue 26: for nn.LSTM(10, 20) the CLI printed 8*H**2*L - 4*H**2 + 4*H*I + 8*H*L (L=1) and
    derive.explain 4*H**2 + 4*H*I + 8*H: one letter rule now (num_layers=1, proj_size=0 stay numbers)."""
    import derive

    cls = text[3 : text.index("(")]
    shown = describe(text)
    shown["formula"] = as_sympy(shown["formula"])
    row = derive.explain(getattr(nn, cls)(*args, device="meta", **kwargs)).rows[0]
    assert sympy.expand(shown["formula"] - row.formula) == 0 and shown["values"] == row.values
    assert L not in shown["formula"].free_symbols or shown["values"].get("L", 1) != 1
    for scale in (1, 2, 3):  # the formula, at other sizes, is torch's count
        values = {k: v * scale for k, v in shown["values"].items()}
        sizes = dict(zip(("input_size", "hidden_size", "num_layers"), args, strict=False)) | kwargs
        sizes |= {
            n: values[c]
            for n, c in (("input_size", "I"), ("hidden_size", "H"), ("num_layers", "L"), ("proj_size", "P"))
            if c in values
        }
        expected = torch_count(cls, **sizes)
        assert shown["formula"].subs({SYMBOLS[k]: v for k, v in values.items()}) == expected
