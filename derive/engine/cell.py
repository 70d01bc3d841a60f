"""What a cell is: its parameters (:class:`Parameter`) and its equations (:class:`Cell`), and the bias policies.

A cell is built by its module of :mod:`derive.cells` with :class:`derive.engine.equations.Equations`,
in the symbolic mode (SymPy matrices) or the shape-only mode (:class:`derive.engine.algebra.Block`,
every size an int); the two hold the same parameters with the same shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._sympy import sympy
from .symbols import Size

__all__ = ["Parameter", "Cell", "BIAS_POLICIES", "bias_policy"]


@dataclass(frozen=True)
class Parameter:
    """One trainable weight matrix or bias vector of a cell.

    Attributes
    ----------
    symbol : sympy.MatrixSymbol or derive.engine.algebra.Block
        The symbol as it appears in the equations; ``symbol.shape`` is (rows, columns),
        a bias is a column vector (rows, 1). A :class:`~derive.engine.algebra.Block` (int shape,
        no SymPy) in the shape-only mode.
    kind : {"weight", "bias", "peephole", "gain"}
        ``"peephole"``: a diagonal weight from a state (the cell state's peepholes, IndRNN's
        recurrent weight), stored as its diagonal, a column vector (H, 1) like a bias;
        ``"gain"``: a LayerNorm's gain or shift, a vector.
    group : str
        Which connection it belongs to: ``"ih"`` input to hidden, ``"hh"`` hidden to hidden,
        ``"hr"`` the LSTM projection, ``"c"`` cell state to gate (peepholes). Conventions use
        (kind, group) to lay parameters out in framework tensors.
    gate : str or None
        The gate block it feeds (``"i"``, ``"f"``, ``"g"``, ``"o"`` for the LSTM; ``"r"``,
        ``"z"``, ``"n"`` for the GRU; ``"f"``, ``"n"`` for the MGU; ``"h"`` for the Elman RNN),
        or None (projection).
    kernel_size : tuple
        Empty for a dense weight. For a convolution weight (ConvLSTM) the kernel's spatial
        size (k_1, ..., k_n): the symbol is then the (F, K·C) matrix, K = k_1···k_n, that
        multiplies an unfolded K·C patch (im2col), and a convention may present it as a
        convolution kernel, e.g. (k_1, ..., k_n, C, F).
    groups : int, sympy.Expr or None
        None for a dense weight. G (1 included): the weight is block-diagonal, G blocks of (rows/G, cols/G)
        on its diagonal and zeros elsewhere, which are not parameters (xLSTM's head-wise
        projections and per-head recurrent matrices; a depthwise convolution, one block per
        channel); the symbol keeps the full (rows, cols) shape, so that the equations read as
        products with the whole vector, and :attr:`numel` counts the blocks only.
    """

    symbol: Any
    kind: str
    group: str
    gate: str | None
    kernel_size: tuple[Size, ...] = ()
    groups: Size | None = None

    @property
    def shape(self) -> tuple[Size, Size]:
        """(rows, columns) of the symbol; a bias has one column."""
        rows, cols = self.symbol.shape
        return rows, cols

    @property
    def numel(self) -> Size:
        """Number of scalar parameters: rows x columns (divided by :attr:`groups`, the blocks only);
        an int in the shape-only mode."""
        rows, cols = self.symbol.shape
        if self.groups is None:
            return rows * cols
        if type(rows) is int and type(cols) is int and type(self.groups) is int:
            return rows * cols // self.groups
        return rows * cols / self.groups


@dataclass(frozen=True)
class Cell:
    """A recurrent cell: its update equations and the parameters derived from them.

    Attributes
    ----------
    name : str
        ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"`` (PyTorch's mode names).
    gates : tuple of str
        Gate blocks in the order PyTorch stacks them in ``weight_ih``/``weight_hh``.
    equations : tuple of (MatrixSymbol, MatrixExpr)
        ``(lhs, rhs)`` pairs, in the order they are computed at one time step (blocks in the
        shape-only mode).
    inputs : tuple of MatrixSymbol
        What the step reads: ``x_t`` and the previous states.
    output : MatrixSymbol
        The new hidden state ``h_t`` (what the next layer reads).
    parameters : tuple of Parameter
        The weights and biases appearing in ``equations``, in order of declaration.
    repeats : tuple of (MatrixSymbol, int or sympy.Expr)
        Equations computed once per head, written for one head h (the mLSTM's matrix memory):
        their left-hand side and how many times the step computes them; every other equation
        is computed once.
    """

    name: str
    gates: tuple[str, ...]
    equations: tuple[tuple[Any, Any], ...]
    inputs: tuple[Any, ...]
    output: Any
    parameters: tuple[Parameter, ...]
    repeats: tuple[tuple[Any, Size], ...] = ()

    def times(self, lhs: Any) -> Size:
        """How many times one step computes the equation of ``lhs`` (1, or the heads of :attr:`repeats`).

        Parameters
        ----------
        lhs : sympy.MatrixSymbol
            The left-hand side of one of the cell's equations.

        Returns
        -------
        int or sympy.Expr
        """
        return dict(self.repeats).get(lhs, 1)

    @property
    def count(self) -> Size:
        """Scalar parameters of one cell: the sum of its parameters' sizes (a ``sympy.Integer`` for
        a symbolic-mode cell of int sizes, an int in the shape-only mode)."""
        sizes = [p.numel for p in self.parameters]
        if all(type(n) is int for n in sizes):
            return sum(sizes)
        return sympy.Add(*sizes)

    @property
    def input_size(self) -> Size:
        """Rows of ``x_t``."""
        return self.inputs[0].shape[0]

    @property
    def output_size(self) -> Size:
        """Rows of ``h_t``: ``hidden_size``, or ``proj_size`` for a projected LSTM."""
        return self.output.shape[0]


#: Bias policies. ``"two"``: every linear map has its own bias (PyTorch, cuDNN, ONNX);
#: ``"none"``: no bias; ``"input"`` / ``"hidden"``: where an input-side and a hidden-side bias
#: would be added in the same sum they are one parameter, kept on that side (Keras, Flax, TF1);
#: ``"input_only"``: only input-side maps have a bias — as ``"input"``, except that a recurrent
#: product the reset gate multiplies (GRU ``reset_after``) has none (Flax nnx ``GRUCell``).
BIAS_POLICIES = ("two", "none", "input", "hidden", "input_only")


def bias_policy(bias: bool | str) -> str:
    """``True`` -> ``"two"``, ``False`` -> ``"none"``; a policy name is returned unchanged.

    Parameters
    ----------
    bias : bool or str
        A bias flag, or one of :data:`BIAS_POLICIES`.

    Returns
    -------
    str
        One of :data:`BIAS_POLICIES`.

    Raises
    ------
    ValueError
        Neither a bool nor a known policy name.
    """
    if bias is True or bias is False:
        return "two" if bias else "none"
    if bias not in BIAS_POLICIES:
        raise ValueError(f"bias must be a bool or one of {BIAS_POLICIES}, got {bias!r}")
    return bias
