"""minLSTM: the LSTM without its recurrent weights, gates normalised (Feng et al. 2024).

L. Feng, F. Tung, M. O. Ahmed, Y. Bengio, H. Hajimirsadeghi, "Were RNNs All We Needed?",
arXiv:2410.01201 (2024), section 3.2.3 and algorithm 4.
"""

from __future__ import annotations

from functools import lru_cache

from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, reciprocal, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["min_lstm"]


@register(
    "MINLSTM",
    options=("proj_size",),
    title="minLSTM",
    generic="minlstm",
    source="Feng et al., Were RNNs All We Needed?, arXiv:2410.01201 (2024), §3.2.3; minGRU_pytorch/minLSTM.py (mingru-pytorch 0.2.1)",
)
@lru_cache(maxsize=4096)
def min_lstm(
    input_size: Size, hidden_size: Size, bias: bool | str = True, proj_size: Size = 0, numeric: bool = False
) -> Cell:
    """minLSTM: ``f_t = sigma(W_{if} x_t + b_{if})``, ``i_t = sigma(W_{ii} x_t + b_{ii})``,
    ``n_t = W_{in} x_t + b_{in}``; the gates are normalised, ``f'_t = f_t / (f_t + i_t)`` and
    ``i'_t = i_t / (f_t + i_t)``, and ``h_t = f'_t * h_{t-1} + i'_t * n_t``.

    Per direction 3H(I + b) parameters; with ``proj_size`` P > 0 an output projection
    ``y_t = W_{hr} h_t`` (P, H), as for :func:`derive.cells.min_gru` (``mingru-pytorch``'s
    ``to_out``, ``minGRU_pytorch/minLSTM.py``).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`); ``mingru-pytorch`` has none.
    proj_size : int or sympy.Expr
        P, 0 for no output projection.
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"MINLSTM"``, gate blocks n, f, i (``mingru-pytorch``'s order).

    Examples
    --------
    >>> min_lstm(4, 8).count
    120
    """
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    with_bias = eq.bias != "none"
    n = eq.let("n_t", eq.linear("i", "n", with_bias))
    f = eq.let("f_t", elementwise(sigma, eq.linear("i", "f", with_bias)))
    i = eq.let("i_t", elementwise(sigma, eq.linear("i", "i", with_bias)))
    total = reciprocal(add(f, i))
    f_norm = eq.let("f'_t", odot(f, total))
    i_norm = eq.let("i'_t", odot(i, total))
    h = eq.let("h_t", add(odot(f_norm, eq.h), odot(i_norm, n)))
    if proj_size != 0:
        w_hr = eq.weight("hr", None, "hr", proj_size, hidden_size)
        eq.let("y_t", matmul(w_hr, h))
    return eq.cell("MINLSTM", ("n", "f", "i"))
