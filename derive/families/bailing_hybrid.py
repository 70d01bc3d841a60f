"""Bailing-hybrid (``model_type`` ``bailing_hybrid``, Ling 3.0): Kimi Delta Attention layers and gated
multi-head latent attention closing every group of ``layer_group_size`` layers, a DeepSeek-style mixture
of experts with shared experts after the first dense layers.

``BailingHybridForCausalLM`` (``models/bailing_hybrid/modeling_bailing_hybrid.py`` 98-114 the rotary
embedding, 146-200 the experts and MLP, 292-330 ``BailingHybridAttention``, 403-413 the forget gate,
651-690 ``BailingHybridDeltaAttention``, 767-778 the router, 808-820 ``BailingHybridMoE``, 832-849
``BailingHybridDecoderLayer``, 932-943 ``BailingHybridModel``, 1010-1020): layer i's ``self_attn`` is
MLA (:func:`derive.layers.lm_attention.latent_attention`, its query full-rank, and ``g_proj`` Linear(D,
H), a sigmoid gate per head) when ``layer_types[i]`` is ``"full_attention"``, else KDA
(:func:`derive.blocks.kda.kda`, spelling ``bailing_hybrid``: H = ``num_attention_heads`` heads of
``head_dim``, conv width ``short_conv_kernel_size``); its ``mlp`` is ``BailingHybridMoE`` —
``experts`` (E = ``num_experts``, k = ``num_experts_per_token``, width ``moe_intermediate_size``),
``gate`` (E, D) with the buffer ``e_score_correction_bias``, ``shared_experts`` (a gated MLP of
``moe_intermediate_size`` · ``num_shared_experts``) — when ``mlp_layer_types[i]`` is ``"sparse"``, else a
gated MLP of ``intermediate_size``. ``lm_head`` is never tied (``_tied_weights_keys = {}``).

The patterns, as ``BailingHybridConfig.__post_init__`` makes them (``configuration_bailing_hybrid.py``
138-160): ``layer_types`` as given, else attention where (i + 1) % ``layer_group_size`` = 0;
``mlp_layer_types`` as given, else the first ``first_k_dense_replace`` dense. ``__post_init__`` sets
``linear_head_dim``, ``linear_num_heads`` and ``linear_conv_kernel_dim`` from ``head_dim``,
``num_attention_heads`` and ``short_conv_kernel_size`` — values the config gives for them win, as
``PretrainedConfig`` sets its extra keys after (a saved config holds all three, and its ``head_dim`` is
``qk_rope_head_dim``) —, then ``head_dim`` to ``qk_rope_head_dim``: the rotary embedding's buffers have
``qk_rope_head_dim`` / 2 entries. KDA's heads are ``linear_num_heads`` × ``linear_head_dim``, its
convolution ``linear_conv_kernel_dim`` wide.
Config keys are read under both of transformers' names (``attribute_map``, lines 81-89).

Its cache: MLA keeps the compressed latent per token (keys (batch, 1, tokens, ``kv_lora_rank``), values
(batch, 1, tokens, ``qk_rope_head_dim``)); KDA keeps ``conv_states`` (model dtype) and float32
``recurrent_states``.

>>> from derive.tree import count, active
>>> model = bailing_hybrid({})   # BailingHybridConfig()
>>> count(model), active(model)
(124414191072, 5505672672)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..blocks.kda import kda
from ..layers.linear import linear
from ..layers.lm_attention import latent_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import deepseek_moe
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import causal_lm, kinds_of, layer_list, rope_buffers, rotary_dim
from .family import Keys, register_family
from .kimi_linear import ALIASES, aliased
from .kimi_linear import INERT as KIMI_INERT

__all__ = ["KEYS", "bailing_hybrid"]

#: ``BailingHybridConfig``'s shape keys (the names ``to_dict`` writes) and defaults (configuration_bailing_hybrid.py 91-136).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 157184,
    "hidden_size": 2560,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 42,
    "num_attention_heads": 32,
    "num_shared_experts": 1,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "qk_nope_head_dim": 128,
    "num_experts_per_token": 8,
    "num_experts": 512,
    "first_k_dense_replace": 2,
    "attention_bias": False,
    "head_dim": 128,
    "short_conv_kernel_size": 4,
    "layer_group_size": 6,
    "layer_types": None,
    "mlp_layer_types": None,
    # not fields: __post_init__ sets them from head_dim, num_attention_heads, short_conv_kernel_size unless given
    "linear_head_dim": None,
    "linear_num_heads": None,
    "linear_conv_kernel_dim": None,
}
#: ``attribute_map`` (configuration_bailing_hybrid.py 81-89): Kimi-Linear's, and the MTP layers' count.
_ALIASES = {**ALIASES, "num_mtp_layers": "num_nextn_predict_layers"}
#: ``BailingHybridConfig``'s every key at transformers 5.23.0 (configuration_bailing_hybrid.py 81-160): the shape keys
#: with their defaults, the others with why they shape nothing, and its ``attribute_map`` (:data:`_ALIASES`, read by
#: :func:`~derive.families.kimi_linear.aliased`).
KEYS = Keys(
    "BailingHybridConfig",
    _DEFAULTS,
    {
        **KIMI_INERT,
        "num_key_value_heads": "read only for the key/value groups of MLA's single latent: no tensor",
        "num_nextn_predict_layers": "the multi-token-prediction layers: no MTP module is built (ignored on load)",
        "mtp_loss_scaling_factor": "a training loss's weight: no tensor",
        "kda_safe_gate": "a clamp of the KDA gate in the forward: no tensor",
        "kda_lower_bound": "the KDA gate's lower bound in the forward: no tensor",
        "tie_word_embeddings": "the class ties nothing (BailingHybridForCausalLM has no tied weights)",
        "qk_head_dim": "derived (qk_nope_head_dim + qk_rope_head_dim) by __post_init__ and saved: read as they are",
    },  # fmt: skip
    _ALIASES,
)
_SOURCE = (
    "transformers/models/bailing_hybrid/configuration_bailing_hybrid.py 81-160, modeling_bailing_hybrid.py 98-114, "
    "146-200, 292-330, 403-413, 651-690, 767-849, 932-943, 1010-1020"
)


def _pattern(c: Mapping[str, Any], key: str, layers: int, made: list[str], allowed: tuple[str, str]) -> list[str]:
    """``c[key]``, or the pattern the config class makes when it is absent, checked."""
    return kinds_of(key, made if c[key] is None else c[key], layers, allowed)


def bailing_hybrid(config: Mapping[str, Any]) -> Module:
    """``BailingHybridForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``BailingHybridConfig``'s defaults; either name of an aliased key.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, aliases that disagree, a pattern transformers would not build,
        more experts per token than experts, a ``pad_token_id`` outside the vocabulary, naming the key.
    """
    c = KEYS.resolve(aliased(config, _ALIASES))
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    group, first = hf_config.size(c, "layer_group_size"), hf_config.size(c, "first_k_dense_replace", 0)
    if any(type(v) is not int for v in (L, group, first)):
        raise ValueError(
            "config keys 'num_hidden_layers', 'layer_group_size' and 'first_k_dense_replace' must be numbers: "
            "they fix the layer pattern"
        )
    H, Fe = hf_config.size(c, "num_attention_heads"), hf_config.size(c, "moe_intermediate_size")
    E, k, shared = (
        hf_config.size(c, "num_experts"),
        hf_config.size(c, "num_experts_per_token"),
        hf_config.size(c, "num_shared_experts", 0),  # 0 builds: shared_experts of width 0, empty
    )
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_token' ({k}) exceeds num_experts ({E})")
    mla = {
        key: hf_config.size(c, key) for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
    }
    d, K, bias = (
        hf_config.size(c, "head_dim"),
        hf_config.size(c, "short_conv_kernel_size"),
        hf_config.flag(c, "attention_bias"),
    )
    # KDA's widths: __post_init__ copies them from head_dim, the heads and the conv width; a value the config
    # gives is set after (PretrainedConfig's extra keys), and wins — a saved config's, whose head_dim is
    # qk_rope_head_dim already
    lin = {"linear_head_dim": d, "linear_num_heads": H, "linear_conv_kernel_dim": K}
    lin.update({key: config[key] for key in lin if config.get(key) is not None})
    d_lin, H_lin, K_lin = (hf_config.size(lin, key) for key in lin)
    pad = config.get("pad_token_id", 156892)  # the embedding's padding_idx
    if type(pad) is int and type(V) is int and not -V <= pad < V:
        raise ValueError(
            f"config key 'pad_token_id' ({pad}) must be below vocab_size ({V}): torch's Embedding refuses it"
        )
    made = ["full_attention" if (i + 1) % group == 0 else "linear_attention" for i in range(L)]
    kinds = _pattern(c, "layer_types", L, made, ("full_attention", "linear_attention"))
    mlps = _pattern(
        c, "mlp_layer_types", L, ["dense" if i < first else "sparse" for i in range(L)], ("dense", "sparse")
    )
    rotated = rotary_dim(
        config, mla["qk_rope_head_dim"], 1.0, plain_reads_factor=False
    )  # its default RoPE reads no factor

    def make(kind: tuple[str, str]) -> Module:
        attn_kind, mlp_kind = kind
        if attn_kind == "full_attention":
            mixer = latent_attention(D, H, **mla, bias=bias, norm_type="BailingHybridRMSNorm", type="BailingHybridAttention")  # fmt: skip
            mixer = mixer.replace(children=mixer.children + (linear(D, H, False, name="g_proj"),))
        else:
            mixer = kda(D, H_lin, d_lin, K_lin, spelling="bailing_hybrid")
        if mlp_kind == "sparse":
            mlp = deepseek_moe(D, Fe, E, k, shared, prefix="BailingHybrid")
        else:
            mlp = gated_mlp(D, F, type="BailingHybridMLP")
        norm = lambda n: rms_norm((D,), name=n, type="BailingHybridRMSNorm")  # noqa: E731
        children = (mixer, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", "BailingHybridDecoderLayer", children=children)

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, moe_intermediate_size=Fe, num_experts=E, num_experts_per_token=k)
    shape.update(num_shared_experts=shared, attention_bias=bias, head_dim=d, short_conv_kernel_size=K, **mla)
    shape.update({key: value for key, value in zip(lin, (d_lin, H_lin, K_lin)) if key in config})
    shape.update(
        layer_types=kinds, mlp_layer_types=mlps, _fixed=("num_hidden_layers", "layer_types", "mlp_layer_types")
    )
    return causal_lm(
        "BailingHybrid", vocab=V, hidden=D, layers=layer_list(make, list(zip(kinds, mlps)), L), tie=False,
        config=shape, rotary=rope_buffers(rotated),
    )  # fmt: skip


register_family("bailing_hybrid", "BailingHybridConfig", "BailingHybridForCausalLM", bailing_hybrid, _SOURCE, keys=KEYS)
