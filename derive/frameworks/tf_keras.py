"""tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TensorFlow 1.x-2.x; GPU only to run, their weights build anywhere).

Names as Keras 2 prints them (``cu_dnnlstm/kernel``, see :func:`derive.frameworks.keras2.keras2_name`);
in TF 2 the classes are ``tf.compat.v1.keras.layers.CuDNNLSTM``/``CuDNNGRU`` (from ``tf_keras``).
"""

from __future__ import annotations

from dataclasses import replace

from ..engine.conventions import Convention, TensorLayout
from .keras2 import keras2_name
from .registry import CellSpec, Framework, register

__all__ = ["TF_KERAS_CUDNN", "TF_KERAS_CUDNN_GRU"]


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
    layer_name=keras2_name("cu_dnnlstm", None),
    source="tensorflow/python/keras/layers/cudnn_recurrent.py (CuDNNGRU.build, CuDNNLSTM.build); "
    "tf_keras/src/layers/rnn/cudnn_lstm.py, cudnn_gru.py (tf-keras 2.21)",
    gate_order={"GRU": ("z", "r", "n")},
    gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
    direction_names={1: ("",), 2: ("forward", "backward")},
)

#: ``CuDNNGRU``: :data:`TF_KERAS_CUDNN` under the layer name ``cu_dnngru``.
TF_KERAS_CUDNN_GRU = replace(TF_KERAS_CUDNN, layer_name=keras2_name("cu_dnngru", None))


register(
    Framework(
        "tf.keras",
        "tf.keras CuDNNLSTM / CuDNNGRU",
        (
            CellSpec("CuDNNLSTM", "LSTM", "lstm", TF_KERAS_CUDNN, "cell"),
            CellSpec("CuDNNGRU", "GRU", "gru", TF_KERAS_CUDNN_GRU, "cell"),
        ),
        ("tf-keras", "tensorflow"),
        TF_KERAS_CUDNN.source,
        order=30,
    )
)
