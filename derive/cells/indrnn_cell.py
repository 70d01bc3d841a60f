"""IndRNN: independently recurrent neurons, an element-wise recurrent weight (Li et al. 2018).

S. Li, W. Li, C. Cook, C. Zhu, Y. Gao, "Independently Recurrent Neural Network (IndRNN):
Building A Longer and Deeper RNN", CVPR 2018 (arXiv:1803.04831), eq. (2).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, bracket, elementwise, odot, relu
from ..engine.symbols import Size
from . import register

__all__ = ["ind_rnn"]


@register(
    "INDRNN",
    options=("nonlinearity",),
    title="Independently recurrent neural network (IndRNN)",
    generic="indrnn",
    source="Li et al., CVPR 2018 (arXiv:1803.04831), eq. (2)",
)
@lru_cache(maxsize=4096)
def ind_rnn(
    input_size: Size, hidden_size: Size, bias: bool | str = True, nonlinearity: str = "relu", numeric: bool = False
) -> Cell:
    """IndRNN: ``h_t = ReLU(W_{ih} x_t + b_{ih} + u * h_{t-1})``.

    The recurrent weight ``u`` (H,) is a vector, multiplied element-wise: each neuron reads
    only its own previous state. Per direction H(I + 1 + b) parameters; one bias (the paper's
    ``b``) under every policy but ``"none"``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    nonlinearity : {"relu", "tanh"}
        The paper uses ReLU; the parameters do not depend on it.
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"INDRNN"``, one gate block h.

    Raises
    ------
    ValueError
        Another ``nonlinearity``.

    Examples
    --------
    >>> ind_rnn(4, 8).count
    48
    """
    if nonlinearity not in ("relu", "tanh"):
        raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    u = eq.vector("peephole", "hh", "h", "u")
    pre = add(eq.linear("i", "h", eq.bias != "none"), odot(u, eq.h))
    eq.let("h_t", elementwise(relu if nonlinearity == "relu" else sympy.tanh, bracket(pre)))
    return eq.cell("INDRNN", ("h",))
