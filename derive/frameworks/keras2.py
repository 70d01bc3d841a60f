"""Keras 2 (``tf_keras`` 2.21, and ``tf.keras`` of TensorFlow 2.0-2.15): Keras 3's tensors under
Keras 2's names, ``lstm/lstm_cell/kernel``, made unique with ``_1``, ``_2`` ...

The layout is Keras 3's (:func:`derive.frameworks.keras.conventions.keras_convention`, written
once); only the names differ (:func:`keras2_name`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .keras.conventions import keras_convention
from .registry import YES_NO, CellSpec, Framework, register

__all__ = ["KERAS2", "keras2_name"]

_SOURCE = (
    "tf_keras/src/layers/rnn/simple_rnn.py, lstm.py, gru.py (tf-keras 2.21; the cells' build methods), "
    "tf_keras/src/layers/rnn/bidirectional.py (forward_/backward_ + the layer's name), "
    "tf_keras/src/layers/rnn/gru_v1.py (tf.compat.v1.keras.layers.GRU: reset_after=False)"
)
_DIRECTIONS = {1: ("",), 2: ("forward", "backward")}


def keras2_name(layer_name: str, cell_name: str | None) -> Callable[[str, Any, str], str]:
    """Keras 2's weight names of layer ``layer_name`` (``"lstm"``) whose cell is ``cell_name``.

    Layer k of a ``Sequential`` built in a fresh session is ``lstm`` (k = 0) or ``lstm_<k>``;
    wrapped in ``Bidirectional`` it is ``bidirectional[_<k>]/forward_lstm[_<k>]`` and
    ``.../backward_lstm[_<k>]``. A layer with a cell (``LSTM``) puts its weights under the cell's
    name (``lstm_cell``); ``CuDNNLSTM`` has none.

    Parameters
    ----------
    layer_name : str
        Keras 2's default name of the layer class (``"lstm"``, ``"cu_dnnlstm"``).
    cell_name : str or None
        Its cell's (``"lstm_cell"``), None for a layer without a cell.

    Returns
    -------
    callable
        ``(base, layer, label) -> str``.

    Examples
    --------
    >>> keras2_name("lstm", "lstm_cell")("kernel", 1, "backward")
    'bidirectional_1/backward_lstm_1/lstm_cell/kernel'
    """

    def name(base: str, layer: Any, label: str) -> str:
        k = layer or 0
        suffix = "" if k == 0 else f"_{k}"
        path = f"{layer_name}{suffix}"
        if label:
            path = f"bidirectional{suffix}/{label}_{path}"
        return f"{path}/{cell_name}/{base}" if cell_name else f"{path}/{base}"

    return name


#: Keras 2 ``SimpleRNN``, ``LSTM``, ``GRU`` (tf-keras 2.21): ``kernel`` (I, G·H),
#: ``recurrent_kernel`` (H, G·H), ``bias`` (G·H,), GRU with ``reset_after=True`` (2, 3H) — Keras 3's
#: tensors; by class.
KERAS2 = {
    cls: keras_convention("Keras 2", _SOURCE, keras2_name(layer, f"{layer}_cell"), _DIRECTIONS)
    for cls, layer in (("SimpleRNN", "simple_rnn"), ("LSTM", "lstm"), ("GRU", "gru"))
}

register(
    Framework(
        "keras2",
        "Keras 2 (tf-keras)",
        (
            CellSpec("SimpleRNN", "RNN_TANH", "rnn", KERAS2["SimpleRNN"], "cell", {"bias": YES_NO}),
            CellSpec("LSTM", "LSTM", "lstm", KERAS2["LSTM"], "cell", {"bias": YES_NO}),
            CellSpec("GRU", "GRU", "gru", KERAS2["GRU"], "cell", {"bias": YES_NO, "reset_after": YES_NO}),
        ),
        ("tf-keras", "tensorflow"),
        _SOURCE,
        order=25,
    )
)
