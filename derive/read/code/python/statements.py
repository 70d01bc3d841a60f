"""Statements of the construction subset: assignments, ``if``, loops, ``try``, ``with``, definitions, imports.

``import`` binds :class:`~.values.Ref` s (nothing is imported); ``def``/``class`` make the code's
functions and classes (decorators applied: ``@dataclass``, ``@staticmethod``, ...). ``if`` on a
known value runs one way; on an unknown one, both (:func:`.flow.fork`). ``for`` runs over a known
sequence (a loop over an unknown one reads its body once on a copy: what it would change becomes
unknown, and a change to modules makes the reader refuse); ``while`` while its test is known.
``try`` runs its body; a body that imports or raises may fail where the code runs, so its handlers
are read as the other way. ``raise`` (and an ``assert`` that fails) stop the way they are on;
``return``, ``break``, ``continue`` work as in Python.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any

from .calls import Calls
from .flow import fork
from .frame import source_of
from .operators import truth
from .packages import absolute
from .values import Break, Class, Continue, FieldSpec, Function, Instance, Ref, Return, Unknown, UserRaise, Wrapped

__all__ = ["Statements"]

_TRANSPARENT = (
    "torch.no_grad",
    "torch.inference_mode",
    "torch.jit",
    "torch.compile",
    "torch.autocast",
    "typing.",
    "abc.abstractmethod",
    "functools.lru_cache",
    "functools.cache",
    "functools.wraps",
)


class Statements(Calls):
    """The statement half of the reader (mixed into :class:`derive.read.code.python.Interpreter`)."""

    def exec_block(self, statements: list[ast.stmt]) -> None:
        """Run statements in the current frame.

        Parameters
        ----------
        statements : list of ast.stmt
        """
        for statement in statements:
            self.exec(statement)

    def exec(self, node: ast.stmt) -> None:
        """Run one statement.

        Parameters
        ----------
        node : ast.stmt

        Raises
        ------
        Refused
            A construct derive does not read, where it matters.
        """
        self.step(node)
        method = getattr(self, f"_exec_{type(node).__name__}", None)
        if method is None:
            raise self.refuse(node, f"{type(node).__name__.lower()} statements are not read by derive")
        method(node)

    # -- simple statements ---------------------------------------------------------------------
    def _exec_Expr(self, node: ast.Expr) -> None:
        self.eval(node.value)

    def _exec_Pass(self, node: ast.Pass) -> None:
        pass

    def _exec_Assign(self, node: ast.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value)

    def _exec_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.eval(node.value))

    def _exec_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Name):
            current = self.lookup(target.id, target)
        elif isinstance(target, ast.Attribute):
            current = self.get_attr(self.eval(target.value), target.attr, target)
        else:
            assert isinstance(target, ast.Subscript)
            current = self.subscript(self.eval(target.value), self.eval(target.slice), target)
        value = self.eval(node.value)
        if isinstance(node.op, ast.Add) and isinstance(current, list):
            items = self.iterate(value, node.value)
            if items is None:
                self.assign(target, Unknown(source_of(target), self.why_unknown(value, node.value), node.lineno))
                return
            current.extend(items)
            return
        if isinstance(node.op, ast.Add) and self.semantics.owns(current):
            self.semantics.extend(self, current, value, node)
            return
        self.assign(target, self.binop(node.op, current, value, node))

    def assign(self, target: ast.AST, value: Any) -> None:
        """Bind ``value`` to an assignment target (a name, an attribute, an item, or an unpacking).

        Parameters
        ----------
        target : ast.AST
        value : object
        """
        if isinstance(target, ast.Name):
            self.frame.owner(target.id).names[target.id] = value
        elif isinstance(target, ast.Attribute):
            self.set_attr(self.eval(target.value), target.attr, value, target)
        elif isinstance(target, ast.Subscript):
            self._set_item(self.eval(target.value), self.eval(target.slice), value, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)
        else:
            raise self.refuse(target, f"assignment to {source_of(target)} is not read")

    def _unpack(self, target: ast.Tuple | ast.List, value: Any) -> None:
        items = self.iterate(value, target)
        starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
        if items is None:
            for element in target.elts:
                inner = element.value if isinstance(element, ast.Starred) else element
                self.assign(
                    inner, Unknown(source_of(inner), self.why_unknown(value, target), getattr(target, "lineno", 0))
                )
            return
        items = list(items)
        if starred:
            k = starred[0]
            after = len(target.elts) - k - 1
            groups = [*items[:k], list(items[k : len(items) - after]), *items[len(items) - after :]]
        else:
            groups = items
        if len(groups) != len(target.elts) or (starred and len(items) < len(target.elts) - 1):
            raise self.refuse(target, f"cannot unpack {len(items)} values into {len(target.elts)} names")
        for element, item in zip(target.elts, groups):
            self.assign(element, item)

    def set_attr(self, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``obj.name = value``.

        Parameters
        ----------
        obj : object
        name : str
        value : object
        node : ast.AST
        """
        if self.semantics.owns(obj):
            self.semantics.setattr(self, obj, name, value, node)
        elif isinstance(obj, Instance):
            obj.attrs[name] = value
        elif isinstance(obj, Class):
            obj.namespace[name] = value
        # an attribute set on an unknown object, a function or a size: nothing derive reads

    def _set_item(self, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        if self.semantics.owns(obj):
            self.semantics.setitem(self, obj, key, value, node)
        elif isinstance(obj, list) and isinstance(key, int) and not isinstance(key, bool):
            if -len(obj) <= key < len(obj):
                obj[key] = value
        elif isinstance(obj, dict):
            if isinstance(key, Unknown):
                if self.has_modules(value):
                    raise self.refuse(node, f"a module stored under a key derive does not know: {key.reason()}")
                return
            try:
                obj[key] = value
            except TypeError:
                raise self.refuse(node, "a dict key that is not hashable") from None

    def has_modules(self, value: Any) -> bool:
        """Whether ``value`` holds modules or parameters (see :class:`.flow.Merger`).

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        from .flow import Merger

        return Merger(self, ast.Pass(), "").has_modules(value)

    def _exec_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.frame.owner(target.id).names.pop(target.id, None)
            elif isinstance(target, ast.Attribute):
                obj = self.eval(target.value)
                if self.semantics.owns(obj):
                    self.semantics.delattr(self, obj, target.attr, target)
                elif isinstance(obj, Instance):
                    obj.attrs.pop(target.attr, None)
            elif isinstance(target, ast.Subscript):
                obj, key = self.eval(target.value), self.eval(target.slice)
                if isinstance(obj, dict):
                    obj.pop(key, None)
                elif isinstance(obj, list) and isinstance(key, (int, slice)):
                    del obj[key]
                elif self.semantics.owns(obj):
                    self.semantics.delitem(self, obj, key, target)

    def _exec_Global(self, node: ast.Global) -> None:
        self.frame.nonlocals.update(node.names)

    def _exec_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.frame.nonlocals.update(node.names)

    def _exec_Return(self, node: ast.Return) -> None:
        raise Return(None if node.value is None else self.eval(node.value))

    def _exec_Break(self, node: ast.Break) -> None:
        raise Break

    def _exec_Continue(self, node: ast.Continue) -> None:
        raise Continue

    def _exec_Raise(self, node: ast.Raise) -> None:
        raise UserRaise(node.lineno, source_of(node, 80))

    def _exec_Assert(self, node: ast.Assert) -> None:
        test = self.eval(node.test)
        if truth(test, self.semantics.length(test) if self.semantics.owns(test) else None) is False:
            raise UserRaise(node.lineno, source_of(node, 80))

    def _exec_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.frame.names[alias.asname] = Ref(alias.name)
            else:
                head = alias.name.split(".")[0]
                self.frame.names[head] = Ref(head)

    def _exec_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = absolute(self.frame, node)
        for alias in node.names:
            if alias.name == "*":
                continue
            self.frame.names[alias.asname or alias.name] = Ref(f"{module}.{alias.name}")

    # -- definitions ---------------------------------------------------------------------------
    def _exec_FunctionDef(self, node: ast.FunctionDef) -> None:
        defaults = [self.eval(d) for d in node.args.defaults]
        kw = {a.arg: self.eval(d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None}
        owner = self.frame.names.get("__class__")
        fn: Any = Function(node.name, node, self._closure(), defaults, kw, owner if isinstance(owner, Class) else None)
        self.frame.names[node.name] = self._decorate(fn, node.decorator_list)

    def _exec_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.frame.names[node.name] = Unknown(node.name, "an async function, which derive does not read", node.lineno)

    def _closure(self) -> Any:
        """The frame functions defined here read their free names from (a class body's is skipped)."""
        frame = self.frame
        while frame.function.startswith("<class "):
            assert frame.parent is not None
            frame = frame.parent
        return frame

    def _decorate(self, value: Any, decorators: list[ast.expr]) -> Any:
        for decorator in reversed(decorators):
            head = decorator.func if isinstance(decorator, ast.Call) else decorator
            named = self.eval(head) if isinstance(head, (ast.Name, ast.Attribute)) else None
            if isinstance(named, Ref) and named.path.startswith(_TRANSPARENT):
                continue  # @torch.no_grad(), @torch.jit.script ...: the function itself
            applied = self.eval(decorator)
            if isinstance(applied, Unknown):
                return applied.derived(source_of(decorator), "module")
            value = self.call(applied, [value], {}, decorator)
        return value

    def _exec_ClassDef(self, node: ast.ClassDef) -> None:
        bases = [self.eval(b) for b in node.bases]
        cls = Class(node.name, bases, {}, node.lineno)
        outer = self.frame
        from .frame import Frame

        self.frame = Frame(cls.namespace, outer, f"<class {node.name}>")
        cls.namespace["__class__"] = cls
        try:
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    default = self.eval(statement.value) if statement.value is not None else None
                    from .values import MISSING

                    cls.fields.append((statement.target.id, MISSING if statement.value is None else default))
                    if statement.value is not None and not isinstance(default, FieldSpec):
                        cls.namespace[statement.target.id] = default
                    continue
                self.exec(statement)
        finally:
            self.frame = outer
        del cls.namespace["__class__"]
        for value in list(cls.namespace.values()):
            if isinstance(value, Function) and value.owner is None:
                value.owner = cls
            if isinstance(value, Wrapped) and isinstance(value.function, Function):
                value.function.owner = cls
        self.frame.names[node.name] = self._decorate(cls, node.decorator_list)

    # -- compound statements -------------------------------------------------------------------
    def _exec_If(self, node: ast.If) -> None:
        test = self.eval(node.test)
        known = truth(test, self.semantics.length(test) if self.semantics.owns(test) else None)
        if known is None:
            why = self.why_unknown(test, node.test)
            fork(self, node, why, lambda: self.exec_block(node.body), lambda: self.exec_block(node.orelse))
        else:
            self.exec_block(node.body if known else node.orelse)

    def fork_values(self, node: ast.AST, test: Any, a: ast.expr, b: ast.expr) -> Any:
        """A conditional expression whose test is not known: both values, merged.

        Parameters
        ----------
        node : ast.AST
        test : object
        a, b : ast.expr

        Returns
        -------
        object
        """
        why = self.why_unknown(test, getattr(node, "test", node))
        return fork(self, node, why, lambda: self.eval(a), lambda: self.eval(b))

    def _exec_For(self, node: ast.For) -> None:
        iterable = self.eval(node.iter)
        items = self.iterate(iterable, node.iter)
        if items is None:
            self._unknown_loop(node, self.why_unknown(iterable, node.iter), node.target)
            return
        for item in items:
            self.step(node)
            self.assign(node.target, item)
            try:
                self.exec_block(node.body)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(node.orelse)

    def _exec_While(self, node: ast.While) -> None:
        while True:
            self.step(node)
            test = self.eval(node.test)
            known = truth(test, self.semantics.length(test) if self.semantics.owns(test) else None)
            if known is None:
                self._unknown_loop(node, self.why_unknown(test, node.test), None)
                return
            if not known:
                break
            try:
                self.exec_block(node.body)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(node.orelse)

    def _unknown_loop(self, node: ast.For | ast.While, why: str, target: ast.AST | None) -> None:
        def once() -> None:
            if target is not None:
                self.assign(target, Unknown(source_of(target), why, node.lineno))
            with contextlib.suppress(Break, Continue):
                self.exec_block(node.body)

        fork(self, node, why, once, lambda: None)

    def _exec_With(self, node: ast.With) -> None:
        for item in node.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(
                    item.optional_vars,
                    Unknown(
                        source_of(item.optional_vars),
                        f"the value of `with {source_of(item.context_expr)}`",
                        node.lineno,
                    )
                    if not isinstance(value, Unknown)
                    else value,
                )
        self.exec_block(node.body)

    def _exec_Try(self, node: ast.Try) -> None:
        def body() -> None:
            self.exec_block(node.body)
            self.exec_block(node.orelse)

        def handler(index: int) -> Any:
            def run() -> None:
                handler_node = node.handlers[index]
                if handler_node.name:
                    self.frame.names[handler_node.name] = Unknown(
                        handler_node.name, "an exception", handler_node.lineno
                    )
                self.exec_block(handler_node.body)

            if index + 1 == len(node.handlers):
                return run
            return lambda: fork(self, node, "whether an exception is raised", run, handler(index + 1))

        risky = any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Raise)) for s in node.body for n in ast.walk(s))
        try:
            if node.handlers and risky:
                fork(self, node, "whether the `try` block raises an exception", body, handler(0))
            else:
                body()
        finally:
            self.exec_block(node.finalbody)

    _exec_TryStar = _exec_Try
