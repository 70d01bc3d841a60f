"""TF1 model code read by following it: cells made in functions, stacked, wrapped and applied.

The code is read with :mod:`ast` and evaluated by :mod:`derive.read.code.python` with TF1's
semantics (:mod:`.semantics`) — nothing imported, nothing executed. What is counted is what a
graph holds once the code has run: the variables of the cells the code applies
(``tf.nn.dynamic_rnn``, ``static_rnn``, ``bidirectional_dynamic_rnn``,
``static_bidirectional_rnn``, in the order it applies them), or, where it applies none, of the last
cell its top-level statements make (else the one a top-level name holds: ``cell``'s, else the
last), applied as ``dynamic_rnn`` applies one (scope ``rnn``). The
input's features come from ``input_dim`` (``--input-dim``). Names are the variables' as TensorFlow
prints them (``rnn/multi_rnn_cell/cell_0/lstm_cell/kernel``); a cell object applied twice shares
its variables (counted once); a size named by a name the code does not define is counted in terms
of it.

>>> code = "def cell():\\n    return rnn_cell.GRUCell(16)\\nstack = rnn_cell.MultiRNNCell([cell() for _ in range(2)])"
>>> report = explain_tf1(code, 8)
>>> [t["name"] for t in report.tensors][:2], report.total
(['rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel', 'rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias'], 2784)
"""

from __future__ import annotations

import ast
from typing import Any

from ....frameworks.tf1 import Cell, Run
from ....frameworks.tf1_compose import variables
from ....tree import count
from ...report import Report
from ...source import SourceError, parse_module
from ..python.interpreter import Interpreter
from ..python.values import Refused, Unknown, UserRaise
from .semantics import TF1Semantics

__all__ = ["explain_tf1"]


class _Program:
    """The cells the top-level statements make, and the first refusal."""

    def __init__(self) -> None:
        self.cells: list[tuple[Cell, ast.stmt]] = []
        self.refusal: Exception | None = None

    def after(self, statement: ast.stmt, value: Any, error: Exception | None) -> None:
        if error is not None:
            self.refusal = self.refusal or error
        elif isinstance(value, Cell):
            self.cells.append((value, statement))


def _held(tree: ast.Module, names: dict[str, Any]) -> list[tuple[Cell | Run, int]]:
    """The cell a top-level name holds once the code has run (made under ``if``, ``for``, ``with``):
    ``cell``'s, else the last name's; none, or a refusal where ``cell`` is not known."""
    held = [name for name, value in names.items() if isinstance(value, Cell)]
    value = names.get("cell")
    if not held and isinstance(value, Unknown):
        raise SourceError(f"the cell is not known: {value.reason()}")
    if not held:
        return []
    name = "cell" if "cell" in held else held[-1]
    lines = [
        node.lineno
        for statement in tree.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
    ]
    return [(names[name], lines[-1] if lines else 1)]


def explain_tf1(text: str, input_dim: Any = None, partial: bool = False) -> Report:
    """The variables of a TF1 model's cells, from its code.

    Parameters
    ----------
    text : str
        Python source that makes TF1 cells (``tf.nn.rnn_cell``, ``tf.contrib.rnn``, ``rnn_cell``)
        and may apply them (``tf.nn.dynamic_rnn`` ...).
    input_dim : int, optional
        The features of the input the cells are applied to (required: a cell makes its variables
        when first applied).
    partial : bool
        Not for TF1 code (refused): its cells are counted whole.

    Returns
    -------
    Report
        The variables, named as TensorFlow prints them, in the order it makes them.

    Raises
    ------
    SourceError
        No cell made; no ``input_dim``; a statement the reader refuses (its line and why: a cell
        class derive does not know, ``tf.variable_scope``, a variable made beside the cells); the
        cells' own refusals (TensorFlow's, after the line).
    """
    if partial:
        raise SourceError("partial applies to PyTorch and Keras code: TF1 code is counted whole")
    tree = parse_module(text)
    semantics = TF1Semantics()
    reader = Interpreter(semantics)
    program = _Program()
    try:
        reader.run(tree, program.after)
    except RecursionError:
        raise SourceError("code nested too deeply") from None
    if program.refusal is not None:
        raise program.refusal
    applied: list[tuple[Cell | Run, int]] = [(run, node.lineno) for run, node in semantics.applied]
    if not applied and program.cells:
        cell, statement = program.cells[-1]
        applied = [(cell, statement.lineno)]
    if not applied:
        applied = _held(tree, reader.module_frame.names)
    if not applied:
        raise SourceError(
            "no TF1 cell found: expected a cell made by tf.nn.rnn_cell (LSTMCell, GRUCell, BasicLSTMCell, "
            "BasicRNNCell, MultiRNNCell, DropoutWrapper ...) at the top level, or applied by tf.nn.dynamic_rnn"
        )
    lines = ", ".join(str(line) for _, line in applied)
    if input_dim is None:
        raise SourceError(
            f"line {lines}: TF1 cells make their variables when first applied: give the input's features with "
            "--input-dim N (input_dim= in derive.explain)"
        )
    try:
        module, shared = variables([made for made, _ in applied], input_dim)
    except (TypeError, ValueError) as error:
        raise SourceError(f"line {lines}: {error}") from None
    except (Refused, UserRaise) as error:  # pragma: no cover - the cells are made before they are applied
        raise SourceError(str(error)) from None
    total = count(module)
    named = sorted(str(s) for s in getattr(total, "free_symbols", ()))
    notes = [*reader.notes, *shared]
    if named:
        notes.append(f"not defined in the code, so the count is in terms of it: {', '.join(named)}")
    what = "the cells applied" if semantics.applied else "the cell, applied as tf.nn.dynamic_rnn applies it"
    report = Report.from_module(module, "tf1", f"TF1 code: {what} (line {lines})", notes=notes)
    for row in report.rows:  # a cell's row named by its variables' scope (rnn/multi_rnn_cell/cell_0/lstm_cell)
        parts = [name.split("/")[:-1] for name, _ in row.tensors or ()]
        scope = [p[0] for p in zip(*parts) if len(set(p)) == 1] if parts else []
        if scope:
            row.name = "/".join(scope)
    return report
