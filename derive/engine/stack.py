"""A stack of recurrent layers: one cell, one convention, one wiring.

The count of a stack is the sum of the sizes of the tensors the convention
lays out for every layer and direction, each layer's cell built with the input
width the wiring gives it. With a symbolic number of layers ``L`` the count is
``C_0 + (L - 1) C_1``, where ``C_0`` is layer 0's count (all directions) and
``C_1`` that of any layer >= 1, which all read the same width; it holds for
every ``L >= 1``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import sympy

from ..cells import CELLS, make_cell
from .conventions import Convention, Tensor
from .equations import Cell
from .symbols import Size, plain
from .validate import shown
from .wirings import Wiring

__all__ = ["Stack", "UPPER", "layer_sum", "FORMATTERS"]

#: Stands for "any layer l >= 1" where a layer index is expected.
UPPER = sympy.Symbol("k", integer=True, positive=True)


def layer_sum(first: sympy.Expr, upper: sympy.Expr, num_layers: Size) -> sympy.Expr:
    """The layer sum: ``first + (num_layers - 1) * upper``, expanded -- the one place it is written.

    Every layer >= 1 of a stack reads the same width, so a quantity summed over the layers
    (parameters, MACs, bytes) is layer 0's value plus L - 1 times that of any upper layer; with a
    symbolic ``num_layers`` the closed form holds for every L >= 1. Nothing iterates layers.

    Parameters
    ----------
    first : sympy.Expr
        Layer 0's value (all directions, plus anything counted once, such as an output layer).
    upper : sympy.Expr
        The value of any one layer >= 1 (all directions).
    num_layers : int or sympy.Expr
        L >= 1.

    Returns
    -------
    sympy.Expr
        Expanded.

    Examples
    --------
    >>> from derive import L
    >>> layer_sum(sympy.Integer(10), sympy.Integer(4), L)
    4*L + 6
    """
    if num_layers == 1:
        return sympy.expand(first)
    return sympy.expand(first + (num_layers - 1) * upper)


#: Notebook display of a stack, by MIME kind (``"latex"``, ``"html"``): filled by
#: :mod:`derive.render.display` when it is imported (``import derive`` does), so that the engine
#: does not depend on the renderers.
FORMATTERS: dict[str, Callable[[Stack], str]] = {}

#: Most layers :attr:`Stack.tensors` and :attr:`Stack.shapes` list one by one; a larger
#: ``num_layers`` (say 10**30) is refused with ValueError instead of never finishing.
MAX_LISTED_LAYERS = 10_000


class Stack:
    """Parameters of a recurrent stack, derived from its cell's equations.

    Parameters
    ----------
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
        The cell (PyTorch's mode names).
    input_size, hidden_size : int or sympy.Expr
        I and H.
    num_layers : int or sympy.Expr
        L.
    bias : bool
    proj_size : int or sympy.Expr
        P, 0 for none (LSTM only).
    convention : Convention
    wiring : Wiring
    single_cell : bool
        Name tensors without a layer suffix (``torch.nn.LSTMCell``).
    reset_after : bool
        GRU only: where the reset gate is applied (see :func:`derive.cells.gru`).
    cell_options : tuple of (str, value)
        Further options of the cell, passed to :func:`derive.cells.make_cell` (``peepholes``
        for the LSTM, ``reset_gate`` for the MGU, ``kernel_size`` for the ConvLSTM).
    output_features : int or sympy.Expr, default 0
        O: an output layer ``y_t = W_y v_t + b_y`` (``torch.nn.Linear``, see :mod:`derive.readout`)
        on top of the last layer, reading what the wiring hands on (D·H_out, see
        :meth:`derive.wirings.Wiring.output_layer_input_size`); 0 for none.

    Notes
    -----
    Each direction's cell is built with the input width the wiring gives that layer and direction;
    a tensor the wiring ties across directions (:attr:`derive.wirings.Wiring.shared`) is listed and
    counted once, under direction 0's name.
    Arguments are not validated here; the framework adapters (:mod:`derive.torch`) do that.
    """

    def __init__(
        self,
        mode: str,
        input_size: Size,
        hidden_size: Size,
        num_layers: Size,
        bias: bool,
        proj_size: Size,
        convention: Convention,
        wiring: Wiring,
        *,
        single_cell: bool = False,
        reset_after: bool = True,
        output_features: Size = 0,
        cell_options: Iterable[tuple[str, Any]] = (),
    ) -> None:
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.proj_size = proj_size
        self.convention = convention
        self.wiring = wiring
        self.single_cell = single_cell
        self.reset_after = reset_after
        self.output_features = output_features
        self.cell_options = tuple(cell_options)

    @property
    def output_size(self) -> Size:
        """H_out: ``proj_size`` if it is not 0, else ``hidden_size``."""
        return self.proj_size if self.proj_size != 0 else self.hidden_size

    def check_layer(self, layer: object) -> int | sympy.Symbol:
        """``layer`` as an index of this stack: an int in ``range(num_layers)``, or :data:`UPPER`.

        With a symbolic ``num_layers`` any int >= 0 is accepted (the answer holds for stacks deep
        enough to have that layer); :data:`UPPER` needs a stack that may have a layer >= 1.

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.

        Returns
        -------
        int or sympy.Symbol
            ``layer`` (a ``sympy.Integer`` as an int).

        Raises
        ------
        TypeError
            ``layer`` is neither an int (bools excluded) nor :data:`UPPER`.
        ValueError
            ``layer`` is negative, not below an int ``num_layers``, or :data:`UPPER` for one layer.
        """
        layers = plain(self.num_layers)
        allowed = (
            f"an int in range(num_layers) = range(0, {layers}) or UPPER (any layer k >= 1)"
            if isinstance(layers, int)
            else "an int >= 0 or UPPER (any layer k >= 1)"
        )
        if isinstance(layer, sympy.Symbol) and layer == UPPER:
            if layers == 1:
                raise ValueError("layer UPPER (any layer k >= 1) does not exist: num_layers is 1; layer must be 0")
            return UPPER
        if isinstance(layer, sympy.Integer):
            layer = int(layer)
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise TypeError(f"layer must be {allowed}, got {type(layer).__name__}")
        if layer < 0 or (isinstance(layers, int) and layer >= layers):
            raise ValueError(f"layer must be {allowed}, got {shown(layer)}")
        return layer

    def layer_input_size(self, layer: int | sympy.Expr, direction: int = 0) -> Size:
        """Input width of ``layer`` (int, or :data:`UPPER` for any layer >= 1) in ``direction`` (0 forward).

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.
        direction : int, default 0
            0 forward, 1 reverse.

        Returns
        -------
        int or sympy.Expr
            Features per time step.

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`).
        """
        layer = self.check_layer(layer)
        return self.wiring.layer_input_size(layer, self.input_size, self.output_size, direction)

    def cell(self, layer: int | sympy.Expr = 0, direction: int = 0) -> Cell:
        """The cell of ``layer`` and ``direction`` (its equations, with that input width).

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.
        direction : int, default 0
            0 forward, 1 reverse.

        Returns
        -------
        Cell

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`).
        """
        layer = self.check_layer(layer)
        bias = self.convention.bias_policy(self.mode, self.bias, self.reset_after)
        return make_cell(
            self.mode,
            self.layer_input_size(layer, direction),
            self.hidden_size,
            bias,
            self.proj_size,
            self.reset_after,
            **dict(self.cell_options),
        )

    def layer_tensors(self, layer: int | sympy.Expr) -> list[Tensor]:
        """Tensors of every direction of ``layer`` (int, or :data:`UPPER` for any layer >= 1).

        A tensor the wiring ties across directions appears once, as direction 0's.

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.

        Returns
        -------
        list of Tensor
            In the framework's parameter order.

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`).
        """
        layer = self.check_layer(layer)
        name_layer = None if self.single_cell else layer
        cells = [self.cell(layer, d) for d in range(self.wiring.num_directions)]
        return [t for t in self.convention.layer_layout(cells, name_layer, bias=self.bias) if not self.wiring.ties(t)]

    def output_cell(self) -> Cell | None:
        """The output layer's equation (:func:`derive.readout.output_layer`), or None without one."""
        if self.output_features == 0:
            return None
        from .readout import output_layer

        return output_layer(self.wiring.output_layer_input_size(self.output_size), self.output_features)

    @property
    def output_tensors(self) -> list[Tensor]:
        """The output layer's tensors (``output.weight``, ``output.bias``), [] without one."""
        from .readout import LINEAR

        cell = self.output_cell()
        return [] if cell is None else LINEAR.layout(cell)

    def layer_count(self, layer: int | sympy.Expr) -> sympy.Expr:
        """Parameters of ``layer``, all directions (units: parameters).

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.

        Returns
        -------
        sympy.Expr
            A ``sympy.Integer`` when every size is an int.

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`), e.g. ``layer_count(5)``
            of a 2-layer stack.
        """
        return sympy.Add(*(t.numel for t in self.layer_tensors(layer)))

    def _layers(self) -> range:
        if not isinstance(self.num_layers, (int, sympy.Integer)):
            raise ValueError(
                f"num_layers is symbolic ({self.num_layers}); per-tensor listings need an int num_layers "
                "(use layer_tensors(0) and layer_tensors(UPPER) for the layer-0 and layer >= 1 tensors)"
            )
        if int(self.num_layers) > MAX_LISTED_LAYERS:
            raise ValueError(
                f"num_layers={self.num_layers} is too many to list tensor by tensor (at most "
                f"{MAX_LISTED_LAYERS:,}); count, layer_count(layer) and layer_tensors(layer) work for any num_layers"
            )
        return range(int(self.num_layers))

    @property
    def tensors(self) -> list[Tensor]:
        """Every tensor, in the framework's parameter order (needs an int num_layers)."""
        return [t for layer in self._layers() for t in self.layer_tensors(layer)] + self.output_tensors

    @property
    def shapes(self) -> OrderedDict[str, tuple[Size, ...]]:
        """Tensor name -> shape, in the framework's order (needs an int num_layers).

        Shapes are tuples of ints when all sizes are ints, of SymPy expressions otherwise.
        """
        return OrderedDict((t.name, tuple(plain(d) for d in t.shape)) for t in self.tensors)

    @property
    def count(self) -> sympy.Expr:
        """Number of parameters: a ``sympy.Integer`` when every size is an int, else a closed form.

        With a symbolic ``num_layers`` L the closed form holds for every L >= 1. When every size
        is an int the derivation's closed form for the stack's structure is evaluated (it is
        derived once per structure and cached, see :func:`_numeric_count`): same result, faster.
        """
        fast = _numeric_count(self)
        if fast is not None:
            return fast
        first = self.layer_count(0) + sympy.Add(*(t.numel for t in self.output_tensors))
        upper = self.layer_count(UPPER) if self.num_layers != 1 else sympy.Integer(0)
        return layer_sum(first, upper, self.num_layers)

    @property
    def factored(self) -> sympy.Expr:
        """:attr:`count`, factored by SymPy."""
        return sympy.factor(self.count)

    def _repr_latex_(self) -> str:
        """Jupyter: the count as LaTeX (layer sum and total, or the closed form); see :mod:`derive.render.display`."""
        return FORMATTERS["latex"](self)

    def _repr_html_(self) -> str:
        """Jupyter: the per-tensor table (name, shape, parameters, total) as HTML; see :mod:`derive.render.display`."""
        return FORMATTERS["html"](self)

    def __int__(self) -> int:
        count = self.count
        if not count.is_Integer:
            raise TypeError(f"the count is symbolic: {count}")
        return int(count)


#: Methods that derive a stack's tensors; a class overriding any of them is not counted by
#: :func:`_numeric_count` (it may depend on more than the key below).
_DERIVING = ("output_size", "layer_input_size", "cell", "layer_tensors", "layer_count", "output_cell", "output_tensors")

#: Structure of a stack -> (its convention, the terms of its count as a polynomial in I, H, L, P).
_COUNT_POLYNOMIALS: dict[tuple[object, ...], tuple[Convention, tuple[tuple[tuple[int, ...], int], ...] | None]] = {}


def _numeric_count(stack: Stack) -> sympy.Expr | None:
    """The count of a stack whose sizes are all ints, from its structure's cached closed form.

    The closed form is the derivation's own :attr:`Stack.count` of the same stack with I, H, L
    (and P, if projected) symbolic, derived once per structure (class, mode, bias, projected or
    not, convention, wiring, single cell, ``reset_after``) and evaluated with Python ints, so
    the result is exact and the same as deriving with the numbers. Returns None (derive as
    usual) for symbolic sizes or a class that overrides how tensors are derived.
    """
    from .symbols import H, I, L, P

    sizes = (stack.input_size, stack.hidden_size, stack.num_layers, stack.proj_size)
    if not all(type(s) is int for s in sizes):
        return None
    entry_type = CELLS.get(stack.mode)
    if entry_type is not None and not entry_type.polynomial:  # ints checked or rounded by the builder
        return None
    cls = type(stack)
    if any(getattr(cls, name, None) is not getattr(Stack, name) for name in _DERIVING):
        return None
    projected = stack.proj_size != 0
    key = (
        cls,
        stack.mode,
        stack.bias,
        projected,
        id(stack.convention),
        stack.wiring,
        type(stack.wiring),
        stack.single_cell,
        stack.reset_after,
        getattr(stack, "output_features", 0),
        getattr(stack, "cell_options", ()),
    )
    try:
        entry = _COUNT_POLYNOMIALS.get(key)
    except TypeError:  # an unhashable attribute: derive as usual
        return None
    if entry is None:
        symbolic = object.__new__(cls)
        symbolic.__dict__.update(stack.__dict__)
        symbolic.input_size, symbolic.hidden_size, symbolic.num_layers = I, H, L
        symbolic.proj_size = P if projected else 0
        poly = sympy.Poly(Stack.count.fget(symbolic), I, H, L, P)  # type: ignore[attr-defined]  # mypy: a property read on its class is typed as the getter
        if not all(c.is_Integer for _, c in poly.terms()):  # another symbol (a wiring's K, an output O)
            _COUNT_POLYNOMIALS[key] = entry = (stack.convention, None)
        else:
            entry = (stack.convention, tuple((m, int(c)) for m, c in poly.terms()))
            _COUNT_POLYNOMIALS[key] = entry
    if entry[1] is None:
        return None
    total = 0
    for (a, b, c, d), coeff in entry[1]:
        total += coeff * sizes[0] ** a * sizes[1] ** b * sizes[2] ** c * sizes[3] ** d
    return sympy.Integer(total)
