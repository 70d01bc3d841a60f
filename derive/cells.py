"""Recurrent cells, each written once as its SymPy update equations.

A cell is a list of equations ``lhs = rhs`` over SymPy matrix expressions:
weights are :class:`sympy.MatrixSymbol` objects of shape (rows, columns),
biases and states are column vectors. Nothing here states a parameter count:
the parameters of a cell are the weight and bias symbols that *appear* in its
equations, and their shapes are checked for conformance (every sum, product
and element-wise product must have matching dimensions) when the cell is built.

The equations follow the PyTorch documentation (``torch/nn/modules/rnn.py``),
whose notation is the field's: ``W_{ii}`` is the weight from the input to the
input gate, ``W_{hf}`` from the hidden state to the forget gate, and so on.

Sources
-------
* Elman RNN: J. L. Elman, "Finding structure in time", Cognitive Science 14 (1990).
* LSTM: S. Hochreiter, J. Schmidhuber, "Long short-term memory", Neural Computation 9 (1997),
  with the forget gate of F. Gers et al. (2000).
* LSTM with projection: H. Sak, A. Senior, F. Beaufays, "Long short-term memory recurrent
  neural network architectures for large scale acoustic modeling", Interspeech 2014
  (arXiv:1402.1128).
* ConvLSTM: X. Shi et al., "Convolutional LSTM Network", NeurIPS 2015 (arXiv:1506.04214).
* Peephole LSTM: F. Gers, J. Schmidhuber, "Recurrent nets that time and count", IJCNN 2000;
  the peepholes are diagonal weights from the cell state to the gates, written as element-wise
  products ``p_i * c_{t-1}``, ``p_f * c_{t-1}``, ``p_o * c_t`` (ONNX ``LSTM`` input ``P``, TF1
  ``LSTMCell(use_peepholes=True)``).
* MGU: G.-B. Zhou, J. Wu, C.-L. Zhang, Z.-H. Zhou, "Minimal gated unit for recurrent neural
  networks", International Journal of Automation and Computing 13 (2016) (arXiv:1603.09420).
* GRU: K. Cho et al., "Learning phrase representations using RNN encoder-decoder for
  statistical machine translation", EMNLP 2014 (arXiv:1406.1078); the candidate
  ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))`` is PyTorch's (and cuDNN's) form.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy
from sympy import HadamardProduct, MatAdd, MatMul, MatrixExpr, MatrixSymbol, OneMatrix
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

__all__ = [
    "Parameter",
    "Cell",
    "sigma",
    "relu",
    "elman",
    "lstm",
    "gru",
    "conv_lstm",
    "mgu",
    "CELLS",
    "BIAS_POLICIES",
    "bias_policy",
    "make_cell",
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
    kind : {"weight", "bias", "peephole"}
        ``"peephole"``: a diagonal weight from the cell state, stored as its diagonal, a
        column vector (H, 1) like a bias.
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
    """

    symbol: MatrixSymbol
    kind: str
    group: str
    gate: str | None
    kernel_size: tuple = ()

    @property
    def shape(self) -> tuple[sympy.Expr, sympy.Expr]:
        """(rows, columns) of the symbol; a bias has one column."""
        return tuple(self.symbol.shape)

    @property
    def numel(self) -> sympy.Expr:
        """Number of scalar parameters: rows x columns."""
        rows, cols = self.symbol.shape
        return rows * cols


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
    """

    name: str
    gates: tuple[str, ...]
    equations: tuple[tuple[MatrixSymbol, MatrixExpr], ...]
    inputs: tuple[MatrixSymbol, ...]
    output: MatrixSymbol
    parameters: tuple[Parameter, ...]

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


def _check_conformance(expr: MatrixExpr) -> None:
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


def bias_policy(bias) -> str:
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


class _Equations:
    """Collects a cell's equations and the parameters they introduce."""

    def __init__(self, input_size, hidden_size, state_size, bias, *, x_name="x_t", h_name="h_{t-1}",
                 kernel_size=()):
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

    def state(self, name: str, rows) -> MatrixSymbol:
        vector = MatrixSymbol(name, rows, 1)
        self.inputs.append(vector)
        return vector

    def weight(self, group: str, gate: str | None, label: str, rows, cols, kernel_size=()) -> MatrixSymbol:
        symbol = MatrixSymbol(f"W_{{{label}}}", rows, cols)
        self.declared.append(Parameter(symbol, "weight", group, gate, tuple(kernel_size)))
        return symbol

    def bias_vector(self, group: str, gate: str, label: str) -> MatrixSymbol:
        b = MatrixSymbol(f"b_{{{label}}}", self.hidden_size, 1)
        self.declared.append(Parameter(b, "bias", group, gate))
        return b

    def peephole(self, gate: str, cell_state: MatrixSymbol) -> MatrixExpr:
        """``p_g * c``: the diagonal weight from the cell state to ``gate``, stored as its diagonal (H, 1)."""
        p = MatrixSymbol(f"p_{{{gate}}}", self.hidden_size, 1)
        self.declared.append(Parameter(p, "peephole", "c", gate))
        return _odot(p, cell_state)

    def linear(self, source: str, gate: str, bias: bool = True) -> MatrixExpr:
        """``W_{source gate} v + b_{source gate}`` with v = x_t (source "i") or h_{t-1} (source "h").

        The bias is left out under the ``"none"`` policy, on the hidden side under ``"input_only"``,
        or when ``bias`` is False.
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
        ``peephole``, the term ``p_g * peephole`` is added (see :meth:`peephole`)."""
        products = [self.linear("i", gate, self.bias in ("two", "none")),
                    self.linear("h", gate, self.bias in ("two", "none"))]
        extra = [] if peephole is None else [self.peephole(gate, peephole)]
        if self.bias in ("two", "none"):
            return _add(*products, *extra)
        group = "hh" if self.bias == "hidden" else "ih"
        return _add(*products, *extra, self.bias_vector(group, gate, gate))

    def candidate(self, gate: str, reset: MatrixSymbol, reset_after: bool) -> MatrixExpr:
        """The candidate pre-activation of a reset-gated cell (GRU, MGU), gate block ``gate``.

        ``reset_after``: ``W_{i g} x_t + b_{i g} + reset * (W_{h g} h_{t-1} + b_{h g})``. Otherwise
        the reset gate multiplies the state before the product: ``W_{i g} x_t + W_{h g} (reset *
        h_{t-1}) + b_g`` — one bias under a merged policy, both ``b_{i g}`` and ``b_{h g}`` under
        ``"two"`` (ONNX ``GRU`` with ``linear_before_reset=0`` keeps both).
        """
        if reset_after:
            return _add(self.linear("i", gate), _odot(reset, self.linear("h", gate)))
        w_h = self.weight("hh", gate, f"h{gate}", self.hidden_size, self.h.shape[0])
        terms = [self.linear("i", gate, bias=self.bias == "two"), MatMul(w_h, _odot(reset, self.h))]
        if self.bias == "two":
            terms.append(self.bias_vector("hh", gate, f"h{gate}"))
        elif self.bias != "none":
            terms.append(self.bias_vector("hh" if self.bias == "hidden" else "ih", gate, gate))
        return _add(*terms)

    def let(self, name: str, rhs: MatrixExpr) -> MatrixSymbol:
        _check_conformance(rhs)
        lhs = MatrixSymbol(name, *rhs.shape)
        self.equations.append((lhs, rhs))
        return lhs

    def cell(self, name: str, gates: tuple[str, ...]) -> Cell:
        appearing = set().union(*(rhs.atoms(MatrixSymbol) for _, rhs in self.equations))
        parameters = tuple(p for p in self.declared if p.symbol in appearing)
        return Cell(name, gates, tuple(self.equations), tuple(self.inputs), self.equations[-1][0], parameters)


def _f(function, expr: MatrixExpr) -> MatrixExpr:
    """``function`` applied element-wise."""
    return ElementwiseApplyFunction(function, expr)


def _add(*terms: MatrixExpr) -> MatrixExpr:
    flat = []
    for term in terms:
        flat.extend(term.args if isinstance(term, MatAdd) else [term])
    return MatAdd(*flat, evaluate=False)


def _odot(a: MatrixExpr, b: MatrixExpr) -> MatrixExpr:
    return HadamardProduct(a, b, evaluate=False)


@lru_cache(maxsize=4096)
def elman(input_size, hidden_size, bias: bool | str = True, nonlinearity: str = "tanh") -> Cell:
    """Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (or ReLU).

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
        Rows of ``x_t`` and of ``h_t``.
    bias : bool or str
        Whether the two bias vectors ``b_ih``, ``b_hh`` are present, or a bias policy
        (see :data:`BIAS_POLICIES`).
    nonlinearity : {"tanh", "relu"}

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
    eq = _Equations(input_size, hidden_size, hidden_size, bias)
    phi = {"tanh": sympy.tanh, "relu": relu}[nonlinearity]
    eq.let("h_t", _f(phi, eq.pre_activation("h")))
    return eq.cell("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", ("h",))


@lru_cache(maxsize=4096)
def lstm(input_size, hidden_size, bias: bool | str = True, proj_size=0, peepholes: bool = False) -> Cell:
    """LSTM, optionally with a projection of the hidden state (LSTMP) and with peepholes.

    ``i, f, o = sigma(...)``, ``g = tanh(...)``, ``c_t = f * c_{t-1} + i * g``,
    ``h_t = o * tanh(c_t)``; with ``proj_size > 0``, ``h_t = W_hr (o * tanh(c_t))``
    and ``h_t`` (so also ``h_{t-1}``) has ``proj_size`` rows.

    With ``peepholes`` (Gers & Schmidhuber 2000) the gates also read the cell state through
    diagonal weights, written as element-wise products with vectors (H, 1): ``p_i * c_{t-1}``
    and ``p_f * c_{t-1}`` in the input and forget gates, ``p_o * c_t`` (the new cell state) in
    the output gate, as in ONNX ``LSTM`` (``onnx/defs/rnn/defs.cc``) and TF1 ``LSTMCell``
    (``tensorflow/python/ops/rnn_cell_impl.py``). The output gate is then computed after ``c_t``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    proj_size : int or sympy.Expr
        0 for no projection.
    peepholes : bool, default False

    Returns
    -------
    Cell
    """
    projected = proj_size != 0
    out = proj_size if projected else hidden_size
    eq = _Equations(input_size, hidden_size, out, bias)
    c_prev = eq.state("c_{t-1}", hidden_size)
    peep = c_prev if peepholes else None
    i = eq.let("i_t", _f(sigma, eq.pre_activation("i", peep)))
    f = eq.let("f_t", _f(sigma, eq.pre_activation("f", peep)))
    g = eq.let("g_t", _f(sympy.tanh, eq.pre_activation("g")))
    if peepholes:
        c = eq.let("c_t", _add(_odot(f, c_prev), _odot(i, g)))
        o = eq.let("o_t", _f(sigma, eq.pre_activation("o", c)))
    else:
        o = eq.let("o_t", _f(sigma, eq.pre_activation("o")))
        c = eq.let("c_t", _add(_odot(f, c_prev), _odot(i, g)))
    if projected:
        w_hr = eq.weight("hr", None, "hr", proj_size, hidden_size)
        eq.let("h_t", MatMul(w_hr, _odot(o, _f(sympy.tanh, c))))
    else:
        eq.let("h_t", _odot(o, _f(sympy.tanh, c)))
    return eq.cell("LSTM", ("i", "f", "g", "o"))


@lru_cache(maxsize=4096)
def gru(input_size, hidden_size, bias: bool | str = True, reset_after: bool = True) -> Cell:
    """GRU. With ``reset_after`` (PyTorch, cuDNN, Keras' default) the reset gate multiplies the
    recurrent product: ``n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))``; without it
    (Cho et al. 2014, Keras ``reset_after=False``, TF1) it multiplies the state before the product:
    ``n_t = tanh(W_in x_t + W_hn (r_t * h_{t-1}) + b_n)``.

    ``r, z = sigma(...)``, ``h_t = (1 - z_t) * n_t + z_t * h_{t-1}``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    reset_after : bool

    Returns
    -------
    Cell
    """
    eq = _Equations(input_size, hidden_size, hidden_size, bias)
    r = eq.let("r_t", _f(sigma, eq.pre_activation("r")))
    z = eq.let("z_t", _f(sigma, eq.pre_activation("z")))
    n = eq.let("n_t", _f(sympy.tanh, eq.candidate("n", r, reset_after)))
    one = OneMatrix(hidden_size, 1)
    eq.let("h_t", _add(_odot(MatAdd(one, -z, evaluate=False), n), _odot(z, eq.h)))
    return eq.cell("GRU", ("r", "z", "n"))


@lru_cache(maxsize=4096)
def mgu(input_size, hidden_size, bias: bool | str = True, reset_after: bool = True,
        reset_gate: bool = True) -> Cell:
    """Minimal gated unit (MGU): a GRU whose one forget gate ``f_t`` also plays the reset gate.

    ``f_t = sigma(W_{if} x_t + W_{hf} h_{t-1} + b)``; the candidate ``n_t`` is the GRU's with
    ``f_t`` as its reset gate (see :meth:`_Equations.candidate`; ``reset_after`` as in
    :func:`gru`); ``h_t = (1 - f_t) * n_t + f_t * h_{t-1}``.

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

    Returns
    -------
    Cell
        Named ``"MGU"``, gates f, n.
    """
    eq = _Equations(input_size, hidden_size, hidden_size, bias)
    f = eq.let("f_t", _f(sigma, eq.pre_activation("f")))
    if reset_gate:
        n = eq.let("n_t", _f(sympy.tanh, eq.candidate("n", f, reset_after)))
    else:
        n = eq.let("n_t", _f(sympy.tanh, eq.pre_activation("n")))
    one = OneMatrix(hidden_size, 1)
    eq.let("h_t", _add(_odot(MatAdd(one, -f, evaluate=False), n), _odot(f, eq.h)))
    return eq.cell("MGU", ("f", "n"))


@lru_cache(maxsize=4096)
def conv_lstm(channels, filters, kernel_size: tuple, bias: bool | str = True) -> Cell:
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

    Returns
    -------
    Cell
        Named ``"CONVLSTM"``, gates i, f, g, o as :func:`lstm`; the gate blocks hold
        4F(K(C + F) + b) parameters with b = 1 under a merged bias policy, 2 with two biases.
    """
    kernel_size = tuple(kernel_size)
    taps = sympy.Mul(*kernel_size)
    eq = _Equations(taps * channels, filters, taps * filters, bias, x_name=r"\mathcal{X}_t",
                    h_name=r"\mathcal{H}_{t-1}", kernel_size=kernel_size)
    c_prev = eq.state("c_{t-1}", filters)
    i = eq.let("i_t", _f(sigma, eq.pre_activation("i")))
    f = eq.let("f_t", _f(sigma, eq.pre_activation("f")))
    g = eq.let("g_t", _f(sympy.tanh, eq.pre_activation("g")))
    o = eq.let("o_t", _f(sigma, eq.pre_activation("o")))
    c = eq.let("c_t", _add(_odot(f, c_prev), _odot(i, g)))
    eq.let("h_t", _odot(o, _f(sympy.tanh, c)))
    return eq.cell("CONVLSTM", ("i", "f", "g", "o"))


#: Cell builders by name, as accepted by :func:`make_cell`.
CELLS = {"RNN_TANH": elman, "RNN_RELU": elman, "LSTM": lstm, "GRU": gru, "MGU": mgu, "CONVLSTM": conv_lstm}


def make_cell(mode: str, input_size, hidden_size, bias=True, proj_size=0, reset_after: bool = True,
              **options) -> Cell:
    """Build the cell named by PyTorch's ``mode`` string (or ``"MGU"``, ``"CONVLSTM"``) for one layer.

    Parameters
    ----------
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU", "MGU", "CONVLSTM"}
    input_size, hidden_size, proj_size : int or sympy.Expr
        For ``"CONVLSTM"``: channels C and filters F.
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    reset_after : bool
        GRU and MGU: where the reset gate is applied (see :func:`gru`).
    **options
        The cell's own options: ``peepholes`` (LSTM, see :func:`lstm`), ``reset_gate`` (MGU,
        see :func:`mgu`), ``kernel_size`` (CONVLSTM, required, see :func:`conv_lstm`).

    Raises
    ------
    ValueError
        Unknown ``mode``.
    TypeError
        An option the cell does not take.
    """
    if mode == "LSTM":
        return lstm(input_size, hidden_size, bias, proj_size, **options)
    if mode == "GRU":
        return gru(input_size, hidden_size, bias, reset_after, **options)
    if mode == "MGU":
        return mgu(input_size, hidden_size, bias, reset_after, **options)
    if mode == "CONVLSTM":
        return conv_lstm(input_size, hidden_size, bias=bias, **options)
    if mode in ("RNN_TANH", "RNN_RELU"):
        return elman(input_size, hidden_size, bias, "tanh" if mode == "RNN_TANH" else "relu", **options)
    raise ValueError(f"mode must be one of {sorted(CELLS)}, got {mode!r}")
