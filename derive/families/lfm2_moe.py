"""LFM2-MoE (``model_type`` ``lfm2_moe``): LFM2's short convolutions and attention, with a sparse mixture
of experts after the first ``num_dense_layers`` layers.

``Lfm2MoeForCausalLM`` (``models/lfm2_moe/modeling_lfm2_moe.py`` 118-131 ``Lfm2MoeMLP``, 132-230 the
experts, router and sparse-MoE block, 287-302 ``Lfm2MoeAttention``, 401-423 ``Lfm2MoeShortConv``,
469-486 ``Lfm2MoeDecoderLayer``, 551-566 ``Lfm2MoeModel``, 631-642): the layers of
:mod:`derive.families.lfm2` (``self_attn`` or ``conv`` by ``layer_types``, which transformers needs
given: without it the decoder layer fails), whose ``feed_forward`` is a gated MLP of
``intermediate_size`` (no width adjustment) for layer i < ``num_dense_layers``, else a sparse MoE —
``experts`` (E = ``num_experts``, k = ``num_experts_per_tok``, width ``moe_intermediate_size``),
then ``gate`` (E, D), and a float32 buffer ``expert_bias`` (E,) with ``use_expert_bias``. The
rotary embedding is ``model.pos_emb``, registered between the layers and ``embedding_norm``.

Its cache is LFM2's: keys and values per attention layer, ``conv_states`` (batch, D, L) per
convolution layer.

>>> from derive.tree import count, active
>>> model = lfm2_moe({"layer_types": ["conv", "conv", "full_attention"] * 8, "num_hidden_layers": 24})
>>> count(model), active(model)
(8327334912, 1545145344)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.short_conv import short_conv
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, check_rope, head_dim, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family
from .lfm2 import attention

__all__ = ["KEYS", "lfm2_moe"]

#: ``Lfm2MoeConfig``'s shape keys and defaults (configuration_lfm2_moe.py 63-88).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 65536,
    "hidden_size": 2048,
    "intermediate_size": 7168,
    "moe_intermediate_size": 1792,
    "num_hidden_layers": 32,
    "tie_word_embeddings": True,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": None,
    "conv_bias": False,
    "conv_L_cache": 3,
    "num_dense_layers": 2,
    "num_experts_per_tok": 4,
    "num_experts": 32,
    "use_expert_bias": True,
    "layer_types": None,
}
#: ``Lfm2MoeConfig``'s every key at transformers 5.23.0 (configuration_lfm2_moe.py): the shape keys with their
#: defaults, the others with why they shape nothing.
KEYS = Keys(
    "Lfm2MoeConfig",
    _DEFAULTS,
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "norm_eps", "output_router_logits", *ROPE_KEYS)},
        "routed_scaling_factor": "a scalar on the routed experts' weights (modeling_lfm2_moe.py 179): no tensor",
        "norm_topk_prob": "whether the chosen experts' weights are renormalised: no tensor",
    },
    aliases={"tie_embedding": "tie_word_embeddings"},  # popped as it by __post_init__ (configuration_lfm2_moe.py 91)
)
_SOURCE = (
    "transformers/models/lfm2_moe/configuration_lfm2_moe.py 63-92, modeling_lfm2_moe.py 118-230, 287-302, "
    "401-423, 469-486, 551-566, 631-642"
)


def lfm2_moe(config: Mapping[str, Any]) -> Module:
    """``Lfm2MoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Lfm2MoeConfig``'s defaults; ``tie_embedding`` read as ``tie_word_embeddings``.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; no ``layer_types`` (transformers cannot build the layers); more
        experts per token than experts; naming the key.
    """
    config = dict(config)
    if "tie_embedding" in config:
        config["tie_word_embeddings"] = config.pop("tie_embedding")
    c = KEYS.resolve(config)
    check_rope(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    F, Fe = hf_config.size(c, "intermediate_size"), hf_config.size(c, "moe_intermediate_size")
    L, dense = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_dense_layers", 0)
    if type(L) is not int or type(dense) is not int:
        raise ValueError("config keys 'num_hidden_layers' and 'num_dense_layers' must be numbers: they fix the pattern")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    E, k = hf_config.size(c, "num_experts"), hf_config.size(c, "num_experts_per_tok")
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_experts ({E})")
    K, bias = hf_config.size(c, "conv_L_cache"), hf_config.flag(c, "conv_bias")
    tie, expert_bias = hf_config.flag(c, "tie_word_embeddings"), hf_config.flag(c, "use_expert_bias")
    kinds = c["layer_types"]
    if kinds is None:
        raise ValueError("config key 'layer_types' is required: Lfm2MoeDecoderLayer reads layer_types[i]")
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != L:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({L}) types, got {kinds!r:.60}")
    if any(kind not in ("conv", "full_attention") for kind in kinds):
        raise ValueError(f"config key 'layer_types' must hold 'conv' or 'full_attention', got {kinds!r:.60}")

    def make(kind: tuple[str, bool]) -> Module:
        mixer_kind, sparse = kind
        if mixer_kind == "conv":
            mixer = short_conv(D, K, conv_bias=bias, spelling="lfm2_moe")
        else:
            mixer = attention(D, H, KV, d, prefix="Lfm2Moe")
        if sparse:
            ff = moe_block(
                routed_experts(D, Fe, E, k, type="Lfm2MoeExperts"),
                router(D, E, name="gate", type="Lfm2MoeTopKRouter"),
                name="feed_forward", type="Lfm2MoeSparseMoeBlock",
            )  # fmt: skip
            if expert_bias:
                ff = ff.replace(params=(Param("expert_bias", (E,), buffer=True, dtype="float32"),))
        else:
            mlp = (linear(D, F, False, name="w1"), linear(D, F, False, name="w3"), linear(F, D, False, name="w2"))
            ff = Module("feed_forward", "Lfm2MoeMLP", children=mlp, part="MLP")
        norm = lambda n: rms_norm((D,), name=n, type="Lfm2MoeRMSNorm")  # noqa: E731
        return Module("", "Lfm2MoeDecoderLayer", children=(mixer, ff, norm("operator_norm"), norm("ffn_norm")))

    layers = layer_list(make, [(kind, i >= dense) for i, kind in enumerate(kinds)], L)
    body = (
        embedding(V, D, name="embed_tokens"),
        layers,
        Module("pos_emb", "Lfm2MoeRotaryEmbedding", rope_buffers(d)),
        rms_norm((D,), name="embedding_norm", type="Lfm2MoeRMSNorm"),
    )
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "moe_intermediate_size": Fe}
    shape.update(num_hidden_layers=L, num_attention_heads=H, num_key_value_heads=KV, conv_L_cache=K, conv_bias=bias)
    shape.update(num_dense_layers=dense, num_experts=E, num_experts_per_tok=k, use_expert_bias=expert_bias)
    shape.update(layer_types=list(kinds), tie_word_embeddings=tie, _fixed=("num_hidden_layers", "layer_types"))
    head = hf_config.lm_head(D, V, "model.embed_tokens.weight" if tie else None)
    model = Module("model", "Lfm2MoeModel", children=body)
    return Module("", "Lfm2MoeForCausalLM", children=(model, head), config=shape)


register_family("lfm2_moe", "Lfm2MoeConfig", "Lfm2MoeForCausalLM", lfm2_moe, _SOURCE, keys=KEYS)
