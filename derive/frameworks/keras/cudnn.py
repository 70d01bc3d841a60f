"""Keras 2's ``CuDNNLSTM`` and ``CuDNNGRU``: no cell, cuDNN's two biases in one ``bias``.

Layout :data:`derive.frameworks.keras.conventions.CUDNN`, the one :mod:`derive.frameworks.tf_keras`
registers too.

>>> [(w.path, w.shape) for w in CuDNNLSTM(5, input_dim=4).tensors()]
[('cu_dnnlstm/kernel', (4, 20)), ('cu_dnnlstm/recurrent_kernel', (5, 20)), ('cu_dnnlstm/bias', (40,))]
"""

from __future__ import annotations

from typing import Any

from ...cells import Cell, make_cell
from ...engine import validate
from ...engine.symbols import Size
from ...tree import Module
from .base import cell_module
from .conventions import CUDNN
from .recurrent import RecurrentLayer

__all__ = ["CuDNN", "CuDNNLSTM", "CuDNNGRU"]


class CuDNN(RecurrentLayer):
    """``CuDNNLSTM`` / ``CuDNNGRU`` (Keras 2): no cell, cuDNN's two biases in one ``bias``.

    The arguments of ``CuDNNGRU`` (``tf_keras/src/layers/rnn/cudnn_gru.py``); ``CuDNNLSTM`` adds
    ``unit_forget_bias``.

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
    return_sequences : bool, default False
        The output keeps the time axis.
    return_state : bool, default False
        The layer also returns its last states.
    go_backwards, stateful : bool, default False
        Accepted; no shape depends on them.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``autocast``,
        ``zero_output_for_mask``) and the input (``input_dim``, ``input_shape``,
        ``batch_input_shape``: see :class:`derive.keras.SimpleRNN`).

    Raises
    ------
    TypeError
        ``units`` not an integer nor a SymPy expression, a keyword the layer does not take.
    ValueError
        ``units`` <= 0; ``name`` not a string or containing ``/``.
    """

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

    def _cell(self, input_dim: Size, numeric: bool = False) -> Cell:
        return make_cell(self.mode, input_dim, self.units, "two", reset_after=True, numeric=numeric)

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """``kernel``, ``recurrent_kernel``, ``bias`` in a module named ``<prefix><name>`` (no cell scope;
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
        input_dim = validate.size("input_dim", input_dim)
        cell = self.cell(input_dim, numeric=type(input_dim) is int and type(self.units) is int)
        return cell_module(prefix + self.name, type(self).__name__, cell, CUDNN)


class CuDNNLSTM(CuDNN):
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
    >>> from derive.keras import LSTM
    >>> CuDNNLSTM(5, input_dim=4).count - LSTM(5, input_dim=4).count
    20
    """

    mode, cell_name, default_name = "LSTM", "", "cu_dnnlstm"
    lettered, states = True, 2

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
        return f"CuDNNLSTM({self.units}{self._input_repr()})"


class CuDNNGRU(CuDNN):
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
    >>> from derive.keras import GRU
    >>> CuDNNGRU(5, input_dim=4).count == GRU(5, input_dim=4).count == 165
    True
    """

    mode, cell_name, default_name = "GRU", "", "cu_dnngru"
    lettered = True

    def __repr__(self) -> str:
        return f"CuDNNGRU({self.units}{self._input_repr()})"
