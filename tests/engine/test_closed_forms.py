"""The kept closed forms (``derive/engine/closed_forms.json``): current (what SymPy derives from each recipe
today), equal to torch's count at the call's own sizes and at others, and what the command line shows.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from derive.engine import closed_forms, closed_forms_writer

ROOT = Path(__file__).resolve().parents[2]
torch = pytest.importorskip("torch")


def test_the_table_is_what_sympy_derives_today() -> None:
    """Fails when a recipe's derivation changed or a call was added (run scripts/update-closed-forms)."""
    committed = (ROOT / "derive" / "engine" / "closed_forms.json").read_text(encoding="utf-8")
    assert closed_forms_writer.render() == committed, "derive/engine/closed_forms.json is stale"


def _calls() -> list:
    return list(closed_forms_writer.calls())


@pytest.mark.parametrize("index", range(0, len(_calls()), 23))
def test_a_kept_form_counts_what_torch_builds(index: int) -> None:
    """At the call's sizes and at other sizes, the kept form's value is the count of the module torch builds."""
    from derive.engine.constructors import lookup

    name, args, kwargs = _calls()[index]
    formula = lookup("torch", name).make(*args, **kwargs).formula
    kept = closed_forms.table_form(formula)
    assert kept is not None, (name, args, kwargs)
    values = dict(formula.values)
    for scale in (1, 3):
        sizes = {k: v * scale for k, v in values.items()}
        at = {"I": "input_size", "H": "hidden_size", "L": "num_layers", "P": "proj_size"}
        positional = list(args)
        named = dict(kwargs)
        for letter, value in sizes.items():
            key = at[letter]
            if key in named:
                named[key] = value
            else:
                original = values[letter]
                positional[positional.index(original)] = value
        with torch.device("meta"):
            module = getattr(torch.nn, name)(*positional, **named)
        assert kept.at(sizes) == sum(p.numel() for p in module.parameters()), (name, positional, named)
        assert kept.to_sympy().subs({_symbol(k): v for k, v in sizes.items()}) == kept.at(sizes)


def _symbol(name: str):  # type: ignore[no-untyped-def]
    from derive._sympy import symbol

    return symbol(name)


def test_the_command_line_shows_the_kept_form_without_sympy() -> None:
    """``derive "nn.LSTM(32, 128, 2, bidirectional=True)" --json``: its formula from the table, as SymPy writes it."""
    import sympy

    from derive.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["nn.LSTM(32, 128, 2, bidirectional=True)", "--json"]) == 0
    data = json.loads(out.getvalue())
    I, H, L = (sympy.Symbol(n, integer=True, positive=True) for n in "IHL")
    expected = sympy.expand(24 * H**2 * L - 16 * H**2 + 8 * H * I + 16 * H * L)
    assert data["formula"] == str(expected) and data["formula_latex"] == sympy.latex(expected)
    assert data["values"] == {"I": 32, "H": 128, "L": 2} and data["total"] == 561152


def test_forms_outside_the_table_are_derived() -> None:
    """A recipe the table does not hold is derived with SymPy; a form that is no integer polynomial keeps no
    terms and is evaluated by SymPy; the writer writes the file it renders."""
    import sympy

    H = sympy.Symbol("H", integer=True, positive=True)
    halves = closed_forms.from_sympy(H**2 / 2 + H / 2)
    assert halves.terms == () and halves.at({"H": 4}) == 10
    with pytest.raises(ValueError, match="not an integer polynomial"):
        halves.to_sympy()
    assert closed_forms.from_sympy(sympy.Integer(7)).terms == ((7, ()),)
    from derive.engine.constructors import lookup

    unusual = lookup("torch", "LSTM").make(32, 128, 3, proj_size=16, bidirectional=True, dropout=0.5).formula
    assert closed_forms.table_form(unusual) is None  # dropout 0.5: not a kept recipe
    derived = closed_forms.closed_form(unusual)
    assert derived is not None and derived.at(dict(unusual.values)) == sum(
        p.numel()
        for p in torch.nn.LSTM(32, 128, 3, proj_size=16, bidirectional=True, dropout=0.5, device="meta").parameters()
    )
    assert closed_forms.recipe_key(type("F", (), {"build": len, "args": (), "kwargs": ()})()) is None


def test_the_writers_write_their_files(tmp_path: Path) -> None:
    assert closed_forms_writer.main([str(tmp_path / "forms.json")]) == 0
    assert (tmp_path / "forms.json").read_text(encoding="utf-8") == (
        ROOT / "derive" / "engine" / "closed_forms.json"
    ).read_text(encoding="utf-8")
