"""What a token uses and what a sequence keeps: the active parameters (routed experts a token does
not visit left out) and the inference cache (each module's :class:`~derive.tree.State` s).

Active parameters follow the Hugging Face Hub's definition (huggingface.js PR #2182, "Compute MoE
active parameter count"): everything is active — embeddings, the head, routers, shared experts,
norms — except the routed experts a token does not visit, of which ``top_k`` of ``num_experts``
are counted; tied tensors once. A dense model's active count is its total.

>>> from .nodes import Param, State
>>> experts = Module("experts", "Experts", (Param("down_proj", (8, 16, 32)),), routed=(2, 8))
>>> layer = Module("mlp", "SparseMoe", (Param("gate.weight", (8, 16)),), children=(experts,))
>>> count(layer), active(layer)
(4224, 1152)
>>> attn = Module("self_attn", "Attention", cache=(State("keys", ("batch", 2, "tokens", 4)),))
>>> cache_elements(attn, 3, 100)
{None: 2400}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .nodes import Dim, Module, State, _is_int, _plain, _sum, count
from .walk import _copies, _fill, _join

__all__ = ["active", "cache_elements", "named_states"]


def active(module: Module) -> Dim:
    """Parameters one token uses: :func:`~derive.tree.count`, with each routed-experts module
    (:attr:`Module.routed` = ``(top_k, num_experts)``) counted at ``top_k / num_experts``.

    Parameters
    ----------
    module : Module

    Returns
    -------
    int or sympy.Expr
        Units: parameters. An int when every size is an int.

    Raises
    ------
    ValueError
        A routed module whose count is not a whole multiple of ``num_experts`` (its tensors are
        then not one slice per expert).
    """
    if not module.counted:
        return 0
    if module.routed is not None:
        top_k, experts = module.routed
        total = count(module)
        if _is_int(total) and _is_int(top_k) and _is_int(experts):
            if total % experts:
                raise ValueError(f"{module.type} {module.name!r}: {total} parameters are not {experts} equal experts")
            return total // experts * top_k
        return _sum([total * top_k / experts])
    terms = [p.numel for p in module.params if p.counted]
    terms += [active(c) for c in module.children]
    subtotal = _sum(terms)
    return subtotal if module.repeat == 1 else _sum([subtotal * module.repeat])


def cache_elements(module: Module, batch: Dim, tokens: Dim) -> dict[str | None, Dim]:
    """Entries the inference cache holds after ``tokens`` tokens of ``batch`` sequences, by dtype.

    Parameters
    ----------
    module : Module
    batch, tokens : int or sympy.Expr

    Returns
    -------
    dict of (str or None) -> int or sympy.Expr
        Units: tensor entries, keyed by :attr:`State.dtype` (None: the model's dtype); multiply
        each by its dtype's size for bytes.
    """
    totals: dict[str | None, list[Any]] = {}
    _collect(module, batch, tokens, 1, totals)
    return {dtype: _plain(_sum(terms)) for dtype, terms in totals.items()}


def _collect(module: Module, batch: Dim, tokens: Dim, times: Dim, totals: dict[str | None, list[Any]]) -> None:
    times = times if module.repeat == 1 else times * module.repeat
    for state in module.cache:
        totals.setdefault(state.dtype, []).append(state.elements(batch, tokens) * times)
    for child in module.children:
        _collect(child, batch, tokens, times, totals)


def named_states(module: Module, prefix: str = "") -> Iterator[tuple[str, State]]:
    """Every cached tensor with the dotted path of the module that keeps it, copies expanded.

    Parameters
    ----------
    module : Module
    prefix : str
        The path of ``module``'s parent ("" for the root).

    Yields
    ------
    (str, State)
        ``("model.layers.3.self_attn", State("keys", ...))``.

    Raises
    ------
    ValueError
        A repeated module whose copies cannot be listed (a symbolic or huge ``repeat``).
    """
    yield from _states(module, prefix, ".")


def _states(module: Module, prefix: str, sep: str) -> Iterator[tuple[str, State]]:
    for k in _copies(module, True):
        path = _join(prefix, sep, _fill(module.name, k))
        for state in module.cache:
            yield path, state
        for child in module.children:
            yield from _states(child, path, module.sep)
