"""Framework conventions: how a cell's parameters are laid out in named tensors.

A convention does not change what a cell computes; it says which of the cell's
weights and biases a framework stores together, under which name, in which
gate order and with which shape. Adding a framework is adding one
:class:`Convention` value.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import sympy

from .cells import Cell, Parameter

__all__ = ["Tensor", "TensorLayout", "Convention", "PYTORCH"]


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
    direction : int
        0 forward, 1 reverse.
    """

    name: str
    shape: tuple
    parameters: tuple[Parameter, ...]
    layer: object = None
    direction: int = 0

    @property
    def numel(self) -> sympy.Expr:
        """Number of scalar parameters in the tensor."""
        return sympy.Mul(*self.shape)


@dataclass(frozen=True)
class TensorLayout:
    """One framework tensor: its base name and which parameters it stacks.

    Attributes
    ----------
    name : str
        Base name (``"weight_ih"``, ``"kernel"``, ...).
    kind : {"weight", "bias"}
    groups : tuple of str
        Parameter groups held (``"ih"``, ``"hh"``, ``"hr"``). With more than one group present
        the tensor gets a leading axis, one entry per group (Keras' GRU bias (2, 3H)).
    transpose : bool
        False: gate blocks stacked along rows, shape (G·H, columns) (PyTorch).
        True: stored transposed, gate blocks side by side, shape (columns, G·H) (Keras).

    Notes
    -----
    A convolution weight (a parameter with a ``kernel_size``, see
    :class:`derive.cells.Parameter`) of columns K·C, K = k_1···k_n, is presented as a
    convolution kernel: (k_1, ..., k_n, C, G·F) when ``transpose`` (Keras ``ConvLSTM*D``),
    (G·F, C, k_1, ..., k_n) otherwise (the ``torch.nn.Conv*d`` order).
    """

    name: str
    kind: str
    groups: tuple[str, ...]
    transpose: bool = False


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
    """

    name: str
    tensors: tuple[TensorLayout, ...]
    layer_name: Callable[[str, object, int], str]
    source: str
    biases: Mapping[str, str] = field(default_factory=dict)
    gate_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def bias_policy(self, mode: str, bias: bool, reset_after: bool = True) -> str:
        """The bias policy of ``mode``'s cell in this framework; ``"none"`` when ``bias`` is False.

        ``reset_after`` selects the GRU variant (a key ``(mode, reset_after)`` in :attr:`biases`
        takes precedence over ``mode``).
        """
        if not bias:
            return "none"
        return self.biases.get((mode, reset_after), self.biases.get(mode, "two"))

    def layout(self, cell: Cell, layer=None, direction: int = 0) -> list[Tensor]:
        """Lay out ``cell``'s parameters in this framework's tensors.

        Gate blocks are stacked in the framework's gate order, so a stacked weight
        has shape (G·H, columns) — or (columns, G·H) when stored transposed — and a
        stacked bias (G·H,). Tensors whose parameters do not appear in the cell
        (``bias=False``, no projection) are absent, as in the framework. Convolution weights
        are presented as kernels (see :class:`TensorLayout`).
        """
        order = {gate: k for k, gate in enumerate(self.gate_order.get(cell.name, cell.gates))}
        out = []
        for spec in self.tensors:
            blocks = []
            for group in spec.groups:
                held = [p for p in cell.parameters if (p.kind, p.group) == (spec.kind, group)]
                if held:
                    blocks.append(sorted(held, key=lambda p: order.get(p.gate, 0)))
            if not blocks:
                continue
            rows = {sympy.Add(*(p.shape[0] for p in held)) for held in blocks}
            cols = {p.shape[1] for held in blocks for p in held}
            kernels = {p.kernel_size for held in blocks for p in held}
            assert len(rows) == 1 and len(cols) == 1 and len(kernels) == 1, f"{spec.name}: blocks of unequal shape"
            rows, cols, kernel = rows.pop(), cols.pop(), kernels.pop()
            if spec.kind == "bias":
                shape = (rows,)
            elif kernel:
                per_tap = sympy.Mul(cols, sympy.Pow(sympy.Mul(*kernel), -1))  # C of K·C columns
                shape = (*kernel, per_tap, rows) if spec.transpose else (rows, per_tap, *kernel)
            else:
                shape = (cols, rows) if spec.transpose else (rows, cols)
            if len(blocks) > 1:
                shape = (len(blocks),) + shape
            held = tuple(p for block in blocks for p in block)
            out.append(Tensor(self.layer_name(spec.name, layer, direction), shape, held, layer, direction))
        return out


def _torch_name(base: str, layer, direction: int) -> str:
    if layer is None:
        return base
    return f"{base}_l{layer}" + ("_reverse" if direction == 1 else "")


#: PyTorch (``torch/nn/modules/rnn.py``, ``RNNBase.__init__`` and ``RNNCellBase``): two bias
#: vectors per layer and direction, gate blocks stacked along rows (LSTM i, f, g, o; GRU r, z, n).
PYTORCH = Convention(
    name="PyTorch",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_hr", "weight", ("hr",)),
    ),
    layer_name=_torch_name,
    source="torch/nn/modules/rnn.py (RNNBase.__init__, RNNCellBase.__init__)",
)
