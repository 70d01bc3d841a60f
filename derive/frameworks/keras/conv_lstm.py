"""Keras 3's ``ConvLSTM1D``, ``ConvLSTM2D``, ``ConvLSTM3D``: the ConvLSTM cell over 1 to 3 spatial axes.

>>> [(w.path, w.shape) for w in ConvLSTM2D(4, 3, input_dim=2).tensors()][:1]
[('conv_lstm2d/conv_lstm_cell/kernel', (3, 3, 2, 16))]
>>> ConvLSTM2D(4, 3, input_shape=(10, 32, 32, 2)).count   # 4 * 4 * (9 * (2 + 4) + 1)
880
>>> ConvLSTM2D(4, 3, data_format="channels_first", input_shape=(10, 2, 32, 32)).count
880
"""

from __future__ import annotations

from typing import Any

from ...cells import Cell, conv_lstm
from ...engine import validate
from ...engine.symbols import Size
from ...layers.conv import conv_length
from .base import RNN_KWARGS
from .conventions import KERAS
from .recurrent import RecurrentLayer

__all__ = ["ConvLSTM", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


class ConvLSTM(RecurrentLayer):
    """Shared by :class:`ConvLSTM1D`, :class:`ConvLSTM2D` and :class:`ConvLSTM3D`: Keras' ``ConvLSTM``
    arguments (``keras/src/layers/rnn/conv_lstm.py``); each subclass sets its number of spatial
    axes, n (:attr:`spatial_rank`), and gives the weights' shapes.

    Parameters
    ----------
    filters : int or sympy.Expr
        F, the channels of the hidden and cell states.
    kernel_size : int, sympy.Expr or tuple of them
        The kernel's spatial size: a tuple of n, or one value used for every spatial axis (as Keras).
    strides : int or tuple of int, default 1
        With ``padding`` and ``dilation_rate``, sets the output's spatial sizes
        (:meth:`spatial_output`); no weight depends on it.
    padding : str, default "valid"
        ``"valid"`` or ``"same"`` (any case).
    data_format : str or None, default None
        ``"channels_last"`` (None) or ``"channels_first"``.
    dilation_rate : int or tuple of int, default 1
    activation, recurrent_activation : object
        Keras' activations, accepted and ignored: no shape depends on them.
    use_bias : bool, default True
        Whether the cell has a ``bias`` (4F,).
    kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias, ..., seed
        Keras' initialisers, regularisers, constraints, dropouts and seed, accepted and ignored.
    return_sequences : bool, default False
        The output keeps the time axis.
    return_state : bool, default False
        The layer also returns its last states, h and c.
    go_backwards, stateful : bool, default False
        Accepted; no shape depends on them.
    **kwargs
        Keras' layer arguments (see :class:`SimpleRNN`: the input's channels read from
        ``input_dim``, or from the channels axis of ``input_shape`` / ``batch_input_shape``, the
        last or, with ``data_format="channels_first"``, the one after the time axis) and ``unroll``.

    Raises
    ------
    TypeError
        ``filters`` or an entry of ``kernel_size`` not an integer nor a SymPy expression,
        ``use_bias`` not a bool, a keyword Keras' ``ConvLSTM`` does not take.
    ValueError
        ``filters`` or an entry of ``kernel_size`` <= 0; ``kernel_size`` a tuple of other than n
        entries; ``padding`` not ``"valid"`` nor ``"same"``; ``data_format`` not
        ``"channels_last"``, ``"channels_first"`` nor None; ``name`` not a string or containing ``/``.
    """

    mode, cell_name, cell_type, states = "CONVLSTM", "conv_lstm_cell", "ConvLSTMCell", 2
    INPUT_HINT = "input_dim=<channels>, or input_shape=(steps, *spatial, channels)"

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
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of 'channels_first', 'channels_last', "
                f"or None. Received: data_format={data_format!r}"
            )
        self.data_format = data_format or "channels_last"  # before _setup: where the given input's channels are
        self._setup(
            "filters",
            filters,
            use_bias,
            return_sequences,
            return_state,
            go_backwards,
            stateful,
            kwargs,
            RNN_KWARGS | {"unroll"},
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
        self.strides, self.dilation_rate = strides, dilation_rate

    def spatial_output(self, spatial: tuple) -> tuple:
        """The spatial axes convolved by the kernel with ``strides``, ``padding``, ``dilation_rate``.

        Parameters
        ----------
        spatial : tuple
            The input's spatial sizes (None where unknown).

        Returns
        -------
        tuple
        """
        n = len(spatial)

        def per_axis(value: Any) -> tuple:
            return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n

        return tuple(
            conv_length(s, k, st, self.padding, d)
            for s, k, st, d in zip(spatial, self.kernel_size, per_axis(self.strides), per_axis(self.dilation_rate))
        )

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        numeric = numeric and all(type(k) is int for k in self.kernel_size)
        return conv_lstm(input_dim, self.units, self.kernel_size, KERAS.bias_policy(self.mode, self.use_bias), numeric)

    def __repr__(self) -> str:
        kernel = self.kernel_size if len(set(self.kernel_size)) > 1 else self.kernel_size[0]
        bias = "" if self.use_bias else ", use_bias=False"
        return f"{type(self).__name__}({self.units}, {kernel}{bias}{self._input_repr()})"


class ConvLSTM1D(ConvLSTM):
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


class ConvLSTM2D(ConvLSTM):
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


class ConvLSTM3D(ConvLSTM):
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
