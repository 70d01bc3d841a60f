"""Every Keras class the mirror knows, by name, registered in :mod:`derive.engine.constructors`.

Each is registered under the framework ``"keras"`` as users write it (``LSTM``, ``layers.LSTM``,
``keras.layers.LSTM``, ``tf.keras.layers.LSTM``, ...), deferred (its weights are known once it is
built on an input shape), with ``read``: a live Keras 3 or Keras 2 (tf-keras) layer -> the
arguments that remake it here, read from ``get_config()`` (never its weights).

>>> from derive.engine.constructors import find
>>> [(c.framework, c.name) for c in find("tf.keras.layers.Bidirectional")]
[('keras', 'Bidirectional')]
>>> layer = find("layers.Dense")[0].make(10)
>>> layer.build((None, 256))[0].count
2570
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ...engine.constructors import Constructor, lookup, register
from .catalogue import CATALOGUE, MODULES
from .cells import GRUCell, LSTMCell, SimpleRNNCell
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .convolutional import Conv1D, Conv2D, Conv3D
from .core import Dense, Embedding, InputLayer
from .cudnn import CuDNNGRU, CuDNNLSTM
from .merging import Add, Attention, Concatenate
from .normalization import BatchNormalization, LayerNormalization
from .pooling import AveragePooling1D, GlobalAveragePooling1D, GlobalMaxPooling1D, MaxPooling1D
from .recurrent import GRU, LSTM, SimpleRNN
from .recurrent_base import Recurrent
from .reshaping import Activation, Dropout, Flatten, Masking, RepeatVector, Reshape, SpatialDropout1D
from .rnn import RNN, StackedRNNCells
from .wrappers import Bidirectional, TimeDistributed

__all__ = [
    "KERAS_LAYERS",
    "KERAS_RECURRENT",
    "KERAS_INPUT_KWARGS",
    "PREFIXES",
    "V1_PREFIX",
    "remake",
    "declared_input",
]

#: Every non-recurrent Keras class a model may use, by name.
KERAS_LAYERS: dict[str, Any] = {
    **CATALOGUE,
    **{
        cls.__name__: cls
        for cls in (
            InputLayer,
            Dense,
            Embedding,
            Conv1D,
            Conv2D,
            Conv3D,
            LayerNormalization,
            BatchNormalization,
            Attention,
            Flatten,
            Reshape,
            RepeatVector,
            TimeDistributed,
            Concatenate,
            Add,
            Dropout,
            SpatialDropout1D,
            Masking,
            Activation,
            MaxPooling1D,
            AveragePooling1D,
            GlobalAveragePooling1D,
            GlobalMaxPooling1D,
        )
    },
}
#: ``keras.layers`` recurrent layers a model's code may use (``Bidirectional`` last, wrapping the others).
KERAS_RECURRENT = ("SimpleRNN", "LSTM", "GRU", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "Bidirectional")
#: Keyword arguments that give a Keras model its input (read by the model, not the layer).
KERAS_INPUT_KWARGS = ("input_shape", "batch_input_shape", "input_dim", "input_length", "batch_size")

#: How users write a Keras class (``tf.compat.v1.keras.layers.``: TF 2's v1 layers, whose ``GRU``
#: keeps ``reset_after=False``: :data:`V1_PREFIX`).
PREFIXES = ("", "layers.", "keras.layers.", "tf.keras.layers.", "keras.", "tf.keras.", "tf.compat.v1.keras.layers.")
#: TF 2's ``tf.compat.v1.keras.layers`` (tf_keras/src/layers/rnn/gru_v1.py, lstm_v1.py).
V1_PREFIX = "tf.compat.v1.keras.layers."


def declared_input(kwargs: dict[str, Any], mirror: Any, name: str) -> tuple[Any, ...] | None:
    """The input shape (batch axis first) a layer's own arguments give (Keras 2 and 3 spellings).

    Parameters
    ----------
    kwargs : dict
        The constructor's keywords.
    mirror : object
        The mirror's layer.
    name : str
        The class name.

    Returns
    -------
    tuple or None
    """
    if isinstance(kwargs.get("batch_input_shape"), (tuple, list)):
        return tuple(kwargs["batch_input_shape"])
    batch = kwargs.get("batch_size")
    if isinstance(kwargs.get("input_shape"), (tuple, list)):
        return (batch, *kwargs["input_shape"])
    if kwargs.get("input_dim") is not None and name != "Embedding":
        if isinstance(mirror, Recurrent):
            return (batch, kwargs.get("input_length"), kwargs["input_dim"])
        return (batch, kwargs["input_dim"])
    if name == "Embedding" and kwargs.get("input_length") is not None:
        return (batch, kwargs["input_length"])
    return None


def remake(layer: Any) -> Any:
    """The mirror of a live Keras layer (Keras 3 or tf-keras), remade from its config.

    Parameters
    ----------
    layer : keras.layers.Layer

    Returns
    -------
    KerasLayer
        The layer of the Keras mirror (:mod:`derive.keras`) with the same configuration.

    Raises
    ------
    ValueError
        A class the mirror does not know.
    """
    constructor = lookup("keras", type(layer).__name__)
    if constructor is None or constructor.read is None:
        raise ValueError(f"{type(layer).__name__} is not a Keras class derive knows")
    args, kwargs = constructor.read(layer)
    return constructor.make(*args, **kwargs)


def _reader(cls: type) -> Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]:
    """Read the config entries ``cls`` takes (its signature, its accepted keywords, ``name``)."""
    accepted = {p for p in inspect.signature(cls).parameters if p not in ("args", "kwargs")}
    accepted |= set(getattr(cls, "ALLOWED", ())) | set(getattr(cls, "ARGUMENTS", ())) | {"name"}

    def read(layer: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {k: v for k, v in layer.get_config().items() if k in accepted}

    return read


def _read_bidirectional(layer: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    config = layer.get_config()
    forward = lookup("keras", type(layer.forward_layer).__name__)
    if forward is None or forward.read is None:
        raise ValueError(f"{type(layer.forward_layer).__name__} is not a Keras class derive knows")
    args, inner = forward.read(layer.forward_layer)
    inner["name"] = config["layer"]["config"]["name"]  # the wrapped layer's own name, before forward_
    kwargs: dict[str, Any] = {"merge_mode": config.get("merge_mode"), "name": layer.name}
    if config.get("backward_layer") is not None:
        kwargs["backward_layer"] = remake(layer.backward_layer)
    return (forward.make(*args, **inner),), kwargs


def _read_wrapped(attribute: str) -> Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]:
    """``TimeDistributed(layer)``, ``RNN(cell)``: the wrapped object remade, the rest of the config."""

    def read(layer: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        _, kwargs = _reader(RNN if attribute == "cell" else TimeDistributed)(layer)
        kwargs.pop(attribute, None)
        kwargs.pop("layer", None)
        return (remake(getattr(layer, attribute)),), kwargs

    return read


def _read_stacked(layer: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return ([remake(cell) for cell in layer.cells],), {"name": layer.name}


_K3 = "keras/src/layers/"
#: name -> (class, Keras 3 module under keras.src.layers, tf-keras module under tf_keras.src, source, letters)
_CLASSES: dict[str, tuple[Any, str, str, str, dict[str, str]]] = {
    "SimpleRNN": (SimpleRNN, "rnn.simple_rnn", "layers.rnn.simple_rnn", "rnn/simple_rnn.py", {"units": "H"}),
    "LSTM": (LSTM, "rnn.lstm", "layers.rnn.lstm", "rnn/lstm.py", {"units": "H"}),
    "GRU": (GRU, "rnn.gru", "layers.rnn.gru", "rnn/gru.py", {"units": "H"}),
    "SimpleRNNCell": (SimpleRNNCell, "rnn.simple_rnn", "layers.rnn.simple_rnn", "rnn/simple_rnn.py", {"units": "H"}),
    "LSTMCell": (LSTMCell, "rnn.lstm", "layers.rnn.lstm", "rnn/lstm.py", {"units": "H"}),
    "GRUCell": (GRUCell, "rnn.gru", "layers.rnn.gru", "rnn/gru.py", {"units": "H"}),
    "StackedRNNCells": (
        StackedRNNCells,
        "rnn.stacked_rnn_cells",
        "layers.rnn.stacked_rnn_cells",
        "rnn/stacked_rnn_cells.py",
        {},
    ),
    "RNN": (RNN, "rnn.rnn", "layers.rnn.base_rnn", "rnn/rnn.py", {}),
    "ConvLSTM1D": (ConvLSTM1D, "rnn.conv_lstm1d", "layers.rnn.conv_lstm1d", "rnn/conv_lstm.py", {"filters": "F"}),
    "ConvLSTM2D": (ConvLSTM2D, "rnn.conv_lstm2d", "layers.rnn.conv_lstm2d", "rnn/conv_lstm.py", {"filters": "F"}),
    "ConvLSTM3D": (ConvLSTM3D, "rnn.conv_lstm3d", "layers.rnn.conv_lstm3d", "rnn/conv_lstm.py", {"filters": "F"}),
    "Bidirectional": (Bidirectional, "rnn.bidirectional", "layers.rnn.bidirectional", "rnn/bidirectional.py", {}),
    "TimeDistributed": (
        TimeDistributed,
        "rnn.time_distributed",
        "layers.rnn.time_distributed",
        "rnn/time_distributed.py",
        {},
    ),
    "InputLayer": (InputLayer, "core.input_layer", "engine.input_layer", "core/input_layer.py", {}),
    "Dense": (Dense, "core.dense", "layers.core.dense", "core/dense.py", {"units": "U"}),
    "Embedding": (
        Embedding,
        "core.embedding",
        "layers.core.embedding",
        "core/embedding.py",
        {"input_dim": "V", "output_dim": "E"},
    ),
    "Masking": (Masking, "core.masking", "layers.core.masking", "core/masking.py", {}),
    "Conv1D": (
        Conv1D,
        "convolutional.conv1d",
        "layers.convolutional.conv1d",
        "convolutional/base_conv.py",
        {"filters": "F"},
    ),
    "Conv2D": (
        Conv2D,
        "convolutional.conv2d",
        "layers.convolutional.conv2d",
        "convolutional/base_conv.py",
        {"filters": "F"},
    ),
    "Conv3D": (
        Conv3D,
        "convolutional.conv3d",
        "layers.convolutional.conv3d",
        "convolutional/base_conv.py",
        {"filters": "F"},
    ),
    "LayerNormalization": (
        LayerNormalization,
        "normalization.layer_normalization",
        "layers.normalization.layer_normalization",
        "normalization/layer_normalization.py",
        {},
    ),
    "BatchNormalization": (
        BatchNormalization,
        "normalization.batch_normalization",
        "layers.normalization.batch_normalization",
        "normalization/batch_normalization.py",
        {},
    ),
    "Attention": (Attention, "attention.attention", "layers.attention.attention", "attention/attention.py", {}),
    "Flatten": (Flatten, "reshaping.flatten", "layers.reshaping.flatten", "reshaping/flatten.py", {}),
    "Reshape": (Reshape, "reshaping.reshape", "layers.reshaping.reshape", "reshaping/reshape.py", {}),
    "RepeatVector": (
        RepeatVector,
        "reshaping.repeat_vector",
        "layers.reshaping.repeat_vector",
        "reshaping/repeat_vector.py",
        {},
    ),
    "Concatenate": (Concatenate, "merging.concatenate", "layers.merging.concatenate", "merging/concatenate.py", {}),
    "Add": (Add, "merging.add", "layers.merging.add", "merging/add.py", {}),
    "Dropout": (Dropout, "regularization.dropout", "layers.regularization.dropout", "regularization/dropout.py", {}),
    "SpatialDropout1D": (
        SpatialDropout1D,
        "regularization.spatial_dropout",
        "layers.regularization.spatial_dropout1d",
        "regularization/spatial_dropout.py",
        {},
    ),
    "Activation": (Activation, "activations.activation", "layers.core.activation", "activations/activation.py", {}),
    "MaxPooling1D": (
        MaxPooling1D,
        "pooling.max_pooling1d",
        "layers.pooling.max_pooling1d",
        "pooling/max_pooling1d.py",
        {},
    ),
    "AveragePooling1D": (
        AveragePooling1D,
        "pooling.average_pooling1d",
        "layers.pooling.average_pooling1d",
        "pooling/average_pooling1d.py",
        {},
    ),
    "GlobalAveragePooling1D": (
        GlobalAveragePooling1D,
        "pooling.global_average_pooling1d",
        "layers.pooling.global_average_pooling1d",
        "pooling/global_average_pooling1d.py",
        {},
    ),
    "GlobalMaxPooling1D": (
        GlobalMaxPooling1D,
        "pooling.global_max_pooling1d",
        "layers.pooling.global_max_pooling1d",
        "pooling/global_max_pooling1d.py",
        {},
    ),
}

_READERS: dict[str, Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "Bidirectional": _read_bidirectional,
    "TimeDistributed": _read_wrapped("layer"),
    "RNN": _read_wrapped("cell"),
    "StackedRNNCells": _read_stacked,
}

for _name, (_cls, _k3, _k2, _source, _letters) in _CLASSES.items():
    register(
        Constructor(
            framework="keras",
            name=_name,
            make=_cls,
            prefixes=PREFIXES,
            letters=_letters,
            read=_READERS.get(_name) or _reader(_cls),
            module_types=(f"keras.src.layers.{_k3}", f"tf_keras.src.{_k2}"),
            deferred=True,
            source=_K3 + _source + " (Keras 3.15)",
        )
    )

_LETTERS = {"filters": "F"}
for _name, _module in MODULES.items():
    _cls = CATALOGUE[_name]
    register(
        Constructor(
            framework="keras",
            name=_name,
            make=_cls,
            prefixes=PREFIXES,
            letters=_LETTERS if "filters" in inspect.signature(_cls).parameters else {},
            read=_reader(_cls),
            module_types=(f"keras.src.layers.{_module}",),
            deferred=True,
            source=_K3 + _module.replace(".", "/") + ".py (Keras 3.15)",
        )
    )

# Keras 2's CuDNN layers: tf.compat.v1.keras.layers (TF 2), keras.layers (Keras 2.0.9-2.3).
for _cls, _module in ((CuDNNLSTM, "cudnn_lstm"), (CuDNNGRU, "cudnn_gru")):
    register(
        Constructor(
            framework="keras",
            name=_cls.__name__,
            make=_cls,
            prefixes=PREFIXES,
            letters={"units": "H"},
            read=_reader(_cls),
            module_types=(f"tf_keras.src.layers.rnn.{_module}", f"keras.src.layers.rnn.{_module}"),
            deferred=True,
            source=f"tf_keras/src/layers/rnn/{_module}.py (tf-keras 2.21)",
        )
    )
