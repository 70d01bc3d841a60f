"""The inference cache of a model's tree: the bytes it holds after T tokens of N sequences, as served.

The cache of a model (a stack's is the states it hands to its next call: torch's ``h_n``/``c_n``) is
every :class:`~derive.tree.State` of its tree — keys and values per attention layer (a sliding-window
layer's ``window - 1`` tokens at most), conv and recurrent states, counters — each as transformers
holds it (its own dtype, e.g. float32 SSM states; None: the model's), unless the cache is asked as a
serving engine keeps it: ``kv_dtype`` for every tensor that grows with the tokens (keys, values,
MLA's latent, an indexer's keys), ``state_dtype`` for the recurrent and conv states; integer
counters stay int64 (:mod:`derive.analysis.served` for the formats, ggml's blocks among them).

A state's bytes are its entries (:meth:`derive.tree.State.elements` at N sequences and T tokens) times
the copies of the module keeping it (its ``repeat``, and its parents') times the bytes of an entry in
its format (:meth:`derive.analysis.served.Served.format`, :func:`derive.analysis.served.entry_bytes`). A state with a ``"tokens"`` axis
grows with T (``kv``); the others are constant in it (``state``). The sums are ints for int sizes and
SymPy for symbolic ones (:mod:`derive.analysis.figures`). One GPU's share of it is each stage's states
as :func:`derive.analysis.parallel.plan` shards them, summed the same way.

Verification: ``tests/analysis/test_served.py`` and ``tests/analysis/test_fit_windows.py`` hold these
bytes to the cache of tiny models run on the CPU (transformers' cache tensors after a forward: their
element counts times the served format's size).

>>> from derive.analysis.served import Served
>>> from derive.families.mistral import mistral
>>> states = list(copies(mistral({})))
>>> nbytes(states, Served("bfloat16"), 10, 1), per_token(states, Served("bfloat16"))
(1310976, 131072)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..tree import Module, State
from . import figures as _figures
from . import served as _served

__all__ = ["held", "copies", "kind", "nbytes", "per_token", "kinds", "longest", "check_blocks"]


def held(module: Module, times: Any = 1, path: str = "") -> Iterator[tuple[Module, State, Any, str]]:
    """Every state of the tree with the module keeping it, how many copies hold it and its path.

    Parameters
    ----------
    module : derive.tree.Module
    times : int or sympy.Expr, default 1
        The copies of ``module`` itself (its parents' repeats).
    path : str, default ""
        ``module``'s path in the tree.

    Yields
    ------
    (derive.tree.Module, derive.tree.State, int or sympy.Expr, str)
        The module, the state, its copies, the module's path (``model.layers.{k}.self_attn``).
    """
    times = times if module.repeat == 1 else times * module.repeat
    here = f"{path}{module.sep if path and module.name else ''}{module.name}" if module.name else path
    for state in module.cache:
        yield module, state, times, here
    for child in module.children:
        yield from held(child, times, here)


def copies(model: Module) -> Iterator[tuple[State, Any]]:
    """Every state of ``model``'s tree with the copies holding it (:func:`held` without the modules).

    Parameters
    ----------
    model : derive.tree.Module

    Yields
    ------
    (derive.tree.State, int or sympy.Expr)
    """
    for _, state, n, _ in held(model):
        yield state, n


def kind(module: Module) -> str:
    """The kind of layer a module's cache is: "full attention", "sliding attention" (keeps tokens, a
    window or not), "compressed attention" (a compressor's entries: DeepSeek-V4's CSA and HCA), or its
    class (a recurrent mixer's fixed-size state: ``JambaMambaMixer``).

    Parameters
    ----------
    module : derive.tree.Module

    Returns
    -------
    str
    """
    kept = [s for s in module.cache if not s.counter]
    grown = [s for s in kept if s.per_token]
    if any(s.stride is not None for s in grown):  # a compressor's entries (DeepSeek-V4's CSA and HCA)
        return "compressed attention"
    if grown:
        return "sliding attention" if any(s.window is not None for s in grown) else "full attention"
    return module.type


def _per_entry(served: _served.Served, state: State) -> Fraction:
    return _served.entry_bytes(served.format(state))


def _unwindowed(state: State) -> State:
    return replace(state, window=None)  # a compressor's stride kept: its entries come one per stride


def nbytes(
    states: Iterable[tuple[State, Any]], served: _served.Served, tokens: Any, batch: Any, which: str = "all"
) -> Any:
    """Bytes ``states`` hold after ``tokens`` tokens of ``batch`` sequences, each in its served format.

    Parameters
    ----------
    states : iterable of (derive.tree.State, int or sympy.Expr)
        Each state with its copies (:func:`copies`; a stage's states once each).
    served : derive.analysis.served.Served
        The formats.
    tokens, batch : int or sympy.Expr
        T and N.
    which : {"all", "kv", "state"}, default "all"
        Every state; those that grow with the tokens; those constant in them.

    Returns
    -------
    int or sympy.Expr
        Units: bytes.
    """
    terms = []
    for state, n in states:
        if (which == "kv" and not state.per_token) or (which == "state" and state.per_token):
            continue
        terms.append(_figures.times(state.elements(batch, tokens) * n, _per_entry(served, state)))
    return _figures.total(terms)


def per_token(states: Iterable[tuple[State, Any]], served: _served.Served) -> Any:
    """Bytes one more token of one sequence adds to ``states`` (below every window).

    Parameters
    ----------
    states : iterable of (derive.tree.State, int or sympy.Expr)
        Each state with its copies.
    served : derive.analysis.served.Served

    Returns
    -------
    int or sympy.Expr
        Units: bytes per token.
    """
    terms = [_figures.times(_unwindowed(s).elements(1, 1) * n, _per_entry(served, s)) for s, n in states if s.per_token]
    return _figures.total(terms)


def kinds(model: Module, served: _served.Served, tokens: Any, batch: Any) -> dict[str, dict[str, Any]]:
    """The cache by kind of layer (:func:`kind`), each ``{"layers", "kv_bytes", "state_bytes",
    "kv_bytes_per_token"}``: the modules of that kind (copies counted) and their bytes alone.

    Parameters
    ----------
    model : derive.tree.Module
    served : derive.analysis.served.Served
    tokens, batch : int or sympy.Expr
        T and N.

    Returns
    -------
    dict
        Kind -> its entry (units: layers, bytes, bytes per token); the entries add up to the whole.
    """
    found: dict[str, dict[str, list[Any]]] = {}
    seen: dict[int, str] = {}
    for module, state, n, path in held(model):
        name = kind(module)
        entry = found.setdefault(name, {"layers": [], "kv_bytes": [], "state_bytes": [], "kv_bytes_per_token": []})
        key = id(module)
        if seen.get(key) != path:
            seen[key] = path
            entry["layers"].append(n)
        per = _per_entry(served, state)
        if state.per_token:
            entry["kv_bytes"].append(_figures.times(state.elements(batch, tokens) * n, per))
            entry["kv_bytes_per_token"].append(_figures.times(_unwindowed(state).elements(1, 1) * n, per))
        else:
            entry["state_bytes"].append(_figures.times(state.elements(batch, 1) * n, per))
    return {name: {k: _figures.total(v) for k, v in entry.items()} for name, entry in found.items()}


def longest(states: Iterable[State]) -> int | None:
    """The T past which the cache of ``states`` stops growing (the longest window kept), None if it grows
    forever.

    Parameters
    ----------
    states : iterable of derive.tree.State
        Int sizes.

    Returns
    -------
    int or None
        Units: tokens (1 for states constant in T).
    """
    found = 1
    for state in states:
        if not state.per_token:
            continue
        if state.stride is not None:  # a compressor's: its open window (< stride), its entries (one a stride)
            if state.remainder:
                found = max(found, int(state.stride))
                continue
            if state.window is None:
                return None
            found = max(found, int(state.stride) * (int(state.window) + 1))
            continue
        if _unwindowed(state).elements(1, 1) == 0:
            continue
        if state.window is None:
            return None
        found = max(found, int(state.window))
    return found


def check_blocks(model: Module, kv_dtype: str | None, state_dtype: str | None) -> None:
    """Refuse a block format for a state whose last axis is not a whole number of blocks.

    Parameters
    ----------
    model : derive.tree.Module
    kv_dtype, state_dtype : str or None
        The served formats asked (:func:`derive.analysis.served.served_format`'s names).

    Raises
    ------
    ValueError
        A block format for a state whose last axis (an int) is not divisible by its block
        (:func:`derive.analysis.served.check_width`, naming the state).
    """
    for module, s, _, path in held(model):
        if s.counter or not s.shape:
            continue
        fmt = kv_dtype if s.per_token else state_dtype
        _served.check_width(fmt, s.shape[-1], f"{path or module.type} {s.name}")
