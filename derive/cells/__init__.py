"""Recurrent cells, one module each, written once as their update equations.

Each module of this package writes one cell with :class:`derive.engine.equations.Equations`
and registers its builder in the engine's registry (:func:`register`,
:mod:`derive.engine.registry`, re-exported here with :data:`CELLS` and :func:`make_cell`); a cell's
module is imported when its mode is first asked for (:mod:`derive.engine.lazy`: adding a cell is adding
one module and ``scripts/update-index``). :func:`make_cell` builds a registered cell
by its mode name (PyTorch's ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"``, ``"GRU"``, and
``"MGU"``, ``"CONVLSTM"``, ...).

>>> make_cell("LSTM", 10, 20).count
2560
>>> [mode for mode in sorted(CELLS) if mode.endswith("LSTM")][:3]
['CONVLSTM', 'LNLSTM', 'LSTM']
"""

from __future__ import annotations

from typing import Any

from ..engine.cell import BIAS_POLICIES, Cell, Parameter, bias_policy
from ..engine.registry import CELLS, CellType, make_cell, register

__all__ = [
    "Parameter",
    "Cell",
    "sigma",
    "relu",
    "CellType",
    "CELLS",
    "BIAS_POLICIES",
    "bias_policy",
    "register",
    "make_cell",
]


__all__ += ["elman", "lstm", "gru", "mgu", "conv_lstm"]

#: The cells' builders re-exported here, and their modules (imported when first asked).
_BUILDERS = {
    "elman": "elman_cell",
    "lstm": "lstm_cell",
    "gru": "gru_cell",
    "mgu": "mgu_cell",
    "conv_lstm": "convlstm_cell",
}


def __getattr__(name: str) -> Any:
    """The builders of :data:`_BUILDERS` and the equations' functions ``sigma``, ``relu``, imported on first use."""
    import importlib

    if name in _BUILDERS:
        return getattr(importlib.import_module(f"{__name__}.{_BUILDERS[name]}"), name)
    if name in ("sigma", "relu"):
        from ..engine import algebra

        return getattr(algebra, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
