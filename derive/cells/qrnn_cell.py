"""QRNN: quasi-recurrent neural network, gates from a convolution over time (Bradbury et al. 2017).

J. Bradbury, S. Merity, C. Xiong, R. Socher, "Quasi-Recurrent Neural Networks", ICLR 2017
(arXiv:1611.01576), eqs. (1)-(4); the reference implementation is Salesforce's ``pytorch-qrnn``
(``torchqrnn/qrnn.py``, ``QRNNLayer.__init__``: one ``nn.Linear(window * input_size, G * hidden_size)``).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, odot, one_minus, sigma
from ..engine.symbols import Size
from ..tree import Letter
from . import register

__all__ = ["qrnn", "POOLINGS"]

#: The pooling variants of the paper (section 2): which gates the convolution computes.
POOLINGS = {"f": ("z", "f"), "fo": ("z", "f", "o"), "ifo": ("z", "f", "o", "i")}


@register(
    "QRNN",
    options=("window", "pooling"),
    title="Quasi-recurrent neural network (QRNN)",
    generic="qrnn",
    source="Bradbury et al., ICLR 2017 (arXiv:1611.01576), eqs. (1)-(4); torchqrnn/qrnn.py (QRNNLayer.__init__)",
    page_options={"window": Letter("k")},
)
@lru_cache(maxsize=4096)
def qrnn(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = True,
    window: Size = 2,
    pooling: str = "fo",
    numeric: bool = False,
) -> Cell:
    """QRNN with a masked convolution of width ``window`` k over time and ``pooling``.

    Each gate block is a convolution over the last k inputs, written as the product of a weight
    (H, k·I) with the stacked window ``X_t = [x_{t-k+1}; ...; x_t]`` (k·I rows):
    ``z_t = tanh(W_{iz} X_t + b_{iz})``, ``f_t = sigma(W_{if} X_t + b_{if})``,
    ``o_t = sigma(W_{io} X_t + b_{io})`` ("fo"), ``i_t`` likewise ("ifo"). Pooling:
    ``c_t = f_t * c_{t-1} + (1 - f_t) * z_t`` (f, fo) or ``f_t * c_{t-1} + i_t * z_t`` (ifo);
    ``h_t = o_t * c_t`` (fo, ifo) or ``h_t = c_t`` (f). No weight reads a state: per direction
    G·H(k·I + b) parameters, G = 2, 3 or 4.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`); one bias per gate block.
    window : int or sympy.Expr, default 2
        k, the convolution's width in time steps (the paper's experiments use 1 and 2).
    pooling : {"f", "fo", "ifo"}, default "fo"
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"QRNN"``, gate blocks z, f[, o[, i]].

    Raises
    ------
    ValueError
        Another ``pooling``.

    Examples
    --------
    >>> qrnn(4, 8, window=2).count
    216
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {pooling!r}")
    gates = POOLINGS[pooling]
    eq = Equations(window * input_size, hidden_size, hidden_size, bias, x_name="X_t", h_name="h_{t-1}", numeric=numeric)
    c_prev = eq.state("c_{t-1}", hidden_size)
    with_bias = eq.bias != "none"
    z = eq.let("z_t", elementwise(sympy.tanh, eq.linear("i", "z", with_bias)))
    f = eq.let("f_t", elementwise(sigma, eq.linear("i", "f", with_bias)))
    o = eq.let("o_t", elementwise(sigma, eq.linear("i", "o", with_bias))) if "o" in gates else None
    if "i" in gates:
        i = eq.let("i_t", elementwise(sigma, eq.linear("i", "i", with_bias)))
        c = eq.let("c_t", add(odot(f, c_prev), odot(i, z)))
    else:
        c = eq.let("c_t", add(odot(f, c_prev), odot(one_minus(f), z)))
    eq.let("h_t", c if o is None else odot(o, c))
    eq.inputs.remove(eq.h)  # h_{t-1} is not read: the recurrence is in c
    return eq.cell("QRNN", gates)
