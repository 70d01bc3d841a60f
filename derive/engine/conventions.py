"""Framework conventions: how a cell's parameters are laid out in named tensors.

A convention does not change what a cell computes; it says which of the cell's
weights and biases a framework stores together, under which name, in which
gate order and with which shape. A framework declares its :class:`Convention` in its
own module of :mod:`derive.frameworks`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._sympy import sympy
from .cell import BIAS_POLICIES, Cell, Parameter
from .registry import CELLS
from .symbols import Size
from .tensors import JOINS, KINDS, Tensor, TensorLayout, tensor_shape

__all__ = ["Tensor", "TensorLayout", "Convention", "KINDS", "JOINS", "Entry"]

#: One tensor of a layer as :meth:`Convention.layer_entries` gives it: (name, shape, the parameters
#: it holds, its direction or None for all, trainable).
Entry = tuple[str, tuple[Size, ...], tuple[Parameter, ...], int | None, bool]


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
    cache : callable or None
        ``cache(stack) -> tuple of derive.tree.State``: the states the framework's layer hands
        back for the next call (torch's ``h_n`` and ``c_n``), kept on the stack's module tree
        (:attr:`derive.tree.Module.cache`); None where derive does not state them.
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
    cache: Callable[[Any], tuple[Any, ...]] | None = None

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
            Layer index (:data:`derive.engine.stack.UPPER` for any layer >= 1); None for a single cell.
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
            Layer index (:data:`derive.engine.stack.UPPER` for any layer >= 1); None for a single cell.
        bias : bool, default True
            The layer's bias flag.

        Returns
        -------
        list of Tensor
            In the framework's parameter order; shapes in units of scalar parameters per axis.
        """
        return [
            Tensor(name, shape, held, layer, direction, trainable)
            for name, shape, held, direction, trainable in self.layer_entries(cells, layer, bias=bias)
        ]

    def layer_entries(self, cells: Sequence[Cell], layer: Any = None, *, bias: bool = True) -> list[Entry]:
        """:meth:`layer_layout` as plain tuples ``(name, shape, parameters, direction, trainable)``.

        The layer-level rules are written here once; :meth:`layer_layout` makes them
        :class:`Tensor` objects, :mod:`derive.engine.stack_tree` tree parameters.

        Parameters
        ----------
        cells : sequence of Cell
        layer : int, sympy.Symbol or None
        bias : bool, default True

        Returns
        -------
        list of tuple
        """
        count = len(cells)
        frozen = not bias and self.frozen_bias
        per_direction = []
        for d, cell in enumerate(cells):
            entries: list[Entry] = []
            for base, shape, held in self._skeleton(cell):
                trainable = not (frozen and all(p.kind == "bias" for p in held))
                entries.append((self.tensor_name(base, layer, d, count), shape, held, d, trainable))
            per_direction.append(entries)
        if not self.direction_axis:
            return [e for entries in per_direction for e in entries]
        merged: list[Entry] = []
        for same in zip(*per_direction, strict=True):
            assert len({e[0] for e in same}) == 1 and len({e[1] for e in same}) == 1, same
            shape = same[0][1]
            shape = shape[:-1] + (len(same) * shape[-1],) if self.direction_axis == "last" else (len(same),) + shape
            merged.append((same[0][0], shape, tuple(p for e in same for p in e[2]), None, same[0][4]))
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
            Layer index (:data:`derive.engine.stack.UPPER` for any layer >= 1); None for a single cell.
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
        return [
            Tensor(self.tensor_name(base, layer, direction, num_directions), shape, held, layer, direction)
            for base, shape, held in self._skeleton(cell)
        ]

    def _skeleton(self, cell: Cell) -> tuple[tuple[str, tuple[Size, ...], tuple[Parameter, ...]], ...]:
        """(base name, shape, parameters held) of each tensor of ``cell``, derived once per cell."""
        key = (id(self), id(cell))
        hit = _SKELETONS.get(key)
        if hit is not None:
            return hit[2]
        order: dict[str | None, int] = {gate: k for k, gate in enumerate(self.gate_order.get(cell.name, cell.gates))}
        by_role: dict[tuple[str, str], list[Parameter]] = {}
        for p in cell.parameters:
            by_role.setdefault((p.kind, p.group), []).append(p)
        out = []
        placed: dict[int, str] = {}
        for spec in self.tensors:
            blocks: list[list[Parameter]] = []
            for group in spec.groups:
                held = [p for p in by_role.get((spec.kind, group), ()) if spec.gates is None or p.gate in spec.gates]
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
                parameters = tuple(p for block in piece for p in block)
                for p in parameters:
                    if id(p) in placed:
                        raise ValueError(
                            f"{self.name} places {_described(cell, p)} twice, in {placed[id(p)]!r} and {base!r}"
                        )
                    placed[id(p)] = base
                out.append((base, tensor_shape(spec, piece), parameters))
        if len(placed) != len(cell.parameters):
            lost = [p for p in cell.parameters if id(p) not in placed]
            raise ValueError(
                f"{self.name} has no tensor for {_described(cell, lost[0])}"
                + (f" (nor for {len(lost) - 1} more)" if len(lost) > 1 else "")
                + f": the convention ({self.source}) cannot hold the {cell.name} cell"
            )
        if len(_SKELETONS) >= _MAX_SKELETONS:
            _SKELETONS.clear()
        skeleton = tuple(out)
        _SKELETONS[key] = (self, cell, skeleton)
        return skeleton


#: (id of a convention, id of a cell) -> (the convention, the cell, its tensors' skeleton): the
#: objects are held so that their ids stay theirs. Cells are cached by their builders, so the
#: directions and layers of a stack that share a cell share its layout.
_SKELETONS: dict[
    tuple[int, int], tuple[Convention, Cell, tuple[tuple[str, tuple[Size, ...], tuple[Parameter, ...]], ...]]
] = {}
_MAX_SKELETONS = 4096


def _described(cell: Cell, p: Parameter) -> str:
    """How an error message names a parameter: cell, LaTeX symbol, kind, group, gate."""
    return f"the {cell.name} cell's parameter ${p.symbol.name}$ (kind {p.kind!r}, group {p.group!r}, gate {p.gate!r})"
