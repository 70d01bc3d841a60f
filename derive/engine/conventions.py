"""Framework conventions: how a cell's parameters are laid out in named tensors.

A convention does not change what a cell computes; it says which of the cell's
weights and biases a framework stores together, under which name, in which
gate order and with which shape. A framework declares its :class:`Convention` in its
own module of :mod:`derive.frameworks`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy

from .cell import BIAS_POLICIES, Cell, Parameter
from .registry import CELLS
from .symbols import Size, product, total

__all__ = ["Tensor", "TensorLayout", "Convention"]


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


@dataclass(frozen=True)
class Convention:
    """A framework's layout of recurrent weights.

    Attributes
    ----------
    name : str
        Framework name shown on the site.
    tensors : tuple of TensorLayout
        Tensors of one layer and direction, in the framework's parameter order.
    layer_name : callable (base, layer, direction) -> str
        Builds the full tensor name; ``layer`` is None for a single cell.
    source : str
        Where the convention is defined (framework file).
    biases : mapping of cell mode (or of (mode, reset_after)) -> bias policy
        How many bias vectors the framework gives each cell (default ``"two"``, see
        :data:`derive.cells.BIAS_POLICIES`); a key ``("GRU", False)`` gives the policy of the
        GRU's ``reset_after=False`` variant where it differs from the mode's.
    gate_order : mapping of cell mode -> tuple of gate names
        The framework's stacking order, where it differs from the cell's (PyTorch's).
    gate_labels : mapping of cell mode -> mapping of gate name -> label
        The framework's own names of the gates where they differ from the cell's (ONNX calls the
        LSTM's g "c" and the GRU's n "h"; TF1 the LSTM's g "j"); used by per-gate tensor names.
    direction_axis : bool or "last"
        Every direction of a layer in one tensor, along a leading axis of size D, even for D = 1
        (ONNX ``W`` [D, G·H, I]); the tensor's ``direction`` is then None. ``"last"``: the
        directions side by side along the last axis instead (``sru``'s ``weight`` (I, D·k·H)).
    direction_names : mapping of D -> tuple of str
        When set, ``layer_name`` receives, instead of the direction's index, its label for a layer
        with D directions (Paddle ``cell`` for D = 1, ``cell_fw``/``cell_bw`` for D = 2).
    frozen_bias : bool
        ``bias=False`` keeps the bias tensors, frozen (``trainable=False``) instead of removing
        them (Paddle: ``bias_ih_attr=False`` creates a zero bias with ``stop_gradient=True``).
    """

    name: str
    tensors: tuple[TensorLayout, ...]
    layer_name: Callable[[str, Any, Any], str]  # (base, layer, direction index or label)
    source: str
    biases: Mapping[str | tuple[str, bool], str] = field(default_factory=dict)
    gate_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    gate_labels: Mapping[str, Mapping[str | None, str]] = field(default_factory=dict)
    direction_axis: bool | str = False
    direction_names: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    frozen_bias: bool = False

    def __post_init__(self) -> None:
        """Refuse a key or a policy that no cell or rule knows (it would be ignored silently)."""
        for key, policy in self.biases.items():
            mode = key[0] if isinstance(key, tuple) else key
            if mode not in CELLS or (isinstance(key, tuple) and (len(key) != 2 or not isinstance(key[1], bool))):
                raise ValueError(
                    f"Convention {self.name!r}: biases key {key!r} is not a cell mode (or a (mode, reset_after) "
                    f"pair) of the registered cells {sorted(CELLS)}"
                )
            if policy not in BIAS_POLICIES:
                raise ValueError(
                    f"Convention {self.name!r}: biases[{key!r}] must be one of {BIAS_POLICIES}, got {policy!r}"
                )
        for what, table in (("gate_order", self.gate_order), ("gate_labels", self.gate_labels)):
            unknown = [mode for mode in table if mode not in CELLS]
            if unknown:
                raise ValueError(
                    f"Convention {self.name!r}: {what} keys {unknown} are not modes of the registered cells {sorted(CELLS)}"
                )

    def bias_policy(self, mode: str, bias: bool, reset_after: bool = True) -> str:
        """The bias policy of ``mode``'s cell in this framework; ``"none"`` when ``bias`` is False
        (unless the framework keeps disabled biases frozen, :attr:`frozen_bias`).

        ``reset_after`` selects the GRU variant (a key ``(mode, reset_after)`` in :attr:`biases`
        takes precedence over ``mode``).

        Parameters
        ----------
        mode : str
            The cell, by PyTorch's mode name (``"LSTM"``, ``"GRU"``, ``"RNN_TANH"``, ...).
        bias : bool
            The layer's bias flag (``bias`` in torch, ``use_bias`` in Keras).
        reset_after : bool, default True
            GRU only: which variant (see :func:`derive.cells.gru`).

        Returns
        -------
        str
            One of :data:`derive.cells.BIAS_POLICIES`.
        """
        if not bias and not self.frozen_bias:
            return "none"
        return self.biases.get((mode, reset_after), self.biases.get(mode, "two"))

    def gate_label(self, mode: str, gate: str | None) -> str:
        """The framework's name of ``gate`` in cell ``mode`` (see :attr:`gate_labels`).

        Parameters
        ----------
        mode : str
            The cell, by PyTorch's mode name.
        gate : str or None
            The cell's gate name (``"i"``, ``"f"``, ``"g"``, ``"o"``, ``"r"``, ``"z"``, ``"n"``, ...);
            None for a parameter outside the gates (the projection), which gives ``""``.

        Returns
        -------
        str
        """
        return self.gate_labels.get(mode, {}).get(gate, gate or "")

    def tensor_name(
        self, base: str, layer: int | sympy.Expr | None = None, direction: int = 0, num_directions: int | None = None
    ) -> str:
        """Full name of tensor ``base`` of ``layer`` and ``direction`` in a layer of ``num_directions``.

        Parameters
        ----------
        base : str
            Base name from a :class:`TensorLayout` (``"weight_ih"``, ``"kernel"``, ...).
        layer : int, sympy.Symbol or None
            Layer index (:data:`derive.stack.UPPER` for any layer >= 1); None for a single cell.
        direction : int, default 0
            0 forward, 1 reverse.
        num_directions : int or None
            D of the layer (1 or 2); None counts as 1.

        Returns
        -------
        str
            E.g. ``"weight_ih_l1_reverse"`` (PyTorch).
        """
        if self.direction_names:
            return self.layer_name(base, layer, self.direction_names[num_directions or 1][direction])
        return self.layer_name(base, layer, direction)

    def layer_layout(
        self, cells: Sequence[Cell], layer: int | sympy.Expr | None = None, *, bias: bool = True
    ) -> list[Tensor]:
        """Tensors of one layer, all directions: ``cells`` holds each direction's cell, in order.

        Applies the layer-level rules: one tensor per layout with a leading direction axis
        (:attr:`direction_axis`), frozen biases when ``bias`` is False (:attr:`frozen_bias`).

        Parameters
        ----------
        cells : sequence of Cell
            One cell per direction (1 or 2), forward first.
        layer : int, sympy.Symbol or None
            Layer index (:data:`derive.stack.UPPER` for any layer >= 1); None for a single cell.
        bias : bool, default True
            The layer's bias flag.

        Returns
        -------
        list of Tensor
            In the framework's parameter order; shapes in units of scalar parameters per axis.
        """
        per_direction = [self.layout(cell, layer, d, num_directions=len(cells)) for d, cell in enumerate(cells)]
        if not bias and self.frozen_bias:
            per_direction = [
                [replace(t, trainable=False) if all(p.kind == "bias" for p in t.parameters) else t for t in tensors]
                for tensors in per_direction
            ]
        if not self.direction_axis:
            return [t for tensors in per_direction for t in tensors]
        merged = []
        for same in zip(*per_direction, strict=True):
            assert len({t.name for t in same}) == 1 and len({t.shape for t in same}) == 1, same
            shape = same[0].shape
            shape = shape[:-1] + (len(same) * shape[-1],) if self.direction_axis == "last" else (len(same),) + shape
            merged.append(
                replace(
                    same[0],
                    shape=shape,
                    direction=None,
                    parameters=tuple(p for t in same for p in t.parameters),
                )
            )
        return merged

    def layout(
        self,
        cell: Cell,
        layer: int | sympy.Expr | None = None,
        direction: int = 0,
        *,
        num_directions: int | None = None,
    ) -> list[Tensor]:
        """Lay out ``cell``'s parameters in this framework's tensors.

        Gate blocks are stacked in the framework's gate order, so a stacked weight
        has shape (G·H, columns) — or (columns, G·H) when stored transposed — and a
        stacked bias (G·H,). Tensors whose parameters do not appear in the cell
        (``bias=False``, no projection) are absent, as in the framework. Convolution weights
        are presented as kernels (see :class:`TensorLayout`). ``num_directions`` (D of the
        layer) matters only for :attr:`direction_names`.

        Parameters
        ----------
        cell : Cell
            The cell of this layer and direction.
        layer : int, sympy.Symbol or None
            Layer index (:data:`derive.stack.UPPER` for any layer >= 1); None for a single cell.
        direction : int, default 0
            0 forward, 1 reverse.
        num_directions : int or None
            D of the layer (1 or 2).

        Returns
        -------
        list of Tensor
            In the framework's parameter order.

        Raises
        ------
        ValueError
            A parameter of the cell that no tensor of the convention holds (it would be lost from
            the count), or that two tensors hold; the message names the cell, the parameter (its
            LaTeX symbol, kind, group and gate) and the convention.
        """
        order: dict[str | None, int] = {gate: k for k, gate in enumerate(self.gate_order.get(cell.name, cell.gates))}
        out = []
        placed: dict[int, str] = {}
        for spec in self.tensors:
            blocks: list[list[Parameter]] = []
            for group in spec.groups:
                held: Sequence[Parameter] = [
                    p
                    for p in cell.parameters
                    if (p.kind, p.group) == (spec.kind, group) and (spec.gates is None or p.gate in spec.gates)
                ]
                if held:
                    blocks.append(sorted(held, key=lambda p: order.get(p.gate, 0)))
            if not blocks:
                continue
            if spec.per_gate:
                flat = [p for block in blocks for p in block]
                pieces = [
                    ([[p]], spec.name.format(gate=self.gate_label(cell.name, p.gate), n=n)) for n, p in enumerate(flat)
                ]
            else:
                pieces = [(blocks, spec.name)]
            for piece, base in pieces:
                held = tuple(p for block in piece for p in block)
                name = self.tensor_name(base, layer, direction, num_directions)
                for p in held:
                    if id(p) in placed:
                        raise ValueError(
                            f"{self.name} places {_described(cell, p)} twice, in {placed[id(p)]!r} and {name!r}"
                        )
                    placed[id(p)] = name
                out.append(Tensor(name, _shape(spec, piece), held, layer, direction))
        if len(placed) != len(cell.parameters):
            lost = [p for p in cell.parameters if id(p) not in placed]
            raise ValueError(
                f"{self.name} has no tensor for {_described(cell, lost[0])}"
                + (f" (nor for {len(lost) - 1} more)" if len(lost) > 1 else "")
                + f": the convention ({self.source}) cannot hold the {cell.name} cell"
            )
        return out


def _described(cell: Cell, p: Parameter) -> str:
    """How an error message names a parameter: cell, LaTeX symbol, kind, group, gate."""
    return f"the {cell.name} cell's parameter ${p.symbol.name}$ (kind {p.kind!r}, group {p.group!r}, gate {p.gate!r})"


def _quotient(a: Size, b: Size) -> Size:
    """``a / b`` of sizes: exact int division for ints (the cell checked it divides), else SymPy's."""
    if type(a) is int and type(b) is int:
        assert a % b == 0, (a, b)
        return a // b
    return sympy.Mul(a, sympy.Pow(b, -1))


def _shape(spec: TensorLayout, blocks: list[list[Parameter]]) -> tuple[Size, ...]:
    """Shape of the tensor ``spec`` holding ``blocks`` (one list of gate blocks per group)."""
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

