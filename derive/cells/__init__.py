"""Recurrent cells, one module each, written once as their update equations.

Each module of this package writes one cell with :class:`derive.engine.equations.Equations`
and registers its builder in the engine's registry (:func:`register`,
:mod:`derive.engine.registry`, re-exported here with :data:`CELLS` and :func:`make_cell`); the
modules are found at import (no list to edit), so adding a cell is adding one module. :func:`make_cell` builds a registered cell
by its mode name (PyTorch's ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"``, ``"GRU"``, and
``"MGU"``, ``"CONVLSTM"``, ...).

>>> make_cell("LSTM", 10, 20).count
2560
>>> [mode for mode in sorted(CELLS) if mode.endswith("LSTM")][:3]
['CONVLSTM', 'LNLSTM', 'LSTM']
"""

from __future__ import annotations

import importlib
import pkgutil

from ..engine.algebra import relu, sigma
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


def _discover() -> None:
    """Import every module of this package, so that each registers its cell."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


_discover()

from .convlstm_cell import conv_lstm  # noqa: E402  (re-exported: derive.cells.lstm etc. as before)
from .elman_cell import elman  # noqa: E402
from .gru_cell import gru  # noqa: E402
from .lstm_cell import lstm  # noqa: E402
from .mgu_cell import mgu  # noqa: E402

__all__ += ["elman", "lstm", "gru", "mgu", "conv_lstm"]
