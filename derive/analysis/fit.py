"""What fits a memory budget: the largest context at a batch, the largest batch at a context.

What is counted is the model's weights as stored (:mod:`derive.analysis.stored`) and the inference
cache after T tokens of B sequences (:mod:`derive.analysis.cache`: :class:`derive.analysis.cost.Cost`'s
``cache_bytes``, in the formats the cache is served in). What is not: activations of the forward (a prefill's
intermediate tensors, the logits), the framework's workspace and allocator slack (cuBLAS and
attention kernels' buffers, PyTorch's caching allocator, fragmentation), the CUDA context (several
hundred MB per device), a serving engine's own reserve (vLLM's ``gpu_memory_utilization``) and the
page granularity of a paged cache. ``reserve`` holds back a part of the budget for them.

The cache is a sum over the model's states of ``copies x entries x bytes``, each state's entries
``batch x (its other axes) x tokens`` — tokens capped at a sliding window's ``window - 1`` — or
constant in T: piecewise linear and non-decreasing in T, linear in B. So the largest T is found by
integer bisection on the exact int cache function (doubling until it no longer fits, then halving),
the largest B by one integer division, and each answer checked at itself and one past it. A model
whose cache stops growing (states only, or every window capped) fits any length once it fits at
its longest window: ``max_seq_len`` None, ``fits_any_length`` True.

A model whose weights alone exceed the budget does not fit: ``max_seq_len`` and ``max_batch`` are
0 and ``fits`` False (an answer, not an error); sizes that are not ints are refused.

Served on several devices (``tp``, ``pp``: :mod:`derive.analysis.parallel`), the budget is one device's and
must hold on every one (each pipeline stage's most loaded rank): :class:`Fit` asks each :class:`Device`,
``fits`` and ``fits_any_length`` when every one does, ``max_seq_len`` and ``max_batch`` the least.
:data:`COUNTED` and :data:`NOT_COUNTED` say what is counted where the answers are given (the text and the JSON).

Sources for the question: vLLM #16118 / PR #16168 (the largest context a card holds), llama.cpp
``--fit`` (PR #16653), LM Studio #1673.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .figures import ints

__all__ = [
    "UNITS",
    "COUNTED",
    "NOT_COUNTED",
    "parse_size",
    "said",
    "largest",
    "max_seq_len",
    "max_batch",
    "least",
    "Device",
    "Fit",
]

#: What the memory answers count (said in the text and the JSON).
COUNTED = "the weights as stored and the inference cache (weights + cache)"
#: What the memory answers leave out (said in the text and the JSON): ``reserve`` holds memory back for it.
NOT_COUNTED = (
    "activations of the forward (prefill intermediates, logits), the framework's workspace and allocator "
    "slack, the CUDA context, a paged cache's page granularity: hold memory back for them with reserve"
)

#: Units a budget may be written in, bytes each: SI (10^3 steps) and binary (2^10 steps).
UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")

#: The most a budget may say (a petabyte of 2^50 bytes times 2^20): past it, no device.
MAX_BYTES = 2**70


def parse_size(value: Any, name: str = "memory") -> int:
    """Bytes a budget says: ``24GB`` (10^9 bytes a GB), ``80GiB`` (2^30), ``1.5TB``, or plain bytes.

    Parameters
    ----------
    value : int or str
        An int (bytes) or a number with a unit of :data:`UNITS` (case does not matter; ``kB`` is KB).
    name : str
        The argument's name, for the message.

    Returns
    -------
    int
        Units: bytes.

    Raises
    ------
    TypeError
        Neither an int nor a str (a bool, a float).
    ValueError
        Negative, not a number with a unit, a unit that is not one of :data:`UNITS` (``24G``: GB or
        GiB is asked), or a fraction of a byte.

    Examples
    --------
    >>> parse_size("24GB"), parse_size("80GiB"), parse_size(1024), parse_size("1.5 KiB")
    (24000000000, 85899345920, 1024, 1536)
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(
            f"{name} must be an int of bytes or a str such as '24GB' or '80GiB', got {type(value).__name__}"
        )
    if isinstance(value, int):
        if value < 0 or value > MAX_BYTES:
            raise ValueError(f"{name} must be between 0 and 2**70 bytes, got {value}")
        return value
    match = _SIZE.fullmatch(value)
    shown = value[:40]
    if match is None:
        raise ValueError(f"{name} must be a number of bytes or a number with a unit (24GB, 80GiB), got {shown!r}")
    number, unit = Fraction(match.group(1)), match.group(2).upper() or "B"
    if unit not in UNITS:
        hint = f" (say {unit}B for 10^N bytes or {unit}iB for 2^N)" if unit in ("K", "M", "G", "T") else ""
        raise ValueError(
            f"{name}: unknown unit {match.group(2)!r}{hint}; units: B, KB, MB, GB, TB (powers of 1000), "
            "KiB, MiB, GiB, TiB (powers of 1024)"
        )
    total = number * UNITS[unit]
    if total.denominator != 1:
        raise ValueError(f"{name}: {shown!r} is not a whole number of bytes")
    if total > MAX_BYTES:
        raise ValueError(f"{name} must be at most 2**70 bytes, got {shown!r}")
    return int(total)


def said(size: int) -> str:
    """A byte count said back in both units: ``24,000,000,000 B (24 GB, 22.35 GiB)``.

    Parameters
    ----------
    size : int
        Units: bytes.

    Returns
    -------
    str

    Examples
    --------
    >>> said(80 * 2**30), said(2**20)
    ('85,899,345,920 B (85.90 GB, 80.00 GiB)', '1,048,576 B (1.05 MB, 1.00 MiB)')
    """
    for si, binary, unit in ((10**12, 2**40, "T"), (10**9, 2**30, "G"), (10**6, 2**20, "M"), (10**3, 2**10, "k")):
        if size >= si:
            return f"{size:,} B ({size / si:,.2f} {unit}B, {size / binary:,.2f} {unit.upper()}iB)"
    return f"{size:,} B"


def largest(fits: Callable[[int], bool], low: int, high: int | None) -> int:
    """The largest n >= ``low`` with ``fits(n)``, given ``fits(low)`` and ``fits`` monotone (true, then false).

    Parameters
    ----------
    fits : callable int -> bool
    low : int
        A value that fits.
    high : int or None
        A value known not to fit; None: found by doubling.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Doubling passes 2**72 without leaving the budget (a cache growing by less than a byte per 2**70 tokens).
    """
    if high is None:
        high = max(2 * low, 1)
        while fits(high):
            low, high = high, 2 * high
            if high > 4 * MAX_BYTES:  # a growing cache adds a byte a token at least: T <= budget <= 2**70
                raise ValueError("the cache grows by less than a byte per 2**70 tokens")
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def max_seq_len(need: Callable[[int], int], budget: int, longest: int | None) -> int | None:
    """The largest number of tokens T whose ``need(T)`` (weights + cache, bytes) is within ``budget``.

    Parameters
    ----------
    need : callable int -> int
        Bytes at T tokens, non-decreasing in T.
    budget : int
        Bytes.
    longest : int or None
        The T past which ``need`` no longer grows (the longest window a capped cache keeps); None:
        it grows without end.

    Returns
    -------
    int or None
        0 when not even one token fits; None when every length fits (``need(longest) <= budget``).

    Raises
    ------
    AssertionError
        The answer fails its own check (fits at T, not at T + 1): a bug.
    """

    def fits(t: int) -> bool:
        return need(t) <= budget

    if not fits(1):
        return 0
    if longest is not None:
        if fits(longest):
            return None
        found = largest(fits, 1, longest)
    else:
        found = largest(fits, 1, None)
    assert fits(found) and not fits(found + 1), (found, budget)
    return found


def max_batch(need: Callable[[int], int], budget: int) -> int | None:
    """The largest batch B whose ``need(B)`` (weights + cache at the context asked, bytes) is within
    ``budget``; ``need`` is linear in B (solved by one division, checked at B and B + 1).

    Parameters
    ----------
    need : callable int -> int
        Bytes at B sequences.
    budget : int
        Bytes.

    Returns
    -------
    int or None
        0 when not even one sequence fits; None when the cache does not grow with B (nothing per
        sequence) and the rest fits.
    """
    base = need(0)
    per = need(1) - base
    if base > budget:
        return 0
    if per == 0:
        return None
    found = (budget - base) // per
    assert need(found) <= budget < need(found + 1), (found, budget)
    return found


def least(values: Iterable[Any]) -> Any:
    """The smallest of the devices' answers, None (any length, or no growth) left out; None if all are.

    Parameters
    ----------
    values : iterable of int or None

    Returns
    -------
    int or None
    """
    known = [v for v in values if v is not None]
    return min(known) if known else None


@dataclass(frozen=True)
class Device:
    """One device a budget must hold on: the bytes it holds at a context and a batch.

    Attributes
    ----------
    need : callable (int, int) -> int
        Bytes it holds (weights + cache) after T tokens of B sequences: non-decreasing in T, linear in B.
    longest : callable () -> int or None
        The T past which its cache stops growing (the longest window kept); None: it grows without end.
        Called only where a length is asked.
    """

    need: Callable[[int, int], int]
    longest: Callable[[], int | None]

    def answers(self, budget: int, seq_len: Any, batch: Any) -> dict[str, Any]:
        """What fits ``budget`` on this device: ``{"fits", "max_seq_len", "max_batch", "fits_any_length"}``,
        as :class:`Fit` says for one device.

        Parameters
        ----------
        budget : int
            Bytes.
        seq_len, batch : int or sympy.Expr
            T and N.

        Returns
        -------
        dict
            Units: tokens, sequences.
        """
        return {
            "fits": _fits(self, budget, seq_len, batch),
            "max_seq_len": _longest_context(self, budget, batch),
            "max_batch": _largest_batch(self, budget, seq_len),
            "fits_any_length": _any_length(self, budget, batch),
        }


# Each answer on one device, None where it is asked at a symbolic size (Fit's docstrings).


def _fits(device: Device, budget: int, seq_len: Any, batch: Any) -> bool | None:
    if not ints(seq_len, batch):
        return None
    return device.need(seq_len, batch) <= budget


def _longest_context(device: Device, budget: int, batch: Any) -> int | None:
    if not ints(batch):
        return None
    return max_seq_len(lambda t: device.need(t, batch), budget, device.longest())


def _any_length(device: Device, budget: int, batch: Any) -> bool | None:
    if not ints(batch):
        return None
    longest = device.longest()
    return longest is not None and device.need(longest, batch) <= budget


def _largest_batch(device: Device, budget: int, seq_len: Any) -> int | None:
    if not ints(seq_len):
        return None
    return max_batch(lambda b: device.need(seq_len, b), budget)


def _every(values: list[bool | None]) -> bool | None:
    return None if None in values else all(values)


@dataclass(frozen=True)
class Fit:
    """What fits ``budget`` on every device at ``seq_len`` tokens of ``batch`` sequences, each answer found
    when asked: ``fits`` and ``fits_any_length`` where every device's does, ``max_seq_len`` and
    ``max_batch`` the least of the devices' (:func:`least`).

    Attributes
    ----------
    budget : int
        Bytes one device may hold (weights + cache).
    seq_len, batch : int or sympy.Expr
        T and N.
    devices : tuple of Device
        One device, or one rank of each pipeline stage.
    """

    budget: int
    seq_len: Any
    batch: Any
    devices: tuple[Device, ...]

    @property
    def fits(self) -> bool | None:
        """Whether every device holds ``seq_len`` tokens of ``batch`` sequences (None at a symbolic T or N)."""
        return _every([_fits(d, self.budget, self.seq_len, self.batch) for d in self.devices])

    @property
    def max_seq_len(self) -> int | None:
        """The largest T every device holds at ``batch`` sequences (:func:`max_seq_len`; units: tokens);
        None at a symbolic N, or where every length fits."""
        return least(_longest_context(d, self.budget, self.batch) for d in self.devices)

    @property
    def fits_any_length(self) -> bool | None:
        """Whether every device's cache stops growing and fits at its longest (None at a symbolic N)."""
        return _every([_any_length(d, self.budget, self.batch) for d in self.devices])

    @property
    def max_batch(self) -> int | None:
        """The largest B every device holds at ``seq_len`` tokens each (:func:`max_batch`; units: sequences);
        None at a symbolic T, or a cache that does not grow with the batch."""
        return least(_largest_batch(d, self.budget, self.seq_len) for d in self.devices)
