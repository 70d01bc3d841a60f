"""DeepSeek-V2 (``model_type`` ``deepseek_v2``; DeepSeek-V2-Lite is its release): DeepSeek-V3's layout
(:func:`derive.families.deepseek_v3.mla_decoder`) before its router's correction bias, with an optional
bias on every MLP.

``DeepseekV2ForCausalLM`` (``models/deepseek_v2/modeling_deepseek_v2.py`` 46-83 ``DeepseekV2Experts``,
85-116 ``DeepseekV2TopkRouter`` (its ``weight`` (E, D) only: no ``e_score_correction_bias``), 119-136
``DeepseekV2Moe``, 139-153 ``DeepseekV2MLP`` (biased with ``mlp_bias``, shared experts too), 156-220 the
norm and the rotary embedding, 290-346 ``DeepseekV2Attention`` (MLA: ``q_proj`` when ``q_lora_rank`` is None,
else ``q_a_proj``/``q_a_layernorm``/``q_b_proj``), 421-430 ``DeepseekV2DecoderLayer`` (MoE from layer
``first_k_dense_replace``, default 0), 494-504, 570-580). ``topk_method`` (``"greedy"`` or
``"group_limited_greedy"`` over ``n_group`` / ``topk_group``) chooses experts: no tensor.
``num_experts_per_tok`` defaults to None: transformers builds the model, but its router cannot run
(``torch.topk`` needs a k), so every routed expert is then counted active and no FLOPs are derived.
``validate_architecture`` (``configuration_deepseek_v2.py`` 118-124) refuses a ``hidden_size`` that is not a
multiple of ``num_attention_heads``. ``__post_init__`` sets ``head_dim`` to ``qk_rope_head_dim`` (the rotary
embedding's width). The release's ``moe_layer_freq``, ``scoring_func``, ``aux_loss_alpha`` and ``seq_aux``
are not keys of the class (its remote code's): noted.

Its cache: the compressed latent per layer (keys (batch, 1, tokens, ``kv_lora_rank``), values (batch, 1,
tokens, ``qk_rope_head_dim``): ``past_key_values.update(k_nope, k_pe)``, line 395).

>>> from derive.tree import count
>>> count(deepseek_v2({}))   # DeepseekV2Config(): every routed expert active (num_experts_per_tok None)
38612307968
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import latent_attention
from ..tree import Module
from .deepseek_v3 import MLA_INERT, dense_first, mla_decoder, mla_sizes
from .family import Keys, register_family

__all__ = ["KEYS", "deepseek_v2"]

#: ``DeepseekV2Config``'s shape keys and their defaults (configuration_deepseek_v2.py 61-105).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 102400,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
    "first_k_dense_replace": 0,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "n_routed_experts": 64,
    "n_shared_experts": 2,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "num_experts_per_tok": None,
    "moe_intermediate_size": 1407,
}
#: ``DeepseekV2Config``'s every key (configuration_deepseek_v2.py 61-105; ``attribute_map`` 87-89).
KEYS = Keys(
    "DeepseekV2Config",
    DEFAULTS,
    {**MLA_INERT, "topk_method": "the router's rule (greedy or group-limited greedy): no tensor"},
    aliases={"num_experts": "n_routed_experts"},
)
_SOURCE = (
    "transformers/models/deepseek_v2/configuration_deepseek_v2.py 61-124, modeling_deepseek_v2.py 46-220, 290-430, "
    "494-504, 570-580"
)


def deepseek_v2(config: Mapping[str, Any]) -> Module:
    """``DeepseekV2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``DeepseekV2Config``'s defaults (``num_experts`` is read as
        ``n_routed_experts``). Sizes may be SymPy symbols (not the layer count nor ``first_k_dense_replace``).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A value transformers refuses (``hidden_size`` not a multiple of ``num_attention_heads``) or derive
        cannot map, naming the key.
    """
    c = KEYS.resolve(config)
    s = mla_sizes(c, "DeepseekV2Config")
    D, H = s["D"], s["H"]
    if type(D) is int and type(H) is int and D % H:
        raise ValueError(
            f"config key 'hidden_size' ({D}) must be a multiple of num_attention_heads ({H}): "
            "DeepseekV2Config.validate_architecture refuses it"
        )
    bias, mlp_bias = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "mlp_bias")

    def attention() -> Module:
        return latent_attention(
            D, H, **s["mla"], q_lora_rank=s["q_rank"], bias=bias, norm_type="DeepseekV2RMSNorm",
            type="DeepseekV2Attention",
        )  # fmt: skip

    return mla_decoder(
        config, s, prefix="DeepseekV2", kinds=dense_first(s["first"], s["L"]), attention=attention,
        mlp_bias=mlp_bias, correction_bias=False, moe_type="DeepseekV2Moe",
        shape={"attention_bias": bias, "mlp_bias": mlp_bias},
    )  # fmt: skip


register_family("deepseek_v2", "DeepseekV2Config", "DeepseekV2ForCausalLM", deepseek_v2, _SOURCE, keys=KEYS)
