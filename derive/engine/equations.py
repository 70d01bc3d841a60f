"""The language cells are written in: matrix equations, symbolic or shape-only.

A cell is a list of equations ``lhs = rhs`` over matrices: weights are matrices of shape (rows,
columns), biases and states are column vectors. Nothing here states a parameter count: the
parameters of a cell are the weight and bias symbols that *appear* in its equations, and their
shapes are checked for conformance (every sum, product and element-wise product must have matching
dimensions) when the cell is built.

:class:`Equations` builds a cell in one of two modes (see :mod:`derive.engine.algebra`): with SymPy
matrix symbols (the default: the equations can be printed, sizes may be letters), or, with
``numeric=True`` and int sizes, with shapes only -- the same parameters, declared and checked with
Python ints, no SymPy object made. A cell module writes its equations once with the helpers of
:mod:`derive.engine.algebra` (re-exported here) and serves both.

The notation follows the PyTorch documentation (``torch/nn/modules/rnn.py``),
which is the field's: ``W_{ii}`` is the weight from the input to the input gate,
``W_{hf}`` from the hidden state to the forget gate, and so on. The cells
themselves, one module each, are in :mod:`derive.cells`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._sympy import sympy
from .algebra import (
    Block,
    Scalar,
    ShapeError,
    add,
    bracket,
    check_conformance,
    elementwise,
    matmul,
    odot,
    one_minus,
    reciprocal,
    relu,
    sigma,
    sqrt,
    transpose,
    vstack,
)
from .cell import BIAS_POLICIES, Cell, Parameter, bias_policy
from .symbols import Size

__all__ = [
    "Parameter",
    "Cell",
    "ShapeError",
    "check_conformance",
    "Equations",
    "sigma",
    "relu",
    "elementwise",
    "add",
    "odot",
    "matmul",
    "one_minus",
    "reciprocal",
    "transpose",
    "vstack",
    "bracket",
    "sqrt",
    "BIAS_POLICIES",
    "bias_policy",
]


class Equations:
    """Collects a cell's equations and the parameters they introduce (what a cell module writes with).

    Parameters
    ----------
    input_size : int or sympy.Expr
        Rows of ``x_t``.
    hidden_size : int or sympy.Expr
        Rows of the gates and of every bias.
    state_size : int or sympy.Expr
        Rows of ``h_{t-1}`` (``proj_size`` for a projected LSTM, else ``hidden_size``).
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    x_name, h_name : str
        LaTeX names of the input and of the previous hidden state.
    kernel_size : tuple of int or sympy.Expr
        A convolution's spatial kernel size (ConvLSTM), empty for dense weights.
    numeric : bool, default False
        The shape-only mode: every matrix is a :class:`~derive.engine.algebra.Block` of int shape
        (all sizes must be ints); the cell's parameters are the same, no SymPy object is made.

    Raises
    ------
    TypeError
        A size that is neither an int nor a SymPy expression; ``numeric`` with a size that is not an int.
    """

    def __init__(
        self,
        input_size: Size,
        hidden_size: Size,
        state_size: Size,
        bias: bool | str,
        *,
        x_name: str = "x_t",
        h_name: str = "h_{t-1}",
        kernel_size: Sequence[Size] = (),
        numeric: bool = False,
    ) -> None:
        for name, size in (("input_size", input_size), ("hidden_size", hidden_size), ("state_size", state_size)):
            if isinstance(size, bool) or not isinstance(size, (int, sympy.Expr)):
                raise TypeError(f"{name} should be an int or a SymPy expression, got: {type(size).__name__}")
            if numeric and type(size) is not int:
                raise TypeError(f"{name} must be an int in the shape-only mode, got: {size}")
        self.numeric = numeric
        self.x = self.matrix(x_name, input_size)
        self.h = self.matrix(h_name, state_size)
        self.hidden_size = hidden_size
        self.kernel_size = tuple(kernel_size)
        self.bias = bias_policy(bias)
        self.inputs: list[Any] = [self.x, self.h]
        self.declared: list[Parameter] = []
        self.equations: list[tuple[Any, Any]] = []
        self.repeats: list[tuple[Any, Size]] = []

    def matrix(self, name: str, rows: Size, cols: Size = 1) -> Any:
        """A named matrix that is not a parameter (a per-head slice, a part of ``x_t``).

        Parameters
        ----------
        name : str
            Its LaTeX name.
        rows, cols : int or sympy.Expr

        Returns
        -------
        sympy.MatrixSymbol or Block
        """
        if self.numeric:
            return Block((rows, cols), name)
        return sympy.MatrixSymbol(name, rows, cols)

    def scalar(self, name: str, **assumptions: bool) -> Any:
        """A named scalar (a gate's value for one head, a head's width in a constant factor).

        Parameters
        ----------
        name : str
            Its LaTeX name.
        **assumptions
            SymPy assumptions (``positive=True``).

        Returns
        -------
        sympy.Symbol or Scalar
        """
        if self.numeric:
            return Scalar(name)
        return sympy.Symbol(name, **assumptions)

    def state(self, name: str, rows: Size, cols: Size = 1) -> Any:
        """Declare a further state the step reads (the LSTM's ``c_{t-1}``), a column vector by default.

        Parameters
        ----------
        name : str
            Its LaTeX name.
        rows : int or sympy.Expr
        cols : int or sympy.Expr, default 1
            More for a matrix memory (the mLSTM's ``C_{t-1}``).

        Returns
        -------
        sympy.MatrixSymbol or Block
        """
        state = self.matrix(name, rows, cols)
        self.inputs.append(state)
        return state

    def _declare(self, name: str, rows: Size, cols: Size, kind: str, group: str, gate: str | None, **more: Any) -> Any:
        symbol = Block((rows, cols), name) if self.numeric else sympy.MatrixSymbol(name, rows, cols)
        self.declared.append(Parameter(symbol, kind, group, gate, **more))
        return symbol

    def weight(
        self,
        group: str,
        gate: str | None,
        label: str,
        rows: Size,
        cols: Size,
        kernel_size: Sequence[Size] = (),
        groups: Size | None = None,
        name: str | None = None,
    ) -> Any:
        """Declare a weight matrix ``W_{label}`` (rows, cols).

        Parameters
        ----------
        group : str
            Its connection (see :class:`Parameter`).
        gate : str or None
            The gate block it feeds.
        label : str
            Its subscript.
        rows, cols : int or sympy.Expr
        kernel_size : tuple
            For a convolution weight (see :class:`Parameter`).
        groups : int or sympy.Expr, optional
            Blocks of a block-diagonal weight (see :class:`Parameter`); None for a dense one.
        name : str, optional
            Its LaTeX name, default ``W_{label}`` (xLSTM's recurrent ``R_{label}``).

        Returns
        -------
        sympy.MatrixSymbol or Block
        """
        return self._declare(
            name or f"W_{{{label}}}",
            rows,
            cols,
            "weight",
            group,
            gate,
            kernel_size=tuple(kernel_size),
            groups=groups,
        )

    def bias_vector(self, group: str, gate: str, label: str) -> Any:
        """Declare a bias vector ``b_{label}`` (hidden_size, 1).

        Parameters
        ----------
        group : str
            Its connection (see :class:`Parameter`).
        gate : str
            The gate block it feeds.
        label : str
            Its subscript.

        Returns
        -------
        sympy.MatrixSymbol or Block
        """
        return self._declare(f"b_{{{label}}}", self.hidden_size, 1, "bias", group, gate)

    def peephole(self, gate: str, cell_state: Any) -> Any:
        """``p_g * c``: the diagonal weight from the cell state to ``gate``, stored as its diagonal (H, 1).

        Parameters
        ----------
        gate : str
        cell_state : sympy.MatrixSymbol or Block
            ``c_{t-1}`` or ``c_t``.

        Returns
        -------
        sympy.MatrixExpr or Block
        """
        p = self._declare(f"p_{{{gate}}}", self.hidden_size, 1, "peephole", "c", gate)
        return odot(p, cell_state)

    def vector(self, kind: str, group: str, gate: str | None, name: str, rows: Size | None = None) -> Any:
        """Declare a parameter vector ``name`` (rows, 1): a diagonal weight (IndRNN's recurrent
        ``u``, SRU's ``v``; kind ``"peephole"``) or a LayerNorm gain or shift (kind ``"gain"``).

        Parameters
        ----------
        kind : {"peephole", "gain", "bias"}
        group : str
            Its connection (see :class:`Parameter`): ``"hh"`` from the hidden state, ``"c"`` from
            the cell state, ``"ln"`` a LayerNorm's.
        gate : str or None
            The gate block it belongs to.
        name : str
            Its LaTeX name.
        rows : int or sympy.Expr, optional
            Default ``hidden_size``.

        Returns
        -------
        sympy.MatrixSymbol or Block
        """
        return self._declare(name, self.hidden_size if rows is None else rows, 1, kind, group, gate)

    def linear(self, source: str, gate: str, bias: bool = True) -> Any:
        """``W_{source gate} v + b_{source gate}`` with v = x_t (source "i") or h_{t-1} (source "h").

        The bias is left out under the ``"none"`` policy, on the hidden side under ``"input_only"``,
        or when ``bias`` is False.

        Parameters
        ----------
        source : {"i", "h"}
        gate : str
        bias : bool, default True

        Returns
        -------
        sympy.MatrixExpr or Block
        """
        v = self.x if source == "i" else self.h
        label = f"{source}{gate}"
        w = self.weight(f"{source}h", gate, label, self.hidden_size, v.shape[0], self.kernel_size)
        biased = not (self.bias == "none" or not bias or (self.bias == "input_only" and source == "h"))
        b = self.bias_vector(f"{source}h", gate, label) if biased else None
        if self.numeric:  # (hidden_size, 1): W has v's rows as its columns, b hidden_size rows, by construction
            return Block((self.hidden_size, 1))
        return matmul(w, v) if b is None else add(matmul(w, v), b)

    def pre_activation(self, gate: str, peephole: Any = None) -> Any:
        """``W_{i g} x_t + b_{i g} + W_{h g} h_{t-1} + b_{h g}``; under a merged bias policy the
        two biases, which are only ever added together, are one vector ``b_g``. With a cell state
        ``peephole``, the term ``p_g * peephole`` is added (see :meth:`peephole`).

        Parameters
        ----------
        gate : str
        peephole : sympy.MatrixSymbol, Block or None
            The cell state the gate peeps at, or None.

        Returns
        -------
        sympy.MatrixExpr or Block
        """
        products = [
            self.linear("i", gate, self.bias in ("two", "none")),
            self.linear("h", gate, self.bias in ("two", "none")),
        ]
        extra = [] if peephole is None else [self.peephole(gate, peephole)]
        if self.bias in ("two", "none"):
            return add(*products, *extra)
        group = "hh" if self.bias == "hidden" else "ih"
        return add(*products, *extra, self.bias_vector(group, gate, gate))

    def candidate(self, gate: str, reset: Any, reset_after: bool) -> Any:
        """The candidate pre-activation of a reset-gated cell (GRU, MGU), gate block ``gate``.

        ``reset_after``: ``W_{i g} x_t + b_{i g} + reset * (W_{h g} h_{t-1} + b_{h g})``. Otherwise
        the reset gate multiplies the state before the product: ``W_{i g} x_t + W_{h g} (reset *
        h_{t-1}) + b_g`` — one bias under a merged policy, both ``b_{i g}`` and ``b_{h g}`` under
        ``"two"`` (ONNX ``GRU`` with ``linear_before_reset=0`` keeps both).

        Parameters
        ----------
        gate : str
        reset : sympy.MatrixSymbol or Block
            The reset gate's value.
        reset_after : bool

        Returns
        -------
        sympy.MatrixExpr or Block
        """
        if reset_after:
            return add(self.linear("i", gate), odot(reset, self.linear("h", gate)))
        w_h = self.weight("hh", gate, f"h{gate}", self.hidden_size, self.h.shape[0])
        terms = [self.linear("i", gate, bias=self.bias == "two"), matmul(w_h, odot(reset, self.h))]
        if self.bias == "two":
            terms.append(self.bias_vector("hh", gate, f"h{gate}"))
        elif self.bias != "none":
            terms.append(self.bias_vector("hh" if self.bias == "hidden" else "ih", gate, gate))
        return add(*terms)

    def let(self, name: str, rhs: Any, times: Size = 1) -> Any:
        """Add the equation ``name = rhs`` (its shapes checked) and return the new symbol.

        Parameters
        ----------
        name : str
        rhs : sympy.MatrixExpr or Block
        times : int or sympy.Expr, default 1
            How many times a step computes it: the number of heads for an equation written for
            one head (see :attr:`Cell.repeats`).

        Returns
        -------
        sympy.MatrixSymbol or Block

        Raises
        ------
        ShapeError
            ``rhs`` adds or multiplies non-conforming shapes (a block was checked as it was built).
        """
        if not self.numeric:
            check_conformance(rhs)
        lhs = self.matrix(name, *rhs.shape)
        self.equations.append((lhs, rhs))
        if times != 1:
            self.repeats.append((lhs, times))
        return lhs

    def cell(self, name: str, gates: tuple[str, ...]) -> Cell:
        """The :class:`Cell`: its equations and the declared parameters that appear in them.

        Parameters
        ----------
        name : str
            The cell's mode name.
        gates : tuple of str
            Gate blocks in stacking order.

        Returns
        -------
        Cell
        """
        if self.numeric:  # a cell declares what it reads: the tests hold both modes to the same parameters
            parameters = tuple(self.declared)
        else:
            appearing = set().union(*(rhs.atoms(sympy.MatrixSymbol) for _, rhs in self.equations))
            parameters = tuple(p for p in self.declared if p.symbol in appearing)
        return Cell(
            name,
            gates,
            tuple(self.equations),
            tuple(self.inputs),
            self.equations[-1][0],
            parameters,
            tuple(self.repeats),
        )
