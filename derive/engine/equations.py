"""The language cells are written in: matrix equations over SymPy symbols.

A cell is a list of equations ``lhs = rhs`` over SymPy matrix expressions:
weights are :class:`sympy.MatrixSymbol` objects of shape (rows, columns),
biases and states are column vectors. Nothing here states a parameter count:
the parameters of a cell are the weight and bias symbols that *appear* in its
equations, and their shapes are checked for conformance (every sum, product
and element-wise product must have matching dimensions) when the cell is built.

The notation follows the PyTorch documentation (``torch/nn/modules/rnn.py``),
which is the field's: ``W_{ii}`` is the weight from the input to the input gate,
``W_{hf}`` from the hidden state to the forget gate, and so on. The cells
themselves, one module each, are in :mod:`derive.cells`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy
from sympy import HadamardProduct, MatAdd, MatMul, MatrixExpr, MatrixSymbol
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

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
    "BIAS_POLICIES",
    "bias_policy",
]

#: The logistic sigmoid, applied element-wise.
sigma = sympy.Function("sigma")
#: The rectifier max(0, x), applied element-wise.
relu = sympy.Function("ReLU")


@dataclass(frozen=True)
class Parameter:
    """One trainable weight matrix or bias vector of a cell.

    Attributes
    ----------
    symbol : sympy.MatrixSymbol
        The symbol as it appears in the equations; ``symbol.shape`` is (rows, columns),
        a bias is a column vector (rows, 1).
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

    symbol: MatrixSymbol
    kind: str
    group: str
    gate: str | None
    kernel_size: tuple[Size, ...] = ()
    groups: Size | None = None

    @property
    def shape(self) -> tuple[sympy.Expr, sympy.Expr]:
        """(rows, columns) of the symbol; a bias has one column."""
        return tuple(self.symbol.shape)

    @property
    def numel(self) -> sympy.Expr:
        """Number of scalar parameters: rows x columns (divided by :attr:`groups`, the blocks only)."""
        rows, cols = self.symbol.shape
        return rows * cols if self.groups is None else rows * cols / self.groups


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
        ``(lhs, rhs)`` pairs, in the order they are computed at one time step.
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
    equations: tuple[tuple[MatrixSymbol, MatrixExpr], ...]
    inputs: tuple[MatrixSymbol, ...]
    output: MatrixSymbol
    parameters: tuple[Parameter, ...]
    repeats: tuple[tuple[MatrixSymbol, Size], ...] = ()

    def times(self, lhs: MatrixSymbol) -> Size:
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
    def count(self) -> sympy.Expr:
        """Scalar parameters of one cell: the sum of its parameters' sizes."""
        return sympy.Add(*(p.numel for p in self.parameters))

    @property
    def input_size(self) -> sympy.Expr:
        """Rows of ``x_t``."""
        return self.inputs[0].shape[0]

    @property
    def output_size(self) -> sympy.Expr:
        """Rows of ``h_t``: ``hidden_size``, or ``proj_size`` for a projected LSTM."""
        return self.output.shape[0]


class ShapeError(ValueError):
    """Raised when an equation adds or multiplies matrices of non-conforming shapes."""


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    return sympy.expand(a - b) == 0


def check_conformance(expr: MatrixExpr) -> None:
    """Check that every sum, product and element-wise product in ``expr`` has conforming shapes.

    Parameters
    ----------
    expr : sympy.MatrixExpr

    Raises
    ------
    ShapeError
        Non-conforming shapes.
    """
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, (MatAdd, HadamardProduct)):
            shapes = [arg.shape for arg in node.args]
            if not all(_same(r, shapes[0][0]) and _same(c, shapes[0][1]) for r, c in shapes):
                raise ShapeError(f"non-conforming shapes {shapes} in {node}")
        elif isinstance(node, MatMul):
            factors = [a for a in node.args if isinstance(a, MatrixExpr)]
            for left, right in zip(factors, factors[1:]):
                if not _same(left.shape[1], right.shape[0]):
                    raise ShapeError(f"cannot multiply {left.shape} by {right.shape} in {node}")


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

    Raises
    ------
    TypeError
        A size that is neither an int nor a SymPy expression.
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
    ) -> None:
        for name, size in (("input_size", input_size), ("hidden_size", hidden_size), ("state_size", state_size)):
            if isinstance(size, bool) or not isinstance(size, (int, sympy.Expr)):
                raise TypeError(f"{name} should be an int or a SymPy expression, got: {type(size).__name__}")
        self.x = MatrixSymbol(x_name, input_size, 1)
        self.h = MatrixSymbol(h_name, state_size, 1)
        self.hidden_size = hidden_size
        self.kernel_size = tuple(kernel_size)
        self.bias = bias_policy(bias)
        self.inputs = [self.x, self.h]
        self.declared: list[Parameter] = []
        self.equations: list[tuple[MatrixSymbol, MatrixExpr]] = []
        self.repeats: list[tuple[MatrixSymbol, Size]] = []

    def state(self, name: str, rows: Size) -> MatrixSymbol:
        """Declare a further state the step reads (the LSTM's ``c_{t-1}``), a column vector.

        Parameters
        ----------
        name : str
            Its LaTeX name.
        rows : int or sympy.Expr

        Returns
        -------
        sympy.MatrixSymbol
        """
        vector = MatrixSymbol(name, rows, 1)
        self.inputs.append(vector)
        return vector

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
    ) -> MatrixSymbol:
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
        sympy.MatrixSymbol
        """
        symbol = MatrixSymbol(name or f"W_{{{label}}}", rows, cols)
        self.declared.append(Parameter(symbol, "weight", group, gate, tuple(kernel_size), groups))
        return symbol

    def bias_vector(self, group: str, gate: str, label: str) -> MatrixSymbol:
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
        sympy.MatrixSymbol
        """
        b = MatrixSymbol(f"b_{{{label}}}", self.hidden_size, 1)
        self.declared.append(Parameter(b, "bias", group, gate))
        return b

    def peephole(self, gate: str, cell_state: MatrixSymbol) -> MatrixExpr:
        """``p_g * c``: the diagonal weight from the cell state to ``gate``, stored as its diagonal (H, 1).

        Parameters
        ----------
        gate : str
        cell_state : sympy.MatrixSymbol
            ``c_{t-1}`` or ``c_t``.

        Returns
        -------
        sympy.MatrixExpr
        """
        p = MatrixSymbol(f"p_{{{gate}}}", self.hidden_size, 1)
        self.declared.append(Parameter(p, "peephole", "c", gate))
        return odot(p, cell_state)

    def vector(self, kind: str, group: str, gate: str | None, name: str, rows: Size | None = None) -> MatrixSymbol:
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
        sympy.MatrixSymbol
        """
        v = MatrixSymbol(name, self.hidden_size if rows is None else rows, 1)
        self.declared.append(Parameter(v, kind, group, gate))
        return v

    def linear(self, source: str, gate: str, bias: bool = True) -> MatrixExpr:
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
        sympy.MatrixExpr
        """
        v = self.x if source == "i" else self.h
        label = f"{source}{gate}"
        w = self.weight(f"{source}h", gate, label, self.hidden_size, v.shape[0], self.kernel_size)
        if self.bias == "none" or not bias or (self.bias == "input_only" and source == "h"):
            return MatMul(w, v)
        return MatAdd(MatMul(w, v), self.bias_vector(f"{source}h", gate, label), evaluate=False)

    def pre_activation(self, gate: str, peephole: MatrixSymbol | None = None) -> MatrixExpr:
        """``W_{i g} x_t + b_{i g} + W_{h g} h_{t-1} + b_{h g}``; under a merged bias policy the
        two biases, which are only ever added together, are one vector ``b_g``. With a cell state
        ``peephole``, the term ``p_g * peephole`` is added (see :meth:`peephole`).

        Parameters
        ----------
        gate : str
        peephole : sympy.MatrixSymbol or None
            The cell state the gate peeps at, or None.

        Returns
        -------
        sympy.MatrixExpr
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

    def candidate(self, gate: str, reset: MatrixSymbol, reset_after: bool) -> MatrixExpr:
        """The candidate pre-activation of a reset-gated cell (GRU, MGU), gate block ``gate``.

        ``reset_after``: ``W_{i g} x_t + b_{i g} + reset * (W_{h g} h_{t-1} + b_{h g})``. Otherwise
        the reset gate multiplies the state before the product: ``W_{i g} x_t + W_{h g} (reset *
        h_{t-1}) + b_g`` — one bias under a merged policy, both ``b_{i g}`` and ``b_{h g}`` under
        ``"two"`` (ONNX ``GRU`` with ``linear_before_reset=0`` keeps both).

        Parameters
        ----------
        gate : str
        reset : sympy.MatrixSymbol
            The reset gate's value.
        reset_after : bool

        Returns
        -------
        sympy.MatrixExpr
        """
        if reset_after:
            return add(self.linear("i", gate), odot(reset, self.linear("h", gate)))
        w_h = self.weight("hh", gate, f"h{gate}", self.hidden_size, self.h.shape[0])
        terms = [self.linear("i", gate, bias=self.bias == "two"), MatMul(w_h, odot(reset, self.h))]
        if self.bias == "two":
            terms.append(self.bias_vector("hh", gate, f"h{gate}"))
        elif self.bias != "none":
            terms.append(self.bias_vector("hh" if self.bias == "hidden" else "ih", gate, gate))
        return add(*terms)

    def let(self, name: str, rhs: MatrixExpr, times: Size = 1) -> MatrixSymbol:
        """Add the equation ``name = rhs`` (its shapes checked) and return the new symbol.

        Parameters
        ----------
        name : str
        rhs : sympy.MatrixExpr
        times : int or sympy.Expr, default 1
            How many times a step computes it: the number of heads for an equation written for
            one head (see :attr:`Cell.repeats`).

        Returns
        -------
        sympy.MatrixSymbol

        Raises
        ------
        ShapeError
            ``rhs`` adds or multiplies non-conforming shapes.
        """
        check_conformance(rhs)
        lhs = MatrixSymbol(name, *rhs.shape)
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
        appearing = set().union(*(rhs.atoms(MatrixSymbol) for _, rhs in self.equations))
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


def elementwise(function: type[sympy.Function], expr: MatrixExpr) -> MatrixExpr:
    """``function`` applied element-wise.

    Parameters
    ----------
    function : sympy.Function
        E.g. :data:`sigma`, ``sympy.tanh``.
    expr : sympy.MatrixExpr

    Returns
    -------
    sympy.MatrixExpr
    """
    return ElementwiseApplyFunction(function, expr)


def add(*terms: MatrixExpr) -> MatrixExpr:
    """The sum of ``terms``, flattened and left unevaluated (so the equations read as written).

    Parameters
    ----------
    *terms : sympy.MatrixExpr

    Returns
    -------
    sympy.MatrixExpr
    """
    flat: list[MatrixExpr] = []
    for term in terms:
        flat.extend(term.args if isinstance(term, MatAdd) else [term])
    return MatAdd(*flat, evaluate=False)


def odot(a: MatrixExpr, b: MatrixExpr) -> MatrixExpr:
    """The element-wise (Hadamard) product ``a * b``, unevaluated.

    Parameters
    ----------
    a, b : sympy.MatrixExpr

    Returns
    -------
    sympy.MatrixExpr
    """
    return HadamardProduct(a, b, evaluate=False)
