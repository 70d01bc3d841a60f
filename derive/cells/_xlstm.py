"""What xLSTM's two cells share: head divisibility, the causal convolution, the element-wise functions.

As ``xlstm`` (2.0.6) builds them: ``xlstm/components/conv.py`` (``CausalConv1d``, a depthwise
``nn.Conv1d`` of ``kernel_size`` taps with a bias, none when ``kernel_size`` is 0) and
``xlstm/components/linear_headwise.py`` (``LinearHeadwiseExpand``, a block-diagonal weight).
"""

from __future__ import annotations

from typing import Any

from .._sympy import function as _sympy_function
from .._sympy import sympy
from ..engine.equations import Equations, add, elementwise, matmul
from ..engine.symbols import Size

__all__ = ["SiLU", "GN", "maxabs1", "multiple", "check_heads", "causal_conv"]

#: ``SiLU(v) = v * sigma(v)`` (swish), element-wise.
SiLU = _sympy_function("SiLU")
#: The group norm over heads without its gain (``MultiHeadLayerNorm``: ``F.group_norm`` with one
#: group per head), element-wise notation.
GN = _sympy_function("GN")
#: ``max(|v|, 1)``, the mLSTM's lower bound of its normaliser (no parameters).
maxabs1 = _sympy_function("maxabs1")


def multiple(size: Size, of: Size) -> bool:
    """Whether ``size`` is a multiple of ``of``: exact for ints, assumed (True) for symbolic sizes.

    Parameters
    ----------
    size, of : int or sympy.Expr

    Returns
    -------
    bool

    Examples
    --------
    >>> multiple(8, 4), multiple(6, 4)
    (True, False)
    """
    if isinstance(size, int) and isinstance(of, int):
        return size % of == 0
    return True


def check_heads(num_heads: Size, **sizes: Size) -> None:
    """Refuse int sizes that ``num_heads`` does not divide, as ``xlstm`` does.

    Parameters
    ----------
    num_heads : int or sympy.Expr
    **sizes : int or sympy.Expr
        The widths split into heads, by name (``hidden_size=...``, ``input_size=...``).

    Raises
    ------
    ValueError
        ``num_heads`` < 1, or an int size that is not a multiple of it (worded as
        ``sLSTMCellBase.__init__``'s check, ``xlstm/blocks/slstm/cell.py``, and
        ``LinearHeadwiseExpandConfig.__post_init__``'s assert,
        ``xlstm/components/linear_headwise.py``).
    """
    if isinstance(num_heads, bool) or not isinstance(num_heads, (int, sympy.Expr)):
        raise TypeError(f"num_heads should be an int or a SymPy expression, got: {type(num_heads).__name__}")
    if isinstance(num_heads, int) and num_heads < 1:
        raise ValueError(f"num_heads must be >= 1, got {num_heads}")
    for name, size in sizes.items():
        if not multiple(size, num_heads):
            if name == "hidden_size":
                raise ValueError(f"Hidden Size {size} must be divisible by head num {num_heads}")
            raise ValueError(f"{name} ({size}): in_features must be a multiple of num_heads ({num_heads})")


def causal_conv(eq: Equations, source: Any, width: Size, kernel_size: Size, name: str) -> Any:
    """``SiLU(W_{conv} X_t + b_{conv})``: ``xlstm``'s depthwise causal convolution and its activation.

    ``X_t`` is the window of the last ``kernel_size`` values of ``source`` (a state: xlstm's
    ``conv_state``), feature by feature; ``W_{conv}`` (width, K·width) is block-diagonal, one
    (1, K) block per feature (``groups`` = width), presented as torch's ``Conv1d`` weight
    (width, 1, K); ``b_{conv}`` (width,). Returns ``source`` unchanged when ``kernel_size`` is 0.

    Parameters
    ----------
    eq : Equations
    source : sympy.MatrixExpr or Block
        The convolved sequence's value at t, (width, 1).
    width : int or sympy.Expr
    kernel_size : int or sympy.Expr
        K, 0 for no convolution.
    name : str
        LaTeX name of the result.

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    if kernel_size == 0:
        return source
    window = eq.state(r"X^{conv}_t", kernel_size * width)
    w = eq.weight("conv", None, "conv", width, kernel_size * width, (kernel_size,), groups=width)
    b = eq.vector("bias", "conv", None, r"b_{conv}", rows=width)
    return eq.let(name, elementwise(SiLU, add(matmul(w, window), b)))
