"""OLMoE (``model_type`` ``olmoe``: OLMoE-1B-7B): Llama's attention with QK-norms of the model's width and a sparse
mixture of experts in every layer, no shared expert.

``OlmoeForCausalLM`` (``models/olmoe/modeling_olmoe.py`` 197-225 ``OlmoeAttention``: q/k/v/o biased when
``attention_bias``, ``q_norm`` an RMSNorm of ``hidden_size`` and ``k_norm`` of
``hidden_size // num_attention_heads * num_key_value_heads``; 278-288 ``OlmoeExperts``: ``gate_up_proj``
(E, 2F, D), ``down_proj`` (E, D, F), F = ``intermediate_size``, E = ``num_local_experts``; 317-324
``OlmoeTopKRouter``: ``weight`` (E, D); 338-342 ``OlmoeSparseMoeBlock``: ``gate`` then ``experts``; 354-361
``OlmoeDecoderLayer``; 424-434 ``OlmoeModel``). ``OlmoeConfig`` (``configuration_olmoe.py``) maps
``num_local_experts`` to ``num_experts`` (``attribute_map``); it has no ``head_dim``: the attention reads
``getattr(config, "head_dim", ...)``, and a ``head_dim`` other than ``hidden_size // num_attention_heads`` makes
QK-norms of the wrong width (the first forward fails): refused, as is a null one. ``clip_qkv`` clamps the
projections (no tensor, no matmul). The cache is ``DynamicCache(config=...)``'s
(:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count, active
>>> model = olmoe({"intermediate_size": 1024})   # OLMoE-1B-7B's shape (OlmoeConfig()'s experts are twice as wide)
>>> count(model), active(model)
(6919161856, 1282017280)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, floordiv, kv_heads
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, attention, cache_shape, cache_windows, check_rope, head_width, lm
from .qwen3_moe import check_top_k

__all__ = ["KEYS", "olmoe", "MOE_INERT"]

#: The routing keys of the MoE configs that shape nothing, with why.
MOE_INERT: dict[str, str] = {
    "norm_topk_prob": "renormalises the top-k routing weights (a division): no tensor, no matmul",
    "output_router_logits": "returns the routers' logits for the auxiliary loss: no tensor",
    "router_aux_loss_coef": "the auxiliary loss's weight, in training: no tensor",
}
#: ``OlmoeConfig``'s every key at transformers 5.23.0 (``configuration_olmoe.py``), and ``head_dim``, which the
#: class does not define and the attention reads.
KEYS = Keys(
    "OlmoeConfig",
    {
        "vocab_size": 50304,
        "hidden_size": 2048,
        "intermediate_size": 2048,
        "num_hidden_layers": 16,
        "num_attention_heads": 16,
        "num_key_value_heads": None,
        "head_dim": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "num_experts_per_tok": 8,
        "num_experts": 64,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **ROPE_INERT,
        **MOE_INERT,
        "clip_qkv": "clamps the projections' outputs: no tensor, no matmul",
    },
    aliases={"num_local_experts": "num_experts"},
)
_SOURCE = (
    "transformers/models/olmoe/configuration_olmoe.py, modeling_olmoe.py 197-225, 278-288, 317-342, 354-361, 424-434"
)


def olmoe(config: Mapping[str, Any]) -> Module:
    """``OlmoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``OlmoeConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (num_experts_per_tok, num_experts).

    Raises
    ------
    ValueError
        A ``head_dim`` null or other than ``hidden_size // num_attention_heads``, more experts per token than
        experts, a RoPE derive does not map, a bad ``layer_types``, naming the key.
    """
    if "num_local_experts" in config:  # set after the field: transformers builds it, whatever num_experts says
        config = {k: v for k, v in config.items() if k != "num_experts"}
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="OlmoeAttention", null="given")
    width = floordiv(D, H)
    if c.get("head_dim") is not None and type(d) is int and type(width) is int and d != width:
        raise ValueError(
            f"config key 'head_dim' ({d}) is not hidden_size // num_attention_heads ({width}): OlmoeAttention's "
            f"q_norm and k_norm are of hidden_size widths and its first forward fails"
        )
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    E, k = hf_config.size(c, "num_experts"), hf_config.size(c, "num_experts_per_tok")
    check_top_k(E, k, True)
    L = hf_config.size(c, "num_hidden_layers", 0)
    bias = hf_config.flag(c, "attention_bias")
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape = {"attention_bias": bias, "num_experts": E, "num_experts_per_tok": k, **cache_shape(c, window, windows)}
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window = windows[0]

    def layer(w: Any) -> Module:
        attn = attention(
            D, H, KV, d, bias=bias, window=w if kinds is not None else window, type="OlmoeAttention",
            norms=(("q_norm", D), ("k_norm", width * KV)), norm_type="OlmoeRMSNorm",
        )  # fmt: skip
        mlp = moe_block(
            router(D, E, name="gate", type="OlmoeTopKRouter"),
            routed_experts(D, F, E, k, type="OlmoeExperts"),
            type="OlmoeSparseMoeBlock",
        )
        norm = lambda n: rms_norm((D,), name=n, type="OlmoeRMSNorm")  # noqa: E731
        return Module("", "OlmoeDecoderLayer", children=(attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm")))  # fmt: skip

    return lm(c, prefix="Olmoe", layer=layer, kinds=kinds, head_dim=d, shape=shape)


register_family("olmoe", "OlmoeConfig", "OlmoeForCausalLM", olmoe, _SOURCE, keys=KEYS)
