"""A constructor of any registered framework on the command line: read, made, described.

The text is read with :mod:`ast` (never evaluated): literals, the size symbols ``I H L P``, tuples,
lists and dicts with string keys (``ssm_cfg={"d_state": 8}``), and calls of the same framework's registered classes (``sLSTMLayerConfig(...)`` inside
``sLSTMLayer(...)``). Anything else in an argument — a name, an attribute, another call — is kept
as its source text (:class:`derive.models.source.Opaque`): the class's constructor ignores it
where it changes no tensor (an initializer, ``key=key``, ``rngs=nnx.Rngs(0)``) and refuses it,
naming it, where it would (a size, a flag).

>>> info = describe_registered("mlx.nn.GRU(16, 32)", "mlx")
>>> info["count"], info["tensors"][0][0], str(info["formula"]), info["values"]
(4736, 'Wx', '3*H**2 + 3*H*I + 4*H', {'I': 16, 'H': 32})
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import sympy

from ..engine.constructors import Constructor, find
from ..engine.symbols import plain
from ..models.source import Opaque
from ..tree import Module, count, is_partial, named_parameters
from .parse import MAX_INT, MAX_ITEMS, MAX_STR, SYMBOLS, InputError, dotted, parse_text

__all__ = ["describe_registered", "tensor_rows"]

_MAX_DEPTH = 4


@dataclass
class _Made:
    """A parsed call of a registered class: the constructor and its arguments as read."""

    constructor: Constructor
    written: str
    args: list[Any]
    kwargs: dict[str, Any]


def _value(node: ast.expr, framework: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise InputError("calls nested too deeply")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise InputError(f"integer literal too large (more than {MAX_INT:.0e})")
            return value
        if isinstance(value, str):
            if len(value) > MAX_STR:
                raise InputError(f"string literal longer than {MAX_STR} characters")
            return value
        raise InputError(f"literal of type {type(value).__name__} is not allowed")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        if isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
            value = _value(node.operand, framework, depth)
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name) and node.id in SYMBOLS:
        return SYMBOLS[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        if len(node.elts) > MAX_ITEMS:
            raise InputError(f"more than {MAX_ITEMS} items in a tuple or list")
        items = [_value(e, framework, depth + 1) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        if len(node.keys) > MAX_ITEMS:
            raise InputError(f"more than {MAX_ITEMS} items in a dict")
        return {k.value: _value(v, framework, depth + 1) for k, v in zip(node.keys, node.values)}  # type: ignore[union-attr]
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        if name is not None and find(name, framework):
            return _call(node, framework, depth + 1)
    copies = _repeated(node)
    if copies is not None:  # [LSTMCell(48) for _ in range(2)]: that many calls, each made anew
        return [_value(copies[0], framework, depth + 1) for _ in range(copies[1])]
    if isinstance(node, ast.Starred):
        raise InputError("starred arguments (*args) are not allowed")
    return Opaque(ast.unparse(node))


def _repeated(node: ast.expr) -> tuple[ast.expr, int] | None:
    """``[element for _ in range(n)]`` (one ``for``, no ``if``, an int literal ``n``, an element that
    does not read the loop's name) as ``(element, n)``; None for anything else."""
    if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
        return None
    loop = node.generators[0]
    iterated = loop.iter
    if (
        loop.ifs
        or loop.is_async
        or not isinstance(loop.target, ast.Name)
        or not isinstance(iterated, ast.Call)
        or dotted(iterated.func) != "range"
        or len(iterated.args) != 1
        or iterated.keywords
        or not isinstance(iterated.args[0], ast.Constant)
        or type(iterated.args[0].value) is not int
    ):
        return None
    if any(isinstance(n, ast.Name) and n.id == loop.target.id for n in ast.walk(node.elt)):
        return None
    times = iterated.args[0].value
    if not 0 <= times <= MAX_ITEMS:
        raise InputError(f"more than {MAX_ITEMS} items in a tuple or list")
    return node.elt, times


def _call(node: ast.Call, framework: str, depth: int = 0) -> _Made:
    name = dotted(node.func) or ""
    found = find(name, framework)
    if not found:
        raise InputError(f"{name} is not a class of {framework} that derive knows")
    args = [_value(a, framework, depth) for a in node.args]
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise InputError("keyword unpacking (**kwargs) is not allowed")
        if kw.arg in kwargs:
            raise InputError(f"keyword argument repeated: {kw.arg}")
        kwargs[kw.arg] = _value(kw.value, framework, depth)
    return _Made(found[0], name, args, kwargs)


def _make(made: _Made) -> Any:
    def real(value: Any) -> Any:
        if isinstance(value, _Made):
            return _make(value)
        if isinstance(value, list):
            return [real(v) for v in value]
        if isinstance(value, tuple):
            return tuple(real(v) for v in value)
        return value

    try:
        return made.constructor.make(*[real(a) for a in made.args], **{k: real(v) for k, v in made.kwargs.items()})
    except (TypeError, ValueError) as error:
        raise InputError(f"{made.written}: {error}") from None


def _module(made: _Made, input_dim: Any) -> tuple[Module, bool]:
    """The module of the top call, and whether the input width was read from ``input_dim``."""
    built = _make(made)
    if isinstance(built, Module):
        if input_dim is not None:
            raise InputError(
                f"--input-dim is for layers that take their input width when first applied: {made.written} "
                "takes it as an argument"
            )
        return built, False
    if not callable(getattr(built, "build", None)):
        raise InputError(f"{made.written} is not a layer (it configures one): pass it to the layer's constructor")
    if input_dim is None:
        raise InputError(
            f"{made.written} makes its weights when first applied: give the input width with --input-dim "
            "(the features per step)"
        )
    try:
        module, _ = built.build((None, input_dim))
    except (TypeError, ValueError) as error:
        raise InputError(f"{made.written}: {error}") from None
    return module, True


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


def _letters(made: _Made, used: set[sympy.Symbol], deferred: bool) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
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
    if isinstance(value, _Made):
        return set().union(set(), *(_user_symbols(v) for v in [*value.args, *value.kwargs.values()]))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_user_symbols(v) for v in value))
    if isinstance(value, sympy.Basic):
        return set(value.free_symbols)
    return set()


def _formula(made: _Made, total: Any, input_dim: Any, deferred: bool) -> tuple[Any, dict[str, int]]:
    """The count with int sizes generalized to letters (never one that disagrees with ``total``)."""
    args, kwargs, values = _letters(made, _user_symbols(made), deferred)
    if deferred and values.get("I", 0) is None:
        values["I"] = input_dim
    if not values:
        return total, {}
    symbolic = _Made(made.constructor, made.written, args, kwargs)
    try:
        width = (SYMBOLS["I"] if "I" in values else input_dim) if deferred else None
        module, _ = _module(symbolic, width)
        formula = sympy.expand(count(module))
    except InputError:
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
    made = _call(node, framework)
    module, deferred = _module(made, input_dim)
    total = plain(count(module))
    formula, values = _own_formula(module, total) or _formula(made, total, input_dim, deferred)
    ignored = [v.source for v in [*made.args, *made.kwargs.values()] if isinstance(v, Opaque)]
    notes = [f"not evaluated (no tensor's shape depends on it): {', '.join(ignored)}"] if ignored else []
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
    }
