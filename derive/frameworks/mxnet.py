"""MXNet Gluon: PyTorch's tensors under other names (mxnet 1.9.1)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import CellSpec, Framework, register

__all__ = ["MXNET"]


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


register(
    Framework(
        "mxnet",
        "MXNet Gluon",
        (
            CellSpec("RNN", "RNN_TANH", "rnn", MXNET, "layer"),
            CellSpec("LSTM", "LSTM", "lstm", MXNET, "layer", {"proj_size": ()}),
            CellSpec("GRU", "GRU", "gru", MXNET, "layer"),
        ),
        (),
        MXNET.source,
        order=70,
    )
)
