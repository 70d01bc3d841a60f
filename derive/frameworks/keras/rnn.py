"""Keras 3's ``RNN(cell)`` and ``StackedRNNCells(cells)``: a recurrent layer around cells.

>>> from derive.keras import GRUCell, LSTMCell
>>> RNN([LSTMCell(5), GRUCell(6), LSTMCell(2)], input_dim=4).count
506
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ...cells import Cell
from ...engine import validate
from ...engine.symbols import Size
from ...tree import Module
from .base import CELL_KWARGS, given_input, layer_name, unexpected_keywords
from .cells import CellBase, KerasCell
from .recurrent import RecurrentLayer

__all__ = ["StackedRNNCells", "RNN"]


def _check_cell(cell: object, message: str) -> CellBase:
    if not isinstance(cell, CellBase):
        raise ValueError(
            f"{message}: {cell!r} (a cell of derive.keras: SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells)"
        )
    return cell


class StackedRNNCells(CellBase):
    """``keras.layers.StackedRNNCells(cells, **kwargs)``: cells applied one above the other at each step.

    Cell k reads the output of cell k - 1 (``keras/src/layers/rnn/stacked_rnn_cells.py``,
    ``StackedRNNCells.build``: each cell is built on the previous cell's ``output_size``); the
    stack's output is the last cell's. Weights are the cells' in order, under
    ``<rnn>/stacked_rnn_cells/<cell>/``. Cells without a ``name`` get Keras' default names made
    unique in the order they are listed, as a fresh session (``keras.backend.clear_session()``)
    creates them: ``lstm_cell``, ``lstm_cell_1``, ...; a session that has created cells before
    counts on from there (the shapes do not change).

    Parameters
    ----------
    cells : list of SimpleRNNCell, LSTMCell, GRUCell or StackedRNNCells
    **kwargs
        Keras' layer arguments (``name``, default ``"stacked_rnn_cells"``, ``dtype``, ...).

    Raises
    ------
    ValueError
        ``cells`` empty, or an entry that is not a cell (Keras: "All cells must have a `call` method").
    TypeError
        An unknown keyword.

    Examples
    --------
    >>> from derive.keras import LSTMCell
    >>> [w.path for w in RNN(StackedRNNCells([LSTMCell(5), LSTMCell(6)]), input_dim=4).tensors()][::3]
    ['rnn/stacked_rnn_cells/lstm_cell/kernel', 'rnn/stacked_rnn_cells/lstm_cell_1/kernel']
    """

    default_name = "stacked_rnn_cells"

    def __init__(self, cells: Sequence[CellBase], **kwargs: Any) -> None:
        unexpected_keywords(type(self), kwargs, CELL_KWARGS)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"cells must be a non-empty list of cells, got {cells!r}")
        seen: dict[str, int] = {}
        self.cells: list[CellBase] = []
        for cell in cells:
            cell = copy.copy(
                _check_cell(cell, "All cells must have a `call` method. Received cell without a `call` method")
            )
            if cell.auto_name:
                k = seen.get(cell.default_name, 0)
                seen[cell.default_name] = k + 1
                cell.name = cell.default_name if k == 0 else f"{cell.default_name}_{k}"
            self.cells.append(cell)
        self.auto_name = kwargs.get("name") is None
        self.name = layer_name(kwargs.get("name"), self.default_name)
        self.input_given = given_input("StackedRNNCells", kwargs)

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """Every cell's weights in order, cell k built for the output width of cell k - 1 (the cells'
        own input keywords are not read, as Keras does not read them).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step read by the first cell.
        prefix : str
            Prepended to the module's name.

        Returns
        -------
        derive.tree.Module
            Named ``<prefix><name>``, the cells its children.
        """
        children = []
        width = validate.size("input_dim", input_dim)
        for cell in self.cells:
            children.append(cell._module(width))
            width = cell.output_dim(width)
        return Module(prefix + self.name, "StackedRNNCells", children=tuple(children), sep="/")

    def state_widths(self) -> list[Size]:
        """Every cell's states, in order.

        Returns
        -------
        list of int or sympy.Expr
        """
        return [w for cell in self.cells for w in cell.state_widths()]

    def output_dim(self, input_dim: Size | None = None) -> Size:
        """The last cell's output width (``StackedRNNCells.output_size``).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional

        Returns
        -------
        int or sympy.Expr
        """
        width = input_dim
        for cell in self.cells:
            width = cell.output_dim(width)
        return width

    def __repr__(self) -> str:
        return f"StackedRNNCells([{', '.join(repr(c) for c in self.cells)}]{self._input_repr()})"


class RNN(RecurrentLayer):
    """``keras.layers.RNN(cell, return_sequences=False, ...)``: a recurrent layer around a cell.

    ``RNN(LSTMCell(n))`` has :class:`LSTM`'s weights, under ``rnn/lstm_cell/`` instead of
    ``lstm/lstm_cell/``; a list of cells is wrapped in :class:`StackedRNNCells`
    (``keras/src/layers/rnn/rnn.py``, ``RNN.__init__``), its weights under
    ``rnn/stacked_rnn_cells/<cell>/``. The output is the (last) cell's ``units`` wide. Usable in
    :class:`Bidirectional` and :class:`Sequential` as the other layers.

    Parameters
    ----------
    cell : SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells, or a list of cells
    return_sequences, return_state, go_backwards, stateful : bool
        Checked where Keras checks them (see :class:`Bidirectional`).
    unroll, zero_output_for_mask : bool
        Accepted and ignored.
    **kwargs
        Keras' layer arguments (``name``, default ``"rnn"``, ``dtype``, ...) and the input, as
        Keras layers take it (``input_dim``, ``input_shape=(steps, features)``,
        ``batch_input_shape``): with it, ``.count`` is the layer's count. The cells' own input
        keywords are not read (Keras reads the RNN's).

    Raises
    ------
    ValueError
        ``cell`` not a cell (Keras: "Argument `cell` should have a `call` method"), an empty list.
    TypeError
        An unknown keyword.

    Examples
    --------
    >>> from derive.keras import LSTM, Bidirectional, GRUCell, LSTMCell, count
    >>> RNN([LSTMCell(5), GRUCell(6), LSTMCell(2)], input_dim=4).count
    506
    >>> Bidirectional(RNN(LSTMCell(128)), input_dim=28).count == Bidirectional(LSTM(128), input_dim=28).count
    True
    """

    mode, default_name = "RNN", "rnn"

    def __init__(
        self,
        cell: CellBase | Sequence[CellBase],
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        unexpected_keywords(type(self), kwargs, CELL_KWARGS)
        stacked = StackedRNNCells(cell) if isinstance(cell, (list, tuple)) else cell
        self.cell_object = _check_cell(stacked, "Argument `cell` should have a `call` method. Received: cell")
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.name = layer_name(kwargs.get("name"), self.default_name)
        last = self.cell_object
        while isinstance(last, StackedRNNCells):
            last = last.cells[-1]
        assert isinstance(last, KerasCell)
        self.units = last.units  # the stack's output width
        self.use_bias = True
        self._take_input(kwargs)

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        if not isinstance(self.cell_object, KerasCell):
            raise ValueError("RNN over StackedRNNCells has one cell per level: see .cell_object.cells")
        return self.cell_object.cell(input_dim, numeric=numeric)

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """The cell's weights under ``<prefix><name>/`` (see :class:`StackedRNNCells` for a stack;
        :meth:`module`, which checks ``input_dim`` against the given input, calls it).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        prefix : str
            Prepended to the module's name.

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        inner = self.cell_object._module(validate.size("input_dim", input_dim))
        return Module(prefix + self.name, "RNN", children=(inner,), sep="/", row=True)

    def state_widths(self) -> list[Size]:
        """The cell's states (every cell's, for a stack).

        Returns
        -------
        list of int or sympy.Expr
        """
        return self.cell_object.state_widths()

    def output_dim(self, input_dim: Size | None = None) -> Size:
        """The cell's output width (the last cell's ``units`` for a stack).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional

        Returns
        -------
        int or sympy.Expr
        """
        return self.cell_object.output_dim(input_dim)

    def __repr__(self) -> str:
        return f"RNN({self.cell_object!r}{self._input_repr()})"
