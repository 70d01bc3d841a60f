"""What every reader of pasted text shares: parsing it with :mod:`ast` (never evaluated), its limits
and its refusal.

:func:`parse_module` parses code within the limits (:data:`MAX_TEXT`, :data:`MAX_DEPTH`) and
refuses with a :class:`SourceError` naming the line; :func:`clean` prints user text literally
(no control characters, shortened); :func:`dotted` is the dotted name an expression spells. A
call read from a config or a line is a :class:`Call`; a value that matters for no tensor
(``activation=tf.nn.relu``) is kept as its source text, :class:`Opaque`. Values themselves are
read by the code reader (:mod:`derive.read.code.python`) and, for one constructor line, by
:mod:`derive.read.code.constructor_line`.

>>> dotted(parse_module("tf.keras.layers.LSTM(64)").body[0].value.func)
'tf.keras.layers.LSTM'
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .limits import MAX_TEXT

__all__ = [
    "InputError",
    "Call",
    "Opaque",
    "SourceError",
    "parse_module",
    "dotted",
    "clean",
    "MAX_TEXT",
    "MAX_DEPTH",
]

#: Deepest nesting of calls and containers.
MAX_DEPTH = 40
MAX_INT = 10**15
MAX_ITEMS = 10_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class SourceError(ValueError):
    """Code derive refuses to read; the message names the construct and its line."""


class InputError(ValueError):
    """A constructor the CLI refuses; the message is one line for stderr."""


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
