"""sLSTM: xLSTM's scalar-memory LSTM, exponential gating and per-head recurrence (Beck et al. 2024).

M. Beck, K. Pöppel, M. Spanring, A. Auer, O. Prudnikova, M. Kopp, G. Klambauer, J. Brandstetter,
S. Hochreiter, "xLSTM: Extended Long Short-Term Memory", NeurIPS 2024 (arXiv:2405.04517),
section 2.2 (the sLSTM's equations, its heads: memory mixing within a head, not across heads)
and appendix figure of the sLSTM block; as ``xlstm`` (2.0.6) builds its ``sLSTMLayer``
(``xlstm/blocks/slstm/layer.py``, ``sLSTMLayer.__init__``; ``xlstm/blocks/slstm/cell.py``,
``sLSTMCellBase.__init__``; the step in ``xlstm/blocks/slstm/src/vanilla/slstm.py``).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, reciprocal, sigma
from ..engine.symbols import Size
from ..tree import Letter
from . import register
from ._xlstm import GN, causal_conv, check_heads

__all__ = ["slstm"]

#: N_H, the number of heads, for the cell's page.
NUM_HEADS = Letter("N_H")
#: K, the causal convolution's taps, for the cell's page.
CONV_K = Letter("K")


@register(
    "SLSTM",
    options=("num_heads", "conv1d_kernel_size", "group_norm_weight"),
    title="sLSTM (xLSTM)",
    generic="slstm",
    source=(
        "Beck et al., xLSTM: Extended Long Short-Term Memory, arXiv:2405.04517 (2024), §2.2; "
        "xlstm/blocks/slstm/layer.py and cell.py (xlstm 2.0.6)"
    ),
    page_options={"num_heads": NUM_HEADS, "conv1d_kernel_size": CONV_K},
)
@lru_cache(maxsize=4096)
def slstm(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = True,
    num_heads: Size = 4,
    conv1d_kernel_size: Size = 4,
    group_norm_weight: bool = True,
    numeric: bool = False,
) -> Cell:
    """sLSTM as ``xlstm``'s ``sLSTMLayer``: for each gate g of i, f, z, o,
    ``g~_t = W_g x_t + R_g h_{t-1} + b_g`` (i and f read the convolved input ``x^c_t``);
    ``i_t = exp(i~_t)``, ``f_t = sigma(f~_t)``, ``z_t = tanh(z~_t)``, ``o_t = sigma(o~_t)``;
    ``c_t = f_t c_{t-1} + i_t z_t``, ``n_t = f_t n_{t-1} + i_t``, ``h_t = o_t c_t / n_t``;
    the layer's output ``y_t = gamma * GN(h_t)``.

    ``R_g`` (H, H) is block-diagonal, one (H/N_H, H/N_H) block per head (the paper's heads:
    memory mixing within a head only), and so is ``W_g`` (H, I), head-wise as ``xlstm`` builds
    it (``LinearHeadwiseExpand``, no bias). The stabiliser state ``m_t`` (eqs. 15-17 of the
    paper; ``logsigmoid`` in xlstm's step) rescales ``i_t`` and ``f_t`` without changing
    ``h_t`` and has no parameters: it is left out. Per direction, with N = N_H and K taps,
    ``4H(I + H)/N + 4H·b + H·[gamma] + I(K + 1)·[K > 0]`` parameters.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H (xlstm's ``sLSTMLayer`` has one ``embedding_dim``: I = H). Symbolic sizes are
        taken to be multiples of ``num_heads``.
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`): ``b_g`` (xlstm's ``_bias_``,
        always there). The convolution's bias is kept under every policy.
    num_heads : int or sympy.Expr, default 4
        N_H (``sLSTMLayerConfig.num_heads``).
    conv1d_kernel_size : int or sympy.Expr, default 4
        K, the causal convolution's taps; 0 for none (``sLSTMLayerConfig.conv1d_kernel_size``).
    group_norm_weight : bool, default True
        The output group norm's gain ``gamma`` (H,) (``sLSTMLayerConfig.group_norm_weight``);
        it has no shift.
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"SLSTM"``, gate blocks i, f, z, o (xlstm's order in ``_recurrent_kernel_`` and
        ``_bias_``).

    Raises
    ------
    ValueError
        An int ``hidden_size`` or ``input_size`` that ``num_heads`` does not divide (worded as
        xlstm's checks).

    Examples
    --------
    >>> slstm(8, 8, num_heads=2).count
    336
    >>> slstm(8, 8, num_heads=2, conv1d_kernel_size=0, group_norm_weight=False).count
    288
    """
    check_heads(num_heads, hidden_size=hidden_size, input_size=input_size)
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    c_prev = eq.state("c_{t-1}", hidden_size)
    n_prev = eq.state("n_{t-1}", hidden_size)
    x_conv = causal_conv(eq, eq.x, input_size, conv1d_kernel_size, "x^c_t")
    gates = {}
    for gate, function, source in (
        ("i", sympy.exp, x_conv),
        ("f", sigma, x_conv),
        ("z", sympy.tanh, eq.x),
        ("o", sigma, eq.x),
    ):
        w = eq.weight("ih", gate, f"{gate}", hidden_size, input_size, groups=num_heads)
        r = eq.weight("hh", gate, gate, hidden_size, hidden_size, groups=num_heads, name=f"R_{{{gate}}}")
        terms = [matmul(w, source), matmul(r, eq.h)]
        if eq.bias != "none":
            terms.append(eq.bias_vector("hh", gate, gate))
        gates[gate] = eq.let(f"{gate}_t", elementwise(function, add(*terms)))
    c = eq.let("c_t", add(odot(gates["f"], c_prev), odot(gates["i"], gates["z"])))
    n = eq.let("n_t", add(odot(gates["f"], n_prev), gates["i"]))
    h = eq.let("h_t", odot(gates["o"], c, reciprocal(n)))
    normed = elementwise(GN, h)
    if group_norm_weight:
        normed = odot(eq.vector("gain", "norm", None, r"\gamma"), normed)
    eq.let("y_t", normed)
    return eq.cell("SLSTM", ("i", "f", "z", "o"))
