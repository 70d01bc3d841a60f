"""MGU: the minimal gated unit, a GRU with one gate.

G.-B. Zhou, J. Wu, C.-L. Zhang, Z.-H. Zhou, "Minimal gated unit for recurrent neural
networks", International Journal of Automation and Computing 13 (2016) (arXiv:1603.09420).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, odot, one_minus, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["mgu"]


@register(
    "MGU",
    options=("reset_after", "reset_gate"),
    title="Minimal gated unit (MGU)",
    generic="mgu",
    source="Zhou et al., Int. J. Automation and Computing 13 (2016) (arXiv:1603.09420); flax/linen/recurrent.py (MGUCell)",
)
@lru_cache(maxsize=4096)
def mgu(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = True,
    reset_after: bool = True,
    reset_gate: bool = True,
    numeric: bool = False,
) -> Cell:
    """Minimal gated unit (MGU): a GRU whose one forget gate ``f_t`` also plays the reset gate.

    ``f_t = sigma(W_{if} x_t + W_{hf} h_{t-1} + b)``; the candidate ``n_t`` is the GRU's with
    ``f_t`` as its reset gate (see :meth:`Equations.candidate`; ``reset_after`` as in
    :func:`derive.cells.gru`); ``h_t = (1 - f_t) * n_t + f_t * h_{t-1}``.

    Zhou et al. 2016 (arXiv:1603.09420, eq. (7)) reset the state before the product
    (``reset_after=False``) and write the update with the roles of ``f_t`` and ``1 - f_t``
    exchanged, ``h_t = (1 - f_t) * h_{t-1} + f_t * n_t``: the same parameters. The form above,
    with the reset after the product, is Flax's ``MGUCell`` (``flax/linen/recurrent.py``);
    its option ``reset_gate=False`` drops the reset: ``n_t = tanh(W_{in} x_t + W_{hn} h_{t-1} + b)``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    reset_after : bool, default True
    reset_gate : bool, default True
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"MGU"``, gates f, n.
    """
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    f = eq.let("f_t", elementwise(sigma, eq.pre_activation("f")))
    if reset_gate:
        n = eq.let("n_t", elementwise(sympy.tanh, eq.candidate("n", f, reset_after)))
    else:
        n = eq.let("n_t", elementwise(sympy.tanh, eq.pre_activation("n")))
    eq.let("h_t", add(odot(one_minus(f), n), odot(f, eq.h)))
    return eq.cell("MGU", ("f", "n"))
