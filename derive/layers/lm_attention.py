"""Causal self-attention of decoder language models, as transformers 5.23.0 names it, with its cache.

:func:`self_attention` — ``q_proj`` Linear(D, H·d) (2·H·d with a gated output: Qwen3-Next's
query carries its gate), ``k_proj`` and ``v_proj`` Linear(D, KV·d), ``o_proj`` Linear(H·d, D),
then the QK-norms ``q_norm``/``k_norm`` of width d where the family has them
(``models/llama/modeling_llama.py`` 206–235, ``LlamaAttention``; ``models/gemma3/modeling_gemma3.py``
``Gemma3Attention``; ``models/qwen3_next/modeling_qwen3_next.py`` ``Qwen3NextAttention``).
MHA is KV = H, GQA 1 < KV < H, MQA KV = 1. Its cache (``cache_utils.py`` ``DynamicLayer``):
``keys`` and ``values`` (batch, KV, tokens, d); a sliding-window layer
(``DynamicSlidingWindowLayer``, ``cache_utils.py`` 196–256) keeps the last ``window - 1``
tokens and an int64 scalar, ``_sliding_window_tensor``.

:func:`gpt2_attention` — GPT-2's fused ``c_attn`` Conv1D(D, 3D) and ``c_proj`` Conv1D(D, D)
(``models/gpt2/modeling_gpt2.py``, ``GPT2Attention``); its cache: keys and values (batch, H,
tokens, D/H).

:func:`latent_attention` — multi-head latent attention (DeepSeek-V2 §2.1; transformers'
``KimiLinearAttention``, ``models/kimi_linear/modeling_kimi_linear.py`` 190–313): ``q_proj``
Linear(D, H·(n + r)) or, with a query rank, ``q_a_proj``/``q_a_layernorm``/``q_b_proj``;
``kv_a_proj_with_mqa`` Linear(D, c + r), ``kv_a_layernorm`` (c), ``kv_b_proj`` Linear(c, H·(n +
v)), ``o_proj`` Linear(H·v, D), with c = ``kv_lora_rank``, n/r = ``qk_nope_head_dim`` /
``qk_rope_head_dim``, v = ``v_head_dim``. It caches the compressed latent, not the keys: keys
(batch, 1, tokens, c) and values (batch, 1, tokens, r) (``past_key_values.update(kv_nope,
k_rot)``, line 292).

FLOPs of one token (:func:`derive.layers.token_flops.matmul_flops`, as ``FlopCounterMode`` counts
the eager attention's ``matmul`` s): the projections, plus 2·H·d·S for the scores and 2·H·d·S for
the weighted values over the S = min(tokens, window) keys it attends to (the window - 1 cached
and its own). Latent attention expands every cached latent again at each step: ``kv_b_proj``
costs 2·c·H·(n + v) per attended token.

>>> attn = self_attention(4096, 32, 8)   # Mistral-7B's
>>> attn.count, [s.shape for s in attn.cache]
(41943040, [('batch', 8, 'tokens', 128), ('batch', 8, 'tokens', 128)])
>>> from derive.tree import cache_elements
>>> cache_elements(self_attention(64, 4, 2, window=4), 1, 10)
{None: 192, 'int64': 1}
"""

from __future__ import annotations

from typing import Any

from ..tree import Dim, Module, State
from .linear import linear
from .mlp import conv1d
from .norm import rms_norm
from .token_flops import matmul_flops, register

__all__ = ["self_attention", "gpt2_attention", "latent_attention", "attended", "kv_state", "attention_flops"]


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _min(a: Dim, b: Dim) -> Dim:
    if _ints(a, b):
        return min(a, b)
    import sympy

    return sympy.Min(a, b)


def attended(tokens: Dim, window: Dim | None) -> Dim:
    """Keys one new token attends to: every cached token and its own, at most ``window``.

    Parameters
    ----------
    tokens : int or sympy.Expr
        Tokens in the cache once the new one is in.
    window : int, sympy.Expr or None
        The sliding window (transformers' ``sliding_window``); None: no window.

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> attended(10, None), attended(10, 4), attended(3, 4)
    (10, 4, 3)
    """
    return tokens if window is None else _min(tokens, window)


def kv_state(
    kv_heads: Dim, head_dim: Dim, value_dim: Dim | None = None, window: Dim | None = None
) -> tuple[State, ...]:
    """The cache of one attention layer: ``keys`` and ``values`` (batch, kv_heads, tokens, dim).

    Parameters
    ----------
    kv_heads, head_dim : int or sympy.Expr
    value_dim : int or sympy.Expr, optional
        The values' width (default ``head_dim``).
    window : int or sympy.Expr, optional
        The sliding window: ``window - 1`` tokens kept, and the layer's int64 window scalar.

    Returns
    -------
    tuple of derive.tree.State
    """
    kept = None if window is None else window - 1
    value_dim = head_dim if value_dim is None else value_dim
    states: tuple[State, ...] = (
        State("keys", ("batch", kv_heads, "tokens", head_dim), window=kept),
        State("values", ("batch", kv_heads, "tokens", value_dim), window=kept),
    )
    if window is not None:
        states += (State("_sliding_window_tensor", (), dtype="int64"),)
    return states


def _projections(module: Module, tokens: Dim, skip: str = "") -> Any:
    return sum((matmul_flops(c, tokens) for c in module.children if c.name != skip), 0)


def attention_flops(module: Module, tokens: Dim) -> Any:
    """Matmul FLOPs of one token through a decoder self-attention: its projections and 2·H·(d + d_v)·S
    over the S = :func:`attended` keys (see the module's docstring); a family registers it for its class.

    Parameters
    ----------
    module : derive.tree.Module
        The attention, its :attr:`~derive.tree.Module.config` giving ``num_heads``, ``head_dim``,
        ``value_dim`` and ``window`` (None: none).
    tokens : int or sympy.Expr
        Tokens in the cache once this one is in.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs.
    """
    c = module.config
    keys = attended(tokens, c["window"])
    return _projections(module, tokens) + 2 * c["num_heads"] * (c["head_dim"] + c["value_dim"]) * keys


def self_attention(
    hidden_size: Dim,
    num_heads: Dim,
    num_kv_heads: Dim | None = None,
    head_dim: Dim | None = None,
    *,
    bias: bool = False,
    output_bias: bool | None = None,
    qk_norm: bool = False,
    gated: bool = False,
    window: Dim | None = None,
    norm_type: str = "RMSNorm",
    name: str = "self_attn",
    type: str = "Attention",
) -> Module:
    """Decoder self-attention: ``q_proj``, ``k_proj``, ``v_proj``, ``o_proj`` (and ``q_norm``, ``k_norm``).

    Parameters
    ----------
    hidden_size : int or sympy.Expr
        D.
    num_heads : int or sympy.Expr
        H, the query heads.
    num_kv_heads : int or sympy.Expr, optional
        KV, the key/value heads (default H: MHA; 1: MQA).
    head_dim : int or sympy.Expr, optional
        d (default D // H, as transformers' ``hidden_size // num_attention_heads``).
    bias : bool, default False
        Biases of q/k/v (``attention_bias``; Qwen2's are always on).
    output_bias : bool, optional
        The bias of ``o_proj`` (default ``bias``; Qwen2 has q/k/v biases and none on ``o_proj``).
    qk_norm : bool, default False
        ``q_norm`` and ``k_norm``, RMSNorms of width d (Gemma 3, Qwen3, Qwen3-Next).
    gated : bool, default False
        A gated output: ``q_proj`` gives 2·H·d, the query and its gate (Qwen3-Next).
    window : int or sympy.Expr, optional
        The sliding window (the layer's cache keeps ``window - 1`` tokens).
    norm_type : str, default "RMSNorm"
        The QK-norms' class (``"Gemma3RMSNorm"``).
    name, type : str
        Its name in the layer and its class (``"self_attn"``, ``"LlamaAttention"``).

    Returns
    -------
    derive.tree.Module
        With :attr:`~derive.tree.Module.cache` (keys, values) and its FLOPs rule registered.

    Raises
    ------
    ValueError
        ``head_dim`` absent and D not a multiple of H (ints).
    """
    kv = num_heads if num_kv_heads is None else num_kv_heads
    if head_dim is None:
        if _ints(hidden_size, num_heads) and hidden_size % num_heads:
            raise ValueError(f"hidden_size {hidden_size} is not a multiple of num_heads {num_heads}: give head_dim")
        head_dim = hidden_size // num_heads
    out_bias = bias if output_bias is None else output_bias
    d = head_dim
    children: tuple[Module, ...] = (
        linear(hidden_size, num_heads * d * (2 if gated else 1), bias, name="q_proj"),
        linear(hidden_size, kv * d, bias, name="k_proj"),
        linear(hidden_size, kv * d, bias, name="v_proj"),
        linear(num_heads * d, hidden_size, out_bias, name="o_proj"),
    )
    if qk_norm:
        children += (rms_norm((d,), name="q_norm", type=norm_type), rms_norm((d,), name="k_norm", type=norm_type))
    config = {"num_heads": num_heads, "num_kv_heads": kv, "head_dim": d, "value_dim": d, "window": window}
    register(type, attention_flops)
    return Module(name, type, children=children, config=config, cache=kv_state(kv, d, window=window), part="attention")


def gpt2_attention(hidden_size: Dim, num_heads: Dim, *, name: str = "attn", type: str = "GPT2Attention") -> Module:
    """GPT-2's attention: ``c_attn`` Conv1D(D, 3D) (q, k, v fused) and ``c_proj`` Conv1D(D, D).

    Parameters
    ----------
    hidden_size, num_heads : int or sympy.Expr
        ``n_embd`` and ``n_head``.
    name, type : str

    Returns
    -------
    derive.tree.Module
        4·D² + 4·D parameters; its cache keys and values (batch, H, tokens, D / H).
    """
    d = hidden_size // num_heads
    children = (conv1d(hidden_size, 3 * hidden_size, name="c_attn"), conv1d(hidden_size, hidden_size, name="c_proj"))
    config = {"num_heads": num_heads, "num_kv_heads": num_heads, "head_dim": d, "value_dim": d, "window": None}
    register(type, attention_flops)
    return Module(name, type, children=children, config=config, cache=kv_state(num_heads, d), part="attention")


def _latent_flops(module: Module, tokens: Dim) -> Any:
    c = module.config
    keys = attended(tokens, c["window"])
    expand = matmul_flops(module.child("kv_b_proj"), tokens) * keys
    scores = 2 * c["num_heads"] * (c["head_dim"] + c["value_dim"]) * keys
    return _projections(module, tokens, "kv_b_proj") + expand + scores


def latent_attention(
    hidden_size: Dim,
    num_heads: Dim,
    *,
    kv_lora_rank: Dim,
    qk_nope_head_dim: Dim,
    qk_rope_head_dim: Dim,
    v_head_dim: Dim,
    q_lora_rank: Dim | None = None,
    bias: bool = False,
    window: Dim | None = None,
    norm_type: str = "RMSNorm",
    name: str = "self_attn",
    type: str = "LatentAttention",
) -> Module:
    """Multi-head latent attention (MLA), caching the compressed latent (see the module's docstring).

    Parameters
    ----------
    hidden_size, num_heads : int or sympy.Expr
        D and H.
    kv_lora_rank : int or sympy.Expr
        c, the latent's width (cached per token).
    qk_nope_head_dim, qk_rope_head_dim, v_head_dim : int or sympy.Expr
        n, r (the shared rotary key, cached per token), v.
    q_lora_rank : int or sympy.Expr, optional
        The query's low rank: ``q_a_proj``, ``q_a_layernorm``, ``q_b_proj`` instead of ``q_proj``.
    bias : bool, default False
        ``attention_bias``: on ``q_a_proj``, ``kv_a_proj_with_mqa`` and ``o_proj`` (Kimi-Linear).
    window : int or sympy.Expr, optional
    norm_type : str, default "RMSNorm"
        The class of ``q_a_layernorm`` and ``kv_a_layernorm``.
    name, type : str

    Returns
    -------
    derive.tree.Module
        With its cache: keys (batch, 1, tokens, c), values (batch, 1, tokens, r).
    """
    H, qk = num_heads, qk_nope_head_dim + qk_rope_head_dim
    if q_lora_rank is None:
        query: tuple[Module, ...] = (linear(hidden_size, H * qk, False, name="q_proj"),)
    else:
        query = (
            linear(hidden_size, q_lora_rank, bias, name="q_a_proj"),
            rms_norm((q_lora_rank,), name="q_a_layernorm", type=norm_type),
            linear(q_lora_rank, H * qk, False, name="q_b_proj"),
        )
    children = query + (
        linear(hidden_size, kv_lora_rank + qk_rope_head_dim, bias, name="kv_a_proj_with_mqa"),
        rms_norm((kv_lora_rank,), name="kv_a_layernorm", type=norm_type),
        linear(kv_lora_rank, H * (qk_nope_head_dim + v_head_dim), False, name="kv_b_proj"),
        linear(H * v_head_dim, hidden_size, bias, name="o_proj"),
    )
    config = {"num_heads": H, "num_kv_heads": 1, "head_dim": qk, "value_dim": v_head_dim, "window": window}
    cache = kv_state(1, kv_lora_rank, qk_rope_head_dim, window)
    register(type, _latent_flops)
    return Module(name, type, children=children, config=config, cache=cache, part="attention")
