"""A Keras layer's attributes and methods, for the code reader: tracking, ``add``, ``build``, ``add_weight``.

Sources: ``keras/src/layers/layer.py`` (``__setattr__`` tracks layers and variables, also inside
lists and dicts; ``add_weight`` makes a variable in the layer's name scope, named ``variable``,
``variable_1``, ... when the code gives no name), ``keras/src/models/sequential.py`` (``add``
builds a layer at once when the input shape is known) and ``keras/src/models/model.py``. Methods
that change no weight (``compile``, ``fit``, ``summary``, ``save``, ...) give None; a subclassed
model's ``build(shape)`` without a ``build`` method of its own builds none of its layers (Keras 3).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Builtin, Function, Unknown
from .apply import apply, build_arguments, build_mirror, build_sequential, same_layer, scope
from .construct import describe, session, unknown_layer
from .objects import KLayer, KTensor, KWeight, tracked

if TYPE_CHECKING:
    from ..python.core import Core
    from .semantics import KerasSemantics

__all__ = ["layer_attr", "set_layer_attr", "sequential_add", "start_sequential", "make_weight", "tensor_attr"]

#: Methods that change no weight.
NOTHING = frozenset(
    [
        "compile",
        "fit",
        "evaluate",
        "predict",
        "summary",
        "save",
        "save_weights",
        "load_weights",
        "get_config",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
        "fit_generator",
        "evaluate_generator",
        "predict_generator",
        "reset_states",
        "reset_metrics",
        "export",
        "to_json",
        "get_weights",
        "set_weights",
        "add_loss",
        "add_metric",
        "compute_loss",
        "stateless_call",
        "quantize",
        "enable_lora",
        "count_params",
        "get_build_config",
        "build_from_config",
        "compile_from_config",
    ]
)
_PLAIN = (int, float, str, bool, type(None), tuple, sympy.Expr)


def _first_input(layer: KLayer) -> Any:
    if layer.kind == "functional":
        return layer.inputs
    if layer.input_full is not None:
        return KTensor(layer.input_full)
    return Unknown(layer.name + ".input", f"{layer.name} has no input derive knows")


def layer_attr(core: Core[KerasSemantics], layer: KLayer, name: str, node: ast.AST) -> Any:
    """``layer.name``: an attribute of the code's, a method, one of Keras' layer properties.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    name : str
    node : ast.AST

    Returns
    -------
    object
    """
    if name in layer.attrs:
        return layer.attrs[name]
    if name == "build":  # Keras wraps a class's build (its name scope, built once)
        return Builtin("build", lambda reader, args, kwargs, n: _build(reader, layer, args, kwargs, n))
    if layer.cls is not None:
        if name == "__class__":
            return layer.cls
        found, owner = layer.cls.lookup(name)
        if owner is not None:
            return core.bind_attr(found, layer, node)
    line = getattr(node, "lineno", 0)
    simple = {
        "name": layer.name,
        "built": layer.built,
        "trainable": True,
        "dtype": "float32",
        "output": layer.output,
        "input": _first_input(layer),
    }
    if name in simple:
        return simple[name]
    if name == "layers":
        return list(layer.layers if layer.kind in ("sequential", "functional") else layer.tracked)
    if name in ("inputs", "outputs") and layer.kind == "functional":
        return getattr(layer, name)
    if name in NOTHING:
        return Builtin(name, lambda reader, args, kwargs, n: None)
    method = _method(core, layer, name)
    if method is not None:
        return method
    if layer.mirror is not None and not name.startswith("_") and hasattr(layer.mirror, name):
        value = getattr(layer.mirror, name)
        if isinstance(value, _PLAIN):
            return value
    return Unknown(source_of(node), f"{layer.type} has no attribute {name!r} derive knows", line)


def _method(core: Core[KerasSemantics], layer: KLayer, name: str) -> Builtin | None:
    if name == "add" and layer.kind == "sequential":
        return Builtin("add", lambda reader, args, kwargs, n: sequential_add(reader, layer, args, kwargs, n))
    if name in ("add_weight", "add_variable"):
        return Builtin(name, lambda reader, args, kwargs, n: make_weight(reader, layer, args, kwargs, n))
    if name == "__call__":
        return Builtin(name, lambda reader, args, kwargs, n: apply(reader, layer, args, kwargs, n))
    if name == "get_layer":
        return Builtin(name, lambda reader, args, kwargs, n: _get_layer(reader, layer, args, kwargs, n))
    return None


def _get_layer(
    core: Core[KerasSemantics], model: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Any:
    given = args[0] if args else kwargs.get("name")
    index = args[1] if len(args) > 1 else kwargs.get("index")
    found = list(model.layers if model.kind in ("sequential", "functional") else model.tracked)
    if isinstance(index, int):
        return found[index] if -len(found) <= index < len(found) else Unknown(source_of(node), "no such layer")
    return next((layer for layer in found if layer.name == given), Unknown(source_of(node), f"no layer {given!r}"))


def make_weight(
    core: Core[KerasSemantics], layer: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> KWeight:
    """``add_weight(shape=None, initializer=None, dtype=None, trainable=True, ..., name=None)``.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    args, kwargs : list, dict
    node : ast.AST

    Returns
    -------
    KWeight

    Raises
    ------
    Refused
        A shape derive does not know; a name given positionally (Keras 3 refuses it).
    """
    if args and isinstance(args[0], str):
        raise core.refuse(node, f"`name` must be passed as a keyword argument. Received: add_weight({args[0]!r}, ...)")
    shape = kwargs.get("shape", args[0] if args else ())
    shape = () if shape is None else shape
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    for size in shape:
        if not (isinstance(size, (int, sympy.Expr)) and not isinstance(size, bool)):
            why = size.reason() if isinstance(size, Unknown) else f"{size!r} is not a size"
            raise core.refuse(node, f"the shape of a weight of {layer.name} is not known: {why}")
    name = kwargs.get("name")
    name = session(core).auto_name("variable") if name is None else str(name)
    trainable = kwargs.get("trainable", True) is not False
    stack = core.semantics.scopes
    parts = [n for n, _ in stack] + ([] if stack and same_layer(stack[-1][1], layer) else [layer.name])
    weight = KWeight(name, shape, trainable, "/".join([*parts, name]))
    layer.weights.append(weight)
    return weight


def set_layer_attr(core: Core[KerasSemantics], layer: KLayer, name: str, value: Any, node: ast.AST) -> None:
    """``layer.name = value`` as ``Layer.__setattr__``: layers and variables (also in lists and dicts) tracked.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    name : str
    value : object
    node : ast.AST

    Raises
    ------
    Refused
        A value that may be a layer derive cannot count (unless ``--partial``).
    """
    if isinstance(value, Unknown) and value.kind in ("module", "parameter"):
        value = unknown_layer(core, value, node)
    if isinstance(value, KWeight):
        if all(value is not w for w in layer.weights):
            layer.weights.append(value)
    layer.attrs[name] = tracked(layer, value)


def _items(core: Core[KerasSemantics], value: Any, node: ast.AST) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise core.refuse(node, "Sequential takes a list of layer constructors")
    return list(value)


def start_sequential(core: Core[KerasSemantics], model: KLayer, items: Any, node: ast.AST) -> None:
    """A new Sequential's layers: an ``Input`` first gives its input shape; built when the input is known.

    Parameters
    ----------
    core : Interpreter
    model : KLayer
    items : list or None
    node : ast.AST
    """
    for item in _items(core, items, node):
        sequential_add(core, model, [item], {}, node, build=False)
    _maybe_build(core, model, node)


def _maybe_build(core: Core[KerasSemantics], model: KLayer, node: ast.AST) -> None:
    if model.built or not model.layers:
        return
    if model.input_full is None:
        model.input_full = model.layers[0].input_full
    if model.input_full is not None:
        model.output = build_sequential(core, model, KTensor(model.input_full), node)


def sequential_add(
    core: Core[KerasSemantics],
    model: KLayer,
    args: list[Any],
    kwargs: dict[str, Any],
    node: ast.AST,
    build: bool = True,
) -> None:
    """``model.add(layer)`` (an ``Input`` gives the input shape).

    Parameters
    ----------
    core : Interpreter
    model : KLayer
    args, kwargs : list, dict
    node : ast.AST
    build : bool
        Build the layer now when the model's input shape is known (as Keras does).

    Raises
    ------
    Refused
        Not a layer.
    """
    item = args[0] if args else kwargs.get("layer")
    if isinstance(item, KTensor) and item.node is not None and item.node.is_input:
        model.input_full = item.full
        return
    if isinstance(item, KLayer) and item.kind == "input":
        model.input_full = item.input_full
        return
    if isinstance(item, Unknown) and item.kind == "module":
        item = unknown_layer(core, item, node)
    if not isinstance(item, KLayer):
        raise core.refuse(node, f"model.add takes a layer constructor, not {describe(item, node)}")
    model.layers.append(item)
    if not build:
        return
    if model.built:
        with scope(core, model):
            core.semantics.depth += 1
            try:
                out = apply(core, item, [model.output], {}, node)
            finally:
                core.semantics.depth -= 1
        model.output = out[0] if isinstance(out, (list, tuple)) and out else out
    else:
        _maybe_build(core, model, node)


def _build(core: Core[KerasSemantics], layer: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
    """``layer.build(input_shape)``."""
    shape = args[0] if args else kwargs.get("input_shape")
    if isinstance(shape, list) and shape and all(isinstance(s, (tuple, list)) for s in shape):
        full: Any = [tuple(s) for s in shape]
    elif isinstance(shape, (tuple, list)):
        full = tuple(shape)
    else:
        raise core.refuse(node, f"{layer.name}.build(...) of a shape derive does not know: {describe(shape, node)}")
    if layer.kind == "sequential":
        if not layer.built:
            layer.input_full = full
            _maybe_build(core, layer, node)
        return
    if layer.kind == "layer" and layer.cls is None:
        if not layer.built:
            build_mirror(core, layer, [s[1:] for s in full] if isinstance(full, list) else full[1:], node)
        return
    if layer.kind in ("custom", "model") and not layer.built:
        found, owner = layer.cls.lookup("build") if layer.cls is not None else (None, None)
        with scope(core, layer) as path:
            layer.path = path
            if isinstance(found, Function) and owner is not None:
                core.semantics.depth += 1
                try:
                    call, _ = layer.cls.lookup("call") if layer.cls is not None else (None, None)
                    fake = [KTensor(full)] if isinstance(full, tuple) else [[KTensor(s) for s in full]]
                    arguments = build_arguments(found, fake, {}, call if isinstance(call, Function) else None)
                    core.call_function(found, [layer], arguments, node)
                finally:
                    core.semantics.depth -= 1
            else:
                core.note(
                    f"line {getattr(node, 'lineno', 0)}: {layer.name}.build() builds none of its layers in Keras 3 "
                    "(no build() method): they are built by the model's first call"
                )
        layer.built = True


def tensor_attr(core: Core[KerasSemantics], value: Any, name: str, node: ast.AST) -> Any:
    """``tensor.shape``, ``.dtype``, ``.ndim`` of a symbolic tensor or a weight.

    Parameters
    ----------
    core : Interpreter
    value : KTensor or KWeight
    name : str
    node : ast.AST

    Returns
    -------
    object
    """
    full = value.full if isinstance(value, KTensor) else value.shape
    if name in ("shape", "_keras_shape") and full is not None:
        return tuple(full)
    if name == "ndim" and full is not None:
        return len(full)
    if name == "dtype":
        return "float32"
    if isinstance(value, KWeight) and name in ("name", "path", "trainable"):
        return getattr(value, name)
    why = value.why if isinstance(value, KTensor) and full is None else f"the {name} of a tensor is not read"
    return Unknown(source_of(node), why, getattr(node, "lineno", 0))
