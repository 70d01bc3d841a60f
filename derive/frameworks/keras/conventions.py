"""The Keras weight layouts, written once: Keras 3 (:data:`KERAS`), Keras 2 and the CuDNN layers.

Keras 3 and Keras 2 (tf-keras) lay a recurrent cell out alike (``build`` of ``SimpleRNNCell``,
``LSTMCell``, ``GRUCell`` in ``keras/src/layers/rnn/simple_rnn.py``, ``lstm.py``, ``gru.py``;
``tf_keras/src/layers/rnn/`` the same): ``kernel`` = the input weights transposed (I, G·H),
``recurrent_kernel`` (H, G·H), one bias merged on the input side (G·H,) — except the GRU with
``reset_after=True``, whose ``bias`` (2, 3H) holds the input bias and the recurrent bias
(``b_hn`` is multiplied by the reset gate, so it cannot be merged; Keras keeps all three
recurrent biases for cuDNN compatibility). GRU gates are stacked z, r, h. ConvLSTM kernels are
(*kernel_size, C, 4F) and (*kernel_size, F, 4F). They differ only in their weight names
(:func:`keras_convention`'s ``layer_name``). Keras 2's ``CuDNNLSTM`` / ``CuDNNGRU`` keep cuDNN's
two biases in one flat ``bias`` (:func:`cudnn_convention`).

>>> KERAS.bias_policy("GRU", True), KERAS.bias_policy("GRU", True, reset_after=False)
('two', 'input')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...engine.conventions import Convention, TensorLayout
from ...engine.wirings import KERAS_MERGE_MODES

__all__ = ["KERAS", "CUDNN", "MERGE_MODES", "keras_convention", "cudnn_convention", "own_name"]

#: Keras' bias policy by cell: one merged input-side bias, the GRU (``reset_after=True``) two.
_BIASES: Mapping[str | tuple[str, bool], str] = {
    "RNN_TANH": "input",
    "LSTM": "input",
    "CONVLSTM": "input",
    "GRU": "two",
    ("GRU", False): "input",
}
#: Keras stacks the GRU's gates z, r, h (PyTorch: r, z, n).
_GATE_ORDER = {"GRU": ("z", "r", "n")}

#: The values ``Bidirectional`` accepts for ``merge_mode`` (``keras/src/layers/rnn/bidirectional.py``):
#: the engine's merge modes that feed a next layer (:data:`derive.engine.wirings.KERAS_MERGE_MODES`,
#: the one list) and None, which returns the two outputs as a list.
MERGE_MODES = (*KERAS_MERGE_MODES, None)


def own_name(base: str, layer: Any, direction: Any) -> str:
    """A tensor's name is its base name (``kernel``): the path comes from the module tree.

    Parameters
    ----------
    base : str
    layer, direction : object
        Ignored.

    Returns
    -------
    str
    """
    return base


def keras_convention(
    name: str,
    source: str,
    layer_name: Callable[[str, Any, Any], str] = own_name,
    direction_names: Mapping[int, tuple[str, ...]] | None = None,
) -> Convention:
    """The Keras layout of a recurrent cell's weights (``kernel``, ``recurrent_kernel``, ``bias``).

    Parameters
    ----------
    name : str
        The convention's name (``"Keras"``, ``"Keras 2"``).
    source : str
        The framework files it is read from.
    layer_name : callable (base, layer, direction) -> str, default :func:`own_name`
        The tensors' full names (Keras 2's ``lstm_1/lstm_cell/kernel``, see
        :func:`derive.frameworks.keras2.keras2_name`).
    direction_names : mapping of D -> tuple of str, optional
        The directions' labels passed to ``layer_name`` (Keras 2: ``forward``/``backward``).

    Returns
    -------
    Convention
    """
    return Convention(
        name=name,
        tensors=(
            TensorLayout("kernel", "weight", ("ih",), transpose=True),
            TensorLayout("recurrent_kernel", "weight", ("hh",), transpose=True),
            TensorLayout("bias", "bias", ("ih", "hh")),
        ),
        layer_name=layer_name,
        source=source,
        biases=_BIASES,
        gate_order=_GATE_ORDER,
        direction_names=dict(direction_names or {}),
    )


def cudnn_convention(layer_name: Callable[[str, Any, Any], str] = own_name) -> Convention:
    """Keras 2's ``CuDNNLSTM`` / ``CuDNNGRU`` layout: no cell scope, cuDNN's two biases in one ``bias``.

    tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TF 1.x–2.x, GPU only;
    ``tensorflow/python/keras/layers/cudnn_recurrent.py``): ``kernel`` (I, G·H),
    ``recurrent_kernel`` (H, G·H), ``bias`` (2·G·H,) = input biases then recurrent biases — cuDNN's
    two biases, so twice the bias of ``LSTM``/``GRU(reset_after=False)``. Gate order LSTM i, f, c, o;
    GRU z, r, h (Keras'); the layer permutes them into cuDNN's order when it calls cuDNN.

    Parameters
    ----------
    layer_name : callable (base, layer, direction) -> str, default :func:`own_name`
        The tensors' full names (Keras 2's ``cu_dnnlstm/kernel``).

    Returns
    -------
    Convention
    """
    return Convention(
        name="tf.keras CuDNNLSTM / CuDNNGRU",
        tensors=(
            TensorLayout("kernel", "weight", ("ih",), transpose=True),
            TensorLayout("recurrent_kernel", "weight", ("hh",), transpose=True),
            TensorLayout("bias", "bias", ("ih", "hh"), join="rows"),
        ),
        layer_name=layer_name,
        source="tensorflow/python/keras/layers/cudnn_recurrent.py (CuDNNGRU.build, CuDNNLSTM.build); "
        "tf_keras/src/layers/rnn/cudnn_lstm.py, cudnn_gru.py (tf-keras 2.21)",
        gate_order=_GATE_ORDER,
        gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
        direction_names={1: ("",), 2: ("forward", "backward")},
    )


#: Keras 3 (checked against ``keras/src/layers/rnn/simple_rnn.py``, ``lstm.py``, ``gru.py``,
#: ``conv_lstm.py``, Keras 3.15): see the module's docstring.
KERAS = keras_convention(
    "Keras", "keras/src/layers/rnn/simple_rnn.py, lstm.py, gru.py, conv_lstm.py (the cells' build methods)"
)

#: The CuDNN layers' layout with the tensors' own names (the paths come from the module tree).
CUDNN = cudnn_convention()
