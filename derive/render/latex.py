"""LaTeX for the cells' equations, written the way papers write them.

SymPy's own printer sorts the terms of a sum and prints element-wise functions
as maps; this printer keeps the order in which a cell's equations were written,
prints element-wise functions as ``\\sigma(\\cdot)``, ``\\tanh(\\cdot)`` and
``\\operatorname{ReLU}(\\cdot)`` and the element-wise product as ``\\odot``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sympy.printing.latex import LatexPrinter

from .._sympy import sympy
from ..engine.equations import Cell
from ..engine.symbols import Size
from ..engine.validate import shown

__all__ = ["latex", "equations_latex", "shape_latex", "names_latex"]

_FUNCTIONS = {
    "sigma": r"\sigma",
    "tanh": r"\tanh",
    "ReLU": r"\operatorname{ReLU}",
    "exp": r"\exp",
    "SiLU": r"\operatorname{SiLU}",
    "GN": r"\operatorname{GN}",
}


class _PaperPrinter(LatexPrinter):
    def _print_ElementwiseApplyFunction(self, expr: sympy.ElementwiseApplyFunction) -> str:
        f = expr.function
        name = f.expr.func.__name__ if isinstance(f, sympy.Lambda) else getattr(f, "__name__", str(f))
        if name == "maxabs1":  # the mLSTM's normaliser bound max(|n^T q|, 1)
            return rf"\max\left(\left|{self._print(expr.expr)}\right|, 1\right)"
        return rf"{_FUNCTIONS.get(name, name)}\left({self._print(expr.expr)}\right)"

    def _print_MatAdd(self, expr: sympy.MatAdd) -> str:
        out = ""
        for k, term in enumerate(expr.args):
            negative = isinstance(term, sympy.MatMul) and term.args[0] == -1
            body = self._print(sympy.MatMul(*term.args[1:]) if negative else term)
            out += (" - " if negative else (" + " if k else "")) + body
        return out

    def _print_HadamardProduct(self, expr: sympy.HadamardProduct) -> str:
        parts = []
        for arg in expr.args:
            text = self._print(arg)
            parts.append(rf"\left({text}\right)" if isinstance(arg, sympy.MatAdd) else text)
        return r" \odot ".join(parts)

    def _print_MatMul(self, expr: sympy.MatMul) -> str:
        parts = []
        for arg in expr.args:
            text = self._print(arg)
            parts.append(rf"\left({text}\right)" if isinstance(arg, (sympy.MatAdd, sympy.HadamardProduct)) else text)
        return " ".join(parts)

    def _print_OneMatrix(self, expr: sympy.OneMatrix) -> str:
        return "1"


#: Marks around a long sum that a product puts in parentheses (replaced in :func:`names_latex`).
_OPEN, _CLOSE = "\x00", "\x01"
#: A sum whose LaTeX is longer than this is set in ``\bigl( \bigr)`` inside a product.
_LONG = 50


class _NamesPrinter(LatexPrinter):
    """Multi-letter names upright and whole, a visible product between them, long sums breakable."""

    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:
        name = expr.name
        if len(name) == 1:
            return super()._print_Symbol(expr, style)
        return r"\mathrm{" + name.replace("_", r"\_") + "}"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        named = any(isinstance(f, sympy.Symbol) and len(f.name) > 1 for f in expr.free_symbols)
        saved = self._settings["mul_symbol_latex"]
        self._settings["mul_symbol_latex"] = r" \cdot " if named else saved
        try:
            return super()._print_Mul(expr)
        finally:
            self._settings["mul_symbol_latex"] = saved

    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> str:
        text = super()._print_Add(expr, order)
        return _OPEN + text + _CLOSE if len(text) > _LONG else text


def names_latex(expr: sympy.Basic) -> str:
    r"""LaTeX of a closed form written in a config's own names (``hidden_size``, ``num_hidden_layers``).

    SymPy would set ``hidden_size`` as :math:`hidden_{size}` and a product of two names as one run of
    italic letters. Here every name longer than one letter is upright and whole
    (``\mathrm{hidden\_size}``), a product that holds one is written with ``\cdot``, and a long sum
    inside a product is put in ``\bigl( \bigr)`` (``\Bigl( \Bigr)`` around a fraction) instead of
    ``\left( \right)``: its ``+`` signs stay at the top level, where KaTeX can break an
    inline formula across lines. One-letter symbols print as :func:`sympy.latex` prints them.

    Parameters
    ----------
    expr : sympy.Basic

    Returns
    -------
    str
        LaTeX without ``$`` delimiters.

    Raises
    ------
    TypeError
        ``expr`` is not a SymPy object or an int (strings are never parsed).

    Examples
    --------
    >>> import sympy
    >>> h, e = sympy.symbols("hidden_size expand", positive=True)
    >>> names_latex(2 * h * e)
    '2 \\cdot \\mathrm{expand} \\cdot \\mathrm{hidden\\_size}'
    """
    if isinstance(expr, bool) or not isinstance(expr, (sympy.Basic, int)):
        raise TypeError(f"expr must be a SymPy expression or an int, got {type(expr).__name__}")
    text = _NamesPrinter().doprint(expr)

    def parens(match: re.Match) -> str:
        body = match.group(1)
        big = "Big" if r"\frac" in body else "big"
        return rf"\{big}l({body}\{big}r)"

    while _OPEN in text:
        inner = re.compile(r"\\left\(" + _OPEN + "([^" + _OPEN + _CLOSE + "]*)" + _CLOSE + r"\\right\)")
        text, found = inner.subn(parens, text)
        if not found:
            break
    return text.replace(_OPEN, "").replace(_CLOSE, "")


def latex(expr: sympy.Basic) -> str:
    """LaTeX of a matrix expression from a cell, or of any SymPy expression.

    Parameters
    ----------
    expr : sympy.Basic
        E.g. the right-hand side of one of :attr:`derive.cells.Cell.equations`.

    Returns
    -------
    str
        LaTeX without ``$`` delimiters.

    Raises
    ------
    TypeError
        ``expr`` is not a SymPy object or an int (strings are never parsed).
    """
    if isinstance(expr, bool) or not isinstance(expr, (sympy.Basic, int)):
        raise TypeError(f"expr must be a SymPy expression or an int, got {type(expr).__name__}")
    return _PaperPrinter().doprint(expr)


def equations_latex(cell: Cell) -> str:
    """The cell's update equations as one ``aligned`` block (without ``$$`` delimiters).

    Parameters
    ----------
    cell : Cell

    Returns
    -------
    str

    Raises
    ------
    TypeError
        ``cell`` is not a :class:`Cell`.
    """
    if not isinstance(cell, Cell):
        raise TypeError(f"cell must be a derive Cell (e.g. derive.cells.lstm(I, H)), got {type(cell).__name__}")
    rows = [
        rf"{latex(lhs)} &= {latex(rhs)}"
        + ("" if cell.times(lhs) == 1 else rf" \quad \text{{(each of the }} {latex(cell.times(lhs))} \text{{ heads)}}")
        for lhs, rhs in cell.equations
    ]
    return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"


def shape_latex(shape: Sequence[Size]) -> str:
    """A shape tuple as ``(4H, I)`` in LaTeX, ``(4H,)`` for a vector.

    Parameters
    ----------
    shape : tuple of int or sympy.Expr
        Sizes of the axes, in scalar parameters.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        ``shape`` is not a tuple of ints and SymPy expressions.
    """
    if not isinstance(shape, tuple) or any(isinstance(d, bool) or not isinstance(d, (int, sympy.Expr)) for d in shape):
        raise TypeError(f"shape must be a tuple of ints or SymPy expressions, got {shown(shape)}")
    dims = [sympy.latex(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
