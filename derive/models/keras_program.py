"""Reading a Keras model's code: statements, layers by variable, the functional graph, builds.

The code is read with :mod:`ast` (:mod:`derive.models.source`), never run. :class:`KerasProgram`
keeps the layers, tensors and models each statement makes, names layers as a fresh Keras session
does (``lstm``, ``lstm_1``, ...) and builds each on its input shape (the first build fixes its
weights, as in Keras).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from typing import Any

from ..frameworks import keras as dk
from ..frameworks.keras.base import snake
from ..frameworks.keras.constructors import KERAS_INPUT_KWARGS, KERAS_LAYERS, KERAS_RECURRENT
from ..frameworks.keras.core import InputLayer
from ..frameworks.keras.layer import KerasLayer
from .keras_nodes import Node, SequentialLayer, Tensor, Unknown, _flat
from .source import Call, Opaque, Reader, SourceError, clean, dotted

__all__ = ["KerasProgram", "SUPPORTED"]

#: Every name a Keras model may use.
SUPPORTED = tuple(sorted({*KERAS_LAYERS, *KERAS_RECURRENT, "Input", "Sequential", "Model"}))
_IGNORED_METHODS = {
    "compile",
    "fit",
    "summary",
    "evaluate",
    "predict",
    "save",
    "load_weights",
    "count_params",
    "save_weights",
    "get_config",
}


class KerasProgram:
    """Reads the statements of a snippet, keeping layers, tensors and models by variable name.

    Parameters
    ----------
    partial : bool
        Count what is known and mark unknown layers instead of refusing.
    """

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        self.reader = Reader()
        self.uids: dict[str, int] = defaultdict(int)
        self.vars: dict[str, Any] = {}
        self.sequentials: list[dict] = []
        self.models: list[tuple[str | None, Any, Any]] = []
        self.loose: list[Node] = []
        self.notes: list[str] = []

    # -- layers --------------------------------------------------------------------------------
    def unique(self, base: str) -> str:
        """Keras' automatic name: ``lstm``, then ``lstm_1``, ... (``uniquify``).

        Parameters
        ----------
        base : str

        Returns
        -------
        str
        """
        count = self.uids[base]
        self.uids[base] += 1
        return base if count == 0 else f"{base}_{count}"

    def node(self, call: Call) -> Node:
        """Make the layer of a constructor call (nested layers first, as Keras names them).

        Parameters
        ----------
        call : Call

        Returns
        -------
        Node

        Raises
        ------
        SourceError
            An unknown name (unless partial), or arguments the layer refuses.
        """
        if call.name == "Sequential":
            nodes = self.sequential_nodes(call)
            given = call.kwargs.get("name")
            name = given if isinstance(given, str) else self.unique("sequential")
            return Node(SequentialLayer(nodes, name), call, name, "Sequential")
        if call.name not in KERAS_LAYERS and call.name not in KERAS_RECURRENT and call.name != "Input":
            if not self.partial:
                raise SourceError(
                    f"line {call.line}: unknown name {clean(call.dotted, 60)!r}; supported: "
                    f"{', '.join(SUPPORTED)} (or --partial to count the rest)"
                )
            name = self.unique(snake(call.name))
            self.notes.append(f"line {call.line}: {clean(call.name, 60)} is not known to derive: not counted")
            return Node(Unknown(call), call, name, clean(call.name, 60), error="unknown layer, not counted")
        try:
            layer, type_name = self._make(call)
        except (TypeError, ValueError) as error:
            if isinstance(error, SourceError):
                raise
            raise SourceError(f"line {call.line}: {call.name}: {error}") from None
        given = call.kwargs.get("name")
        name = (
            given
            if isinstance(given, str)
            else self.unique(layer.default_name if isinstance(layer, KerasLayer) else snake(call.name))
        )
        layer.name = name
        return Node(layer, call, name, type_name)

    def _make(self, call: Call) -> tuple[Any, str]:
        if any(isinstance(a, Opaque) and a.source.startswith("*") for a in call.args):
            raise SourceError(f"line {call.line}: {call.name}: starred arguments hide the sizes; write them out")
        if call.name == "Input":
            return InputLayer(*call.args, **call.kwargs), "InputLayer"
        if call.name == "TimeDistributed":
            inner_call = call.args[0] if call.args else call.kwargs.get("layer")
            if not isinstance(inner_call, Call):
                raise ValueError("TimeDistributed needs a layer constructor as its first argument")
            inner = self.node(inner_call)
            kwargs = {k: v for k, v in call.kwargs.items() if k != "layer"}
            return KERAS_LAYERS["TimeDistributed"](inner.layer, **kwargs), f"TimeDistributed({inner.type})"
        if call.name in KERAS_LAYERS:
            return KERAS_LAYERS[call.name](*call.args, **call.kwargs), call.name
        layer = self._recurrent(call)
        wrapped = call.args[0] if call.args else call.kwargs.get("layer")
        if call.name == "Bidirectional" and isinstance(wrapped, Call):
            return layer, f"Bidirectional({wrapped.name})"
        return layer, call.name

    def _recurrent(self, call: Call) -> Any:
        """The derive.keras object of a recurrent call; the layers a Bidirectional wraps are named
        before it, as Keras names them (``lstm``, then ``bidirectional``)."""
        args = list(call.args)
        kwargs = {k: v for k, v in call.kwargs.items() if k not in KERAS_INPUT_KWARGS}
        if call.name == "Bidirectional":
            for key, position in (("layer", 0), ("backward_layer", None)):
                inner = kwargs.get(key) if position is None or key in kwargs else (args[0] if args else None)
                if inner is None:
                    continue
                if not isinstance(inner, Call) or inner.name not in KERAS_RECURRENT[:-1]:
                    raise ValueError(
                        f"Please initialize `Bidirectional` layer with a recurrent layer instance. Received: {inner!r}"
                    )
                made = self._recurrent(inner)
                if not isinstance(inner.kwargs.get("name"), str):
                    made.name = self.unique(snake(inner.name))
                if key in kwargs:
                    kwargs[key] = made
                else:
                    args[0] = made
            return dk.Bidirectional(*args, **kwargs)
        return getattr(dk, call.name)(*args, **kwargs)

    def sequential_nodes(self, call: Call) -> list[Node]:
        """The layers of ``Sequential([...])`` (or ``layers=[...]``).

        Parameters
        ----------
        call : Call

        Returns
        -------
        list of Node

        Raises
        ------
        SourceError
            The argument is not a list of layer constructors.
        """
        items = call.args[0] if call.args else call.kwargs.get("layers", [])
        if items is None:
            items = []
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, Call) for i in items):
            raise SourceError(f"line {call.line}: Sequential takes a list of layer constructors")
        return [self.node(item) for item in items]

    # -- statements ----------------------------------------------------------------------------
    def run(self, body: list[ast.stmt]) -> None:
        """Read the statements in order (function bodies included, their parameters as symbols).

        Parameters
        ----------
        body : list of ast.stmt

        Raises
        ------
        SourceError
            Control flow that builds layers, subclassed models, unknown layers.
        """
        for statement in body:
            if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Pass, ast.Return, ast.Global)):
                continue
            if isinstance(statement, ast.FunctionDef):
                self.run(statement.body)
            elif isinstance(statement, ast.ClassDef):
                raise SourceError(
                    f"line {statement.lineno}: a subclassed Keras model is not read from code; "
                    "build it and pass the object to derive.explain"
                )
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                self.assign(statement.targets[0], statement.value)
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                self.assign(statement.target, statement.value)
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                self.expression(statement.value)
            elif isinstance(statement, (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.AugAssign)):
                if any(isinstance(n, ast.Call) for n in ast.walk(statement)):
                    raise SourceError(
                        f"line {statement.lineno}: a {type(statement).__name__.lower()} statement "
                        "that may build layers is not read; write the layers out"
                    )

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        """``name = ...``: a size, a layer, a tensor, a model.

        Parameters
        ----------
        target : ast.expr
        value : ast.expr
        """
        result = self.evaluate(value)
        if isinstance(target, ast.Name):
            if isinstance(result, (int, float)) or hasattr(result, "free_symbols"):
                self.reader.env[target.id] = result
            elif result is not None:
                self.vars[target.id] = result
                if isinstance(result, dict) and result.get("kind") == "sequential":
                    result["var"] = target.id
                if isinstance(result, tuple) and result and result[0] == "model":
                    self.models.append((target.id, result[1], result[2]))
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(result, list):
            names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
            if len(names) == len(result):
                for name, item in zip(names, result):
                    if name is not None:
                        self.vars[name] = item

    def expression(self, node: ast.Call) -> None:
        """A call statement: ``model.add(...)``, ``model.build(...)``, or a bare model/layer.

        Parameters
        ----------
        node : ast.Call

        Raises
        ------
        SourceError
            A call derive does not read (named in the message, with its line).
        """
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            owner = self.vars.get(node.func.value.id)
            method = node.func.attr
            if isinstance(owner, dict) and owner.get("kind") == "sequential":
                if method == "add" and node.args:
                    made = self.reader.value(node.args[0])
                    if not isinstance(made, Call):
                        raise SourceError(f"line {node.lineno}: model.add takes a layer constructor")
                    owner["nodes"].append(self.node(made))
                elif method == "build" and node.args:
                    shape = self.reader.value(node.args[0])
                    if isinstance(shape, (tuple, list)) and shape:
                        owner["build"] = tuple(shape[1:])
                return
            if method in _IGNORED_METHODS:
                return
        result = self.evaluate(node)
        if isinstance(result, dict) and result.get("kind") == "sequential":
            pass
        elif isinstance(result, Node):
            self.sequentials.append(
                {"kind": "sequential", "nodes": [result], "call": result.call, "build": None, "name": ""}
            )

    def evaluate(self, node: ast.expr) -> Any:
        """The value of a right-hand side.

        Parameters
        ----------
        node : ast.expr

        Returns
        -------
        Any
            A size, a Node (unapplied layer), a Tensor or list of them, a sequential dict,
            ``("model", inputs, outputs)``, or None.

        Raises
        ------
        SourceError
            An expression derive does not evaluate (named in the message, with its line).
        """
        if isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Call)
            or (isinstance(node.func, ast.Name) and isinstance(self.vars.get(node.func.id), (Node, dict)))
        ):
            return self.apply(node)
        if isinstance(node, ast.Name) and node.id in self.vars:
            return self.vars[node.id]
        if isinstance(node, (ast.List, ast.Tuple)) and any(
            (isinstance(e, ast.Name) and e.id in self.vars)
            or (isinstance(e, ast.Call) and isinstance(e.func, ast.Call))
            for e in node.elts
        ):
            return [self.evaluate(e) for e in node.elts]
        if not isinstance(node, ast.Call):
            value = self.reader.value(node)
            return value if isinstance(value, (int, float)) or hasattr(value, "free_symbols") else None
        name = dotted(node.func)
        base = name.rsplit(".", 1)[-1] if name else ""
        if base in ("Model", "Functional"):
            inputs = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "inputs"), None)
            outputs = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "outputs"), None)
            )
            if inputs is None or outputs is None:
                raise SourceError(f"line {node.lineno}: Model(inputs, outputs) needs both")
            made = self.evaluate(outputs)
            if not all(isinstance(t, Tensor) for t in _flat(made)):
                raise SourceError(f"line {node.lineno}: the outputs of Model are not tensors derive has read")
            return ("model", self.evaluate(inputs), made)
        call = self.reader.value(node)
        if not isinstance(call, Call):
            return None
        if call.name == "Sequential":
            nodes = self.sequential_nodes(call)
            given = call.kwargs.get("name")
            name = given if isinstance(given, str) else self.unique("sequential")
            model = {"kind": "sequential", "nodes": nodes, "call": call, "build": None, "name": name}
            self.sequentials.append(model)
            return model
        if call.name == "Input":
            made = self.node(call)
            return Tensor(made.layer.shape, None)
        if name is not None and (base in SUPPORTED or base[:1].isupper()):
            return self.node(call)
        return None

    def apply(self, node: ast.Call) -> Any:
        """``Layer(...)(x)`` or ``layer(x)``: build the layer on its inputs; the output tensor(s).

        Parameters
        ----------
        node : ast.Call

        Returns
        -------
        Tensor or list of Tensor

        Raises
        ------
        SourceError
            A layer applied to something other than a tensor, or that cannot be built on it.
        """
        if isinstance(node.func, ast.Call):
            layer = self.evaluate(node.func)
        else:  # a name of a layer or a Sequential (evaluate sends only these here)
            layer = self.vars.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if isinstance(layer, dict):
            name = layer.get("name") or self.unique("sequential")
            layer = Node(SequentialLayer(layer["nodes"], name), layer["call"], name, "Sequential")
        if not isinstance(layer, Node) or not node.args:
            raise SourceError(f"line {node.lineno}: cannot read this layer call")
        inputs = self.evaluate(node.args[0])
        flat = inputs if isinstance(inputs, list) else [inputs]
        if not all(isinstance(t, Tensor) for t in flat):
            raise SourceError(f"line {node.lineno}: the input of {layer.name} is not a tensor derive has read")
        shape = [t.shape for t in flat] if isinstance(inputs, list) else inputs.shape
        out = self.build(layer, shape)
        self.loose.append(layer)
        sources = list(flat)
        for keyword in node.keywords:
            extra = self.evaluate(keyword.value) if isinstance(keyword.value, (ast.Name, ast.List, ast.Tuple)) else None
            sources += [t for t in (extra if isinstance(extra, list) else [extra]) if isinstance(t, Tensor)]
        if isinstance(out, list):
            return [Tensor(s, layer, sources) for s in out]
        return Tensor(out, layer, sources)

    def build(self, layer: Node, shape: Any) -> Any:
        """Build a layer on an input shape; the first build fixes its weights.

        Parameters
        ----------
        layer : Node
        shape : tuple or list of tuple

        Returns
        -------
        tuple or list

        Raises
        ------
        SourceError
            The layer cannot be built on that input (Keras' own reason, with the line).
        """
        if isinstance(layer.layer, Unknown) or (
            isinstance(shape, tuple) and shape[-1:] == (None,) and shape[:1] == (Ellipsis,) and self.partial
        ):
            layer.error = layer.error or "input unknown (after an unknown layer)"
            return (Ellipsis, None)
        try:
            module, out = layer.layer.build(shape)
        except (TypeError, ValueError) as error:
            raise SourceError(f"line {layer.call.line}: {' '.join(str(error).split())}") from None
        if layer.module is None:
            layer.module, layer.input_shape, layer.output_shape = module, shape, out
        return out
