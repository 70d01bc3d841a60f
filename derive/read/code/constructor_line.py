"""A constructor line of a registered framework (``hk.LSTM(128)``, ``RecurrentGemmaConfig()``), read and made.

The line is read with :mod:`ast` (never evaluated): literals, the size symbols ``I H L P``, tuples,
lists and dicts with string keys (``ssm_cfg={"d_state": 8}``), and calls of the same framework's
registered classes (``sLSTMLayerConfig(...)`` inside ``sLSTMLayer(...)``). Anything else in an
argument — a name, an attribute, another call — is kept as its source text
(:class:`derive.read.source.Opaque`): the class's constructor ignores it where it changes no tensor
(an initializer, ``key=key``, ``rngs=nnx.Rngs(0)``) and refuses it, naming it, where it would (a size,
a flag). The command line (:mod:`derive.read.line.registered`) and :func:`derive.explain` read a line so,
once :func:`derive.read.pasted.line_framework` has said it is a registered framework's constructor.

>>> import ast
>>> explain_constructor(ast.parse("mlx.nn.GRU(16, 32)", mode="eval").body, "mlx").total
4736
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...engine.constructors import Constructor, find
from ...tree import Module, count
from ..pasted import SYMBOLS
from ..report import Report
from ..source import Opaque, SourceError, dotted

__all__ = [
    "Made",
    "read_call",
    "module_of",
    "explain_constructor",
    "argument_notes",
    "MAX_INT",
    "MAX_STR",
    "MAX_ITEMS",
    "read_literal",
    "NOT_LITERAL",
]

#: Largest int literal of a constructor line (the command line's too).
MAX_INT = 10**15
#: Longest string literal of a constructor line.
MAX_STR = 64
#: Most items of a tuple, list or dict in a constructor line.
MAX_ITEMS = 32
_MAX_DEPTH = 4


@dataclass
class Made:
    """A parsed call of a registered class: the constructor and its arguments as read.

    Attributes
    ----------
    constructor : derive.engine.constructors.Constructor
    written : str
        The class as written (``"eqx.nn.GRUCell"``).
    args : list
    kwargs : dict
        The arguments as read: plain values, size symbols, nested :class:`Made`, :class:`Opaque`.
    """

    constructor: Constructor
    written: str
    args: list[Any]
    kwargs: dict[str, Any]


#: What :func:`read_literal` returns for a node that is not a literal.
NOT_LITERAL: Any = object()


def read_literal(node: ast.expr, item: Callable[[ast.expr], Any], error: type[Exception] = SourceError) -> Any:
    """A literal of a constructor line, read by the one rule of the command line and :func:`derive.explain`.

    Parameters
    ----------
    node : ast.expr
    item : callable
        Reads an item of a tuple or list (the caller's own reader, one level deeper).
    error : type of Exception
        Raised, with the reason, for a literal beyond the limits.

    Returns
    -------
    object
        A constant (``bool``, ``None``, ``int``, ``float``, ``str``), a number with its sign, a size
        symbol (``I H L P``), a tuple or a list of what ``item`` read; :data:`NOT_LITERAL` for anything
        else (the caller decides).

    Raises
    ------
    Exception
        ``error``: an int beyond :data:`MAX_INT`, a string longer than :data:`MAX_STR`, more than
        :data:`MAX_ITEMS` items, a constant of another type (bytes, ``...``).

    Examples
    --------
    >>> import ast
    >>> def item(node):
    ...     return read_literal(node, item)
    >>> read_literal(ast.parse("(-3, H, [True, 'tanh'])", mode="eval").body, item)
    (-3, H, [True, 'tanh'])
    >>> read_literal(ast.parse("cfg.hidden", mode="eval").body, item) is NOT_LITERAL
    True
    """
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise error(f"integer literal too large (more than {MAX_INT:.0e})")
            return value
        if isinstance(value, str):
            if len(value) > MAX_STR:
                raise error(f"string literal longer than {MAX_STR} characters")
            return value
        raise error(f"literal of type {type(value).__name__} is not allowed")
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float)
    ):
        value = read_literal(node.operand, item, error)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name) and node.id in SYMBOLS:
        return SYMBOLS[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        if len(node.elts) > MAX_ITEMS:
            raise error(f"more than {MAX_ITEMS} items in a tuple or list")
        items = [item(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    return NOT_LITERAL


def _read_value(node: ast.expr, framework: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise SourceError("calls nested too deeply")
    value = read_literal(node, lambda e: _read_value(e, framework, depth + 1))
    if value is not NOT_LITERAL:
        return value
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        if len(node.keys) > MAX_ITEMS:
            raise SourceError(f"more than {MAX_ITEMS} items in a dict")
        return {k.value: _read_value(v, framework, depth + 1) for k, v in zip(node.keys, node.values)}  # type: ignore[union-attr]
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        if name is not None and find(name, framework):
            return read_call(node, framework, depth + 1)
    copies = _repeated(node)
    if copies is not None:  # [LSTMCell(48) for _ in range(2)]: that many calls, each made anew
        return [_read_value(copies[0], framework, depth + 1) for _ in range(copies[1])]
    if isinstance(node, ast.Starred):
        raise SourceError("starred arguments (*args) are not allowed")
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
        raise SourceError(f"more than {MAX_ITEMS} items in a tuple or list")
    return node.elt, times


def read_call(node: ast.Call, framework: str, depth: int = 0) -> Made:
    """One call of a class ``framework`` registers, its arguments read (never evaluated).

    Parameters
    ----------
    node : ast.Call
    framework : str
    depth : int
        How deep the call is nested in another (refused beyond a few).

    Returns
    -------
    Made

    Raises
    ------
    SourceError
        A class ``framework`` does not register; ``*args``, ``**kwargs``, a repeated keyword; a
        literal beyond the limits (:data:`MAX_INT`, :data:`MAX_STR`, :data:`MAX_ITEMS`); calls nested
        too deeply.
    """
    name = dotted(node.func) or ""
    found = find(name, framework)
    if not found:
        raise SourceError(f"{name} is not a class of {framework} that derive knows")
    args = [_read_value(a, framework, depth) for a in node.args]
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise SourceError("keyword unpacking (**kwargs) is not allowed")
        if kw.arg in kwargs:
            raise SourceError(f"keyword argument repeated: {kw.arg}")
        kwargs[kw.arg] = _read_value(kw.value, framework, depth)
    return Made(found[0], name, args, kwargs)


def _make(made: Made) -> Any:
    def real(value: Any) -> Any:
        if isinstance(value, Made):
            return _make(value)
        if isinstance(value, list):
            return [real(v) for v in value]
        if isinstance(value, tuple):
            return tuple(real(v) for v in value)
        if isinstance(value, dict):
            return {k: real(v) for k, v in value.items()}
        return value

    try:
        return made.constructor.make(*[real(a) for a in made.args], **{k: real(v) for k, v in made.kwargs.items()})
    except (TypeError, ValueError) as error:
        raise SourceError(f"{made.written}: {error}") from None


def module_of(made: Made, input_dim: Any) -> tuple[Module, bool]:
    """The module of a call, and whether the input width was read from ``input_dim``.

    Parameters
    ----------
    made : Made
    input_dim : int or None
        The input width, for a class that makes its weights when first applied (Haiku, Flax linen).

    Returns
    -------
    (derive.tree.Module, bool)

    Raises
    ------
    SourceError
        The arguments the class refuses (its words, after the class as written); a missing or
        superfluous ``input_dim``; a call that makes no layer (a config of one).
    """
    built = _make(made)
    if isinstance(built, Module):
        if input_dim is not None:
            raise SourceError(
                f"--input-dim (input_dim=) is for layers that take their input width when first applied: {made.written} "
                "takes it as an argument"
            )
        return built, False
    if not callable(getattr(built, "build", None)):
        raise SourceError(f"{made.written} is not a layer (it configures one): pass it to the layer's constructor")
    if input_dim is None:
        raise SourceError(
            f"{made.written} makes its weights when first applied: give the input width with --input-dim "
            "(input_dim= in derive.explain: the features per step)"
        )
    try:
        module, _ = built.build((None, input_dim))
    except (TypeError, ValueError) as error:
        raise SourceError(f"{made.written}: {error}") from None
    return module, True


def explain_constructor(node: ast.Call, framework: str, input_dim: Any = None) -> Report:
    """The report of one constructor line of a registered framework.

    Parameters
    ----------
    node : ast.Call
        The line, parsed (:func:`derive.read.pasted.one_call`).
    framework : str
        Its framework (:func:`derive.read.pasted.line_framework`).
    input_dim : int, optional
        The input width, for a class that makes its weights when first applied.

    Returns
    -------
    Report
        Its tensors named as the framework names them; arguments not read noted.

    Raises
    ------
    SourceError
        The refusals of :func:`read_call` and :func:`module_of`.
    """
    made = read_call(node, framework)
    module, _ = module_of(made, input_dim)
    notes = argument_notes(made, count(module))
    return Report.from_module(module, framework, f"{framework}: {ast.unparse(node)}", notes=notes)


def _positional_names(make: Callable[..., Any]) -> list[str]:
    """The names of a constructor's positional parameters, in order ([] where it has no signature)."""
    try:
        parameters = inspect.signature(make).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in parameters if p.kind in kinds]


def argument_notes(made: Made, total: Any) -> list[str]:
    """What a report says of the arguments it did not evaluate: the sizes named by a variable the
    line does not define (the count is in terms of them) and the rest, which no tensor depends on.

    Parameters
    ----------
    made : Made
    total : int or sympy.Expr
        The count (its free symbols are the names it is in terms of).

    Returns
    -------
    list of str
    """
    named = {str(s) for s in getattr(total, "free_symbols", ())}
    positional = _positional_names(made.constructor.make)
    written = [
        *((positional[i] if i < len(positional) else None, v) for i, v in enumerate(made.args)),
        *made.kwargs.items(),
    ]
    opaque = [(name, v.source) for name, v in written if isinstance(v, Opaque)]
    sizes = [source for _, source in opaque if source in named]
    ignored = [source if name is None else f"{name}={source}" for name, source in opaque if source not in named]
    notes = []
    if sizes:
        notes.append(f"not defined in the line, so the count is in terms of it: {', '.join(sizes)}")
    if ignored:
        notes.append(f"not evaluated (no tensor's shape depends on it): {', '.join(ignored)}")
    return notes
