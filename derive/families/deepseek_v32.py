"""DeepSeek-V3.2 (``model_type`` ``deepseek_v32``): DeepSeek-V3's layout
(:func:`derive.families.deepseek_v3.mla_decoder`) whose attention carries DeepSeek Sparse Attention's
indexer (DSA), with its own cache.

``DeepseekV32ForCausalLM`` (``models/deepseek_v32/modeling_deepseek_v32.py`` 147-241 ``DeepseekV32Indexer``,
335-478 ``DeepseekV32Attention``, 480-493 ``DeepseekV32MLP`` (never biased: ``mlp_bias`` is not read),
496-608 the router (with its ``e_score_correction_bias`` buffer), experts and ``DeepseekV32MoE``, 610-620
``DeepseekV32DecoderLayer``, 644-690, 750-761): every layer's ``self_attn`` is MLA with a low-rank query
(``q_a_proj``, ``q_a_layernorm``, ``q_b_proj``: ``q_lora_rank`` must be an int), then ``indexer`` —
``wq_b`` Linear(``q_lora_rank``, ``index_n_heads`` · ``index_head_dim``) on the query's latent, ``wk``
Linear(D, ``index_head_dim``), ``k_norm`` a LayerNorm (weight and bias) of ``index_head_dim``,
``weights_proj`` Linear(D, ``index_n_heads``); layer i's ``mlp`` is the MoE where ``mlp_layer_types[i]`` is
``"sparse"``, a dense MLP otherwise — ``__post_init__`` (``configuration_deepseek_v32.py`` 125-142) makes it
``first_k_dense_replace`` dense layers then sparse ones, sets ``layer_types`` to ``"indexed_attention"``
everywhere (the cache's layer class) and reads a ``num_experts`` keyword as ``n_routed_experts``.

**Its cache** (``cache_utils.py`` 316-401 ``DynamicIndexedLayer``, chosen by ``layer_types``): MLA's
compressed latent — keys (batch, 1, tokens, ``kv_lora_rank``), values (batch, 1, tokens,
``qk_rope_head_dim``) — and the indexer's keys, ``indexer_keys`` (batch, tokens, ``index_head_dim``), in the
model's dtype (``past_key_values.update_indexer``, modeling line 226). A layer type other than
``indexed_attention`` has no indexer cache and transformers' forward fails on it: refused.

**A token's FLOPs** (eager attention, as ``FlopCounterMode`` counts it): MLA's (its projections,
``kv_b_proj`` over every cached latent, the scores and values over every cached token — the indexer's
top-``index_topk`` selection masks the scores, it removes no product), plus the indexer's projections and
2·``index_n_heads``·(``index_head_dim`` + 1) per cached token (its scores, and their weighted sum over heads).

**Multi-token prediction.** The release's ``num_nextn_predict_layers`` is not a key of ``DeepseekV32Config``;
its MTP layer is not built by ``from_config``, nor by transformers' ``MtpModel`` (``get_mtp_config`` needs
``num_mtp_layers``, which the class lacks): not counted, a note says so.

>>> from derive.tree import count, active
>>> model = deepseek_v32({})   # DeepseekV32Config(): DeepSeek-V3.2's shape
>>> count(model), active(model)
(671877929216, 38403807488)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import latent_attention
from ..layers.norm import layer_norm
from ..layers.token_flops import matmul_flops, register
from ..tree import Dim, Module, State
from .decoder import kinds_of
from .deepseek_v3 import MLA_INERT, dense_first, mla_decoder, mla_sizes
from .family import Keys, register_family

__all__ = ["KEYS", "deepseek_v32", "indexer"]

#: ``DeepseekV32Config``'s shape keys and their defaults (configuration_deepseek_v32.py 78-123), and the
#: ``num_experts`` keyword ``__post_init__`` reads as ``n_routed_experts`` (line 140).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 129280,
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "n_shared_experts": 1,
    "n_routed_experts": 256,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "qk_nope_head_dim": 128,
    "num_experts_per_tok": 8,
    "tie_word_embeddings": False,
    "mlp_layer_types": None,
    "attention_bias": False,
    "index_head_dim": 128,
    "index_n_heads": 64,
    "first_k_dense_replace": 3,
    "layer_types": None,
    "num_experts": None,
}
#: ``DeepseekV32Config``'s every key: the shape keys, and the others with why they shape nothing.
KEYS = Keys(
    "DeepseekV32Config",
    DEFAULTS,
    {
        **MLA_INERT,
        "index_topk": (
            "the cached tokens the indexer keeps per query: a mask on the scores (no tensor; eager attention "
            "still multiplies every cached token)"
        ),
        "mlp_bias": "DeepseekV32MLP builds its projections without bias whatever it says",
    },
    aliases={"num_local_experts": "n_routed_experts"},
)
_SOURCE = (
    "transformers/models/deepseek_v32/configuration_deepseek_v32.py 78-142, modeling_deepseek_v32.py 147-241, "
    "335-620, 644-690, 750-761; cache_utils.py 316-401"
)
#: ``layer_types`` entries whose cache layer holds the indexer's keys (the legacy name is remapped to it).
_INDEXED = ("indexed_attention", "deepseek_sparse_attention")


def _indexer_flops(module: Module, tokens: Dim) -> Any:
    c = module.config
    projections = sum((matmul_flops(child, tokens) for child in module.children), 0)
    return projections + 2 * c["heads"] * (c["head_dim"] + 1) * tokens


def indexer(hidden_size: Dim, q_lora_rank: Dim, heads: Dim, head_dim: Dim) -> Module:
    """DeepSeek Sparse Attention's indexer (``DeepseekV32Indexer``): ``wq_b``, ``wk``, ``k_norm``, ``weights_proj``.

    Parameters
    ----------
    hidden_size, q_lora_rank : int or sympy.Expr
        D and the query's rank (``wq_b`` reads the query's latent).
    heads, head_dim : int or sympy.Expr
        ``index_n_heads`` and ``index_head_dim``.

    Returns
    -------
    derive.tree.Module
        q_lora_rank·heads·head_dim + D·head_dim + 2·head_dim + D·heads parameters; its cache
        ``indexer_keys`` (batch, tokens, head_dim); its FLOPs rule registered.
    """
    children = (
        linear(q_lora_rank, heads * head_dim, False, name="wq_b"),
        linear(hidden_size, head_dim, False, name="wk"),
        layer_norm((head_dim,), name="k_norm"),
        linear(hidden_size, heads, False, name="weights_proj"),
    )
    register("DeepseekV32Indexer", _indexer_flops)
    cache = (State("indexer_keys", ("batch", "tokens", head_dim)),)
    config = {"heads": heads, "head_dim": head_dim}
    return Module("indexer", "DeepseekV32Indexer", children=children, config=config, cache=cache)


def _mlp_kinds(c: Mapping[str, Any], layers: int) -> list[str]:
    if c["mlp_layer_types"] is not None:
        return kinds_of("mlp_layer_types", c["mlp_layer_types"], layers, ("dense", "sparse"))
    if c["first_k_dense_replace"] < 0:  # __post_init__ makes num_hidden_layers + 1 entries: validation refuses them
        raise ValueError(
            f"config key 'first_k_dense_replace' ({c['first_k_dense_replace']}) must be >= 0: DeepseekV32Config "
            "makes one mlp_layer_types entry too many and refuses it"
        )
    return dense_first(c["first_k_dense_replace"], layers)


def deepseek_v32(config: Mapping[str, Any]) -> Module:
    """``DeepseekV32ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``DeepseekV32Config``'s defaults. Sizes may be SymPy symbols (not
        the layer count, ``first_k_dense_replace`` nor the patterns).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A value transformers refuses (``q_lora_rank`` None, a pattern of the wrong length) or derive cannot
        map (a ``layer_types`` entry whose cache has no indexer keys), naming the key.
    """
    c = KEYS.resolve(config)
    if c["num_experts"] is not None:  # __post_init__'s backward compatibility: num_experts is n_routed_experts
        c["n_routed_experts"] = c["num_experts"]
    s = mla_sizes(c, "DeepseekV32Config", q_rank_optional=False)
    L = s["L"]
    kinds = _mlp_kinds(c, L)
    if c["layer_types"] is not None:
        attention_kinds = kinds_of("layer_types", c["layer_types"], L, _INDEXED + ("full_attention",))
        if any(kind not in _INDEXED for kind in attention_kinds):
            raise ValueError(
                "config key 'layer_types': DeepseekV32Attention writes the indexer's keys to the cache, which only "
                "an 'indexed_attention' layer holds (transformers' forward fails on another)"
            )
    bias = hf_config.flag(c, "attention_bias")
    heads, head_dim = hf_config.size(c, "index_n_heads"), hf_config.size(c, "index_head_dim")
    D, H, q_rank = s["D"], s["H"], s["q_rank"]

    def attention() -> Module:
        mla = latent_attention(
            D, H, **s["mla"], q_lora_rank=q_rank, bias=bias, norm_type="DeepseekV32RMSNorm",
            type="DeepseekV32Attention",
        )  # fmt: skip
        return mla.replace(children=mla.children + (indexer(D, q_rank, heads, head_dim),))

    shape: dict[str, Any] = {"attention_bias": bias, "index_n_heads": heads, "index_head_dim": head_dim}
    if c["mlp_layer_types"] is not None:  # else made from first_k_dense_replace, as __post_init__ makes it
        shape["mlp_layer_types"] = kinds
    return mla_decoder(
        config, s, prefix="DeepseekV32", kinds=kinds, attention=attention, shape=shape, note=_mtp_note(config)
    )


def _mtp_note(config: Mapping[str, Any]) -> str:
    n = config.get("num_nextn_predict_layers")
    if not n:
        return ""
    return (
        f"num_nextn_predict_layers={n!r}: the release's multi-token-prediction layer is not built by from_config "
        "and not counted; nor does transformers 5.23 build one for DeepseekV32 (get_mtp_config needs "
        "num_mtp_layers, which DeepseekV32Config lacks)"
    )


register_family("deepseek_v32", "DeepseekV32Config", "DeepseekV32ForCausalLM", deepseek_v32, _SOURCE, keys=KEYS)
