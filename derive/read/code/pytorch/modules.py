"""``nn.Module``'s own rules, for the code reader: registration, attributes, containers and methods.

Sources: ``torch/nn/modules/module.py`` (``__setattr__``, ``__getattr__``, ``add_module``,
``register_parameter``, ``register_buffer``, ``named_parameters`` and its relatives) and
``container.py`` (``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``: indexing, slicing, ``append``, ``extend``, ``insert``, ``+``, ``+=``).
Methods that change no tensor (``to``, ``cuda``, ``train``, ``apply`` of an initialiser,
hooks) give the module back.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Builtin, Class, Function, Unknown
from .containers import ContainerRules, _typename
from .objects import ModObj, ParamObj, TensorVal
from .tree import walk_modules, walk_tensors

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["ModuleRules"]

_SAME = frozenset(
    [
        "to",
        "cuda",
        "cpu",
        "float",
        "half",
        "double",
        "bfloat16",
        "train",
        "eval",
        "requires_grad_",
        "share_memory",
        "zero_grad",
        "type",
        "apply",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_backward_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "flatten_parameters",
        "reset_parameters",
        "_reset_parameters",
        "init_weights",
        "load_state_dict",
        "register_load_state_dict_post_hook",
        "set_extra_state",
        "compile",
    ]
)
_LISTS = frozenset(
    [
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "children",
        "named_children",
        "modules",
        "named_modules",
    ]
)


class ModuleRules(ContainerRules):
    """``nn.Module``'s rules, mixed into :class:`~.semantics.TorchSemantics`."""

    partial: bool
    _called: dict[int, set[str]]

    def unknown_module(self, core: Core, value: Unknown, node: ast.AST) -> ModObj:  # pragma: no cover
        """A module derive does not know (:meth:`.semantics.TorchSemantics.unknown_module`).

        Parameters
        ----------
        core : Interpreter
        value : Unknown
        node : ast.AST

        Returns
        -------
        ModObj
            A module not counted (``partial``).

        Raises
        ------
        Refused
            Always, without ``partial``.
        """
        raise NotImplementedError

    # -- registration --------------------------------------------------------------------------
    def register(self, core: Core, obj: ModObj, name: str, value: Any, node: ast.AST) -> None:
        """Register ``value`` as the child ``name`` of ``obj`` (``add_module``), or refuse.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        name : str
        value : object
            A module object, None, or an unknown value that may be a module.
        node : ast.AST

        Raises
        ------
        Refused
            ``value`` is not a module, an unknown module (without ``partial``), or a parameter of
            unknown shape.
        """
        if isinstance(value, Unknown):
            if value.kind == "parameter":
                raise core.refuse(node, f"the shape of parameter {name!r} is not known: {value.reason()}")
            value = self.unknown_module(core, value, node)
        if value is not None and not isinstance(value, ModObj):
            raise core.refuse(node, f"{_typename(value)} is not a Module subclass")
        obj.remove(name, keep=obj.children)
        obj.children[name] = value
        obj.touched()

    def setattr(self, core: Core, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``obj.name = value`` as ``nn.Module.__setattr__`` does it.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        name : str
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            A value torch refuses for a parameter or child of that name, or a module derive cannot
            count.
        """
        if not isinstance(obj, ModObj):
            return None
        if isinstance(value, ParamObj) and not value.buffer:
            obj.remove(name, keep=obj.params)
            obj.params[name] = value
            obj.touched()
        elif isinstance(value, Unknown) and value.kind == "parameter":
            self.register(core, obj, name, value, node)
        elif name in obj.params:
            if value is not None:
                raise core.refuse(
                    node,
                    f"cannot assign {_typename(value)!r} as parameter {name!r} (torch.nn.Parameter or None expected)",
                )
            obj.params[name] = None
            obj.touched()
        elif isinstance(value, ModObj) or (isinstance(value, Unknown) and value.kind == "module"):
            self.register(core, obj, name, value, node)
        elif name in obj.children:
            if value is not None:
                raise core.refuse(
                    node,
                    f"cannot assign {_typename(value)!r} as child module {name!r} (torch.nn.Module or None expected)",
                )
            obj.children[name] = None
            obj.touched()
        elif name in obj.buffers:
            obj.buffers[name] = _buffer(value)
        elif self._called_as_module(obj, name) and _maybe_module(value):
            why = core.why_unknown(value, node)
            self.register(
                core,
                obj,
                name,
                Unknown(
                    source_of(node),
                    f"self.{name}(...) is called as a module, and {why}",
                    getattr(node, "lineno", 0),
                    "module",
                ),
                node,
            )
        else:
            obj.attrs[name] = value
        return None

    def _called_as_module(self, obj: ModObj, name: str) -> bool:
        """Whether the code's class calls ``self.<name>(...)`` somewhere (a module kept in that attribute)."""
        if obj.cls is None:
            return False
        key = id(obj.cls)
        if key not in self._called:
            names: set[str] = set()
            for cls in obj.cls.mro():
                if not isinstance(cls, Class):
                    continue
                for value in cls.namespace.values():
                    if isinstance(value, Function):
                        for node in ast.walk(value.node):
                            func = node.func if isinstance(node, ast.Call) else None
                            if (
                                isinstance(func, ast.Attribute)
                                and isinstance(func.value, ast.Name)
                                and func.value.id == "self"
                            ):
                                names.add(func.attr)
            self._called[key] = names
        return name in self._called[key]

    def delattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> None:
        """``del module.name``: the parameter, buffer, child or attribute removed.

        Parameters
        ----------
        core : Interpreter
        obj : object
        name : str
        node : ast.AST
        """
        if isinstance(obj, ModObj):
            obj.remove(name)
            obj.touched()

    # -- attributes ----------------------------------------------------------------------------
    def module_attr(self, core: Core, obj: ModObj, name: str, node: ast.AST) -> Any:
        """``module.name``: an attribute, parameter, buffer or child; a class attribute or method; a
        constructor's argument (``linear.in_features``); one of ``nn.Module``'s methods.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        for table in (obj.attrs, obj.params, obj.buffers, obj.children):
            if name in table:
                return table[name]
        if obj.cls is not None:
            if name == "__class__":
                return obj.cls
            found, owner = obj.cls.lookup(name)
            if owner is not None:
                return core.bind_attr(found, obj, node)
        if obj.origin is not None and name in obj.origin.config:
            return obj.origin.config[name]
        method = self.method(core, obj, name, node)
        if method is not None:
            return method
        if name == "training":
            return True
        return Unknown(
            source_of(node), f"{obj.type} has no attribute {name!r} that derive knows", getattr(node, "lineno", 0)
        )

    def method(self, core: Core, obj: ModObj, name: str, node: ast.AST) -> Builtin | None:
        """``nn.Module``'s (and the containers') methods, bound to ``obj``.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        name : str
        node : ast.AST

        Returns
        -------
        Builtin or None
        """
        if name in _SAME:
            return Builtin(name, lambda reader, args, kwargs, n: obj)
        if name in _LISTS:
            return Builtin(name, lambda reader, args, kwargs, n: self._listing(obj, name, args, kwargs))
        if name in ("add_module", "register_module"):
            return Builtin(name, lambda reader, args, kwargs, n: self._add(reader, obj, args, kwargs, n))
        if name == "register_parameter":
            return Builtin(name, lambda reader, args, kwargs, n: self._register_parameter(reader, obj, args, n))
        if name == "register_buffer":
            return Builtin(name, lambda reader, args, kwargs, n: self._register_buffer(reader, obj, args, kwargs, n))
        if obj.container and name in ("append", "extend", "insert", "update", "pop", "keys", "values", "items"):
            return Builtin(name, lambda reader, args, kwargs, n: self._container_method(reader, obj, name, args, n))
        return None

    def _listing(self, obj: ModObj, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        pairs: list[Any]
        if name in ("children", "named_children"):
            pairs = [(k, v) for k, v in obj.children.items() if v is not None]
        elif name in ("modules", "named_modules"):
            pairs = list(walk_modules(obj))
        else:
            recurse = kwargs.get("recurse", args[-1] if args and isinstance(args[-1], bool) else True)
            pairs = list(walk_tensors(obj, buffers="buffers" in name, recurse=recurse is not False))
        return pairs if name.startswith("named") else [v for _, v in pairs]

    def _add(self, core: Core, obj: ModObj, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        name = args[0] if args else kwargs.get("name")
        value = args[1] if len(args) > 1 else kwargs.get("module")
        if not isinstance(name, str):
            raise core.refuse(node, f"add_module with a name derive does not know: {core.why_unknown(name, node)}")
        self.register(core, obj, name, value, node)

    def _register_parameter(self, core: Core, obj: ModObj, args: list[Any], node: ast.AST) -> None:
        name, value = args[0], args[1]
        if not isinstance(name, str):
            raise core.refuse(
                node, f"register_parameter with a name derive does not know: {core.why_unknown(name, node)}"
            )
        if isinstance(value, Unknown):
            self.register(core, obj, name, Unknown(value.name, value.why, value.line, "parameter"), node)
        elif value is not None and not (isinstance(value, ParamObj) and not value.buffer):
            raise core.refuse(
                node,
                f"cannot assign {_typename(value)!r} object to parameter {name!r} (torch.nn.Parameter or None required)",
            )
        obj.remove(name, keep=obj.params)
        obj.params[name] = value
        obj.touched()

    def _register_buffer(self, core: Core, obj: ModObj, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        name = args[0] if args else kwargs.get("name")
        value = args[1] if len(args) > 1 else kwargs.get("tensor")
        if not isinstance(name, str):
            raise core.refuse(node, f"register_buffer with a name derive does not know: {core.why_unknown(name, node)}")
        obj.remove(name, keep=obj.buffers)
        obj.buffers[name] = _buffer(value)
        if isinstance(value, Unknown):
            core.note(
                f"line {getattr(node, 'lineno', 0)}: the shape of buffer {name!r} is not known: not listed (buffers are not counted)"
            )


def _buffer(value: Any) -> ParamObj | None:
    if isinstance(value, (TensorVal, ParamObj)):
        return ParamObj(tuple(value.shape), False, True, value.dtype, value.complex)
    return None


def _maybe_module(value: Any) -> bool:
    return isinstance(value, (Unknown, sympy.Symbol))
