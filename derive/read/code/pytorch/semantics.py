"""What torch's names mean to the code reader: ``nn.Module`` objects, their registration rules, containers.

A class with a framework base (``nn.Module``, a torch layer, a library module class) makes a
:class:`~.objects.ModObj`; assigning to it follows ``nn.Module.__setattr__`` (a parameter
registers a parameter, a module a child, a tensor over a buffer a buffer, anything else a plain
attribute); ``add_module``, ``register_module``, ``register_parameter``, ``register_buffer`` and
``setattr`` do the same. ``nn.Sequential``, ``nn.ModuleList``, ``nn.ModuleDict``,
``nn.ParameterList`` and ``nn.ParameterDict`` hold the code's own objects (``append``,
``extend``, ``insert``, ``+=``, ``[i] =``, ``*``-unpacked lists). Every other ``torch.nn`` class
is made by its registered constructor (:mod:`derive.layers.torch_nn`), an imported registered class
(``mamba_ssm.Mamba``) by :mod:`.registered`. A name derive does not know, registered as a
module, is refused by name — or, with ``partial``, a module not counted.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ....engine.constructors import lookup
from ..python.frame import source_of
from ..python.imported import auto_class, class_name, config_class, model_class, registered
from ..python.packages import from_package
from ..python.semantics import Semantics
from ..python.values import Class, Ref, Unknown
from .merge import TorchMerge
from .modules import ModuleRules
from .names import EMPTY_BASES, FREE_NAMES, NATIVE, VALUE_PACKAGES, supported, torch_name
from .objects import CONTAINERS, ModObj, ParamObj, TensorVal, adopt
from .params import normalised, parameter
from .registered import RegisteredRules
from .tensors import ELEMENTWISE, FACTORIES, broadcast, create, index, tensor_attr

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["TorchSemantics"]


class TorchSemantics(RegisteredRules, TorchMerge, ModuleRules, Semantics):
    """torch's rules for the code reader (see the module docstring).

    Parameters
    ----------
    partial : bool
        Register a module derive does not know as not counted instead of refusing.
    """

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        self._called: dict[int, set[str]] = {}

    def free_name(self, name: str) -> Any:
        """``nn``, ``torch``, ``F`` and bare ``torch.nn`` class names (``LSTM``) in a snippet without imports;
        so are the classes transformers exports of the architectures derive builds (``LlamaConfig``,
        ``LlamaForCausalLM``, ``AutoModelForCausalLM``).

        Parameters
        ----------
        name : str

        Returns
        -------
        Ref or None
        """
        if name in FREE_NAMES:
            return Ref(FREE_NAMES[name])
        if lookup("torch", name) is not None or name in NATIVE or name == "Parameter":
            return Ref(f"torch.nn.{name}")
        # a line copied from transformers' documentation leaves out ``from transformers import ...``
        exported = f"transformers.{name}"
        if config_class(exported) or model_class(exported) or auto_class(exported):
            return Ref(exported)
        return None

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is a torch object of the reader (a module, a parameter, a tensor).

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        return isinstance(value, (ModObj, ParamObj, TensorVal))

    # -- calls of torch's names ----------------------------------------------------------------
    def call_ref(self, core: Core, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """``nn.Linear(...)``, ``nn.Parameter(...)``, ``torch.zeros(...)``, ``weight_norm(...)`` ...

        Parameters
        ----------
        core : Interpreter
        ref : Ref
        args : list
        kwargs : dict
        node : ast.Call

        Returns
        -------
        object

        Raises
        ------
        Refused
            Arguments torch would refuse, ``weight_norm``/``spectral_norm`` of a module derive cannot
            read, or (without ``partial``) a module handed to a function derive does not read.
        """
        path = ref.path
        written = source_of(node.func)
        name = torch_name(path)
        if path in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return parameter(core, args, kwargs, node)
        if path.startswith("torch.nn.init."):
            return args[0] if args else None
        if path.rsplit(".", 1)[-1] in ("weight_norm", "spectral_norm") and path.startswith("torch.nn.utils"):
            return normalised(core, path, args, kwargs, node)
        if name is not None:
            if name in NATIVE:
                return self.container(core, name, args, kwargs, node)
            if lookup("torch", name) is not None:
                return self.construct(core, name, args, kwargs, node)
            return Unknown(written, "unknown name", node.lineno, "module")
        short = path.removeprefix("torch.")
        if path.startswith("torch.") and short in FACTORIES:
            return create(short, args, kwargs, node)
        if path in ("torch.from_numpy", "numpy.array", "numpy.asarray", "np.array", "np.asarray") and args:
            return create("tensor", args[:1], {}, node)
        numpy = path.removeprefix("numpy.").removeprefix("np.")
        if path.startswith(("numpy.", "np.")) and numpy in (
            "zeros",
            "ones",
            "empty",
            "full",
            "eye",
            "arange",
            "linspace",
        ):
            return create(numpy, args, {}, node)
        if path.startswith("torch.") and short in ELEMENTWISE and args and isinstance(args[0], (TensorVal, ParamObj)):
            return TensorVal(args[0].shape)
        if path.startswith(VALUE_PACKAGES) or path.startswith("torch."):
            return Unknown(written, f"{path}(...) is not read by derive", node.lineno)
        made = self.call_registered(core, ref, args, kwargs, node)
        if made is not NotImplemented:
            return made
        made, why = from_package(core, path, args, kwargs, node)
        if why is None:
            return made
        self.handed_over(core, written, [*args, *kwargs.values()], node)
        return Unknown(written, why, node.lineno, "module")

    def construct(self, core: Core, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> ModObj:
        """A registered ``torch.nn`` class made with the code's arguments.

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
            Arguments torch would refuse (torch's words), or a size derive does not know.
        """
        constructor = lookup("torch", name)
        assert constructor is not None
        plain_args = [self.as_argument(core, a, node) for a in args]
        plain_kwargs = {k: self.as_argument(core, v, node) for k, v in kwargs.items()}
        try:
            made = constructor.make(*plain_args, **plain_kwargs)
        except (TypeError, ValueError) as error:
            message = " ".join(str(error).split())
            unknown = next((a for a in [*args, *kwargs.values()] if _not_known(a)), None)
            if unknown is not None:
                message += f" — {core.why_unknown(unknown, node)}"
            raise core.refuse(node, f"{name}: {message}") from None
        return adopt(made)

    def as_argument(self, core: Core, value: Any, node: ast.AST) -> Any:
        """A value as a registered constructor takes it: a module object as its tree.

        Parameters
        ----------
        core : Interpreter
        value : object
        node : ast.AST

        Returns
        -------
        object
        """
        from .tree import to_tree

        if isinstance(value, ModObj):
            return to_tree(value)
        if isinstance(value, list):
            return [self.as_argument(core, v, node) for v in value]
        if isinstance(value, tuple):
            return tuple(self.as_argument(core, v, node) for v in value)
        return value

    # -- objects -------------------------------------------------------------------------------
    def new_object(self, core: Core, cls: Class, node: ast.AST) -> Any:
        """A module object for a class with a library base (``nn.Module`` and any other package's class).

        Parameters
        ----------
        core : Interpreter
        cls : Class
        node : ast.AST

        Returns
        -------
        ModObj or None
        """
        refs = [b for b in cls.mro() if isinstance(b, Ref)]
        if not refs:
            return None
        obj = ModObj(cls.name, cls)
        for ref in refs:
            name = torch_name(ref.path)
            if name in CONTAINERS:
                obj.container = name
        return obj

    def init_base(self, core: Core, obj: Any, base: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``super().__init__(...)`` reaching a library class.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj
        base : Ref
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        None

        Raises
        ------
        Refused
            Arguments torch would refuse, or (without ``partial``) a base derive does not read.
        """
        name = torch_name(base.path)
        if base.path in EMPTY_BASES or name == "Module" or base.path.endswith("LightningModule"):
            return None
        if name in CONTAINERS:
            made = self.container(core, name, args, kwargs, node)
            obj.params.update(made.params)
            obj.children.update(made.children)
            return None
        found = registered(base.path)
        if (name is not None and lookup("torch", name) is not None) or len(found) == 1:
            if found:
                made = self.construct_registered(core, found[0], args, kwargs, node)
            else:
                made = self.construct(core, str(name), args, kwargs, node)
            if made.frozen:
                raise core.refuse(node, f"{obj.type} subclasses {made.type} with layers derive cannot list one by one")
            obj.params.update(made.params)
            obj.buffers.update(made.buffers)
            obj.children.update(made.children)
            obj.attrs.update(dict(made.origin.config if made.origin is not None else {}))
            return None
        unknown = Unknown(
            base.path, f"the base class {base.path} is not read by derive", getattr(node, "lineno", 0), "module"
        )
        self.register(core, obj, f"<{base.name}>", unknown, node)
        return None

    def getattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> Any:
        """An attribute of a module, parameter or tensor (see :class:`~.modules.ModuleRules`).

        Parameters
        ----------
        core : Interpreter
        obj : ModObj, ParamObj or TensorVal
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(obj, (TensorVal, ParamObj)):
            return tensor_attr(obj, name, node)
        return self.module_attr(core, obj, name, node)

    def subscript(self, core: Core, obj: Any, key: Any, node: ast.AST) -> Any:
        """``module[i]``, ``module[key]``, ``tensor[...]``.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj, ParamObj or TensorVal
        key : object
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(obj, (TensorVal, ParamObj)):
            return index(obj, key, node)
        return self.item(core, obj, key, node)

    def setitem(self, core: Core, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        """``tensor[...] = value`` (an in-place write: no shape changes); ``container[key] = value``.

        Parameters
        ----------
        core : Interpreter
        obj : ModObj, ParamObj or TensorVal
        key, value : object
        node : ast.AST

        Raises
        ------
        Refused
            ``obj`` is a module but not a container, or an index it does not have.
        """
        if isinstance(obj, (TensorVal, ParamObj)):
            return None
        return self.put_item(core, obj, key, value, node)

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """Tensor arithmetic (shapes broadcast); ``ModuleList + ModuleList``.

        Parameters
        ----------
        op : ast.operator
        left, right : object
        node : ast.AST

        Returns
        -------
        TensorVal, ModObj or Unknown
        """
        if isinstance(left, ModObj) and isinstance(right, ModObj) and isinstance(op, ast.Add):
            return self.joined(left, right, node)
        shapes = [v.shape if isinstance(v, (TensorVal, ParamObj)) else () for v in (left, right)]
        plain = all(isinstance(v, (TensorVal, ParamObj, int, float, sympy.Expr)) for v in (left, right))
        if plain and not isinstance(op, ast.MatMult):
            shape = broadcast(shapes[0], shapes[1])
            if shape is not None:
                return TensorVal(shape)
        return Unknown(source_of(node), "this arithmetic on tensors is not read", getattr(node, "lineno", 0))

    def isinstance_of(self, obj: Any, classinfo: Any) -> bool | None:
        """``isinstance`` against ``nn.Module``, a ``torch.nn`` class, ``nn.Parameter``, ``torch.Tensor``.

        Parameters
        ----------
        obj : object
        classinfo : object
            A :class:`~derive.read.code.python.values.Ref` to a torch class, or a class of the code.

        Returns
        -------
        bool or None
        """
        path = getattr(classinfo, "path", None)
        if path is None:
            return False if isinstance(obj, (TensorVal, ParamObj)) else None
        name = torch_name(path) or class_name(path)
        if isinstance(obj, ParamObj):
            return path in ("torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter")
        if isinstance(obj, TensorVal):
            return path == "torch.Tensor"
        if isinstance(obj, ModObj):
            if name == "Module":
                return True
            if obj.cls is not None and classinfo in obj.cls.mro():
                return True
            origin = obj.origin.type if obj.origin is not None else obj.type
            return name is not None and (origin == name or obj.container == name)
        return None

    def handed_over(self, core: Core, callee: str, args: list[Any], node: ast.AST) -> None:
        """A module given to a function derive does not read may come back changed: refused, or (with
        ``partial``) a part not counted added to it.

        Parameters
        ----------
        core : Interpreter
        callee : str
            The function as written.
        args : list
            Its arguments.
        node : ast.AST

        Raises
        ------
        Refused
            A module among them, without ``partial``.
        """
        for value in args:
            if isinstance(value, ModObj) and value.counted:
                if not self.partial:
                    raise core.refuse(
                        node,
                        f"{callee}(...) is not read by derive and receives a module ({value.type}), which it "
                        "may change; --partial counts the rest",
                    )
                core.note(f"line {getattr(node, 'lineno', 0)}: {callee}(...) may change {value.type}: not counted")
                value.children[f"<{callee}>"] = ModObj(
                    callee, counted=False, note="changed by code derive does not read"
                )

    def unknown_module(self, core: Core, value: Unknown, node: ast.AST) -> ModObj:
        """A module derive does not know: a module not counted (``partial``), else a refusal.

        Parameters
        ----------
        core : Interpreter
        value : Unknown
        node : ast.AST

        Returns
        -------
        ModObj

        Raises
        ------
        Refused
            Always, without ``partial``.
        """
        shown = value.name.split("(")[0].rsplit(".", 1)[-1] or value.name
        if not self.partial:
            if value.why == "unknown name":
                raise core.refuse(
                    node,
                    f"unknown name {value.name!r}; supported: {', '.join(supported())} (or --partial to count the rest)",
                )
            where = f"line {value.line}: " if value.line else ""
            raise core.refuse(
                node,
                f"{value.name!r} may be a module, and derive cannot count it ({where}{value.why}); "
                "--partial counts the rest",
            )
        core.note(f"line {value.line or getattr(node, 'lineno', 0)}: {shown} is not known to derive: not counted")
        return ModObj(shown, counted=False, note="unknown module, not counted")


def _not_known(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, sympy.Basic) and bool(value.free_symbols))
