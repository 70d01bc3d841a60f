"""An ``.onnx`` graph read into the module tree: its recurrent nodes back to the module the user wrote.

``onnx.load(path, load_external_data=False)`` reads the graph as data (nothing runs). Each ``RNN``,
``GRU`` and ``LSTM`` node holds one layer of every direction (``W`` [D, G·H, I], ``R``
[D, G·H, H], ``B`` [D, 2·G·H], LSTM peepholes ``P`` [D, 3H]: :data:`derive.frameworks.onnx.ONNX`);
``torch.onnx.export`` writes ``num_layers`` nodes, each reading the one before through a
``Transpose``/``Reshape`` (or ``Squeeze``). Consecutive nodes of one kind so linked, with one
hidden size, direction and bias, are merged into the module the user wrote —
``nn.GRU(20, 40, num_layers=2, bidirectional=True)`` — whose tensors the ONNX convention must give
exactly (its gate count is the registered cell's). The other initializers are counted by module
("numeric, not derived"), except buffers: a ``BatchNormalization``'s mean and variance, and
integer constants. An initializer read by several nodes is one tensor, counted once; one the
exporter de-duplicated (an ``Identity`` of an equal-valued initializer, named as the original
tensor) is the original tensor again.
"""

from __future__ import annotations

import math
from typing import Any

from ...engine.stack import Stack
from ...engine.wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL
from ...frameworks.onnx import ONNX
from ...tree import Module, Param
from ..report import Report
from ..source import SourceError, clean
from ..torch_recurrent import MODES, constructor_text, gates, recurrent_formula

__all__ = ["explain_onnx", "PASS_THROUGH", "NOT_FLOAT"]

#: Operators between two layers' nodes of one exported module (they only reshape).
PASS_THROUGH = frozenset({"Transpose", "Reshape", "Squeeze", "Unsqueeze", "Identity"})
#: ONNX ``TensorProto`` element types that are not floating point (constants, not parameters).
NOT_FLOAT = frozenset({2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 21, 22})
_BUFFER_SLOTS = {"BatchNormalization": (3, 4)}


def _scope(node: Any) -> str:
    """The module path of an exported node (``/rnn/GRU_1`` -> ``rnn``), "" when it has none."""
    name = str(node.name)
    if not name.startswith("/"):
        return ""
    return ".".join(name.strip("/").split("/")[:-1])


class _Graph:
    def __init__(self, model: Any) -> None:
        import onnx

        self.attribute = onnx.helper.get_attribute_value
        graph = model.graph
        self.tensors: dict[str, tuple[tuple[int, ...], int]] = {
            t.name: (tuple(int(d) for d in t.dims), int(t.data_type)) for t in graph.initializer
        }
        self.nodes = list(graph.node)
        self.producers = {out: node for node in self.nodes for out in node.output}
        self.aliases: dict[str, str] = {}
        for node in self.nodes:  # the exporter's de-duplication: Identity(initializer) named as the original
            if node.op_type == "Identity" and node.input and node.input[0] in self.tensors and node.output:
                self.tensors[node.output[0]] = self.tensors[node.input[0]]
                self.aliases[node.output[0]] = node.input[0]
        self.uses: dict[str, list[tuple[Any, int]]] = {}
        for node in self.nodes:
            if node.op_type == "Identity" and node.output and node.output[0] in self.aliases:
                continue
            for index, name in enumerate(node.input):
                if name in self.tensors:
                    self.uses.setdefault(name, []).append((node, index))

    def source(self, name: str) -> tuple[Any, str] | None:
        """The node (and its output) ``name`` is read from, through reshaping operators only."""
        for _ in range(64):
            node = self.producers.get(name)
            if node is None:
                return None
            if node.op_type not in PASS_THROUGH:
                return node, name
            name = node.input[0]
        return None


class _Layer:
    """One recurrent node: its tensors' names and shapes, and its arguments."""

    def __init__(self, graph: _Graph, node: Any) -> None:
        self.node = node
        where = f"ONNX node {clean(node.name or node.op_type, 60)}"
        names = [node.input[i] if len(node.input) > i and node.input[i] else None for i in (1, 2, 3, 7)]
        if names[0] not in graph.tensors or names[1] not in graph.tensors:
            raise SourceError(f"{where}: W or R is not an initializer")
        for name in names[2:]:
            if name is not None and name not in graph.tensors:
                raise SourceError(f"{where}: {clean(name, 60)} is not an initializer")
        self.names = [n for n in names if n is not None]
        self.bias, self.peepholes = names[2] is not None, names[3] is not None
        (w, _), (r, _) = graph.tensors[names[0]], graph.tensors[names[1]]
        if len(w) != 3 or len(r) != 3:
            raise SourceError(f"{where}: W and R are not three-dimensional")
        self.kind = node.op_type
        self.directions, rows, self.input_size = w
        self.hidden_size = r[2]
        attrs = {a.name: graph.attribute(a) for a in node.attribute}
        g = gates(self.kind)
        if rows != g * self.hidden_size:
            raise SourceError(f"{where}: W has {rows} rows, not {g}·{self.hidden_size}")
        self.linear_before_reset = int(attrs.get("linear_before_reset", 0))
        direction = attrs.get("direction", b"forward")
        self.direction = direction.decode() if isinstance(direction, bytes) else str(direction)
        self.scope = _scope(node)

    def continues(self, before: _Layer, graph: _Graph) -> bool:
        """Whether this node is the next layer of ``before``'s module (as torch.onnx.export writes it)."""
        same = (self.kind, self.hidden_size, self.directions, self.bias, self.peepholes, self.direction)
        if same != (
            before.kind,
            before.hidden_size,
            before.directions,
            before.bias,
            before.peepholes,
            before.direction,
        ):
            return False
        if self.scope != before.scope or self.input_size != before.directions * before.hidden_size:
            return False
        found = graph.source(self.node.input[0])
        return found is not None and found[0] is before.node and found[1] == before.node.output[0]


def _groups(layers: list[_Layer], graph: _Graph) -> list[list[_Layer]]:
    groups: list[list[_Layer]] = []
    for layer in layers:
        if groups and layer.continues(groups[-1][-1], graph):
            groups[-1].append(layer)
        else:
            groups.append([layer])
    return groups


def _module(group: list[_Layer], graph: _Graph, name: str) -> tuple[Module, dict[str, Any], str | None]:
    """The merged module of ``group``: its tensors as the ONNX convention lays them out, checked."""
    first = group[0]
    mode = MODES[first.kind]
    wiring = DEEP_BIDIRECTIONAL if first.directions == 2 else UNIDIRECTIONAL
    options = (("peepholes", True),) if first.peepholes else ()
    stack = Stack(
        mode, first.input_size, first.hidden_size, len(group), first.bias, 0, ONNX, wiring, cell_options=options
    )
    expected = list(stack.shapes.items())
    given = [(layer, n) for layer in group for n in layer.names]
    if [s for _, s in expected] != [graph.tensors[n][0] for _, n in given]:
        raise SourceError(
            f"ONNX nodes {clean(first.node.name, 60)}...: their tensors are not those of the ONNX "
            f"{first.kind} convention ({', '.join(f'{k} {s}' for k, s in expected[:6])})"
        )
    params = tuple(Param(k, s) for k, s in expected)
    config = {
        "mode": first.kind,
        "input_size": first.input_size,
        "hidden_size": first.hidden_size,
        "num_layers": len(group),
        "bidirectional": first.directions == 2,
        "bias": first.bias,
        "direction": first.direction,
        "linear_before_reset": first.linear_before_reset,
    }
    args = (first.input_size, first.hidden_size)
    kwargs: dict[str, Any] = {}
    if len(group) > 1:
        kwargs["num_layers"] = len(group)
    if first.directions == 2:
        kwargs["bidirectional"] = True
    if not first.bias:
        kwargs["bias"] = False
    torch_like = (
        not first.peepholes and first.direction != "reverse" and (first.kind != "GRU" or first.linear_before_reset == 1)
    )
    note = (
        "" if torch_like else "no torch.nn module has this node's options (peepholes, reverse, linear_before_reset=0)"
    )
    formula = recurrent_formula(first.kind, args, kwargs) if torch_like else None
    module = Module(name, first.kind, params, config=config, formula=formula, note=note)
    return module, config, constructor_text(first.kind, args, kwargs) if torch_like else None


def explain_onnx(path: str) -> Report:
    """An ONNX model's recurrent modules (merged back into the modules written) and other initializers.

    Parameters
    ----------
    path : str

    Returns
    -------
    Report
        ``constructors`` the recurrent modules' ``torch.nn`` calls; ``tensors`` the initializers
        as the file names them, buffers and shared ones marked.

    Raises
    ------
    SourceError
        Not a readable ONNX model; a recurrent node whose W or R is not an initializer or whose
        shapes the ONNX convention does not give.
    """
    import onnx

    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as error:  # onnx raises DecodeError and others for corrupt files
        raise SourceError(f"{clean(path, 80)}: not a readable ONNX model ({clean(str(error), 160)})") from None
    graph = _Graph(model)
    layers = [_Layer(graph, node) for node in graph.nodes if node.op_type in MODES]
    tree = _Tree()
    rows: dict[str, tuple[dict[str, Any], str | None]] = {}
    used: dict[str, str] = {}
    for group in _groups(layers, graph):
        path_ = tree.free(group[0].scope or group[0].kind.lower())
        module, config, constructor = _module(group, graph, path_.rsplit(".", 1)[-1])
        tree.place(path_, module)
        rows[path_] = (config, constructor)
        for layer in group:
            used.update(dict.fromkeys(layer.names, path_))
    listing, buffers = [], 0
    for name, (shape, dtype) in graph.tensors.items():
        uses = graph.uses.get(name, [])
        buffer = dtype in NOT_FLOAT or any(i in _BUFFER_SLOTS.get(node.op_type, ()) for node, i in uses)
        entry: dict[str, Any] = {"name": name, "shape": shape, "parameters": 0 if buffer else math.prod(shape)}
        if buffer:
            entry["buffer"] = True
            buffers += 1
        listing.append(entry)
        if name in used:
            continue
        if "." in name and "::" not in name:
            module_path, last = name.rsplit(".", 1)
        else:
            module_path, last = (_scope(uses[0][0]) if uses else ""), name
        tree.param(module_path, Param(last, shape, buffer=buffer))
    notes = [
        "one ONNX node is one layer of every direction; consecutive nodes of one module are merged into "
        "the module written (num_layers)",
        "ONNX B holds both biases (Wb, Rb), as torch's bias_ih and bias_hh",
    ]
    shared = [n for n, uses in graph.uses.items() if len({id(node) for node, _ in uses}) > 1]
    if shared:
        notes.append(
            f"{len(shared)} initializer{'s' if len(shared) != 1 else ''} read by several nodes, counted once "
            f"({', '.join(clean(n, 60) for n in shared[:4])})"
        )
    if buffers:
        notes.append(
            f"{buffers} buffer{'s' if buffers != 1 else ''} not counted (BatchNormalization statistics, integer constants)"
        )
    root = tree.build()
    root = root if root.type else root.replace(type="ONNX graph")
    report = Report.from_module(root, "onnx", "ONNX graph", None, notes, tensors=listing)
    for row in report.rows:
        if row.name in rows:
            row.config, row.constructor = rows[row.name]
    report.constructors = [c for _, c in rows.values() if c]
    return report


class _Tree:
    """Modules placed at dotted paths, and loose tensors by module path."""

    def __init__(self) -> None:
        self.children: dict[str, _Tree] = {}
        self.params: list[Param] = []
        self.module: Module | None = None

    def at(self, path: str) -> _Tree:
        node = self
        for part in path.split(".") if path else []:
            node = node.children.setdefault(part, _Tree())
        return node

    def free(self, path: str) -> str:
        """``path``, or ``path_1``, ... when a module is placed there already."""
        candidate, k = path, 0
        while self.at(candidate).module is not None:
            k += 1
            candidate = f"{path}_{k}"
        return candidate

    def place(self, path: str, module: Module) -> None:
        self.at(path).module = module

    def param(self, path: str, param: Param) -> None:
        self.at(path).params.append(param)

    def build(self, name: str = "") -> Module:
        children = tuple(child.build(key) for key, child in self.children.items())
        if self.module is not None:
            return self.module.replace(name=name, params=self.module.params + tuple(self.params), children=children)
        note = "numeric, not derived" if any(p.counted for p in self.params) else ""
        return Module(name, "initializers" if self.params else "", tuple(self.params), children, note=note)
