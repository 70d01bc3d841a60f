"""tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TensorFlow 1.x-2.x, GPU only)."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import CellSpec, Framework, layer_path, register

__all__ = ["TF_KERAS_CUDNN"]


#: tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TF 1.x–2.x, GPU only;
#: ``tensorflow/python/keras/layers/cudnn_recurrent.py``): ``kernel`` (I, G·H),
#: ``recurrent_kernel`` (H, G·H), ``bias`` (2·G·H,) = input biases then recurrent biases — cuDNN's
#: two biases, so twice the bias of ``LSTM``/``GRU(reset_after=False)``. Gate order LSTM i, f, c, o;
#: GRU z, r, h (Keras'); the layer permutes them into cuDNN's order when it calls cuDNN.
TF_KERAS_CUDNN = Convention(
    name="tf.keras CuDNNLSTM / CuDNNGRU",
    tensors=(
        TensorLayout("kernel", "weight", ("ih",), transpose=True),
        TensorLayout("recurrent_kernel", "weight", ("hh",), transpose=True),
        TensorLayout("bias", "bias", ("ih", "hh"), join="rows"),
    ),
    layer_name=layer_path("layer_{layer}/{label}{base}"),
    source="tensorflow/python/keras/layers/cudnn_recurrent.py (CuDNNGRU.build, CuDNNLSTM.build)",
    gate_order={"GRU": ("z", "r", "n")},
    gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
    direction_names={1: ("",), 2: ("forward_layer/", "backward_layer/")},
)


register(
    Framework(
        "tf.keras",
        "tf.keras CuDNNLSTM / CuDNNGRU",
        (
            CellSpec("CuDNNLSTM", "LSTM", "lstm", TF_KERAS_CUDNN, "cell"),
            CellSpec("CuDNNGRU", "GRU", "gru", TF_KERAS_CUDNN, "cell"),
        ),
        (),
        TF_KERAS_CUDNN.source,
        order=30,
    )
)
