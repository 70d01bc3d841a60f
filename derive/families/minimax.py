"""MiniMax (``model_type`` ``minimax``): lightning-attention layers and softmax-attention layers, a sparse
mixture of experts in every layer — MiniMax-Text-01's architecture.

``MiniMaxForCausalLM`` (``models/minimax/modeling_minimax.py`` 125-172
``MiniMaxLightningAttention``, 392-410 ``MiniMaxAttention``, 451-526 the router, experts and
sparse-MoE block, 528-551 ``MiniMaxDecoderLayer``, 618-631 ``MiniMaxModel``, 776-787): layer i
mixes tokens with ``self_attn`` — :func:`derive.blocks.lightning.lightning_attention` when
``layer_types[i]`` is ``"linear_attention"``, else GQA attention without biases — then ``mlp``:
``gate`` (E, D) and ``experts`` (E = ``num_local_experts``, k = ``num_experts_per_tok``, width
``intermediate_size``). The decoder layer registers ``self_attn`` first and replaces it in place
for a lightning layer, so the order is ``self_attn``, ``input_layernorm``,
``post_attention_layernorm``, ``mlp``. ``layer_types`` defaults to alternating, full attention
first (``configuration_minimax.py`` 119-127).

Its cache is ``MiniMaxCache`` (``modeling_minimax.py`` 72-85, 650-655): made without the config,
so every attention layer is a plain ``DynamicLayer`` keeping *every* token even with a
``sliding_window`` (the window shapes the mask only); each lightning layer keeps
``linear_cache[i]`` (batch, H, d, d) in the model's dtype.

>>> from derive.tree import count, active
>>> model = minimax({})   # MiniMaxConfig()
>>> count(model), active(model)
(47373946880, 13551079424)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.lightning import lightning_attention
from ..layers.lm_attention import self_attention
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, check_rope, head_dim, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family

__all__ = ["KEYS", "minimax"]

#: ``MiniMaxConfig``'s shape keys and defaults (configuration_minimax.py 86-117).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": None,
    "tie_word_embeddings": False,
    "num_experts_per_tok": 2,
    "num_local_experts": 8,
    "layer_types": None,
    "block_size": 256,
}
_RESIDUAL = "a scalar weighting the residual branch (MiniMax's alpha/beta factors): no tensor"
#: ``MiniMaxConfig``'s every key at transformers 5.23.0 (configuration_minimax.py): the shape keys with their defaults,
#: the others with why they shape nothing; ``num_experts`` is its ``attribute_map`` alias of ``num_local_experts``.
KEYS = Keys(
    "MiniMaxConfig",
    _DEFAULTS,
    {
        **{
            k: DECODER_INERT[k]
            for k in (
                "max_position_embeddings",
                "rms_norm_eps",
                "attention_dropout",
                "output_router_logits",
                "router_aux_loss_coef",
                *ROPE_KEYS,
            )
        },
        "sliding_window": "the attention mask's window only: MiniMaxCache keeps every token, no tensor",
        "router_jitter_noise": "multiplicative noise on the router's input in training: no tensor",
        **dict.fromkeys(
            (
                "full_attn_alpha_factor",
                "full_attn_beta_factor",
                "linear_attn_alpha_factor",
                "linear_attn_beta_factor",
                "mlp_alpha_factor",
                "mlp_beta_factor",
            ),
            _RESIDUAL,
        ),
    },  # fmt: skip
    {"num_experts": "num_local_experts"},
)
_SOURCE = (
    "transformers/models/minimax/configuration_minimax.py 86-127, modeling_minimax.py 72-172, 392-410, 451-551, "
    "618-631, 650-655, 776-787"
)


def minimax(config: Mapping[str, Any]) -> Module:
    """``MiniMaxForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``MiniMaxConfig``'s defaults.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a pattern transformers would not build, more experts per token
        than experts, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    E, k, b = (
        hf_config.size(c, "num_local_experts"),
        hf_config.size(c, "num_experts_per_tok"),
        hf_config.size(c, "block_size"),
    )
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_local_experts ({E})")
    tie = hf_config.flag(c, "tie_word_embeddings")
    kinds = c["layer_types"]
    if kinds is None:
        kinds = ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(L)]
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != L:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({L}) types, got {kinds!r:.60}")
    if any(kind not in ("linear_attention", "full_attention") for kind in kinds):
        raise ValueError(
            f"config key 'layer_types' must hold 'linear_attention' or 'full_attention', got {kinds!r:.60}"
        )

    def make(kind: str) -> Module:
        if kind == "linear_attention":
            mixer = lightning_attention(D, H, d, b)
        else:
            mixer = self_attention(D, H, KV, d, type="MiniMaxAttention")
        mlp = moe_block(
            router(D, E, name="gate", type="MiniMaxTopKRouter"),
            routed_experts(D, F, E, k, type="MiniMaxExperts"),
            type="MiniMaxSparseMoeBlock",
        )
        norm = lambda n: rms_norm((D,), name=n, type="MiniMaxRMSNorm")  # noqa: E731
        return Module(
            "", "MiniMaxDecoderLayer", children=(mixer, norm("input_layernorm"), norm("post_attention_layernorm"), mlp)
        )

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, num_local_experts=E)
    shape.update(num_experts_per_tok=k, block_size=b, layer_types=list(kinds), tie_word_embeddings=tie)
    shape["_fixed"] = ("num_hidden_layers", "layer_types")
    return causal_lm(
        "MiniMax", vocab=V, hidden=D, layers=layer_list(make, list(kinds), L), tie=tie, config=shape,
        rotary=rope_buffers(d),
    )  # fmt: skip


register_family("minimax", "MiniMaxConfig", "MiniMaxForCausalLM", minimax, _SOURCE, keys=KEYS)
