"""Reading pasted model code with :mod:`ast`: literals, size names and calls — never evaluated.

A size written as a name (``vocab_size``) becomes a positive-integer SymPy symbol of that name,
unless the snippet assigns it an integer literal at module level or in the function being read;
``+``, ``-``, ``*`` and ``//`` of sizes are computed exactly. Any other expression in an argument
that matters for the weights is refused; in an argument that does not (``activation=tf.nn.relu``)
it is kept as its source text (:class:`Opaque`) and ignored.

>>> call = parse_expression("LSTM(hidden * 2, 64)")
>>> call.name, call.args
('LSTM', [2*hidden, 64])
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..engine.symbols import size_symbols

__all__ = [
    "Call",
    "Opaque",
    "SourceError",
    "Reader",
    "parse_module",
    "parse_expression",
    "dotted",
    "clean",
    "MAX_TEXT",
    "MAX_DEPTH",
]

#: Longest snippet read (characters); a model definition is far shorter.
MAX_TEXT = 200_000
#: Deepest nesting of calls and containers.
MAX_DEPTH = 40
MAX_INT = 10**15
MAX_ITEMS = 10_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class SourceError(ValueError):
    """Code derive refuses to read; the message names the construct and its line."""


def clean(text: str, limit: int = 200) -> str:
    """User text made safe to print: control characters replaced by ``?``, cut to ``limit`` characters.

    Parameters
    ----------
    text : str
        Any text taken from the user.
    limit : int
        Longest result, in characters (an ellipsis marks a cut).

    Returns
    -------
    str

    Examples
    --------
    >>> clean("a\\x1b[31mb")
    'a?[31mb'
    """
    text = _CONTROL.sub("?", str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Opaque:
    """An argument derive does not read (its source text only), e.g. ``activation=tf.nn.relu``.

    Attributes
    ----------
    source : str
        The argument as written.
    """

    source: str

    def __repr__(self) -> str:
        return clean(self.source, 60)

    @property
    def unread_source(self) -> str:
        """The source, shortened and cleaned, for refusals that name it (read by :mod:`derive.engine.validate`)."""
        return clean(self.source, 60)


@dataclass
class Call:
    """A constructor call as written: dotted name, arguments, line; plus ``applied_to`` for ``Layer(...)(x)``.

    Attributes
    ----------
    name : str
        The called name without prefixes (``"LSTM"`` for ``keras.layers.LSTM``).
    dotted : str
        The full dotted name as written.
    args : list
        Positional arguments (ints, floats, str, bool, None, SymPy expressions, tuples, lists,
        nested :class:`Call`, :class:`Opaque`).
    kwargs : dict
        Keyword arguments, same value types.
    line : int
        1-based line in the snippet.
    """

    name: str
    dotted: str
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    line: int = 1

    @property
    def unread_source(self) -> str:
        """``name(...)``, for refusals of a call where a size belongs (read by :mod:`derive.engine.validate`)."""
        return clean(f"{self.dotted}(...)", 60)


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else None.

    Parameters
    ----------
    node : ast.AST

    Returns
    -------
    str or None
    """
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call) and dotted(node.func) == "super":
        parts.append("super()")
    elif isinstance(node, ast.Name):
        parts.append(node.id)
    else:
        return None
    return ".".join(reversed(parts))


def parse_module(text: str) -> ast.Module:
    """Parse a snippet as a module, with the size and depth limits.

    Parameters
    ----------
    text : str
        Python source.

    Returns
    -------
    ast.Module

    Raises
    ------
    SourceError
        Empty, too long, not Python, or nested too deeply.
    TypeError
        ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"code must be a str, got {type(text).__name__}")
    if not text.strip():
        raise SourceError("empty code; expected e.g. Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])")
    if len(text) > MAX_TEXT:
        raise SourceError(f"code longer than {MAX_TEXT:,} characters ({len(text):,}); paste the model definition only")
    if "\x00" in text:
        raise SourceError("code contains a null byte")
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise SourceError(f"syntax error on line {error.lineno}: {clean(error.msg or '')}") from None
    except (RecursionError, MemoryError):
        raise SourceError("code nested too deeply") from None
    _check_depth(tree)
    return tree


def _check_depth(tree: ast.AST) -> None:
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > 4 * MAX_DEPTH:
            raise SourceError(f"code nested too deeply (line {getattr(node, 'lineno', '?')})")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def parse_expression(text: str) -> Call:
    """One call expression, read with a fresh :class:`Reader` (names become symbols).

    Parameters
    ----------
    text : str
        E.g. ``"nn.LSTM(300, 256, num_layers=2)"``.

    Returns
    -------
    Call

    Raises
    ------
    SourceError
        Not a single call, or an argument derive cannot read.
    """
    tree = parse_module(text)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(tree.body[0].value, ast.Call):
        raise SourceError("expected one call, e.g. nn.LSTM(300, 256)")
    value = Reader().value(tree.body[0].value)
    assert isinstance(value, Call)
    return value


class Reader:
    """Turns argument expressions into values; ``env`` maps names to known sizes.

    Parameters
    ----------
    env : dict, optional
        Name (``"hidden"`` or ``"self.hidden"``) -> value, for names assigned in the snippet.
    """

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        self.env: dict[str, Any] = dict(env or {})

    def symbol(self, name: str) -> sympy.Symbol:
        """The size symbol for a name (``self.`` dropped), positive integer.

        Parameters
        ----------
        name : str

        Returns
        -------
        sympy.Symbol
        """
        base = name.rsplit(".", 1)[-1]
        return size_symbols(base)[0]

    def value(self, node: ast.AST, depth: int = 0) -> Any:
        """The value of an argument expression.

        Parameters
        ----------
        node : ast.AST
        depth : int
            Nesting so far.

        Returns
        -------
        Any
            int, float, str, bool, None, sympy.Expr, tuple, list, dict, :class:`Call`, :class:`Opaque`.

        Raises
        ------
        SourceError
            Too deep, too large, or a construct that could hide a size (comprehension, lambda, ...).
        """
        if depth > MAX_DEPTH:
            raise SourceError(f"line {getattr(node, 'lineno', '?')}: calls nested too deeply")
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
                raise SourceError(f"line {node.lineno}: integer literal beyond {MAX_INT:.0e}")
            if isinstance(value, (bytes, complex)) or value is Ellipsis:
                return Opaque(ast.unparse(node))
            return value
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return self.symbol(node.id)
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if name is not None and name in self.env:
                return self.env[name]
            if name is not None and name.startswith("self.") and name.count(".") == 1:
                return self.symbol(name)
            return Opaque(ast.unparse(node))
        if isinstance(node, (ast.Tuple, ast.List)):
            if len(node.elts) > MAX_ITEMS:
                raise SourceError(f"line {node.lineno}: more than {MAX_ITEMS} items in a list")
            items = [self.value(e, depth + 1) for e in node.elts]
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.value(node.operand, depth + 1)
            if isinstance(operand, (int, float, sympy.Expr)) and not isinstance(operand, bool):
                return -operand if isinstance(node.op, ast.USub) else operand
            return Opaque(ast.unparse(node))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            return self._arithmetic(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Dict):
            return Opaque(ast.unparse(node))
        if isinstance(node, ast.ListComp):
            return self._repeat(node, depth)
        return Opaque(ast.unparse(node))

    def _arithmetic(self, node: ast.BinOp, depth: int) -> Any:
        left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
        numbers = (int, sympy.Expr)
        if (
            not (isinstance(left, numbers) and isinstance(right, numbers))
            or isinstance(left, bool)
            or isinstance(right, bool)
        ):
            return Opaque(ast.unparse(node))
        op = node.op
        if isinstance(op, ast.Add):
            result = left + right
        elif isinstance(op, ast.Sub):
            result = left - right
        elif isinstance(op, ast.Mult):
            result = left * right
        else:
            if right == 0:
                raise SourceError(f"line {node.lineno}: division by zero")
            result = left // right if isinstance(left, int) and isinstance(right, int) else sympy.floor(left / right)
        if isinstance(result, sympy.Basic) and result.is_Integer:
            result = int(result)
        if isinstance(result, int) and abs(result) > MAX_INT:
            raise SourceError(f"line {node.lineno}: size beyond {MAX_INT:.0e}")
        return result

    def _repeat(self, node: ast.ListComp, depth: int) -> Any:
        """``[nn.LSTM(h, h) for _ in range(3)]``: the element repeated, when it does not use the loop variable."""
        generator = node.generators[0] if len(node.generators) == 1 else None
        if (
            generator is None
            or generator.ifs
            or not isinstance(generator.target, ast.Name)
            or not isinstance(generator.iter, ast.Call)
            or dotted(generator.iter.func) != "range"
            or len(generator.iter.args) != 1
            or generator.iter.keywords
        ):
            return Opaque(ast.unparse(node))
        times = self.value(generator.iter.args[0], depth + 1)
        loop = generator.target.id
        if (
            not isinstance(times, int)
            or isinstance(times, bool)
            or not 0 <= times <= 1000
            or any(isinstance(n, ast.Name) and n.id == loop for n in ast.walk(node.elt))
        ):
            return Opaque(ast.unparse(node))
        element = self.value(node.elt, depth + 1)
        return [element] * times

    def call(self, node: ast.Call, depth: int = 0) -> Call | Opaque:
        """A call: its name and read arguments; a call on a call (``LSTM(64)(x)``) is returned as an Opaque.

        Parameters
        ----------
        node : ast.Call
        depth : int

        Returns
        -------
        Call or Opaque
        """
        name = dotted(node.func)
        if name is None:
            return Opaque(ast.unparse(node))
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.append(Opaque(ast.unparse(arg)))
            else:
                args.append(self.value(arg, depth + 1))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                kwargs.setdefault("**", Opaque(ast.unparse(keyword.value)))
            else:
                kwargs[keyword.arg] = self.value(keyword.value, depth + 1)
        return Call(name.rsplit(".", 1)[-1], name, args, kwargs, getattr(node, "lineno", 1))
