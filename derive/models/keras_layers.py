"""Keras 3 layers that surround recurrent ones: now in the Keras mirror, :mod:`derive.frameworks.keras`.

This module re-exports them where the code reader and older imports find them.

>>> Dense(1).count(64)
65
"""

from __future__ import annotations

from ..frameworks.keras.constructors import KERAS_LAYERS
from ..frameworks.keras.convolutional import Conv1D, Conv2D, Conv3D
from ..frameworks.keras.core import Dense, Embedding, InputLayer
from ..frameworks.keras.layer import KerasLayer, Shape
from ..frameworks.keras.merging import Add, Attention, Concatenate
from ..frameworks.keras.normalization import BatchNormalization, LayerNormalization
from ..frameworks.keras.pooling import AveragePooling1D, GlobalAveragePooling1D, GlobalMaxPooling1D, MaxPooling1D
from ..frameworks.keras.reshaping import Activation, Dropout, Flatten, Masking, RepeatVector, Reshape, SpatialDropout1D
from ..frameworks.keras.wrappers import TimeDistributed

__all__ = [
    "KerasLayer",
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
    "InputLayer",
    "KERAS_LAYERS",
    "Shape",
    "Dropout",
    "SpatialDropout1D",
    "Masking",
    "Activation",
    "MaxPooling1D",
    "AveragePooling1D",
    "GlobalAveragePooling1D",
    "GlobalMaxPooling1D",
]
