"""A live Keras model or layer read into the module tree: every weight once, as ``count_params()``.

Each layer of ``model.layers`` (or the layer itself) is one node. Its tensors are the layer's own
``layer.weights`` (paths and shapes; a non-trainable weight such as ``moving_mean`` is counted, as
``count_params()`` counts it; a variable met in an earlier layer is a tie, counted once), so the
total is always ``model.count_params()``. A layer derive knows is also derived from its config
(``get_config()``) on the shape of its real input, with a closed form; a layer derive does not
know — a custom ``Scale`` — or whose derivation gives other tensors is counted from its weights
("numeric, not derived"). A live object is never refused for an unknown layer.
"""

from __future__ import annotations

from typing import Any

from ...tree import Module, Param, named_parameters
from ..code.keras.reader import KerasProgram
from ..configs.keras_config import config_call, node_module, strip_config
from ..report import Report
from ..source import SourceError, clean

__all__ = ["keras_tree", "explain_keras_object", "NUMERIC"]

#: The note of a layer counted from its weights.
NUMERIC = "numeric, not derived"


def _shape(tensor: Any) -> Any:
    """A Keras tensor's shape without the batch axis (a list for several), or None."""
    if isinstance(tensor, (list, tuple)):
        shapes = [_shape(t) for t in tensor]
        return None if any(s is None for s in shapes) else shapes
    shape = getattr(tensor, "shape", None)
    return None if shape is None else tuple(shape)[1:]


def _io(layer: Any, which: str) -> Any:
    """The shape of the layer's first argument or of its output at its first call (its weights
    are made then), without the batch axis; None when unknown."""
    nodes = getattr(layer, "_inbound_nodes", None) or [None]
    arguments = getattr(nodes[0], "arguments", None)
    if which == "input" and arguments is not None and getattr(arguments, "args", None):
        return _shape(arguments.args[0])
    try:  # a layer called once; one called several times has no single input/output
        return _shape(getattr(layer, which))
    except (AttributeError, ValueError, RuntimeError):
        pass
    tensors = getattr(nodes[0], f"{which}_tensors", None)
    if not tensors:
        return None
    return _shape(tensors[0] if len(tensors) == 1 else list(tensors))


class _Reader:
    """One walk over a model's layers: variables met before are ties."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}
        self.program = KerasProgram(partial=False)

    def params(self, layer: Any) -> tuple[Param, ...]:
        out = []
        for w in layer.weights:
            path = str(getattr(w, "path", w.name))
            parts = path.split("/")
            name = "/".join(parts[parts.index(layer.name) + 1 :]) if layer.name in parts[:-1] else path
            full = f"{layer.name}/{name}"
            tied = self.seen.setdefault(id(w), full)
            out.append(
                Param(
                    name,
                    tuple(int(d) for d in w.shape),
                    trainable=bool(w.trainable),
                    tied_to=None if tied == full else tied,
                    dtype=str(getattr(w, "dtype", "")) or None,
                )
            )
        return tuple(out)

    def derived(self, layer: Any, params: tuple[Param, ...]) -> Module | None:
        """The node the layer's config gives on its real input, if it has exactly the layer's weights."""
        shape = _io(layer, "input")
        if shape is None:
            return None
        try:
            call = config_call({"class_name": type(layer).__name__, "config": layer.get_config()})
            strip_config(call)
            node = self.program.node(call)
            self.program.build(node, shape)
        except (SourceError, TypeError, ValueError, KeyError, AttributeError, NotImplementedError):
            return None
        node.name = layer.name
        made = node_module(node)
        mine = sorted((n.rsplit("/", 1)[-1], tuple(p.shape)) for n, p in named_parameters(made.replace(name="")))
        live = sorted((p.name.rsplit("/", 1)[-1], p.shape) for p in params)
        return made if mine == live else None

    def layer(self, layer: Any) -> Module:
        kind = clean(type(layer).__name__, 60)
        name = clean(layer.name, 120)
        if not layer.built:
            return Module(name, kind, sep="/", counted=False, note="not built: its weights do not exist yet")
        params = self.params(layer)
        tied = "; ".join(f"{p.name} is {p.tied_to} (counted there)" for p in params if p.tied_to is not None)
        out = _io(layer, "output")
        shown = None if out is None else ([(None, *s) for s in out] if isinstance(out, list) else (None, *out))
        made = self.derived(layer, params)
        if made is not None and not tied:
            # the live weights (paths, trainable, ties) in place of the derived ones, which they equal
            return Module(name, made.type, params, sep="/", formula=made.formula, output_shape=shown, row=True)
        note = (NUMERIC if any(p.counted for p in params) else "") + (f"; {tied}" if tied else "")
        return Module(name, kind, params, sep="/", note=note.strip("; "), output_shape=shown, row=True)


def keras_tree(obj: Any) -> Module:
    """The tree of a live Keras model (one node per layer of ``model.layers``) or layer.

    Parameters
    ----------
    obj : keras.Model or keras.layers.Layer

    Returns
    -------
    derive.tree.Module
        ``sep="/"``; :func:`derive.tree.count` equal to ``obj.count_params()``; a layer not built
        is a part not counted.
    """
    import keras

    reader = _Reader()
    if isinstance(obj, keras.Model):
        layers = [layer for layer in obj.layers if type(layer).__name__ != "InputLayer"]
        children = tuple(reader.layer(layer) for layer in layers)
        own = [w for w in (obj.weights if obj.built else []) if id(w) not in reader.seen]
        params = tuple(
            Param(str(getattr(w, "path", w.name)), tuple(int(d) for d in w.shape), bool(w.trainable)) for w in own
        )
        return Module("", clean(type(obj).__name__, 60), params, children, sep="/", note=NUMERIC if params else "")
    return Module("", clean(type(obj).__name__, 60), children=(reader.layer(obj),), sep="/")


def explain_keras_object(obj: Any) -> Report:
    """A live Keras model or layer explained (see :func:`keras_tree`).

    Parameters
    ----------
    obj : keras.Model or keras.layers.Layer

    Returns
    -------
    Report
        Total equal to ``obj.count_params()``.
    """
    tree = keras_tree(obj)
    return Report.from_module(tree, "keras", f"Keras {clean(type(obj).__name__, 60)} (live)")
