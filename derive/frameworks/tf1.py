"""TF1 ``tf.compat.v1.nn.rnn_cell``: one kernel on [x_t; h_{t-1}] per layer and direction.

Tensor names are the variables' names as TensorFlow prints them (``v.op.name``) when the cells
run in the documented compositions: ``dynamic_rnn`` for one cell
(``rnn/lstm_cell/kernel``), ``dynamic_rnn`` over a ``MultiRNNCell`` for a stack
(``rnn/multi_rnn_cell/cell_<k>/lstm_cell/kernel``), and ``stack_bidirectional_dynamic_rnn`` for the
deep bidirectional stack (``stack_bidirectional_rnn/cell_<k>/bidirectional_rnn/fw/lstm_cell/kernel``).
The cells as users write them are here too (``tf.nn.rnn_cell.LSTMCell(128)``: :class:`Cell`); their
compositions (``MultiRNNCell``, the wrappers, ``dynamic_rnn`` and its kin) are :mod:`.tf1_compose`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, CellSpec, Framework, register

__all__ = ["TF1", "TF1_CLASSES", "tf1_name", "Cell", "Run", "Graph", "PREFIXES"]


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

from .._sympy import sympy  # noqa: E402
from ..engine import validate  # noqa: E402
from ..engine.symbols import Size  # noqa: E402
from ..tree import Module  # noqa: E402
from .mirror import constructor, optional_size, stack_module  # noqa: E402

#: How users write the cells and wrappers: ``tf.compat.v1.nn.rnn_cell.LSTMCell`` (TF 2),
#: ``tf.nn.rnn_cell.LSTMCell`` (TF 1, or TF 2 with ``import tensorflow.compat.v1 as tf``),
#: ``tf.contrib.rnn.LSTMCell`` / ``rnn.LSTMCell`` (TF 1's ``from tensorflow.contrib import rnn``:
#: the same classes, ``tensorflow/contrib/rnn/__init__.py`` of TF 1.15), ``rnn_cell.``, and bare
#: (``from tensorflow.compat.v1.nn.rnn_cell import LSTMCell``).
PREFIXES = ("tf.compat.v1.nn.rnn_cell.", "tf.nn.rnn_cell.", "tf.contrib.rnn.", "rnn_cell.", "rnn.", "")
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
    later : dict
        A cell's key -> (class, the scopes of its later uses, the conditions TensorFlow builds them on).
    """

    def __init__(self) -> None:
        self.made: dict[object, tuple[Any, str]] = {}
        self.later: dict[object, tuple[str, list[str], list[str]]] = {}

    @property
    def notes(self) -> list[str]:
        """The later uses, one note a cell object: where, and the variables they share.

        Returns
        -------
        list of str
        """
        out = []
        for key, (cls, scopes, conditions) in self.later.items():
            where = scopes[0] if len(scopes) == 1 else f"{scopes[0]} and {len(scopes) - 1} more ({scopes[-1]})"
            text = f"{where}: the same {cls} object as at {self.made[key][1]}: TensorFlow shares its variables, counted once"
            if conditions:
                text += f"; TensorFlow builds it only where {', '.join(dict.fromkeys(conditions))} (the widths of its inputs)"
            out.append(text)
        return out

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
        _, scopes, conditions = self.later.setdefault(key, (cls, [], []))
        scopes.append(scope)
        if width != first_width:
            if sympy.sympify(width - first_width).is_number:
                raise ValueError(
                    f"the same {cls} object is applied at {scope} to inputs of {width} features, after its first "
                    f"use at {first_scope} on {first_width}: TensorFlow shares the variables that first use made, "
                    "and refuses inputs of another width (Dimensions must be equal); make a new cell for each layer"
                )
            conditions.append(f"{width} = {first_width}")
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


@constructor("tf1", "BasicRNNCell", prefixes=PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _basic_rnn_cell(
    num_units: Any, activation: Any = None, reuse: Any = None, name: Any = None, dtype: Any = None, **kwargs: Any
) -> Cell:
    return _tf1_cell("BasicRNNCell", num_units, name, kwargs)


@constructor("tf1", "BasicLSTMCell", prefixes=PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
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


@constructor("tf1", "LSTMCell", prefixes=PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
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


@constructor("tf1", "GRUCell", prefixes=PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
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
