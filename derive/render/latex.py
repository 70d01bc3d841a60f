"""LaTeX for the cells' equations, written the way papers write them.

SymPy's own printer sorts the terms of a sum and prints element-wise functions
as maps; this printer keeps the order in which a cell's equations were written,
prints element-wise functions as ``\\sigma(\\cdot)``, ``\\tanh(\\cdot)`` and
``\\operatorname{ReLU}(\\cdot)`` and the element-wise product as ``\\odot``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy import HadamardProduct, MatAdd, MatMul, OneMatrix
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.printing.latex import LatexPrinter

from ..engine.equations import Cell
from ..engine.symbols import Size
from ..engine.validate import shown

__all__ = ["latex", "equations_latex", "shape_latex"]

_FUNCTIONS = {
    "sigma": r"\sigma",
    "tanh": r"\tanh",
    "ReLU": r"\operatorname{ReLU}",
    "exp": r"\exp",
    "SiLU": r"\operatorname{SiLU}",
    "GN": r"\operatorname{GN}",
}


class _PaperPrinter(LatexPrinter):
    def _print_ElementwiseApplyFunction(self, expr: ElementwiseApplyFunction) -> str:
        f = expr.function
        name = f.expr.func.__name__ if isinstance(f, sympy.Lambda) else getattr(f, "__name__", str(f))
        if name == "maxabs1":  # the mLSTM's normaliser bound max(|n^T q|, 1)
            return rf"\max\left(\left|{self._print(expr.expr)}\right|, 1\right)"
        return rf"{_FUNCTIONS.get(name, name)}\left({self._print(expr.expr)}\right)"

    def _print_MatAdd(self, expr: MatAdd) -> str:
        out = ""
        for k, term in enumerate(expr.args):
            negative = isinstance(term, MatMul) and term.args[0] == -1
            body = self._print(MatMul(*term.args[1:]) if negative else term)
            out += (" - " if negative else (" + " if k else "")) + body
        return out

    def _print_HadamardProduct(self, expr: HadamardProduct) -> str:
        parts = []
        for arg in expr.args:
            text = self._print(arg)
            parts.append(rf"\left({text}\right)" if isinstance(arg, MatAdd) else text)
        return r" \odot ".join(parts)

    def _print_MatMul(self, expr: MatMul) -> str:
        parts = []
        for arg in expr.args:
            text = self._print(arg)
            parts.append(rf"\left({text}\right)" if isinstance(arg, (MatAdd, HadamardProduct)) else text)
        return " ".join(parts)

    def _print_OneMatrix(self, expr: OneMatrix) -> str:
        return "1"


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
