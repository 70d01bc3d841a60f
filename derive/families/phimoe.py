"""PhiMoE (``model_type`` ``phimoe``: Phi-3.5-MoE, Phi-mini-MoE): Mixtral's layout with biased LayerNorms, an
optional head bias, and SparseMixer routing to two experts.

``PhimoeForCausalLM`` (``models/phimoe/modeling_phimoe.py`` 44-97 ``PhimoeRotaryEmbedding``: two float32 buffers of
⌈d/2⌉; 170-194 ``PhimoeAttention``: q/k/v/o biased when ``attention_bias``; 300-310 ``PhimoeExperts``:
``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F), F = ``intermediate_size``, E = ``num_local_experts``;
336-458 ``sparsemixer``: every token goes to exactly two experts, whatever ``num_experts_per_tok``; 462-468
``PhimoeTopKRouter``: an ``nn.Linear(D, E)`` without bias; 482-503 ``PhimoeSparseMoeBlock``: ``router`` then
``experts``; 518-531 ``PhimoeDecoderLayer``: ``input_layernorm`` and ``post_attention_layernorm`` are
``nn.LayerNorm`` with bias; 591-601 ``PhimoeModel``: ``norm`` an ``nn.LayerNorm``; 739-749: ``lm_head`` biased when
``lm_head_bias``). Whatever ``num_experts_per_tok`` says (it reaches ``sparsemixer`` as ``top_k``, which does not
read it), a token uses two experts: the active count is of two. Fewer than two experts are refused (the second pick
masks every score: the logits are NaN). ``PhimoeConfig`` has no ``head_dim``: the attention reads
``getattr(config, "head_dim", ...)`` (null refused). The default RoPE turns the whole head whatever
``partial_rotary_factor`` says; the scaled types need ``short_mscale`` and ``long_mscale`` and a factor of 1.0
(another turns part of a head the attention rotates whole: its forward fails); ``su`` is not a type PhiMoE knows.
LongRoPE's ``short_factor``/``long_factor`` must have ⌈d/2⌉ entries (their product with the frequencies). The cache is ``DynamicCache(config=...)``'s: a
``sliding_window`` makes every layer keep ``window - 1`` tokens (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count, active
>>> model = phimoe({})   # PhimoeConfig(): Phi-3.5-MoE's shape
>>> count(model), active(model)
(41872793600, 6640640000)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import layer_norm
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, ROPE_TYPES, kv_heads, rope_object
from .family import Keys, register_family
from .llama_like import cache_shape, cache_windows, head_width, lm
from .olmoe import MOE_INERT

__all__ = ["KEYS", "phimoe"]

#: ``PhimoeConfig``'s every key at transformers 5.23.0 (``configuration_phimoe.py``), and ``head_dim``, which the
#: class does not define and the attention reads; ``layer_types`` and ``attention_chunk_size``, which
#: ``DynamicCache`` reads off any config.
KEYS = Keys(
    "PhimoeConfig",
    {
        "vocab_size": 32064,
        "hidden_size": 4096,
        "intermediate_size": 6400,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "lm_head_bias": False,
        "num_experts_per_tok": 2,
        "num_local_experts": 16,
        "sliding_window": None,
        "layer_types": None,
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "rope_parameters": "the rotary embedding's frequencies: buffers only (checked: default, scaled or longrope)",
        "rope_scaling": "the legacy spelling of rope_parameters, read first (checked as it)",
        "partial_rotary_factor": "the rotated fraction of a head (checked: 1.0)",
        "original_max_position_embeddings": "the context LongRoPE's scaling is relative to: no tensor",
        **MOE_INERT,
        "router_jitter_noise": "SparseMixer's masking threshold (a comparison): no tensor, no matmul",
        "input_jitter_noise": "noise on the inputs, in training: no tensor",
    },
)
_SOURCE = (
    "transformers/models/phimoe/configuration_phimoe.py, modeling_phimoe.py 44-97, 170-194, 300-310, 336-503, "
    "518-531, 591-601, 739-749"
)


def _check_rope(config: Mapping[str, Any], head_dim: Dim) -> None:
    """The RoPE a PhiMoE builds and runs: a type ``ROPE_INIT_FUNCTIONS`` knows (not ``su``: ``PhimoeConfig`` does
    not read it as ``longrope``: KeyError); beside any but the default, numbers ``short_mscale`` and ``long_mscale``
    (``PhimoeConfig.validate_rope``), ``original_max_position_embeddings`` for ``linear`` and ``dynamic`` (the config
    gives the others one; the forward reads it) and a factor of 1.0 (another turns ``int(d · factor)`` of a head the
    attention rotates whole: the first forward fails); LongRoPE's factors of ⌈d/2⌉ entries. The default turns the
    whole head whatever ``partial_rotary_factor`` says (``compute_default_rope_parameters`` does not read it)."""
    key, rope, kind = rope_object(config)
    if kind not in (*ROPE_TYPES, "longrope"):
        raise ValueError(f"config key {key!r}: rope_type {kind!r} is not one derive maps")
    if kind == "default":
        return
    if kind in ("linear", "dynamic") and "original_max_position_embeddings" not in rope:
        raise ValueError(
            f"config key {key!r}: rope_type {kind!r} needs original_max_position_embeddings in it "
            f"(PhimoeRotaryEmbedding.forward reads it: KeyError at the first forward)"
        )
    for name in ("short_mscale", "long_mscale"):
        value = rope.get(name)
        if not isinstance(value, (int, float)):  # as PhimoeConfig.validate_rope tests it
            raise ValueError(f"config key {key!r}: {name} must be a number beside rope_type {kind!r} (PhimoeConfig), got {value!r:.60}")  # fmt: skip
    for where, factor in ((key, rope.get("partial_rotary_factor", 1.0)), ("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))):  # fmt: skip
        if factor != 1.0:
            raise ValueError(
                f"config key {where!r}: partial_rotary_factor {factor!r} with rope_type {kind!r} turns part of a head "
                f"the attention rotates whole (its first forward fails): only 1.0 is derived"
            )
    if kind == "longrope" and type(head_dim) is int:
        for name in ("short_factor", "long_factor"):
            values = rope.get(name)
            if not isinstance(values, list) or len(values) != (head_dim + 1) // 2:
                raise ValueError(
                    f"config key {key!r}: longrope's {name} must be a list of {(head_dim + 1) // 2} numbers, got {values!r:.60}"
                )


def phimoe(config: Mapping[str, Any]) -> Module:
    """``PhimoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``PhimoeConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (2, num_local_experts).

    Raises
    ------
    ValueError
        Fewer than two experts, a null ``head_dim``, a RoPE derive does not map or PhiMoE does not build or run,
        a bad ``layer_types``, naming the key.
    """
    c = KEYS.resolve(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="PhimoeAttention", null="given")
    _check_rope(config, d)
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    # num_experts_per_tok is recorded only: sparsemixer routes to two whatever it says (0 included)
    E, k = hf_config.size(c, "num_local_experts"), hf_config.size(c, "num_experts_per_tok", 0)
    if type(E) is int and E < 2:
        raise ValueError(f"config key 'num_local_experts' ({E}) must be at least 2: sparsemixer picks two experts")
    L = hf_config.size(c, "num_hidden_layers", 0)
    bias, head_bias = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "lm_head_bias")
    tie = hf_config.flag(c, "tie_word_embeddings")
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape = {"attention_bias": bias, "lm_head_bias": head_bias, "num_local_experts": E, "num_experts_per_tok": k}
    shape.update(cache_shape(c, window, windows))
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window = windows[0]

    def layer(w: Any) -> Module:
        attn = self_attention(D, H, KV, d, bias=bias, window=w if kinds is not None else window, type="PhimoeAttention")
        mlp = moe_block(
            router(D, E, name="router", type="PhimoeTopKRouter"),
            routed_experts(D, F, E, 2, type="PhimoeExperts"),
            type="PhimoeSparseMoeBlock",
        )
        norm = lambda n: layer_norm((D,), name=n, type="LayerNorm")  # noqa: E731
        return Module("", "PhimoeDecoderLayer", children=(attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm")))  # fmt: skip

    model = lm(
        c, prefix="Phimoe", layer=layer, kinds=kinds, head_dim=d, shape=shape,
        norm=layer_norm((D,), name="norm", type="LayerNorm"),
    )  # fmt: skip
    if not head_bias:
        return model
    V = hf_config.size(c, "vocab_size")
    head = linear(D, V, True, name="lm_head").replace(part="head")
    if tie:
        head = head.replace(params=(Param("weight", (V, D), tied_to="model.embed_tokens.weight"), head.params[1]))
    return model.replace(children=tuple(head if m.name == "lm_head" else m for m in model.children))


register_family("phimoe", "PhimoeConfig", "PhimoeForCausalLM", phimoe, _SOURCE, keys=KEYS)
