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
