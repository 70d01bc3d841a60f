"""TF1 ``tf.compat.v1.nn.rnn_cell``: one kernel on [x_t; h_{t-1}] per layer and direction.

Tensor names are the variables' names as TensorFlow prints them (``v.op.name``) when the cells
run in the documented compositions: ``dynamic_rnn`` for one cell
(``rnn/lstm_cell/kernel``), ``dynamic_rnn`` over a ``MultiRNNCell`` for a stack
(``rnn/multi_rnn_cell/cell_<k>/lstm_cell/kernel``), and ``stack_bidirectional_dynamic_rnn`` for the
deep bidirectional stack (``stack_bidirectional_rnn/cell_<k>/bidirectional_rnn/fw/lstm_cell/kernel``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, CellSpec, Framework, register

__all__ = ["TF1", "TF1_CLASSES", "tf1_name"]


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

from .mirror import Deferred, constructor, optional_size, stack_module  # noqa: E402

_PREFIXES = ("tf.compat.v1.nn.rnn_cell.", "tf.nn.rnn_cell.", "tf.contrib.rnn.", "rnn_cell.")
_LETTERS = {"num_units": "H", "num_proj": "P"}
_SCOPES = {
    "BasicRNNCell": "basic_rnn_cell",
    "BasicLSTMCell": "basic_lstm_cell",
    "LSTMCell": "lstm_cell",
    "GRUCell": "gru_cell",
}
#: Keyword arguments of the cells' ``Layer`` base that the cells pass on (``trainable`` is read).
_LAYER_KEYWORDS = {"trainable", "dynamic", "autocast"}


def _tf1_cell(cls: str, num_units: Any, name: Any, kwargs: dict[str, Any], **options: Any) -> Deferred:
    unknown = sorted(set(kwargs) - _LAYER_KEYWORDS)
    if unknown:
        raise TypeError(f"Keyword argument not understood: {unknown[0]!r}")
    trainable = kwargs.get("trainable", True)
    if not isinstance(trainable, bool):
        raise TypeError(f"trainable should be of type bool, got: {type(trainable).__name__}")
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"name should be a non-empty str or None, got: {name!r}")
    rename = None if name is None else (f"rnn/{_SCOPES[cls]}", f"rnn/{name}")
    return Deferred(
        lambda width: stack_module(
            "tf1", cls, width, num_units, type=cls, sep="/", rename=rename, frozen=lambda _: not trainable, **options
        )
    )


@constructor("tf1", "BasicRNNCell", prefixes=_PREFIXES, letters=_LETTERS, deferred=True, source=_SOURCE)
def _basic_rnn_cell(
    num_units: Any, activation: Any = None, reuse: Any = None, name: Any = None, dtype: Any = None, **kwargs: Any
) -> Deferred:
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
) -> Deferred:
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
) -> Deferred:
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
) -> Deferred:
    return _tf1_cell("GRUCell", num_units, name, kwargs)
