"""TF1 cells composed and applied: ``MultiRNNCell``, the wrappers, ``dynamic_rnn`` and its kin, one graph's variables.

The cells themselves (``LSTMCell``, ``GRUCell`` ...) and what a cell is (:class:`~.tf1.Cell`: variables
made when first applied, shared by a later use of the same object, :class:`~.tf1.Graph`) are
:mod:`.tf1`'s; this module composes them as ``rnn_cell_impl.py`` and ``rnn.py`` do, and
:func:`variables` gives the variables a graph holds once cells are applied in it (the code reader
of :mod:`derive.read.code.tf1`).
"""

from __future__ import annotations

from typing import Any

from .._sympy import sympy
from ..engine import validate
from ..tree import Module
from .mirror import constructor
from .tf1 import PREFIXES, Cell, Graph, Run

__all__ = ["repeated", "variables"]

#: ... and the functions that apply them (``tf.compat.v1.nn.dynamic_rnn``; ``static_rnn`` also in
#: ``tf.contrib.rnn``).
_RUN_PREFIXES = ("tf.compat.v1.nn.", "tf.nn.", "")
_STATIC_PREFIXES = (*_RUN_PREFIXES, "tf.contrib.rnn.", "rnn.")
_SOURCE_RUN = (
    "tensorflow/python/ops/rnn.py (TF 2.21: dynamic_rnn, static_rnn scope 'rnn'; bidirectional_dynamic_rnn, "
    "static_bidirectional_rnn scope 'bidirectional_rnn' with 'fw', 'bw'); "
    "tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py (MultiRNNCell: 'multi_rnn_cell/cell_<k>'), "
    "rnn_cell_wrapper_impl.py (DropoutWrapper, ResidualWrapper, DeviceWrapper: no variables)"
)


def _group(kind: str, parts: list[Module]) -> Module:
    """Modules made together, those of a shared cell's later uses (no variables) left out."""
    return Module("", kind, children=tuple(p for p in parts if p.params or p.children), sep="/")


def _cell(name: str, value: Any) -> Cell:
    if not isinstance(value, Cell):
        raise TypeError(f"{name} must be an RNNCell (LSTMCell, GRUCell, ...), got {validate.shown(value)}")
    return value


def _scope(scope: Any, default: str) -> str:
    if scope is None:
        return default
    if not isinstance(scope, str) or not scope:
        raise TypeError(f"scope: give the variable scope's name as a string, got {validate.shown(scope)}")
    return scope


@constructor("tf1", "MultiRNNCell", prefixes=PREFIXES, deferred=True, source=_SOURCE_RUN)
def _multi_rnn_cell(cells: Any, state_is_tuple: Any = True) -> Cell:
    if not isinstance(cells, (list, tuple)):
        raise TypeError(
            "cells: write the list of cells out ([LSTMCell(48), LSTMCell(48)], or [LSTMCell(48) for _ in range(2)]), "
            f"got {validate.shown(cells)}"
        )
    if not cells:
        raise ValueError("Must specify at least one cell for MultiRNNCell.")
    stack = [_cell("cells", c) for c in cells]

    def make(width: Any, scope: str, graph: Graph) -> Module:
        children = []
        for k, cell in enumerate(stack):
            children.append(cell.make(width, f"{scope}/multi_rnn_cell/cell_{k}", graph))
            width = cell.output(width)
        return _group("MultiRNNCell", children)

    def output(width: Any) -> Any:
        for cell in stack:
            width = cell.output(width)
        return width

    return Cell(make, output)


def repeated(first: Any, above: Any, times: Any) -> Cell:
    """``MultiRNNCell([make_cell() for _ in range(n)])`` for a number of cells ``n`` without a value.

    Parameters
    ----------
    first : Cell
        Cell 0, which sees the input's features.
    above : Cell
        What the list holds above cell 0 (each sees the output of the one below): another object
        made as ``first`` was, or ``first`` itself (``[cell] * n``: one object, one set of variables).
    times : sympy.Expr
        ``n``, a positive integer.

    Returns
    -------
    Cell
        Its variables: cell 0's, and cell ``k``'s for ``k`` from 1 to ``n - 1`` (``cell_{k}``).

    Raises
    ------
    TypeError, ValueError
        Not cells; ``times`` not a size; cells above whose input would not be as wide as their
        output; one object whose input is not as wide as its output (TensorFlow refuses it from
        ``n`` = 2); a ``MultiRNNCell`` repeated.
    """
    first, above = _cell("cells", first), _cell("cells", above)
    times = validate.size("the number of cells", times)

    def make(width: Any, scope: str, graph: Graph) -> Module:
        bottom = first.make(width, f"{scope}/multi_rnn_cell/cell_0", graph)
        inner = first.output(width)
        if above is first and inner != width and sympy.sympify(inner - width).is_number:
            raise ValueError(
                f"one cell object {times} times: TensorFlow shares its variables, made for inputs of {width} "
                f"features, and refuses it its own output of {inner} from the second cell on: derive cannot "
                f"know whether {times} is 1"
            )
        if above.output(inner) != inner:
            raise ValueError(f"the cells above cell 0 would see inputs of other widths than {inner}")
        upper = above.make(inner, f"{scope}/multi_rnn_cell/cell_{{k}}", graph)
        if upper.children:
            raise ValueError(f"a MultiRNNCell {times} times: write the number of cells in")
        scope_k = next((p.name.rsplit("/", 1)[0] for p in upper.params), "")
        upper = upper.replace(note=f"{scope_k}, k from 1 to {times - 1}", repeat=times - 1, start=1)
        return _group("MultiRNNCell", [bottom, upper])

    return Cell(make, first.output)


@constructor("tf1", "DropoutWrapper", prefixes=PREFIXES, deferred=True, source=_SOURCE_RUN)
def _dropout_wrapper(
    cell: Any,
    input_keep_prob: Any = 1.0,
    output_keep_prob: Any = 1.0,
    state_keep_prob: Any = 1.0,
    variational_recurrent: Any = False,
    input_size: Any = None,
    dtype: Any = None,
    seed: Any = None,
    dropout_state_filter_visitor: Any = None,
    **kwargs: Any,
) -> Cell:
    return _cell("cell", cell)


@constructor("tf1", "ResidualWrapper", prefixes=PREFIXES, deferred=True, source=_SOURCE_RUN)
def _residual_wrapper(cell: Any, residual_fn: Any = None, **kwargs: Any) -> Cell:
    inner = _cell("cell", cell)

    def make(width: Any, scope: str, graph: Graph) -> Module:
        out = inner.output(width)
        if residual_fn is None and out != width:
            raise ValueError(
                f"ResidualWrapper adds the input to the cell's output: the input width {width} must equal "
                f"the output's {out}"
            )
        return inner.make(width, scope, graph)

    return Cell(make, inner.output)


@constructor("tf1", "DeviceWrapper", prefixes=PREFIXES, deferred=True, source=_SOURCE_RUN)
def _device_wrapper(cell: Any, device: Any = None, **kwargs: Any) -> Cell:
    return _cell("cell", cell)


def _one(cell: Any, scope: Any) -> Run:
    made, name = _cell("cell", cell), _scope(scope, "rnn")
    return Run(lambda width, graph: made.make(width, name, graph))


def _two(cell_fw: Any, cell_bw: Any, scope: Any) -> Run:
    fw, bw, name = _cell("cell_fw", cell_fw), _cell("cell_bw", cell_bw), _scope(scope, "bidirectional_rnn")
    return Run(
        lambda width, graph: _group(
            "bidirectional_rnn", [fw.make(width, f"{name}/fw", graph), bw.make(width, f"{name}/bw", graph)]
        )
    )


@constructor("tf1", "dynamic_rnn", prefixes=_RUN_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _dynamic_rnn(
    cell: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: Any = False,
    time_major: Any = False,
    scope: Any = None,
) -> Run:
    return _one(cell, scope)


@constructor("tf1", "static_rnn", prefixes=_STATIC_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _static_rnn(
    cell: Any,
    inputs: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> Run:
    return _one(cell, scope)


@constructor("tf1", "bidirectional_dynamic_rnn", prefixes=_RUN_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _bidirectional_dynamic_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: Any = False,
    time_major: Any = False,
    scope: Any = None,
) -> Run:
    return _two(cell_fw, cell_bw, scope)


@constructor("tf1", "static_bidirectional_rnn", prefixes=_STATIC_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _static_bidirectional_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> Run:
    return _two(cell_fw, cell_bw, scope)


def variables(applied: list[Any], width: Any) -> tuple[Module, list[str]]:
    """The variables of one graph in which ``applied`` ran in order: cells, as ``dynamic_rnn`` applies
    one (scope ``rnn``), and what ``dynamic_rnn`` and the other functions made (:class:`Run`).

    Parameters
    ----------
    applied : list of Cell or Run
    width : int or sympy.Expr
        The input's features (each is applied to the same input).

    Returns
    -------
    (Module, list of str)
        The variables, and the uses that shared another's (:attr:`Graph.notes`).

    Raises
    ------
    TypeError, ValueError
        A width that is not a size; the cells' own checks; a variable made twice (two functions
        under one scope: TensorFlow's ``Variable ... already exists``).
    """
    graph, width = Graph(), validate.size("input width", width)
    parts = [a.make(width, "rnn", graph) if isinstance(a, Cell) else a.make(width, graph) for a in applied]
    module, seen = _group("graph", parts), set()
    pending = [module]
    while pending:
        node = pending.pop()
        pending.extend(node.children)
        for p in node.params:
            if p.name in seen:
                raise ValueError(
                    f"Variable {p.name} already exists, disallowed: give each function that applies cells its "
                    "own scope= (TensorFlow refuses a second rnn scope's variables)"
                )
            seen.add(p.name)
    return module, graph.notes
