"""Attributes: of the code's objects and classes (methods bound, properties read, ``super()``),
of packages' names (a :class:`~.values.Ref` further down the path), of framework objects (the
:class:`~.semantics.Semantics`) and of Python's own values (:mod:`.methods`).
"""

from __future__ import annotations

import ast
from typing import Any

from .expressions import Expressions
from .frame import source_of
from .methods import plain_attr
from .stdlib import stdlib_value
from .values import BoundMethod, Builtin, Class, Function, Instance, Ref, SuperProxy, Unknown, Wrapped

__all__ = ["Attributes", "SuperProxy"]


class Attributes(Expressions):
    """The attribute layer of the reader (mixed into :class:`derive.read.code.python.Interpreter`)."""

    # -- attributes ----------------------------------------------------------------------------
    def get_attr(self, value: Any, name: str, node: ast.AST) -> Any:
        """``value.name``.

        Parameters
        ----------
        value : object
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(value, Unknown):
            return value.derived(source_of(node), "module" if value.kind == "module" else "value")
        if isinstance(value, Ref):
            if name == "__name__":
                return value.name
            known = stdlib_value(value.path + "." + name)
            return value.attr(name) if known is None else known
        if self.semantics.owns(value):
            return self.semantics.getattr(self, value, name, node)
        if isinstance(value, Instance):
            return self.instance_attr(value, name, node)
        if isinstance(value, Class):
            return self._class_attr(value, name, node)
        if isinstance(value, SuperProxy):
            return self._super_attr(value, name, node)
        if isinstance(value, BoundMethod) and name == "__name__":
            return value.function.name
        return plain_attr(self, value, name, node)

    def instance_attr(self, value: Instance, name: str, node: ast.AST) -> Any:
        """An attribute of an object of a code class: its own, else its class's (methods bound).

        Parameters
        ----------
        value : Instance
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        if name in value.attrs:
            return value.attrs[name]
        if name == "__dict__":
            return value.attrs
        if value.cls is not None:
            if name == "__class__":
                return value.cls
            found, owner = value.cls.lookup(name)
            if owner is not None:
                return self.bind_attr(found, value, node)
        why = f"{value.cls.name if value.cls else 'the namespace'} object has no attribute {name!r} derive knows"
        return Unknown(source_of(node), why, getattr(node, "lineno", 0))

    def bind_attr(self, found: Any, obj: Any, node: ast.AST) -> Any:
        """A class attribute seen from ``obj``: functions bound, properties read.

        Parameters
        ----------
        found : object
        obj : object
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(found, Function):
            return BoundMethod(found, obj)
        if isinstance(found, Wrapped):
            if found.kind == "staticmethod":
                return found.function
            if found.kind == "classmethod":
                cls = obj if isinstance(obj, Class) else getattr(obj, "cls", None)
                return BoundMethod(found.function, cls)
            if found.kind == "property":
                return self.call(found.function, [obj], {}, node)
        return found

    def _class_attr(self, cls: Class, name: str, node: ast.AST) -> Any:
        if name == "__name__":
            return cls.name
        found, owner = cls.lookup(name)
        if owner is None:
            return Unknown(
                source_of(node), f"class {cls.name} has no attribute {name!r} derive knows", getattr(node, "lineno", 0)
            )
        if isinstance(found, Wrapped) and found.kind in ("classmethod", "staticmethod"):
            return self.bind_attr(found, cls, node)
        return found

    def _super_attr(self, proxy: SuperProxy, name: str, node: ast.AST) -> Any:
        obj_cls = getattr(proxy.obj, "cls", None)
        mro = obj_cls.mro() if isinstance(obj_cls, Class) else proxy.cls.mro()
        after = mro[mro.index(proxy.cls) + 1 :] if proxy.cls in mro else []
        for base in after:
            if isinstance(base, Class):
                if name in base.namespace:
                    return self.bind_attr(base.namespace[name], proxy.obj, node)
                continue
            if name == "__init__":
                return Builtin(
                    f"{base.path}.__init__",
                    lambda reader, args, kwargs, call_node, base=base: self.semantics.init_base(
                        self, proxy.obj, base, args, kwargs, call_node
                    ),
                )
            return Unknown(source_of(node), f"{base.path}.{name} is not read", getattr(node, "lineno", 0))
        if name == "__init__":  # object.__init__
            return Builtin("object.__init__", lambda reader, args, kwargs, call_node: None)
        return Unknown(source_of(node), f"super().{name} is not read", getattr(node, "lineno", 0))
