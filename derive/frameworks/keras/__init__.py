"""``derive.keras``: Keras 3's recurrent layers (``keras.layers``), counted without building a model.

The classes take the arguments of their ``keras.layers`` namesakes, in the same order and with
the same defaults, so a constructor call can be pasted: ``Bidirectional(LSTM(128))``. A Keras
layer does not know its weights until it knows its input, and neither do these; they learn it as
Keras layers do, from ``input_dim`` (the features the weights read: per time step for
``SimpleRNN``/``LSTM``/``GRU``, channels for ``ConvLSTM1D/2D/3D``, as Keras 2 reads it),
``input_shape`` (without the batch axis) or ``batch_input_shape`` (Keras 2's, with it). Then
``.count`` is the count, as on every object of derive (``derive.torch.LSTM(...).count``,
``derive.explain(...).count``): an ``int`` when every size is an int, else a SymPy closed form.
Without the input, ``.count`` is no number (:class:`~derive.frameworks.keras.base.NoInput`:
comparing, adding or converting it raises TypeError saying how to give the input, as Keras'
``count_params()`` raises on a layer not yet built); :func:`count` counts a layer, or a list of
layers, on an input. ``layer.count(input_dim)``, the old spelling, still works, with a
DeprecationWarning. ``module``, ``tensors`` and ``output_dim`` take ``input_dim``, optional once the
layer was given its input.

``units``, ``filters``, the entries of ``kernel_size`` and ``input_dim`` may be ints or SymPy
expressions (see :mod:`derive.engine.symbols`). Arguments that do not change the weights
(``activation``, initialisers, regularisers, constraints, ``dropout``, ``return_sequences``,
``go_backwards``, ``stateful``, ``unroll``, ``strides``, ``padding``, ``name``, ``dtype``, ...)
are accepted under their Keras names and otherwise ignored, except that ``return_sequences``,
``return_state``, ``go_backwards`` and ``stateful`` are checked where Keras checks them
(:class:`Bidirectional`, layers feeding each other). An unknown keyword raises ``TypeError``.

>>> Bidirectional(LSTM(128), input_dim=28).count
160768
>>> LSTM(256, input_shape=(28, 28)).count
291840
>>> count(LSTM(256), 28)
291840
>>> from derive import H, I
>>> LSTM(H, input_dim=I).count
4*H**2 + 4*H*I + 4*H

Convention (:data:`KERAS`), checked against ``keras/src/layers/rnn/simple_rnn.py``, ``lstm.py``,
``gru.py``, ``conv_lstm.py`` and ``bidirectional.py`` (Keras 3.15): ``kernel`` (I, G·H) is the
input weights transposed, gate blocks side by side; ``recurrent_kernel`` (H, G·H); one merged
``bias`` (G·H,), except the GRU with ``reset_after=True`` (the default), whose ``bias`` is
(2, 3H): input bias and recurrent bias stacked. Gate order: LSTM i, f, c, o (PyTorch's
i, f, g, o); GRU z, r, h (PyTorch: r, z, n).

Every layer's weights are a :class:`derive.tree.Module` (``layer.module()``) named as
Keras names them (``sep="/"``); :func:`tensors` lists them as :class:`Weight` s. The layers that
surround recurrent ones in whole models (``Dense``, ``Embedding``, ``Conv1D``, the norms, ...)
are built on :mod:`derive.layers` and have ``build(input_shape) -> (Module, output_shape)``;
every class is registered in :mod:`derive.engine.constructors` (framework ``"keras"``).

The package, by layer family: :mod:`.conventions` (the layouts), :mod:`.base` (the weights on
the tree, names, argument checks), :mod:`.recurrent`, :mod:`.cells`, :mod:`.rnn`,
:mod:`.conv_lstm`, :mod:`.cudnn`, :mod:`.wrappers`, :mod:`.sequential`, :mod:`.versions`; the
other layers :mod:`.layer`, :mod:`.core`, :mod:`.convolutional`, :mod:`.normalization`,
:mod:`.reshaping`, :mod:`.pooling`, :mod:`.merging`; :mod:`.constructors`.
"""

from __future__ import annotations

from .base import NoInput as NoInput
from .base import Weight
from .cells import GRUCell, LSTMCell, SimpleRNNCell
from .constructors import KERAS_INPUT_KWARGS as KERAS_INPUT_KWARGS
from .constructors import KERAS_LAYERS as KERAS_LAYERS
from .constructors import KERAS_RECURRENT as KERAS_RECURRENT
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .conventions import KERAS, MERGE_MODES
from .convolutional import Conv1D, Conv2D, Conv3D
from .core import Dense, Embedding
from .core import InputLayer as InputLayer
from .cudnn import CuDNNGRU, CuDNNLSTM
from .layer import KerasLayer as KerasLayer
from .merging import Add, Attention, Concatenate
from .normalization import BatchNormalization, LayerNormalization
from .recurrent import GRU, LSTM, SimpleRNN
from .reshaping import Flatten, RepeatVector, Reshape
from .rnn import RNN, StackedRNNCells
from .sequential import Sequential, count, tensors
from .versions import DEFAULT_CHANGES, KERAS_VERSIONS, DefaultChange, version_defaults
from .versions import KERAS2_ONLY as KERAS2_ONLY
from .wrappers import Bidirectional, TimeDistributed

__all__ = [
    "KERAS",
    "Weight",
    "SimpleRNN",
    "LSTM",
    "GRU",
    "SimpleRNNCell",
    "LSTMCell",
    "GRUCell",
    "StackedRNNCells",
    "RNN",
    "CuDNNLSTM",
    "CuDNNGRU",
    "KERAS_VERSIONS",
    "DEFAULT_CHANGES",
    "DefaultChange",
    "version_defaults",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "Bidirectional",
    "Sequential",
    "count",
    "tensors",
    "MERGE_MODES",
    "Dense",
    "Embedding",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "LayerNormalization",
    "BatchNormalization",
    "Attention",
    "Flatten",
    "Reshape",
    "RepeatVector",
    "TimeDistributed",
    "Concatenate",
    "Add",
]
