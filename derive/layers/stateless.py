"""Modules without parameters: activations, pooling, dropout, padding, reshaping, resampling, losses.

A module without tensors is still a module: it has a name in its parent and a row in a per-layer
table (with 0 parameters), and it is known as such, never "unknown". A few keep buffers (a loss's
class ``weight``); buffers are listed, never counted.

>>> relu = stateless("ReLU", name="act")
>>> relu.name, relu.type, relu.count
('act', 'ReLU', 0)
"""

from __future__ import annotations

from typing import Any

from ..tree import Dim, Module, Param

__all__ = ["stateless", "prelu"]


def stateless(
    type: str, *, name: str = "", output_shape: Any = None, buffers: tuple[tuple[str, tuple[Dim, ...]], ...] = ()
) -> Module:
    """A module of class ``type`` with no parameters.

    Parameters
    ----------
    type : str
        The class name (``"ReLU"``, ``"MaxPool2d"``, ``"Dropout"``).
    name : str
    output_shape : tuple, optional
        In the framework's notation, where the class changes it (pooling).
    buffers : tuple of (str, shape)
        Buffers it registers (listed, not counted).

    Returns
    -------
    derive.tree.Module
        No parameters.
    """
    params = tuple(Param(n, tuple(shape), buffer=True) for n, shape in buffers)
    return Module(name, type, params, output_shape=output_shape)


def prelu(num_parameters: Dim = 1, *, name: str = "") -> Module:
    """``nn.PReLU(num_parameters)``: one learnt slope per channel (or one for all), ``weight`` (n,).

    Source: ``torch/nn/modules/activation.py`` (``PReLU``).

    Parameters
    ----------
    num_parameters : int or sympy.Expr, default 1
    name : str

    Returns
    -------
    derive.tree.Module

    Examples
    --------
    >>> prelu(64).count
    64
    """
    return Module(name, "PReLU", (Param("weight", (num_parameters,)),))
