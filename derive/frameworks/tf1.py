"""TF1 ``tf.compat.v1.nn.rnn_cell``: one kernel on [x_t; h_{t-1}] per layer and direction."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import ON_OFF, CellSpec, Framework, layer_path, register

__all__ = ["TF1"]


_LSTM_OR_RNN = ("i", "f", "g", "o", "h")


#: TF1 ``tf.compat.v1.nn.rnn_cell`` (``tensorflow/python/ops/rnn_cell_impl.py``): one weight
#: multiplies the concatenation [x_t; h_{t-1}], so input and recurrent weights are one ``kernel``
#: (I + H_r, G·H), H_r = ``num_proj`` or H, with one ``bias`` (G·H,). ``LSTMCell``: gate order
#: i, j, f, o (j = the candidate, PyTorch's g); ``use_peepholes`` adds ``w_f_diag``, ``w_i_diag``,
#: ``w_o_diag`` (H,); ``num_proj`` adds ``projection/kernel`` (H, P). ``GRUCell``: ``gates/kernel``
#: (I + H, 2H) and ``gates/bias`` (2H,) for r, u; ``candidate/kernel`` (I + H, H) and
#: ``candidate/bias`` (H,), the reset applied to the state before the product.
#: ``BasicRNNCell``: ``kernel`` (I + H, H), ``bias`` (H,).
TF1 = Convention(
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
    layer_name=layer_path("cell_{layer}/{label}{base}"),
    source="tensorflow/python/ops/rnn_cell_impl.py (BasicRNNCell.build, GRUCell.build, LSTMCell.build)",
    biases={"RNN_TANH": "input", "RNN_RELU": "input", "LSTM": "input", "GRU": "input"},
    gate_order={"LSTM": ("i", "g", "f", "o")},
    gate_labels={"LSTM": {"g": "j"}, "GRU": {"z": "u", "n": "c"}},
    direction_names={1: ("",), 2: ("fw/", "bw/")},
)


register(
    Framework(
        "tf1",
        "TF1 tf.compat.v1.nn.rnn_cell",
        (
            CellSpec("BasicRNNCell", "RNN_TANH", "rnn", TF1, "cell"),
            CellSpec(
                "LSTMCell", "LSTM", "lstm", TF1, "cell", {"proj_size": (), "peepholes": ON_OFF}, proj_below_hidden=False
            ),
            CellSpec("GRUCell", "GRU", "gru", TF1, "cell", {"reset_after": (False,)}),
        ),
        (),
        TF1.source,
        order=40,
    )
)
