"""Closed forms as text, LaTeX and integer terms — the ones users ask most often derived once with SymPy
and kept, so that a count with its formula needs no SymPy.

A :class:`ClosedForm` is what a formula is shown as: its text (SymPy's ``str`` of the expanded form),
its LaTeX (``sympy.latex``) and its terms, ``coefficient · Π letter^power``, which evaluate at int
values with plain integer arithmetic (:meth:`ClosedForm.at`). :func:`closed_form` gives a
:class:`derive.tree.Formula`'s: from the table (``derive/engine/closed_forms.json``, written by
``scripts/update-closed-forms`` from SymPy's own derivation of each recipe
(:mod:`derive.engine.closed_forms_writer`), and checked against it by ``tests/engine/test_closed_forms.py``) when its recipe is there, else derived with SymPy (imported
then). A recipe is in the table by its key (:func:`recipe_key`): the builder's name and the call with
letters — never the int values, on which a closed form does not depend.

>>> form = ClosedForm.parse_terms("24*H**2*L - 16*H**2 + 8*H*I + 16*H*L", "", ((24, (("H", 2), ("L", 1))),))
>>> form.at({"H": 128, "L": 2})
786432
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["ClosedForm", "closed_form", "table_form", "recipe_key", "from_sympy"]

Terms = tuple[tuple[int, tuple[tuple[str, int], ...]], ...]


@dataclass(frozen=True)
class ClosedForm:
    """A closed form as shown: text, LaTeX, and its integer-polynomial terms.

    Attributes
    ----------
    text : str
        SymPy's ``str`` of the expanded expression (``"24*H**2*L - 16*H**2 + 8*H*I + 16*H*L"``).
    latex : str
        ``sympy.latex`` of it.
    terms : tuple of (int, tuple of (str, int))
        ``coefficient, ((letter, power), ...)`` per term; empty for a form that is not an integer
        polynomial (then :meth:`at` needs SymPy).
    """

    text: str
    latex: str
    terms: Terms

    @classmethod
    def parse_terms(cls, text: str, latex: str, terms: Terms) -> ClosedForm:
        """A form from its parts (as the table stores them).

        Parameters
        ----------
        text, latex : str
        terms : tuple

        Returns
        -------
        ClosedForm
        """
        return cls(text, latex, tuple((int(c), tuple((str(n), int(p)) for n, p in m)) for c, m in terms))

    @property
    def letters(self) -> frozenset[str]:
        """The letters it is written in."""
        return frozenset(n for _, monomial in self.terms for n, _ in monomial)

    def at(self, values: dict[str, int]) -> int:
        """Its value at int ``values`` of its letters (integer arithmetic; SymPy only for a non-polynomial form).

        Parameters
        ----------
        values : dict of str -> int

        Returns
        -------
        int

        Raises
        ------
        KeyError
            A letter without a value.
        """
        if not self.terms and self.text:
            import sympy

            expr = sympy.sympify(self.text, locals={n: sympy.Symbol(n, integer=True, positive=True) for n in values})
            return int(expr.subs({sympy.Symbol(n, integer=True, positive=True): v for n, v in values.items()}))
        total = 0
        for coefficient, monomial in self.terms:
            term = coefficient
            for name, power in monomial:
                term *= values[name] ** power
            total += term
        return total

    def to_sympy(self) -> Any:
        """The form as a SymPy expression in derive's size symbols (SymPy imported), built from its terms.

        Returns
        -------
        sympy.Expr or int

        Raises
        ------
        ValueError
            A form that is no integer polynomial (it keeps no terms).
        """
        from .._sympy import symbol

        if not self.terms:
            raise ValueError(f"{self.text}: not an integer polynomial; derive it with SymPy")
        total: Any = 0
        for coefficient, monomial in self.terms:
            term: Any = coefficient
            for name, power in monomial:
                term = term * symbol(name) ** power
            total = total + term
        return total

    def __str__(self) -> str:
        return self.text


def from_sympy(expr: Any) -> ClosedForm:
    """The form of a SymPy expression (expanded; its terms when it is an integer polynomial).

    Parameters
    ----------
    expr : sympy.Expr or int

    Returns
    -------
    ClosedForm
    """
    import sympy

    expr = sympy.expand(expr)
    terms: Terms = ()
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    try:
        poly = sympy.Poly(expr, *symbols) if symbols else None
    except sympy.PolynomialError:
        poly = None
    if poly is not None and all(c.is_Integer for c in poly.coeffs()):
        terms = tuple(
            (int(c), tuple((s.name, int(p)) for s, p in zip(symbols, powers) if p))
            for powers, c in zip(poly.monoms(), poly.coeffs())
        )
    elif not symbols and expr.is_Integer:
        terms = ((int(expr), ()),)
    return ClosedForm(str(expr), sympy.latex(expr), terms)


def recipe_key(formula: Any) -> str | None:
    """The table's key of a :class:`derive.tree.Formula`: its builder's ``cache_key`` and the call with
    letters, or None when the builder names no stable key (a closure, a one-off).

    Parameters
    ----------
    formula : derive.tree.Formula

    Returns
    -------
    str or None
    """
    name = getattr(formula.build, "cache_key", None)
    if not isinstance(name, str):
        return None
    return repr((name, formula.args, formula.kwargs))


@functools.cache
def _table() -> dict[str, dict[str, Any]]:
    path = resources.files(__package__).joinpath("closed_forms.json")
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {entry["key"]: entry for entry in data.get("forms", ())}


def table_form(formula: Any) -> ClosedForm | None:
    """A :class:`derive.tree.Formula`'s closed form from the table, or None where its recipe is not there
    (nothing derived, no SymPy imported).

    Parameters
    ----------
    formula : derive.tree.Formula

    Returns
    -------
    ClosedForm or None
    """
    key = recipe_key(formula)
    entry = _table().get(key) if key is not None else None
    return None if entry is None else ClosedForm.parse_terms(entry["text"], entry["latex"], entry["terms"])


def closed_form(formula: Any) -> ClosedForm | None:
    """A :class:`derive.tree.Formula`'s closed form: from the table when its recipe is there (no SymPy),
    else derived (SymPy imported); None where the recipe has none.

    Parameters
    ----------
    formula : derive.tree.Formula

    Returns
    -------
    ClosedForm or None
    """
    form = table_form(formula)
    if form is not None:
        return form
    expr = formula.expr
    return None if expr is None else from_sympy(expr)
