"""One row of a per-layer table, and the rows of a module tree.

:func:`rows` walks a :class:`derive.tree.Module` into :class:`Row` s (layer name, type, parameters,
closed form, output shape, tensors) in the framework's order; :func:`show` and :func:`jsonable`
turn counts, sizes and shapes into text and JSON.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .._sympy import sympy
from ..engine.symbols import plain
from ..tree import MAX_LISTED, Formula, Module, count, named_parameters

__all__ = ["Row", "rows", "show", "jsonable"]


def show(value: Any, grouped: bool = True) -> str:
    """A count, size or shape as text: a count with thousands separators, a shape's dimensions
    without (``(1000, 64)``, as torch prints a size), None as ``None``, ``...`` as ``...``.

    Parameters
    ----------
    value : Any
    grouped : bool, default True
        Thousands separators in an int (not inside a shape, a tuple or list).

    Returns
    -------
    str

    Examples
    --------
    >>> show((None, 1000, 64)), show(291840)
    ('(None, 1000, 64)', '291,840')
    """
    if value is Ellipsis:
        return "..."
    if isinstance(value, list):
        return "[" + ", ".join(show(v, False) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(show(v, False) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) or (isinstance(value, sympy.Basic) and value.is_Integer):
        return f"{int(value):,}" if grouped else str(int(value))
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


class Row:
    """One layer (module) of a model.

    Attributes
    ----------
    name : str
        As the framework names it (``lstm_1``, ``encoder.0``).
    type : str
        The class name (``LSTM``, ``Dense``); ``?`` for a layer derive does not know.
    params : int, sympy.Expr or None
        Parameters, None when unknown (not counted: the total is then partial).
    formula : sympy.Expr or None
        Closed form in letters, with ``values`` giving the letters; given as a
        :class:`derive.tree.Formula`, it is derived when first read.
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

    def __init__(
        self,
        name: str,
        type: str,
        params: Any,
        formula: Any = None,
        values: dict | None = None,
        output_shape: Any = None,
        note: str = "",
        tensors: list | None = None,
        config: dict | None = None,
        constructor: str | None = None,
    ) -> None:
        self.name = name
        self.type = type
        self.params = params
        self._formula = formula
        self._values = dict(values or {})
        self.output_shape = output_shape
        self.note = note
        self.tensors = list(tensors or [])
        self.config = config
        self.constructor = constructor

    @property
    def formula(self) -> Any:
        """The closed form (derived on first read when given as a :class:`derive.tree.Formula`)."""
        if isinstance(self._formula, Formula):
            return self._formula.expr
        return self._formula

    @formula.setter
    def formula(self, value: Any) -> None:
        self._formula = value

    @property
    def values(self) -> dict:
        """Letter -> value in :attr:`formula`."""
        if isinstance(self._formula, Formula) and not self._values:
            return dict(self._formula.values)
        return self._values

    @values.setter
    def values(self, value: dict) -> None:
        self._values = dict(value)

    def __repr__(self) -> str:
        return f"Row({self.name!r}, {self.type!r}, {self.params!r})"

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data.

        Returns
        -------
        dict
        """
        formula = self.formula
        data = {
            "name": self.name,
            "type": self.type,
            "params": jsonable(self.params),
            "formula": None if formula is None else str(formula),
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


def rows(module: Module, prefix: str = "") -> list[Row]:
    """The per-layer rows of a module tree, in the framework's order.

    A module without children, or one marked :attr:`~derive.tree.Module.row`, is one row (its whole
    count); a module with children adds a row for its own tensors only if it has any, and its
    children's rows. A repeated module whose copies cannot be listed (a symbolic or huge
    ``repeat``) is one row for all its copies. A part that is not counted is a row with no count.

    Parameters
    ----------
    module : derive.tree.Module
    prefix : str
        The path of ``module``'s parent.

    Returns
    -------
    list of Row
    """
    out: list[Row] = []
    _rows_of(module, prefix, ".", out, root=True)
    return out


def _rows_of(module: Module, prefix: str, sep: str, out: list[Row], root: bool = False) -> None:
    repeat = plain(module.repeat)
    if repeat != 1 and (not isinstance(repeat, int) or repeat > MAX_LISTED):
        out.append(_row(_path(prefix, sep, module.name), module, count(module)))
        return
    copies = [None] if repeat == 1 and "{k}" not in module.name else range(module.start, module.start + repeat)
    template = module
    for k in copies:
        if k is not None:
            module = template.replace(
                name=_fill(template.name, k),
                params=tuple(replace(p, name=_fill(p.name, k)) for p in template.params),
                repeat=1,
                start=0,
            )
        path = _path(prefix, sep, module.name)
        if module.row or not module.children or not module.counted:
            out.append(_row(path, module, count(module) if module.counted else None))
            continue
        own = [p for p in module.params if p.counted]
        if own:
            out.append(
                Row(
                    path or module.type,
                    module.type,
                    module.own_count,
                    note=f"{module.note} (its own parameters)" if module.note else "its own parameters",
                    tensors=[(_path(path, module.sep, p.name), p.shape) for p in own],
                )
            )
        for child in module.children:
            _rows_of(child, path, module.sep, out)


def _row(path: str, module: Module, params: Any) -> Row:
    note = module.note or ("" if module.counted else "not counted")
    if not module.children and module.repeat == 1 and module.counted:  # the usual leaf: its own tensors
        tensors = [(_path(path, module.sep, p.name), p.shape) for p in module.params if p.counted]
    else:
        try:
            tensors = [
                (_path(path, module.sep, name), p.shape) for name, p in named_parameters(module.replace(name=""))
            ]
        except ValueError:
            tensors = []
    return Row(
        path or module.type,
        module.type,
        params,
        module.formula,
        output_shape=module.output_shape,
        note=note,
        tensors=tensors,
    )


def _path(prefix: str, sep: str, name: str) -> str:
    if not prefix:
        return name
    return f"{prefix}{sep}{name}" if name else prefix


def _fill(name: str, k: int | None) -> str:
    return name if k is None else name.replace("{k}", str(k))
