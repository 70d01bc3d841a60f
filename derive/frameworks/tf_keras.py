"""tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TensorFlow 1.x-2.x; GPU only to run, their weights build anywhere).

Names as Keras 2 prints them (``cu_dnnlstm/kernel``, see :func:`derive.frameworks.keras2.keras2_name`);
in TF 2 the classes are ``tf.compat.v1.keras.layers.CuDNNLSTM``/``CuDNNGRU`` (from ``tf_keras``).
"""

from __future__ import annotations

from .keras.conventions import cudnn_convention
from .keras2 import keras2_name
from .registry import CellSpec, Framework, register

__all__ = ["TF_KERAS_CUDNN", "TF_KERAS_CUDNN_GRU"]


#: tf.keras ``CuDNNLSTM`` (see :func:`derive.frameworks.keras.conventions.cudnn_convention`, the one
#: layout of the CuDNN layers, which ``derive.keras.CuDNNLSTM`` uses too): ``kernel`` (I, G·H),
#: ``recurrent_kernel`` (H, G·H), ``bias`` (2·G·H,) = input biases then recurrent biases.
TF_KERAS_CUDNN = cudnn_convention(keras2_name("cu_dnnlstm", None))

#: ``CuDNNGRU``: :data:`TF_KERAS_CUDNN` under the layer name ``cu_dnngru``.
TF_KERAS_CUDNN_GRU = cudnn_convention(keras2_name("cu_dnngru", None))


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
