"""Whole Keras models pasted as code: ``Sequential([...])``, ``model.add(...)``, the functional API.

The code is read with :mod:`ast` (:mod:`derive.models.source`), never run. The input shape is the
one the code gives — ``Input(shape=...)``, ``input_shape=``, ``batch_input_shape=``,
``input_dim=``, ``input_length=`` (Embedding), ``model.build(...)`` — or ``input_dim`` given
here (features per step), which must not contradict the code.

>>> report = explain_keras("Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])")
>>> [(r.name, r.params) for r in report.rows], report.total
([('embedding', 1280000), ('lstm', 49408), ('dense', 65)], 1329473)
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..engine.symbols import plain
from ..frameworks import keras as dk
from .base import numel, snake
from .keras_layers import KERAS_LAYERS, InputLayer, KerasLayer
from .recurrent import KERAS_INPUT_KWARGS, KERAS_RECURRENT, KerasRecurrent
from .report import Report, Row
from .source import Call, Opaque, Reader, SourceError, clean, dotted, parse_module

__all__ = ["explain_keras", "SUPPORTED", "KerasProgram"]

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


class Unknown(KerasLayer):
    """A layer derive does not know (``--partial``): no count, output unknown.

    Parameters
    ----------
    call : Call
        The constructor call as written.
    """

    def __init__(self, call: Call) -> None:
        self._keep({})
        self.call = call
        self.name = snake(call.name)

    def build(self, input_shape: Any) -> tuple[list, Any]:
        """Nothing known.

        Parameters
        ----------
        input_shape : Any

        Returns
        -------
        tuple
        """
        return [], (Ellipsis, None)


class SequentialLayer(KerasLayer):
    """A ``Sequential`` used as a layer of another model: its layers in turn.

    Parameters
    ----------
    nodes : list of Node
        Its layers, in order.
    name : str
        The layer name (Keras' ``sequential``, ``sequential_1``, ...).
    """

    def __init__(self, nodes: list[Node], name: str) -> None:
        self._keep({})
        self.nodes, self.name = nodes, name

    def build(self, input_shape: Any) -> tuple[list, Any]:
        """Every inner layer's weights, prefixed by its name.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        weights = []
        shape = input_shape
        for node in self.nodes:
            inner, shape = node.layer.build(shape)
            weights += [(f"{node.name}/{n}", s) for n, s in inner]
        return weights, shape

    def formula(self, input_shape: Any) -> tuple[Any, dict]:
        """The count (no single closed form).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        weights, _ = self.build(input_shape)
        return sum((numel(s) for _, s in weights), 0), {}


@dataclass(eq=False)
class Node:
    """A layer of the model with its name, the call that made it, and what building it gave.

    Parameters
    ----------
    layer : Any
        The layer model (a :class:`~derive.models.keras_layers.KerasLayer`).
    call : Call
        The constructor call as written.
    name : str
        The Keras layer name (``lstm``, ``lstm_1``, ...).
    type : str
        The class name (``LSTM``).
    weights : list of (str, tuple), optional
        Weight names and shapes, once built.
    input_shape, output_shape : Any, optional
        Shapes without the batch axis, once built.
    error : str, optional
        Why it could not be built (``--partial``).
    """

    layer: Any
    call: Call
    name: str
    type: str
    weights: list | None = None
    input_shape: Any = None
    output_shape: Any = None
    error: str = ""


@dataclass(eq=False)
class Tensor:
    """A symbolic tensor of the functional API: shape (no batch axis), producer, inputs.

    Parameters
    ----------
    shape : Any
        Without the batch axis.
    node : Node or None
        The layer that produced it (``None`` for an ``Input``).
    inputs : list of Tensor, optional
        The model inputs it depends on.
    """

    shape: Any
    node: Node | None
    inputs: list[Tensor] = field(default_factory=list)


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
        spec = dict(call.kwargs)
        type_name = call.name
        remake = None
        if call.name == "Bidirectional":
            wrapped = call.args[0] if call.args else call.kwargs.get("layer")
            type_name = f"Bidirectional({wrapped.name})" if isinstance(wrapped, Call) else type_name
            spec = dict(wrapped.kwargs) if isinstance(wrapped, Call) else spec
            if (
                "backward_layer" not in call.kwargs
                and isinstance(wrapped, Call)
                and wrapped.name in ("SimpleRNN", "LSTM", "GRU")
            ):

                def remake(units: Any) -> Any:
                    return self._recurrent(call, units)
        elif call.name in ("SimpleRNN", "LSTM", "GRU"):

            def remake(units: Any) -> Any:
                return self._recurrent(call, units)

        return KerasRecurrent(layer, spec, remake), type_name

    def _recurrent(self, call: Call, units: Any = None) -> Any:
        """The derive.keras object of a recurrent call (``units`` replaced when given)."""
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
                made = self._recurrent(inner, units)
                if key in kwargs:
                    kwargs[key] = made
                else:
                    args[0] = made
            return dk.Bidirectional(*args, **kwargs)
        if units is not None:
            if args:
                args[0] = units
            else:
                kwargs["units" if call.name in ("SimpleRNN", "LSTM", "GRU") else "filters"] = units
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
            self.sequentials.append({"kind": "sequential", "nodes": [result], "call": result.call, "build": None})

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
            model = {"kind": "sequential", "nodes": nodes, "call": call, "build": None}
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
            layer = Node(
                SequentialLayer(layer["nodes"], self.unique("sequential")), layer["call"], "sequential", "Sequential"
            )
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
            weights, out = layer.layer.build(shape)
        except (TypeError, ValueError) as error:
            raise SourceError(f"line {layer.call.line}: {' '.join(str(error).split())}") from None
        if layer.weights is None:
            layer.weights, layer.input_shape, layer.output_shape = weights, shape, out
        return out


def _declared(node: Node) -> tuple | None:
    """The input shape a layer's own arguments give (Keras 2 and 3 spellings), or None."""
    calls = [node.call]
    inner = node.call.args[0] if node.call.args else node.call.kwargs.get("layer")
    if isinstance(inner, Call):
        calls.append(inner)
    for call in calls:
        kwargs = call.kwargs
        if isinstance(kwargs.get("batch_input_shape"), (tuple, list)):
            return tuple(kwargs["batch_input_shape"][1:])
        if isinstance(kwargs.get("input_shape"), (tuple, list)):
            return tuple(kwargs["input_shape"])
        if kwargs.get("input_dim") is not None:
            if isinstance(node.layer, KerasRecurrent):
                return (kwargs.get("input_length"), kwargs["input_dim"])
            if call.name != "Embedding":
                return (kwargs["input_dim"],)
        if call.name == "Embedding" and kwargs.get("input_length") is not None:
            return (kwargs["input_length"],)
    return None


def _features(node: Node, shape: tuple) -> Any:
    layer = node.layer
    if isinstance(layer, KerasRecurrent):
        return layer.features(shape)
    if getattr(layer, "data_format", None) == "channels_first":
        return shape[0]
    return shape[-1] if shape else None


def _start(nodes: list[Node], shape: tuple | None, input_dim: Any, notes: list[str]) -> tuple:
    first = nodes[0]
    if shape is not None:
        if input_dim is not None:
            if first.type == "Embedding":
                raise SourceError(
                    f"input_dim={input_dim} does not apply: the model starts with an Embedding, "
                    "whose input is token ids"
                )
            features = _features(first, shape)
            if features != input_dim:
                raise SourceError(
                    f"input_dim={input_dim} contradicts the code: its input shape "
                    f"{(None, *shape)} gives {first.name} {features} input features"
                )
        return shape
    if input_dim is not None:
        layer = first.layer
        if first.type == "Embedding":
            raise SourceError(
                f"input_dim={input_dim} does not apply: the model starts with an Embedding, whose input is token ids"
            )
        if isinstance(layer, KerasRecurrent):
            if layer.data_format == "channels_first":
                return (None, input_dim) + (None,) * (layer.rank - 2)
            return (None,) * (layer.rank - 1) + (input_dim,)
        return (Ellipsis, input_dim)
    if first.type == "Embedding":
        notes.append(
            "no input shape given: the Embedding's input is taken as (batch, time) token ids; "
            "the counts do not depend on it"
        )
        return (None,)
    raise SourceError(
        f"--input-dim is required, or the input shape in the code: write input_shape=(T, F) on the first layer "
        f"({first.name}), start with Input(shape=(T, F)), or give --input-dim"
    )


def _rows(nodes: list[Node], partial: bool) -> list[Row]:
    rows = []
    for node in nodes:
        if isinstance(node.layer, InputLayer):
            continue
        if node.weights is None:
            rows.append(Row(node.name, node.type, None, note=node.error or "not built"))
            continue
        params = plain(sum((numel(s) for _, s in node.weights), 0))
        try:
            formula, values = node.layer.formula(node.input_shape)
        except (TypeError, ValueError, AttributeError):
            formula, values = None, {}
        out = node.output_shape
        shown = [(None, *s) for s in out] if isinstance(out, list) else (None, *out)
        rows.append(
            Row(
                node.name,
                node.type,
                params,
                formula,
                values,
                shown,
                node.error,
                [(n, tuple(plain(d) for d in s)) for n, s in node.weights],
            )
        )
    return rows


def _flat(value: Any) -> list:
    """The items of nested lists (a model's outputs), in order."""
    if not isinstance(value, list):
        return [value]
    return [item for part in value for item in _flat(part)]


def _reachable(outputs: Any) -> set[int]:
    seen: set[int] = set()
    stack = list(outputs) if isinstance(outputs, list) else [outputs]
    while stack:
        tensor = stack.pop()
        if isinstance(tensor, list):
            stack.extend(tensor)
            continue
        if not isinstance(tensor, Tensor) or tensor.node is None:
            continue
        if id(tensor.node) not in seen:
            seen.add(id(tensor.node))
        stack.extend(tensor.inputs)
    return seen


def explain_keras(text: str, input_dim: Any = None, partial: bool = False) -> Report:
    """A Keras model's layers, counts, closed forms and output shapes, from its code.

    Parameters
    ----------
    text : str
        Python source: ``Sequential([...])``, ``model.add(...)`` lines, or the functional API
        ending in ``Model(inputs, outputs)``; one layer constructor is a one-layer model.
    input_dim : int or sympy.Expr, optional
        Features per time step of the model's input, when the code does not give its shape.
        Refused when it contradicts the code.
    partial : bool
        Count the known layers and mark unknown ones instead of refusing.

    Returns
    -------
    Report
        One row per layer (as ``model.layers``; no InputLayer), total = ``model.count_params()``.

    Raises
    ------
    SourceError
        Unreadable code, an unknown layer (with its line and the supported names), an input shape
        that does not fit (Keras' wording), an unknown or contradicted input size.

    Examples
    --------
    >>> explain_keras("LSTM(64, input_shape=(100, 8))").total
    18688
    """
    tree = parse_module(text)
    program = KerasProgram(partial)
    program.run(tree.body)
    title = "Keras model"
    if program.models:
        named = [m for m in program.models if m[0] == "model"]
        _, inputs, outputs = (named or program.models)[0]
        reach = _reachable(outputs)
        nodes = [n for n in dict.fromkeys(program.loose) if id(n) in reach]
        if input_dim is not None:
            raise SourceError("input_dim does not apply to a functional model: its Input(shape=...) gives it")
        shape = None
        title = "Keras functional model"
    elif program.sequentials:
        named_sequentials = [s for s in program.sequentials if s.get("var") == "model"]
        model = (named_sequentials or program.sequentials)[-1]
        nodes = list(model["nodes"])
        if not nodes:
            raise SourceError("the Sequential model has no layers")
        shape = None
        if isinstance(nodes[0].layer, InputLayer):
            shape = nodes[0].layer.shape
            nodes = nodes[1:]
        if not nodes:
            raise SourceError("the Sequential model has no layers")
        shape = shape or _declared(nodes[0]) or model.get("build")
        shape = _start(nodes, shape, input_dim, program.notes)
        current: Any = shape
        for node in nodes:
            current = program.build(node, current)
            if isinstance(current, list):
                current = current[0]
        title = f"Keras Sequential, input {(None, *shape)}" if shape[:1] != (Ellipsis,) else "Keras Sequential"
    elif program.loose:
        nodes = list(dict.fromkeys(program.loose))
        shape = None
    else:
        raise SourceError("no Keras model found: expected Sequential([...]), model.add(...) or Model(inputs, outputs)")
    report = Report("keras", _rows(nodes, partial), clean(title), shape, program.notes)
    return report
