"""SRU: simple recurrent unit, every matrix product on the input only (Lei et al. 2018).

T. Lei, Y. Zhang, S. I. Wang, H. Dai, Y. Artzi, "Simple Recurrent Units for Highly
Parallelizable Recurrence", EMNLP 2018 (arXiv:1709.02755), eqs. (3)-(7); as the ``sru`` package
(2.6.0, ``sru/modules.py``, ``SRUCell.__init__``) builds it: ``num_matrices`` = 4 when the
highway needs a projection of the input (its width differs from the layer's output), else 3.
"""

from __future__ import annotations

from functools import lru_cache

from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, one_minus, sigma
from ..engine.symbols import Size, equal
from . import register

__all__ = ["sru", "sru_matrices"]


def sru_matrices(input_size: Size, hidden_size: Size, num_directions: int = 1, has_skip_term: bool = True) -> int:
    """k, the number of (H, I) blocks of one direction's weight: 4 with a projected highway, else 3.

    The highway ``(1 - r_t) * x_t`` needs ``x_t`` as wide as the layer's output D·H; when it is
    not (provably: a symbolic I is taken to differ from D·H unless it is that expression),
    ``sru`` multiplies it by a fourth matrix (``SRUCell.__init__``: ``num_matrices = 4 if
    has_skip_term and input_size != output_size``).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    num_directions : int, default 1
    has_skip_term : bool, default True

    Returns
    -------
    int
    """
    same = equal(input_size, num_directions * hidden_size)
    return 4 if has_skip_term and not same else 3


@register(
    "SRU",
    options=("num_directions", "has_skip_term", "square_input"),
    title="Simple recurrent unit (SRU)",
    generic="sru",
    source="Lei et al., EMNLP 2018 (arXiv:1709.02755), eqs. (3)-(7); sru/modules.py (sru 2.6.0, SRUCell.__init__)",
)
@lru_cache(maxsize=4096)
def sru(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = True,
    num_directions: int = 1,
    has_skip_term: bool = True,
    square_input: bool = False,
    numeric: bool = False,
) -> Cell:
    """SRU: ``n_t = W_{in} x_t``, ``f_t = sigma(W_{if} x_t + v_f * c_{t-1} + b_f)``,
    ``r_t = sigma(W_{ir} x_t + v_r * c_{t-1} + b_r)``, ``c_t = f_t * c_{t-1} + (1 - f_t) * n_t``,
    ``h_t = r_t * c_t + (1 - r_t) * s_t``.

    The highway input ``s_t`` is ``x_t`` itself (this direction's H of its D·H features) when the
    input is as wide as the layer's output, else ``W_{is} x_t``; without ``has_skip_term``,
    ``h_t = r_t * c_t``. ``v_f``, ``v_r`` (H,) are diagonal weights from the cell state
    (``sru``'s ``weight_c``). Per direction k·H·I + 2H + 2H·b parameters (k from
    :func:`sru_matrices`).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`); ``b_f``, ``b_r``.
    num_directions : int, default 1
        D of the layer: decides whether the highway needs a projection.
    has_skip_term : bool, default True
    square_input : bool, default False
        The stack's input is as wide as a layer's output (I = D·H): no layer needs the fourth
        matrix. (A stack passes it so that a closed form derived with symbolic sizes, where I is
        taken to differ from D·H, is not applied to sizes where they are equal.)
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"SRU"``, gate blocks n, f, r[, s] (``sru``'s order of the weight's columns per unit).

    Examples
    --------
    >>> sru(3, 5).count, sru(5, 5).count
    (80, 95)
    """
    k = 3 if square_input else sru_matrices(input_size, hidden_size, num_directions, has_skip_term)
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    c_prev = eq.state("c_{t-1}", hidden_size)
    with_bias = eq.bias != "none"
    n = eq.let("n_t", eq.linear("i", "n", False))
    terms = {}
    for gate in ("f", "r"):
        v = eq.vector("peephole", "c", gate, f"v_{{{gate}}}")
        pre = add(eq.linear("i", gate, False), odot(v, c_prev))
        if with_bias:
            pre = add(pre, eq.bias_vector("ih", gate, gate))
        terms[gate] = eq.let(f"{gate}_t", elementwise(sigma, pre))
    f, r = terms["f"], terms["r"]
    c = eq.let("c_t", add(odot(f, c_prev), odot(one_minus(f), n)))
    if not has_skip_term:
        eq.let("h_t", odot(r, c))
    else:
        if k == 4:
            s = matmul(eq.weight("ih", "s", "is", hidden_size, input_size), eq.x)
        elif equal(input_size, hidden_size):
            s = eq.x
        else:  # x_t as wide as the layer's D·H outputs: this direction's H of them
            s = eq.matrix("x_t" if num_directions == 1 else "x^{(d)}_t", hidden_size)
        eq.let("h_t", add(odot(r, c), odot(one_minus(r), s)))
    return eq.cell("SRU", ("n", "f", "r", "s"))
