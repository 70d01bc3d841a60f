"""A stack as a module tree (:mod:`derive.tree`): one child per layer, or layer 0 and a repeated group.

The layers of a :class:`~derive.engine.stack.Stack` become children of one module (named as the
framework names the layer object, shown as one row): each layer a group (name ``""``, so it adds
nothing to the tensors' dotted names) holding its directions' tensors as the convention names them,
then the output layer. With an int number of layers up to :data:`derive.tree.MAX_LISTED` every
layer is explicit; otherwise layer 0 is followed by one group standing for layers 1 .. L - 1
(``repeat = L - 1``, ``start = 1``, ``{k}`` in its tensors' names), so that
:func:`derive.tree.count` gives the layer sum ``C_0 + (L - 1) C_1`` -- the one place it is computed.
When every size is an int the cells are built in the shape-only mode
(:mod:`derive.engine.algebra`): the tree holds ints and no SymPy object is made.
"""

from __future__ import annotations

from typing import Any

from ..tree import MAX_LISTED, Module, Param
from .readout import output_module

#: A :class:`derive.engine.stack.Stack` (which imports this module: typed loosely, no cycle).
Stack = Any

__all__ = ["CopyIndex", "COPY", "layer_module", "stack_module", "is_numeric"]


class CopyIndex:
    """The index ``{k}`` of a copy of a repeated layer group, as a convention's ``layer_name`` uses it.

    It formats as ``{k}`` (``weight_ih_l{k}``), which :mod:`derive.tree` fills with each copy's
    index. A convention that numbers its modules from the layer (Haiku's ``lstm_<2k + 1>``)
    gets ``2*{k} + 1``: a name that says which module it is, but that a listing cannot fill.
    It equals no int (a layer of the group is never layer 0) and is true.

    Parameters
    ----------
    scale, offset : int
        ``scale * k + offset``.

    Examples
    --------
    >>> f"lstm_{COPY * 2 + 1}", f"cell_{COPY}"
    ('lstm_2*{k} + 1', 'cell_{k}')
    """

    __slots__ = ("scale", "offset")

    def __init__(self, scale: int = 1, offset: int = 0) -> None:
        self.scale = scale
        self.offset = offset

    def __mul__(self, other: int) -> CopyIndex:
        return CopyIndex(self.scale * other, self.offset * other)

    __rmul__ = __mul__

    def __add__(self, other: int) -> CopyIndex:
        return CopyIndex(self.scale, self.offset + other)

    __radd__ = __add__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CopyIndex) and (self.scale, self.offset) == (other.scale, other.offset)

    def __hash__(self) -> int:
        return hash((CopyIndex, self.scale, self.offset))

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        text = "{k}" if self.scale == 1 else f"{self.scale}*{{k}}"
        return text if self.offset == 0 else f"{text} + {self.offset}"

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


#: The copy index ``{k}`` of the repeated group.
COPY = CopyIndex()


def _plain_option(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_plain_option(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def is_numeric(stack: Stack) -> bool:
    """Whether every size of ``stack`` but ``num_layers`` is an int (its cells then have int shapes).

    Parameters
    ----------
    stack : Stack

    Returns
    -------
    bool
    """
    sizes = (stack.input_size, stack.hidden_size, stack.proj_size, stack.output_features)
    if not all(type(s) is int for s in sizes):
        return False
    labels = stack.wiring.labels
    if labels is not None and type(labels.classes) is not int:
        return False
    return all(_plain_option(v) for _, v in stack.cell_options)


def layer_module(stack: Stack, layer: Any, numeric: bool, repeat: Any = 1) -> Module:
    """Layer ``layer`` of ``stack`` (every direction) as a group module.

    Parameters
    ----------
    stack : Stack
    layer : int or CopyIndex
        A layer index, or :data:`COPY` for the group standing for every layer >= 1.
    numeric : bool
        Build the cells in the shape-only mode (see :func:`is_numeric`).
    repeat : int or sympy.Expr, default 1
        For :data:`COPY`: how many layers the group stands for (from layer 1).

    Returns
    -------
    derive.tree.Module
        Named ``""``; its parameters in the framework's order, a tensor the wiring ties across
        directions once (direction 0's), a frozen one with ``trainable=False``.
    """
    width_layer = 1 if isinstance(layer, CopyIndex) else layer  # every layer >= 1 reads the same width
    widths = [stack.layer_input_size(width_layer, d) for d in range(stack.wiring.num_directions)]
    first = stack.cell_for(widths[0], numeric=numeric)
    cells = [first if w == widths[0] else stack.cell_for(w, numeric=numeric) for w in widths]
    name_layer = None if stack.single_cell else layer
    entries = stack.convention.layer_entries(cells, name_layer, bias=stack.bias)
    shares = stack.wiring.shares
    params = tuple(
        Param(name, shape, trainable)
        for name, shape, held, direction, trainable in entries
        if not shares(direction, held)
    )
    if isinstance(layer, CopyIndex):
        return Module("", "layer", params, repeat=repeat, start=1)
    return Module("", "layer", params)


def stack_module(stack: Stack, name: str, type_name: str, expand: bool) -> Module:
    """``stack`` as a module tree (see the module's description).

    Parameters
    ----------
    stack : Stack
    name : str
        The module's name in its parent ("" at the root).
    type_name : str
        Its type (the framework's class name).
    expand : bool
        List an int number of layers up to :data:`derive.tree.MAX_LISTED` one by one; False gives
        layer 0 and a repeated group for more than two (what the count reads: its cost does not
        grow with L).

    Returns
    -------
    derive.tree.Module
    """
    numeric = is_numeric(stack)
    layers = stack.num_layers
    if type(layers) is not int and getattr(layers, "is_Integer", False):
        layers = int(layers)
    if type(layers) is int and (layers <= 2 or (expand and layers <= MAX_LISTED)):
        children = [layer_module(stack, k, numeric) for k in range(layers)]
    else:
        children = [layer_module(stack, 0, numeric)]
        if layers != 1:
            children.append(layer_module(stack, COPY, numeric, repeat=layers - 1))
    if stack.output_features != 0:
        width = stack.wiring.output_layer_input_size(stack.output_size)
        children.append(output_module(width, stack.output_features, numeric=numeric))
    config = {
        "mode": stack.mode,
        "input_size": stack.input_size,
        "hidden_size": stack.hidden_size,
        "num_layers": stack.num_layers,
        "bias": stack.bias,
        "proj_size": stack.proj_size,
    }
    states = () if stack.convention.cache is None else stack.convention.cache(stack)
    return Module(name, type_name, children=tuple(children), config=config, row=True, cache=states)
