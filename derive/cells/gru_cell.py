"""GRU: gated recurrent unit, both placements of the reset gate.

K. Cho et al., "Learning phrase representations using RNN encoder-decoder for statistical
machine translation", EMNLP 2014 (arXiv:1406.1078); the candidate
``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))`` is PyTorch's (and cuDNN's) form.
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, odot, one_minus, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["gru"]


@register(
    "GRU",
    options=("reset_after",),
    title="GRU",
    generic="gru",
    source="Cho et al., EMNLP 2014 (arXiv:1406.1078); torch/nn/modules/rnn.py (nn.GRU)",
)
@lru_cache(maxsize=4096)
def gru(
    input_size: Size, hidden_size: Size, bias: bool | str = True, reset_after: bool = True, numeric: bool = False
) -> Cell:
    """GRU. With ``reset_after`` (PyTorch, cuDNN, Keras' default) the reset gate multiplies the
    recurrent product: ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))``; without it
    (Cho et al. 2014, Keras ``reset_after=False``, TF1) it multiplies the state before the product:
    ``n_t = tanh(W_in x_t + W_hn (r_t * h_{t-1}) + b_n)``.

    ``r, z = sigma(...)``, ``h_t = (1 - z_t) * n_t + z_t * h_{t-1}``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    reset_after : bool
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
    """
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    r = eq.let("r_t", elementwise(sigma, eq.pre_activation("r")))
    z = eq.let("z_t", elementwise(sigma, eq.pre_activation("z")))
    n = eq.let("n_t", elementwise(sympy.tanh, eq.candidate("n", r, reset_after)))
    eq.let("h_t", add(odot(one_minus(z), n), odot(z, eq.h)))
    return eq.cell("GRU", ("r", "z", "n"))
