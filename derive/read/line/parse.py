"""Reading a pasted torch or Keras recurrent constructor with :mod:`ast`, never evaluating it (see
:mod:`derive.cli`; other frameworks' constructors: :mod:`derive.read.line.registered`)."""

from __future__ import annotations

import ast
from typing import Any

# the classes, prefixes and symbols of the one rule of which framework a line is (derive.read.pasted)
from ..pasted import (
    KERAS_CELLS,
    KERAS_LAYERS,
    KERAS_PREFIXES,
    KERAS_WRAPPERS,
    SYMBOLS,
    TORCH_CLASSES,
    TORCH_PREFIXES,
)

__all__ = ["parse", "parse_text", "classify", "dotted", "InputError"]

#: Keyword arguments of a wrapper that hold nested calls.
KERAS_NESTED = ("layer", "backward_layer", "layers", "cell", "cells")
# the sanity limits on a constructor line's literals (written once: derive.read.code.constructor_line)
# and its one reader of a literal (the command line's and derive.explain's)
from ..code.constructor_line import NOT_LITERAL, read_literal  # noqa: E402
from ..limits import MAX_LINE  # noqa: E402
from ..source import InputError  # noqa: E402  (defined where the dispatcher needs it without this module)

#: Exit status for input the tool refuses.
EXIT_BAD_INPUT = 2


def dotted(node: ast.expr) -> str | None:
    """The dotted name a call is written with (``"nn.LSTM"``), or None for anything else.

    Parameters
    ----------
    node : ast.expr

    Returns
    -------
    str or None
    """
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _callee(node: ast.Call, keras: bool, parent: str | None) -> str:
    name = dotted(node.func)
    if name is None:
        raise InputError("only a call of a class name is allowed (e.g. LSTM(32, 128) or nn.GRU(10, 20))")
    prefixes, classes = (
        (KERAS_PREFIXES, KERAS_LAYERS + KERAS_CELLS + KERAS_WRAPPERS) if keras else (TORCH_PREFIXES, TORCH_CLASSES)
    )
    base = name.rsplit(".", 1)[-1]
    prefix = name[: len(name) - len(base)]
    if prefix not in prefixes:
        allowed = ", ".join(p for p in prefixes if p)
        raise InputError(f"attribute access {name!r} is not allowed; allowed prefixes: {allowed}")
    if base not in classes:
        hint = ""
        if not keras and base in KERAS_LAYERS + KERAS_CELLS + KERAS_WRAPPERS:
            hint = " (use --keras for Keras layers)"
        elif keras and base in TORCH_CLASSES:
            hint = " (drop --keras for torch.nn classes)"
        raise InputError(f"unknown name {base!r}; allowed: {', '.join(classes)}{hint}")
    if parent is not None and (base == "Sequential" or (parent == "Bidirectional" and base == "Bidirectional")):
        raise InputError(f"{base} cannot be nested in {parent}")
    in_rnn = parent in ("RNN", "StackedRNNCells")
    if keras and (base in KERAS_CELLS or base == "StackedRNNCells") and not in_rnn:
        raise InputError(f"{base} is a cell: wrap it in RNN(...), e.g. RNN({base}(64))")
    if in_rnn and base not in KERAS_CELLS + ("StackedRNNCells",):
        raise InputError(f"{base} is not a cell; {parent} takes SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells")
    return base


def _literal(node: ast.expr, keras: bool, depth: int, parent: str | None) -> Any:  # a literal, symbol or _Call
    value = read_literal(node, lambda e: _literal(e, keras, depth + 1, parent), InputError)
    if value is not NOT_LITERAL:
        return value
    if isinstance(node, ast.Name):
        raise InputError(f"unknown name {node.id!r}; allowed symbols: {', '.join(SYMBOLS)}")
    if isinstance(node, ast.Call):
        if not (keras and parent):
            raise InputError(
                "a call is allowed only as the layer of a Keras wrapper (Bidirectional, Sequential, RNN, StackedRNNCells)"
            )
        return _build(node, keras, depth + 1, parent)
    if isinstance(node, ast.Starred):
        raise InputError("starred arguments (*args) are not allowed")
    if isinstance(node, ast.Lambda):
        raise InputError("lambdas are not allowed")
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        raise InputError("comprehensions are not allowed")
    if isinstance(node, ast.JoinedStr):
        raise InputError("f-strings are not allowed")
    if isinstance(node, ast.Attribute):
        raise InputError(f"attribute access {ast.unparse(node)!r} is not allowed")
    raise InputError(f"{type(node).__name__} expressions are not allowed; use literals and I, H, L, P")


class _Call:
    """A parsed constructor: class name, arguments (literals, symbols or nested calls)."""

    def __init__(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        self.name, self.args, self.kwargs = name, args, kwargs


def _build(node: ast.Call, keras: bool, depth: int = 0, parent: str | None = None) -> _Call:
    if depth > 4:
        raise InputError("calls nested too deeply")
    name = _callee(node, keras, parent)
    wrapper = keras and name in KERAS_WRAPPERS
    args = []
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise InputError("starred arguments (*args) are not allowed")
        args.append(_literal(arg, keras, depth, name if wrapper else None))
    kwargs = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise InputError("keyword unpacking (**kwargs) is not allowed")
        if kw.arg in kwargs:
            raise InputError(f"keyword argument repeated: {kw.arg}")
        nested = wrapper and kw.arg in KERAS_NESTED
        kwargs[kw.arg] = _literal(kw.value, keras, depth, name if nested else None)
    return _Call(name, args, kwargs)


def parse(text: str, keras: bool = False) -> _Call:
    """Parse a pasted constructor without evaluating it.

    Parameters
    ----------
    text : str
        E.g. ``"nn.LSTM(32, 128, 2, bidirectional=True)"``.
    keras : bool
        Accept ``derive.keras`` layers instead of ``derive.torch`` classes.

    Raises
    ------
    InputError
        Anything but one call of a known class with literal arguments (see the module docstring).
    """
    body = parse_text(text)
    if not isinstance(body, ast.Call):
        raise InputError("expected one constructor call, e.g. nn.LSTM(32, 128, 2, bidirectional=True)")
    return _build(body, keras)


def parse_text(text: str) -> ast.expr:
    """One line of constructor text as one Python expression (parsed, never evaluated).

    Parameters
    ----------
    text : str

    Returns
    -------
    ast.expr

    Raises
    ------
    InputError
        Empty, longer than :data:`derive.read.limits.MAX_LINE` characters, or not one expression.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError("empty constructor; expected e.g. nn.LSTM(32, 128, 2, bidirectional=True)")
    if len(text) > MAX_LINE:
        raise InputError(f"constructor longer than {MAX_LINE:,} characters")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise InputError(f"syntax error: {error.msg} (column {error.offset})") from None
    except ValueError as error:  # e.g. null bytes
        raise InputError(f"cannot parse: {error}") from None


def classify(text: str, framework: str | None) -> tuple[str, str | None]:
    """Whether one line is a constructor (and of which framework) or model code
    (:func:`derive.read.pasted.line_framework`, the one rule, on the parsed line).

    Parameters
    ----------
    text : str
        One line.
    framework : str or None
        The framework asked for (``--framework``, ``framework=``).

    Returns
    -------
    (str, str or None)
        ``("constructor", framework)`` or ``("code", framework asked for or None)``.

    Raises
    ------
    InputError
        Not one expression, and the refusals of :func:`derive.read.pasted.line_framework`.
    """
    from ..pasted import line_framework
    from ..source import SourceError

    if len(text) > MAX_LINE:  # longer than any constructor line: code (read within MAX_TEXT)
        return "code", framework
    try:
        return line_framework(parse_text(text), framework)
    except SourceError as error:
        raise InputError(str(error)) from None
