"""Calls: the code's functions and classes run by the reader, packages' names handed to the framework.

A function of the code is called with its arguments bound as Python binds them (positional,
keyword, defaults, ``*args``, ``**kwargs``, keyword-only); a class is instantiated by running its
``__init__`` (found along its bases, ``super().__init__(...)`` included) — a class with a framework
base (``nn.Module``) gets a framework object from the :class:`~.semantics.Semantics`, a dataclass its
fields. ``functools.partial``, bound methods, ``staticmethod``/``classmethod``/``property`` work
as in Python. A name from a package is the framework's to call; a name neither defined nor
imported, called, is a module derive does not know.
"""

from __future__ import annotations

import ast
from typing import Any

from ...._sympy import sympy
from .attributes import Attributes
from .builtins import BUILTINS
from .frame import MAX_CALLS, Frame, source_of
from .stdlib import call_stdlib
from .values import (
    MISSING,
    BoundMethod,
    Builtin,
    Class,
    FieldSpec,
    Function,
    Instance,
    Partial,
    Ref,
    Return,
    SuperProxy,
    Unknown,
    Wrapped,
)

__all__ = ["Calls", "SuperProxy"]


#: Python's builtins derive does not run whose results are plain values, never modules.
_PLAIN_BUILTINS = frozenset(
    [
        "open",
        "input",
        "id",
        "hash",
        "dir",
        "repr",
        "format",
        "ord",
        "chr",
        "bin",
        "hex",
        "oct",
        "ascii",
        "locals",
        "globals",
        "vars",
        "__import__",
    ]
)


def _has_yield(node: ast.AST) -> bool:
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(child))
    return False


class Calls(Attributes):
    """The call half of the reader (mixed into :class:`derive.read.code.python.Interpreter`)."""

    def builtin(self, name: str) -> Any:
        """The builtin ``name`` derive evaluates, or None.

        Parameters
        ----------
        name : str

        Returns
        -------
        Builtin or None
        """
        return BUILTINS.get(name)

    # -- calls ---------------------------------------------------------------------------------
    def eval_call(self, node: ast.Call) -> Any:
        """Evaluate a call expression.

        Parameters
        ----------
        node : ast.Call

        Returns
        -------
        object
        """
        func_node = node.func
        if isinstance(func_node, ast.Name) and not self.frame.lookup(func_node.id)[0]:
            name = func_node.id
            if self.builtin(name) is None and self.semantics.free_name(name) is None:
                if self.python_builtin(name):
                    kind = "value" if name in _PLAIN_BUILTINS else "module"  # eval(...) may make a module
                    return Unknown(f"{name}(...)", f"Python's {name} is not evaluated by derive", node.lineno, kind)
                return Unknown(name, "unknown name", node.lineno, "module")
        func = self.eval(func_node)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                value = self.eval(arg.value)
                items = self.iterate(value, arg)
                if items is None:
                    raise self.refuse(node, f"{_short(node)}: unpacked arguments hide the sizes; write them out")
                args.extend(items)
            else:
                args.append(self.eval(arg))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value)
            if keyword.arg is None:
                if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                    raise self.refuse(node, f"{_short(node)}: unpacked arguments hide the sizes; write them out")
                kwargs.update(value)
            else:
                kwargs[keyword.arg] = value
        return self.call(func, args, kwargs, node)

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``func(*args, **kwargs)``.

        Parameters
        ----------
        func : object
        args : list
        kwargs : dict
        node : ast.AST
            The call (for lines and messages).

        Returns
        -------
        object
        """
        if isinstance(func, Function):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, BoundMethod):
            return self.call_function(func.function, [func.obj, *args], kwargs, node)
        if isinstance(func, Builtin):
            return func.call(self, args, kwargs, node)
        if isinstance(func, Class):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, Partial):
            return self.call(func.func, [*func.args, *args], {**dict(func.kwargs), **kwargs}, node)
        if isinstance(func, Ref):
            known = call_stdlib(self, func.path, args, kwargs, node)
            if known is not NotImplemented:
                return known
            assert isinstance(node, ast.Call)
            return self.semantics.call_ref(self, func, args, kwargs, node)
        if isinstance(func, Unknown):
            self.semantics.handed_over(self, source_of(getattr(node, "func", node)), [*args, *kwargs.values()], node)
            return func.derived(source_of(node), "module")
        if self.semantics.owns(func):
            assert isinstance(node, ast.Call)
            return self.semantics.call_object(self, func, args, kwargs, node)
        if isinstance(func, Wrapped):
            return self.call(func.function, args, kwargs, node)
        if isinstance(func, sympy.Basic):
            return Unknown(
                source_of(node),
                self.why_unknown(func, getattr(node, "func", node)),
                getattr(node, "lineno", 0),
                "module",
            )
        return Unknown(source_of(node), f"calling a {type(func).__name__} is not read", getattr(node, "lineno", 0))

    def bind(
        self, fn: Function, args: list[Any], kwargs: dict[str, Any], node: ast.AST, shown: str, skip: int = 0
    ) -> dict[str, Any]:
        """``fn``'s parameters bound to ``args`` and ``kwargs`` as Python binds them.

        Parameters
        ----------
        fn : Function
        args : list
        kwargs : dict
        node : ast.AST
        shown : str
            The name in messages (``"Net()"``).
        skip : int
            Leading parameters not counted in the message (``self``).

        Returns
        -------
        dict

        Raises
        ------
        Refused
            Python's TypeError, in Python's words.
        """
        spec = fn.node.args
        positional = [a.arg for a in (*spec.posonlyargs, *spec.args)]
        defaults = dict(zip(positional[len(positional) - len(fn.defaults) :], fn.defaults))
        bound: dict[str, Any] = {}
        if len(args) > len(positional) and spec.vararg is None:
            raise self.refuse(
                node,
                f"{shown} takes {len(positional) - skip} positional arguments but {len(args) - skip} were given",
            )
        bound.update(zip(positional, args))
        if spec.vararg is not None:
            bound[spec.vararg.arg] = tuple(args[len(positional) :])
        extra: dict[str, Any] = {}
        names = set(positional) | {a.arg for a in spec.kwonlyargs}
        for key, value in kwargs.items():
            if key in names and key not in [a.arg for a in spec.posonlyargs]:
                if key in bound:
                    raise self.refuse(node, f"{shown} got multiple values for argument {key!r}")
                bound[key] = value
            elif spec.kwarg is not None:
                extra[key] = value
            else:
                raise self.refuse(node, f"{shown} got an unexpected keyword argument {key!r}")
        for name in positional:
            if name not in bound:
                if name not in defaults:
                    raise self.refuse(node, f"{shown} missing required argument {name!r}")
                bound[name] = defaults[name]
        for a in spec.kwonlyargs:
            if a.arg not in bound:
                if a.arg not in fn.kw_defaults:
                    raise self.refuse(node, f"{shown} missing required argument {a.arg!r}")
                bound[a.arg] = fn.kw_defaults[a.arg]
        if spec.kwarg is not None:
            bound[spec.kwarg.arg] = extra
        return bound

    def call_function(
        self, fn: Function, args: list[Any], kwargs: dict[str, Any], node: ast.AST, shown: str = "", skip: int = 0
    ) -> Any:
        """Run a function of the code.

        Parameters
        ----------
        fn : Function
        args : list
        kwargs : dict
        node : ast.AST
        shown : str, optional
            The name in messages.
        skip : int
            Leading parameters not counted in messages (``self`` of ``Net()``).

        Returns
        -------
        object
            Its return value (None without a ``return``).
        """
        shown = shown or f"{fn.name}()"
        bound = self.bind(fn, args, kwargs, node, shown, skip)
        if isinstance(fn.node, ast.Lambda):
            return self._in_frame(fn, bound, lambda: self.eval(fn.node.body))
        if _has_yield(fn.node):
            return Unknown(
                source_of(node), f"{fn.name} is a generator, which derive does not read", getattr(node, "lineno", 0)
            )
        return self._in_frame(fn, bound, lambda: self._run_body(fn))

    def _run_body(self, fn: Function) -> Any:
        assert isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef))
        try:
            self.exec_block(fn.node.body)
        except Return as value:
            return value.value
        return None

    def _in_frame(self, fn: Function, bound: dict[str, Any], run: Any) -> Any:
        self.calls += 1
        if self.calls > MAX_CALLS:
            self.calls = 0
            raise self.refuse(None, f"calls nested too deeply (more than {MAX_CALLS}): modules nested too deeply")
        first = next(iter(bound), None)
        outer = self.frame
        self.frame = Frame(bound, fn.closure, fn.name, owner_class=fn.owner, first_name=first)
        self.stack.append(self.frame)
        try:
            return run()
        finally:
            self.stack.pop()
            self.frame = outer
            self.calls = max(self.calls - 1, 0)

    # -- classes -------------------------------------------------------------------------------
    def instantiate(self, cls: Class, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``cls(*args, **kwargs)``: a new object, its ``__init__`` run.

        Parameters
        ----------
        cls : Class
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        object
            An :class:`Instance`, or the framework's object for a class with a framework base.
        """
        obj = self.semantics.new_object(self, cls, node)
        if obj is None:
            obj = Instance(cls)
        init, owner = cls.lookup("__init__")
        if isinstance(init, Function):
            self.call_function(init, [obj, *args], kwargs, node, f"{cls.name}()", skip=1)
        elif cls.dataclass:
            self._dataclass_init(cls, obj, args, kwargs, node)
        elif obj is not None and not isinstance(obj, Instance):
            base = next((b for b in cls.mro() if isinstance(b, Ref)), None)
            if base is not None:
                self.semantics.init_base(self, obj, base, args, kwargs, node)
        elif args or kwargs:
            raise self.refuse(node, f"{cls.name}() takes no arguments")
        post, _ = cls.lookup("__post_init__")
        if isinstance(post, Function):
            self.call_function(post, [obj], {}, node)
        return obj

    def _dataclass_init(self, cls: Class, obj: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        fields: list[tuple[str, Any]] = []
        for klass in reversed([c for c in cls.mro() if isinstance(c, Class)]):
            for name, default in klass.fields:
                fields = [f for f in fields if f[0] != name] + [(name, default)]
        names = [n for n, _ in fields]
        if len(args) > len(names):
            raise self.refuse(node, f"{cls.name}() takes {len(names)} positional arguments but {len(args)} were given")
        given = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise self.refuse(node, f"{cls.name}() got an unexpected keyword argument {key!r}")
            given[key] = value
        for name, default in fields:
            if name in given:
                value = given[name]
            elif isinstance(default, FieldSpec) and default.factory is not None:
                value = self.call(default.factory, [], {}, node)
            elif isinstance(default, FieldSpec):
                value = default.default
            else:
                value = default
            if value is MISSING:
                raise self.refuse(node, f"{cls.name}() missing required argument {name!r}")
            self.set_attr(obj, name, value, node)


def _short(node: ast.AST) -> str:
    func = getattr(node, "func", None)
    text = source_of(func) if func is not None else source_of(node)
    return text.rsplit(".", 1)[-1]
