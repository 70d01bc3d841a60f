"""Layer-normalised LSTM (Ba, Kiros & Hinton 2016).

J. L. Ba, J. R. Kiros, G. E. Hinton, "Layer Normalization", arXiv:1607.06450 (2016), section
3.1 and eqs. (20)-(22): the recurrent and the input products are normalised separately, each with
its own gain and shift, and so is the cell state before the output's tanh.
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import function as _sympy_function
from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["layer_norm_lstm", "LN"]

#: ``LN(v) = (v - mean(v)) / std(v)``, the normalisation of a vector (without its gain and shift,
#: which are parameters and written out).
LN = _sympy_function("LN")


@register(
    "LNLSTM",
    title="Layer-normalised LSTM",
    generic="lnlstm",
    source="Ba, Kiros & Hinton, Layer Normalization, arXiv:1607.06450 (2016), eqs. (20)-(22)",
)
@lru_cache(maxsize=4096)
def layer_norm_lstm(input_size: Size, hidden_size: Size, bias: bool | str = True, numeric: bool = False) -> Cell:
    """LSTM with layer normalisation: for each gate block g of i, f, g, o,
    ``a_g = alpha^h_g * LN(W_{hg} h_{t-1}) + beta^h_g + alpha^x_g * LN(W_{ig} x_t) + beta^x_g + b_g``;
    ``c_t = f_t * c_{t-1} + i_t * g_t``, ``h_t = o_t * tanh(alpha^c * LN(c_t) + beta^c)``.

    Ba et al. normalise the stacked 4H pre-activation of each side at once; written per gate
    block here (the statistics are over all four blocks), the parameters are the same: a gain
    and a shift of 4H for each side and of H for the cell state, 4H(I + H) + 4H·b + 18H in all.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`): ``b`` (the LayerNorm shifts are
        parameters of their own, kept under every policy).
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"LNLSTM"``, gate blocks i, f, g, o.

    Examples
    --------
    >>> layer_norm_lstm(4, 8).count
    560
    """
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    c_prev = eq.state("c_{t-1}", hidden_size)
    gates = {}
    for gate, function in (("i", sigma), ("f", sigma), ("g", sympy.tanh), ("o", sigma)):
        terms = []
        for side, source in (("h", eq.h), ("x", eq.x)):
            group = "hh" if side == "h" else "ih"
            w = eq.weight(group, gate, f"{side[0] if side == 'h' else 'i'}{gate}", hidden_size, source.shape[0])
            alpha = eq.vector("gain", f"ln_{group}", gate, rf"\alpha^{{{side}}}_{{{gate}}}")
            beta = eq.vector("gain", f"ln_{group}_shift", gate, rf"\beta^{{{side}}}_{{{gate}}}")
            terms += [odot(alpha, elementwise(LN, matmul(w, source))), beta]
        if eq.bias != "none":
            terms.append(eq.bias_vector("ih", gate, gate))
        gates[gate] = eq.let(f"{gate}_t", elementwise(function, add(*terms)))
    c = eq.let("c_t", add(odot(gates["f"], c_prev), odot(gates["i"], gates["g"])))
    alpha = eq.vector("gain", "ln_c", None, r"\alpha^{c}")
    beta = eq.vector("gain", "ln_c_shift", None, r"\beta^{c}")
    eq.let("h_t", odot(gates["o"], elementwise(sympy.tanh, add(odot(alpha, elementwise(LN, c)), beta))))
    return eq.cell("LNLSTM", ("i", "f", "g", "o"))
