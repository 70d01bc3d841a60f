"""Scopes and the reader's shared state: frames, the step limit, name lookup, refusals.

A :class:`Frame` is one running scope (the module, a function call, a class body, a
comprehension): its own names and the frame its free names are read from (the enclosing function,
not a class body, as in Python). :class:`Core` holds what the parts of the reader share; the
framework's rules (what ``nn`` and ``nn.Linear`` mean) come from a :class:`Semantics`.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Any

from ..source import clean
from .values import Refused, Unknown

__all__ = ["Frame", "Core", "Semantics", "MAX_STEPS", "MAX_CALLS", "MAX_ITEMS", "MAX_INT", "source_of"]

#: Statements and expressions read before giving up (a loop too long to read).
MAX_STEPS = 300_000
#: Calls of the code's own functions and classes nested in each other.
MAX_CALLS = 20
#: Items of one list, tuple, dict or range the reader builds.
MAX_ITEMS = 100_000
#: Largest magnitude of an int the reader computes (a literal or a result).
MAX_INT = 10**30
_PYTHON = frozenset(dir(builtins))


def source_of(node: ast.AST | None, limit: int = 60) -> str:
    """The code of ``node`` as written (shortened, cleaned for printing).

    Parameters
    ----------
    node : ast.AST or None
    limit : int

    Returns
    -------
    str
    """
    if node is None:
        return "?"
    try:
        return clean(ast.unparse(node), limit)
    except (ValueError, RecursionError):  # pragma: no cover  (ast.unparse of a parsed tree)
        return "?"


@dataclass(eq=False)
class Frame:
    """One scope.

    Attributes
    ----------
    names : dict
        Its own names (the module's globals for the module frame).
    parent : Frame or None
        Where its free names are looked up (an enclosing function or the module).
    function : str
        For messages (``"Net.__init__"``).
    nonlocals : set of str
        Names declared ``nonlocal`` (or ``global``) here: assigned in the scope that has them.
    owner_class : Class or None
        The class whose method runs in this frame (for ``super()``).
    first_name : str or None
        The name of the method's first parameter (``self``, for ``super()``).
    """

    names: dict[str, Any]
    parent: Frame | None = None
    function: str = "<module>"
    nonlocals: set[str] = field(default_factory=set)
    owner_class: Any = None
    first_name: str | None = None

    def lookup(self, name: str) -> tuple[bool, Any]:
        """(found, value) along this frame and its parents.

        Parameters
        ----------
        name : str

        Returns
        -------
        tuple of (bool, value)
        """
        frame: Frame | None = self
        while frame is not None:
            if name in frame.names:
                return True, frame.names[name]
            frame = frame.parent
        return False, None

    def owner(self, name: str) -> Frame:
        """The frame an assignment to ``name`` writes to (this one unless declared nonlocal/global).

        Parameters
        ----------
        name : str

        Returns
        -------
        Frame
        """
        if name in self.nonlocals:
            frame = self.parent
            while frame is not None:
                if name in frame.names or frame.parent is None:
                    return frame
                frame = frame.parent
        return self


class Semantics:
    """A framework's rules, asked by the reader for what plain Python does not define.

    The default answers know nothing: every framework name is an :class:`Unknown`. A framework
    (``derive.models.code.torch_semantics``) overrides what it defines.
    """

    def free_name(self, name: str) -> Any:
        """A name the code uses without defining it (``nn`` in a snippet), or None.

        Parameters
        ----------
        name : str

        Returns
        -------
        object or None
        """
        return None

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is one of the framework's objects.

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        return False

    def call_ref(self, core: Any, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """The value of calling a package's name (``nn.Linear(...)``).

        Parameters
        ----------
        core : Core
        ref : Ref
        args : list
        kwargs : dict
        node : ast.Call

        Returns
        -------
        object
        """
        return Unknown(source_of(node), f"{ref.path} is not read by derive", node.lineno, "module")

    def unknown(self, node: ast.AST, why: str, kind: str = "value") -> Unknown:
        """An unknown value for ``node`` (the default answer of every hook below).

        Parameters
        ----------
        node : ast.AST
        why : str
        kind : str

        Returns
        -------
        Unknown
        """
        return Unknown(source_of(node), why, getattr(node, "lineno", 0), kind)

    def call_object(self, core: Any, obj: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """Calling a framework object (a module applied to an input: not construction)."""
        return self.unknown(node, "calling a module computes a tensor, which derive does not read")

    def getattr(self, core: Any, obj: Any, name: str, node: ast.AST) -> Any:
        """``obj.name`` of a framework object."""
        return self.unknown(node, f"{name} of a framework object is not read")

    def setattr(self, core: Any, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``obj.name = value`` on a framework object."""
        raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")

    def delattr(self, core: Any, obj: Any, name: str, node: ast.AST) -> None:
        """``del obj.name`` on a framework object."""
        raise core.refuse(node, f"derive does not read `del {source_of(node)}`")

    def subscript(self, core: Any, obj: Any, key: Any, node: ast.AST) -> Any:
        """``obj[key]`` of a framework object."""
        return self.unknown(node, "indexing a framework object is not read")

    def setitem(self, core: Any, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        """``obj[key] = value`` on a framework object."""
        raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")

    def iterate(self, core: Any, obj: Any, node: ast.AST) -> list[Any] | None:
        """The items of a framework object iterated over, or None when unknown."""
        return None

    def length(self, obj: Any) -> Any:
        """``len(obj)`` of a framework object, or None when unknown."""
        return None

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """Arithmetic on a framework object (a tensor): an unknown value unless the framework knows."""
        return self.unknown(node, "arithmetic on framework objects is not read")

    def new_object(self, core: Any, cls: Any, node: ast.AST) -> Any:
        """A new object of a code class with a framework base (``class Net(nn.Module)``), or None."""
        return None

    def init_base(self, core: Any, obj: Any, base: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``super().__init__(...)`` reaching a framework base class."""
        return None

    def isinstance_of(self, obj: Any, classinfo: Any) -> bool | None:
        """``isinstance(obj, classinfo)`` for framework objects or classes (None: unknown)."""
        return None

    def has_modules(self, value: Any, seen: set[int]) -> bool:
        """Whether a framework object holds parameters or modules (decides what a fork may change)."""
        return False

    def merge(self, merger: Any, a: Any, b: Any) -> Any:
        """Two framework objects after the two ways of an unknown condition: one, or a refusal."""
        return a if a is b else None

    def transplant(self, target: Any, source: Any, back: Any) -> None:
        """Write the state of ``source`` (a copy) into ``target``, each reference mapped by ``back``."""

    def handed_over(self, core: Any, callee: str, args: list[Any], node: ast.AST) -> None:
        """Framework objects given to a function derive does not read (it may change them)."""

    def extend(self, core: Any, obj: Any, value: Any, node: ast.AST) -> None:
        """``obj += value`` on a framework object."""
        raise core.refuse(node, f"`+=` on {source_of(node)} is not read")

    def delitem(self, core: Any, obj: Any, key: Any, node: ast.AST) -> None:
        """``del obj[key]`` on a framework object."""
        raise core.refuse(node, f"derive does not read `del {source_of(node)}`")

    def unknown_module(self, core: Any, value: Unknown, node: ast.AST) -> Any:
        """A module derive does not know, registered or chosen as the model: refused by default."""
        raise core.refuse(node, f"{value.reason()} may be a module, and derive cannot count it")


class Core:
    """The reader's shared state and helpers (see :class:`derive.models.code.Interpreter`).

    Parameters
    ----------
    semantics : Semantics
    partial : bool
        Count what is known and mark the rest instead of refusing.
    """

    def __init__(self, semantics: Semantics, partial: bool = False) -> None:
        self.semantics = semantics
        self.partial = partial
        self.steps = 0
        self.calls = 0
        self.frame = Frame({})
        self.module_frame = self.frame
        self.stack: list[Frame] = [self.frame]
        self.notes: list[str] = []
        self.line = 0
        #: SymPy symbol -> why it has no value (a parameter of an uninstantiated class)
        self.symbol_origins: dict[Any, str] = {}

    def step(self, node: ast.AST) -> None:
        """Count one statement or expression; refuse past :data:`MAX_STEPS`.

        Parameters
        ----------
        node : ast.AST

        Raises
        ------
        Refused
            Too many steps (a loop too long to read).
        """
        self.steps += 1
        line = getattr(node, "lineno", None)
        if line is not None:
            self.line = line
        if self.steps > MAX_STEPS:
            raise Refused(
                f"line {self.line}: more than {MAX_STEPS:,} steps to read; derive stops here (a loop too long?)"
            )

    def refuse(self, node: ast.AST | None, message: str) -> Refused:
        """A refusal at ``node``'s line (raise it).

        Parameters
        ----------
        node : ast.AST or None
        message : str

        Returns
        -------
        Refused
        """
        line = getattr(node, "lineno", None) or self.line
        return Refused(f"line {line}: {message}")

    def note(self, text: str) -> None:
        """Add a note shown under the report (once).

        Parameters
        ----------
        text : str
        """
        if text not in self.notes:
            self.notes.append(text)

    def python_builtin(self, name: str) -> bool:
        """Whether ``name`` is one of Python's builtins (never a size symbol).

        Parameters
        ----------
        name : str

        Returns
        -------
        bool
        """
        return name in _PYTHON

    # -- provided by the layers of the reader (operators, expressions, calls, statements) ----------
    def eval(self, node: ast.AST) -> Any:  # pragma: no cover
        raise NotImplementedError

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:  # pragma: no cover
        raise NotImplementedError

    def eval_call(self, node: ast.Call) -> Any:  # pragma: no cover
        raise NotImplementedError

    def assign(self, target: ast.AST, value: Any) -> None:  # pragma: no cover
        raise NotImplementedError

    def set_attr(self, obj: Any, name: str, value: Any, node: ast.AST) -> None:  # pragma: no cover
        raise NotImplementedError

    def get_attr(self, value: Any, name: str, node: ast.AST) -> Any:  # pragma: no cover
        raise NotImplementedError

    def builtin(self, name: str) -> Any:  # pragma: no cover
        raise NotImplementedError

    def exec_block(self, statements: list[ast.stmt]) -> None:  # pragma: no cover
        raise NotImplementedError

    def fork_values(self, node: ast.AST, test: Any, a: ast.expr, b: ast.expr) -> Any:  # pragma: no cover
        raise NotImplementedError
