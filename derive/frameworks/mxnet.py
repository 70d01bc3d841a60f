"""MXNet Gluon: PyTorch's tensors under other names (mxnet 1.9.1)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import CellSpec, Framework, register

__all__ = ["MXNET", "MXNET_CELLS"]


def _mxnet_name(base: str, layer: object, direction: int) -> str:
    return base if layer is None else f"{'lr'[direction]}{layer}_{base}"


#: MXNet Gluon ``rnn.RNN``, ``rnn.LSTM``, ``rnn.GRU`` (mxnet 1.9.1,
#: ``python/mxnet/gluon/rnn/rnn_layer.py``, ``_RNNLayer.__init__``): per layer and direction
#: (prefix ``l``/``r``) ``i2h_weight`` (G·H, I_l), ``h2h_weight`` (G·H, H_out), ``i2h_bias``,
#: ``h2h_bias`` (G·H,), with ``projection_size`` ``h2r_weight`` (P, H); fused into one flat
#: vector for the kernel (and held as one flat ``rnn_param`` in MXNet 2). PyTorch's total.
MXNET = Convention(
    name="MXNet Gluon",
    tensors=(
        TensorLayout("i2h_weight", "weight", ("ih",)),
        TensorLayout("h2h_weight", "weight", ("hh",)),
        TensorLayout("i2h_bias", "bias", ("ih",)),
        TensorLayout("h2h_bias", "bias", ("hh",)),
        TensorLayout("h2r_weight", "weight", ("hr",)),
    ),
    layer_name=_mxnet_name,
    source="python/mxnet/gluon/rnn/rnn_layer.py (mxnet 1.9.1, _RNNLayer.__init__)",
)


#: MXNet Gluon ``rnn.RNNCell``, ``rnn.LSTMCell``, ``rnn.GRUCell``
#: (``python/mxnet/gluon/rnn/rnn_cell.py``): the same four tensors per cell; a stack is a
#: ``SequentialRNNCell`` of cells (of ``BidirectionalCell(l_cell, r_cell)`` for a bidirectional
#: one), named here with the prefixes the fused layer uses, ``l<k>_`` and ``r<k>_``
#: (``LSTMCell(H, prefix="l0_")``).
MXNET_CELLS = Convention(
    name="MXNet Gluon cells",
    tensors=MXNET.tensors[:4],
    layer_name=_mxnet_name,
    source="python/mxnet/gluon/rnn/rnn_cell.py (mxnet 1.9.1, RNNCell, LSTMCell, GRUCell, SequentialRNNCell, BidirectionalCell)",
)


register(
    Framework(
        "mxnet",
        "MXNet Gluon",
        (
            CellSpec("RNN", "RNN_TANH", "rnn", MXNET, "layer"),
            CellSpec("LSTM", "LSTM", "lstm", MXNET, "layer", {"proj_size": ()}),
            CellSpec("GRU", "GRU", "gru", MXNET, "layer"),
            CellSpec("RNNCell", "RNN_TANH", "rnn", MXNET_CELLS, "cell"),
            CellSpec("LSTMCell", "LSTM", "lstm", MXNET_CELLS, "cell"),
            CellSpec("GRUCell", "GRU", "gru", MXNET_CELLS, "cell"),
        ),
        ("mxnet",),
        f"{MXNET.source}; {MXNET_CELLS.source}",
        order=70,
        environment="mxnet",
    )
)
