"""The cell registry: every cell derive knows, by mode name, and :func:`make_cell` to build one.

Each module of :mod:`derive.cells` writes one cell with :class:`derive.engine.equations.Equations`
and registers its builder here with :func:`register`; :data:`CELLS` imports a cell's module when its
mode is first asked for (:mod:`derive.engine.lazy`). The engine builds the cells of a stack by
name through :func:`make_cell`; it never imports :mod:`derive.cells` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..tree import letters_to_symbols
from .cell import Cell
from .lazy import Registry

__all__ = ["CellType", "CELLS", "register", "make_cell", "generic_names"]


@dataclass(frozen=True)
class CellType:
    """A registered cell: its mode name, its builder and the options the builder takes.

    Attributes
    ----------
    mode : str
        The name :func:`make_cell` knows it by (``"LSTM"``).
    build : callable
        ``build(input_size, hidden_size, bias=..., numeric=..., **options) -> Cell``.
    options : tuple of str
        Which of :func:`make_cell`'s generic arguments (``proj_size``, ``reset_after``) and
        own options (``peepholes``, ``kernel_size`` ...) the builder takes.
    fixed : dict
        Arguments fixed by the mode (``nonlinearity="relu"`` for ``"RNN_RELU"``).
    title : str
        The cell's name for readers (``"LSTM"``, ``"Minimal gated unit (MGU)"``).
    source : str
        The paper (and framework file) its equations are taken from.
    page_letters : dict
        Options its site page derives it with, as registered: a symbolic size is a
        :class:`derive.tree.Letter` (made a symbol only when :attr:`page_options` is read); the
        page's prose is the template ``templates/cells/<mode>.md.j2``.
    generic : str
        The framework-independent name of the cell that :func:`derive.frameworks.count` accepts in
        place of a framework's class name (``"lstm"``); "" for none (a variant such as
        ``"RNN_RELU"``, named by the ``"rnn"`` of ``"RNN_TANH"``).
    """

    mode: str
    build: Callable[..., Cell]
    options: tuple[str, ...] = ()
    fixed: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    source: str = ""
    page_letters: dict[str, Any] = field(default_factory=dict)
    generic: str = ""

    @property
    def page_options(self) -> dict[str, Any]:
        """The options its site page derives it with, letters made SymPy symbols (e.g. a symbolic ``kernel_size``)."""
        return letters_to_symbols(self.page_letters)


#: Every registered cell, by mode name: each module of :mod:`derive.cells` registers its cell when it
#: is imported, which a lookup of its mode does (:class:`derive.engine.lazy.Registry`).
CELLS: Registry[str, CellType] = Registry("cells")


def register(
    mode: str,
    *,
    options: tuple[str, ...] = (),
    title: str,
    source: str,
    generic: str = "",
    page_options: dict[str, Any] | None = None,
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
    generic : str, default ""
        Its framework-independent name (see :class:`CellType`), unique among the cells.
    page_options : dict, optional
        Options its site page derives it with (see :class:`CellType`).
    **fixed
        Arguments the mode fixes.

    Returns
    -------
    callable
        A decorator returning the builder unchanged.

    Raises
    ------
    ValueError
        ``mode`` is registered already, or ``generic`` names another cell already.
    """

    def decorate(build: Callable[..., Cell]) -> Callable[..., Cell]:
        if mode in CELLS.loaded():
            raise ValueError(f"cell {mode!r} is registered already")
        if generic and generic in (t.generic for t in CELLS.loaded().values()):
            raise ValueError(f"generic name {generic!r} names another cell already")
        CELLS[mode] = CellType(
            mode, build, tuple(options), dict(fixed), title, source, dict(page_options or {}), generic
        )
        return build

    return decorate


def generic_names() -> tuple[str, ...]:
    """The generic cell names, in the order the cells were registered.

    Returns
    -------
    tuple of str
    """
    return tuple(t.generic for t in CELLS.values() if t.generic)


def make_cell(
    mode: str,
    input_size: Any,
    hidden_size: Any,
    bias: bool | str = True,
    proj_size: Any = 0,
    reset_after: bool = True,
    *,
    numeric: bool = False,
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
        True, False or a bias policy (see :data:`derive.engine.cell.BIAS_POLICIES`).
    reset_after : bool
        GRU and MGU: where the reset gate is applied (see :func:`derive.cells.gru`).
    numeric : bool, default False
        Build it in the shape-only mode (every size an int; see :mod:`derive.engine.algebra`): the
        same parameters, int shapes, no SymPy object.
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
    if numeric:
        kwargs["numeric"] = True
    return entry.build(input_size, hidden_size, bias=bias, **kwargs)
