"""Keras 3's cells ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``: one time step, the layer's weights.

Each is used in :class:`derive.keras.RNN` (or a :class:`derive.keras.StackedRNNCells`); its
weights are its layer's, under the cell's own name.

>>> [w.path for w in LSTMCell(5, input_dim=4).tensors()]
['lstm_cell/kernel', 'lstm_cell/recurrent_kernel', 'lstm_cell/bias']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..._sympy import sympy
from ...cells import Cell, make_cell
from ...engine import validate
from ...engine.symbols import Size, plain
from ...tree import Module, count
from .base import (
    CELL_KWARGS,
    InputCounted,
    Weight,
    cell_module,
    given_input,
    layer_name,
    unexpected_keywords,
    weights,
)
from .conventions import KERAS

__all__ = ["CellBase", "KerasCell", "SimpleRNNCell", "LSTMCell", "GRUCell"]


class CellBase(InputCounted, ABC):
    """What :class:`RNN` needs of a cell: its weights and its output width.

    :attr:`count` (:class:`.base.InputCounted`) is the cell's count once it was given its input
    (``input_dim=``, ``input_shape=(features,)``, ``batch_input_shape=(batch, features)``).
    """

    name: str
    auto_name: bool
    default_name = ""
    INPUT_HINT = "input_dim=<features per time step>"

    @abstractmethod
    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """The cell's weights on ``input_dim`` features (checked by :meth:`module`, not here)."""

    def module(self, input_dim: Size | None = None, prefix: str = "") -> Module:
        """The cell's weights as a module named ``<prefix><name>``, for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Features per time step; default the input the cell was given.
        prefix : str
            Prepended to the module's name.

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer, other than the input the cell was given, or
            missing when it was given none.
        """
        return self._module(self.input_of(input_dim), prefix)

    @abstractmethod
    def state_widths(self) -> list[Size]:
        """The widths of the cell's states (``cell.state_size``)."""

    def tensors(self, input_dim: Size | None = None, prefix: str = "") -> list[Weight]:
        """The cell's weights, paths under ``<prefix><name>/``, for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Features per time step; default the input the cell was given.
        prefix : str
            Prepended to every path (the ``RNN``'s name and ``/``).

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            As :meth:`module`.
        """
        return weights(self.module(input_dim), prefix)

    @abstractmethod
    def output_dim(self, input_dim: Size | None = None) -> Size:
        """Features the cell outputs per time step (``cell.output_size``).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Features per time step read by the cell (the output's width does not depend on it).

        Returns
        -------
        int or sympy.Expr
        """

    def _count_on(self, input_dim: Size | None) -> int | sympy.Expr:
        """The cell's count on ``input_dim`` features (None: the given input): an ``int`` when every
        size is an int, else a closed form."""
        return plain(count(self.module(input_dim)))


class KerasCell(CellBase):
    """``keras.layers.SimpleRNNCell``, ``LSTMCell``, ``GRUCell``: one time step, the layer's weights."""

    mode = ""
    reset_after = True
    states = 1

    def _setup(self, units: Size, use_bias: bool, kwargs: dict[str, Any], allowed: frozenset[str]) -> None:
        unexpected_keywords(type(self), kwargs, allowed)
        self.units = validate.size("units", units)
        self.use_bias = validate.flag("use_bias", use_bias)
        self.auto_name = kwargs.get("name") is None
        self.name = layer_name(kwargs.get("name"), self.default_name)
        self.input_given = given_input(type(self).__name__, kwargs)

    def cell(self, input_dim: Size, *, numeric: bool = False) -> Cell:
        """The cell's update equations, with Keras' bias policy, for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        numeric : bool, default False
            The shape-only mode (every size an int: int shapes, no SymPy).

        Returns
        -------
        Cell
        """
        bias = KERAS.bias_policy(self.mode, self.use_bias, self.reset_after)
        extra = {"reset_after": self.reset_after} if self.mode == "GRU" else {}
        return make_cell(self.mode, validate.size("input_dim", input_dim), self.units, bias, numeric=numeric, **extra)

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """``kernel``, ``recurrent_kernel``, ``bias``, as the layer's, in a module named ``<prefix><name>``
        (:meth:`module`, which checks ``input_dim`` against the given input, calls it).

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
        input_dim = validate.size("input_dim", input_dim)
        numeric = type(input_dim) is int and type(self.units) is int  # counted with ints: no SymPy
        return cell_module(prefix + self.name, type(self).__name__, self.cell(input_dim, numeric=numeric))

    def state_widths(self) -> list[Size]:
        """``units`` once per state (two for an LSTM cell: h and c).

        Returns
        -------
        list of int or sympy.Expr
        """
        return [self.units] * self.states

    def output_dim(self, input_dim: Size | None = None) -> Size:
        """``units``, whatever ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional

        Returns
        -------
        int or sympy.Expr
        """
        return self.units

    def __repr__(self) -> str:
        extra = ("" if self.use_bias else ", use_bias=False") + ("" if self.reset_after else ", reset_after=False")
        return f"{type(self).__name__}({self.units}{extra}{self._input_repr()})"


class SimpleRNNCell(KerasCell):
    """``keras.layers.SimpleRNNCell``: :class:`SimpleRNN`'s weights, for :class:`RNN`.

    Weights (``keras/src/layers/rnn/simple_rnn.py``, ``SimpleRNNCell.build``): ``kernel`` (I, H),
    ``recurrent_kernel`` (H, H), ``bias`` (H,), under the cell's name (``simple_rnn_cell``).

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    activation, kernel_initializer, ..., seed
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``autocast``, ...) and the input,
        as Keras layers take it (``input_dim``, ``input_shape=(features,)``,
        ``batch_input_shape=(batch, features)``): with it, ``.count`` is the cell's count.

    Raises
    ------
    TypeError
        ``units`` not an integer, ``use_bias`` not a bool, an unknown keyword.
    ValueError
        ``units`` <= 0; ``name`` containing ``/``.

    Examples
    --------
    >>> SimpleRNNCell(5, input_dim=4).count  # = RNN(SimpleRNNCell(5), input_dim=4).count
    50
    """

    mode, default_name = "RNN_TANH", "simple_rnn_cell"

    def __init__(
        self,
        units: Size,
        activation: object = "tanh",
        use_bias: bool = True,
        kernel_initializer: object = "glorot_uniform",
        recurrent_initializer: object = "orthogonal",
        bias_initializer: object = "zeros",
        kernel_regularizer: object = None,
        recurrent_regularizer: object = None,
        bias_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: object = None,
        **kwargs: Any,
    ) -> None:
        self._setup(units, use_bias, kwargs, CELL_KWARGS)


class LSTMCell(KerasCell):
    """``keras.layers.LSTMCell``: :class:`LSTM`'s weights, for :class:`RNN`.

    Weights (``keras/src/layers/rnn/lstm.py``, ``LSTMCell.build``): ``kernel`` (I, 4H),
    ``recurrent_kernel`` (H, 4H), ``bias`` (4H,), gates i, f, c, o, under the cell's name
    (``lstm_cell``).

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    activation, recurrent_activation, kernel_initializer, ..., seed
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNNCell`) and ``implementation``.

    Raises
    ------
    TypeError, ValueError
        As :class:`SimpleRNNCell`.

    Examples
    --------
    >>> LSTMCell(5, input_dim=4).count  # = RNN(LSTMCell(5), input_dim=4).count = LSTM(5, input_dim=4).count
    200
    """

    mode, default_name, states = "LSTM", "lstm_cell", 2

    def __init__(
        self,
        units: Size,
        activation: object = "tanh",
        recurrent_activation: object = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: object = "glorot_uniform",
        recurrent_initializer: object = "orthogonal",
        bias_initializer: object = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: object = None,
        recurrent_regularizer: object = None,
        bias_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: object = None,
        **kwargs: Any,
    ) -> None:
        self._setup(units, use_bias, kwargs, CELL_KWARGS | {"implementation"})


class GRUCell(KerasCell):
    """``keras.layers.GRUCell``: :class:`GRU`'s weights, for :class:`RNN`.

    Weights (``keras/src/layers/rnn/gru.py``, ``GRUCell.build``): ``kernel`` (I, 3H),
    ``recurrent_kernel`` (H, 3H), gates z, r, h; ``bias`` (2, 3H) with ``reset_after=True`` (the
    default), (3H,) with ``reset_after=False``; under the cell's name (``gru_cell``).

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    reset_after : bool, default True
    activation, recurrent_activation, kernel_initializer, ..., seed
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNNCell`) and ``implementation``.

    Raises
    ------
    TypeError
        As :class:`SimpleRNNCell`; ``reset_after`` not a bool.
    ValueError
        As :class:`SimpleRNNCell`.

    Examples
    --------
    >>> GRUCell(5, input_dim=4).count, GRUCell(5, reset_after=False, input_dim=4).count
    (165, 150)
    """

    mode, default_name = "GRU", "gru_cell"

    def __init__(
        self,
        units: Size,
        activation: object = "tanh",
        recurrent_activation: object = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: object = "glorot_uniform",
        recurrent_initializer: object = "orthogonal",
        bias_initializer: object = "zeros",
        kernel_regularizer: object = None,
        recurrent_regularizer: object = None,
        bias_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        reset_after: bool = True,
        seed: object = None,
        **kwargs: Any,
    ) -> None:
        self._setup(units, use_bias, kwargs, CELL_KWARGS | {"implementation"})
        self.reset_after = validate.flag("reset_after", reset_after)
