"""ConvLSTM: the LSTM with every matrix product replaced by a convolution.

X. Shi et al., "Convolutional LSTM Network: A Machine Learning Approach for Precipitation
Nowcasting", NeurIPS 2015 (arXiv:1506.04214).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, odot, sigma
from ..engine.symbols import Size, product
from ..tree import Letter
from . import register

__all__ = ["conv_lstm"]


@register(
    "CONVLSTM",
    options=("kernel_size",),
    title="ConvLSTM",
    generic="convlstm",
    source="Shi et al., NeurIPS 2015 (arXiv:1506.04214); keras/src/layers/rnn/conv_lstm.py",
    page_options={
        "kernel_size": (
            Letter("k_1"),
            Letter("k_2"),
        )
    },
)
@lru_cache(maxsize=4096)
def conv_lstm(
    channels: Size, filters: Size, kernel_size: tuple[Size, ...], bias: bool | str = True, numeric: bool = False
) -> Cell:
    """Convolutional LSTM (ConvLSTM): the LSTM with every matrix product replaced by a convolution.

    X. Shi et al., "Convolutional LSTM Network: A Machine Learning Approach for Precipitation
    Nowcasting", NeurIPS 2015 (arXiv:1506.04214), eq. (3), without the peephole terms
    ``W_c ∘ C_{t-1}`` — as Keras implements it (``keras/src/layers/rnn/conv_lstm.py``).

    A convolution whose kernel has K = k_1···k_n taps over C channels computes, at each output
    position, the product of an (F, K·C) weight with the unfolded K·C patch of the input at that
    position (im2col). The equations are written for one position with those products:
    ``\\mathcal{X}_t`` (K·C rows) is the unfolded input patch and ``\\mathcal{H}_{t-1}`` (K·F rows)
    the unfolded patch of the previous hidden state; ``c_{t-1}``, the gates and ``h_t`` are the
    F channels at that position. So the weights are ``W_{i·}`` (F, K·C) and ``W_{h·}`` (F, K·F),
    each carrying ``kernel_size`` so that a convention can present it as a convolution kernel.
    Strides, padding and dilation move the patches; they do not change the weights.

    Parameters
    ----------
    channels : int or sympy.Expr
        C, channels of the input at one time step.
    filters : int or sympy.Expr
        F, channels of the hidden and cell state.
    kernel_size : tuple of int or sympy.Expr
        (k_1, ..., k_n), the convolution kernel's spatial size, n = 1, 2 or 3.
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"CONVLSTM"``, gates i, f, g, o as :func:`lstm`; the gate blocks hold
        4F(K(C + F) + b) parameters with b = 1 under a merged bias policy, 2 with two biases.
    """
    kernel_size = tuple(kernel_size)
    taps = product(kernel_size)
    eq = Equations(
        taps * channels,
        filters,
        taps * filters,
        bias,
        x_name=r"\mathcal{X}_t",
        h_name=r"\mathcal{H}_{t-1}",
        kernel_size=kernel_size,
        numeric=numeric,
    )
    c_prev = eq.state("c_{t-1}", filters)
    i = eq.let("i_t", elementwise(sigma, eq.pre_activation("i")))
    f = eq.let("f_t", elementwise(sigma, eq.pre_activation("f")))
    g = eq.let("g_t", elementwise(sympy.tanh, eq.pre_activation("g")))
    o = eq.let("o_t", elementwise(sigma, eq.pre_activation("o")))
    c = eq.let("c_t", add(odot(f, c_prev), odot(i, g)))
    eq.let("h_t", odot(o, elementwise(sympy.tanh, c)))
    return eq.cell("CONVLSTM", ("i", "f", "g", "o"))
