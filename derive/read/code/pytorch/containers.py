"""torch's containers for the code reader: ``Sequential``, ``ModuleList``, ``ModuleDict``,
``ParameterList``, ``ParameterDict`` (and ``nn.Module()``, ``DataParallel``).

Source: ``torch/nn/modules/container.py``. They hold the code's own objects (a module appended
twice is one module): ``append``, ``extend``, ``insert``, ``update``, ``pop``, ``keys``/``values``/
``items``, ``[i]`` (a slice of a ``Sequential`` keeps its keys, of a ``ModuleList`` renumbers
them), ``[i] = m``, ``del``, ``len``, iteration, ``+`` and ``+=``. A ``ParameterList`` makes its
tensors parameters.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..python.frame import source_of
from ..python.values import Ordered, Unknown
from .objects import ModObj, ParamObj, TensorVal

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["ContainerRules"]


class ContainerRules:
    """torch's containers, mixed into :class:`~.semantics.TorchSemantics`."""

    partial: bool

    def register(self, core: Core, obj: ModObj, name: str, value: Any, node: ast.AST) -> None:  # pragma: no cover
        """Register ``value`` as the child ``name`` of ``obj`` (:meth:`.modules.ModuleRules.register`).

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
            ``value`` is not a module, or an unknown one (without ``partial``).
        """
        raise NotImplementedError

    # -- containers ----------------------------------------------------------------------------
    def container(self, core: Core, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> ModObj:
        """``nn.Sequential(...)``, ``nn.ModuleList(...)``, ``nn.ModuleDict(...)``, ``nn.ParameterList(...)``,
        ``nn.ParameterDict(...)``, ``nn.Module()``, ``nn.DataParallel(module)``.

        Parameters
        ----------
        core : Interpreter
        name : str
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        ModObj

        Raises
        ------
        Refused
            An item that is not a module (a tensor for the parameter containers), or items derive
            cannot list.
        """
        obj = ModObj(name, container=name if name not in ("Module", "DataParallel", "DistributedDataParallel") else "")
        arg_nodes = list(getattr(node, "args", []))
        shown = source_of(getattr(node, "func", node)).split("(")[0]
        if name in ("DataParallel", "DistributedDataParallel"):
            self.register(core, obj, "module", args[0] if args else kwargs.get("module"), node)
        elif name == "Sequential":
            if len(args) == 1 and isinstance(args[0], Mapping):
                for key, value in args[0].items():
                    self.register(core, obj, str(key), value, node)
            else:
                starred = any(isinstance(a, ast.Starred) for a in arg_nodes)
                for i, value in enumerate(args):
                    foreign = isinstance(value, Unknown) and value.why.startswith("Python's") and not self.partial
                    if not isinstance(value, (ModObj, Unknown)) or foreign:
                        got = (
                            source_of(arg_nodes[i])
                            if not starred and i < len(arg_nodes)
                            else source_of(None)
                            if value is None
                            else repr(value)
                        )
                        raise core.refuse(node, f"{shown} holds modules; got {got}")
                    self.register(core, obj, str(i), value, node)
        elif name in ("ModuleList", "ParameterList"):
            source = args[0] if args else kwargs.get("modules", kwargs.get("values"))
            if source is not None:
                self._container_method(core, obj, "extend", [source], node)
        elif name in ("ModuleDict", "ParameterDict"):
            source = args[0] if args else kwargs.get("modules", kwargs.get("parameters"))
            if source is not None:
                self._container_method(core, obj, "update", [source], node)
        return obj

    def _container_method(self, core: Core, obj: ModObj, name: str, args: list[Any], node: ast.AST) -> Any:
        params = obj.container in ("ParameterList", "ParameterDict")
        if name == "append":
            self._put(core, obj, str(len(obj.params if params else obj.children)), args[0], node)
            return obj
        if name == "extend":
            items = core.iterate(args[0], node)
            if items is None or isinstance(args[0], ModObj) and not args[0].container:
                kind = "parameters" if params else "modules"
                raise core.refuse(
                    node,
                    f"nn.{obj.container} takes a list of {kind} (or [nn.X(...) for _ in range(n)]); {core.why_unknown(args[0], node)}",
                )
            for item in list(items):
                self._container_method(core, obj, "append", [item], node)
            return obj
        if name == "insert":
            index, value = args
            entries = list(obj.children.values())
            entries.insert(index, value)
            obj.children.clear()
            for i, entry in enumerate(entries):
                self._put(core, obj, str(i), entry, node)
            return None
        if name == "update":
            source = args[0]
            if isinstance(source, ModObj) and source.container.endswith("Dict"):
                source = dict((source.params if params else source.children).items())
            elif isinstance(source, Mapping) and params and not isinstance(source, Ordered):
                source = dict(sorted(source.items()))  # torch sorts a plain mapping's keys here
            pairs = list(source.items()) if isinstance(source, Mapping) else core.iterate(source, node)
            if pairs is None:
                raise core.refuse(node, f"nn.{obj.container}.update of {core.why_unknown(source, node)}")
            for pair in pairs:
                key, value = pair if isinstance(pair, tuple) else (pair, None)
                self._put(core, obj, str(key), value, node)
            return None
        table = obj.params if params else obj.children
        if name == "keys":
            return list(table)
        if name == "values":
            return list(table.values())
        if name == "items":
            return list(table.items())
        if obj.container.endswith("Dict"):  # pop(key)
            return table.pop(str(args[0]), None)
        index = args[0] if args else -1
        value = self.item(core, obj, index, node)
        self.delitem(core, obj, index, node)
        return value

    def _put(self, core: Core, obj: ModObj, key: str, value: Any, node: ast.AST) -> None:
        if obj.container in ("ParameterList", "ParameterDict"):
            if isinstance(value, TensorVal):
                value = ParamObj(value.shape, dtype=value.dtype, complex=value.complex)
            if isinstance(value, Unknown):
                self.register(core, obj, key, Unknown(value.name, value.why, value.line, "parameter"), node)
            if not isinstance(value, ParamObj):
                raise core.refuse(node, f"nn.{obj.container} holds tensors; got {_typename(value)}")
            obj.params[key] = value
            return
        self.register(core, obj, key, value, node)

    def item(self, core: Core, obj: ModObj, key: Any, node: ast.AST) -> Any:
        """``container[key]`` (an index, a slice, a key).

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        key : object
        node : ast.AST

        Returns
        -------
        object
        """
        table: dict[str, Any] = obj.params if obj.container.startswith("Parameter") else obj.children
        if obj.container in ("ModuleDict", "ParameterDict"):
            return table.get(str(key), Unknown(source_of(node), f"no key {key!r}", getattr(node, "lineno", 0)))
        entries = list(table.items())
        if isinstance(key, slice):
            sliced = ModObj(obj.type, container=obj.container or "Sequential")
            for i, (k, v) in enumerate(entries[key]):
                sliced.children[k if obj.container == "Sequential" else str(i)] = v
            return sliced
        if isinstance(key, int) and not isinstance(key, bool) and -len(entries) <= key < len(entries):
            return entries[key][1]
        return Unknown(source_of(node), f"index {key!r} of {obj.type} is not known", getattr(node, "lineno", 0))

    def put_item(self, core: Core, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        """``container[key] = value``.

        Parameters
        ----------
        core : Interpreter
        obj : object
        key : object
            An index (lists) or a key (dicts).
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            ``obj`` is not a container, an index it does not have, or a value it cannot hold.
        """
        if not isinstance(obj, ModObj) or not obj.container:
            raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")
        if obj.container in ("ModuleDict", "ParameterDict"):
            self._put(core, obj, str(key), value, node)
            return
        entries = list(obj.children if not obj.container.startswith("Parameter") else obj.params)
        if not isinstance(key, int) or not -len(entries) <= key < len(entries):
            raise core.refuse(node, f"index {key!r} of {obj.type} is not known")
        self._put(core, obj, entries[key], value, node)

    def delitem(self, core: Core, obj: Any, key: Any, node: ast.AST) -> None:
        """``del container[key]`` (a list's items numbered again, as torch does).

        Parameters
        ----------
        core : Interpreter
        obj : object
        key : object
        node : ast.AST
        """
        if isinstance(obj, ModObj):
            table: dict[str, Any] = obj.params if obj.container.startswith("Parameter") else obj.children
            keys = list(table)
            if isinstance(key, int) and -len(keys) <= key < len(keys):
                del table[keys[key]]
                if not obj.container.endswith("Dict"):  # torch numbers a list's items again
                    entries = list(table.values())
                    table.clear()
                    table.update((str(i), v) for i, v in enumerate(entries))
            else:
                table.pop(str(key), None)

    def iterate(self, core: Core, obj: Any, node: ast.AST) -> list[Any] | None:
        """The items of a container (a ModuleDict: its keys).

        Parameters
        ----------
        core : Interpreter
        obj : object
        node : ast.AST

        Returns
        -------
        list or None
            None when ``obj`` is not a container.
        """
        if not isinstance(obj, ModObj) or not obj.container:
            return None
        table = obj.params if obj.container.startswith("Parameter") else obj.children
        return list(table) if obj.container.endswith("Dict") else [v for v in table.values() if v is not None]

    def length(self, obj: Any) -> Any:
        """``len(container)``.

        Parameters
        ----------
        obj : object

        Returns
        -------
        int or None
            None when ``obj`` is not a container.
        """
        if isinstance(obj, ModObj) and obj.container:
            return len(obj.params if obj.container.startswith("Parameter") else obj.children)
        return None

    def extend(self, core: Core, obj: Any, value: Any, node: ast.AST) -> None:
        """``container += iterable``.

        Parameters
        ----------
        core : Interpreter
        obj : object
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            ``obj`` is not a ``ModuleList``, ``Sequential`` or ``ParameterList``, or items derive
            cannot list.
        """
        if isinstance(obj, ModObj) and obj.container in ("ModuleList", "Sequential", "ParameterList"):
            self._container_method(core, obj, "extend", [value], node)
            return
        raise core.refuse(node, f"`+=` on {obj.type if isinstance(obj, ModObj) else 'a tensor'} is not read")

    def joined(self, left: ModObj, right: ModObj, node: ast.AST) -> ModObj:
        """``ModuleList + ModuleList`` (a new list of the same modules).

        Parameters
        ----------
        left, right : ModObj
        node : ast.AST

        Returns
        -------
        ModObj
        """
        out = ModObj(left.type, container=left.container)
        for i, child in enumerate([*left.children.values(), *right.children.values()]):
            out.children[str(i)] = child
        return out


def _typename(value: Any) -> str:
    if isinstance(value, TensorVal):
        return "torch.FloatTensor"
    return type(value).__name__ if not isinstance(value, ModObj) else value.type
