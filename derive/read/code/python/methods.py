"""Methods of Python's own values the reader runs: those of ``str``, ``list``, ``dict``, ``tuple``, ``set``.

Only the methods below, with arguments derive knows (``str.format`` with plain values and no
attribute lookups in its fields); a list's ``append`` keeps the very object appended (a module
appended twice is one module). Any other attribute of a plain value is an unknown value.
"""

from __future__ import annotations

import ast
import string
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from .frame import MAX_ITEMS, source_of
from .operators import sympy_value
from .values import Builtin, Class, Function, Partial, Ref, Unknown

if TYPE_CHECKING:
    from .core import Core

__all__ = ["plain_attr"]

_PLAIN = (int, float, str, bool, type(None))
_METHODS = {
    str: {"format", "join", "lower", "upper", "replace", "split", "strip", "lstrip", "rstrip", "startswith"}
    | {"endswith", "capitalize", "title", "count", "find", "isdigit", "zfill"},
    list: {"append", "extend", "insert", "pop", "index", "count", "copy", "reverse", "remove", "clear"},
    dict: {"get", "items", "keys", "values", "update", "pop", "setdefault", "copy"},
    tuple: {"index", "count"},
    set: {"add", "update", "discard", "copy"},
}
_formatter = string.Formatter()


def plain_attr(core: Core, value: Any, name: str, node: ast.AST) -> Any:
    """An attribute of a Python value: the methods of str, list, dict, tuple and set derive reads.

    Parameters
    ----------
    core : Interpreter
        The reader (for why a symbolic value is not known).
    value : object
    name : str
    node : ast.AST

    Returns
    -------
    object
        A :class:`~.values.Builtin` method, the attribute's value, or an :class:`~.values.Unknown`.
    """
    for kind, names in _METHODS.items():
        if isinstance(value, kind) and name in names:
            return Builtin(f"{kind.__name__}.{name}", _method(value, name))
    if isinstance(value, Partial) and name in ("func", "args", "keywords"):
        return {"func": value.func, "args": value.args, "keywords": dict(value.kwargs)}[name]
    if isinstance(value, (Function, Class)) and name == "__name__":
        return value.name
    if isinstance(value, Ref) and name == "__name__":
        return value.name
    return Unknown(
        source_of(node),
        core.why_unknown(value, node)
        if isinstance(value, sympy.Basic)
        else f"{type(value).__name__}.{name} is not read",
        getattr(node, "lineno", 0),
    )


def _method(value: Any, name: str) -> Any:
    bound = getattr(value, name)

    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if isinstance(value, str) and name == "format":
            if not all(isinstance(a, (*_PLAIN, sympy.Basic)) for a in (*args, *kwargs.values())):
                return Unknown(source_of(node), "formatting objects", getattr(node, "lineno", 0))
            if any(field and ("." in field or "[" in field) for _, field, _, _ in _formatter.parse(value) if field):
                return Unknown(
                    source_of(node), "format fields with attributes are not read", getattr(node, "lineno", 0)
                )
            args = [str(a) if isinstance(a, sympy.Basic) else a for a in args]
        for item in (*args, *kwargs.values()):
            if isinstance(item, Unknown) and not (
                isinstance(value, (list, dict)) and name in ("append", "insert", "update", "setdefault")
            ):
                return item.derived(source_of(node))
        if isinstance(value, dict):
            args = [sympy_value(a) for a in args]
        try:
            result = bound(*args, **kwargs)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            return Unknown(source_of(node), f"{name}() that Python refuses", getattr(node, "lineno", 0))
        if name in ("items", "keys", "values"):
            return list(result)
        if isinstance(value, list) and len(value) > MAX_ITEMS:
            raise reader.refuse(node, f"more than {MAX_ITEMS:,} items in one list")
        return result

    return call
