"""A framework tensor (:class:`Tensor`), the layout of one (:class:`TensorLayout`), and its shape.

A :class:`TensorLayout` says which of a cell's parameters (by kind, group and gate) one framework
tensor holds; :func:`tensor_shape` is the shape that tensor has, from the shapes of the gate blocks
it holds -- in ints when they are ints (no SymPy), else as SymPy expressions. A framework's
:class:`~derive.engine.conventions.Convention` is a sequence of layouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._sympy import sympy
from .cell import Parameter
from .symbols import Size, product, total

__all__ = ["Tensor", "TensorLayout", "KINDS", "JOINS", "tensor_shape"]


@dataclass(frozen=True)
class Tensor:
    """One named framework tensor.

    Attributes
    ----------
    name : str
        The framework's own name, e.g. ``"weight_ih_l1_reverse"``.
    shape : tuple of sympy.Expr
        The framework's shape (a bias vector has one dimension).
    parameters : tuple of Parameter
        The cell parameters it holds, in the order the framework stacks them.
    layer : int, sympy.Symbol or None
        Layer index (None for a single cell).
    direction : int or None
        0 forward, 1 reverse; None when the tensor holds every direction of the layer along a
        leading axis (ONNX, see :attr:`Convention.direction_axis`).
    trainable : bool
        False for a parameter the framework creates but freezes (Paddle's disabled bias, a
        zero vector with ``stop_gradient=True``, see :attr:`Convention.frozen_bias`).
    """

    name: str
    shape: tuple[Size, ...]
    parameters: tuple[Parameter, ...]
    layer: object = None
    direction: int | None = 0
    trainable: bool = True

    @property
    def numel(self) -> Size:
        """Number of scalar parameters in the tensor: an int when every dimension is an int."""
        return product(self.shape)


#: The kinds of parameter a tensor holds (:attr:`derive.engine.cell.Parameter.kind`).
KINDS = ("weight", "bias", "peephole", "gain")
#: How a tensor puts several groups together (:attr:`TensorLayout.join`).
JOINS = ("stack", "rows", "columns")


@dataclass(frozen=True)
class TensorLayout:
    """One framework tensor: its base name and which parameters it stacks.

    Attributes
    ----------
    name : str
        Base name (``"weight_ih"``, ``"kernel"``, ...).
    kind : {"weight", "bias", "peephole"}
        A weight is a matrix; a bias or a peephole (diagonal weight) is a vector.
    groups : tuple of str
        Parameter groups held (``"ih"``, ``"hh"``, ``"hr"``, ``"c"``); how several present
        groups are put together is ``join``.
    transpose : bool
        False: gate blocks stacked along rows, shape (G·H, columns) (PyTorch).
        True: stored transposed, gate blocks side by side, shape (columns, G·H) (Keras).
    join : {"stack", "rows", "columns"}
        With more than one group present: ``"stack"`` gives the tensor a leading axis, one entry
        per group (Keras' GRU bias (2, 3H)); ``"rows"`` concatenates the groups along the gate
        axis (ONNX ``B`` [Wb, Rb] (2·G·H,), tf.keras ``CuDNNLSTM`` bias (8H,)); ``"columns"``
        along the input axis, for a weight multiplying the concatenation [x_t; h_{t-1}] (TF1
        ``LSTMCell`` kernel (I + H, 4H)).
    gates : tuple of str or None
        Only these gate blocks (TF1 ``GRUCell``: ``gates/kernel`` holds r and z, ``candidate/kernel``
        n); None for all.
    per_gate : bool
        One tensor per gate block (Flax ``ii/kernel``, ``hf/kernel`` ...; cuDNN's linear layers):
        ``name`` is then a format string with ``{gate}``, the framework's label of the gate (see
        :attr:`Convention.gate_labels`), and ``{n}``, the block's number in the tensor's order
        (groups in order, gates in the framework's order).

    Notes
    -----
    A convolution weight (a parameter with a ``kernel_size``, see
    :class:`derive.cells.Parameter`) of columns K·C, K = k_1···k_n, is presented as a
    convolution kernel: (k_1, ..., k_n, C, G·F) when ``transpose`` (Keras ``ConvLSTM*D``),
    (G·F, C, k_1, ..., k_n) otherwise (the ``torch.nn.Conv*d`` order; C/g for g ``groups``).
    A block-diagonal weight of g ``groups`` (rows, cols) is presented as its g blocks,
    (g, rows/g, cols/g) (``xlstm``'s ``LinearHeadwiseExpand.weight``).
    """

    name: str
    kind: str
    groups: tuple[str, ...]
    transpose: bool = False
    join: str = "stack"
    gates: tuple[str, ...] | None = None
    per_gate: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"TensorLayout {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.join not in JOINS:
            raise ValueError(f"TensorLayout {self.name!r}: join must be one of {JOINS}, got {self.join!r}")


def _quotient(a: Size, b: Size) -> Size:
    """``a / b`` of sizes: exact int division for ints (the cell checked it divides), else SymPy's."""
    if type(a) is int and type(b) is int:
        assert a % b == 0, (a, b)
        return a // b
    return sympy.Mul(a, sympy.Pow(b, -1))


def tensor_shape(spec: TensorLayout, blocks: list[list[Parameter]]) -> tuple[Size, ...]:
    """Shape of the tensor ``spec`` holding ``blocks`` (one list of gate blocks per group).

    Parameters
    ----------
    spec : TensorLayout
    blocks : list of list of Parameter
        The gate blocks of each group it holds, in the framework's order.

    Returns
    -------
    tuple of int or sympy.Expr
        Ints when every block's shape is in ints.
    """
    if spec.join == "stack" and len(blocks) == 1:
        simple = _dense_int_shape(spec, blocks[0])
        if simple is not None:
            return simple
    rows = [total(p.shape[0] for p in held) for held in blocks]
    cols: list[Any] = [{p.shape[1] for p in held} for held in blocks]  # sets, then their one element
    kernels = {p.kernel_size for held in blocks for p in held}
    groups = {p.groups for held in blocks for p in held}
    assert all(len(c) == 1 for c in cols) and len(kernels) == 1, f"{spec.name}: blocks of unequal shape"
    assert len(groups) == 1, f"{spec.name}: blocks of unequal groups"
    cols = [c.pop() for c in cols]
    if spec.join == "rows":
        rows = [total(rows)]
    elif spec.join == "columns":
        cols = [total(cols)]
    assert len(set(rows)) == 1 and len(set(cols)) == 1, f"{spec.name}: blocks of unequal shape"
    rows, cols, kernel, group = rows[0], cols[0], kernels.pop(), groups.pop()
    if spec.kind != "weight":
        shape: tuple[Size, ...] = (rows,)
    elif kernel:
        per_tap = _quotient(cols, product(kernel) * (group or 1))  # C/G of K·C columns
        shape = (*kernel, per_tap, rows) if spec.transpose else (rows, per_tap, *kernel)
    elif group is not None:  # block-diagonal: (G, rows/G, cols/G), xlstm's LinearHeadwiseExpand layout
        shape = (group, _quotient(rows, group), _quotient(cols, group))
    else:
        shape = (cols, rows) if spec.transpose else (rows, cols)
    if len(blocks) > 1 and spec.join == "stack":
        shape = (len(blocks),) + shape
    return shape


def _dense_int_shape(spec: TensorLayout, held: list[Parameter]) -> tuple[int, ...] | None:
    """The shape of one group of dense blocks of int shapes (the usual case), or None for another."""
    rows = 0
    cols: Any = None
    for p in held:
        r, c = p.symbol.shape
        if type(r) is not int or p.kernel_size or p.groups is not None or (cols is not None and c != cols):
            return None
        rows += r
        cols = c
    if spec.kind != "weight":
        return (rows,)
    return (cols, rows) if spec.transpose else (rows, cols)
