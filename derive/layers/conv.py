"""Convolutions of any rank, grouped (depthwise) or not, and their transposes.

Sources: ``torch/nn/modules/conv.py`` (``_ConvNd``: ``weight`` (out_channels, in_channels / groups,
*kernel_size``), transposed (in_channels, out_channels / groups, *kernel_size), ``bias``
(out_channels,)); ``keras/src/layers/convolutional/base_conv.py`` (``kernel`` (*kernel_size,
input_channels / groups, filters)) and ``base_conv_transpose.py`` (``kernel`` (*kernel_size, filters,
input_channels)).

>>> conv(1536, 1536, (4,), groups=1536).count   # Mamba's depthwise conv1d (d_inner 1536, d_conv 4)
7680
"""

from __future__ import annotations

from typing import Any

from ..tree import Dim, Module, Param
from . import Spelling
from . import spelling as _spelling

__all__ = ["conv", "per_group", "conv_length"]


def per_group(channels: Dim, groups: Dim, argument: str) -> Dim:
    """``channels / groups``, exact: an int when both are, refused when it is not whole.

    Parameters
    ----------
    channels, groups : int or sympy.Expr
    argument : str
        The argument ``channels`` came from, for the message (torch's: ``"in_channels"``).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Int sizes that do not divide (``in_channels must be divisible by groups``, as torch).
    """
    if type(channels) is int and type(groups) is int:
        if channels % groups:
            raise ValueError(f"{argument} must be divisible by groups")
        return channels // groups
    if groups == 1:
        return channels
    return channels / groups


def conv(
    in_channels: Dim,
    out_channels: Dim,
    kernel_size: tuple[Dim, ...],
    *,
    groups: Dim = 1,
    bias: bool = True,
    transposed: bool = False,
    name: str = "",
    spelling: str | Spelling = "torch",
    type: str | None = None,
) -> Module:
    """A convolution over ``len(kernel_size)`` spatial axes.

    Parameters
    ----------
    in_channels, out_channels : int or sympy.Expr
        C and F (Keras ``filters``).
    kernel_size : tuple of int or sympy.Expr
        One size per spatial axis.
    groups : int or sympy.Expr, default 1
        Blocks of channels convolved separately (``groups = in_channels``: depthwise).
    bias : bool, default True
    transposed : bool, default False
        A transposed convolution (``ConvTranspose{n}d``, ``Conv{n}DTranspose``).
    name : str
    spelling : str or Spelling, default "torch"
    type : str, optional
        The class name (default ``Conv{n}d`` / ``Conv{n}D``, with ``Transpose`` when transposed).

    Returns
    -------
    derive.tree.Module
        F·(C/groups)·K + F parameters, K the product of the kernel's sizes.

    Raises
    ------
    ValueError
        Channels not divisible by ``groups``.
    """
    s = _spelling(spelling)
    kernel = tuple(kernel_size)
    n = len(kernel)
    if s.transposed:
        shape = (
            (*kernel, out_channels, per_group(in_channels, groups, "in_channels"))
            if transposed
            else (
                *kernel,
                per_group(in_channels, groups, "in_channels"),
                out_channels,
            )
        )
        tensor, default = "kernel", f"Conv{n}DTranspose" if transposed else f"Conv{n}D"
    else:
        if transposed:
            shape = (in_channels, per_group(out_channels, groups, "out_channels"), *kernel)
        else:
            per_group(out_channels, groups, "out_channels")
            shape = (out_channels, per_group(in_channels, groups, "in_channels"), *kernel)
        tensor, default = "weight", f"ConvTranspose{n}d" if transposed else f"Conv{n}d"
    params: tuple[Param, ...] = (Param(tensor, shape),)
    if bias:
        params += (Param("bias", (out_channels,)),)
    return Module(name, type or default, params, sep=s.sep)


def conv_length(length: Any, kernel: Any, stride: Any, padding: Any, dilation: Any = 1) -> Any:
    """Output length of a convolution or pooling along one axis (None when unknown).

    Sources: ``keras/src/ops/operation_utils.py`` (``compute_conv_output_shape``: ``"valid"``
    (n - d(k - 1) - 1) // s + 1, ``"same"`` / ``"causal"`` ceil(n / s)); ``torch/nn/modules/conv.py``
    (explicit zero padding p on each side: (n + 2p - d(k - 1) - 1) // s + 1).

    Parameters
    ----------
    length : int, sympy.Expr or None
        Input length.
    kernel, stride, dilation : int
    padding : {"valid", "same", "causal"} or int
        Keras' names, or torch's explicit zero padding on each side.

    Returns
    -------
    int, sympy.Expr or None
        None when ``length`` is unknown or a kernel, stride or dilation is not an int.

    Examples
    --------
    >>> conv_length(100, 3, 1, "valid"), conv_length(100, 3, 2, "same"), conv_length(None, 3, 1, "valid")
    (98, 50, None)
    """
    if length is None or not all(isinstance(v, int) for v in (kernel, stride, dilation)):
        return None
    if padding in ("same", "causal"):
        if isinstance(length, int):
            return -(-length // stride)
        import sympy

        return sympy.ceiling(length / stride)
    span = dilation * (kernel - 1) + 1
    pad = 2 * padding if isinstance(padding, int) else 0
    result = (length + pad - span) // stride + 1
    return int(result) if getattr(result, "is_Integer", False) else result
