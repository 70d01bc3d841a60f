"""Keras' model-making calls read from code: ``Sequential``, ``Model(inputs, outputs)``, ``Lambda`` and
``Variable`` (``keras/src/models/``, ``keras/src/layers/core/lambda_layer.py``, ``keras/src/backend/common/
variables.py``), each as the semantics' ``call_ref`` dispatches to it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ..python.frame import source_of
from ..python.values import Unknown
from .construct import layer_name
from .graph import flat_tensors, functional_layers
from .layer_api import make_weight, start_sequential
from .objects import KLayer, KTensor, KWeight

if TYPE_CHECKING:
    from ..python.core import Core
    from .semantics import KerasSemantics

__all__ = ["make_sequential", "make_functional", "make_lambda", "make_variable", "LEGACY_MODEL_KEYWORDS"]

#: Keras 1's keywords of ``Model`` and the ones Keras 2 renamed them to: Keras 2 still read the old
#: ones (``keras/legacy/interfaces.py``, ``legacy_model_constructor_support``: ``('input', 'inputs')``,
#: ``('output', 'outputs')``, a TypeError where both are given); Keras 3 refuses them.
LEGACY_MODEL_KEYWORDS = {"input": "inputs", "output": "outputs"}


def make_sequential(core: Core[KerasSemantics], args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KLayer:
    """``keras.Sequential(layers, name=...)``: a model started with its layers (added as Keras adds them).

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The model (kind ``"sequential"``).
    """
    model = KLayer("Sequential", "", "sequential", line=getattr(node, "lineno", 0))
    items = args[0] if args else kwargs.get("layers")
    model.name = layer_name(core, kwargs.get("name", args[2] if len(args) > 2 else None), "sequential", node)
    start_sequential(core, model, items, node)
    return model


def make_functional(core: Core[KerasSemantics], args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> KLayer:
    """``keras.Model(inputs, outputs)``: a functional model of the tensors read, its layers in Keras' order.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The model (kind ``"functional"``), its layers those between the inputs and outputs.

    Raises
    ------
    Refused
        Either side missing, or not tensors derive has read; a Keras 1 keyword (``input=``,
        ``output=``, read as Keras 2 read them: :data:`LEGACY_MODEL_KEYWORDS`) given with its new name.
    """
    kwargs = _renamed(core, kwargs, node)
    inputs = args[0] if args else kwargs.get("inputs")
    outputs = args[1] if len(args) > 1 else kwargs.get("outputs")
    if inputs is None or outputs is None:
        raise core.refuse(node, "Model(inputs, outputs) needs both")
    for part, what in ((inputs, "inputs"), (outputs, "outputs")):
        for leaf in flat_tensors(part):
            if not isinstance(leaf, KTensor):
                why = leaf.reason() if isinstance(leaf, Unknown) else f"{source_of(node, 80)}"
                raise core.refuse(node, f"the {what} of Model are not tensors derive has read: {why}")
    model = KLayer("Functional", "", "functional", built=True, inputs=inputs, outputs=outputs)
    model.name = layer_name(core, kwargs.get("name"), "functional", node)
    model.line = getattr(node, "lineno", 0)
    found = functional_layers(flat_tensors(inputs), flat_tensors(outputs))
    model.layers = found  # InputLayers included, as Keras lists them
    model.output = outputs
    return model


def _renamed(core: Core[KerasSemantics], kwargs: dict[str, Any], node: ast.AST) -> dict[str, Any]:
    """``kwargs`` with Keras 1's ``input=``/``output=`` under Keras 2's names, the renaming noted."""
    renamed = dict(kwargs)
    old = [k for k in LEGACY_MODEL_KEYWORDS if k in kwargs]
    for keyword in old:
        new = LEGACY_MODEL_KEYWORDS[keyword]
        if new in renamed:
            raise core.refuse(node, f"Model got both the Keras 1 keyword {keyword}= and the Keras 2 keyword {new}=")
        renamed[new] = renamed.pop(keyword)
    if old:
        written = ", ".join(f"{k}=" for k in old)
        core.note(
            f"line {getattr(node, 'lineno', 0)}: Model({written}) is Keras 1's spelling of "
            f"{', '.join(LEGACY_MODEL_KEYWORDS[k] + '=' for k in old)}, read as Keras 2 read it (Keras 3 refuses it)"
        )
    return renamed


def make_lambda(core: Core[KerasSemantics], args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KLayer:
    """``layers.Lambda(function, output_shape=None)``: a layer without weights that calls ``function``.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KLayer
        The layer (kind ``"lambda"``).
    """
    layer = KLayer("Lambda", layer_name(core, kwargs.get("name"), "lambda", node), "lambda")
    layer.attrs["<function>"] = args[0] if args else kwargs.get("function")
    layer.attrs["<output_shape>"] = kwargs.get("output_shape", args[1] if len(args) > 1 else None)
    layer.line = getattr(node, "lineno", 0)
    return layer


def make_variable(core: Core[KerasSemantics], args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> KWeight:
    """``keras.Variable(initializer, shape)``: a weight outside any layer, named under the current scopes.

    Parameters
    ----------
    core : Interpreter
        The reader (its semantics' scopes, its refusals).
    args : list
        The call's positional arguments, as read.
    kwargs : dict
        The call's keyword arguments, as read.
    node : ast.AST
        The call (its line for refusals and rows).

    Returns
    -------
    KWeight
        The weight, its path under the scopes open at the call.
    """
    initial = args[0] if args else kwargs.get("initializer")
    shape = kwargs.get("shape", args[1] if len(args) > 1 else None)
    if shape is None and isinstance(initial, KTensor):
        shape = initial.full
    holder = KLayer("Variable")
    made = make_weight(core, holder, [], {**kwargs, "shape": shape}, node)
    prefix = "/".join(n for n, _ in core.semantics.scopes)
    made.path = f"{prefix}/{made.name}" if prefix else made.name
    return made
