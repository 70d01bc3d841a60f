"""Both ways of a condition derive cannot know: read each, and keep what they agree on.

When an ``if`` (a loop, a ``try``, a conditional expression) depends on a value derive does not
know, the reader runs each way on its own copy of the state (the names of every running scope
and the objects they reach) and merges the two: what is the same either way is kept; a plain
value that differs becomes an :class:`~.values.Unknown` naming the condition; parameters or
modules that differ make the reader refuse, naming the line and the condition — a model built
one way or the other has no single count. A way that raises (``raise``) is not the way the
model is built; the other is kept.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from .frame import Frame, source_of
from .values import Break, Continue, Instance, Refused, Return, Unknown, UserRaise

if TYPE_CHECKING:
    from .core import Core

__all__ = ["Merger", "fork"]

_SCALARS = (int, float, str, bool, type(None), sympy.Basic)


class Merger:
    """Merges the states after two ways of one unknown condition.

    Parameters
    ----------
    core : Interpreter
    node : ast.AST
        The statement or expression whose condition is unknown.
    why : str
        Why the condition is not known (for messages).
    """

    def __init__(self, core: Core, node: ast.AST, why: str) -> None:
        self.core = core
        self.node = node
        self.why = why
        self.done: dict[tuple[int, int], Any] = {}

    def poison(self, name: str) -> Unknown:
        """The value of ``name`` that differs between the two ways.

        Parameters
        ----------
        name : str

        Returns
        -------
        Unknown
        """
        line = getattr(self.node, "lineno", 0)
        return Unknown(name, f"it differs between the two ways of line {line}, which depends on {self.why}", line)

    def refusal(self, what: str) -> Refused:
        """The refusal for modules or parameters that differ between the two ways.

        Parameters
        ----------
        what : str

        Returns
        -------
        Refused
        """
        return self.core.refuse(
            self.node,
            f"the modules and parameters built depend on `{source_of(_test(self.node))}`, which derive cannot "
            f"know: {self.why} (they differ in {what})",
        )

    def has_modules(self, value: Any, seen: set[int] | None = None) -> bool:
        """Whether ``value`` holds framework modules or parameters.

        Parameters
        ----------
        value : object
        seen : set of int, optional

        Returns
        -------
        bool
        """
        seen = set() if seen is None else seen
        if id(value) in seen or isinstance(value, _SCALARS):
            return False
        seen.add(id(value))
        if self.core.semantics.owns(value):
            return self.core.semantics.has_modules(value, seen)
        if isinstance(value, (list, tuple, set)):
            return any(self.has_modules(v, seen) for v in value)
        if isinstance(value, dict):
            return any(self.has_modules(v, seen) for v in value.values())
        if isinstance(value, Instance):
            return any(self.has_modules(v, seen) for v in value.attrs.values())
        if isinstance(value, Unknown):
            return value.kind in ("module", "parameter")
        return False

    def value(self, a: Any, b: Any, name: str) -> Any:
        """One value for ``a`` (first way) and ``b`` (second way).

        Parameters
        ----------
        a, b : object
        name : str
            Where the value sits (for messages).

        Returns
        -------
        object

        Raises
        ------
        Refused
            Modules or parameters that differ.
        """
        if a is b:
            return a
        key = (id(a), id(b))
        if key in self.done:
            return self.done[key]
        self.done[key] = a
        merged = self._value(a, b, name)
        self.done[key] = merged
        return merged

    def _value(self, a: Any, b: Any, name: str) -> Any:
        if isinstance(a, _SCALARS) and isinstance(b, _SCALARS):
            if type(a) is type(b) and (a == b if not isinstance(a, sympy.Basic) else a.equals(b) is True or a == b):
                return a
            return self.differs(a, b, name)
        semantics = self.core.semantics
        if semantics.owns(a) and semantics.owns(b):
            merged = semantics.merge(self, a, b)
            if merged is not None:
                return merged
            return self.differs(a, b, name)
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            a[:] = [self.value(x, y, f"{name}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
            return a
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            return tuple(self.value(x, y, f"{name}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
        if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
            for k in a:
                a[k] = self.value(a[k], b[k], f"{name}[{k!r}]")
            return a
        if isinstance(a, set) and isinstance(b, set) and a == b:
            return a
        if isinstance(a, Instance) and isinstance(b, Instance) and a.cls is b.cls:
            self.names(a.attrs, b.attrs, name + ".")
            return a
        return self.differs(a, b, name)

    def differs(self, a: Any, b: Any, name: str) -> Any:
        """``a`` and ``b`` differ: an Unknown, or a refusal when either holds modules.

        Parameters
        ----------
        a, b : object
        name : str

        Returns
        -------
        Unknown
        """
        if self.has_modules(a) or self.has_modules(b):
            raise self.refusal(repr(name))
        return self.poison(name)

    def names(self, a: dict[str, Any], b: dict[str, Any], prefix: str = "") -> None:
        """Merge scope ``b`` into scope ``a`` (in place).

        Parameters
        ----------
        a, b : dict
        prefix : str
        """
        for key in list(a) + [k for k in b if k not in a]:
            if key in a and key in b:
                a[key] = self.value(a[key], b[key], prefix + key)
            else:
                present = a[key] if key in a else b[key]
                if self.has_modules(present):
                    raise self.refusal(repr(prefix + key))
                a[key] = self.poison(prefix + key)


def _test(node: ast.AST) -> ast.AST:
    for field in ("test", "iter"):
        value = getattr(node, field, None)
        if value is not None:
            return value
    return node


Outcome = tuple[str, Any]


def _run(branch: Callable[[], Any]) -> Outcome:
    try:
        return ("value", branch())
    except Return as signal:
        return ("return", signal.value)
    except Break:
        return ("break", None)
    except Continue:
        return ("continue", None)
    except UserRaise as raised:
        return ("raise", raised)


def fork(core: Core, node: ast.AST, why: str, first: Callable[[], Any], second: Callable[[], Any]) -> Any:
    """Run ``first`` and ``second`` each on its own copy of the state; merge; re-raise their outcome.

    The objects the code holds keep their identity: the merged state is written back into them.

    Parameters
    ----------
    core : Interpreter
    node : ast.AST
        The statement or expression with the unknown condition.
    why : str
        Why the condition is not known.
    first, second : callable
        The two ways (each returns a value, or raises Return/Break/Continue/UserRaise).

    Returns
    -------
    object
        The merged value of the two ways (for a conditional expression).

    Raises
    ------
    Refused
        Modules or parameters, or the way control leaves (return, break), differ.
    Return, Break, Continue, UserRaise
        The outcome both ways share.
    """
    scopes = _scopes(core)
    originals = [dict(s) for s in scopes]
    memo_a: dict[int, Any] = {}
    memo_b: dict[int, Any] = {}
    copies_a = copy.deepcopy(originals, memo_a)
    copies_b = copy.deepcopy(originals, memo_b)
    try:
        _load(scopes, copies_a)
        outcome_a = _run(first)
        state_a = [dict(s) for s in scopes]
        _load(scopes, copies_b)
        outcome_b = _run(second)
        state_b = [dict(s) for s in scopes]
    except BaseException:
        _load(scopes, originals)
        raise
    if outcome_a[0] == "raise" and outcome_b[0] == "raise":
        _load(scopes, originals)
        raise outcome_a[1]
    if outcome_a[0] == "raise":
        return _finish(_back(core, scopes, state_b, memo_b, outcome_b))
    if outcome_b[0] == "raise":
        return _finish(_back(core, scopes, state_a, memo_a, outcome_a))
    merger = Merger(core, node, why)
    if outcome_a[0] != outcome_b[0]:
        _load(scopes, originals)
        raise merger.refusal("whether the code returns, breaks or continues")
    try:
        for kept, other in zip(state_a, state_b):
            merger.names(kept, other)
        value = merger.value(outcome_a[1], outcome_b[1], source_of(node))
    except Refused:
        _load(scopes, originals)
        raise
    return _finish(_back(core, scopes, state_a, memo_a, (outcome_a[0], value)))


def _load(scopes: list[dict[str, Any]], values: list[dict[str, Any]]) -> None:
    for scope, new in zip(scopes, values):
        scope.clear()
        scope.update(new)


def _back(
    core: Core, scopes: list[dict[str, Any]], state: list[dict[str, Any]], memo: dict[int, Any], outcome: Outcome
) -> Outcome:
    """Write the copied ``state`` back into the original objects (their identity kept) and the scopes."""
    originals = memo.get(id(memo), [])
    inverse = {id(memo[id(o)]): o for o in originals if id(o) in memo}
    done: dict[int, Any] = {}

    def back(value: Any) -> Any:
        if isinstance(value, (*_SCALARS, Unknown)):
            return value
        if isinstance(value, tuple):
            return tuple(back(v) for v in value)
        target = inverse.get(id(value), value)
        if id(value) in done:
            return done[id(value)]
        done[id(value)] = target
        if isinstance(value, list):
            target[:] = [back(v) for v in value]
        elif isinstance(value, dict):
            items = [(k, back(v)) for k, v in value.items()]
            target.clear()
            target.update(items)
        elif isinstance(value, set):
            members = {back(v) for v in value}
            target.clear()
            target.update(members)
        elif isinstance(value, Instance):
            attrs = {k: back(v) for k, v in value.attrs.items()}
            target.cls = value.cls
            target.attrs.clear()
            target.attrs.update(attrs)
        elif core.semantics.owns(value):
            core.semantics.transplant(target, value, back)
        return target

    _load(scopes, [{k: back(v) for k, v in names.items()} for names in state])
    return outcome[0], back(outcome[1])


def _finish(outcome: Outcome) -> Any:
    kind, value = outcome
    if kind == "return":
        raise Return(value)
    if kind == "break":
        raise Break
    if kind == "continue":
        raise Continue
    return value


def _scopes(core: Core) -> list[dict[str, Any]]:
    """Every scope the running code can reach: the module's and each running frame's, parents too."""
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for start in core.stack + [core.frame]:
        frame: Frame | None = start
        while frame is not None:
            if id(frame.names) not in seen:
                seen.add(id(frame.names))
                out.append(frame.names)
            frame = frame.parent
    return out
