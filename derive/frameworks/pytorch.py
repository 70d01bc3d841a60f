"""``derive.torch``: ``torch.nn``'s recurrent layers, counted without allocating a weight.

The classes take the arguments of their ``torch.nn`` namesakes, in the same order,
so a constructor call can be pasted: ``LSTM(32, 128, 2, bidirectional=True)``.
Every size may be an int or a SymPy expression (see :mod:`derive.symbols`).
Arguments that do not change the weights (``batch_first``, ``dropout``,
``device``, ``dtype``) are checked as torch checks them and otherwise ignored.

Each object has

* ``count`` — the number of parameters (a ``sympy.Integer`` when every size is an
  int, a closed form otherwise; with a symbolic ``num_layers`` L it holds for all L >= 1);
* ``shapes`` — tensor name -> shape, in the order of ``named_parameters()``
  (needs an int ``num_layers``);
* ``tensors``, ``layer_tensors(layer)``, ``layer_count(layer)``, ``cell(layer)`` — see
  :class:`derive.stack.Stack`.

Convention and errors follow ``torch/nn/modules/rnn.py`` (``RNNBase.__init__``,
``RNN.__init__``, ``GRU.__init__``, ``RNNCellBase.__init__``), torch 2.13.
"""

from __future__ import annotations

from ..engine import validate
from ..engine.conventions import Convention, TensorLayout
from ..engine.stack import Stack
from ..engine.wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL

__all__ = ["PYTORCH", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def _torch_name(base: str, layer, direction: int) -> str:
    if layer is None:
        return base
    return f"{base}_l{layer}" + ("_reverse" if direction == 1 else "")


#: PyTorch (``torch/nn/modules/rnn.py``, ``RNNBase.__init__`` and ``RNNCellBase``): two bias
#: vectors per layer and direction, gate blocks stacked along rows (LSTM i, f, g, o; GRU r, z, n).
PYTORCH = Convention(
    name="PyTorch",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_hr", "weight", ("hr",)),
    ),
    layer_name=_torch_name,
    source="torch/nn/modules/rnn.py (RNNBase.__init__, RNNCellBase.__init__)",
)

_NONLINEARITIES = ("tanh", "relu")


class _RNNBase(Stack):
    """Shared by :class:`RNN`, :class:`LSTM` and :class:`GRU`; checks arguments in torch's order.

    Raises
    ------
    ValueError
        ``dropout`` outside [0, 1]; a size <= 0; ``proj_size`` < 0 or >= ``hidden_size``.
    TypeError
        ``bias``, ``batch_first`` or ``bidirectional`` not a bool; a size that is not an integer.
    """

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        self.dropout = validate.probability("dropout", dropout)
        validate.flag("bias", bias)
        self.batch_first = validate.flag("batch_first", batch_first)
        input_size = validate.size("input_size", input_size)
        hidden_size = validate.size("hidden_size", hidden_size)
        num_layers = validate.size("num_layers", num_layers)
        validate.flag("bidirectional", bidirectional)
        proj_size = validate.size("proj_size", proj_size, minimum=0)
        if proj_size != 0 and (proj_size >= hidden_size) == True:  # noqa: E712  (SymPy: provably)
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.bidirectional = bidirectional
        wiring = DEEP_BIDIRECTIONAL if bidirectional else UNIDIRECTIONAL
        super().__init__(mode, input_size, hidden_size, num_layers, bias, proj_size, PYTORCH, wiring)

    def __repr__(self) -> str:
        parts = [str(self.input_size), str(self.hidden_size)]
        if self.proj_size != 0:
            parts.append(f"proj_size={self.proj_size}")
        if self.num_layers != 1:
            parts.append(f"num_layers={self.num_layers}")
        if self.bias is not True:
            parts.append(f"bias={self.bias}")
        if self.batch_first:
            parts.append("batch_first=True")
        if self.dropout != 0:
            parts.append(f"dropout={self.dropout}")
        if self.bidirectional:
            parts.append("bidirectional=True")
        return f"{type(self).__name__}({', '.join(parts)})"


def _refuse_extra(kwargs: dict) -> None:
    """RNN and GRU take no ``proj_size``: torch refuses the keyword whatever its value."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"got an unexpected keyword argument {next(iter(kwargs))!r}")


class RNN(_RNNBase):
    """``torch.nn.RNN``: an Elman RNN stack, ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Parameters
    ----------
    input_size : int or sympy.Expr
        I, features per time step.
    hidden_size : int or sympy.Expr
        H.
    num_layers : int or sympy.Expr, default 1
        L.
    nonlinearity : {"tanh", "relu"}, default "tanh"
    bias : bool, default True
        Whether each layer and direction has ``bias_ih`` and ``bias_hh`` (H,) each.
    batch_first : bool, default False
        Checked, does not change the weights.
    dropout : float in [0, 1], default 0.0
        Checked, does not change the weights.
    bidirectional : bool, default False
        Deep bidirectional wiring: layers >= 1 read 2·H features.
    device, dtype
        Ignored.
    **kwargs
        Only to refuse ``proj_size`` (any value) with torch's ValueError; other keywords are a TypeError.

    Raises
    ------
    ValueError
        Unknown ``nonlinearity``; ``proj_size`` given; see :class:`_RNNBase`.
    TypeError
        See :class:`_RNNBase`.

    Examples
    --------
    >>> RNN(25, 50, 4, bidirectional=True).shapes["weight_ih_l1"]
    (50, 100)
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
        **kwargs,
    ):
        _refuse_extra(kwargs)
        self.nonlinearity = validate.choice("nonlinearity", nonlinearity, _NONLINEARITIES)
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional)


class LSTM(_RNNBase):
    """``torch.nn.LSTM``, with or without projection (``proj_size``).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H.
    num_layers : int or sympy.Expr, default 1
        L.
    bias : bool, default True
    batch_first : bool, default False
        Checked, does not change the weights.
    dropout : float in [0, 1], default 0.0
        Checked, does not change the weights.
    bidirectional : bool, default False
    proj_size : int or sympy.Expr, default 0
        P; if > 0 each layer and direction adds ``weight_hr`` (P, H) and the output,
        ``h_t`` and every recurrent weight are P wide instead of H.
    device, dtype
        Ignored.

    Raises
    ------
    ValueError
        ``proj_size`` < 0 or >= ``hidden_size``; see :class:`_RNNBase`.
    TypeError
        See :class:`_RNNBase`.

    Examples
    --------
    >>> LSTM(32, 128, 2, bidirectional=True).count
    561152
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size
        )


class GRU(_RNNBase):
    """``torch.nn.GRU``: ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    num_layers : int or sympy.Expr, default 1
    bias : bool, default True
    batch_first : bool, default False
    dropout : float in [0, 1], default 0.0
    bidirectional : bool, default False
    device, dtype
        Ignored.
    **kwargs
        Only to refuse ``proj_size`` (any value) with torch's ValueError; other keywords are a TypeError.

    Raises
    ------
    ValueError, TypeError
        See :class:`_RNNBase`.
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
        **kwargs,
    ):
        _refuse_extra(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional)


class _RNNCellBase(Stack):
    """One cell: tensors ``weight_ih`` (G·H, I), ``weight_hh`` (G·H, H), ``bias_ih``, ``bias_hh`` (G·H,).

    torch itself does not check sizes when building a cell (a zero size makes an
    empty tensor, a negative one a RuntimeError); here they are checked as for the
    layer classes: TypeError for a non-integer, ValueError for a size <= 0.
    """

    def __init__(self, mode, input_size, hidden_size, bias=True):
        input_size = validate.size("input_size", input_size)
        hidden_size = validate.size("hidden_size", hidden_size)
        validate.flag("bias", bias)
        super().__init__(mode, input_size, hidden_size, 1, bias, 0, PYTORCH, UNIDIRECTIONAL, single_cell=True)

    def __repr__(self) -> str:
        bias = "" if self.bias else ", bias=False"
        return f"{type(self).__name__}({self.input_size}, {self.hidden_size}{bias})"


class RNNCell(_RNNCellBase):
    """``torch.nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity="tanh")``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H (features), as for :class:`LSTM`.
    bias : bool, default True
        Whether the cell has ``bias_ih`` and ``bias_hh`` (G·H,) each.
    nonlinearity : {"tanh", "relu"}, default "tanh"
    device, dtype
        Ignored.

    Raises
    ------
    ValueError
        Unknown ``nonlinearity`` (torch defers this to the first forward call), a size <= 0.
    TypeError
        Non-integer size, non-bool ``bias``.
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        self.nonlinearity = validate.choice("nonlinearity", nonlinearity, _NONLINEARITIES)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, bias)


class LSTMCell(_RNNCellBase):
    """``torch.nn.LSTMCell(input_size, hidden_size, bias=True)``; raises as :class:`RNNCell`.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H (features), as for :class:`LSTM`.
    bias : bool, default True
        Whether the cell has ``bias_ih`` and ``bias_hh`` (G·H,) each.
    device, dtype
        Ignored.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, bias)


class GRUCell(_RNNCellBase):
    """``torch.nn.GRUCell(input_size, hidden_size, bias=True)``; raises as :class:`RNNCell`.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H (features), as for :class:`LSTM`.
    bias : bool, default True
        Whether the cell has ``bias_ih`` and ``bias_hh`` (G·H,) each.
    device, dtype
        Ignored.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, bias)


# The layers that surround recurrent ones in whole models (derive.models), so derive.torch.Embedding(...).count works.
from ..models.torch_layers import BatchNorm1d, Conv1d, Dropout, Embedding, LayerNorm, Linear  # noqa: E402

__all__ += ["Embedding", "Linear", "Dropout", "LayerNorm", "BatchNorm1d", "Conv1d"]
