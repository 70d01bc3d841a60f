"""Scopes and the reader's limits: frames, name lookup, the code of a node.

A :class:`Frame` is one running scope (the module, a function call, a class body, a
comprehension): its own names and the frame its free names are read from (the enclosing function,
not a class body, as in Python). The reader's shared state is a :class:`~.core.Core`; the
framework's rules (what ``nn`` and ``nn.Linear`` mean) come from a :class:`~.semantics.Semantics`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ...source import clean

__all__ = ["Frame", "MAX_STEPS", "MAX_CALLS", "MAX_ITEMS", "MAX_INT", "source_of"]

#: Statements and expressions read before giving up (a loop too long to read).
MAX_STEPS = 300_000
#: Calls of the code's own functions and classes nested in each other.
MAX_CALLS = 20
#: Items of one list, tuple, dict or range the reader builds.
MAX_ITEMS = 100_000
#: Largest magnitude of an int the reader computes (a literal or a result).
MAX_INT = 10**30


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
