"""``derive.torch``: ``torch.nn``'s recurrent layers, counted without allocating a weight.

The short path users type (``import derive.torch as dt``) of :mod:`derive.frameworks.pytorch`,
whose names it gives: ``RNN``, ``LSTM``, ``GRU``, ``RNNCell``, ``LSTMCell``, ``GRUCell``, the
convention ``PYTORCH`` (and every other name of that module, on first use).

>>> import derive.torch as dt
>>> dt.LSTM(32, 128, 2, bidirectional=True).count
561152
"""

from __future__ import annotations

from typing import Any

from .frameworks import pytorch as _pytorch
from .frameworks.pytorch import GRU, LSTM, PYTORCH, RNN, GRUCell, LSTMCell, RNNCell

__all__ = ["PYTORCH", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def __getattr__(name: str) -> Any:
    """Any other name of :mod:`derive.frameworks.pytorch` (``torch_arguments`` ...)."""
    try:
        return getattr(_pytorch, name)
    except AttributeError:
        raise AttributeError(f"module 'derive.torch' has no attribute {name!r}") from None
