"""The one module tree: what every producer of derive builds and every consumer reads.

A model, a layer or a block is a :class:`Module` (named as its framework names it, with its type
and children) holding :class:`Param` s (name, shape, trainable, buffer, tied-to, dtype). The cell
stacks under each convention, the framework constructor mirrors, the modern blocks and every
reader of whole models (code, live objects, checkpoints, ONNX, configs) produce one; totals,
per-layer tables, tensor listings, closed forms, JSON, the command line and the site read it.

This package is the bottom floor: it imports nothing else of :mod:`derive`, and SymPy only when a
dimension is symbolic. Sizes are ints or SymPy expressions; with ints everything here is plain
integer arithmetic.

>>> lstm = Module("rnn", "LSTM", (Param("weight_ih_l0", (512, 300)), Param("weight_hh_l0", (512, 128))))
>>> model = Module("", "Net", children=(Module("embedding", "Embedding", (Param("weight", (5000, 300)),)), lstm))
>>> count(model)
1719136
>>> [name for name, _ in named_parameters(model)]
['embedding.weight', 'rnn.weight_ih_l0', 'rnn.weight_hh_l0']

A module that stands for ``repeat`` identical copies (a symbolic number of layers) is counted
``repeat`` times; ``{k}`` in its name and its own parameters' names is the copy's index:

>>> import sympy
>>> n = sympy.Symbol("n", integer=True, positive=True)
>>> block = Module("layers.{k}", "Block", (Param("weight", (8, 8)),), repeat=n)
>>> count(Module("", "Model", children=(block,)))
64*n
>>> [name for name, _ in named_parameters(Module("", "Model", children=(block.with_repeat(2),)))]
['layers.0.weight', 'layers.1.weight']
"""

from __future__ import annotations

from .nodes import (
    UNKNOWN,
    Dim,
    Formula,
    Letter,
    Module,
    Param,
    State,
    closed_form,
    count,
    is_partial,
    letters_to_symbols,
    numel,
)
from .usage import PARTS, active, cache_elements, check_cache_known, named_states, parts
from .walk import MAX_LISTED, named_buffers, named_modules, named_parameters, uncounted

__all__ = [
    "Letter",
    "letters_to_symbols",
    "Dim",
    "Param",
    "State",
    "Module",
    "Formula",
    "count",
    "numel",
    "is_partial",
    "named_parameters",
    "named_buffers",
    "named_modules",
    "uncounted",
    "MAX_LISTED",
    "closed_form",
    "active",
    "parts",
    "PARTS",
    "cache_elements",
    "check_cache_known",
    "UNKNOWN",
    "named_states",
]
