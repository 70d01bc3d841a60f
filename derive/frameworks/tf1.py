"""TF1 ``tf.compat.v1.nn.rnn_cell``: one kernel on [x_t; h_{t-1}] per layer and direction.

Tensor names are the variables' names as TensorFlow prints them (``v.op.name``) when the cells
run in the documented compositions: ``dynamic_rnn`` for one cell
(``rnn/lstm_cell/kernel``), ``dynamic_rnn`` over a ``MultiRNNCell`` for a stack
(``rnn/multi_rnn_cell/cell_<k>/lstm_cell/kernel``), and ``stack_bidirectional_dynamic_rnn`` for the
deep bidirectional stack (``stack_bidirectional_rnn/cell_<k>/bidirectional_rnn/fw/lstm_cell/kernel``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, CellSpec, Framework, register

__all__ = ["TF1", "TF1_CLASSES", "tf1_name", "Cell", "Run", "Graph", "repeated", "variables"]


_LSTM_OR_RNN = ("i", "f", "g", "o", "h")
_SOURCE = (
    "tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py (BasicRNNCell.build, BasicLSTMCell.build, "
    "GRUCell.build, LSTMCell.build, MultiRNNCell.call: scope cell_<k>); tensorflow/python/ops/rnn.py "
    "(dynamic_rnn: scope rnn; bidirectional_dynamic_rnn: bidirectional_rnn/fw, bw); "
    "tensorflow/contrib/rnn/python/ops/rnn.py (TF 1.15, stack_bidirectional_dynamic_rnn: scope "
    "stack_bidirectional_rnn, cell_<k> around bidirectional_dynamic_rnn)"
)


def tf1_name(scope: str) -> Callable[[str, object, str], str]:
    """The variable names of a cell whose own scope is ``scope`` (``"lstm_cell"``), by composition.

    Parameters
    ----------
    scope : str
        The cell's default variable scope: ``basic_rnn_cell``, ``basic_lstm_cell``, ``lstm_cell``,
        ``gru_cell``.

    Returns
    -------
    callable
        ``(base, layer, label) -> str``; ``label`` is ``""`` for one direction, ``"fw"``/``"bw"``.

    Examples
    --------
    >>> tf1_name("lstm_cell")("kernel", 1, "bw")
    'stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/lstm_cell/kernel'
    """

    def name(base: str, layer: Any, label: str) -> str:
        if layer is None:
            return f"rnn/{scope}/{base}"
        if not label:
            return f"rnn/multi_rnn_cell/cell_{layer}/{scope}/{base}"
        return f"stack_bidirectional_rnn/cell_{layer}/bidirectional_rnn/{label}/{scope}/{base}"

    return name


def _tf1(scope: str) -> Convention:
    return Convention(
        name="TF1 tf.compat.v1.nn.rnn_cell",
        tensors=(
            TensorLayout("kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=_LSTM_OR_RNN),
            TensorLayout("bias", "bias", ("ih",), gates=_LSTM_OR_RNN),
            TensorLayout("w_f_diag", "peephole", ("c",), gates=("f",)),
            TensorLayout("w_i_diag", "peephole", ("c",), gates=("i",)),
            TensorLayout("w_o_diag", "peephole", ("c",), gates=("o",)),
            TensorLayout("projection/kernel", "weight", ("hr",), transpose=True),
            TensorLayout("gates/kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=("r", "z")),
            TensorLayout("gates/bias", "bias", ("ih",), gates=("r", "z")),
            TensorLayout("candidate/kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=("n",)),
            TensorLayout("candidate/bias", "bias", ("ih",), gates=("n",)),
        ),
        layer_name=tf1_name(scope),
        source=_SOURCE,
        biases={"RNN_TANH": "input", "RNN_RELU": "input", "LSTM": "input", "GRU": "input"},
        gate_order={"LSTM": ("i", "g", "f", "o")},
        gate_labels={"LSTM": {"g": "j"}, "GRU": {"z": "u", "n": "c"}},
        direction_names={1: ("",), 2: ("fw", "bw")},
    )


#: TF1 ``tf.compat.v1.nn.rnn_cell`` (``rnn_cell_impl.py``): one weight multiplies the
#: concatenation [x_t; h_{t-1}], so input and recurrent weights are one ``kernel`` (I + H_r, G·H),
#: H_r = ``num_proj`` or H, with one ``bias`` (G·H,). ``LSTMCell`` (and ``BasicLSTMCell``): gate
#: order i, j, f, o (j = the candidate, PyTorch's g); ``use_peepholes`` adds ``w_f_diag``,
#: ``w_i_diag``, ``w_o_diag`` (H,); ``num_proj`` adds ``projection/kernel`` (H, P). ``GRUCell``:
#: ``gates/kernel`` (I + H, 2H) and ``gates/bias`` (2H,) for r, u; ``candidate/kernel`` (I + H, H)
#: and ``candidate/bias`` (H,), the reset applied to the state before the product.
#: ``BasicRNNCell``: ``kernel`` (I + H, H), ``bias`` (H,). By class; :data:`TF1` is ``LSTMCell``'s.
TF1_CLASSES = {
    cls: _tf1(scope)
    for cls, scope in (
        ("BasicRNNCell", "basic_rnn_cell"),
        ("BasicLSTMCell", "basic_lstm_cell"),
        ("LSTMCell", "lstm_cell"),
        ("GRUCell", "gru_cell"),
    )
}
#: ``LSTMCell``'s convention (:data:`TF1_CLASSES` has every class's): the key ``"tf1"``'s default.
TF1 = TF1_CLASSES["LSTMCell"]


register(
    Framework(
        "tf1",
        "TF1 tf.compat.v1.nn.rnn_cell",
        (
            CellSpec("BasicRNNCell", "RNN_TANH", "rnn", TF1_CLASSES["BasicRNNCell"], "cell"),
            CellSpec(
                "LSTMCell",
                "LSTM",
                "lstm",
                TF1,
                "cell",
                {"proj_size": (), "peepholes": ON_OFF, "num_unit_shards": (), "num_proj_shards": ()},
                proj_below_hidden=False,
                partitioned={"num_unit_shards": "kernel", "num_proj_shards": "projection/kernel"},
            ),
            CellSpec("BasicLSTMCell", "LSTM", "lstm", TF1_CLASSES["BasicLSTMCell"], "cell"),
            CellSpec("GRUCell", "GRU", "gru", TF1_CLASSES["GRUCell"], "cell", {"reset_after": (False,)}),
        ),
        ("tensorflow",),
        _SOURCE,
        order=40,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``tf.compat.v1.nn.rnn_cell.LSTMCell(128, num_proj=64)``: signatures of
# tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py (TF 2.21); a cell makes its variables
# when first applied (``--input-dim``), named as ``dynamic_rnn`` scopes them (``rnn/<name>/...``).
# ``trainable=False`` freezes them; initializers, activations, clips and ``forget_bias`` change
# no tensor.

import dataclasses  # noqa: E402

import sympy  # noqa: E402

from ..engine import validate  # noqa: E402
from ..engine.symbols import Size  # noqa: E402
from ..tree import Module  # noqa: E402
from .mirror import constructor, optional_size, stack_module  # noqa: E402

#: How users write the cells and wrappers: ``tf.compat.v1.nn.rnn_cell.LSTMCell`` (TF 2),
#: ``tf.nn.rnn_cell.LSTMCell`` (TF 1, or TF 2 with ``import tensorflow.compat.v1 as tf``),
#: ``tf.contrib.rnn.LSTMCell`` / ``rnn.LSTMCell`` (TF 1's ``from tensorflow.contrib import rnn``:
#: the same classes, ``tensorflow/contrib/rnn/__init__.py`` of TF 1.15), ``rnn_cell.``, and bare
#: (``from tensorflow.compat.v1.nn.rnn_cell import LSTMCell``).
_PREFIXES = ("tf.compat.v1.nn.rnn_cell.", "tf.nn.rnn_cell.", "tf.contrib.rnn.", "rnn_cell.", "rnn.", "")
#: ... and the functions that apply them (``tf.compat.v1.nn.dynamic_rnn``; ``static_rnn`` also in
#: ``tf.contrib.rnn``).
_RUN_PREFIXES = ("tf.compat.v1.nn.", "tf.nn.", "")
_STATIC_PREFIXES = (*_RUN_PREFIXES, "tf.contrib.rnn.", "rnn.")
_SOURCE_RUN = (
    "tensorflow/python/ops/rnn.py (TF 2.21: dynamic_rnn, static_rnn scope 'rnn'; bidirectional_dynamic_rnn, "
    "static_bidirectional_rnn scope 'bidirectional_rnn' with 'fw', 'bw'); "
    "tensorflow/python/keras/layers/legacy_rnn/rnn_cell_impl.py (MultiRNNCell: 'multi_rnn_cell/cell_<k>'), "
    "rnn_cell_wrapper_impl.py (DropoutWrapper, ResidualWrapper, DeviceWrapper: no variables)"
)
_LETTERS = {"num_units": "H", "num_proj": "P"}
_SCOPES = {
    "BasicRNNCell": "basic_rnn_cell",
    "BasicLSTMCell": "basic_lstm_cell",
    "LSTMCell": "lstm_cell",
    "GRUCell": "gru_cell",
}
#: Keyword arguments of the cells' ``Layer`` base that the cells pass on (``trainable`` is read).
_LAYER_KEYWORDS = {"trainable", "dynamic", "autocast"}


class Graph:
    """The variables one graph holds so far: a cell object makes its variables at its first use
    (under that use's scope, for that input width); a later use of the same object shares them
    (``rnn_cell_impl.RNNCell.__call__`` keeps the first scope, ``Layer.build`` runs once), so its
    input must be as wide as the first's (TensorFlow's ``Dimensions must be equal`` otherwise).

    Attributes
    ----------
    made : dict
        A cell's key -> (input width, scope) of its first use.
    notes : list of str
        The uses that shared a first use's variables, said in words.
    """

    def __init__(self) -> None:
        self.made: dict[object, tuple[Any, str]] = {}
        self.notes: list[str] = []

    def first_use(self, key: object, cls: str, width: Any, scope: str) -> bool:
        """Whether this use of the cell ``key`` makes its variables (its first); a later one is checked.

        Parameters
        ----------
        key : object
            The cell object's identity.
        cls : str
            Its class, for the messages.
        width : int or sympy.Expr
            The input width of this use.
        scope : str
            The scope of this use (``rnn/multi_rnn_cell/cell_1``).

        Returns
        -------
        bool

        Raises
        ------
        ValueError
            A later use on inputs of another width than the first's (where the widths are sizes
        without a value, the use is shared, and the condition noted).
        """
        if key not in self.made:
            self.made[key] = (width, scope)
            return True
        first_width, first_scope = self.made[key]
        shared = f"{scope}: the same {cls} object as at {first_scope}: TensorFlow shares its variables, counted once"
        if width != first_width:
            if sympy.sympify(width - first_width).is_number:
                raise ValueError(
                    f"the same {cls} object is applied at {scope} to inputs of {width} features, after its first "
                    f"use at {first_scope} on {first_width}: TensorFlow shares the variables that first use made, "
                    "and refuses inputs of another width (Dimensions must be equal); make a new cell for each layer"
                )
            shared += f"; TensorFlow builds it only where {width} = {first_width} (the widths of its two inputs)"
        self.notes.append(shared)
        return False


@dataclass(frozen=True)
class Cell:
    """A TF1 cell (or cells composed: ``MultiRNNCell``, a wrapper): its variables are made when it
    is first applied, under the variable scope of the function that applies it.

    Attributes
    ----------
    make : callable
        ``make(input_width, scope, graph) -> Module``: the variables, named ``<scope>/<cell scope>/...``
        (none where ``graph`` holds this cell's already: :class:`Graph`).
    output : callable
        ``output(input_width) -> width`` of its output (``num_proj`` or ``num_units``).
    """

    make: Callable[[Any, str, Graph], Module]
    output: Callable[[Any], Size]

    def __deepcopy__(self, memo: dict[int, Any]) -> Cell:
        return self  # one object: copies of the code's values keep its identity (shared variables)

    def build(self, input_shape: tuple[Any, ...]) -> tuple[Module, None]:
        """The variables for inputs of ``input_shape[-1]`` features, as ``dynamic_rnn`` names them.

        Parameters
        ----------
        input_shape : tuple
            Only the last dimension is read.

        Returns
        -------
        (Module, None)

        Raises
        ------
        TypeError, ValueError
            A width that is not a positive integer; the cell's own checks.
        """
        return self.make(validate.size("input width", input_shape[-1]), "rnn", Graph()), None


@dataclass(frozen=True)
class Run:
    """What ``dynamic_rnn`` and the other functions make: cells applied under one scope (not a cell).

    Attributes
    ----------
    make : callable
        ``make(input_width, graph) -> Module``.
    """

    make: Callable[[Any, Graph], Module]

    def __deepcopy__(self, memo: dict[int, Any]) -> Run:
        return self

    def build(self, input_shape: tuple[Any, ...]) -> tuple[Module, None]:
        """The variables for inputs of ``input_shape[-1]`` features.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        (Module, None)

        Raises
        ------
        TypeError, ValueError
            A width that is not a positive integer; the cells' own checks.
        """
        return self.make(validate.size("input width", input_shape[-1]), Graph()), None


def _group(kind: str, parts: list[Module]) -> Module:
    """Modules made together, those of a shared cell's later uses (no variables) left out."""
    return Module("", kind, children=tuple(p for p in parts if p.params or p.children), sep="/")


def _rescope(module: Module, scope: str) -> Module:
    """``module`` (named under ``rnn/``, as ``dynamic_rnn`` scopes a cell) under ``scope``."""
    if scope == "rnn":
        return module
    params = tuple(dataclasses.replace(p, name=scope + p.name[len("rnn") :]) for p in module.params)
    return module.replace(params=params)


def _tf1_cell(cls: str, num_units: Any, name: Any, kwargs: dict[str, Any], **options: Any) -> Cell:
    unknown = sorted(set(kwargs) - _LAYER_KEYWORDS)
    if unknown:
        raise TypeError(f"Keyword argument not understood: {unknown[0]!r}")
    trainable = kwargs.get("trainable", True)
    if not isinstance(trainable, bool):
        raise TypeError(f"trainable should be of type bool, got: {type(trainable).__name__}")
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"name should be a non-empty str or None, got: {name!r}")
    rename = None if name is None else (f"rnn/{_SCOPES[cls]}", f"rnn/{name}")
    key = object()  # this cell object: applied again, it shares the variables of its first use

    def make(width: Any, scope: str, graph: Graph) -> Module:
        if not graph.first_use(key, cls, width, scope):
            return Module("", cls, sep="/")
        made = stack_module(
            "tf1", cls, width, num_units, type=cls, sep="/", rename=rename, frozen=lambda _: not trainable, **options
        )
        return _rescope(made, scope)

    proj = options.get("proj_size") or 0
    return Cell(make, lambda width: proj or num_units)


@constructor("tf1", "BasicRNNCell", prefixes=_PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _basic_rnn_cell(
    num_units: Any, activation: Any = None, reuse: Any = None, name: Any = None, dtype: Any = None, **kwargs: Any
) -> Cell:
    return _tf1_cell("BasicRNNCell", num_units, name, kwargs)


@constructor("tf1", "BasicLSTMCell", prefixes=_PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _basic_lstm_cell(
    num_units: Any,
    forget_bias: Any = 1.0,
    state_is_tuple: Any = True,
    activation: Any = None,
    reuse: Any = None,
    name: Any = None,
    dtype: Any = None,
    **kwargs: Any,
) -> Cell:
    return _tf1_cell("BasicLSTMCell", num_units, name, kwargs)


@constructor("tf1", "LSTMCell", prefixes=_PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _lstm_cell(
    num_units: Any,
    use_peepholes: Any = False,
    cell_clip: Any = None,
    initializer: Any = None,
    num_proj: Any = None,
    proj_clip: Any = None,
    num_unit_shards: Any = None,
    num_proj_shards: Any = None,
    forget_bias: Any = 1.0,
    state_is_tuple: Any = True,
    activation: Any = None,
    reuse: Any = None,
    name: Any = None,
    dtype: Any = None,
    **kwargs: Any,
) -> Cell:
    return _tf1_cell(
        "LSTMCell",
        num_units,
        name,
        kwargs,
        peepholes=use_peepholes,
        proj_size=optional_size("num_proj", num_proj),
        num_unit_shards=num_unit_shards,
        num_proj_shards=num_proj_shards,
    )


@constructor("tf1", "GRUCell", prefixes=_PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _gru_cell(
    num_units: Any,
    activation: Any = None,
    reuse: Any = None,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    name: Any = None,
    dtype: Any = None,
    **kwargs: Any,
) -> Cell:
    return _tf1_cell("GRUCell", num_units, name, kwargs)


# --------------------------------------------------------------------------- cells composed, and applied


def _cell(name: str, value: Any) -> Cell:
    if not isinstance(value, Cell):
        raise TypeError(f"{name} must be an RNNCell (LSTMCell, GRUCell, ...), got {validate.shown(value)}")
    return value


def _scope(scope: Any, default: str) -> str:
    if scope is None:
        return default
    if not isinstance(scope, str) or not scope:
        raise TypeError(f"scope: give the variable scope's name as a string, got {validate.shown(scope)}")
    return scope


@constructor("tf1", "MultiRNNCell", prefixes=_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _multi_rnn_cell(cells: Any, state_is_tuple: Any = True) -> Cell:
    if not isinstance(cells, (list, tuple)):
        raise TypeError(
            "cells: write the list of cells out ([LSTMCell(48), LSTMCell(48)], or [LSTMCell(48) for _ in range(2)]), "
            f"got {validate.shown(cells)}"
        )
    if not cells:
        raise ValueError("Must specify at least one cell for MultiRNNCell.")
    stack = [_cell("cells", c) for c in cells]

    def make(width: Any, scope: str, graph: Graph) -> Module:
        children = []
        for k, cell in enumerate(stack):
            children.append(cell.make(width, f"{scope}/multi_rnn_cell/cell_{k}", graph))
            width = cell.output(width)
        return _group("MultiRNNCell", children)

    def output(width: Any) -> Any:
        for cell in stack:
            width = cell.output(width)
        return width

    return Cell(make, output)


def repeated(first: Any, above: Any, times: Any) -> Cell:
    """``MultiRNNCell([make_cell() for _ in range(n)])`` for a number of cells ``n`` without a value.

    Parameters
    ----------
    first : Cell
        Cell 0, which sees the input's features.
    above : Cell
        What the list holds above cell 0 (each sees the output of the one below): another object
        made as ``first`` was, or ``first`` itself (``[cell] * n``: one object, one set of variables).
    times : sympy.Expr
        ``n``, a positive integer.

    Returns
    -------
    Cell
        Its variables: cell 0's, and cell ``k``'s for ``k`` from 1 to ``n - 1`` (``cell_{k}``).

    Raises
    ------
    TypeError, ValueError
        Not cells; ``times`` not a size; cells above whose input would not be as wide as their
        output; one object whose input is not as wide as its output (TensorFlow refuses it from
        ``n`` = 2); a ``MultiRNNCell`` repeated.
    """
    first, above = _cell("cells", first), _cell("cells", above)
    times = validate.size("the number of cells", times)

    def make(width: Any, scope: str, graph: Graph) -> Module:
        bottom = first.make(width, f"{scope}/multi_rnn_cell/cell_0", graph)
        inner = first.output(width)
        if above is first and inner != width and sympy.sympify(inner - width).is_number:
            raise ValueError(
                f"one cell object {times} times: TensorFlow shares its variables, made for inputs of {width} "
                f"features, and refuses it its own output of {inner} from the second cell on: derive cannot "
                f"know whether {times} is 1"
            )
        if above.output(inner) != inner:
            raise ValueError(f"the cells above cell 0 would see inputs of other widths than {inner}")
        upper = above.make(inner, f"{scope}/multi_rnn_cell/cell_{{k}}", graph)
        if upper.children:
            raise ValueError(f"a MultiRNNCell {times} times: write the number of cells in")
        scope_k = next((p.name.rsplit("/", 1)[0] for p in upper.params), "")
        upper = upper.replace(note=f"{scope_k}, k from 1 to {times - 1}", repeat=times - 1, start=1)
        return _group("MultiRNNCell", [bottom, upper])

    return Cell(make, first.output)


@constructor("tf1", "DropoutWrapper", prefixes=_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _dropout_wrapper(
    cell: Any,
    input_keep_prob: Any = 1.0,
    output_keep_prob: Any = 1.0,
    state_keep_prob: Any = 1.0,
    variational_recurrent: Any = False,
    input_size: Any = None,
    dtype: Any = None,
    seed: Any = None,
    dropout_state_filter_visitor: Any = None,
    **kwargs: Any,
) -> Cell:
    return _cell("cell", cell)


@constructor("tf1", "ResidualWrapper", prefixes=_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _residual_wrapper(cell: Any, residual_fn: Any = None, **kwargs: Any) -> Cell:
    inner = _cell("cell", cell)

    def make(width: Any, scope: str, graph: Graph) -> Module:
        out = inner.output(width)
        if residual_fn is None and out != width:
            raise ValueError(
                f"ResidualWrapper adds the input to the cell's output: the input width {width} must equal "
                f"the output's {out}"
            )
        return inner.make(width, scope, graph)

    return Cell(make, inner.output)


@constructor("tf1", "DeviceWrapper", prefixes=_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _device_wrapper(cell: Any, device: Any = None, **kwargs: Any) -> Cell:
    return _cell("cell", cell)


def _one(cell: Any, scope: Any) -> Run:
    made, name = _cell("cell", cell), _scope(scope, "rnn")
    return Run(lambda width, graph: made.make(width, name, graph))


def _two(cell_fw: Any, cell_bw: Any, scope: Any) -> Run:
    fw, bw, name = _cell("cell_fw", cell_fw), _cell("cell_bw", cell_bw), _scope(scope, "bidirectional_rnn")
    return Run(
        lambda width, graph: _group(
            "bidirectional_rnn", [fw.make(width, f"{name}/fw", graph), bw.make(width, f"{name}/bw", graph)]
        )
    )


@constructor("tf1", "dynamic_rnn", prefixes=_RUN_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _dynamic_rnn(
    cell: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: Any = False,
    time_major: Any = False,
    scope: Any = None,
) -> Run:
    return _one(cell, scope)


@constructor("tf1", "static_rnn", prefixes=_STATIC_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _static_rnn(
    cell: Any,
    inputs: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> Run:
    return _one(cell, scope)


@constructor("tf1", "bidirectional_dynamic_rnn", prefixes=_RUN_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _bidirectional_dynamic_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: Any = False,
    time_major: Any = False,
    scope: Any = None,
) -> Run:
    return _two(cell_fw, cell_bw, scope)


@constructor("tf1", "static_bidirectional_rnn", prefixes=_STATIC_PREFIXES, deferred=True, source=_SOURCE_RUN)
def _static_bidirectional_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> Run:
    return _two(cell_fw, cell_bw, scope)


def variables(applied: list[Any], width: Any) -> tuple[Module, list[str]]:
    """The variables of one graph in which ``applied`` ran in order: cells, as ``dynamic_rnn`` applies
    one (scope ``rnn``), and what ``dynamic_rnn`` and the other functions made (:class:`Run`).

    Parameters
    ----------
    applied : list of Cell or Run
    width : int or sympy.Expr
        The input's features (each is applied to the same input).

    Returns
    -------
    (Module, list of str)
        The variables, and the uses that shared another's (:attr:`Graph.notes`).

    Raises
    ------
    TypeError, ValueError
        A width that is not a size; the cells' own checks; a variable made twice (two functions
        under one scope: TensorFlow's ``Variable ... already exists``).
    """
    graph, width = Graph(), validate.size("input width", width)
    parts = [a.make(width, "rnn", graph) if isinstance(a, Cell) else a.make(width, graph) for a in applied]
    module, seen = _group("graph", parts), set()
    pending = [module]
    while pending:
        node = pending.pop()
        pending.extend(node.children)
        for p in node.params:
            if p.name in seen:
                raise ValueError(
                    f"Variable {p.name} already exists, disallowed: give each function that applies cells its "
                    "own scope= (TensorFlow refuses a second rnn scope's variables)"
                )
            seen.add(p.name)
    return module, graph.notes
