"""``derive.keras``: Keras 3's recurrent layers (``keras.layers``), counted without building a model.

The short path users type (``import derive.keras as dk``) of :mod:`derive.frameworks.keras`, whose
names it gives (every other name of that package too, on first use).

>>> import derive.keras as dk
>>> dk.Bidirectional(dk.LSTM(128), input_dim=28).count   # Keras: 160,768 on 28 features
160768
>>> dk.count(dk.Bidirectional(dk.LSTM(128)), 28)
160768
"""

from __future__ import annotations

from typing import Any

from .frameworks import keras as _keras
from .frameworks.keras import *  # noqa: F403  (the names of derive.frameworks.keras)
from .frameworks.keras import __all__ as __all__


def __getattr__(name: str) -> Any:
    """Any other name of :mod:`derive.frameworks.keras` (``KerasLayer``, ``KERAS_LAYERS`` ...)."""
    try:
        return getattr(_keras, name)
    except AttributeError:
        raise AttributeError(f"module 'derive.keras' has no attribute {name!r}") from None
