"""A stack of recurrent layers: one cell, one convention, one wiring.

The count of a stack is the sum of the sizes of the tensors the convention
lays out for every layer and direction, each layer's cell built with the input
width the wiring gives it. With a symbolic number of layers ``L`` the count is
``C_0 + (L - 1) C_1``, where ``C_0`` is layer 0's count (all directions) and
``C_1`` that of any layer >= 1, which all read the same width; it holds for
every ``L >= 1``.

:meth:`Stack.module` gives the stack as a module tree (:mod:`derive.engine.stack_tree`); the
count, the per-layer counts and the tensor listings are read from it. When every size is an int
they are plain integer arithmetic over cells built in the shape-only mode: no SymPy object.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .. import tree
from .._sympy import symbol as _symbol
from .._sympy import sympy
from .cell import Cell
from .conventions import Convention, Tensor
from .lazy import Registry
from .registry import make_cell
from .stack_tree import COPY, is_numeric, layer_module, stack_module
from .symbols import Size, plain
from .validate import shown
from .wirings import Wiring

__all__ = ["Stack", "UPPER", "layer_sum", "FORMATTERS", "LISTED_LAYERS", "elided_layers", "listed_rows"]


def _upper() -> Any:
    return _symbol("k")


def __getattr__(name: str) -> Any:
    """:data:`UPPER`, made (SymPy imported) on first use."""
    if name == "UPPER":
        return _upper()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    #: Stands for "any layer l >= 1" where a layer index is expected (the symbol k).
    UPPER: sympy.Symbol


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
FORMATTERS: Registry[str, Callable[[Stack], str]] = Registry("stack_formatters")

#: Most layers :attr:`Stack.tensors` and :attr:`Stack.shapes` list one by one (the tree's
#: :data:`derive.tree.MAX_LISTED`); a larger ``num_layers`` (say 10**30) is refused with ValueError
#: instead of never finishing.
MAX_LISTED_LAYERS = tree.MAX_LISTED


class Stack:
    """Parameters of a recurrent stack, derived from its cell's equations.

    Parameters
    ----------
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
        The cell (PyTorch's mode names).
    input_size : int or sympy.Expr
        I, the features of each input step (what layer 0 reads).
    hidden_size : int or sympy.Expr
        H, the features of each layer's hidden state.
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
        O: an output layer ``y_t = W_y v_t + b_y`` (``torch.nn.Linear``, see :mod:`derive.engine.readout`)
        on top of the last layer, reading what the wiring hands on (D·H_out, see
        :meth:`derive.engine.wirings.Wiring.output_layer_input_size`); 0 for none.

    Notes
    -----
    Each direction's cell is built with the input width the wiring gives that layer and direction;
    a tensor the wiring ties across directions (:attr:`derive.engine.wirings.Wiring.shared`) is listed and
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
        if type(layer) is int and layer >= 0 and (type(layers) is not int or layer < layers):
            return layer  # the usual case, decided first
        allowed = (
            f"an int in range(num_layers) = range(0, {layers}) or UPPER (any layer k >= 1)"
            if isinstance(layers, int)
            else "an int >= 0 or UPPER (any layer k >= 1)"
        )
        if isinstance(layer, sympy.Symbol) and layer == _upper():
            if layers == 1:
                raise ValueError("layer UPPER (any layer k >= 1) does not exist: num_layers is 1; layer must be 0")
            return _upper()
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

    def cell(self, layer: int | sympy.Expr = 0, direction: int = 0, *, numeric: bool = False) -> Cell:
        """The cell of ``layer`` and ``direction`` (its equations, with that input width).

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.
        direction : int, default 0
            0 forward, 1 reverse.
        numeric : bool, default False
            Build it in the shape-only mode (every size an int: int shapes, no equations to print).

        Returns
        -------
        Cell

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`).
        """
        layer = self.check_layer(layer)
        return self.cell_for(self.layer_input_size(layer, direction), numeric=numeric)

    def cell_for(self, input_size: Size, *, numeric: bool = False) -> Cell:
        """The cell of a layer of this stack that reads ``input_size`` features.

        Parameters
        ----------
        input_size : int or sympy.Expr
            The layer's input width (:meth:`layer_input_size`).
        numeric : bool, default False
            The shape-only mode (see :meth:`cell`).

        Returns
        -------
        Cell
        """
        bias = self.convention.bias_policy(self.mode, self.bias, self.reset_after)
        return make_cell(
            self.mode,
            input_size,
            self.hidden_size,
            bias,
            self.proj_size,
            self.reset_after,
            numeric=numeric,
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
        """The output layer's equation (:func:`derive.engine.readout.output_layer`), or None without one."""
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

    def module(self, name: str = "", type_name: str | None = None) -> tree.Module:
        """The stack as a module tree: its tensors as the convention names them, in its order.

        One child per layer (a group named ``""``) with an int ``num_layers`` up to
        :data:`derive.tree.MAX_LISTED`; otherwise layer 0 and one group standing for layers 1 ..
        L - 1 (``repeat = L - 1``, ``{k}`` in its tensors' names), so :func:`derive.tree.count`
        gives ``C_0 + (L - 1) C_1``; then the output layer, ``output``. A tensor the wiring ties
        across directions is held once; a frozen one has ``trainable=False``.

        Parameters
        ----------
        name : str, default ""
            Its name in a parent module.
        type_name : str, optional
            Its type; default the class name (``"LSTM"``), or the cell's mode for a plain Stack.

        Returns
        -------
        derive.tree.Module
            Shown as one row of a per-layer table (:attr:`derive.tree.Module.row`).

        Raises
        ------
        ValueError
            A parameter of the cell that the convention does not place (see
            :meth:`derive.engine.conventions.Convention.layout`).

        Examples
        --------
        >>> from derive.torch import LSTM
        >>> from derive.tree import named_parameters
        >>> [n for n, _ in named_parameters(LSTM(10, 20, 2).module())][:3]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0']
        """
        return stack_module(self, name, self._type_name(type_name), expand=True).replace(step_flops=self.token_flops)

    def _type_name(self, type_name: str | None) -> str:
        if type_name is not None:
            return type_name
        return self.mode if type(self) is Stack else type(self).__name__

    def step_sum(self, per_cell: Callable[[Cell], Size]) -> sympy.Expr:
        """Σ over the layers and directions of ``per_cell`` of each one's cell: D·C_0 + (L − 1)·D·C_1
        (:func:`layer_sum`).

        Parameters
        ----------
        per_cell : callable (Cell) -> int or sympy.Expr
            A quantity of one cell (its step's MACs, :func:`derive.engine.operations.step_ops`).

        Returns
        -------
        sympy.Expr
        """
        directions = self.wiring.num_directions
        first = directions * per_cell(self.cell(0))
        upper = directions * per_cell(self.cell(_upper())) if self.num_layers != 1 else sympy.Integer(0)
        return layer_sum(first, upper, self.num_layers)

    def token_flops(self) -> Size:
        """Matmul FLOPs of one token of one sequence through every layer and direction (and the output
        layer): 2 · the MACs of each cell's step, counted from its equations
        (:func:`derive.engine.operations.step_ops`), as ``torch.utils.flop_counter`` counts the
        ``mm``/``addmm`` of a step (2·m·n·p, biases and element-wise operations left out).

        Returns
        -------
        int or sympy.Expr
            Units: FLOPs.

        Examples
        --------
        >>> from derive.torch import LSTM
        >>> LSTM(10, 20, 2).token_flops()   # 2 * (4*20*(10 + 20) + 4*20*(20 + 20))
        11200
        """
        from .operations import matmul_flops

        flops = self.step_sum(matmul_flops)
        if self.output_features != 0:
            flops += 2 * self.wiring.output_layer_input_size(self.output_size) * self.output_features
        return plain(sympy.expand(flops))

    def layer_count(self, layer: int | sympy.Expr) -> int | sympy.Expr:
        """Parameters of ``layer``, all directions (units: parameters).

        Parameters
        ----------
        layer : int or sympy.Symbol
            Layer index from 0, or :data:`UPPER` for any layer >= 1.

        Returns
        -------
        int or sympy.Expr
            An ``int`` when every size is an int.

        Raises
        ------
        TypeError, ValueError
            ``layer`` is not a layer of this stack (see :meth:`check_layer`), e.g. ``layer_count(5)``
            of a 2-layer stack.
        """
        layer = self.check_layer(layer)
        upper = type(layer) is not int and layer is _upper()  # an int layer needs no SymPy
        module = layer_module(self, COPY if upper else layer, is_numeric(self))
        return plain(tree.count(module))

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
        """Every tensor, in the framework's parameter order (needs an int num_layers), read from
        :meth:`module`: name, shape and ``trainable`` (their parameters and directions are in
        :meth:`layer_tensors`)."""
        self._layers()
        return [Tensor(name, p.shape, (), None, None, p.trainable) for name, p in tree.named_parameters(self.module())]

    @property
    def shapes(self) -> OrderedDict[str, tuple[Size, ...]]:
        """Tensor name -> shape, in the framework's order (needs an int num_layers).

        Shapes are tuples of ints when all sizes are ints, of SymPy expressions otherwise.
        """
        self._layers()
        return OrderedDict((name, tuple(plain(d) for d in p.shape)) for name, p in tree.named_parameters(self.module()))

    @property
    def count(self) -> int | sympy.Expr:
        """Number of parameters: an ``int`` when every size is an int (as every count of derive),
        else a closed form.

        With a symbolic ``num_layers`` L the closed form holds for every L >= 1. It is
        :func:`derive.tree.count` of the stack's tree with layers 1 .. L - 1 as one repeated
        group: with int sizes, integer arithmetic only.
        """
        return plain(tree.count(stack_module(self, "", self._type_name(None), expand=False)))

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
        if not isinstance(count, int):
            raise TypeError(f"the count is symbolic: {count}")
        return count


#: A stack of more int layers than this is listed as layers 0 and 1, one row for the layers in
#: between (all like layer 1), and the last layer: a listing's length does not grow with L.
LISTED_LAYERS = 8


def elided_layers(stack: Stack) -> tuple[int, int] | None:
    """(first, last) of the layers a listing of ``stack`` leaves out, or None when it lists all.

    Parameters
    ----------
    stack : Stack

    Returns
    -------
    tuple of (int, int) or None
        Layers ``first`` to ``last`` (inclusive) are left out, each like layer 1.
    """
    layers = plain(getattr(stack, "num_layers", 1))
    if not isinstance(layers, int) or layers <= LISTED_LAYERS:
        return None
    return 2, layers - 2


def listed_rows(stack: Stack) -> tuple[list[tuple[str, tuple[Size, ...] | None, sympy.Expr]], str | None]:
    """(name, shape, parameters) of every tensor a listing of ``stack`` shows, and a note; elided layers are one row.

    The row standing for elided layers has shape None and, as parameters, their total (see
    :func:`elided_layers`); a symbolic ``num_layers`` lists layer 0 and any layer k >= 1.

    Parameters
    ----------
    stack : Stack

    Returns
    -------
    (list of (str, tuple or None, int or sympy.Expr), str or None)
    """
    layers = plain(getattr(stack, "num_layers", 1))
    if isinstance(layers, int):
        elided = elided_layers(stack)
        if elided is None:
            return [(t.name, t.shape, t.numel) for t in stack.tensors], None
        first, last = elided

        def shown(k: int) -> list[tuple[str, tuple[Size, ...] | None, sympy.Expr]]:
            return [(t.name, t.shape, t.numel) for t in stack.layer_tensors(k)]

        each = stack.layer_count(1)
        between = (
            f"... layers {first} to {last}: {last - first + 1:,} layers like layer 1 ...",
            None,
            each * (last - first + 1),
        )
        rows: list[tuple[str, tuple[Size, ...] | None, sympy.Expr]] = (
            shown(0) + shown(1) + [between] + shown(layers - 1)
        )
        rows += [(t.name, t.shape, t.numel) for t in getattr(stack, "output_tensors", [])]
        return rows, f"layers {first} to {last} left out (each like layer 1)"
    rows = [(t.name, t.shape, t.numel) for t in stack.layer_tensors(0)]
    rows += [(t.name.replace(f"_l{_upper()}", "_l{k}"), t.shape, t.numel) for t in stack.layer_tensors(_upper())]
    return rows, f"layer 0 and any layer k ≥ 1 of {layers}"
