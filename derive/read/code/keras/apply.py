"""A Keras layer called on tensors: built on its input's shape (its weights made then), its outputs.

As ``Layer.__call__`` does (``keras/src/layers/layer.py``): the first call builds the layer inside
its name scope (its weights' paths start with the scopes it is built in: ``sequential/dense/kernel``,
``my_model/block/dense/kernel``); later calls only compute the output shape. A layer of the Keras
mirror is built by the mirror (``build(input_shape) -> (Module, output_shape)``); a class of the
code runs its own ``build(input_shape)`` (when it has one) and ``call``; a ``Sequential`` calls its
layers in turn; a functional model gives the outputs it was made with. At the top level of the code
(not inside a layer's ``call``) every call is a node of the graph functional models read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..python.frame import source_of
from ..python.values import Function, Unknown
from .construct import session
from .objects import KLayer, KNode, KTensor

if TYPE_CHECKING:
    from ..python.core import Core
    from .semantics import KerasSemantics

__all__ = ["apply", "build_sequential", "shape_of", "tensors_in", "scope", "same_layer"]


@contextmanager
def scope(core: Core[KerasSemantics], layer: KLayer) -> Iterator[str]:
    """The name scope of ``layer`` (not opened again inside itself, as Keras' ``name_scope``): its path.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer

    Yields
    ------
    str
        The path of the scope (``"sequential/dense"``).
    """
    stack = core.semantics.scopes
    opened = not stack or not same_layer(stack[-1][1], layer)
    if opened:
        stack.append((layer.name, layer))
    try:
        yield "/".join(name for name, _ in stack)
    finally:
        if opened:
            stack.pop()


def same_layer(a: KLayer, b: KLayer) -> bool:
    """The same layer: the same object, or its copy on one way of an unknown condition.

    Parameters
    ----------
    a, b : KLayer

    Returns
    -------
    bool
    """
    return a is b or (a.name == b.name and a.type == b.type and a.cls is b.cls)


def tensors_in(value: Any, out: list[KTensor] | None = None) -> list[KTensor]:
    """Every tensor in a (nested) argument, in order.

    Parameters
    ----------
    value : object
    out : list, optional

    Returns
    -------
    list of KTensor
    """
    out = [] if out is None else out
    if isinstance(value, KTensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            tensors_in(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            tensors_in(item, out)
    return out


def shape_of(core: Core[KerasSemantics], layer: KLayer, value: Any, node: ast.AST, full: bool = False) -> Any:
    """The shape a layer is built on (no batch axis; ``full``: with it): a tuple, or a list for a list.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    value : object
    node : ast.AST
    full : bool

    Returns
    -------
    tuple or list or None
        None for a tensor of unknown shape with ``--partial`` (the layer is then not counted).

    Raises
    ------
    Refused
        Not a tensor, or a tensor whose shape derive does not know.
    """
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (KTensor, list, tuple)) for v in value):
        shapes = [shape_of(core, layer, v, node, full) for v in value]
        return None if any(s is None for s in shapes) else shapes
    if isinstance(value, KTensor):
        if value.full is None:
            if core.partial and "unknown layer" in value.why:
                return None
            raise core.refuse(node, f"the input of {layer.name} is not known: {value.why}")
        return value.full if full else value.shape
    why = value.reason() if isinstance(value, Unknown) else f"{source_of(node, 80)}"
    raise core.refuse(node, f"the input of {layer.name} is not a tensor derive has read: {why}")


def apply(core: Core[KerasSemantics], layer: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``layer(*args, **kwargs)``: build it on its input (first call), give its output tensor(s).

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    KTensor or list of KTensor (or what a code class's ``call`` returns)

    Raises
    ------
    Refused
        A call derive cannot read, an input that does not fit (Keras' words).
    """
    semantics = core.semantics
    if layer.kind == "input":
        raise core.refuse(node, f"{layer.name} is an InputLayer: it is not called on tensors")
    inputs = tensors_in([args, kwargs])
    if layer.kind == "unknown":
        out: Any = KTensor(None, why=f"the output of {layer.name}, an unknown layer")
    elif layer.kind == "layer":
        if layer.cls is not None and (_method(layer, "build") or _method(layer, "call")):
            raise core.refuse(
                node,
                f"{layer.type} subclasses keras.layers.{type(layer.mirror).__name__} and "
                "overrides build() or call(): derive does not read what it changes",
            )
        out = _mirror_call(core, layer, args, kwargs, node)
    elif layer.kind == "sequential":
        out = _sequential_call(core, layer, args, kwargs, node)
    elif layer.kind == "functional":
        out = _functional_call(core, layer, args, kwargs, node)
    elif layer.kind == "lambda":
        out = _lambda_call(core, layer, args, node)
    else:
        out = _code_call(core, layer, args, kwargs, node)
    if semantics.depth == 0:
        made = KNode(layer, inputs)
        out = _outputs(out, made, [0])
        session(core).applied.append(layer)
    if layer.output is None:
        layer.output = out
    return out


def _outputs(value: Any, made: KNode, counter: list[int]) -> Any:
    """The call's output tensors as outputs of its node (in order)."""
    if isinstance(value, KTensor):
        tensor = KTensor(value.full, made, counter[0], value.why)
        counter[0] += 1
        return tensor
    if isinstance(value, (list, tuple)):
        return type(value)(_outputs(v, made, counter) for v in value)
    if isinstance(value, dict):
        return {k: _outputs(v, made, counter) for k, v in value.items()}
    return value


def _bind(layer: KLayer, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The inputs a mirror's layer builds on: the first argument, or those named in its ``CALL_ARGS``."""
    names = getattr(layer.mirror, "CALL_ARGS", ("inputs",))
    if len(names) == 1:
        return args[0] if args else kwargs.get(names[0])
    given = dict(zip(names, args))
    given.update({k: v for k, v in kwargs.items() if k in names})
    return [given[n] for n in names if given.get(n) is not None]


def _mirror_call(
    core: Core[KerasSemantics], layer: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Any:
    first = _bind(layer, args, kwargs)
    if first is None or (isinstance(first, list) and not first):
        raise core.refuse(node, "cannot read this layer call")
    shape = shape_of(core, layer, first, node)
    if shape is None:  # --partial, after a layer derive does not know
        layer.counted = False
        layer.note = layer.note or "input unknown (after an unknown layer)"
        layer.built = True
        return KTensor(None, why=f"the output of {layer.name}, after an unknown layer")
    module, out = build_mirror(core, layer, shape, node)
    batch = _batch(first)
    return [KTensor((batch, *s)) for s in out] if isinstance(out, list) else KTensor((batch, *out))


def build_mirror(core: Core[KerasSemantics], layer: KLayer, shape: Any, node: ast.AST) -> tuple[Any, Any]:
    """Build a mirror's layer on ``shape`` (no batch axis) in its name scope; the first build keeps its weights.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    shape : tuple or list of tuple
    node : ast.AST

    Returns
    -------
    (derive.tree.Module, tuple or list)

    Raises
    ------
    Refused
        The shape does not fit (Keras' words); a later call that would need other weights.
    """
    with scope(core, layer) as path:
        core.semantics.depth += 1
        try:
            module, out = layer.mirror.build(shape)
        except (TypeError, ValueError) as error:
            raise core.refuse(node, " ".join(str(error).split())) from None
        finally:
            core.semantics.depth -= 1
    if not layer.built:
        layer.module, layer.path, layer.built = module.replace(name=layer.name), path, True
        for prefix in getattr(layer.mirror, "BUILD_NAMES", ()):  # layers its build names automatically
            session(core).auto_name(prefix)
    elif layer.module is not None and _weights(layer.module) != _weights(module):
        raise core.refuse(
            node, f"{layer.name} is called on an input of another width than when it was built; Keras refuses it"
        )
    return module, out


def _weights(module: Any) -> list[tuple[str, tuple[Any, ...]]]:
    from ....tree import named_parameters

    return [(n, tuple(p.shape)) for n, p in named_parameters(module.replace(name=""))]


def _batch(value: Any) -> Any:
    tensors = tensors_in(value)
    return tensors[0].full[0] if tensors and tensors[0].full else None


def build_sequential(core: Core[KerasSemantics], model: KLayer, tensor: KTensor, node: ast.AST) -> Any:
    """Call a Sequential's layers in turn on ``tensor`` inside its name scope (building them).

    Parameters
    ----------
    core : Interpreter
    model : KLayer
    tensor : KTensor
    node : ast.AST

    Returns
    -------
    KTensor
        The last layer's output (a layer returning several: the first, as the next layer reads it).
    """
    current: Any = tensor
    with scope(core, model) as path:
        core.semantics.depth += 1
        try:
            for layer in model.layers:
                current = apply(core, layer, [current], {}, node)
                if isinstance(current, (list, tuple)) and current:
                    current = current[0]
        finally:
            core.semantics.depth -= 1
    if not model.built:
        model.path, model.built = path, True
        model.input_full = tensor.full
    return current


def _sequential_call(
    core: Core[KerasSemantics], model: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Any:
    first = args[0] if args else kwargs.get("inputs")
    shape_of(core, model, first, node)
    if not isinstance(first, KTensor):
        raise core.refuse(node, f"{model.name} is called on a list: not read")
    if not model.layers:
        raise core.refuse(node, f"{model.name} has no layers")
    return build_sequential(core, model, first, node)


def _functional_call(
    core: Core[KerasSemantics], model: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Any:
    first = args[0] if args else kwargs.get("inputs")
    given = [shape_of(core, model, t, node) for t in tensors_in(first)]
    own = [t.shape for t in tensors_in(model.inputs)]
    if given != own:
        raise core.refuse(
            node, f"{model.name} is called on inputs of shapes {given}, not those it was made with ({own}); not read"
        )
    return _copy(model.outputs)


def _copy(value: Any) -> Any:
    if isinstance(value, KTensor):
        return KTensor(value.full, why=value.why)
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _lambda_call(core: Core[KerasSemantics], layer: KLayer, args: list[Any], node: ast.AST) -> Any:
    """``Lambda(function, output_shape=None)`` called: the function run on the input (no weights)."""
    with scope(core, layer) as path:
        core.semantics.depth += 1
        try:
            out = core.call(layer.attrs.get("<function>"), list(args[:1]), {}, node)
        finally:
            core.semantics.depth -= 1
    layer.built, layer.path = True, layer.path or path
    given = layer.attrs.get("<output_shape>")
    unknown = not isinstance(out, (KTensor, list, tuple)) or (isinstance(out, KTensor) and out.full is None)
    if unknown and isinstance(given, (tuple, list)):
        return KTensor((_batch(args[:1]), *given))  # Lambda(output_shape=...): what Keras takes the output to be
    if not isinstance(out, (KTensor, list, tuple)):
        return KTensor(None, why=f"the output of {layer.name}: {getattr(out, 'why', 'not read')}")
    return out


def _method(layer: KLayer, name: str) -> Function | None:
    if layer.cls is None:
        return None
    found, owner = layer.cls.lookup(name)
    return found if isinstance(found, Function) and owner is not None else None


def build_arguments(build: Function, args: list[Any], kwargs: dict[str, Any], call: Function | None) -> dict:
    """The shapes ``build`` takes, as Keras aligns them (``update_shapes_dict_for_target_fn``): one
    parameter gets the first argument's shape; several get ``<argument>_shape`` by name.

    Parameters
    ----------
    build : Function
    args, kwargs : list, dict
        The arguments of the call.
    call : Function or None
        The ``call`` method (its parameter names).

    Returns
    -------
    dict
        Parameter name -> shape (batch axis first; a list for a list).
    """
    spec = build.node.args
    names = [a.arg for a in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs)][1:]

    def full(value: Any) -> Any:
        if isinstance(value, KTensor):
            return value.full
        if isinstance(value, (list, tuple)):
            return [full(v) for v in value]
        return None

    if len(names) == 1:
        return {names[0]: full(args[0] if args else next(iter(kwargs.values()), None))}
    params = [] if call is None else [a.arg for a in (*call.node.args.posonlyargs, *call.node.args.args)][1:]
    given = dict(zip(params, args))
    given.update(kwargs)
    return {name: full(given.get(name.removesuffix("_shape"))) for name in names}


def _code_call(
    core: Core[KerasSemantics], layer: KLayer, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Any:
    call = _method(layer, "call")
    if call is None:
        raise core.refuse(node, f"{layer.type} has no call() method derive can read")
    semantics = core.semantics
    with scope(core, layer) as path:
        semantics.depth += 1
        try:
            if not layer.built:
                layer.path = path
                build = _method(layer, "build")
                if build is not None:
                    core.call_function(build, [layer], build_arguments(build, args, kwargs, call), node)
                layer.built = True
            result = core.call_function(call, [layer, *args], kwargs, node)
        finally:
            semantics.depth -= 1
    found = tensors_in(result)
    if found and all(t.full is not None for t in found):
        return result
    shape = _computed_shape(core, layer, args, node)  # the output derive could not follow: the class says it
    if shape is not None:
        return KTensor(shape)
    if found:
        return result
    why = result.reason() if isinstance(result, Unknown) else f"{layer.type}.call returns {type(result).__name__}"
    return KTensor(None, why=f"the output of {layer.name}: {why}")


def _fulls(value: Any) -> Any:
    """A tensor's full shape, a list of them for a list (None where one is not known)."""
    if isinstance(value, KTensor):
        return value.full
    if isinstance(value, (list, tuple)) and value:
        shapes = [_fulls(v) for v in value]
        return None if any(s is None for s in shapes) else shapes
    return None


def _computed_shape(core: Core[KerasSemantics], layer: KLayer, args: list[Any], node: ast.AST) -> Any:
    """``compute_output_shape(input_shape)`` of the code's class, when it has one."""
    method = _method(layer, "compute_output_shape")
    given = _fulls(args[0]) if args else None
    if method is None or given is None:
        return None
    shape = core.call_function(method, [layer, given], {}, node)
    return tuple(shape) if isinstance(shape, (tuple, list)) and not any(isinstance(d, Unknown) for d in shape) else None
