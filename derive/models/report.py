"""What :func:`derive.explain` returns: a per-layer table and the total, as text, HTML, LaTeX or JSON.

A :class:`Report` lists :class:`Row` s (layer name, type, parameters, closed form, output shape)
and, for checkpoints, the constructors that give exactly the tensors read. ``to_dict()`` is the
CLI's ``--json``: ``{"total": int, "layers": [{"name", "type", "params", "formula",
"output_shape"}, ...]}`` (``total`` a string when it is a closed form).
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..engine.symbols import plain
from .source import clean

__all__ = ["Row", "Report", "show", "jsonable"]


def show(value: Any) -> str:
    """A count, size or shape as text: ints with thousands separators, None as ``None``, ``...`` as ``...``.

    Parameters
    ----------
    value : Any

    Returns
    -------
    str

    Examples
    --------
    >>> show((None, 100, 64)), show(291840)
    ('(None, 100, 64)', '291,840')
    """
    if value is Ellipsis:
        return "..."
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(show(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) or (isinstance(value, sympy.Basic) and value.is_Integer):
        return f"{int(value):,}"
    return str(value)


def jsonable(value: Any) -> Any:
    """JSON-ready: SymPy integers as int, expressions as str, tuples as lists, ``...`` as ``"..."``.

    Parameters
    ----------
    value : Any

    Returns
    -------
    Any
    """
    if value is Ellipsis:
        return "..."
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else str(value)
    return value


@dataclass
class Row:
    """One layer (module) of a model.

    Attributes
    ----------
    name : str
        As the framework names it (``lstm_1``, ``encoder.0``).
    type : str
        The class name (``LSTM``, ``Dense``); ``?`` for a layer derive does not know.
    params : int, sympy.Expr or None
        Parameters, None when unknown (``--partial``).
    formula : sympy.Expr or None
        Closed form in letters, with ``values`` giving the letters.
    values : dict
        Letter -> value in ``formula``.
    output_shape : tuple, list or None
        Output shape where it follows from the input (Keras: without the batch axis shown as None).
    note : str
        "numeric, not derived", "unknown layer", ...
    tensors : list of (str, tuple)
        The weights' names and shapes.
    config : dict or None
        Inferred constructor arguments (checkpoints), unknowns as the string ``"unknown"``.
    constructor : str or None
        A constructor string that rebuilds these tensors.
    """

    name: str
    type: str
    params: Any
    formula: Any = None
    values: dict = field(default_factory=dict)
    output_shape: Any = None
    note: str = ""
    tensors: list = field(default_factory=list)
    config: dict | None = None
    constructor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data.

        Returns
        -------
        dict
        """
        data = {
            "name": self.name,
            "type": self.type,
            "params": jsonable(self.params),
            "formula": None if self.formula is None else str(self.formula),
            "values": jsonable(self.values),
            "output_shape": jsonable(self.output_shape),
        }
        if self.note:
            data["note"] = self.note
        if self.config is not None:
            data["config"] = jsonable(self.config)
        if self.constructor is not None:
            data["constructor"] = self.constructor
        return data


@dataclass
class Report:
    """A model explained: its layers, total, and what could not be known.

    Attributes
    ----------
    framework : str
        ``"torch"``, ``"keras"`` or ``"onnx"``.
    rows : list of Row
    title : str
    input_shape : tuple or None
    notes : list of str
        Caveats printed under the table (unknown layers, what shapes cannot tell).
    constructors : list of str
        For checkpoints: the constructors that rebuild the recurrent tensors.
    """

    framework: str
    rows: list[Row]
    title: str = ""
    input_shape: Any = None
    notes: list[str] = field(default_factory=list)
    constructors: list[str] = field(default_factory=list)

    @property
    def layers(self) -> list[Row]:
        """The rows (one per layer)."""
        return self.rows

    @property
    def total(self) -> Any:
        """Sum of the known layers' parameters (an int, or a closed form with symbolic sizes)."""
        known = [row.params for row in self.rows if row.params is not None]
        if all(type(p) is int for p in known):  # the usual case: plain ints, summed without SymPy
            return sum(known)
        total = sympy.Integer(0)
        for params in known:
            total += params
        return plain(sympy.expand(total))

    @property
    def recurrent(self) -> list[Row]:
        """The rows with an inferred constructor configuration."""
        return [r for r in self.rows if r.config is not None]

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``--json``.

        Returns
        -------
        dict
        """
        data: dict[str, Any] = {
            "framework": self.framework,
            "total": jsonable(self.total),
            "layers": [r.to_dict() for r in self.rows],
        }
        if self.input_shape is not None:
            data["input_shape"] = jsonable(self.input_shape)
        if self.constructors:
            data["constructors"] = list(self.constructors)
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def text(self, width: int = 120) -> str:
        """The table as plain text (rich, no colour codes).

        Parameters
        ----------
        width : int
            Characters per line.

        Returns
        -------
        str
        """
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        buffer = io.StringIO()
        console = Console(file=buffer, width=width, color_system=None, highlight=False, soft_wrap=False)
        table = Table(title=Text(clean(self.title, 200)) if self.title else None, title_justify="left")
        for column, justify in (
            ("layer", "left"),
            ("type", "left"),
            ("output shape", "left"),
            ("parameters", "right"),
            ("formula", "left"),
        ):
            table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for row in self.rows:
            formula = ""
            if row.formula is not None and not (isinstance(row.formula, sympy.Basic) and row.formula.is_Integer):
                values = ", ".join(f"{k}={show(v)}" for k, v in row.values.items())
                formula = f"{row.formula}" + (f"  ({values})" if values else "")
            if row.note:
                formula = (formula + "  " if formula else "") + f"[{row.note}]"
            table.add_row(
                Text(clean(row.name, 60)),
                Text(clean(row.type, 40)),
                Text(show(row.output_shape) if row.output_shape is not None else ""),
                Text("?" if row.params is None else show(row.params)),
                Text(clean(formula, 300)),
            )
        table.add_section()
        table.add_row(Text("total"), Text(""), Text(""), Text(show(self.total)), Text(""))
        console.print(table)
        for constructor in self.constructors:
            console.print(Text(clean(constructor, 300)))
        for note in self.notes:
            console.print(Text("note: " + clean(note, 400)))
        return buffer.getvalue()

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(r.name)}</td><td>{html.escape(r.type)}</td>"
            f"<td>{html.escape(show(r.output_shape) if r.output_shape is not None else '')}</td>"
            f"<td style='text-align:right'>{html.escape('?' if r.params is None else show(r.params))}</td>"
            f"<td>{html.escape('' if r.formula is None else str(r.formula))}</td></tr>"
            for r in self.rows
        )
        return (
            "<table><thead><tr><th>layer</th><th>type</th><th>output shape</th><th>parameters</th>"
            f"<th>formula</th></tr></thead><tbody>{cells}<tr><td><b>total</b></td><td></td><td></td>"
            f"<td style='text-align:right'><b>{html.escape(show(self.total))}</b></td><td></td></tr>"
            "</tbody></table>"
        )

    def _repr_latex_(self) -> str:
        total = self.total
        terms = [r.params for r in self.rows if r.params not in (None, 0)]

        def number(value: Any) -> str:
            return f"{int(value):,}".replace(",", "{,}")

        if isinstance(total, int):
            if len(terms) > 1 and all(isinstance(t, int) for t in terms):
                return "$N = " + " + ".join(number(t) for t in terms) + f" = {number(total)}$"
            return f"$N = {number(total)}$"
        return f"$N = {sympy.latex(total)}$"
