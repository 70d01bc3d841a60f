"""The layers the code built, as Keras lists their weights: the :class:`derive.tree.Module` of a model.

A weight's path is fixed when it is made: the name scopes it is built in, then its name
(``sequential/dense/kernel``, ``my_model/block/scale``). The tree nests each layer under the layer
that holds it, named by its path below its parent's, so that the tree's names are the paths. The
order is ``model.weights``' (``keras/src/layers/layer.py``): a layer's own weights (trainable,
then not), then those of the layers it tracks, in order, each variable once. A layer never called
has no weights yet (Keras counts none); one derive does not know is a part not counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....frameworks.keras.base import the_count
from ....tree import Formula, Module, Param, count
from ...row import Row, rows
from .objects import KLayer, KTensor

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["layer_module", "model_tree", "model_rows", "output_shape"]


def _relative(core: Core, path: str, parent: str, what: str) -> str:
    if not parent:
        return path
    if path.startswith(parent + "/"):
        return path[len(parent) + 1 :]
    raise core.refuse(
        None, f"{what} is made under {path!r}, outside {parent!r}, which holds it; derive does not name it"
    )


def output_shape(value: Any) -> Any:
    """A layer's output as Keras shows it (batch axis first), or None when derive does not know it.

    Parameters
    ----------
    value : object
        A tensor, or a list or tuple of them.

    Returns
    -------
    tuple, list or None
    """
    if isinstance(value, KTensor):
        return value.full
    if isinstance(value, (list, tuple)) and value:
        shapes = [output_shape(v) for v in value]
        return None if any(s is None or isinstance(s, list) for s in shapes) else shapes
    return None


def _own(core: Core, layer: KLayer, seen: set[int], base: str | None = None) -> tuple[Param, ...]:
    """A layer's own weights (trainable first, as ``Layer.weights``), named below ``base`` (its path)."""
    base = (layer.path or "") if base is None else base
    params = []
    for weight in [w for w in layer.weights if w.trainable] + [w for w in layer.weights if not w.trainable]:
        if id(weight) in seen:
            continue
        seen.add(id(weight))
        params.append(Param(_relative(core, weight.path, base, weight.name), weight.shape, weight.trainable))
    return tuple(params)


def layer_module(core: Core, layer: KLayer, parent: str, seen: set[int] | None = None) -> Module:
    """The module of a layer, named by its path below ``parent`` (its weights' paths exact).

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    parent : str
        The path of the layer (or scope) that holds it ("" at the top).
    seen : set of int, optional
        The layers and weights listed already (each once).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    Refused
        A weight made outside the scope of the layer that holds it (derive does not name it).
    """
    seen = set() if seen is None else seen
    seen.add(id(layer))
    shown = output_shape(layer.output)
    if layer.kind == "unknown" or not layer.counted:
        return Module(layer.name, layer.type, sep="/", counted=False, note=layer.note or "not counted", row=True)
    if layer.kind == "functional":
        subs = [sub for sub in layer.layers if sub.kind != "input" and id(sub) not in seen]
        children = tuple(layer_module(core, sub, parent, seen) for sub in subs)
        module = Module("", "Functional", children=children, sep="/", row=True, output_shape=shown)
        return module.replace(formula=Formula(the_count, (count(module),)))
    if not layer.built or layer.path is None:
        return Module(layer.name, layer.type, sep="/", row=True, note="never called: no weights yet")
    name = _relative(core, layer.path, parent, layer.name)
    if layer.kind == "layer" and layer.module is not None and layer.cls is None:
        return layer.module.replace(name=name)
    if layer.kind == "sequential":
        children = tuple(layer_module(core, sub, layer.path, seen) for sub in layer.layers if id(sub) not in seen)
        module = Module(name, "Sequential", children=children, sep="/", row=True, output_shape=shown)
        return module.replace(formula=Formula(the_count, (count(module),)))
    params = _own(core, layer, seen)
    mirror: tuple[Module, ...] = ()
    if layer.module is not None:  # a class of the code over a layer of the mirror: its weights are the layer's own
        mirror = (layer.module.replace(name=""),)
    held = tuple(layer_module(core, sub, layer.path, seen) for sub in layer.tracked if id(sub) not in seen)
    return Module(name, layer.type, params, mirror + held, sep="/", row=True, output_shape=shown)


def model_tree(
    core: Core, model: KLayer | None, layers: list[KLayer], type: str
) -> tuple[Module, list[tuple[KLayer, Module]]]:
    """The model's module: its own weights, then its layers' modules, each named by its whole path
    (a Sequential's layers ``sequential/dense``; a model built before, held by a subclassed model,
    keeps the paths it was built with, as in Keras).

    Parameters
    ----------
    core : Interpreter
    model : KLayer or None
        A subclassed model (its own weights), or None.
    layers : list of KLayer
        Its layers, in ``model.layers`` order.
    type : str

    Returns
    -------
    (derive.tree.Module, list of (KLayer, derive.tree.Module))
        The tree, and each layer listed with its module (a layer met twice is listed once).
    """
    seen: set[int] = set()
    params: tuple[Param, ...] = ()
    if model is not None:
        seen.add(id(model))
        params = _own(core, model, seen, "")
    listed = []
    for layer in layers:
        if id(layer) not in seen:
            listed.append((layer, layer_module(core, layer, "", seen)))
    return Module("", type, params, tuple(m for _, m in listed), sep="/"), listed


def model_rows(tree: Module, listed: list[tuple[KLayer, Module]]) -> list[Row]:
    """One row per layer (``model.layers``), typed as written (``Bidirectional(LSTM)``); the model's
    own weights first, when it has any.

    Parameters
    ----------
    tree : derive.tree.Module
        From :func:`model_tree`.
    listed : list of (KLayer, derive.tree.Module)
        Its layers with their modules.

    Returns
    -------
    list of Row
    """
    out: list[Row] = []
    if tree.params:
        own = [p for p in tree.params if p.counted]
        out.append(
            Row(tree.type, tree.type, tree.own_count, note="its own weights", tensors=[(p.name, p.shape) for p in own])
        )
    for layer, module in listed:
        for row in rows(module.replace(name=layer.name)):
            row.type = layer.type
            if row.output_shape is None and layer.kind not in ("layer", "unknown"):
                row.output_shape = output_shape(layer.output)
            out.append(row)
    return out
