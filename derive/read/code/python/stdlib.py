"""The standard library's functions the reader evaluates itself: ``math``, ``numpy``'s arithmetic,
``copy``, ``functools.partial``, ``collections.OrderedDict``, ``dataclasses``, ``types.SimpleNamespace``,
``argparse.Namespace``.

``math.ceil(n / 2)`` of a size without a value is SymPy's ``ceiling``; ``copy.deepcopy`` of a
module makes new parameters (its copy is counted again); ``dataclasses.dataclass`` marks a class
whose fields the reader binds. Any other function of a package is the framework's to read, or an
unknown value.
"""

from __future__ import annotations

import ast
import copy
import math
from typing import Any

from ...._sympy import sympy
from .builtins import _dict, _numbers, _python, _unknown
from .values import Builtin, Class, FieldSpec, Instance, Ordered, Partial, Unknown

__all__ = ["call_stdlib", "stdlib_value", "FREE_MODULES"]

#: Modules a snippet may use without importing them.
FREE_MODULES = {"math": "math", "np": "numpy", "numpy": "numpy", "copy": "copy", "functools": "functools"}


def _symbolic(fn: Any, sym: Any) -> Any:
    """A math function: Python's for numbers, SymPy's for sizes without a value."""
    plain = _python(fn)

    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if (
            args
            and all(isinstance(a, (int, float, sympy.Expr)) for a in args)
            and any(isinstance(a, sympy.Basic) for a in args)
        ):
            result = sym(*args)
            return int(result) if getattr(result, "is_Integer", False) else result
        return plain(reader, args, kwargs, node)

    return call


def _deepcopy(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return copy.deepcopy(args[0])


def _shallow(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    value = args[0]
    if isinstance(value, (list, dict, set)):
        return copy.copy(value)
    return copy.deepcopy(value) if reader.semantics.owns(value) else value


def _partial(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return Partial(args[0], tuple(args[1:]), tuple(kwargs.items()))


def _namespace(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return Instance(None, dict(kwargs))


def _dataclass(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    if args and isinstance(args[0], Class):
        args[0].dataclass = True
        return args[0]
    return Builtin("dataclass", _dataclass)  # @dataclass(frozen=True): the decorator itself


def _field(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    from .values import MISSING

    return FieldSpec(kwargs.get("default", MISSING), kwargs.get("default_factory"))


def _nothing(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return None


def _identity(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return args[0] if args else None


_MATH = {
    "ceil": (math.ceil, sympy.ceiling),
    "floor": (math.floor, sympy.floor),
    "sqrt": (math.sqrt, sympy.sqrt),
    "log": (math.log, lambda *x: sympy.log(*x)),
    "log2": (math.log2, lambda x: sympy.log(x, 2)),
    "log10": (math.log10, lambda x: sympy.log(x, 10)),
    "exp": (math.exp, sympy.exp),
    "gcd": (math.gcd, lambda *x: sympy.gcd(*x)),
    "isqrt": (math.isqrt, lambda x: sympy.floor(sympy.sqrt(x))),
    "fabs": (math.fabs, sympy.Abs),
}
_STDLIB: dict[str, Any] = {
    **{f"math.{name}": _symbolic(*fns) for name, fns in _MATH.items()},
    **{
        f"numpy.{name}": _symbolic(*fns)
        for name, fns in _MATH.items()
        if name in ("ceil", "floor", "sqrt", "log2", "log", "exp")
    },
    "math.prod": lambda reader, args, kwargs, node: _product(reader, args, node),
    "numpy.prod": lambda reader, args, kwargs, node: _product(reader, args, node),
    "copy.deepcopy": _deepcopy,
    "copy.copy": _shallow,
    "functools.partial": _partial,
    "collections.OrderedDict": lambda reader, args, kwargs, node: _ordered(_dict(reader, args, kwargs, node)),
    "types.SimpleNamespace": _namespace,
    "argparse.Namespace": _namespace,
    "dataclasses.dataclass": _dataclass,
    "dataclasses.field": _field,
    "warnings.warn": _nothing,
    "logging.info": _nothing,
    "logging.warning": _nothing,
    "typing.cast": lambda reader, args, kwargs, node: args[1] if len(args) > 1 else None,
    "functools.wraps": lambda reader, args, kwargs, node: Builtin("wraps", _identity),
}
_VALUES = {"math.pi": math.pi, "math.e": math.e, "math.inf": math.inf, "numpy.pi": math.pi, "numpy.e": math.e}
_ALIASES = {"np": "numpy", "OrderedDict": "collections.OrderedDict"}


def _normal(path: str) -> str:
    head, _, rest = path.partition(".")
    head = _ALIASES.get(head, head)
    return f"{head}.{rest}" if rest else head


def _ordered(value: Any) -> Any:
    return Ordered(value) if isinstance(value, dict) else value


def _product(reader: Any, args: list[Any], node: ast.AST) -> Any:
    values = _numbers(reader, args[:1], node)
    if isinstance(values, Unknown):
        return values
    total: Any = 1
    for v in values:
        total = reader.binop(ast.Mult(), total, v, node)
    return total


def stdlib_value(path: str) -> Any:
    """A standard-library constant (``math.pi``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    float or None
    """
    return _VALUES.get(_normal(path))


def call_stdlib(reader: Any, path: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """Call a standard-library function derive reads; ``NotImplemented`` for any other path.

    Parameters
    ----------
    reader : Interpreter
    path : str
        The dotted path as imported (``math.ceil``, ``np.prod``).
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    object
    """
    fn = _STDLIB.get(_normal(path))
    if fn is None:
        return NotImplemented
    try:
        return fn(reader, args, kwargs, node)
    except (IndexError, ValueError):
        return _unknown(node, f"{path}() with arguments derive does not read")
