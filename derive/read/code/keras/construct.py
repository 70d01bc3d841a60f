"""Keras' names as the code writes them, and the layers, inputs and models their calls make.

A dotted name (``keras.layers.Dense``, ``tf.keras.layers.LSTM``, ``layers.Conv2D``,
``keras.models.Sequential``, ``Input``) is read into the Keras API name (:func:`keras_api`). A
layer class the Keras mirror knows (registered under the framework ``"keras"``,
:mod:`derive.frameworks.keras`) is made by its constructor with the code's arguments and named
as Keras names it at construction (``dense``, ``dense_1``: :class:`~.objects.Session`);
the layers a wrapper takes (``Bidirectional(LSTM(...))``, ``TimeDistributed(...)``, ``RNN(cell)``)
are handed over as their mirrors. ``keras.Input`` gives a :class:`~.objects.KTensor`;
``Sequential`` and ``Model(inputs, outputs)`` give models (built by :mod:`.apply`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ....engine.constructors import CONSTRUCTORS, lookup
from ....frameworks import keras as _mirror  # noqa: F401  (registers the Keras classes)
from ....frameworks.keras.constructors import KERAS_INPUT_KWARGS, declared_input
from ..python.frame import source_of
from ..python.values import Unknown
from .inner import Inner
from .objects import SESSION, KLayer, KNode, KTensor, Session, snake

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = [
    "keras_api",
    "session",
    "make_layer",
    "make_input",
    "ALIASES",
    "VALUE_AREAS",
    "OP_AREAS",
    "declared_input",
    "supported",
    "layer_name",
    "keras_class",
]

#: Where Keras lives in a dotted path (``tf.keras.layers.LSTM``, ``tf_keras.layers.LSTM``).
_ROOTS = ("keras.src.", "tensorflow.python.keras.", "tensorflow.keras.", "tf.keras.", "tf_keras.", "keras.")
#: Keras' other names for its classes (``keras/src/layers/__init__.py``).
ALIASES = {
    "Convolution1D": "Conv1D",
    "Convolution2D": "Conv2D",
    "Convolution3D": "Conv3D",
    "Convolution1DTranspose": "Conv1DTranspose",
    "Convolution2DTranspose": "Conv2DTranspose",
    "Convolution3DTranspose": "Conv3DTranspose",
    "Deconvolution2D": "Conv2DTranspose",
    "Deconvolution3D": "Conv3DTranspose",
    "SeparableConvolution1D": "SeparableConv1D",
    "SeparableConvolution2D": "SeparableConv2D",
    "AvgPool1D": "AveragePooling1D",
    "AvgPool2D": "AveragePooling2D",
    "AvgPool3D": "AveragePooling3D",
    "MaxPool1D": "MaxPooling1D",
    "MaxPool2D": "MaxPooling2D",
    "MaxPool3D": "MaxPooling3D",
    "GlobalAvgPool1D": "GlobalAveragePooling1D",
    "GlobalAvgPool2D": "GlobalAveragePooling2D",
    "GlobalAvgPool3D": "GlobalAveragePooling3D",
    "GlobalMaxPool1D": "GlobalMaxPooling1D",
    "GlobalMaxPool2D": "GlobalMaxPooling2D",
    "GlobalMaxPool3D": "GlobalMaxPooling3D",
    "GroupQueryAttention": "GroupedQueryAttention",
}
#: Areas of the Keras API whose functions give values, never layers.
VALUE_AREAS = frozenset(
    [
        "optimizers",
        "losses",
        "metrics",
        "callbacks",
        "initializers",
        "regularizers",
        "constraints",
        "utils",
        "datasets",
        "mixed_precision",
        "saving",
        "config",
        "export",
        "dtype_policies",
        "quantizers",
        "tree",
        "distribution",
        "visualization",
        "wrappers",
        "legacy",
        "preprocessing.image",
        "preprocessing.sequence",
        "preprocessing.text",
    ]
)
#: Areas whose functions compute on tensors (:mod:`.ops`).
OP_AREAS = frozenset({"ops", "activations", "backend", "random", "math", "nn", "numpy", "image"})


def keras_api(path: str) -> str | None:
    """The Keras API name of a dotted path (``tf.keras.layers.LSTM`` -> ``layers.LSTM``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None

    Examples
    --------
    >>> keras_api("tensorflow.keras.layers.LSTM"), keras_api("keras.Model"), keras_api("torch.nn.LSTM")
    ('layers.LSTM', 'Model', None)
    """
    for root in _ROOTS:
        if path.startswith(root):
            rest = path[len(root) :]
            if rest.startswith("layers.experimental.preprocessing."):
                rest = "layers." + rest.rsplit(".", 1)[-1]
            elif rest.startswith(("layers.", "models.")) and rest.count(".") > 1:
                rest = rest.split(".", 1)[0] + "." + rest.rsplit(".", 1)[-1]  # keras.layers.core.Dense
            return rest
    return None


def session(core: Core) -> Session:
    """Keras' naming state of the code being read (in the module's scope).

    Parameters
    ----------
    core : Interpreter

    Returns
    -------
    Session
    """
    names = core.module_frame.names
    if SESSION not in names:
        names[SESSION] = Session()
    found: Session = names[SESSION]
    return found


def layer_name(core: Core, given: Any, prefix: str, node: ast.AST) -> str:
    """A layer's or model's name: ``given``, or Keras' next automatic one from ``prefix`` (``dense_1``).

    Parameters
    ----------
    core : Interpreter
    given : object
    prefix : str
    node : ast.AST

    Returns
    -------
    str

    Raises
    ------
    Refused
        A name that is not a string or holds ``/`` (Keras' message).
    """
    if given is None:
        return session(core).auto_name(prefix)
    if not isinstance(given, str) or "/" in given:
        raise core.refuse(
            node, f"Argument `name` must be a string and cannot contain character `/`. Received: name={given!r}"
        )
    return given


def _not_known(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, sympy.Basic) and bool(value.free_symbols))


def _mirror_of(core: Core, value: Any, node: ast.AST) -> Any:
    """A layer argument as the mirror's classes take it: a layer of the code as its mirror."""
    if isinstance(value, KLayer):
        if value.kind == "layer":
            return value.mirror
        return Inner(core, value, node)
    if isinstance(value, (list, tuple)):
        return type(value)(_mirror_of(core, v, node) for v in value)
    return value


def make_layer(core: Core, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> KLayer:
    """A layer of the mirror made with the code's arguments, named as Keras names it.

    Parameters
    ----------
    core : Interpreter
    name : str
        The class name (an alias already resolved).
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    KLayer

    Raises
    ------
    Refused
        Arguments Keras refuses (its words), a size derive does not know.
    """
    constructor = lookup("keras", name)
    assert constructor is not None
    reads = KERAS_INPUT_KWARGS if name != "Embedding" else tuple(k for k in KERAS_INPUT_KWARGS if k != "input_dim")
    given = {k: v for k, v in kwargs.items() if k in reads}
    plain = {k: _mirror_of(core, v, node) for k, v in kwargs.items() if k not in reads}
    plain.pop("name", None)
    inner = args[0] if args else kwargs.get("layer")
    if isinstance(inner, KLayer) and name in ("Bidirectional", "TimeDistributed"):
        given = given or _inner_input(inner)
    if isinstance(inner, Unknown) and inner.kind == "module" and name in ("Bidirectional", "TimeDistributed"):
        made = unknown_layer(core, inner, node)  # refused, or (--partial) the wrapper is not counted either
        made.type, made.name = f"{name}({made.type})", session(core).auto_name(snake(name))
        return made
    try:
        mirror = constructor.make(*[_mirror_of(core, a, node) for a in args], **plain)
    except (TypeError, ValueError) as error:
        message = " ".join(str(error).split())
        unknown = next((a for a in [*args, *kwargs.values()] if _not_known(a)), None)
        if unknown is not None:
            message += f" — {core.why_unknown(unknown, node)}"
        raise core.refuse(node, f"{name}: {message}") from None
    layer = KLayer(name, layer_name(core, kwargs.get("name"), snake(name), node), "layer", mirror=mirror)
    layer.line = getattr(node, "lineno", 0)
    mirror.name = layer.name
    if isinstance(inner, KLayer) and name in ("Bidirectional", "TimeDistributed"):
        layer.type = f"{name}({inner.type})"
    layer.input_full = declared_input(given, mirror, name)
    return layer


def _inner_input(inner: KLayer) -> dict[str, Any]:
    full = inner.input_full
    return {} if full is None else {"batch_input_shape": full}


def make_input(core: Core, args: list[Any], kwargs: dict[str, Any], node: ast.AST, layer: bool = False) -> Any:
    """``keras.Input(shape, batch_size=None, ..., batch_shape=None, name=None)``: a symbolic tensor
    (``keras.layers.InputLayer(...)``: the layer, for a Sequential).

    Parameters
    ----------
    core : Interpreter
    args : list
    kwargs : dict
    node : ast.AST
    layer : bool
        ``InputLayer``: the layer rather than its tensor.

    Returns
    -------
    KTensor or KLayer

    Raises
    ------
    Refused
        No shape (Keras: "You must pass a `shape` argument."), or a shape derive does not know.
    """
    names = ("shape", "batch_size", "dtype", "sparse", "batch_shape", "name")
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    shape = bound.get("shape", kwargs.get("input_shape"))
    batch_shape = bound.get("batch_shape") or kwargs.get("batch_input_shape")
    for given in (shape, batch_shape):
        if isinstance(given, Unknown):
            raise core.refuse(node, f"the input shape is not known: {given.reason()}")
    if shape is not None:
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        full = (bound.get("batch_size"), *shape)
    elif isinstance(batch_shape, (tuple, list)):
        full = tuple(batch_shape)
    else:
        raise core.refuse(node, "You must pass a `shape` argument.")
    for size in full:
        if isinstance(size, Unknown):
            raise core.refuse(node, f"the input shape is not known: {size.reason()}")
    made = KLayer("InputLayer", layer_name(core, bound.get("name"), "input_layer", node), "input", built=True)
    made.input_full = full
    made.line = getattr(node, "lineno", 0)
    if layer:
        return made
    tensor = KTensor(full, KNode(made, is_input=True))
    made.output = tensor
    return tensor


def unknown_layer(core: Core, value: Unknown, node: ast.AST) -> KLayer:
    """A layer derive does not know: refused, or (``--partial``) a layer not counted.

    Parameters
    ----------
    core : Interpreter
    value : Unknown
        The unknown call (``CRF(9)``).
    node : ast.AST

    Returns
    -------
    KLayer

    Raises
    ------
    Refused
        Without ``--partial``: the name and why (the supported names for an unknown name).
    """
    shown = value.name.split("(")[0].rsplit(".", 1)[-1] or value.name
    if not core.partial:
        if value.why == "unknown name":
            raise core.refuse(
                node,
                f"unknown name {value.name!r}; supported: {', '.join(supported())} (or --partial to count the rest)",
            )
        where = f"line {value.line}: " if value.line else ""
        raise core.refuse(
            node,
            f"{value.name!r} may be a layer, and derive cannot count it ({where}{value.why}); "
            "--partial counts the rest",
        )
    core.note(f"line {value.line or getattr(node, 'lineno', 0)}: {shown} is not known to derive: not counted")
    made = KLayer(shown, session(core).auto_name(snake(shown)), "unknown", counted=False, built=True)
    made.note = "unknown layer, not counted"
    made.line = getattr(node, "lineno", 0)
    return made


def describe(value: Any, node: ast.AST) -> str:
    """What a value is, for messages (``3 (of type int)``).

    Parameters
    ----------
    value : object
    node : ast.AST

    Returns
    -------
    str
    """
    if isinstance(value, Unknown):
        return value.reason()
    return f"{source_of(node)} (of type {type(value).__name__})"


def keras_class(path: str) -> str | None:
    """The Keras layer class a dotted path names (an alias resolved), when the mirror knows it.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None
    """
    api = keras_api(path)
    if api is None:
        return None
    area, _, name = api.rpartition(".")
    name = ALIASES.get(name, name)
    return name if area in ("", "layers") and lookup("keras", name) is not None else None


def supported() -> list[str]:
    """Every Keras name the code reader knows.

    Returns
    -------
    list of str
    """
    return sorted({name for fw, name in CONSTRUCTORS if fw == "keras"} | {"Input", "Sequential", "Model"})
