"""Keras 3's recurrent layers ``SimpleRNN``, ``LSTM``, ``GRU`` (``keras.layers``), on the module tree.

Each learns its input as a Keras layer does (``input_dim=``, ``input_shape=``, ``batch_input_shape=``);
then ``.count`` is its ``count_params()``:

>>> LSTM(128, input_dim=28).count, LSTM(128, input_shape=(10, 28)).count
(80384, 80384)
>>> [w.path for w in LSTM(4, input_dim=3).tensors()]
['lstm/lstm_cell/kernel', 'lstm/lstm_cell/recurrent_kernel', 'lstm/lstm_cell/bias']
>>> GRU(5, input_dim=4).count, GRU(5, reset_after=False, input_dim=4).count
(165, 150)
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from functools import partial
from typing import Any

from ...cells import Cell, make_cell
from ...engine import validate
from ...engine.operations import matmul_flops
from ...engine.symbols import Size, plain
from ...tree import Letter, Module, State
from .base import RNN_KWARGS, cell_module, layer_name, unexpected_keywords
from .conventions import KERAS
from .recurrent_base import Recurrent

__all__ = ["RecurrentLayer", "SimpleRNN", "LSTM", "GRU"]


class RecurrentLayer(Recurrent):
    """Shared by the recurrent layers: one cell, laid out in :data:`KERAS`."""

    mode = ""
    cell_name = ""
    cell_type = ""  # the cell's class in Keras
    default_name = ""
    spatial_rank = 0  # n for ConvLSTM{n}D
    states = 1  # the states return_state gives
    lettered = False  # the closed form names units H

    def _setup(
        self,
        units_name: str,
        units: Size,
        use_bias: bool,
        return_sequences: bool,
        return_state: bool,
        go_backwards: bool,
        stateful: bool,
        kwargs: dict[str, Any],
        allowed: frozenset[str] = RNN_KWARGS,
    ) -> None:
        unexpected_keywords(type(self), kwargs, allowed)
        self.units = validate.size(units_name, units)
        self.use_bias = validate.flag("use_bias", use_bias)
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.name = layer_name(kwargs.get("name"), self.default_name)
        self._take_input(kwargs)

    @property
    def input_rank(self) -> int:
        """ndim of the input Keras expects: (batch, time, features), or (batch, time, *spatial, channels)."""
        return 3 + self.spatial_rank

    @property
    def output_rank(self) -> int:
        """ndim of the output: the input's, less the time axis unless ``return_sequences``."""
        return self.input_rank if self.return_sequences else self.input_rank - 1

    def cell(self, input_dim: Size, *, numeric: bool = False) -> Cell:
        """The layer's cell: its update equations, with Keras' bias policy.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).
        numeric : bool, default False
            The shape-only mode (every size an int: the same parameters, int shapes, no SymPy;
            :func:`derive.engine.registry.make_cell`).

        Returns
        -------
        Cell
        """
        return self._cell(input_dim, numeric)

    @abstractmethod
    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        """The layer's cell for inputs ``input_dim`` wide."""

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """The layer's weights (``kernel``, ``recurrent_kernel``, ``bias``) under ``<name>/<cell>/``
        (:meth:`module`, which checks ``input_dim`` against the given input, calls it).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).
        prefix : str
            Prepended to the module's name (a parent's path and ``/``).

        Returns
        -------
        derive.tree.Module
            The layer (one row of a model's table) holding its cell's module; no ``bias`` when
            ``use_bias=False``.

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        input_dim = validate.size("input_dim", input_dim)
        numeric = type(input_dim) is int and type(self.units) is int  # counted with ints: no SymPy
        cell = cell_module(self.cell_name, self.cell_type, self.cell(input_dim, numeric=numeric))
        if self.spatial_rank:  # a ConvLSTM's states and FLOPs depend on the input's spatial size: not derived
            return Module(prefix + self.name, type(self).__name__, children=(cell,), sep="/", row=True)
        return Module(
            prefix + self.name, type(self).__name__, children=(cell,), sep="/", row=True,
            cache=tuple(State(n, ("batch", w)) for n, w in zip(("h", "c"), self.state_widths())),
            step_flops=partial(_token_flops, self, input_dim),
        )  # fmt: skip

    def state_widths(self) -> list[Size]:
        """``units`` once per state (two for an LSTM: h and c): what ``return_state=True`` returns
        after the output, and what a step-by-step run carries from one token to the next (the layer's
        inference cache, :attr:`derive.tree.Module.cache`).

        Returns
        -------
        list of int or sympy.Expr
        """
        return [self.units] * self.states

    def letters(self) -> tuple[Recurrent, int] | None:
        """The layer with ``units`` as ``H`` where the closed form names it (SimpleRNN, LSTM, GRU).

        Returns
        -------
        (Recurrent, int) or None
        """
        if not self.lettered or type(self.units) is not int:
            return None
        lettered = copy.copy(self)
        lettered.units = Letter("H")
        return lettered, self.units

    def with_symbols(self) -> Recurrent:
        """The layer with a lettered ``units`` (:meth:`letters`) as the symbol H."""
        if not isinstance(self.units, Letter):
            return self
        made = copy.copy(self)
        made.units = self.units.symbol()
        return made

    def output_dim(self, input_dim: Size | None = None) -> Size:
        """Last dimension of the output: ``units`` (``filters``), whatever ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the input (unused: the output width is the layer's own).

        Returns
        -------
        int or sympy.Expr
        """
        return self.units

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.units}{'' if self.use_bias else ', use_bias=False'}{self._input_repr()})"


class SimpleRNN(RecurrentLayer):
    """``keras.layers.SimpleRNN``: ``h_t = activation(x_t kernel + h_{t-1} recurrent_kernel + bias)``.

    Weights (``keras/src/layers/rnn/simple_rnn.py``, ``SimpleRNNCell.build``): ``kernel`` (I, H),
    ``recurrent_kernel`` (H, H), ``bias`` (H,); H(I + H + 1) parameters. The equations are shown
    with tanh; ``activation`` does not change the weights.

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    activation, kernel_initializer, ..., seed
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``autocast``,
        ``zero_output_for_mask``); ``name`` names the weights' paths. The input, as Keras layers
        take it: ``input_dim`` (the features per time step, as Keras 2 reads it), ``input_shape``
        (steps, features) or ``batch_input_shape`` (batch, steps, features) (:func:`.base.given_input`);
        with it, ``.count`` is the layer's count. ``batch_size`` and ``input_length`` (Keras 2) are
        accepted and ignored.

    Raises
    ------
    TypeError
        ``units`` not an integer (a bool included), ``use_bias`` not a bool, an unknown keyword.
    ValueError
        ``units`` <= 0; ``name`` containing ``/``; input keywords that disagree, an input shape of
        the wrong rank.

    Examples
    --------
    >>> SimpleRNN(7, input_dim=3).count   # 7 * (3 + 7 + 1)
    77
    """

    mode, cell_name, cell_type, default_name = "RNN_TANH", "simple_rnn_cell", "SimpleRNNCell", "simple_rnn"
    lettered = True

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
        activity_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        seed: object = None,
        **kwargs: Any,
    ) -> None:
        self._setup("units", units, use_bias, return_sequences, return_state, go_backwards, stateful, kwargs)

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        return make_cell(self.mode, input_dim, self.units, KERAS.bias_policy(self.mode, self.use_bias), numeric=numeric)


class LSTM(RecurrentLayer):
    """``keras.layers.LSTM``.

    Weights (``keras/src/layers/rnn/lstm.py``, ``LSTMCell.build``): ``kernel`` (I, 4H),
    ``recurrent_kernel`` (H, 4H), ``bias`` (4H,), gate blocks i, f, c, o side by side;
    4H(I + H + 1) parameters — 4H fewer than ``torch.nn.LSTM``, which has two biases.
    ``unit_forget_bias`` only initialises the bias.

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    activation, recurrent_activation, kernel_initializer, ..., use_cudnn
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`) and ``implementation``.

    Raises
    ------
    TypeError, ValueError
        As :class:`SimpleRNN`.
    """

    mode, cell_name, cell_type, default_name = "LSTM", "lstm_cell", "LSTMCell", "lstm"
    lettered, states = True, 2

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
        activity_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: object = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        use_cudnn: bool | str = "auto",
        **kwargs: Any,
    ) -> None:
        self._setup(
            "units",
            units,
            use_bias,
            return_sequences,
            return_state,
            go_backwards,
            stateful,
            kwargs,
            RNN_KWARGS | {"implementation"},
        )

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        return make_cell(self.mode, input_dim, self.units, KERAS.bias_policy(self.mode, self.use_bias), numeric=numeric)


class GRU(RecurrentLayer):
    """``keras.layers.GRU``.

    Weights (``keras/src/layers/rnn/gru.py``, ``GRUCell.build``): ``kernel`` (I, 3H),
    ``recurrent_kernel`` (H, 3H), gate blocks z, r, h side by side; ``bias`` (2, 3H) — input and
    recurrent bias — with ``reset_after=True`` (the default, cuDNN's form:
    3H(I + H + 2) parameters), (3H,) with ``reset_after=False`` (Cho et al. 2014: 3H(I + H + 1)).

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    use_bias : bool, default True
    reset_after : bool, default True
        Whether the reset gate multiplies the recurrent product (True) or the state before it.
    activation, recurrent_activation, kernel_initializer, ..., use_cudnn
        Keras' arguments, accepted and ignored.
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`) and ``implementation``.

    Raises
    ------
    TypeError
        As :class:`SimpleRNN`; ``reset_after`` not a bool.
    ValueError
        As :class:`SimpleRNN`.
    """

    mode, cell_name, cell_type, default_name = "GRU", "gru_cell", "GRUCell", "gru"
    lettered = True

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
        activity_regularizer: object = None,
        kernel_constraint: object = None,
        recurrent_constraint: object = None,
        bias_constraint: object = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: object = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        reset_after: bool = True,
        use_cudnn: bool | str = "auto",
        **kwargs: Any,
    ) -> None:
        self._setup(
            "units",
            units,
            use_bias,
            return_sequences,
            return_state,
            go_backwards,
            stateful,
            kwargs,
            RNN_KWARGS | {"implementation"},
        )
        self.reset_after = validate.flag("reset_after", reset_after)

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        bias = KERAS.bias_policy(self.mode, self.use_bias, self.reset_after)
        return make_cell(self.mode, input_dim, self.units, bias, reset_after=self.reset_after, numeric=numeric)

    def __repr__(self) -> str:
        reset = "" if self.reset_after else ", reset_after=False"
        return f"{type(self).__name__}({self.units}{'' if self.use_bias else ', use_bias=False'}{reset}{self._input_repr()})"


def _token_flops(layer: RecurrentLayer, input_dim: Size) -> Size:
    """Matmul FLOPs of one token of one sequence through ``layer``: its cell's step, counted from the
    cell's equations (:func:`derive.engine.operations.matmul_flops`)."""
    return plain(matmul_flops(layer.cell(input_dim)))
