"""How results show in a notebook: LaTeX for the count, an HTML table for the tensors.

Jupyter calls ``_repr_latex_`` and ``_repr_html_`` on the last value of a cell;
:class:`derive.engine.stack.Stack` forwards both here.

* :func:`latex_repr` — with every size an int: the per-layer counts summed to the
  total, ``N = 140{,}288 + 420{,}864 = 561{,}152``; with a symbolic size: the closed
  form, factored, ``N = 4 H (I + H + 2) + ...``.
* :func:`html_repr` — a table of the framework's tensors (name, shape, parameters)
  with a total row; with a symbolic number of layers, the tensors of layer 0 and of
  any layer ``k >= 1`` (the closed form holds for every L >= 1).
"""

from __future__ import annotations

import html

from .._sympy import sympy
from ..analysis import solving as _solving
from ..engine import stack as _stack
from ..engine.stack import LISTED_LAYERS, Stack, elided_layers, listed_rows
from ..engine.symbols import Size, plain

__all__ = [
    "latex_repr",
    "html_repr",
    "solution_latex",
    "latex_number",
    "text",
    "tensor_rows",
    "elided_layers",
    "LISTED_LAYERS",
]


def latex_number(value: Size) -> str:
    """An integer in LaTeX with thin-space-free thousands groups: ``561{,}152``.

    Parameters
    ----------
    value : int or sympy.Integer

    Returns
    -------
    str
    """
    return f"{int(value):,}".replace(",", "{,}")


def text(value: Size | tuple[Size, ...], grouped: bool = True) -> str:
    """A number or SymPy expression as plain text: a count with thousands separators, a shape as a
    tuple of plain dimensions (``(4000, 1000)``, as torch prints a size).

    Parameters
    ----------
    value : int, sympy.Expr or tuple of them
        A count, a dimension or a shape.
    grouped : bool, default True
        Thousands separators in an int (never inside a shape).

    Returns
    -------
    str

    Examples
    --------
    >>> text(561152), text((4000, 1000))
    ('561,152', '(4000, 1000)')
    """
    if isinstance(value, tuple):
        inner = ", ".join(text(v, False) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, int) or (isinstance(value, sympy.Basic) and value.is_Integer):
        return f"{int(value):,}" if grouped else str(int(value))
    return str(value)


def _check_stack(stack: object) -> None:
    if not isinstance(stack, _stack.Stack):
        raise TypeError(f"stack must be a derive stack (e.g. derive.torch.LSTM(32, 128)), got {type(stack).__name__}")


def _name(stack: object) -> str:
    return repr(stack) if type(stack).__repr__ is not object.__repr__ else type(stack).__name__


def _tex_text(s: str) -> str:
    """Plain text for ``\\texttt{}``: escape LaTeX specials."""
    out = []
    for ch in s:
        if ch in "_{}&%$#":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append(r"\backslash ")
        else:
            out.append(ch)
    return "".join(out)


def latex_repr(stack: Stack) -> str:
    """The count of ``stack`` as an inline-display LaTeX string ``$\\displaystyle ...$``.

    Parameters
    ----------
    stack : derive.engine.stack.Stack
        Any stack (or object with ``count``, ``num_layers`` and ``layer_count(layer)``).

    Returns
    -------
    str
        ``$\\displaystyle \\texttt{LSTM(32, 128, ...)}:\\ N = a + b = total$`` for int sizes
        (one term per layer), ``... N = <factored closed form>`` otherwise.

    Raises
    ------
    TypeError
        ``stack`` is not a :class:`derive.engine.stack.Stack`.
    """
    _check_stack(stack)
    count = stack.count
    label = rf"\texttt{{{_tex_text(_name(stack))}}}:\quad "
    if isinstance(count, int):
        layers = getattr(stack, "num_layers", 1)
        terms = ""
        if isinstance(layers, int) and 1 < layers <= 8:
            parts = [latex_number(stack.layer_count(k)) for k in range(layers)]
            terms = " + ".join(parts) + " = "
        return f"$\\displaystyle {label}N = {terms}{latex_number(count)}$"
    return f"$\\displaystyle {label}N = {sympy.latex(sympy.factor(count))}$"


def tensor_rows(stack: Stack) -> tuple[list[tuple[str, str, str]], str | None]:
    """(name, shape, parameters) as text for every tensor, and a note when layers are symbolic.

    Parameters
    ----------
    stack : derive.engine.stack.Stack
        Any adapter object (``derive.torch.LSTM(...)``, ...).

    Returns
    -------
    tuple of (list of (str, str, str), str or None)
        The rows, and the note (None when every tensor is listed). A stack of more than
        :data:`LISTED_LAYERS` int layers lists layers 0, 1 and the last, and one row (empty shape,
        their parameters) for the layers in between.

    Raises
    ------
    TypeError
        ``stack`` is not a :class:`derive.engine.stack.Stack`.
    """
    _check_stack(stack)
    rows, note = listed_rows(stack)
    return [
        (name, "" if shape is None else text(tuple(plain(d) for d in shape)), text(plain(numel)))
        for name, shape, numel in rows
    ], note


def html_repr(stack: Stack) -> str:
    """The tensors of ``stack`` as a small HTML table: name, shape, parameters, and the total.

    Parameters
    ----------
    stack : derive.engine.stack.Stack

    Returns
    -------
    str
        A ``<table>`` (HTML-escaped text; no scripts, no styles fetched).

    Raises
    ------
    TypeError
        ``stack`` is not a :class:`derive.engine.stack.Stack`.
    """
    _check_stack(stack)
    rows, note = tensor_rows(stack)
    caption = html.escape(_name(stack)) + (f" — {html.escape(note)}" if note else "")
    body = "".join(
        f"<tr><td><code>{html.escape(n)}</code></td><td>{html.escape(s)}</td>"
        f'<td style="text-align:right">{html.escape(c)}</td></tr>'
        for n, s, c in rows
    )
    total = html.escape(text(plain(stack.count)))
    return (
        f'<table class="derive-tensors"><caption>{caption}</caption>'
        "<thead><tr><th>name</th><th>shape</th><th>parameters</th></tr></thead>"
        f"<tbody>{body}</tbody>"
        f'<tfoot><tr><th colspan="2">total</th><th style="text-align:right">{total}</th></tr></tfoot>'
        "</table>"
    )


def solution_latex(solution: _solving.Solution) -> str:
    """A :class:`derive.analysis.solving.Solution` as LaTeX: the equation solved and the size found.

    Parameters
    ----------
    solution : derive.analysis.solving.Solution

    Returns
    -------
    str
    """
    if solution.root is None:
        return (
            f"$n = {solution.n}:\\ N(n) = {latex_number(solution.count)} \\le {latex_number(solution.budget)} "
            f"< N(n + 1) = {latex_number(solution.next_count)}$"
        )
    return (
        f"$\\displaystyle {sympy.latex(solution.polynomial)} = {latex_number(solution.budget)} \\Rightarrow "
        f"x = {sympy.latex(solution.root)} \\approx {sympy.N(solution.root, 8)},\\ n = {solution.n}$"
    )


_stack.FORMATTERS["latex"] = latex_repr
_stack.FORMATTERS["html"] = html_repr
_solving.FORMATTERS["latex"] = solution_latex
