"""``derive.torch``: ``torch.nn``'s recurrent layers, counted without allocating a weight.

The classes take the arguments of their ``torch.nn`` namesakes, in the same order,
so a constructor call can be pasted: ``LSTM(32, 128, 2, bidirectional=True)``.
Every size may be an int or a SymPy expression (see :mod:`derive.engine.symbols`).
Arguments that do not change the weights (``batch_first``, ``dropout``,
``device``, ``dtype``) are checked as torch checks them and otherwise ignored.

Each object has

* ``count`` — the number of parameters (an ``int`` when every size is an
  int, a closed form otherwise; with a symbolic ``num_layers`` L it holds for all L >= 1);
* ``shapes`` — tensor name -> shape, in the order of ``named_parameters()``
  (needs an int ``num_layers``);
* ``tensors``, ``layer_tensors(layer)``, ``layer_count(layer)``, ``cell(layer)`` — see
  :class:`derive.engine.stack.Stack`.

Convention and errors follow ``torch/nn/modules/rnn.py`` (``RNNBase.__init__``,
``RNN.__init__``, ``GRU.__init__``, ``RNNCellBase.__init__``), torch 2.13.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import validate
from ..engine.conventions import Convention, TensorLayout
from ..engine.stack import Stack
from ..engine.symbols import Size
from ..engine.wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL
from ..tree import State

__all__ = ["PYTORCH", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def _torch_name(base: str, layer: object, direction: int) -> str:
    if layer is None:
        return base
    return f"{base}_l{layer}" + ("_reverse" if direction == 1 else "")


def _torch_states(stack: Any) -> tuple[State, ...]:
    """What a torch recurrent layer hands back for its next call: its cache.

    ``nn.RNN``/``nn.GRU`` return ``h_n`` (D·num_layers, batch, H_out), ``nn.LSTM`` also ``c_n``
    (D·num_layers, batch, H), H_out = ``proj_size`` or ``hidden_size`` (``torch/nn/modules/rnn.py``,
    the classes' "Outputs" and ``LSTM.forward``'s ``h_zeros``/``c_zeros``); a cell returns ``h'``
    (batch, H), the LSTM cell also ``c'`` (batch, H). All in the layer's dtype.

    Parameters
    ----------
    stack : derive.engine.stack.Stack
        A stack under the :data:`PYTORCH` convention.

    Returns
    -------
    tuple of derive.tree.State

    Examples
    --------
    >>> [(s.name, s.shape) for s in LSTM(10, 20, 2, bidirectional=True, proj_size=5).module().cache]
    [('h_n', (4, 'batch', 5)), ('c_n', (4, 'batch', 20))]
    """
    lstm = stack.mode == "LSTM"
    if stack.single_cell:
        states = (State("h'", ("batch", stack.hidden_size)),)
        return states + ((State("c'", ("batch", stack.hidden_size)),) if lstm else ())
    layers = stack.wiring.num_directions * stack.num_layers
    states = (State("h_n", (layers, "batch", stack.output_size)),)
    return states + ((State("c_n", (layers, "batch", stack.hidden_size)),) if lstm else ())


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
    cache=_torch_states,
)

_NONLINEARITIES = ("tanh", "relu")


class _RNNBase(Stack):
    """Shared by :class:`RNN`, :class:`LSTM` and :class:`GRU`; checks arguments in torch's order.

    Its ``__init__`` has torch's ``RNNBase.__init__`` signature (and that qualified name), so that
    ``LSTM(*args, **kwargs)`` binds positional and keyword arguments exactly as torch does and a
    wrong call raises CPython's TypeError in torch's words (``RNNBase.__init__() takes from 4 to
    12 positional arguments but 13 were given``).

    Raises
    ------
    ValueError
        ``dropout`` outside [0, 1]; a size <= 0; ``proj_size`` < 0 or >= ``hidden_size``; a
        ``proj_size`` > 0 for RNN or GRU.
    TypeError
        ``bias``, ``batch_first`` or ``bidirectional`` not a bool; a size that is not an integer.
    """

    def __init__(
        self,
        mode: str,
        input_size: Size,
        hidden_size: Size,
        num_layers: Size = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: Size = 0,
        device: object = None,
        dtype: object = None,
    ) -> None:
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
        if proj_size != 0 and mode != "LSTM":
            # torch accepts a positional proj_size > 0 for RNN and GRU and builds parameters that no
            # forward pass can use ("got an incorrect number of RNN parameters"): refused, in the
            # words torch uses for the keyword.
            raise ValueError(
                f"proj_size argument is only supported for LSTM, not RNN or GRU (got proj_size={validate.shown(proj_size)})"
            )
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


_RNNBase.__init__.__qualname__ = "RNNBase.__init__"


def _refuse_proj_size_keyword(kwargs: dict[str, object]) -> None:
    """RNN and GRU take no ``proj_size`` keyword: torch refuses it whatever its value."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


def torch_arguments(name: str, args: tuple, kwargs: dict) -> dict[str, tuple[str, int | str]]:
    """Where each of torch's argument names is in a call ``torch.nn.<name>(*args, **kwargs)``.

    torch's ``RNN``, ``LSTM`` and ``GRU`` take ``*args, **kwargs`` and hand them to
    ``RNNBase.__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
    bidirectional, proj_size, device, dtype)``; ``RNN`` first takes a 4th positional argument out
    as ``nonlinearity``. The cells have ordinary signatures.

    Parameters
    ----------
    name : str
        One of ``RNN``, ``LSTM``, ``GRU``, ``RNNCell``, ``LSTMCell``, ``GRUCell``.
    args : tuple
        The positional arguments of the call.
    kwargs : dict
        Its keyword arguments.

    Returns
    -------
    dict
        Argument name -> ``("arg", index)`` or ``("kw", name)``, for the arguments the call gives.

    Raises
    ------
    ValueError
        Unknown ``name``.
    """
    if name not in __all__ or name == "PYTORCH":
        raise ValueError(f"name must be one of {', '.join(n for n in __all__ if n != 'PYTORCH')}, got {name!r}")
    if name.endswith("Cell"):
        names = ["input_size", "hidden_size", "bias"] + (["nonlinearity"] if name == "RNNCell" else [])
        names += ["device", "dtype"]
    else:
        names = ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional"]
        names += ["proj_size", "device", "dtype"]
        if name == "RNN" and len(args) > 3:
            names.insert(3, "nonlinearity")
    where: dict[str, tuple[str, int | str]] = {n: ("arg", k) for n, k in zip(names, range(len(args)))}
    for key in kwargs:
        where.setdefault(key, ("kw", key))
    return where


class RNN(_RNNBase):
    """``torch.nn.RNN``: an Elman RNN stack, ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Parameters
    ----------
    *args, **kwargs
        As ``torch.nn.RNN`` takes them: ``input_size, hidden_size, num_layers=1, bias=True,
        batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
        dtype=None``, and ``nonlinearity`` ({"tanh", "relu"}, default "tanh") -- as a keyword,
        or as the 4th positional argument, which torch takes out of the positional ones before
        the rest are bound (so ``RNN(3, 4, 1, "relu", True)`` has ``bias=True``). A
        ``proj_size`` keyword is refused whatever its value, as torch does; a positional
        ``proj_size`` other than 0 too (torch builds parameters no forward pass can use).

        input_size (int or sympy.Expr): I, features per time step. hidden_size (int or
        sympy.Expr): H. num_layers (int or sympy.Expr): L. bias (bool): whether each layer and
        direction has ``bias_ih`` and ``bias_hh`` (H,). batch_first (bool), dropout (float in
        [0, 1]): checked, do not change the weights. bidirectional (bool): deep bidirectional
        wiring, layers >= 1 read 2·H features. device, dtype: ignored.

    Raises
    ------
    ValueError
        Unknown ``nonlinearity``; ``proj_size`` given; see :class:`_RNNBase`.
    TypeError
        Missing, repeated or unknown arguments, too many positional ones (CPython's message for
        ``RNNBase.__init__``, as torch); see :class:`_RNNBase`.

    Examples
    --------
    >>> RNN(25, 50, 4, bidirectional=True).shapes["weight_ih_l1"]
    (50, 100)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # torch.nn.RNN.__init__, step by step
        _refuse_proj_size_keyword(kwargs)
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        self.nonlinearity = validate.choice("nonlinearity", nonlinearity, _NONLINEARITIES)
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, *args, **kwargs)


class LSTM(_RNNBase):
    """``torch.nn.LSTM``, with or without projection (``proj_size``).

    Parameters
    ----------
    *args, **kwargs
        As ``torch.nn.LSTM`` takes them (it hands them to ``RNNBase.__init__``): ``input_size,
        hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, proj_size=0, device=None, dtype=None``.

        input_size (int or sympy.Expr): I, the features of each input step. hidden_size (int or
        sympy.Expr): H, the features of each layer's hidden state. num_layers (int or sympy.Expr): L.
        bias (bool). batch_first (bool), dropout (float in [0, 1]): checked, do not change the
        weights. bidirectional (bool). proj_size (int or sympy.Expr): P; if > 0 each layer and
        direction adds ``weight_hr`` (P, H) and the output, ``h_t`` and every recurrent weight
        are P wide instead of H. device, dtype: ignored.

    Raises
    ------
    ValueError
        ``proj_size`` < 0 or >= ``hidden_size``; see :class:`_RNNBase`.
    TypeError
        Missing, repeated or unknown arguments, too many positional ones (CPython's message for
        ``RNNBase.__init__``, as torch); see :class:`_RNNBase`.

    Examples
    --------
    >>> LSTM(32, 128, 2, bidirectional=True).count
    561152
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """``torch.nn.GRU``: ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))``.

    Parameters
    ----------
    *args, **kwargs
        As ``torch.nn.GRU`` takes them (it hands them to ``RNNBase.__init__``): ``input_size,
        hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, proj_size=0, device=None, dtype=None``; a ``proj_size`` keyword is
        refused whatever its value, as torch does, and a positional ``proj_size`` other than 0
        too (torch builds parameters no forward pass can use). Types as for :class:`LSTM`.

    Raises
    ------
    ValueError
        ``proj_size`` given; see :class:`_RNNBase`.
    TypeError
        Missing, repeated or unknown arguments, too many positional ones (CPython's message for
        ``RNNBase.__init__``, as torch); see :class:`_RNNBase`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse_proj_size_keyword(kwargs)
        super().__init__("GRU", *args, **kwargs)


class _RNNCellBase(Stack):
    """One cell: tensors ``weight_ih`` (G·H, I), ``weight_hh`` (G·H, H), ``bias_ih``, ``bias_hh`` (G·H,).

    torch itself does not check sizes when building a cell (a zero size makes an
    empty tensor, a negative one a RuntimeError); here they are checked as for the
    layer classes: TypeError for a non-integer, ValueError for a size <= 0.
    """

    def __init__(self, mode: str, input_size: Size, hidden_size: Size, bias: bool = True) -> None:
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
    input_size : int or sympy.Expr
        I, the features of each input step.
    hidden_size : int or sympy.Expr
        H, the features of the hidden state.
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

    def __init__(
        self,
        input_size: Size,
        hidden_size: Size,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: object = None,
        dtype: object = None,
    ) -> None:
        self.nonlinearity = validate.choice("nonlinearity", nonlinearity, _NONLINEARITIES)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, bias)


class LSTMCell(_RNNCellBase):
    """``torch.nn.LSTMCell(input_size, hidden_size, bias=True)``; raises as :class:`RNNCell`.

    Parameters
    ----------
    input_size : int or sympy.Expr
        I, the features of each input step.
    hidden_size : int or sympy.Expr
        H, the features of the hidden state.
    bias : bool, default True
        Whether the cell has ``bias_ih`` and ``bias_hh`` (G·H,) each.
    device, dtype
        Ignored.
    """

    def __init__(
        self, input_size: Size, hidden_size: Size, bias: bool = True, device: object = None, dtype: object = None
    ) -> None:
        super().__init__("LSTM", input_size, hidden_size, bias)


class GRUCell(_RNNCellBase):
    """``torch.nn.GRUCell(input_size, hidden_size, bias=True)``; raises as :class:`RNNCell`.

    Parameters
    ----------
    input_size : int or sympy.Expr
        I, the features of each input step.
    hidden_size : int or sympy.Expr
        H, the features of the hidden state.
    bias : bool, default True
        Whether the cell has ``bias_ih`` and ``bias_hh`` (G·H,) each.
    device, dtype
        Ignored.
    """

    def __init__(
        self, input_size: Size, hidden_size: Size, bias: bool = True, device: object = None, dtype: object = None
    ) -> None:
        super().__init__("GRU", input_size, hidden_size, bias)


# The layers that surround recurrent ones in whole models, so derive.torch.Embedding(...).count works
# (derive.layers.torch_nn.legacy: the torch.nn classes on the module tree, below this floor), imported
# when first read (module __getattr__).
if TYPE_CHECKING:
    from ..layers.torch_nn.legacy import BatchNorm1d, Conv1d, Dropout, Embedding, LayerNorm, Linear

__all__ += ["Embedding", "Linear", "Dropout", "LayerNorm", "BatchNorm1d", "Conv1d"]


def __getattr__(name: str) -> Any:
    if name in __all__:  # one of the layers above (the names defined here are found without this)
        from ..layers.torch_nn import legacy

        return getattr(legacy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
