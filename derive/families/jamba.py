"""Jamba (``model_type`` ``jamba``): Mamba layers with an attention layer every ``attn_layer_period``,
and a mixture of experts every ``expert_layer_period``.

``JambaForCausalLM`` (``models/jamba/modeling_jamba.py`` 154–170 ``JambaAttention``, 444–503
``JambaMambaMixer``, 624–727 the MLP, experts, router and sparse-MoE block, 729–776 the two
decoder layers, 835–850 ``JambaModel``, 987–1001): layer i is an attention layer when ``i %
attn_layer_period == attn_layer_offset``, else a Mamba layer (``configuration_jamba.py``
``layers_block_type``); its feed-forward block is a sparse MoE of ``num_experts`` (k =
``num_experts_per_tok``) when ``i % expert_layer_period == expert_layer_offset``, else a gated MLP
(``layers_num_experts``). The Mamba mixer is :func:`derive.blocks.mamba.mixer` (E =
``mamba_expand`` · D, R = ``mamba_dt_rank``, "auto" ⌈D/16⌉) with three RMSNorms of its own,
``dt_layernorm`` (R), ``b_layernorm`` and ``c_layernorm`` (N), which are parameters here. No rotary
embedding; ``lm_head`` untied by default.

Its cache (``cache_utils.py`` ``LinearAttentionLayer`` for a Mamba layer, ``DynamicLayer`` for an
attention layer): ``conv_states`` (batch, E, K) in the model's dtype — the full kernel width —
and ``recurrent_states`` (batch, E, N) in float32 whatever the model's dtype (the selective scan
returns a float32 state, ``mamba_selective_scan``); keys and values (batch, KV, tokens, D/H).

A token's matmul FLOPs through the mixer at decode (``mamba_selective_state_update``): its four
projections and the state readout ``torch.matmul(state, C)``, 2·E·N; the depthwise convolution is
an ``aten.convolution``, not a matrix product.

>>> from derive.tree import count, active
>>> model = jamba({})   # JambaConfig(): Jamba-v0.1's shape
>>> count(model), active(model)
(51570323328, 12110311296)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba import decode_flops, dt_rank_auto, mixer
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, State
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, kv_heads, layer_list
from .family import Keys, register_family
from .llama_like import head_width

__all__ = ["KEYS", "jamba", "jamba_mamba"]

#: ``JambaConfig``'s shape keys and defaults (configuration_jamba.py).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 65536,
    "tie_word_embeddings": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_experts_per_tok": 2,
    "num_experts": 16,
    "expert_layer_period": 2,
    "expert_layer_offset": 1,
    "attn_layer_period": 8,
    "attn_layer_offset": 4,
    "mamba_d_state": 16,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_dt_rank": "auto",
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
}
#: ``JambaConfig``'s every key at transformers 5.23.0 (configuration_jamba.py): the shape keys with their
#: defaults, the others with why they shape nothing; ``num_local_experts`` is its ``attribute_map`` alias of
#: ``num_experts``.
KEYS = Keys(
    "JambaConfig",
    # head_dim is not JambaConfig's, but JambaAttention reads getattr(config, "head_dim", D // H)
    # (modeling_jamba.py 161): a config's head_dim sets the heads' width (absent: D // H; null: refused)
    {**_DEFAULTS, "head_dim": None},
    {
        **{k: DECODER_INERT[k] for k in ("rms_norm_eps", "max_position_embeddings", "attention_dropout")},
        "output_router_logits": "whether the forward returns the router's logits (for the auxiliary loss): no tensor",
        "router_aux_loss_coef": "the load-balancing loss's weight, in training: no tensor",
        "use_mamba_kernels": "deprecated, no effect (modeling_jamba.py 454-456): the kernel is chosen at run time",
        "use_mambapy": "the scan's implementation on the torch path (pscan): no tensor",
        "use_associative_scan": "the scan's implementation on the torch path: no tensor",
        "_is_quantized": "set by transformers' quantizers on loading (modeling_jamba.py 574: the slow path): no tensor",
    },
    {"num_local_experts": "num_experts"},
)
_SOURCE = (
    "transformers/models/jamba/configuration_jamba.py, modeling_jamba.py 154-170, 444-503, 624-776, 835-850, 987-1001"
)
_PATTERN = ("num_hidden_layers", "attn_layer_period", "attn_layer_offset", "expert_layer_period", "expert_layer_offset")


register("JambaMambaMixer", decode_flops)


def jamba_mamba(D: Dim, E: Dim, N: Dim, K: Dim, R: Dim, *, conv_bias: bool, bias: bool) -> Module:
    """``JambaMambaMixer``: the Mamba mixer, its dt/B/C RMSNorms, and its cache.

    Parameters
    ----------
    D, E, N, K, R : int or sympy.Expr
        hidden_size, the inner width (``mamba_expand`` · D), ``mamba_d_state``, ``mamba_d_conv``, the dt rank.
    conv_bias, bias : bool
        ``mamba_conv_bias``, ``mamba_proj_bias``.

    Returns
    -------
    derive.tree.Module
    """
    base = mixer(D, N, K, dt_rank=R, conv_bias=conv_bias, bias=bias, d_inner=E, spelling="transformers")
    norms = tuple(rms_norm((w,), name=n, type="JambaRMSNorm") for n, w in (("dt_layernorm", R), ("b_layernorm", N), ("c_layernorm", N)))  # fmt: skip
    cache = (State("conv_states", ("batch", E, K)), State("recurrent_states", ("batch", E, N), dtype="float32"))
    return base.replace(name="mamba", type="JambaMambaMixer", children=base.children + norms, cache=cache)


def _int(c: Mapping[str, Any], key: str, minimum: int) -> int:
    value = hf_config.size(c, key, minimum)
    if type(value) is not int:
        raise ValueError(f"config key {key!r} must be a number: it fixes Jamba's layer pattern")
    return value


def jamba(config: Mapping[str, Any]) -> Module:
    """``JambaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``JambaConfig``'s defaults. Sizes may be SymPy symbols; the layer count,
        periods and offsets are numbers (they fix the pattern).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, an offset not below its period (transformers refuses it), more
        experts per token than experts, naming the key.
    """
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = _int(c, "num_hidden_layers", 0)
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    ap, ao = _int(c, "attn_layer_period", 1), _int(c, "attn_layer_offset", 0)
    ep, eo = _int(c, "expert_layer_period", 1), _int(c, "expert_layer_offset", 0)
    for offset, period in (("attn_layer_offset", ap), ("expert_layer_offset", ep)):
        if c[offset] >= period:
            raise ValueError(f"config key {offset!r} ({c[offset]}) must be smaller than its period ({period})")
    E_moe, k = hf_config.size(c, "num_experts"), hf_config.size(c, "num_experts_per_tok")
    if type(E_moe) is int and type(k) is int and E_moe > 1 and k > E_moe:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_experts ({E_moe})")
    N, K = hf_config.size(c, "mamba_d_state"), hf_config.size(c, "mamba_d_conv")
    expand = hf_config.size(c, "mamba_expand")
    R = dt_rank_auto(D) if c["mamba_dt_rank"] == "auto" else hf_config.size(c, "mamba_dt_rank")
    flags = {f: hf_config.flag(c, f) for f in ("mamba_conv_bias", "mamba_proj_bias", "tie_word_embeddings")}
    Ein = expand * D
    d = head_width(config, c, D, H, cls="JambaAttention", null="given")

    def make(kind: tuple[bool, bool]) -> Module:
        attends, sparse = kind
        if attends:
            mix = self_attention(D, H, KV, d, type="JambaAttention")
        else:
            mix = jamba_mamba(D, Ein, N, K, R, conv_bias=flags["mamba_conv_bias"], bias=flags["mamba_proj_bias"])
        if sparse and E_moe != 1:
            ff = moe_block(
                router(D, E_moe, name="router", type="JambaTopKRouter"),
                routed_experts(D, F, E_moe, k, type="JambaExperts"),
                name="feed_forward", type="JambaSparseMoeBlock",
            )  # fmt: skip
        else:
            ff = gated_mlp(D, F, name="feed_forward", type="JambaMLP")
        norm = lambda n: rms_norm((D,), name=n, type="JambaRMSNorm")  # noqa: E731
        cls = "JambaAttentionDecoderLayer" if attends else "JambaMambaDecoderLayer"
        return Module("", cls, children=(mix, ff, norm("input_layernorm"), norm("pre_ff_layernorm")))

    kinds = [(i % ap == ao, i % ep == eo) for i in range(L)]
    shape: dict[str, Any] = {k_: c[k_] for k_ in _PATTERN}
    shape.update(vocab_size=V, hidden_size=D, intermediate_size=F, num_attention_heads=H, num_key_value_heads=KV)
    shape.update(num_experts=E_moe, num_experts_per_tok=k, mamba_d_state=N, mamba_d_conv=K, mamba_expand=expand)
    shape.update(mamba_dt_rank=R, **flags, _fixed=_PATTERN)
    if c["head_dim"] is not None:
        shape["head_dim"] = d
    return causal_lm(
        "Jamba", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=flags["tie_word_embeddings"],
        config=shape, norm=rms_norm((D,), name="final_layernorm", type="JambaRMSNorm"),
    )  # fmt: skip


register_family("jamba", "JambaConfig", "JambaForCausalLM", jamba, _SOURCE, keys=KEYS)
