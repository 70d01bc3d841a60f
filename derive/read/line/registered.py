"""A constructor of any registered framework on the command line: read and made as
:mod:`derive.read.code.constructor_line` reads and makes it, described (its count, tensors, closed form).

>>> info = describe_registered("mlx.nn.GRU(16, 32)", "mlx")
>>> info["count"], info["tensors"][0][0], str(info["formula"]), info["values"]
(4736, 'Wx', '3*H**2 + 3*H*I + 4*H', {'I': 16, 'H': 32})
"""

from __future__ import annotations

import ast
from typing import Any

from ..._sympy import sympy
from ...engine.symbols import plain
from ...tree import Module, count, is_partial, named_parameters
from ..code.constructor_line import Made, argument_notes, module_of, read_call
from ..source import SourceError
from .parse import SYMBOLS, InputError, parse_text

__all__ = ["describe_registered", "tensor_rows"]


def tensor_rows(module: Module) -> list[dict[str, Any]]:
    """Every tensor of ``module`` with its full name: parameters, and buffers and ties marked.

    Parameters
    ----------
    module : derive.tree.Module

    Returns
    -------
    list of dict
        ``{"name", "shape", "parameters"}``, plus ``"trainable": False`` (frozen, counted),
        ``"buffer": True`` or ``"tied_to": name`` (not counted; ``parameters`` 0).

    Raises
    ------
    ValueError
        A module repeated a symbolic or huge number of times (its tensors are not listed one by one).
    """
    rows = []
    for name, p in named_parameters(module, ties=True, buffers=True):
        row: dict[str, Any] = {"name": name, "shape": p.shape, "parameters": p.numel if p.counted else 0}
        if not p.trainable:
            row["trainable"] = False
        if p.buffer:
            row["buffer"] = True
        if p.tied_to is not None:
            row["tied_to"] = p.tied_to
        rows.append(row)
    return rows


def _letters(made: Made, used: set[sympy.Symbol], deferred: bool) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """The top call's int size arguments replaced by their letters, where the user wrote none of them."""
    import inspect

    args, kwargs = list(made.args), dict(made.kwargs)
    values: dict[str, Any] = {}
    try:
        bound = inspect.signature(made.constructor.make).bind(*args, **kwargs)
    except TypeError:
        return args, kwargs, {}
    positional = list(inspect.signature(made.constructor.make).parameters)
    for argument, letter in made.constructor.letters.items():
        value = bound.arguments.get(argument)
        symbol = SYMBOLS.get(letter)
        if symbol is None or symbol in used or type(value) is not int or value == 0:
            continue
        index = positional.index(argument)
        if index < len(args):
            args[index] = symbol
        else:
            kwargs[argument] = symbol
        values[letter] = value
        used = used | {symbol}
    if deferred and SYMBOLS["I"] not in used:
        values["I"] = None  # the input width, filled in by the caller
    return args, kwargs, values


def _user_symbols(value: Any) -> set[sympy.Symbol]:
    if isinstance(value, Made):
        return set().union(set(), *(_user_symbols(v) for v in [*value.args, *value.kwargs.values()]))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_user_symbols(v) for v in value))
    if isinstance(value, sympy.Basic):
        return set(value.free_symbols)
    return set()


def _formula(made: Made, total: Any, input_dim: Any, deferred: bool) -> tuple[Any, dict[str, int]]:
    """The count with int sizes generalized to letters (never one that disagrees with ``total``)."""
    args, kwargs, values = _letters(made, _user_symbols(made), deferred)
    if deferred and values.get("I", 0) is None:
        values["I"] = input_dim
    if not values:
        return total, {}
    symbolic = Made(made.constructor, made.written, args, kwargs)
    try:
        width = (SYMBOLS["I"] if "I" in values else input_dim) if deferred else None
        module, _ = module_of(symbolic, width)
        formula = sympy.expand(count(module))
    except SourceError:
        return total, {}
    at = {SYMBOLS[k]: v for k, v in values.items()}
    if sympy.expand((formula if isinstance(formula, sympy.Basic) else sympy.Integer(formula)).subs(at) - total) != 0:
        return total, {}
    order = {"I": 0, "H": 1, "L": 2, "P": 3}
    return formula, dict(sorted(values.items(), key=lambda kv: order[kv[0]]))


def _own_formula(module: Module, total: Any) -> tuple[Any, dict[str, Any]] | None:
    """The closed form the module's producer gives (:attr:`derive.tree.Module.formula`, in the
    constructor's own letters: ``D``, ``N``, ``K``, ``e`` for ``Mamba``) with its letters' values,
    or None: no formula, sizes not all ints, or a formula that does not give ``total``."""
    if module.formula is None or not isinstance(total, int):
        return None
    expr = module.formula.expr
    values = dict(module.formula.values)
    if expr is None or not isinstance(expr, sympy.Basic) or not expr.free_symbols:
        return None
    at = {s: values.get(s.name) for s in expr.free_symbols}
    if any(not isinstance(v, int) for v in at.values()) or sympy.expand(expr.subs(at) - total) != 0:
        return None
    return expr, {k: v for k, v in values.items() if any(s.name == k for s in expr.free_symbols)}


def describe_registered(text: str, framework: str, input_dim: Any = None) -> dict[str, Any]:
    """Everything the command line prints for a registered framework's constructor.

    Parameters
    ----------
    text : str
        One call, e.g. ``"hk.LSTM(128)"``.
    framework : str
        The framework it is read as (a key of :func:`derive.engine.constructors.frameworks`).
    input_dim : int, optional
        The input width, for a class that makes its weights when first applied.

    Returns
    -------
    dict
        ``framework``, ``call`` (as written), ``count``, ``tensors`` (name, shape, parameters),
        ``marks`` (the other keys of :func:`tensor_rows`, per tensor),
        ``formula``, ``values``, ``notes``, ``partial``, ``object`` (the module).

    Raises
    ------
    InputError
        Text that is not one call of a class of ``framework``; arguments the class refuses (its
        message); a missing or superfluous ``input_dim``.
    """
    node = parse_text(text)
    if not isinstance(node, ast.Call):
        raise InputError("expected one constructor call")
    try:
        made = read_call(node, framework)
        module, deferred = module_of(made, input_dim)
    except SourceError as error:
        raise InputError(str(error)) from None
    total = plain(count(module))
    formula, values = _own_formula(module, total) or _formula(made, total, input_dim, deferred)
    notes = argument_notes(made, total)
    try:
        rows = tensor_rows(module)
    except ValueError as error:
        rows, notes = [], [*notes, f"tensors not listed: {error}"]
    return {
        "framework": framework,
        "call": ast.unparse(node),
        "count": total,
        "tensors": [(r["name"], r["shape"], r["parameters"]) for r in rows],
        "marks": [{k: v for k, v in r.items() if k not in ("name", "shape", "parameters")} for r in rows],
        "formula": formula,
        "values": values,
        "notes": notes,
        "partial": is_partial(module),
        "object": module,
        "module": module,
    }
