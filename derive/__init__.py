"""derive: exact parameter counts and tensor shapes of recurrent layers, derived with SymPy.

Each cell (Elman RNN, LSTM, LSTM with projection, GRU) is written once as its
update equations (:mod:`derive.cells`); the tensors and counts of a layer stack
follow from those equations, a framework convention (:mod:`derive.conventions`)
and a wiring of layers and directions (:mod:`derive.wirings`).

>>> import derive.torch as dt
>>> dt.LSTM(32, 128, 2, bidirectional=True).count
561152
>>> from derive import I, H, L
>>> dt.LSTM(I, H, L).count
8*H**2*L - 4*H**2 + 4*H*I + 8*H*L

:func:`compare` subtracts two configurations and names the tensors that differ
(:mod:`derive.difference`): PyTorch's deep bidirectional LSTM minus two
independent stacks is the extra input columns of every layer above the first.

>>> from derive.stack import Stack
>>> from derive.conventions import PYTORCH
>>> from derive.wirings import SIMPLE_CONCAT
>>> compare(dt.LSTM(I, H, L, bidirectional=True), Stack("LSTM", I, H, L, True, 0, PYTORCH, SIMPLE_CONCAT)).total
8*H**2*(L - 1)
"""
from . import cells, conventions, stack, torch, wirings
from .difference import compare
from .solving import solve
from .symbols import H, I, L, P, T, size_symbols

__all__ = ["I", "H", "L", "P", "T", "size_symbols", "cells", "conventions", "wirings", "stack", "torch", "solve", "compare"]
__version__ = "0.1.0"
