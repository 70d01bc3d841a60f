"""What a token uses, where it sits and what a sequence keeps: the active parameters (routed experts
a token does not visit left out), the parts of a language model (:func:`parts`) and the inference
cache (each module's :class:`~derive.tree.State` s).

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

__all__ = ["PARTS", "active", "parts", "cache_elements", "check_cache_known", "named_states"]

#: The parts of a language model, in the order a model is read: where its parameters sit. The
#: router (``gate``/``router``) is its own part; a shared-expert gate (Qwen's ``shared_expert_gate``)
#: belongs to the shared experts; the norms inside an attention or mixer (QK-norm, Jamba's
#: ``dt_layernorm``) to that attention or mixer; hyper-connections (Qwen4-Exp's residual streams'
#: mixing weights, their grouped norm included; Gemma 3n's AltUp streams) are their own part, as are Gemma 3n's
#: LAuReL blocks ("learned residuals") and the projections of its per-layer inputs ("per-layer inputs"); a multimodal model's vision tower and
#: its projector into the text width (Gemma 3's) are "vision". "other": a tensor no primitive placed.
PARTS = (
    "embeddings",
    "attention",
    "recurrent mixers",
    "MLP",
    "routers",
    "routed experts",
    "shared experts",
    "hyper-connections",
    "learned residuals",
    "per-layer inputs",
    "vision",
    "norms",
    "head",
    "other",
)


def active(module: Module) -> Dim | None:
    """Parameters one token uses: :func:`~derive.tree.count`, with each routed-experts module
    (:attr:`Module.routed` = ``(top_k, num_experts)``) counted at ``top_k / num_experts``.

    Parameters
    ----------
    module : Module

    Returns
    -------
    int or sympy.Expr or None
        Units: parameters. An int when every size is an int. None when the tree says its active count is
        not known (``"active"`` in a :attr:`Module.unknown` of it: a measured model that routes experts),
        never the total in its place.

    Raises
    ------
    ValueError
        A routed module whose count is not a whole multiple of ``num_experts`` (its tensors are
        then not one slice per expert).
    """
    if not module.counted:
        return 0
    if "active" in module.unknown:
        return None
    if module.routed is not None:
        top_k, experts = module.routed
        total = count(module)
        if _is_int(total) and _is_int(top_k) and _is_int(experts):
            if total % experts:
                raise ValueError(f"{module.type} {module.name!r}: {total} parameters are not {experts} equal experts")
            return total // experts * top_k
        return _sum([total * top_k / experts])
    terms = [p.numel for p in module.params if p.counted]
    for child in module.children:
        used = active(child)
        if used is None:
            return None
        terms.append(used)
    subtotal = _sum(terms)
    return subtotal if module.repeat == 1 else _sum([subtotal * module.repeat])


def parts(module: Module, *, used: bool = False) -> dict[str, Dim]:
    """Parameters by where they sit: each counted tensor in the part (:attr:`Module.part`) of its
    outermost module that declares one, ``"other"`` when none does. A module that declares none but
    keeps an inference cache (:attr:`Module.cache`) is attention when it keeps tokens (keys and
    values, a sliding window's too) and a recurrent mixer when its state has a fixed size (Mamba,
    Gated DeltaNet, MiniMax's lightning attention, RWKV's time mixing): what a token costs to keep
    is what sets the two apart.

    Parameters
    ----------
    module : Module
    used : bool, default False
        True: the parameters one token uses (:func:`active`: a routed-experts module at
        ``top_k / num_experts``), so the parts add up to :func:`active` instead of the total.

    Returns
    -------
    dict of str -> int or sympy.Expr
        Units: parameters, in the order of :data:`PARTS`, parts with nothing left out; the values
        add up to :func:`~derive.tree.count` (``used``: :func:`active`). Tied tensors count once,
        where they are stored; a part derive cannot count (:attr:`Module.counted` False) is not in it.

    Raises
    ------
    ValueError
        ``used`` for a tree whose active count is not known (:func:`active` is None).

    Examples
    --------
    >>> from .nodes import Param
    >>> attn = Module("self_attn", "Attention", (Param("q_proj.weight", (8, 8)),), part="attention")
    >>> norm = Module("q_norm", "RMSNorm", (Param("weight", (8,)),), part="norms")
    >>> parts(Module("", "Layer", children=(attn.replace(children=(norm,)), norm)))
    {'attention': 72, 'norms': 8}
    """
    if used and active(module) is None:
        raise ValueError("the active parameters of this model are not known, so neither are its parts' (used=True)")
    terms: dict[str, list[Any]] = {}
    _parts(module, 1, used, terms)
    order = [p for p in PARTS if p in terms] + [p for p in terms if p not in PARTS]  # none left out
    return {p: _plain(_sum(terms[p])) for p in order}


def _kept(module: Module) -> str:
    """The part of a module that declares none, by what it keeps while generating: a module keeping
    tokens (keys and values) is attention, one keeping a state of fixed size a recurrent mixer; a
    counter (an integer, xLSTM's ``seqlen_offset``) says neither."""
    kept = [state for state in module.cache if not state.counter]
    if not kept:
        return ""
    return "attention" if any(state.per_token for state in kept) else "recurrent mixers"


def _parts(module: Module, times: Dim, used: bool, terms: dict[str, list[Any]]) -> None:
    """Add ``module``'s parameters, ``times`` copies of it (its ancestors' repeats), to ``terms``:
    all of it to its part if it is one, else its own tensors to "other" and its children each."""
    if not module.counted:
        return
    part = module.part or _kept(module)
    if part:
        size = active(module) if used else count(module)
        if size != 0:
            terms.setdefault(part, []).append(size * times)
        return
    times = times if module.repeat == 1 else times * module.repeat
    own = [p.numel for p in module.params if p.counted]
    if own:
        terms.setdefault("other", []).append(_sum(own) * times)
    for child in module.children:
        _parts(child, times, used, terms)


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

    Raises
    ------
    ValueError
        The tree says its cache is not known (``"cache"`` in :attr:`Module.unknown`: a measured model
        whose cache could not be read): refused, never counted short.
    """
    check_cache_known(module)
    totals: dict[str | None, list[Any]] = {}
    _collect(module, batch, tokens, 1, totals)
    return {dtype: _plain(_sum(terms)) for dtype, terms in totals.items()}


def check_cache_known(module: Module) -> None:
    """Refuse a tree that says its cache is not known (``"cache"`` in :attr:`Module.unknown`), with its note.

    Parameters
    ----------
    module : Module

    Raises
    ------
    ValueError
        Its cache could not be read (:attr:`Module.note` says why): never counted short.
    """
    if "cache" in module.unknown:
        raise ValueError(f"the cost of this model is not known: its {module.note or 'cache could not be read'}")
    for child in module.children:
        check_cache_known(child)


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
