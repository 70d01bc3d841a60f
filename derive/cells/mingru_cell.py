"""minGRU: the GRU without its recurrent weights (Feng et al. 2024).

L. Feng, F. Tung, M. O. Ahmed, Y. Bengio, H. Hajimirsadeghi, "Were RNNs All We Needed?",
arXiv:2410.01201 (2024), section 3.1.3 and algorithm 2: the gates read only the input, so the
recurrence is a linear scan computed in parallel over time.
"""

from __future__ import annotations

from functools import lru_cache

from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, one_minus, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["min_gru"]


@register(
    "MINGRU",
    options=("proj_size",),
    title="minGRU",
    generic="mingru",
    source="Feng et al., Were RNNs All We Needed?, arXiv:2410.01201 (2024), §3.1.3; minGRU_pytorch/minGRU.py (mingru-pytorch 0.2.1)",
)
@lru_cache(maxsize=4096)
def min_gru(
    input_size: Size, hidden_size: Size, bias: bool | str = True, proj_size: Size = 0, numeric: bool = False
) -> Cell:
    """minGRU: ``z_t = sigma(W_{iz} x_t + b_{iz})``, ``n_t = W_{in} x_t + b_{in}``,
    ``h_t = (1 - z_t) * h_{t-1} + z_t * n_t`` (the paper's h-tilde is ``n_t`` here).

    No weight reads ``h_{t-1}``: per direction 2H(I + b) parameters. With ``proj_size`` P > 0
    an output projection ``y_t = W_{hr} h_t`` (P, H) — the ``to_out`` of ``mingru-pytorch``
    (``minGRU_pytorch/minGRU.py``, ``minGRU.__init__``), used there when the hidden size is an
    ``expansion_factor`` times the input's — is what the next layer reads; it is not recurrent.
    The log-space version of the paper (appendix B.3) applies ``g`` to ``n_t``: no parameters.

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
        Named ``"MINGRU"``, gate blocks n, z (``mingru-pytorch``'s order: hidden, then gate).

    Examples
    --------
    >>> min_gru(4, 8).count
    80
    """
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    n = eq.let("n_t", eq.linear("i", "n", eq.bias != "none"))
    z = eq.let("z_t", elementwise(sigma, eq.linear("i", "z", eq.bias != "none")))
    h = eq.let("h_t", add(odot(one_minus(z), eq.h), odot(z, n)))
    if proj_size != 0:
        w_hr = eq.weight("hr", None, "hr", proj_size, hidden_size)
        eq.let("y_t", matmul(w_hr, h))
    return eq.cell("MINGRU", ("n", "z"))
