"""Recurrent cells, one module each, written once as their SymPy update equations.

Each module of this package writes one cell with :class:`derive.engine.equations.Equations`
and registers its builder with :func:`register`; the modules are found at import (no list
to edit), so adding a cell is adding one module. :func:`make_cell` builds a registered cell
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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.equations import BIAS_POLICIES, Cell, Parameter, bias_policy, relu, sigma

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


@dataclass(frozen=True)
class CellType:
    """A registered cell: its mode name, its builder and the options the builder takes.

    Attributes
    ----------
    mode : str
        The name :func:`make_cell` knows it by (``"LSTM"``).
    build : callable
        ``build(input_size, hidden_size, bias=..., **options) -> Cell``.
    options : tuple of str
        Which of :func:`make_cell`'s generic arguments (``proj_size``, ``reset_after``) and
        own options (``peepholes``, ``kernel_size`` ...) the builder takes.
    fixed : dict
        Arguments fixed by the mode (``nonlinearity="relu"`` for ``"RNN_RELU"``).
    title : str
        The cell's name for readers (``"LSTM"``, ``"Minimal gated unit (MGU)"``).
    source : str
        The paper (and framework file) its equations are taken from.
    page_options : dict
        Options its site page derives it with (e.g. a symbolic ``kernel_size``); the page's prose
        is the template ``templates/cells/<mode>.md.j2``.
    polynomial : bool
        Whether the count of a stack of int sizes may be read from its closed form in symbolic
        I, H (:func:`derive.engine.stack._numeric_count`); False when the int sizes are checked
        or rounded by the builder (xLSTM: heads must divide them, the mLSTM's inner width is
        rounded up), so the cell is built with the ints.
    """

    mode: str
    build: Callable[..., Cell]
    options: tuple[str, ...] = ()
    fixed: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    source: str = ""
    page_options: dict[str, Any] = field(default_factory=dict)
    polynomial: bool = True


#: Every registered cell, by mode name (filled at import by the modules of this package).
CELLS: dict[str, CellType] = {}


def register(
    mode: str,
    *,
    options: tuple[str, ...] = (),
    title: str,
    source: str,
    page_options: dict[str, Any] | None = None,
    polynomial: bool = True,
    **fixed: Any,
) -> Callable[[Callable[..., Cell]], Callable[..., Cell]]:
    """Class the decorated builder as cell ``mode`` in :data:`CELLS`.

    Parameters
    ----------
    mode : str
        The cell's mode name, unique.
    options : tuple of str
        The keyword arguments of the builder that :func:`make_cell` may pass.
    title, source : str
        The cell's name for readers and the paper its equations come from (see :class:`CellType`).
    page_options : dict, optional
        Options its site page derives it with (see :class:`CellType`).
    polynomial : bool, default True
        See :class:`CellType`.
    **fixed
        Arguments the mode fixes.

    Returns
    -------
    callable
        A decorator returning the builder unchanged.

    Raises
    ------
    ValueError
        ``mode`` is registered already.
    """

    def decorate(build: Callable[..., Cell]) -> Callable[..., Cell]:
        if mode in CELLS:
            raise ValueError(f"cell {mode!r} is registered already")
        CELLS[mode] = CellType(
            mode, build, tuple(options), dict(fixed), title, source, dict(page_options or {}), polynomial
        )
        return build

    return decorate


def make_cell(
    mode: str,
    input_size: Any,
    hidden_size: Any,
    bias: bool | str = True,
    proj_size: Any = 0,
    reset_after: bool = True,
    **options: Any,
) -> Cell:
    """Build the cell named by ``mode`` for one layer.

    Parameters
    ----------
    mode : str
        A key of :data:`CELLS`: PyTorch's ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"``,
        ``"GRU"``, or ``"MGU"``, ``"CONVLSTM"``, ...
    input_size, hidden_size, proj_size : int or sympy.Expr
        For ``"CONVLSTM"``: channels C and filters F.
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    reset_after : bool
        GRU and MGU: where the reset gate is applied (see :func:`derive.cells.gru`).
    **options
        The cell's own options: ``peepholes`` (LSTM), ``reset_gate`` (MGU), ``kernel_size``
        (CONVLSTM, required).

    Returns
    -------
    Cell

    Raises
    ------
    ValueError
        Unknown ``mode``.
    TypeError
        An option the cell does not take.
    """
    entry = CELLS.get(mode) if isinstance(mode, str) else None
    if entry is None:
        raise ValueError(f"mode must be one of {sorted(CELLS)}, got {mode!r}")
    kwargs = dict(entry.fixed)
    if "proj_size" in entry.options:
        kwargs["proj_size"] = proj_size
    if "reset_after" in entry.options:
        kwargs["reset_after"] = reset_after
    kwargs.update(options)
    return entry.build(input_size, hidden_size, bias=bias, **kwargs)


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
