"""Kimi-Linear (``model_type`` ``kimi_linear``): Kimi Delta Attention layers and multi-head latent attention
layers, a mixture of experts with shared experts after the first dense layers.

``KimiLinearForCausalLM`` (``models/kimi_linear/modeling_kimi_linear.py`` 98-150 the experts and MLP,
190-313 ``KimiLinearAttention`` (MLA), 569-606 ``KimiLinearDeltaAttention``, 718-782 the router and
``KimiLinearMoE``, 783-800 ``KimiLinearDecoderLayer``, 877-886 ``KimiLinearModel``, 952-963): layer i's
``self_attn`` is MLA (:func:`derive.layers.lm_attention.latent_attention`) when ``layer_types[i]`` is
``"full_attention"``, else KDA (:func:`derive.blocks.kda.kda`); its ``mlp`` is ``KimiLinearMoE`` —
``experts`` (E = ``num_experts``, k = ``num_experts_per_token``, width ``moe_intermediate_size``),
``gate`` (E, D) with the buffer ``e_score_correction_bias``, ``shared_experts`` (a gated MLP of
``moe_intermediate_size`` · ``num_shared_experts``) — when ``mlp_layer_types[i]`` is ``"sparse"``,
else a gated MLP of ``intermediate_size``. No rotary embedding; ``lm_head`` never tied (the class
declares no tied weights). The patterns, as ``KimiLinearConfig.__post_init__`` makes them
(``configuration_kimi_linear.py`` 112-150): ``layer_types`` as given, else from the checkpoint's
``linear_attn_config`` (``full_attn_layers``/``kda_layers``, 1-indexed), else attention at every
fourth layer from layer 4 (i > 0, i % 4 == 0); ``mlp_layer_types`` as given, else the first
``first_k_dense_replace`` (default 1) dense. ``linear_attn_config``'s ``head_dim``, ``num_heads``
and ``short_conv_kernel_size`` override the ``linear_*`` keys.

Config keys are read under both of transformers' names (``attribute_map``): ``num_local_experts`` is
``num_experts``, ``num_experts_per_tok`` is ``num_experts_per_token``, ``n_shared_experts`` is
``num_shared_experts``.

Its cache: MLA keeps the compressed latent per token (keys (batch, 1, tokens, ``kv_lora_rank``),
values (batch, 1, tokens, ``qk_rope_head_dim``)); KDA keeps ``conv_states`` (model dtype) and
float32 ``recurrent_states``.

>>> from derive.tree import count, active
>>> model = kimi_linear({})   # KimiLinearConfig()
>>> count(model), active(model)
(49133074464, 3494852640)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..blocks.kda import kda
from ..layers.lm_attention import latent_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import deepseek_moe
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, kinds_of, layer_list
from .family import Keys, register_family

__all__ = ["KEYS", "INERT", "kimi_linear", "ALIASES", "aliased"]

#: ``KimiLinearConfig``'s shape keys (transformers' own names, as ``to_dict`` writes them) and defaults.
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 163840,
    "hidden_size": 2304,
    "intermediate_size": 9216,
    "moe_intermediate_size": 1024,
    "num_hidden_layers": 27,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "num_shared_experts": 1,
    "kv_lora_rank": 512,
    "q_lora_rank": None,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "qk_nope_head_dim": 128,
    "num_experts_per_token": 8,
    "num_experts": 256,
    "attention_bias": False,
    "tie_word_embeddings": False,
    "mlp_layer_types": None,
    "layer_types": None,
    "linear_head_dim": 128,
    "linear_num_heads": 32,
    "linear_conv_kernel_dim": 4,
    "linear_attn_config": None,
    "first_k_dense_replace": 1,
}
#: ``attribute_map`` (configuration_kimi_linear.py 67-74): the alias and the attribute it sets.
ALIASES = {
    "num_local_experts": "num_experts",
    "num_experts_per_tok": "num_experts_per_token",
    "n_shared_experts": "num_shared_experts",
    "n_group": "num_expert_group",
    "norm_topk_prob": "moe_renormalize",
    "max_position_embeddings": "model_max_length",
}
#: The inert keys Kimi-Linear's class shares with Bailing-hybrid's (built on this module's attribute names, :data:`ALIASES`):
#: the decoders' own and the routing keys, each with why it shapes nothing.
INERT: dict[str, str] = {
    **{
        k: DECODER_INERT[k]
        for k in ("rms_norm_eps", "attention_dropout", "pretraining_tp", "output_router_logits", *ROPE_KEYS)
    },
    "model_max_length": "the longest context (max_position_embeddings' attribute): no tensor",
    "moe_renormalize": "whether the chosen experts' weights are renormalised (norm_topk_prob's attribute): no tensor",
    "num_expert_group": "the groups of group-limited routing (n_group's attribute): which experts, no tensor",
    "topk_group": "the groups a token's experts are chosen from: no tensor",
    "routed_scaling_factor": "a scalar on the routed experts' output: no tensor",
}
#: ``KimiLinearConfig``'s every key at transformers 5.23.0 (configuration_kimi_linear.py): the shape keys with their
#: defaults, the others with why they shape nothing, and its ``attribute_map`` (:data:`ALIASES`, read by
#: :func:`aliased`: the fields ``num_local_experts`` ... set ``num_experts`` ...).
KEYS = Keys(
    "KimiLinearConfig",
    _DEFAULTS,
    {
        **INERT,
        "qk_head_dim": "derived (qk_nope_head_dim + qk_rope_head_dim) and saved: read as they are",
        "head_dim": "derived and saved with the config: read as qk_rope_head_dim",
    },  # fmt: skip
    ALIASES,
)
_SOURCE = (
    "transformers/models/kimi_linear/configuration_kimi_linear.py 67-150, modeling_kimi_linear.py 98-150, 190-313, "
    "569-606, 718-800, 877-886, 952-963"
)


def aliased(config: Mapping[str, Any], aliases: Mapping[str, str] = ALIASES) -> dict[str, Any]:
    """The config with each alias of ``attribute_map`` written under the attribute it sets.

    Parameters
    ----------
    config : mapping
    aliases : mapping of str -> str
        Alias -> attribute (Kimi-Linear's and Bailing-hybrid's DeepSeek-style names).

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        An alias and its attribute both given, with different values.
    """
    out = dict(config)
    for alias, key in aliases.items():
        if alias in out:
            value = out.pop(alias)
            if key in out and out[key] != value:
                raise ValueError(f"config keys {alias!r} and {key!r} disagree (transformers reads them as one)")
            out[key] = value
    return out


def _patterns(c: Mapping[str, Any], layers: int, linear: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    kinds = c["layer_types"]
    if kinds is None:
        if "full_attn_layers" in linear and "kda_layers" in linear:
            kinds = [None] * layers
            for key, kind in (("full_attn_layers", "full_attention"), ("kda_layers", "linear_attention")):
                for index in linear[key]:
                    if type(index) is not int or not 1 <= index <= layers:
                        raise ValueError(f"config key 'linear_attn_config': {key} holds {index!r} (1 to {layers})")
                    kinds[index - 1] = kind
        else:
            kinds = ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(layers)]
    mlps = c["mlp_layer_types"]
    if mlps is None:
        first = c["first_k_dense_replace"]
        if type(first) is not int:
            raise ValueError(f"config key 'first_k_dense_replace' must be an int, got {first!r}")
        mlps = ["dense" if i < first else "sparse" for i in range(layers)]
    return (
        kinds_of("layer_types", kinds, layers, ("full_attention", "linear_attention")),
        kinds_of("mlp_layer_types", mlps, layers, ("dense", "sparse")),
    )


def kimi_linear(config: Mapping[str, Any]) -> Module:
    """``KimiLinearForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``KimiLinearConfig``'s defaults; either name of an aliased key.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, aliases that disagree, a pattern transformers would not build,
        more experts per token than experts, naming the key.
    """
    c = KEYS.resolve(aliased(config))
    linear = c["linear_attn_config"] or {}
    if not isinstance(linear, Mapping):
        raise ValueError(f"config key 'linear_attn_config' must be an object, got {linear!r:.60}")
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
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
    q_rank = None if c["q_lora_rank"] is None else hf_config.size(c, "q_lora_rank")
    sizes = {**c, **{key: linear[name] for key, name in (("linear_head_dim", "head_dim"), ("linear_num_heads", "num_heads"),
             ("linear_conv_kernel_dim", "short_conv_kernel_size")) if name in linear}}  # fmt: skip
    hd, hl, K = (
        hf_config.size(sizes, key) for key in ("linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim")
    )
    bias = hf_config.flag(c, "attention_bias")
    pad = config.get("pad_token_id", 163839)  # the embedding's padding_idx (default 163839)
    if type(pad) is int and type(V) is int and not -V <= pad < V:
        raise ValueError(
            f"config key 'pad_token_id' ({pad}) must be below vocab_size ({V}): torch's Embedding refuses it"
        )
    kinds, mlps = _patterns(c, L, linear)

    def make(kind: tuple[str, str]) -> Module:
        attn_kind, mlp_kind = kind
        if attn_kind == "full_attention":
            mixer = latent_attention(
                D, H, **mla, q_lora_rank=q_rank, bias=bias, norm_type="KimiLinearRMSNorm", type="KimiLinearAttention"
            )
        else:
            mixer = kda(D, hl, hd, K, spelling="kimi_linear")
        if mlp_kind == "sparse":
            mlp = deepseek_moe(D, Fe, E, k, shared, prefix="KimiLinear")
        else:
            mlp = gated_mlp(D, F, type="KimiLinearMLP")
        norm = lambda n: rms_norm((D,), name=n, type="KimiLinearRMSNorm")  # noqa: E731
        children = (mixer, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", "KimiLinearDecoderLayer", children=children)

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, moe_intermediate_size=Fe, num_experts=E, num_experts_per_token=k)
    shape.update(num_shared_experts=shared, q_lora_rank=q_rank, attention_bias=bias, **mla)
    shape.update(linear_head_dim=hd, linear_num_heads=hl, linear_conv_kernel_dim=K, layer_types=kinds)
    shape.update(mlp_layer_types=mlps, _fixed=("num_hidden_layers", "layer_types", "mlp_layer_types"))
    return causal_lm(
        "KimiLinear", vocab=V, hidden=D, layers=layer_list(make, list(zip(kinds, mlps)), L), tie=False, config=shape
    )


register_family("kimi_linear", "KimiLinearConfig", "KimiLinearForCausalLM", kimi_linear, _SOURCE, keys=KEYS)
