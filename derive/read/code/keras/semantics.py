"""What Keras' names mean to the code reader: layers, ``Input``, ``Sequential``, ``Model``, tensors.

A call of a Keras layer class makes a :class:`~.objects.KLayer` (:mod:`.construct`);
calling it on tensors builds it (:mod:`.apply`); ``keras.Input`` makes a symbolic tensor;
``Sequential([...])`` and ``model.add`` a Sequential, ``keras.Model(inputs, outputs)`` a
functional model (its layers found from the graph, :mod:`.graph`); a class of the code with
a Keras base (``keras.layers.Layer``, ``keras.Model``, a Keras layer) makes a layer whose
``__init__``, ``build`` and ``call`` are the code's. Operations on tensors give shapes
(:mod:`.ops`). A name derive does not know, used as a layer, is refused by name — or, with
``partial``, a layer not counted.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ....engine.constructors import lookup
from ..python.frame import source_of
from ..python.interpreter import Interpreter
from ..python.packages import from_package
from ..python.semantics import Semantics
from ..python.values import Class, Ref, Unknown
from .apply import apply, tensors_in
from .construct import (
    ALIASES,
    OP_AREAS,
    VALUE_AREAS,
    keras_api,
    keras_class,
    layer_name,
    make_input,
    make_layer,
    unknown_layer,
)
from .layer_api import layer_attr, set_layer_attr, tensor_attr
from .merge import KerasMerge
from .models import LEGACY_MODEL_KEYWORDS, make_functional, make_lambda, make_sequential, make_variable
from .objects import KLayer, KTensor, KWeight, Session, snake
from .ops import binop, call_op, subscript

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["KerasSemantics", "KerasInterpreter"]

_FREE = {
    "keras": "keras",
    "layers": "keras.layers",
    "tf": "tensorflow",
    "ops": "keras.ops",
    "models": "keras.models",
}
#: ``keras.layers``' functions that make a merging layer and call it (``layers.add([x, y])``).
_HELPERS = {
    name.lower(): name
    for name in ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot")
}
_TOP = {"Sequential": "keras.Sequential", "Model": "keras.Model", "Input": "keras.Input"}
#: Keras' bases of a layer class of the code (the rest are Keras' own layers, subclassed).
_BASES = frozenset({"Layer", "layers.Layer", "engine.base_layer.Layer", "layers.Wrapper"})
_MODELS = frozenset({"Model", "models.Model", "Functional"})
#: Keyword arguments ``Layer.__init__`` takes (``keras/src/layers/layer.py``).
_LAYER_KWARGS = frozenset(
    [
        "name",
        "dtype",
        "trainable",
        "autocast",
        "input_dim",
        "input_shape",
        "batch_input_shape",
        "batch_size",
        "weights",
        "activity_regularizer",
        "dynamic",
        "input_length",
    ]
)


class KerasSemantics(KerasMerge, Semantics):
    """Keras 3's rules for the code reader (see the module docstring).

    Parameters
    ----------
    partial : bool
        A layer derive does not know is not counted instead of refused.
    """

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        #: the name scopes open (name, layer), innermost last
        self.scopes: list[tuple[str, KLayer]] = []
        #: how deep in layers' calls (0: the top level, where calls are the graph's nodes)
        self.depth = 0
        #: the reader (set by :class:`KerasInterpreter`), for the hooks that are not given it
        self.reader: Any = None

    def free_name(self, name: str) -> Any:
        """``keras``, ``layers``, ``tf``, ``ops``, ``models`` and Keras' class names in a snippet without imports.

        Parameters
        ----------
        name : str

        Returns
        -------
        Ref or None
        """
        if name in _FREE:
            return Ref(_FREE[name])
        if name in _TOP:
            return Ref(_TOP[name])
        if lookup("keras", ALIASES.get(name, name)) is not None or name == "InputLayer":
            return Ref(f"keras.layers.{name}")
        return None

    def owns(self, value: Any) -> bool:
        """Layers, tensors, weights and Keras' state.

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        return isinstance(value, (KLayer, KTensor, KWeight, Session))

    # -- calls of Keras' names -----------------------------------------------------------------
    def call_ref(self, core: Core, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """``layers.Dense(...)``, ``keras.Input(...)``, ``Sequential(...)``, ``keras.Model(...)``, ``ops.add(...)``.

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
        """
        path = ref.path
        written = source_of(node.func)
        api = keras_api(path)
        line = getattr(node, "lineno", 0)
        if api is None:
            if path.startswith(("tensorflow.", "numpy.", "torch.")):
                made = call_op(core, path, args, kwargs, node)
                return Unknown(written, f"{path}(...) is not read by derive", line) if made is NotImplemented else made
            made, why = from_package(core, path, args, kwargs, node)
            if why is None:
                return made
            self.handed_over(core, written, [*args, *kwargs.values()], node)
            return Unknown(written, why, line, "module")
        area, _, name = api.rpartition(".")
        name = ALIASES.get(name, name)
        if area in ("", "models") and name == "Sequential":
            return make_sequential(core, args, kwargs, node)
        if area in ("", "models") and name in ("Model", "Functional"):
            return make_functional(core, args, kwargs, node)
        if area in ("", "layers") and name in ("Input", "InputLayer"):
            return make_input(core, args, kwargs, node, layer=name == "InputLayer")
        if area in ("", "layers") and lookup("keras", name) is not None:
            return make_layer(core, name, args, kwargs, node)
        if area == "layers" and name in _HELPERS:  # keras.layers.add([x, y]): the layer made and called
            inputs = args[0] if args else kwargs.get("inputs")
            made = make_layer(
                core, _HELPERS[name], list(args[1:]), {k: v for k, v in kwargs.items() if k != "inputs"}, node
            )
            return apply(core, made, [inputs], {}, node)
        if area in ("", "layers") and name == "Lambda":
            return make_lambda(core, args, kwargs, node)
        if area == "" and name == "Variable":
            return make_variable(core, args, kwargs, node)
        if area.split(".")[0] in OP_AREAS or area == "" and name[:1].islower():
            made = call_op(core, path, args, kwargs, node)
            return Unknown(written, f"{path}(...) is not read by derive", line) if made is NotImplemented else made
        if area in VALUE_AREAS or area.split(".")[0] in VALUE_AREAS:
            return Unknown(written, f"{path}(...) is not read by derive", line)
        return Unknown(written, "unknown name", line, "module")

    def call_object(self, core: Core, obj: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """A layer called on tensors (built the first time).

        Parameters
        ----------
        core : Interpreter
        obj : object
        args : list
        kwargs : dict
        node : ast.Call

        Returns
        -------
        object
        """
        if isinstance(obj, KLayer):
            return apply(core, obj, args, kwargs, node)
        return self.unknown(node, "calling a tensor is not read")

    # -- objects of the code's classes ---------------------------------------------------------
    def new_object(self, core: Core, cls: Class, node: ast.AST) -> Any:
        """A layer for a class with a Keras base (``keras.layers.Layer``, ``keras.Model``, a Keras layer).

        Parameters
        ----------
        core : Interpreter
        cls : Class
        node : ast.AST

        Returns
        -------
        KLayer or None
        """
        for base in cls.mro():
            if not isinstance(base, Ref):
                continue
            api = keras_api(base.path)
            if api is None:
                continue
            if api in _MODELS or api.endswith(".Model"):
                return KLayer(cls.name, "", "model", cls=cls, line=cls.line)
            if api in _BASES or api.endswith(".Layer") or keras_class(base.path) is not None:
                return KLayer(cls.name, "", "custom", cls=cls, line=cls.line)
        return None

    def init_base(self, core: Core, obj: Any, base: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``super().__init__(...)`` reaching Keras: the layer's name (given, or automatic from its class).

        Parameters
        ----------
        core : Interpreter
        obj : object
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
            A keyword ``Layer.__init__`` does not take.
        """
        if not isinstance(obj, KLayer):
            return None
        made = keras_class(base.path)
        if made is not None and made not in ("Layer",):
            own = make_layer(core, made, args, {**kwargs, "name": kwargs.get("name", "<own>")}, node)
            obj.mirror, obj.type = own.mirror, obj.type
            obj.name = obj.name or layer_name(core, kwargs.get("name"), snake(obj.type), node)
            obj.mirror.name = obj.name
            obj.kind = "layer"
            return None
        if obj.kind == "model" and (args or {"inputs", "input"} & set(kwargs)):
            functional = make_functional(core, args, kwargs, node)
            obj.kind, obj.inputs, obj.outputs, obj.layers = (
                "functional",
                functional.inputs,
                functional.outputs,
                functional.layers,
            )
            obj.built, obj.output = True, functional.output
        read = {"inputs", "outputs", *(LEGACY_MODEL_KEYWORDS if obj.kind == "functional" else ())}
        unexpected = sorted(set(kwargs) - _LAYER_KWARGS - read)
        if unexpected:
            raise core.refuse(node, f"Unrecognized keyword arguments passed to {obj.type}: {unexpected}")
        if not obj.name:
            obj.name = layer_name(core, kwargs.get("name"), snake(obj.type), node)
        return None

    # -- attributes, items, arithmetic ---------------------------------------------------------
    def getattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> Any:
        """An attribute of a layer, tensor or weight.

        Parameters
        ----------
        core : Interpreter
        obj : object
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(obj, KLayer):
            return layer_attr(core, obj, name, node)
        if isinstance(obj, (KTensor, KWeight)):
            return tensor_attr(core, obj, name, node)
        return self.unknown(node, f"{name} of Keras' state is not read")

    def setattr(self, core: Core, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``layer.name = value`` (tracked as Keras tracks it).

        Parameters
        ----------
        core : Interpreter
        obj : object
        name : str
        value : object
        node : ast.AST
        """
        if isinstance(obj, KLayer):
            set_layer_attr(core, obj, name, value, node)

    def subscript(self, core: Core, obj: Any, key: Any, node: ast.AST) -> Any:
        """``tensor[...]``.

        Parameters
        ----------
        core : Interpreter
        obj : object
        key : object
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(obj, (KTensor, KWeight)):
            return subscript(core, obj, key, node)
        return self.unknown(node, "indexing a layer is not read")

    def setitem(self, core: Core, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        """``tensor[...] = value`` (Keras tensors are immutable): refused.

        Parameters
        ----------
        core : Interpreter
        obj : object
        key : object
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            Always (Keras tensors are immutable).
        """
        raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """Arithmetic on tensors and weights (shapes broadcast).

        Parameters
        ----------
        op : ast.operator
        left, right : object
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(left, (KTensor, KWeight)) or isinstance(right, (KTensor, KWeight)):
            return binop(self.reader, op, left, right, node)
        return self.unknown(node, "arithmetic on layers is not read")

    def isinstance_of(self, obj: Any, classinfo: Any) -> bool | None:
        """``isinstance`` against Keras' classes (a layer, a model, a tensor).

        Parameters
        ----------
        obj : object
        classinfo : object

        Returns
        -------
        bool or None
        """
        path = getattr(classinfo, "path", None)
        api = None if path is None else keras_api(path)
        if isinstance(obj, KLayer):
            if isinstance(classinfo, Class):
                return obj.cls is not None and classinfo in obj.cls.mro()
            if api is None:
                return False if path is not None else None
            name = api.rsplit(".", 1)[-1]
            if name == "Layer":
                return True
            if name == "Model":
                return obj.kind in ("model", "sequential", "functional")
            return name in (obj.type, obj.type.split("(")[0])
        if isinstance(obj, (KTensor, KWeight)):
            return path is not None and path.rsplit(".", 1)[-1] in ("Tensor", "KerasTensor", "Variable")
        return None

    def handed_over(self, core: Core, callee: str, args: list[Any], node: ast.AST) -> None:
        """A Sequential handed to a function derive does not read may get layers added: refused.

        Parameters
        ----------
        core : Interpreter
        callee : str
            The function as written.
        args : list
        node : ast.AST

        Raises
        ------
        Refused
            A Sequential among ``args``.
        """
        for value in args:
            if isinstance(value, KLayer) and value.kind == "sequential":
                raise core.refuse(
                    node, f"{callee}(...) is not read by derive and receives {value.name}, which it may add layers to"
                )


class KerasInterpreter(Interpreter):
    """The reader with Keras' semantics: a name derive does not know, called on tensors, is a layer
    it cannot count (refused, or with ``partial`` a layer not counted).

    Parameters
    ----------
    partial : bool
    """

    def __init__(self, partial: bool = False) -> None:
        semantics = KerasSemantics(partial)
        super().__init__(semantics, partial)
        semantics.reader = self

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """As the reader calls, with an unknown callable on tensors read as a layer derive does not know.

        Parameters
        ----------
        func : object
        args : list
        kwargs : dict
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(func, Unknown) and func.kind == "module" and tensors_in([args, kwargs]):
            return apply(self, unknown_layer(self, func, node), args, kwargs, node)
        return super().call(func, args, kwargs, node)
