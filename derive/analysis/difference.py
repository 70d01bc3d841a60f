"""Symbolic comparison of two stacks: how many parameters more, and which tensors hold them.

:func:`compare` subtracts two configurations' counts and attributes the difference
to its cause: tensor by tensor, matched by layer, direction and role (input weights,
recurrent weights, input-side bias, ...), it lists every tensor whose size differs
or that only one of them has, with the two shapes, the difference per tensor and how
many such tensors there are. The sum of those changes is, by construction and
checked, the difference of the counts.

>>> from derive import I, H, L
>>> from derive.frameworks.pytorch import PYTORCH
>>> from derive.engine.stack import Stack
>>> from derive.engine.wirings import SIMPLE_CONCAT
>>> import derive.torch as dt
>>> concat = Stack("LSTM", I, H, L, True, 0, PYTORCH, SIMPLE_CONCAT)
>>> compare(dt.LSTM(I, H, L, bidirectional=True), concat).total
8*H**2*(L - 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from .._sympy import sympy
from ..engine.conventions import Tensor
from ..engine.stack import UPPER, Stack
from ..engine.symbols import Size, plain
from ..engine.validate import shown

__all__ = ["Change", "Difference", "compare", "LISTED_LAYERS", "MAX_UNEQUAL_LAYERS"]

_DIRECTIONS = {0: "forward", 1: "reverse"}


@dataclass(frozen=True)
class Change:
    """Tensors of one layer (or layer group) and role whose size differs between ``a`` and ``b``.

    Attributes
    ----------
    tensors : tuple of str
        Their names (``a``'s, or ``b``'s where ``a`` has none); a layer index >= 1 standing for
        every such layer is written ``{k}``, e.g. ``"weight_ih_l{k}_reverse"``.
    directions : tuple of str
        ``"forward"``, ``"reverse"`` (one per tensor).
    layer : int, sympy.Symbol or None
        The layer: an int, :data:`derive.engine.stack.UPPER` (every layer 1 .. L - 1), or None for the
        output layer.
    shape_a, shape_b : tuple or None
        Shape of one such tensor in ``a`` and in ``b``; None where that configuration has none.
    each : sympy.Expr
        Parameters of one tensor in ``a`` minus in ``b``.
    times : sympy.Expr
        How many such tensors: directions x layers (L - 1 for :data:`~derive.engine.stack.UPPER`).
    reason : str
        In words: ``"shape differs"``, ``"only in a"``, ``"only in b"``, or ``"tied across directions
        in b (stored once)"``.
    """

    tensors: tuple[str, ...]
    directions: tuple[str, ...]
    layer: object
    shape_a: tuple | None
    shape_b: tuple | None
    each: sympy.Expr
    times: sympy.Expr
    reason: str

    @property
    def amount(self) -> sympy.Expr:
        """Parameters this change accounts for: ``each * times``, factored."""
        return sympy.factor(self.each * self.times)

    @property
    def layers(self) -> str:
        """Which layers, in words: ``"layer 0"``, ``"layers 1 to L - 1"``, ``"output layer"``."""
        if self.layer is None:
            return "output layer"
        if self.layer == UPPER:
            return "every layer k >= 1"
        return f"layer {self.layer}"

    @property
    def layers_latex(self) -> str:
        """:attr:`layers` in LaTeX."""
        if self.layer is None:
            return r"\text{output layer}"
        if self.layer == UPPER:
            return r"1 \le k \le L - 1"
        return rf"\text{{layer }} {self.layer}"

    def __str__(self) -> str:
        shapes = f"{_shape(self.shape_a)} vs {_shape(self.shape_b)}"
        return (
            f"{', '.join(self.tensors)} ({self.layers}): {shapes}, {self.reason}: "
            f"{sympy.factor(self.each)} each x {self.times} = {self.amount}"
        )


@dataclass(frozen=True)
class Difference:
    """``a.count - b.count`` and the tensors it comes from.

    Attributes
    ----------
    total : sympy.Expr
        ``a.count - b.count``, factored; 0 when they have the same number of parameters.
    changes : tuple of Change
        The tensors whose sizes differ, in ``a``'s order (then ``b``'s); their amounts add up to
        :attr:`total`.
    """

    total: sympy.Expr
    changes: tuple[Change, ...]

    def __str__(self) -> str:
        lines = [f"a - b = {self.total}"] + [f"  {c}" for c in self.changes]
        return "\n".join(lines)

    def latex(self) -> str:
        """The total as the sum of the changes' amounts, in LaTeX (``0`` if there is none)."""
        if not self.changes:
            return "0"
        terms = [sympy.latex(c.amount) for c in self.changes]
        out = terms[0]
        for term in terms[1:]:
            out += term if term.startswith("-") else f" + {term}"
        return out

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self.latex()} = {sympy.latex(self.total)}$"


def _shape(shape: tuple[Size, ...] | None) -> str:
    return (
        "absent" if shape is None else "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    )


def _role(tensor: Tensor) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({(p.kind, p.group) for p in tensor.parameters}))


#: Equal int ``num_layers`` up to this many are compared layer by layer (one change per layer);
#: beyond, layers >= 1 are compared once, as :data:`~derive.engine.stack.UPPER` with multiplicity L - 1
#: (every layer >= 1 of a stack has the same tensors): the work does not grow with L.
LISTED_LAYERS = 8
#: Stacks of different int ``num_layers`` are matched layer by layer: at most this many layers.
MAX_UNEQUAL_LAYERS = 1_000


def _check_stack(stack: object, name: str) -> None:
    if not all(hasattr(stack, attr) for attr in ("layer_tensors", "num_layers", "count")):
        raise TypeError(
            f"{name} must be a derive.engine.stack.Stack (or an adapter object such as derive.torch.LSTM), "
            f"got {type(stack).__name__}"
        )


def _groups(stack: Stack, by_layer: bool) -> list[tuple[object, object, list]]:
    """(layer, multiplicity, tensors) of ``stack``: each layer, or layer 0 and UPPER (L - 1 of them)."""
    layers = stack.num_layers
    if by_layer:
        groups = [(k, sympy.Integer(1), stack.layer_tensors(k)) for k in range(int(layers))]
    else:
        groups = [(0, sympy.Integer(1), stack.layer_tensors(0))]
        if layers != 1:
            groups.append((UPPER, layers - 1, stack.layer_tensors(UPPER)))
    return groups + [(None, sympy.Integer(1), list(getattr(stack, "output_tensors", [])))]


def _display_name(tensor: Tensor) -> str:
    return tensor.name.replace(f"_l{UPPER}", "_l{k}")


def _tied(stack: Stack, tensor: Tensor) -> bool:
    wiring = getattr(stack, "wiring", None)
    return wiring is not None and (tensor.direction or 0) > 0 and all(role in wiring.shared for role in _role(tensor))


def compare(a: Stack, b: Stack) -> Difference:
    """How many parameters ``a`` has more than ``b``, attributed to tensors.

    Parameters
    ----------
    a, b : derive.engine.stack.Stack
        Two configurations (any cell, convention and wiring, e.g. ``derive.torch.LSTM(I, H, L,
        bidirectional=True)`` or a :class:`~derive.engine.stack.Stack` with another wiring). Tensors are
        matched by layer, direction and role (which of the cell's parameter groups they hold), so
        configurations of different frameworks can be compared.

    Returns
    -------
    Difference
        ``total`` = ``a.count - b.count`` as a factored SymPy expression, and the ``changes`` it is
        made of.

    Raises
    ------
    TypeError
        ``a`` or ``b`` is not a stack.
    ValueError
        ``a.num_layers`` and ``b.num_layers`` differ and one of them is symbolic (the layers cannot
        be matched; compare with int layers instead), or both are ints, differ and one exceeds
        :data:`MAX_UNEQUAL_LAYERS`.
    RuntimeError
        The changes found do not add up to ``a.count - b.count`` (an internal consistency check:
        a stack whose count is not the sum of its tensors).

    Notes
    -----
    Equal int depths up to :data:`LISTED_LAYERS` give one change per layer; deeper stacks give
    layer 0 and "every layer k >= 1" (multiplicity L - 1), so a comparison of 10**9 layers costs
    what one of 2 layers does.

    Examples
    --------
    PyTorch's deep bidirectional LSTM minus two independent stacks (the home page's question) is
    ``8*H**2*(L - 1)``: the extra H input columns of ``weight_ih_l{k}`` and
    ``weight_ih_l{k}_reverse`` in every layer k >= 1.
    """
    _check_stack(a, "a")
    _check_stack(b, "b")
    layers_a, layers_b = plain(a.num_layers), plain(b.num_layers)
    symbolic = not isinstance(layers_a, int) or not isinstance(layers_b, int)
    if symbolic and sympy.simplify(layers_a - layers_b) != 0:
        raise ValueError(
            f"a.num_layers ({layers_a}) and b.num_layers ({layers_b}) must be equal when either is symbolic"
        )
    if not symbolic and layers_a != layers_b and max(layers_a, layers_b) > MAX_UNEQUAL_LAYERS:
        raise ValueError(
            f"a.num_layers ({shown(layers_a)}) and b.num_layers ({shown(layers_b)}) differ: stacks of different "
            f"depths are matched layer by layer, at most {MAX_UNEQUAL_LAYERS:,} layers (equal depths: any number)"
        )
    by_layer = not symbolic and (layers_a != layers_b or layers_a <= LISTED_LAYERS)
    groups_a, groups_b = _groups(a, by_layer), _groups(b, by_layer)
    # (layer, direction, role) -> (tensor, multiplicity), in order of appearance
    entries: dict = {}
    for side, groups in (("a", groups_a), ("b", groups_b)):
        for layer, times, tensors in groups:
            for t in tensors:
                key = (layer, t.direction, _role(t))
                entries.setdefault(key, {"times": times})[side] = t
    rows: dict = {}
    for (layer, direction, role), entry in entries.items():
        ta, tb = entry.get("a"), entry.get("b")
        each = (ta.numel if ta is not None else 0) - (tb.numel if tb is not None else 0)
        if sympy.expand(each) == 0:
            continue
        if ta is not None and tb is not None:
            reason = "shape differs"
        elif ta is None:
            reason = "tied across directions in a (stored once)" if _tied(a, tb) else "only in b"
        else:
            reason = "tied across directions in b (stored once)" if _tied(b, ta) else "only in a"
        shape_a = None if ta is None else tuple(ta.shape)
        shape_b = None if tb is None else tuple(tb.shape)
        group = (layer, role, shape_a, shape_b, reason)
        name = _display_name(ta if ta is not None else tb)
        if tb is not None and ta is not None and tb.name != ta.name:
            name = f"{name} / {_display_name(tb)}"
        row = rows.setdefault(group, {"names": [], "directions": [], "each": each, "times": 0})
        row["names"].append(name)
        row["directions"].append(_DIRECTIONS.get(direction, str(direction)))
        row["times"] += entry["times"]
    changes = tuple(
        Change(
            tuple(r["names"]),
            tuple(r["directions"]),
            layer,
            shape_a,
            shape_b,
            r["each"],
            sympy.factor(r["times"]),
            reason,
        )
        for (layer, role, shape_a, shape_b, reason), r in rows.items()
    )
    total = sympy.expand(a.count - b.count)
    if sympy.expand(sum((c.each * c.times for c in changes), sympy.Integer(0)) - total) != 0:
        raise RuntimeError(f"internal error: the changes do not add up to a.count - b.count = {total}")
    return Difference(sympy.factor(total), changes)
