"""GraniteMoeHybrid (``model_type`` ``granitemoehybrid``, Granite 4.0-H): Mamba-2 or attention layers by
``layer_types``, each followed by a mixture of experts and a shared MLP.

``GraniteMoeHybridForCausalLM`` (``models/granitemoehybrid/modeling_granitemoehybrid.py`` 127-148
``GraniteMoeHybridAttention``, 515-565 ``GraniteMoeHybridMambaLayer``, 744-761
``GraniteMoeHybridMLP``, 770-785 the rotary embedding, 817-893 the router, experts and MoE,
941-963 ``GraniteMoeHybridDecoderLayer``, 1045-1056 ``GraniteMoeHybridModel``, 1202-1212): layer
i is ``mamba`` when ``layer_types[i]`` is ``linear_attention`` (the legacy ``mamba``), else
``self_attn`` (``layers_block_type`` is the same attribute; absent, every layer is Mamba-2,
``configuration_granitemoehybrid.py`` 113-114). Every layer has ``input_layernorm``,
``post_attention_layernorm``, a ``block_sparse_moe`` — ``router`` (E, D) and ``experts``
(``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F), E = ``num_local_experts``, F =
``intermediate_size``), none when E is 0 — and ``shared_mlp``, ``input_linear`` Linear(D, 2·Fs)
and ``output_linear`` Linear(Fs, D), Fs = ``shared_intermediate_size``, always active. The mixer is
:func:`derive.blocks.mamba2.mixer` (E = ``mamba_expand`` · D, H = ``mamba_n_heads``, its gated
norm always, ``mamba_proj_bias`` on both projections). Attention's head width is ``head_dim``
when the config sets it, else D // H; the rotary embedding exists only with
``position_embedding_type`` "rope" (Granite 4.0-H uses none). The multipliers
(``embedding_multiplier``, ``logits_scaling``, ``residual_multiplier``, ``attention_multiplier``)
are floats, no tensor. ``lm_head`` is tied to ``model.embed_tokens`` with ``tie_word_embeddings``.

Its cache: ``conv_states`` (batch, E + 2GN, K) and float32 ``recurrent_states`` (batch, H, P, N)
per Mamba-2 layer (:func:`derive.blocks.mamba2.cache`), keys and values per attention layer.

>>> from derive.tree import count, active
>>> model = granitemoehybrid({})   # GraniteMoeHybridConfig() as transformers builds it
>>> count(model), active(model)
(38601064448, 12629934080)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba2 import chunk_size, decode_flops, kept_chunk, mixer
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, floordiv, kv_heads, layer_list, mamba2_heads, rope_buffers, rotary_dim
from .family import Keys, register_family

__all__ = ["KEYS", "granitemoehybrid"]

#: ``GraniteMoeHybridConfig``'s shape keys and defaults (configuration_granitemoehybrid.py 50-98).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": None,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "shared_intermediate_size": 1024,
    "position_embedding_type": None,
    "layer_types": None,
    "mamba_n_heads": 128,
    "mamba_n_groups": 1,
    "mamba_d_state": 256,
    "mamba_d_head": "auto",
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
}
_SCALAR = "a scalar the forward multiplies (or divides) activations by: no tensor"
#: ``GraniteMoeHybridConfig``'s every key at transformers 5.23.0 (configuration_granitemoehybrid.py): the shape keys
#: with their defaults (``mamba_chunk_size``: the scan's chunk, which a prefill's FLOPs read), the others with why
#: they shape nothing; ``layers_block_type`` is its ``attribute_map`` alias of ``layer_types``.
KEYS = Keys(
    "GraniteMoeHybridConfig",
    {**_DEFAULTS, "mamba_chunk_size": 256},
    {
        **{
            k: DECODER_INERT[k]
            for k in (
                "max_position_embeddings",
                "rms_norm_eps",
                "attention_dropout",
                "output_router_logits",
                "router_aux_loss_coef",
                "time_step_limit",
                *ROPE_KEYS,
            )
        },
        **dict.fromkeys(
            ("embedding_multiplier", "logits_scaling", "residual_multiplier", "attention_multiplier"), _SCALAR
        ),
    },  # fmt: skip
    {"layers_block_type": "layer_types"},
)
_SOURCE = (
    "transformers/models/granitemoehybrid/configuration_granitemoehybrid.py 50-126, "
    "modeling_granitemoehybrid.py 127-148, 515-565, 744-785, 817-893, 941-963, 1045-1056, 1202-1212"
)
_KINDS = {"linear_attention": "linear_attention", "mamba": "linear_attention"}
_KINDS.update({"full_attention": "full_attention", "attention": "full_attention"})


def _kinds(config: Mapping[str, Any], layers: int) -> list[str]:
    """``layer_types`` (or ``layers_block_type``), the legacy names remapped; every layer Mamba-2 when absent."""
    given = {k: config[k] for k in ("layer_types", "layers_block_type") if config.get(k) is not None}
    if len(given) == 2 and given["layer_types"] != given["layers_block_type"]:
        raise ValueError("config keys 'layer_types' and 'layers_block_type' disagree (the same attribute)")
    if not given:
        return ["linear_attention"] * layers
    key, kinds = next(iter(given.items()))
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or any(k not in _KINDS for k in kinds):
        raise ValueError(f"config key {key!r} must list {sorted(_KINDS)}, got {kinds!r:.80}")
    if len(kinds) != layers:
        raise ValueError(f"config key {key!r} has {len(kinds)} entries for num_hidden_layers={layers}")
    return [_KINDS[k] for k in kinds]


def granitemoehybrid(config: Mapping[str, Any]) -> Module:
    """``GraniteMoeHybridForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GraniteMoeHybridConfig``'s defaults. Sizes may be SymPy symbols;
        ``num_hidden_layers`` is a number (the pattern has one entry per layer).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; a layer kind other than Mamba-2 or full attention, a pattern of
        the wrong length; ``mamba_n_heads`` not dividing ``mamba_expand * hidden_size``, a
        ``mamba_d_head`` other than their quotient; more experts per token than experts;
        ``head_dim`` None; a rotary embedding derive does not know; naming the key.
    """
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: layer_types has one entry per layer")
    kinds = _kinds(config, L)
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    if "head_dim" in config and config["head_dim"] is None:
        raise ValueError("config key 'head_dim' is None: GraniteMoeHybridAttention reads it as a size")
    d = floordiv(D, H) if c["head_dim"] is None else hf_config.size(c, "head_dim")
    # num_experts_per_tok 0 builds (no expert routed to: none active), as num_local_experts 0 does (no MoE)
    E, k = hf_config.size(c, "num_local_experts", 0), hf_config.size(c, "num_experts_per_tok", 0)
    if type(E) is int and type(k) is int and E and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_local_experts ({E})")
    Fs = hf_config.size(c, "shared_intermediate_size")
    expand, Hm, G, N, K, P = mamba2_heads(c, D, "GraniteMoeHybridConfig")
    flags = {
        f: hf_config.flag(c, f) for f in ("attention_bias", "mamba_conv_bias", "mamba_proj_bias", "tie_word_embeddings")
    }
    rope = c["position_embedding_type"] == "rope"
    rotated = rotary_dim(config, d, 1.0, plain_reads_factor=False, given=c["head_dim"] is not None)
    rotary = rope_buffers(rotated) if rope else ()  # validate_rope runs whether or not the model rotates

    def make(kind: str) -> Module:
        norm = lambda n: rms_norm((D,), name=n, type="GraniteMoeHybridRMSNorm")  # noqa: E731
        parts: tuple[Module, ...] = (norm("input_layernorm"), norm("post_attention_layernorm"))
        if E != 0:
            parts += (
                moe_block(
                    router(D, E, name="router", type="GraniteMoeHybridTopKRouter"),
                    routed_experts(D, F, E, k, type="GraniteMoeHybridExperts"),
                    name="block_sparse_moe", type="GraniteMoeHybridMoE",
                ),
            )  # fmt: skip
        shared = (linear(D, 2 * Fs, False, name="input_linear"), linear(Fs, D, False, name="output_linear"))
        # beside routed experts, the shared MLP is the shared expert (always active); alone, the MLP
        parts += (
            Module("shared_mlp", "GraniteMoeHybridMLP", children=shared, part="shared experts" if E != 0 else "MLP"),
        )
        if kind == "linear_attention":
            mix = mixer(
                D, N, K, expand, P, ngroups=G, nheads=Hm, chunk=chunk_size(config, "mamba_chunk_size", 256),
                bias=flags["mamba_proj_bias"], conv_bias=flags["mamba_conv_bias"], spelling="transformers",
                name="mamba", type="GraniteMoeHybridMambaLayer", norm_type="GraniteMoeHybridRMSNormGated",
            )  # fmt: skip
        else:
            mix = self_attention(D, H, KV, d, bias=flags["attention_bias"], type="GraniteMoeHybridAttention")
        return Module("", "GraniteMoeHybridDecoderLayer", children=parts + (mix,))

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, layer_types=kinds)
    if c["head_dim"] is not None:
        shape["head_dim"] = d
    shape.update(num_local_experts=E, num_experts_per_tok=k, shared_intermediate_size=Fs)
    shape.update(mamba_n_heads=Hm, mamba_n_groups=G, mamba_d_state=N, mamba_d_conv=K, mamba_expand=expand)
    shape.update(position_embedding_type=c["position_embedding_type"], **flags, _fixed=("num_hidden_layers",))
    shape.update(kept_chunk(config, shape, "mamba_chunk_size"))
    if rope and isinstance(config.get("rope_parameters"), Mapping):
        kind = config["rope_parameters"].get("rope_type", config["rope_parameters"].get("type", "default"))
        shape["rope_parameters"] = {"rope_type": kind}
        if "partial_rotary_factor" in config["rope_parameters"]:
            shape["rope_parameters"]["partial_rotary_factor"] = float(config["rope_parameters"]["partial_rotary_factor"])  # fmt: skip
    return causal_lm(
        "GraniteMoeHybrid", vocab=V, hidden=D, layers=layer_list(make, kinds, L),
        tie=flags["tie_word_embeddings"], config=shape, rotary=rotary,
    )  # fmt: skip


register("GraniteMoeHybridMambaLayer", decode_flops)
register_family(
    "granitemoehybrid", "GraniteMoeHybridConfig", "GraniteMoeHybridForCausalLM", granitemoehybrid, _SOURCE, keys=KEYS
)
