"""mLSTM: xLSTM's matrix-memory LSTM with a covariance update rule (Beck et al. 2024).

M. Beck et al., "xLSTM: Extended Long Short-Term Memory", NeurIPS 2024 (arXiv:2405.04517),
section 2.3 (the mLSTM's equations: matrix memory ``C_t``, normaliser ``n_t``, query, key and
value, scalar exponential input and forget gates per head) and the mLSTM block of its appendix;
as ``xlstm`` (2.0.6) builds its ``mLSTMLayer`` (``xlstm/blocks/mlstm/layer.py``,
``mLSTMLayer.__init__`` and ``forward``; ``xlstm/blocks/mlstm/cell.py``, ``mLSTMCell``;
``xlstm/utils.py``, ``UpProjConfigMixin._set_proj_up_dim``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from .._sympy import sympy
from ..engine.equations import (
    Cell,
    Equations,
    add,
    elementwise,
    matmul,
    odot,
    reciprocal,
    sigma,
    sqrt,
    transpose,
    vstack,
)
from ..engine.symbols import Size
from ..tree import Letter
from . import register
from ._xlstm import GN, SiLU, causal_conv, maxabs1, multiple

__all__ = ["mlstm", "inner_size"]

#: N_H, the number of heads, for the cell's page.
NUM_HEADS = Letter("N_H")
#: K, the causal convolution's taps, for the cell's page.
CONV_K = Letter("K")
#: The up-projection factor, for the cell's page.
PROJ_FACTOR = Letter("p", integer=False)
#: The head-wise q, k, v projections' block size, for the cell's page.
BLOCKSIZE = Letter("B")


def inner_size(
    hidden_size: Size,
    proj_factor: float | Size = 2.0,
    round_proj_up_dim_up: bool = True,
    round_proj_up_to_multiple_of: int = 64,
) -> Size:
    """D, the mLSTM's inner width: ``proj_factor`` times the embedding, rounded to a multiple.

    For an int ``hidden_size`` exactly as ``UpProjConfigMixin._set_proj_up_dim``
    (``xlstm/utils.py``) computes it, in floating point: ``ceil`` (or ``floor``) of
    ``proj_factor·E / m``, times m. For a symbolic one, ``proj_factor·E``, taken to be a
    multiple of m already (the rounding is then the identity).

    Parameters
    ----------
    hidden_size : int or sympy.Expr
        E, ``embedding_dim``.
    proj_factor : float, int or sympy.Expr, default 2.0
    round_proj_up_dim_up : bool, default True
    round_proj_up_to_multiple_of : int, default 64

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> inner_size(8), inner_size(100, 1.3), inner_size(100, 1.3, False)
    (64, 192, 128)
    """
    if isinstance(hidden_size, int) and isinstance(proj_factor, (int, float)):
        multiplier = proj_factor * hidden_size / round_proj_up_to_multiple_of
        multiplier = math.ceil(multiplier) if round_proj_up_dim_up else math.floor(multiplier)
        return int(multiplier * round_proj_up_to_multiple_of)
    factor = sympy.Rational(repr(proj_factor)) if isinstance(proj_factor, float) else proj_factor
    return factor * hidden_size


@register(
    "MLSTM",
    options=(
        "num_heads",
        "conv1d_kernel_size",
        "qkv_proj_blocksize",
        "proj_factor",
        "round_proj_up_dim_up",
        "round_proj_up_to_multiple_of",
    ),
    title="mLSTM (xLSTM)",
    generic="mlstm",
    source=(
        "Beck et al., xLSTM: Extended Long Short-Term Memory, arXiv:2405.04517 (2024), §2.3; "
        "xlstm/blocks/mlstm/layer.py and cell.py (xlstm 2.0.6)"
    ),
    page_options={
        "num_heads": NUM_HEADS,
        "conv1d_kernel_size": CONV_K,
        "qkv_proj_blocksize": BLOCKSIZE,
        "proj_factor": PROJ_FACTOR,
    },
)
@lru_cache(maxsize=4096)
def mlstm(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = False,
    num_heads: Size = 4,
    conv1d_kernel_size: Size = 4,
    qkv_proj_blocksize: Size = 4,
    proj_factor: float | Size = 2.0,
    round_proj_up_dim_up: bool = True,
    round_proj_up_to_multiple_of: int = 64,
    numeric: bool = False,
) -> Cell:
    """mLSTM as ``xlstm``'s ``mLSTMLayer``, on an inner width D (:func:`inner_size` of H).

    ``[x^m_t; z_t] = W_{up} x_t``; ``x^c_t = SiLU(conv(x^m))``; ``q_t = W_q x^c_t``,
    ``k_t = W_k x^c_t``, ``v_t = W_v x^m_t`` (head-wise, blocks of ``qkv_proj_blocksize``);
    ``i_t = exp(W_i [q; k; v] + b_i)``, ``f_t = sigma(W_f [q; k; v] + b_f)``, one scalar of
    each per head; per head h of d = D/N_H features, ``C_t = f C_{t-1} + i v k^T / sqrt(d)``,
    ``n_t = f n_{t-1} + i k / sqrt(d)``, ``h~_t = C_t q_t / max(|n_t^T q_t|, 1)``; then
    ``h_t = (gamma * GN(h~_t) + s * x^c_t) * SiLU(z_t)`` (``s`` is ``learnable_skip``) and
    ``y_t = W_{down} h_t``, back to H. The paper's output gate is ``SiLU(z_t)`` here, as in its
    mLSTM block. The stabiliser ``m_t`` has no parameters and is left out.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        I and H = ``embedding_dim`` (xlstm's layer has one: I = H).
    bias : bool or str, default False
        ``mLSTMLayerConfig.bias``: biases of ``proj_up``, the q, k, v projections and
        ``proj_down``; the gates' ``b_i``, ``b_f`` and the convolution's bias are always there.
    num_heads : int or sympy.Expr, default 4
        N_H, heads of the matrix memory (``mLSTMLayerConfig.num_heads``).
    conv1d_kernel_size : int or sympy.Expr, default 4
        K, 0 for no convolution.
    qkv_proj_blocksize : int or sympy.Expr, default 4
        The q, k, v projections have ``D // qkv_proj_blocksize`` blocks.
    proj_factor, round_proj_up_dim_up, round_proj_up_to_multiple_of
        D (see :func:`inner_size`).
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"MLSTM"``, gate blocks m, z (of ``proj_up``), q, k, v, i, f.

    Raises
    ------
    ValueError
        An int D that the q, k, v blocks or the heads do not divide (xlstm's
        ``LinearHeadwiseExpandConfig`` assert; ``num_heads``: xlstm builds the layer but its
        ``forward`` cannot split D into heads).

    Examples
    --------
    >>> mlstm(8, 8, num_heads=2).count
    3524
    """
    d_inner = inner_size(hidden_size, proj_factor, round_proj_up_dim_up, round_proj_up_to_multiple_of)
    blocks = d_inner // qkv_proj_blocksize if isinstance(d_inner, int) else d_inner / qkv_proj_blocksize
    if isinstance(blocks, int) and (blocks < 1 or not multiple(d_inner, blocks)):
        raise ValueError(
            f"in_features ({d_inner}) must be a multiple of num_heads ({blocks} = D // qkv_proj_blocksize) "
            "and num_heads must be >= 1"
        )
    if not multiple(d_inner, num_heads):
        raise ValueError(f"num_heads ({num_heads}) must divide the inner embedding dim ({d_inner})")
    eq = Equations(input_size, hidden_size, hidden_size, bias, numeric=numeric)
    with_bias = eq.bias != "none"

    def linear(
        gate: str, label: str, rows: Size, source: Any, groups: Size | None = None, biased: bool = with_bias
    ) -> Any:
        w = eq.weight("proj", gate, label, rows, source.shape[0], groups=groups)
        if not biased:
            return matmul(w, source)
        return add(matmul(w, source), eq.vector("bias", "proj", gate, f"b_{{{label}}}", rows=rows))

    x_m = eq.let("x^m_t", linear("m", "up,m", d_inner, eq.x))
    z = eq.let("z_t", linear("z", "up,z", d_inner, eq.x))
    x_c = causal_conv(eq, x_m, d_inner, conv1d_kernel_size, "x^c_t")
    q = eq.let("q_t", linear("q", "q", d_inner, x_c, blocks))
    k = eq.let("k_t", linear("k", "k", d_inner, x_c, blocks))
    v = eq.let("v_t", linear("v", "v", d_inner, x_m, blocks))
    qkv = vstack(q, k, v)
    eq.let("i_t", elementwise(sympy.exp, linear("i", "i", num_heads, qkv, biased=True)))
    eq.let("f_t", elementwise(sigma, linear("f", "f", num_heads, qkv, biased=True)))
    d = d_inner // num_heads if isinstance(d_inner, int) and isinstance(num_heads, int) else d_inner / num_heads
    i_h, f_h = (eq.scalar(f"{g}^{{(h)}}_t") for g in ("i", "f"))
    q_h, k_h, v_h = (eq.matrix(f"{g}^{{(h)}}_t", d) for g in ("q", "k", "v"))
    scale = 1 / sqrt(eq.scalar("d", positive=True))  # d = D / N_H, the head's width
    c_prev = eq.state("C^{(h)}_{t-1}", d, d)  # the matrix memory of head h
    n_prev = eq.state("n^{(h)}_{t-1}", d)
    c_new = eq.let(
        "C^{(h)}_t",
        add(matmul(f_h, c_prev), matmul(i_h * scale, v_h, transpose(k_h))),
        times=num_heads,
    )
    n_new = eq.let("n^{(h)}_t", add(matmul(f_h, n_prev), matmul(i_h * scale, k_h)), times=num_heads)
    bound = reciprocal(elementwise(maxabs1, matmul(transpose(n_new), q_h)))
    eq.let(r"\tilde{h}^{(h)}_t", matmul(c_new, q_h, bound), times=num_heads)
    h_tilde = eq.matrix(r"\tilde{h}_t", d_inner)
    gamma = eq.vector("gain", "norm", None, r"\gamma", rows=d_inner)
    skip = eq.vector("gain", "skip", None, "s", rows=d_inner)
    h = eq.let("h_t", odot(add(odot(gamma, elementwise(GN, h_tilde)), odot(skip, x_c)), elementwise(SiLU, z)))
    eq.let("y_t", linear("y", "down", hidden_size, h))
    return eq.cell("MLSTM", ("m", "z", "q", "k", "v", "i", "f", "y"))
