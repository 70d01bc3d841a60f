"""Class-label inputs of Schuster & Paliwal's modified BRNN: :class:`Labels` and their options.

M. Schuster, K. K. Paliwal, "Bidirectional recurrent neural networks", IEEE Trans. Signal
Processing 45(11):2673-2681, 1997, Part III. A :class:`derive.engine.wirings.Wiring` holds them
(:func:`derive.engine.wirings.modified_brnn`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._sympy import symbol as _symbol
from .._sympy import sympy
from .symbols import Size

__all__ = ["Labels", "PLACEMENTS", "POSTERIORS", "K"]


#: Where the class labels of a modified BRNN enter: ``"states"`` — the states of the conditioning
#: direction in layer 0 (extra input columns of its cell); ``"output"`` — the output layer directly.
PLACEMENTS = ("states", "output")

#: Which posterior a modified BRNN estimates: ``"forward"``, Pr(c_t | c_1..c_{t-1}, x_1^T), reads
#: c_{t-1} in the forward states; ``"backward"``, Pr(c_t | c_{t+1}..c_T, x_1^T), reads c_{t+1} in
#: the reverse states.
POSTERIORS = ("forward", "backward")


def __getattr__(name: str) -> Any:
    """:data:`K`, made (SymPy imported) on first use."""
    if name == "K":
        return _symbol("K")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    #: K, the number of classes of a modified BRNN's one-hot label input (and of its output layer).
    K: sympy.Symbol


@dataclass(frozen=True)
class Labels:
    """One-hot class-label inputs of Schuster & Paliwal's modified BRNN (Part III of the paper).

    Attributes
    ----------
    classes : int or sympy.Expr
        K, the width of the one-hot label vector.
    posterior : {"forward", "backward"}
        ``"forward"``: the network estimates Pr(c_t | c_1..c_{t-1}, x_1^T) and reads the previous
        label c_{t-1}; ``"backward"``: Pr(c_t | c_{t+1}..c_T, x_1^T), reading c_{t+1}.
    placement : tuple of {"states", "output"}
        Where the label enters: the states of the conditioning direction (the forward states for
        the forward posterior) in layer 0, and/or the output layer. Never the other direction's
        states: those run from the other end of the sequence, so they would have read c_t.

    Source
    ------
    M. Schuster, K. K. Paliwal, "Bidirectional recurrent neural networks", IEEE Trans. Signal
    Processing 45(11):2673-2681, 1997, Part III (modified BRNN).
    """

    classes: Size
    posterior: str = "forward"
    placement: tuple[str, ...] = ("states",)

    def __post_init__(self) -> None:
        if self.posterior not in POSTERIORS:
            raise ValueError(f"posterior must be one of {POSTERIORS}, got {self.posterior!r}")
        if (
            not isinstance(self.placement, tuple)
            or not self.placement
            or any(p not in PLACEMENTS for p in self.placement)
            or len(set(self.placement)) != len(self.placement)
        ):
            raise ValueError(
                f"placement must be a non-empty tuple of distinct values from {PLACEMENTS}, got {self.placement!r}"
            )

    @property
    def direction(self) -> int:
        """The conditioning direction: 0 (forward) for the forward posterior, 1 (reverse) for the backward one."""
        return POSTERIORS.index(self.posterior)

    @property
    def symbol(self) -> str:
        """The label read at step t, in LaTeX: ``c_{t-1}`` or ``c_{t+1}``."""
        return "c_{t-1}" if self.posterior == "forward" else "c_{t+1}"
