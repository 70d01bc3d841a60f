"""PaddlePaddle: PyTorch's tensors per cell, a transposed projection, frozen disabled biases."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, layer_path, register

__all__ = ["PADDLE"]


#: PaddlePaddle ``paddle.nn.SimpleRNN``, ``LSTM``, ``GRU`` and their cells
#: (``python/paddle/nn/layer/rnn.py``): PyTorch's tensors per cell, ``weight_ih``, ``weight_hh``,
#: ``bias_ih``, ``bias_hh``, and with ``proj_size`` ``weight_ho`` (H, P) — the transpose of
#: PyTorch's ``weight_hr``. A layer is a list of ``RNN(cell)`` / ``BiRNN(cell_fw, cell_bw)``, so
#: names are ``<layer>.cell.<name>`` or ``<layer>.cell_fw.<name>``. ``bias_ih_attr=False`` does
#: not remove the bias: it is a zero vector with ``stop_gradient=True``, still in ``parameters()``.
PADDLE = Convention(
    name="PaddlePaddle",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_ho", "weight", ("hr",), transpose=True),
    ),
    layer_name=layer_path("{layer}.{label}.{base}"),
    source="python/paddle/nn/layer/rnn.py (SimpleRNNCell, LSTMCell, GRUCell, RNNBase.__init__)",
    direction_names={1: ("cell",), 2: ("cell_fw", "cell_bw")},
    frozen_bias=True,
)


register(
    Framework(
        "paddle",
        "PaddlePaddle",
        (
            CellSpec("SimpleRNN", "RNN_TANH", "rnn", PADDLE, "layer", {"bias": YES_NO}),
            CellSpec("LSTM", "LSTM", "lstm", PADDLE, "layer", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("GRU", "GRU", "gru", PADDLE, "layer", {"bias": YES_NO}),
            CellSpec("SimpleRNNCell", "RNN_TANH", "rnn", PADDLE, "cell", {"bias": YES_NO}),
            CellSpec("LSTMCell", "LSTM", "lstm", PADDLE, "cell", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("GRUCell", "GRU", "gru", PADDLE, "cell", {"bias": YES_NO}),
        ),
        ("paddlepaddle",),
        PADDLE.source,
        order=80,
    )
)
