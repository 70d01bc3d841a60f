"""Matrix-product FLOPs of one token through a module tree, as ``torch.utils.flop_counter`` counts them.

``FlopCounterMode`` counts ``mm``/``addmm``/``bmm`` (and ``matmul``, which lowers to them) as
2·m·n·k per product and nothing for element-wise operations, norms, the bias of ``addmm``, an
embedding lookup (an index, no product) or a convolution's own count (``aten.convolution``,
kept apart here: these are *matmul* FLOPs). Per token, then:

- a ``Linear`` (or GPT-2's ``Conv1D``) costs 2·(its weight's entries), bias left out; a tied
  weight costs as much as an untied one (the lm_head is 2·V·D whether tied or not, TRL #6708);
- an ``Embedding`` costs 0;
- a routed-experts module (:attr:`derive.tree.Module.routed` = (k, E)) costs 2·k/E of its
  entries: a token runs k of its E experts' products;
- a module whose matmuls are not its weights' products (attention over the cached tokens, a
  recurrent mixer's state readout) registers a rule for its class name with :func:`register`,
  which is then its whole cost (children included);
- a module with no rule is the sum of its children; one holding its own matrix (a weight of
  two or more axes) or an inference cache without a rule is refused: never a silent under-count.

A rule is per sequence: a batch of N does N times one sequence's products. A class whose one-token
step breaks that (transformers' RWKV broadcasts a batch of N to N × N rows) is registered with
``batch_one`` and :func:`per_sequence` refuses any other batch for a tree holding it.

>>> from derive.layers.linear import linear
>>> from derive.tree import Module
>>> matmul_flops(Module("mlp", "MLP", children=(linear(64, 96, name="up"), linear(96, 64, name="down"))), 1)
24576
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tree import Dim, Module, count

__all__ = ["RULES", "BATCH_ONE", "register", "matmul_flops", "projections", "per_sequence", "first_token"]

#: Per class name (:attr:`derive.tree.Module.type`): ``rule(module, tokens)`` -> matmul FLOPs of
#: one token with ``tokens`` tokens in the cache after it (its own included).
RULES: dict[str, Callable[[Module, Dim], Dim]] = {}

#: Per class name: why its rule holds for a batch of one sequence only (see :func:`per_sequence`).
BATCH_ONE: dict[str, str] = {}
#: Classes whose weight is one matrix applied once per token (torch `Linear`, transformers `Conv1D`, Keras `Dense`).
_MATRICES = frozenset({"Linear", "Conv1D", "Dense"})
#: Classes that cost no matrix product (an index lookup).
_LOOKUPS = frozenset({"Embedding"})


def register(type: str, rule: Callable[[Module, Dim], Dim], *, batch_one: str = "") -> None:
    """Make ``rule`` the matmul FLOPs of one token through any module of class ``type``.

    Parameters
    ----------
    type : str
        The class name (``"LlamaAttention"``).
    rule : callable (Module, tokens) -> int or sympy.Expr
        Its FLOPs for the token whose forward leaves ``tokens`` tokens in the cache (it attends
        over ``min(tokens, window)`` of them), children included.
    batch_one : str, optional
        Why the rule holds for a batch of one sequence only (:data:`BATCH_ONE`); empty: any batch.

    Raises
    ------
    ValueError
        ``type`` has another rule already.
    """
    if RULES.get(type, rule) is not rule:
        raise ValueError(f"a FLOPs rule for {type!r} is registered already")
    RULES[type] = rule
    if batch_one:
        BATCH_ONE[type] = batch_one


def _weights(module: Module) -> Any:
    return sum((2 * p.numel for p in module.params if not p.buffer and len(p.shape) >= 2), 0)


def matmul_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through ``module`` (see the module's docstring for the rules).

    Parameters
    ----------
    module : derive.tree.Module
    tokens : int or sympy.Expr
        Tokens in the cache once this token is in (the length attention runs over).

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (2 per multiply-accumulate).

    Raises
    ------
    ValueError
        A module with its own matrix or an inference cache and no rule (named).
    """
    if module.step_flops is not None:  # its builder derived them (a recurrent stack: its cells' equations; a tower
        cost = module.step_flops()  # the built class leaves out and a text token never enters: 0)
    elif not module.counted:
        raise ValueError(f"{module.type} {module.name!r} is not counted: its FLOPs are unknown")
    elif module.type in RULES:
        cost = RULES[module.type](module, tokens)
    elif module.routed is not None:
        top_k, experts = module.routed
        total = 2 * count(module)
        cost = total // experts * top_k if type(total) is int and type(experts) is int else total * top_k / experts
    elif module.type in _MATRICES:
        cost = _weights(module)
    elif module.type in _LOOKUPS:
        cost = 0
    else:
        if module.cache or any(not p.buffer and len(p.shape) >= 2 for p in module.params):
            raise ValueError(f"the FLOPs of {module.type} {module.name!r} are not derived (no rule for its class)")
        cost = sum((matmul_flops(child, tokens) for child in module.children), 0)
    return cost if module.repeat == 1 else cost * module.repeat


def projections(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through ``module``'s own ``Linear`` children: a recurrent mixer's
    projections, the part of its decode step that is matrix products (the rule registered for its
    class adds its state readout, if any; its convolution and element-wise state update add none).

    Parameters
    ----------
    module : derive.tree.Module
    tokens : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs.
    """
    return sum((matmul_flops(c, tokens) for c in module.children if c.type == "Linear"), 0)


def per_sequence(module: Module, batch: Dim) -> None:
    """Refuse ``batch`` unless the rules of every class in ``module`` hold for it: a class registered with
    ``batch_one`` holds for a batch of 1 only.

    Parameters
    ----------
    module : derive.tree.Module
    batch : int or sympy.Expr
        Sequences per batch.

    Raises
    ------
    ValueError
        ``batch`` is not 1 and ``module`` holds such a class (named, with the reason).
    """
    if batch == 1:
        return
    if module.type in BATCH_ONE:
        raise ValueError(f"the FLOPs of {module.type} {module.name!r} at a batch of {batch}: {BATCH_ONE[module.type]}")
    for child in module.children:
        per_sequence(child, batch)


def first_token(tokens: Dim, first: Dim | None, later: Dim, why: str = "") -> Dim:
    """A mixer's FLOPs when its first token (no state yet: transformers runs its prefill path) costs
    ``first`` and every later one (the one-token step) ``later``.

    Parameters
    ----------
    tokens : int or sympy.Expr
        Tokens in the cache once this one is in: 1 for the first.
    first : int, sympy.Expr or None
        None: the first token's FLOPs are not derived (refused at 1, ``nan`` at 1 in a closed form).
    later : int or sympy.Expr
    why : str
        Why ``first`` is None (the refusal's words).

    Returns
    -------
    int or sympy.Expr
        ``first`` or ``later``; for a symbolic ``tokens``, ``Piecewise((first, Eq(tokens, 1)), (later, True))``.

    Raises
    ------
    ValueError
        ``tokens`` is 1 and ``first`` is None (``why``).

    Examples
    --------
    >>> import sympy
    >>> first_token(1, 10, 4), first_token(7, 10, 4), first_token(sympy.Symbol("T", positive=True), 10, 4)
    (10, 4, Piecewise((10, Eq(T, 1)), (4, True)))
    >>> first_token(sympy.Symbol("T", positive=True), None, 4)
    Piecewise((nan, Eq(T, 1)), (4, True))
    """
    if isinstance(tokens, int) or getattr(tokens, "is_Integer", False):
        if tokens == 1 and first is None:
            raise ValueError(why or "the first token's FLOPs are not derived")
        return first if tokens == 1 else later
    import sympy

    return sympy.Piecewise((sympy.nan if first is None else first, sympy.Eq(tokens, 1)), (later, True))
