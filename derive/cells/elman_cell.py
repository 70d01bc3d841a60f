"""Elman RNN: one tanh (or ReLU) layer fed back on itself.

J. L. Elman, "Finding structure in time", Cognitive Science 14 (1990) 179-211. PyTorch's
``nn.RNN`` (``torch/nn/modules/rnn.py``) is this cell with two bias vectors.
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, elementwise, relu
from ..engine.symbols import Size
from . import register

__all__ = ["elman"]


@register(
    "RNN_TANH",
    title="Elman RNN (tanh)",
    generic="rnn",
    source="J. L. Elman, Finding structure in time, Cognitive Science 14 (1990); torch/nn/modules/rnn.py (nn.RNN)",
    nonlinearity="tanh",
)
@register(
    "RNN_RELU",
    title="Elman RNN (ReLU)",
    source="J. L. Elman, Finding structure in time, Cognitive Science 14 (1990); torch/nn/modules/rnn.py (nn.RNN)",
    nonlinearity="relu",
)
@lru_cache(maxsize=4096)
def elman(
    input_size: Size, hidden_size: Size, bias: bool | str = True, nonlinearity: str = "tanh", numeric: bool = False
) -> Cell:
    """Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (or ReLU).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        Rows of ``x_t`` and of ``h_t``.
    bias : bool or str
        Whether the two bias vectors ``b_ih``, ``b_hh`` are present, or a bias policy
        (see :data:`BIAS_POLICIES`).
    nonlinearity : {"tanh", "relu"}
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell

    Raises
    ------
    ValueError
        ``nonlinearity`` is not ``"tanh"`` or ``"relu"``.
    """
    if not isinstance(nonlinearity, str) or nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"Unknown nonlinearity {nonlinearity!r}. Select from 'tanh' or 'relu'.")
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    phi = {"tanh": sympy.tanh, "relu": relu}[nonlinearity]
    eq.let("h_t", elementwise(phi, eq.pre_activation("h")))
    return eq.cell("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", ("h",))
