"""``derive.keras``: Keras 3's recurrent layers (``keras.layers``), counted without building a model.

The classes take the arguments of their ``keras.layers`` namesakes, in the same order and with
the same defaults, so a constructor call can be pasted: ``Bidirectional(LSTM(128))``. A Keras
layer does not know its input width until it is built, and neither do these: every method that
needs it takes ``input_dim``, the last dimension of the layer's input (features per time step for
``SimpleRNN``/``LSTM``/``GRU``, channels for ``ConvLSTM1D/2D/3D``).

``units``, ``filters``, the entries of ``kernel_size`` and ``input_dim`` may be ints or SymPy
expressions (see :mod:`derive.symbols`). Arguments that do not change the weights
(``activation``, initialisers, regularisers, constraints, ``dropout``, ``return_sequences``,
``go_backwards``, ``stateful``, ``unroll``, ``strides``, ``padding``, ``name``, ``dtype``, ...)
are accepted under their Keras names and otherwise ignored, except that ``return_sequences``,
``return_state``, ``go_backwards`` and ``stateful`` are checked where Keras checks them
(:class:`Bidirectional`, layers feeding each other). An unknown keyword raises ``TypeError``.

>>> count(Bidirectional(LSTM(128)), 28)
160768
>>> count(LSTM(256), 28)
291840
>>> from derive import H, I
>>> LSTM(H).count(I)
4*H**2 + 4*H*I + 4*H

Convention (:data:`KERAS`), checked against ``keras/src/layers/rnn/simple_rnn.py``, ``lstm.py``,
``gru.py``, ``conv_lstm.py`` and ``bidirectional.py`` (Keras 3.15): ``kernel`` (I, G·H) is the
input weights transposed, gate blocks side by side; ``recurrent_kernel`` (H, G·H); one merged
``bias`` (G·H,), except the GRU with ``reset_after=True`` (the default), whose ``bias`` is
(2, 3H): input bias and recurrent bias stacked. Gate order: LSTM i, f, c, o (PyTorch's
i, f, g, o); GRU z, r, h (PyTorch: r, z, n).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import sympy

from ..cells import Cell, Parameter, conv_lstm, make_cell
from ..engine import validate
from ..engine.conventions import Convention, TensorLayout
from ..engine.symbols import Size, as_expr, plain
from ..engine.wirings import merged_width

__all__ = [
    "KERAS",
    "Weight",
    "SimpleRNN",
    "LSTM",
    "GRU",
    "SimpleRNNCell",
    "LSTMCell",
    "GRUCell",
    "StackedRNNCells",
    "RNN",
    "CuDNNLSTM",
    "CuDNNGRU",
    "KERAS_VERSIONS",
    "DEFAULT_CHANGES",
    "DefaultChange",
    "version_defaults",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "Bidirectional",
    "Sequential",
    "count",
    "tensors",
    "MERGE_MODES",
]

#: Keras 3 (``build`` of ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` in
#: ``keras/src/layers/rnn/simple_rnn.py``, ``lstm.py``, ``gru.py``; ``ConvLSTMCell`` in
#: ``conv_lstm.py``): ``kernel`` = the input weights transposed (I, G·H), ``recurrent_kernel``
#: (H, G·H), one bias merged on the input side (G·H,) — except the GRU with ``reset_after=True``,
#: whose ``bias`` (2, 3H) holds the input bias and the recurrent bias (``b_hn`` is multiplied by
#: the reset gate, so it cannot be merged; Keras keeps all three recurrent biases for cuDNN
#: compatibility). GRU gates are stacked z, r, h. ConvLSTM kernels are (*kernel_size, C, 4F)
#: and (*kernel_size, F, 4F).
KERAS = Convention(
    name="Keras",
    tensors=(
        TensorLayout("kernel", "weight", ("ih",), transpose=True),
        TensorLayout("recurrent_kernel", "weight", ("hh",), transpose=True),
        TensorLayout("bias", "bias", ("ih", "hh")),
    ),
    layer_name=lambda base, layer, direction: base,
    source="keras/src/layers/rnn/simple_rnn.py, lstm.py, gru.py, conv_lstm.py (the cells' build methods)",
    biases={"RNN_TANH": "input", "LSTM": "input", "CONVLSTM": "input", "GRU": "two", ("GRU", False): "input"},
    gate_order={"GRU": ("z", "r", "n")},
)

#: The values ``Bidirectional`` accepts for ``merge_mode`` (``keras/src/layers/rnn/bidirectional.py``).
MERGE_MODES = ("sum", "mul", "ave", "concat", None)

# Keyword arguments Keras passes on to ``RNN.__init__`` and ``Layer.__init__`` (keras/src/layers/layer.py).
_LAYER_KWARGS = frozenset({"name", "dtype", "trainable", "autocast", "input_dim", "input_shape"})
_RNN_KWARGS = _LAYER_KWARGS | {"zero_output_for_mask"}


@dataclass(frozen=True)
class Weight:
    """One Keras weight (``keras.Variable``) of a layer.

    Attributes
    ----------
    path : str
        ``Variable.path`` as Keras 3 gives it for a layer built on its own or in a functional
        model, e.g. ``"bidirectional/forward_lstm/lstm_cell/kernel"`` (a ``Sequential`` prefixes
        its own name).
    shape : tuple of int or sympy.Expr
    parameters : tuple of Parameter
        The cell parameters it holds, in Keras' order.
    """

    path: str
    shape: tuple[Size, ...]
    parameters: tuple[Parameter, ...]

    @property
    def name(self) -> str:
        """``Variable.name``: the last part of the path (``"kernel"``, ``"recurrent_kernel"``, ``"bias"``)."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def numel(self) -> sympy.Expr:
        """Number of scalar parameters."""
        return sympy.Mul(*self.shape)


def _check_kwargs(cls: type, kwargs: dict[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
    return kwargs


def _name(name: object, default: str) -> str:
    if name is None:
        return default
    if not isinstance(name, str) or "/" in name:
        raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. Received: name={name!r}")
    return name


class _Layer(ABC):
    """What :func:`tensors` needs of a layer: its weights, its output width and its input/output ranks."""

    name: str
    return_state: bool

    @property
    @abstractmethod
    def input_rank(self) -> int:
        """ndim of the input Keras expects."""

    @property
    @abstractmethod
    def output_rank(self) -> int:
        """ndim of the output."""

    @abstractmethod
    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """Every weight, with its Keras path and shape, for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).
        prefix : str
            Prepended to every path (a wrapper's or a model's name and ``/``).

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """

    def count(self, input_dim: Size) -> sympy.Expr:
        """Number of parameters (``layer.count_params()``).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input: features per time step (channels for ConvLSTM).

        Returns
        -------
        sympy.Expr
            A ``sympy.Integer`` when every size is an int, else a closed form.
        """
        return sympy.expand(sympy.Add(*(w.numel for w in self.tensors(input_dim))))

    @abstractmethod
    def output_dim(self, input_dim: Size) -> Size | list[Size]:
        """Last dimension of the output: what the next layer reads.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input.
        """


class _RNN(_Layer):
    """Shared by the recurrent layers: one cell, laid out in :data:`KERAS`."""

    mode = ""
    cell_name = ""
    default_name = ""
    spatial_rank = 0  # n for ConvLSTM{n}D

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
        allowed: frozenset[str] = _RNN_KWARGS,
    ) -> None:
        _check_kwargs(type(self), kwargs, allowed)
        self.units = validate.size(units_name, units)
        self.use_bias = validate.flag("use_bias", use_bias)
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.name = _name(kwargs.get("name"), self.default_name)

    @property
    def input_rank(self) -> int:
        """ndim of the input Keras expects: (batch, time, features), or (batch, time, *spatial, channels)."""
        return 3 + self.spatial_rank

    @property
    def output_rank(self) -> int:
        """ndim of the output: the input's, less the time axis unless ``return_sequences``."""
        return self.input_rank if self.return_sequences else self.input_rank - 1

    def cell(self, input_dim: Size) -> Cell:
        """The layer's cell: its update equations, with Keras' bias policy.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).

        Returns
        -------
        Cell
        """
        return self._cell(input_dim)

    @abstractmethod
    def _cell(self, input_dim: Size) -> Cell:
        """The layer's cell for inputs ``input_dim`` wide."""

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """The layer's weights (``kernel``, ``recurrent_kernel``, ``bias``) with Keras' paths and shapes.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).
        prefix : str
            Prepended to every path (a wrapper's or a model's name and ``/``).

        Returns
        -------
        list of Weight
            In the order of ``layer.weights``; no ``bias`` when ``use_bias=False``.

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        cell = self.cell(validate.size("input_dim", input_dim))
        return [
            Weight(f"{prefix}{self.name}/{self.cell_name}/{t.name}", tuple(plain(d) for d in t.shape), t.parameters)
            for t in KERAS.layout(cell)
        ]

    def output_dim(self, input_dim: Size) -> Size:
        """Last dimension of the output: ``units`` (``filters``), whatever ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input (unused: the output width is the layer's own).

        Returns
        -------
        int or sympy.Expr
        """
        return self.units

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.units}{'' if self.use_bias else ', use_bias=False'})"


class SimpleRNN(_RNN):
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
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``autocast``, ``input_dim``,
        ``input_shape``, ``zero_output_for_mask``); ``name`` names the weights' paths.

    Raises
    ------
    TypeError
        ``units`` not an integer (a bool included), ``use_bias`` not a bool, an unknown keyword.
    ValueError
        ``units`` <= 0; ``name`` containing ``/``.
    """

    mode, cell_name, default_name = "RNN_TANH", "simple_rnn_cell", "simple_rnn"

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

    def _cell(self, input_dim: Size) -> Cell:
        return make_cell(self.mode, input_dim, self.units, KERAS.bias_policy(self.mode, self.use_bias))


class LSTM(_RNN):
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

    mode, cell_name, default_name = "LSTM", "lstm_cell", "lstm"

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
            _RNN_KWARGS | {"implementation"},
        )

    def _cell(self, input_dim: Size) -> Cell:
        return make_cell(self.mode, input_dim, self.units, KERAS.bias_policy(self.mode, self.use_bias))


class GRU(_RNN):
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

    mode, cell_name, default_name = "GRU", "gru_cell", "gru"

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
            _RNN_KWARGS | {"implementation"},
        )
        self.reset_after = validate.flag("reset_after", reset_after)

    def _cell(self, input_dim: Size) -> Cell:
        bias = KERAS.bias_policy(self.mode, self.use_bias, self.reset_after)
        return make_cell(self.mode, input_dim, self.units, bias, reset_after=self.reset_after)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + ("" if self.reset_after else ", reset_after=False") + ")"


# --------------------------------------------------------------------------- cells and RNN

# Keyword arguments a cell passes on to ``Layer.__init__`` (keras/src/layers/layer.py).
_CELL_KWARGS = _LAYER_KWARGS | {"activity_regularizer"}


class _CellBase(ABC):
    """What :class:`RNN` needs of a cell: its weights and its output width."""

    name: str
    auto_name: bool
    default_name = ""

    @abstractmethod
    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """The cell's weights, paths under ``<prefix><name>/``, for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        prefix : str
            Prepended to every path (the ``RNN``'s name and ``/``).

        Returns
        -------
        list of Weight
        """

    @abstractmethod
    def output_dim(self, input_dim: Size) -> Size:
        """Features the cell outputs per time step (``cell.output_size``).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step read by the cell.

        Returns
        -------
        int or sympy.Expr
        """

    def count(self, input_dim: Size) -> sympy.Expr:
        """Number of parameters of the cell for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        sympy.Expr
        """
        return sympy.expand(sympy.Add(*(w.numel for w in self.tensors(input_dim))))


class _Cell(_CellBase):
    """``keras.layers.SimpleRNNCell``, ``LSTMCell``, ``GRUCell``: one time step, the layer's weights."""

    mode = ""
    reset_after = True

    def _setup(self, units: Size, use_bias: bool, kwargs: dict[str, Any], allowed: frozenset[str]) -> None:
        _check_kwargs(type(self), kwargs, allowed)
        self.units = validate.size("units", units)
        self.use_bias = validate.flag("use_bias", use_bias)
        self.auto_name = kwargs.get("name") is None
        self.name = _name(kwargs.get("name"), self.default_name)

    def cell(self, input_dim: Size) -> Cell:
        """The cell's update equations, with Keras' bias policy, for inputs ``input_dim`` wide.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.

        Returns
        -------
        Cell
        """
        bias = KERAS.bias_policy(self.mode, self.use_bias, self.reset_after)
        extra = {"reset_after": self.reset_after} if self.mode == "GRU" else {}
        return make_cell(self.mode, validate.size("input_dim", input_dim), self.units, bias, **extra)

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """``kernel``, ``recurrent_kernel``, ``bias`` under ``<prefix><name>/``, as the layer's.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        return [
            Weight(f"{prefix}{self.name}/{t.name}", tuple(plain(d) for d in t.shape), t.parameters)
            for t in KERAS.layout(self.cell(input_dim))
        ]

    def output_dim(self, input_dim: Size) -> Size:
        """``units``, whatever ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
        """
        return self.units

    def __repr__(self) -> str:
        extra = ("" if self.use_bias else ", use_bias=False") + ("" if self.reset_after else ", reset_after=False")
        return f"{type(self).__name__}({self.units}{extra})"


class SimpleRNNCell(_Cell):
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
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``autocast``, ...).

    Raises
    ------
    TypeError
        ``units`` not an integer, ``use_bias`` not a bool, an unknown keyword.
    ValueError
        ``units`` <= 0; ``name`` containing ``/``.

    Examples
    --------
    >>> count(RNN(SimpleRNNCell(5)), 4)
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
        self._setup(units, use_bias, kwargs, _CELL_KWARGS)


class LSTMCell(_Cell):
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
    >>> count(RNN(LSTMCell(5)), 4) == count(LSTM(5), 4) == 200
    True
    """

    mode, default_name = "LSTM", "lstm_cell"

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
        self._setup(units, use_bias, kwargs, _CELL_KWARGS | {"implementation"})


class GRUCell(_Cell):
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
    >>> count(RNN(GRUCell(5)), 4), count(RNN(GRUCell(5, reset_after=False)), 4)
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
        self._setup(units, use_bias, kwargs, _CELL_KWARGS | {"implementation"})
        self.reset_after = validate.flag("reset_after", reset_after)


def _check_cell(cell: object, message: str) -> _CellBase:
    if not isinstance(cell, _CellBase):
        raise ValueError(
            f"{message}: {cell!r} (a cell of derive.keras: SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells)"
        )
    return cell


class StackedRNNCells(_CellBase):
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
    >>> [w.path for w in tensors(RNN(StackedRNNCells([LSTMCell(5), LSTMCell(6)])), 4)][::3]
    ['rnn/stacked_rnn_cells/lstm_cell/kernel', 'rnn/stacked_rnn_cells/lstm_cell_1/kernel']
    """

    default_name = "stacked_rnn_cells"

    def __init__(self, cells: Sequence[_CellBase], **kwargs: Any) -> None:
        _check_kwargs(type(self), kwargs, _CELL_KWARGS)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"cells must be a non-empty list of cells, got {cells!r}")
        seen: dict[str, int] = {}
        self.cells: list[_CellBase] = []
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
        self.name = _name(kwargs.get("name"), self.default_name)

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """Every cell's weights in order, cell k built for the output width of cell k - 1.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step read by the first cell.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight
        """
        out: list[Weight] = []
        width = validate.size("input_dim", input_dim)
        for cell in self.cells:
            out += cell.tensors(width, f"{prefix}{self.name}/")
            width = cell.output_dim(width)
        return out

    def output_dim(self, input_dim: Size) -> Size:
        """The last cell's output width (``StackedRNNCells.output_size``).

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
        """
        width = input_dim
        for cell in self.cells:
            width = cell.output_dim(width)
        return width

    def __repr__(self) -> str:
        return f"StackedRNNCells([{', '.join(repr(c) for c in self.cells)}])"


class RNN(_RNN):
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
        Keras' layer arguments (``name``, default ``"rnn"``, ``dtype``, ...).

    Raises
    ------
    ValueError
        ``cell`` not a cell (Keras: "Argument `cell` should have a `call` method"), an empty list.
    TypeError
        An unknown keyword.

    Examples
    --------
    >>> count(RNN([LSTMCell(5), GRUCell(6), LSTMCell(2)]), 4)
    506
    >>> count(Bidirectional(RNN(LSTMCell(128))), 28) == count(Bidirectional(LSTM(128)), 28)
    True
    """

    mode, default_name = "RNN", "rnn"

    def __init__(
        self,
        cell: _CellBase | Sequence[_CellBase],
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        _check_kwargs(type(self), kwargs, _CELL_KWARGS)
        stacked = StackedRNNCells(cell) if isinstance(cell, (list, tuple)) else cell
        self.cell_object = _check_cell(stacked, "Argument `cell` should have a `call` method. Received: cell")
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.name = _name(kwargs.get("name"), self.default_name)
        last = self.cell_object
        while isinstance(last, StackedRNNCells):
            last = last.cells[-1]
        assert isinstance(last, _Cell)
        self.units = last.units  # the stack's output width
        self.use_bias = True

    def _cell(self, input_dim: Size) -> Cell:
        if not isinstance(self.cell_object, _Cell):
            raise ValueError("RNN over StackedRNNCells has one cell per level: see .cell_object.cells")
        return self.cell_object.cell(input_dim)

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """The cell's weights under ``<prefix><name>/`` (see :class:`StackedRNNCells` for a stack).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        return self.cell_object.tensors(validate.size("input_dim", input_dim), f"{prefix}{self.name}/")

    def output_dim(self, input_dim: Size) -> Size:
        """The cell's output width (the last cell's ``units`` for a stack).

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
        """
        return self.cell_object.output_dim(input_dim)

    def __repr__(self) -> str:
        return f"RNN({self.cell_object!r})"


class _ConvLSTM(_RNN):
    """Shared by :class:`ConvLSTM1D`, :class:`ConvLSTM2D` and :class:`ConvLSTM3D`."""

    mode, cell_name = "CONVLSTM", "conv_lstm_cell"

    def __init__(
        self,
        filters: Size,
        kernel_size: Size | tuple[Size, ...],
        strides: object = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: object = 1,
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
        **kwargs: Any,
    ) -> None:
        self._setup(
            "filters",
            filters,
            use_bias,
            return_sequences,
            return_state,
            go_backwards,
            stateful,
            kwargs,
            _RNN_KWARGS | {"unroll"},
        )
        n = self.spatial_rank
        if isinstance(kernel_size, (list, tuple)):
            if len(kernel_size) != n:
                raise ValueError(
                    f"The `kernel_size` argument must be a tuple of {n} integers. "
                    f"Received kernel_size={tuple(kernel_size)!r}"
                )
            kernel_size = tuple(validate.size("kernel_size", k) for k in kernel_size)
        else:
            kernel_size = (validate.size("kernel_size", kernel_size),) * n
        self.kernel_size = kernel_size
        self.filters = self.units
        self.padding = validate.choice(
            "padding", padding.lower() if isinstance(padding, str) else padding, ("valid", "same")
        )
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of 'channels_first', 'channels_last', "
                f"or None. Received: data_format={data_format!r}"
            )
        self.data_format = data_format or "channels_last"

    def _cell(self, input_dim: Size) -> Cell:
        return conv_lstm(input_dim, self.units, self.kernel_size, KERAS.bias_policy(self.mode, self.use_bias))

    def __repr__(self) -> str:
        kernel = self.kernel_size if len(set(self.kernel_size)) > 1 else self.kernel_size[0]
        return f"{type(self).__name__}({self.units}, {kernel}{'' if self.use_bias else ', use_bias=False'})"


class ConvLSTM1D(_ConvLSTM):
    """``keras.layers.ConvLSTM1D``: the ConvLSTM cell (:func:`derive.cells.conv_lstm`).

    Weights (``keras/src/layers/rnn/conv_lstm.py``, ``ConvLSTMCell.build``): ``kernel``
    (k, C, 4F), ``recurrent_kernel`` (k, F, 4F), ``bias`` (4F,):
    4F(K(C + F) + 1) parameters with K = k. Inputs are (batch, time, length, C) (channels last);
    ``input_dim`` is C, the channels.

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or sympy.Expr, or a tuple of 1 of them
        One int is used for every spatial axis, as Keras does.
    use_bias : bool, default True
    strides, padding, data_format, dilation_rate, activation, ..., stateful
        Keras' arguments, accepted and ignored (``padding`` must be ``"valid"`` or ``"same"``,
        ``data_format`` ``"channels_last"``, ``"channels_first"`` or None).
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`) and ``unroll``.

    Raises
    ------
    TypeError
        ``filters`` or an entry of ``kernel_size`` not an integer; see :class:`SimpleRNN`.
    ValueError
        ``filters`` or an entry of ``kernel_size`` <= 0; ``kernel_size`` a tuple of the wrong
        length; unknown ``padding`` or ``data_format``.
    """

    spatial_rank, default_name = 1, "conv_lstm1d"


class ConvLSTM2D(_ConvLSTM):
    """``keras.layers.ConvLSTM2D``: the ConvLSTM cell (:func:`derive.cells.conv_lstm`).

    Weights (``keras/src/layers/rnn/conv_lstm.py``, ``ConvLSTMCell.build``): ``kernel``
    (k_1, k_2, C, 4F), ``recurrent_kernel`` (k_1, k_2, F, 4F), ``bias`` (4F,):
    4F(K(C + F) + 1) parameters with K = k_1 k_2. Inputs are (batch, time, rows, cols, C) (channels last);
    ``input_dim`` is C, the channels.

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or sympy.Expr, or a tuple of 2 of them
        One int is used for every spatial axis, as Keras does.
    use_bias : bool, default True
    strides, padding, data_format, dilation_rate, activation, ..., stateful
        Keras' arguments, accepted and ignored (``padding`` must be ``"valid"`` or ``"same"``,
        ``data_format`` ``"channels_last"``, ``"channels_first"`` or None).
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`) and ``unroll``.

    Raises
    ------
    TypeError
        ``filters`` or an entry of ``kernel_size`` not an integer; see :class:`SimpleRNN`.
    ValueError
        ``filters`` or an entry of ``kernel_size`` <= 0; ``kernel_size`` a tuple of the wrong
        length; unknown ``padding`` or ``data_format``.
    """

    spatial_rank, default_name = 2, "conv_lstm2d"


class ConvLSTM3D(_ConvLSTM):
    """``keras.layers.ConvLSTM3D``: the ConvLSTM cell (:func:`derive.cells.conv_lstm`).

    Weights (``keras/src/layers/rnn/conv_lstm.py``, ``ConvLSTMCell.build``): ``kernel``
    (k_1, k_2, k_3, C, 4F), ``recurrent_kernel`` (k_1, k_2, k_3, F, 4F), ``bias`` (4F,):
    4F(K(C + F) + 1) parameters with K = k_1 k_2 k_3. Inputs are (batch, time, depth, rows, cols, C) (channels last);
    ``input_dim`` is C, the channels.

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or sympy.Expr, or a tuple of 3 of them
        One int is used for every spatial axis, as Keras does.
    use_bias : bool, default True
    strides, padding, data_format, dilation_rate, activation, ..., stateful
        Keras' arguments, accepted and ignored (``padding`` must be ``"valid"`` or ``"same"``,
        ``data_format`` ``"channels_last"``, ``"channels_first"`` or None).
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`) and ``unroll``.

    Raises
    ------
    TypeError
        ``filters`` or an entry of ``kernel_size`` not an integer; see :class:`SimpleRNN`.
    ValueError
        ``filters`` or an entry of ``kernel_size`` <= 0; ``kernel_size`` a tuple of the wrong
        length; unknown ``padding`` or ``data_format``.
    """

    spatial_rank, default_name = 3, "conv_lstm3d"


# --------------------------------------------------------------------------- Keras 2: CuDNN layers, version defaults


class _CuDNN(_RNN):
    """``CuDNNLSTM`` / ``CuDNNGRU`` (Keras 2): no cell, cuDNN's two biases in one ``bias``."""

    def __init__(
        self,
        units: Size,
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
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        **kwargs: Any,
    ) -> None:
        self._setup("units", units, True, return_sequences, return_state, go_backwards, stateful, kwargs)

    def _cell(self, input_dim: Size) -> Cell:
        return make_cell(self.mode, input_dim, self.units, "two", reset_after=True)

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """``kernel``, ``recurrent_kernel``, ``bias`` under ``<prefix><name>/`` (no cell scope).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        from .tf_keras import TF_KERAS_CUDNN

        layout = replace(TF_KERAS_CUDNN, layer_name=lambda base, layer, direction: base)
        cell = self.cell(validate.size("input_dim", input_dim))
        return [
            Weight(f"{prefix}{self.name}/{t.name}", tuple(plain(d) for d in t.shape), t.parameters)
            for t in layout.layout(cell)
        ]


class CuDNNLSTM(_CuDNN):
    """Keras 2's ``CuDNNLSTM`` (``keras.layers`` 2.0.9-2.3, TF 1 ``tf.keras.layers``, TF 2
    ``tf.compat.v1.keras.layers``); not in Keras 3, whose ``LSTM`` calls cuDNN itself.

    Weights (``tf_keras/src/layers/rnn/cudnn_lstm.py``, ``CuDNNLSTM.build``, tf-keras 2.21):
    ``kernel`` (I, 4H), ``recurrent_kernel`` (H, 4H), ``bias`` (8H,) — the input biases then the
    recurrent ones, cuDNN's two biases: 4H more than :class:`LSTM`. Paths are Keras 2's:
    ``cu_dnnlstm/kernel`` (no cell scope).

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias : object
        Keras' initialisers (``unit_forget_bias`` a bool), accepted and ignored: no shape depends on them.
    kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer : object
        Accepted and ignored.
    kernel_constraint, recurrent_constraint, bias_constraint : object
        Accepted and ignored.
    return_sequences, return_state, go_backwards, stateful : bool
    **kwargs
        Keras' layer arguments (``name``, ...).

    Raises
    ------
    TypeError
        ``units`` not an integer, an unknown keyword.
    ValueError
        ``units`` <= 0.

    Examples
    --------
    >>> count(CuDNNLSTM(5), 4) - count(LSTM(5), 4)
    20
    """

    mode, cell_name, default_name = "LSTM", "", "cu_dnnlstm"

    def __init__(
        self,
        units: Size,
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
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        **kwargs: Any,
    ) -> None:
        self._setup("units", units, True, return_sequences, return_state, go_backwards, stateful, kwargs)

    def __repr__(self) -> str:
        return f"CuDNNLSTM({self.units})"


class CuDNNGRU(_CuDNN):
    """Keras 2's ``CuDNNGRU`` (as :class:`CuDNNLSTM`): the GRU with the reset gate after the
    recurrent product and two biases.

    Weights (``tf_keras/src/layers/rnn/cudnn_gru.py``, ``CuDNNGRU.build``): ``kernel`` (I, 3H),
    ``recurrent_kernel`` (H, 3H), ``bias`` (6H,): the count of ``GRU(reset_after=True)``, one flat bias.

    Parameters
    ----------
    units : int or sympy.Expr
        H.
    kernel_initializer, recurrent_initializer, bias_initializer : object
        Keras' initialisers, accepted and ignored: no shape depends on them.
    kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer : object
        Accepted and ignored.
    kernel_constraint, recurrent_constraint, bias_constraint : object
        Accepted and ignored.
    return_sequences, return_state, go_backwards, stateful : bool
    **kwargs
        Keras' layer arguments (``name``, ...).

    Raises
    ------
    TypeError
        ``units`` not an integer, an unknown keyword.
    ValueError
        ``units`` <= 0.

    Examples
    --------
    >>> count(CuDNNGRU(5), 4) == count(GRU(5), 4) == 165
    True
    """

    mode, cell_name, default_name = "GRU", "", "cu_dnngru"

    def __repr__(self) -> str:
        return f"CuDNNGRU({self.units})"


@dataclass(frozen=True)
class DefaultChange:
    """A constructor default of a Keras layer that changed between versions, changing the weights.

    Attributes
    ----------
    layers : tuple of str
        The classes concerned (``("GRU", "GRUCell")``).
    argument : str
    before, after : object
        The default before and from :attr:`version`.
    version : str
        The first Keras version (``MAJOR.MINOR``) with :attr:`after`.
    source : str
        Where the two defaults are read.
    """

    layers: tuple[str, ...]
    argument: str
    before: object
    after: object
    version: str
    source: str

    def note(self, version: str) -> str:
        """What the defaults of Keras ``version`` give, and where it changed.

        Parameters
        ----------
        version : str
            One of :data:`KERAS_VERSIONS`.

        Returns
        -------
        str
        """
        value = self.before if _older(version, self.version) else self.after
        other = self.after if value == self.before else self.before
        return (
            f"{'/'.join(self.layers)} {self.argument}={value} (Keras {version}'s default; "
            f"{self.argument}={other} {'from' if value == self.before else 'before'} Keras {self.version}; "
            f"source: {self.source})"
        )


#: The Keras versions :func:`version_defaults` knows: standalone Keras 2.0-2.3 (multi-backend),
#: 2.4-2.15 (``keras`` as tf.keras), tf-keras 2.16-2.21, Keras 3.
KERAS_VERSIONS = tuple(f"2.{k}" for k in range(22)) + ("3",)

#: Defaults that change a layer's weights. GRU ``reset_after``: False in the standalone
#: multi-backend Keras 2.0-2.3 (``keras/layers/recurrent.py``, ``GRU.__init__`` and ``GRUCell``;
#: tensorflow/tensorflow#43960: ``keras.layers.GRU(5)`` on 4 features has 150 parameters there,
#: 165 in ``tf.keras``) and in TF 1.x's ``tf.keras``; True in TF 2.0's ``tf.keras``
#: (``tensorflow/python/keras/layers/recurrent_v2.py``, ``GRU``), which Keras 2.4.0 became, and in
#: Keras 3. ``tf.compat.v1.keras.layers.GRU`` keeps False (``tf_keras/src/layers/rnn/gru_v1.py``).
DEFAULT_CHANGES = (
    DefaultChange(
        ("GRU", "GRUCell"),
        "reset_after",
        False,
        True,
        "2.4",
        "keras/layers/recurrent.py (Keras 2.0-2.3: GRU(..., reset_after=False)); "
        "tensorflow/python/keras/layers/recurrent_v2.py (TF 2.0 tf.keras GRU: reset_after=True, "
        "which Keras 2.4.0 re-exports); tensorflow/tensorflow#43960",
    ),
)

#: Classes that exist only in Keras 2 (``CuDNNLSTM``, ``CuDNNGRU``).
KERAS2_ONLY = ("CuDNNLSTM", "CuDNNGRU")


def _older(version: str, than: str) -> bool:
    return tuple(int(p) for p in version.split(".")) < tuple(int(p) for p in than.split("."))


def version_defaults(version: str) -> tuple[dict[str, dict[str, object]], list[str]]:
    """The constructor defaults of Keras ``version`` that differ from Keras 3's, by class.

    Parameters
    ----------
    version : str
        ``"MAJOR.MINOR"`` (``"2.2"``) or ``"3"``: one of :data:`KERAS_VERSIONS`.

    Returns
    -------
    defaults : dict
        ``{class name: {argument: value}}``, to apply where the constructor leaves the argument out.
    notes : list of str
        One line per default of :data:`DEFAULT_CHANGES`: its value in ``version`` and the version
        that changed it.

    Raises
    ------
    ValueError
        ``version`` not in :data:`KERAS_VERSIONS`.

    Examples
    --------
    >>> version_defaults("2.2")[0]
    {'GRU': {'reset_after': False}, 'GRUCell': {'reset_after': False}}
    """
    if version not in KERAS_VERSIONS:
        raise ValueError(f"keras version must be one of {', '.join(KERAS_VERSIONS)}, got {version!r}")
    defaults: dict[str, dict[str, object]] = {}
    notes = []
    for change in DEFAULT_CHANGES:
        notes.append(change.note(version))
        if _older(version, change.version):
            for layer in change.layers:
                defaults.setdefault(layer, {})[change.argument] = change.before
    return defaults, notes


def _same(a: Size, b: Size) -> bool:
    return sympy.expand(as_expr(a) - as_expr(b)) == 0


class Bidirectional(_Layer):
    """``keras.layers.Bidirectional(layer, merge_mode="concat", weights=None, backward_layer=None)``.

    Holds two independent layers (``keras/src/layers/rnn/bidirectional.py``): ``forward_layer``,
    a copy of ``layer`` named ``"forward_" + layer.name``, and ``backward_layer``, either the
    given one or a copy of ``layer`` with ``go_backwards=True`` named ``"backward_" + layer.name``.
    Its weights are the forward layer's then the backward layer's, under
    ``"<name>/forward_<layer>/..."`` and ``"<name>/backward_<layer>/..."``. The merge mode adds no
    weights; it sets what the next layer reads:

    ========  ==============================================================
    concat    [forward; backward]: H_f + H_b features (2H when they match)
    sum, mul  element-wise: H (the two layers' units must be equal)
    ave       element-wise mean: H (units must be equal)
    None      a list of the two outputs: cannot feed another layer
    ========  ==============================================================

    Note: Keras 3.15's ``Bidirectional.compute_output_shape`` reports 2·H_f for ``concat``
    whatever the backward layer's units, so a model built on it sizes the next layer for 2·H_f
    and fails on data (keras-team/keras#23688); the tensor the layer produces is H_f + H_b wide,
    and that is what :func:`count` follows.

    Parameters
    ----------
    layer : SimpleRNN, LSTM, GRU, RNN or ConvLSTM{1,2,3}D
    merge_mode : {"concat", "sum", "mul", "ave", None}
    weights
        Initial values; accepted and ignored.
    backward_layer : same types as ``layer``, optional
        Must have the opposite ``go_backwards`` and the same ``return_sequences``,
        ``return_state`` and ``stateful`` as ``layer``; its ``units`` may differ (``concat``, None).
    **kwargs
        Keras' layer arguments (``name``, default ``"bidirectional"``, ``dtype``, ...).

    Raises
    ------
    ValueError
        ``layer`` or ``backward_layer`` not a recurrent layer of this module (Keras also raises
        ValueError); unknown ``merge_mode``; ``merge_mode`` sum/mul/ave with unequal units;
        the two layers' ``go_backwards`` equal, or ``return_sequences``/``return_state``/
        ``stateful`` different (as Keras); a ConvLSTM with ``data_format="channels_first"`` and
        ``merge_mode="concat"`` (Keras concatenates the last axis, a spatial one; not modelled).
    TypeError
        An unknown keyword.
    """

    def __init__(
        self,
        layer: _RNN,
        merge_mode: str | None = "concat",
        weights: object = None,
        backward_layer: _RNN | None = None,
        **kwargs: Any,
    ) -> None:
        _check_kwargs(type(self), kwargs, _LAYER_KWARGS | {"activity_regularizer"})
        if not isinstance(layer, _RNN):
            raise ValueError(
                f"layer must be a recurrent layer (SimpleRNN, LSTM, GRU, RNN, ConvLSTM1D/2D/3D), got {layer!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, _RNN):
            raise ValueError(f"backward_layer must be a recurrent layer or None, got {backward_layer!r}")
        if merge_mode not in MERGE_MODES:
            raise ValueError(
                f"Invalid merge_mode {merge_mode!r}. merge_mode should be one of 'sum', 'mul', 'ave', 'concat' or None"
            )
        self.name = _name(kwargs.get("name"), "bidirectional")
        self.merge_mode = merge_mode
        self.forward_layer = copy.copy(layer)
        self.forward_layer.name = "forward_" + layer.name.removeprefix("forward_")
        if backward_layer is None:
            self.backward_layer = copy.copy(layer)
            self.backward_layer.go_backwards = True
            self.backward_layer.name = "backward_" + layer.name.removeprefix("backward_")
        else:
            self.backward_layer = backward_layer
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value; "
                f"both have go_backwards={forward.go_backwards}"
            )
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise ValueError(
                    f"Forward layer and backward layer are expected to have the same value for "
                    f"attribute {attribute!r}, got {getattr(forward, attribute)!r} and "
                    f"{getattr(backward, attribute)!r}"
                )
        if type(forward).spatial_rank != type(backward).spatial_rank:
            raise ValueError("layer and backward_layer must read inputs of the same rank")
        if merge_mode in ("sum", "mul", "ave") and not _same(forward.units, backward.units):
            raise ValueError(
                f"merge_mode={merge_mode!r} combines the two outputs element-wise: the forward and "
                f"backward layers need equal units, got {forward.units} and {backward.units}"
            )
        if merge_mode == "concat" and "channels_first" in (
            getattr(forward, "data_format", None),
            getattr(backward, "data_format", None),
        ):
            raise ValueError(
                "merge_mode='concat' with data_format='channels_first' concatenates a spatial axis; not supported"
            )
        self.return_sequences = forward.return_sequences
        self.return_state = forward.return_state
        self.stateful = forward.stateful

    @property
    def input_rank(self) -> int:
        """ndim of the input: the wrapped layer's."""
        return self.forward_layer.input_rank

    @property
    def output_rank(self) -> int:
        """ndim of the (merged) output: the wrapped layer's."""
        return self.forward_layer.output_rank

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """The forward layer's weights, then the backward layer's, under ``<prefix><name>/``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input, read by both layers.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        inner = f"{prefix}{self.name}/"
        return self.forward_layer.tensors(input_dim, inner) + self.backward_layer.tensors(input_dim, inner)

    def output_dim(self, input_dim: Size) -> Size | list[Size]:
        """Last dimension of the merged output (see the class docstring).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input.

        Returns
        -------
        int, sympy.Expr or list
            H_f + H_b (concat), H (sum, mul, ave), or a list of the two widths (None).
        """
        forward, backward = self.forward_layer.output_dim(input_dim), self.backward_layer.output_dim(input_dim)
        if self.merge_mode is None:
            return [forward, backward]
        return merged_width(self.merge_mode, (forward, backward))

    def __repr__(self) -> str:
        parts = [repr(self.forward_layer)]
        if self.merge_mode != "concat":
            parts.append(f"merge_mode={self.merge_mode!r}")
        return f"Bidirectional({', '.join(parts)})"


def _layers(layers: object) -> list[_Layer]:
    if isinstance(layers, Sequential):
        return list(layers.layers)
    if isinstance(layers, _Layer):
        return [layers]
    if isinstance(layers, (list, tuple)) and layers and all(isinstance(x, _Layer) for x in layers):
        return list(layers)
    raise TypeError(f"layers must be a layer of derive.keras, a non-empty list of them or a Sequential, got {layers!r}")


def _check_feeds(previous: _Layer, layer: _Layer) -> None:
    """Raise ValueError where Keras cannot feed ``previous``'s output to ``layer``."""
    if isinstance(previous, Bidirectional) and previous.merge_mode is None:
        raise ValueError(
            f"{previous.name} has merge_mode=None: it returns a list of two outputs, which cannot feed "
            f"{layer.name} (Keras: 'expects 1 input(s), but it received 2 input tensors')"
        )
    if previous.return_state:
        raise ValueError(
            f"{previous.name} has return_state=True: it returns a list (output and states), which "
            f"cannot feed {layer.name}"
        )
    if previous.output_rank != layer.input_rank:
        hint = (
            " (set return_sequences=True on the layer before)" if previous.output_rank == layer.input_rank - 1 else ""
        )
        raise ValueError(
            f"{layer.name} expects inputs with ndim={layer.input_rank}, but {previous.name} outputs "
            f"ndim={previous.output_rank}{hint}"
        )


def tensors(layers: _Layer | Sequence[_Layer] | Sequential, input_dim: Size, prefix: str = "") -> list[Weight]:
    """Every weight of one layer, or of layers applied in sequence, with its Keras path and shape.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
        Layers of this module; each reads the output of the one before.
    input_dim : int or sympy.Expr
        Last dimension of the first layer's input: features per time step (channels for ConvLSTM).
    prefix : str
        Prepended to every path (a ``Sequential`` passes its name and ``/``).

    Returns
    -------
    list of Weight
        In the order of ``model.weights``.

    Raises
    ------
    TypeError
        ``layers`` is not a layer, a list of layers or a Sequential; ``input_dim`` not an integer.
    ValueError
        ``input_dim`` <= 0; a layer that cannot feed the next one: ``Bidirectional`` with
        ``merge_mode=None`` or a layer with ``return_state=True`` (they return lists), or an
        output rank the next layer does not accept (``return_sequences=False`` before a
        recurrent layer, a ConvLSTM before an LSTM, ...), as Keras refuses them.
    """
    stack = _layers(layers)
    width = validate.size("input_dim", input_dim)
    out: list[Weight] = []
    for k, layer in enumerate(stack):
        if k:
            _check_feeds(stack[k - 1], layer)
        out += layer.tensors(width, prefix)
        width = layer.output_dim(width)
    return out


def count(layers: _Layer | Sequence[_Layer] | Sequential, input_dim: Size) -> sympy.Expr:
    """Number of parameters of one layer, or of layers applied in sequence.

    Parameters
    ----------
    layers : layer, list of layers, or Sequential
    input_dim : int or sympy.Expr
        Last dimension of the first layer's input (features; channels for ConvLSTM).

    Returns
    -------
    sympy.Expr
        A ``sympy.Integer`` when every size is an int, else a closed form (expanded).

    Raises
    ------
    TypeError, ValueError
        See :func:`tensors`.

    Examples
    --------
    >>> count([Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)], 28)
    68224
    """
    return sympy.expand(sympy.Add(*(w.numel for w in tensors(layers, input_dim))))


class Sequential:
    """``keras.Sequential(layers=None, trainable=True, name=None)`` of the layers of this module.

    The input (``keras.Input``) is not a layer here: :meth:`count` and :meth:`tensors` take its
    last dimension. Weight paths are prefixed with the model's name, as Keras does.

    Parameters
    ----------
    layers : list of layers
    trainable : bool
        Accepted and ignored.
    name : str, optional
        Default ``"sequential"``.

    Raises
    ------
    TypeError
        ``layers`` not a non-empty list of layers of this module.
    """

    def __init__(
        self,
        layers: Sequence[_Layer] | None = None,
        trainable: bool = True,
        name: str | None = None,
    ) -> None:
        self.layers = _layers(list(layers or []))
        self.name = _name(name, "sequential")

    def tensors(self, input_dim: Size) -> list[Weight]:
        """Every weight, paths prefixed with the model's name (``model.weights``); see :func:`tensors`.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        list of Weight
        """
        return tensors(self.layers, input_dim, f"{self.name}/")

    def count(self, input_dim: Size) -> sympy.Expr:
        """``model.count_params()``; see :func:`count`.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        sympy.Expr
        """
        return count(self.layers, input_dim)

    def output_dim(self, input_dim: Size) -> Size | list[Size]:
        """Last dimension of the model's output.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the model's input.

        Returns
        -------
        int, sympy.Expr or list
        """
        tensors(self.layers, input_dim)  # checks that every layer can feed the next
        width = input_dim
        for layer in self.layers:
            width = layer.output_dim(width)
        return width

    def __repr__(self) -> str:
        return f"Sequential([{', '.join(repr(x) for x in self.layers)}])"


# The layers that surround recurrent ones in whole models (derive.models): derive.keras.Dense(1).count(64).
from ..models.keras_layers import (  # noqa: E402
    Add,
    Attention,
    BatchNormalization,
    Concatenate,
    Conv1D,
    Conv2D,
    Conv3D,
    Dense,
    Embedding,
    Flatten,
    LayerNormalization,
    RepeatVector,
    Reshape,
    TimeDistributed,
)

__all__ += [
    "Dense",
    "Embedding",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "LayerNormalization",
    "BatchNormalization",
    "Attention",
    "Flatten",
    "Reshape",
    "RepeatVector",
    "TimeDistributed",
    "Concatenate",
    "Add",
]
