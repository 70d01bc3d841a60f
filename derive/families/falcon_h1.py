"""Falcon-H1 (``model_type`` ``falcon_h1``): attention and a Mamba-2 mixer side by side in every layer,
then a gated MLP.

``FalconH1ForCausalLM`` (``models/falcon_h1/modeling_falcon_h1.py`` 51-84 ``FalconH1RotaryEmbedding``,
169-194 ``FalconH1Attention``, 588-660 ``FalconH1Mixer``, 826-840 ``FalconH1MLP``, 865-882
``FalconH1DecoderLayer``, 948-982 ``compute_mup_vector``, 1017-1040 ``FalconH1Model``, 1112-1122):
each layer holds ``feed_forward``, ``mamba``, ``self_attn``, ``input_layernorm`` and
``pre_ff_layernorm`` (``layers_block_type`` is ``hybrid`` for all, ``configuration_falcon_h1.py``
131-133). The mixer is :func:`derive.blocks.mamba2.mixer` with E = ``mamba_d_ssm`` (default 1024;
``mamba_expand`` · D when None), H = ``mamba_n_heads``, G = ``mamba_n_groups``, N =
``mamba_d_state``; its gated RMSNorm only with ``mamba_rms_norm``; ``in_proj`` biased with
``mamba_proj_bias``, ``out_proj`` with ``projectors_bias``. Attention's head width is ``head_dim``
when the config sets it, else D // H.

The μP multipliers (``embedding_multiplier``, ``lm_head_multiplier``, ``key_multiplier``,
``attention_in/out_multiplier``, ``ssm_in/out_multiplier``, ``mlp_multipliers``) are Python floats
the forward multiplies by: no tensor. ``ssm_multipliers`` (five, one per slice of ``in_proj``'s
output z, x, B, C, dt) become each mixer's buffer ``mup_vector`` (1, 1, 2E + 2GN + H), float32,
registered non-persistent (line 1040): a buffer, not a parameter. The rotary embedding's default
type ignores ``partial_rotary_factor`` (its buffers hold ⌈d/2⌉); the scaled types rotate
``int(d · factor)``. ``lm_head`` is tied to ``model.embed_tokens`` with ``tie_word_embeddings``.

Its cache (``LinearAttentionAndFullAttentionLayer`` for every layer): keys and values (batch, KV,
tokens, d), and ``conv_states`` (batch, E + 2GN, K) in the model's dtype with ``recurrent_states``
(batch, H, E / H, N) in float32 (:func:`derive.blocks.mamba2.cache`).

>>> from derive.tree import count
>>> count(falcon_h1({}))   # FalconH1Config() as transformers builds it
8514961408
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba2 import chunk_size, decode_flops, kept_chunk, mixer
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, floordiv, kv_heads, layer_list, refuse_property, rope_buffers, rotary_dim
from .family import Keys, register_family

__all__ = ["KEYS", "falcon_h1"]

#: ``FalconH1Config``'s shape keys and defaults (configuration_falcon_h1.py 68-111).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 128000,
    "tie_word_embeddings": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": None,
    "mamba_d_ssm": 1024,
    "mamba_n_heads": 128,
    "mamba_d_head": "auto",
    "mamba_n_groups": 1,
    "mamba_d_state": 256,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
    "mamba_rms_norm": False,
    "projectors_bias": False,
    "attention_bias": False,
    "mlp_bias": False,
    "ssm_multipliers": None,
    "mlp_multipliers": None,
}
_MULTIPLIER = "a scalar the forward multiplies activations by (muP): no tensor"
#: ``FalconH1Config``'s every key at transformers 5.23.0 (configuration_falcon_h1.py): the shape keys with their
#: defaults (``mamba_chunk_size``: the scan's chunk, which a prefill's FLOPs read; ``ssm_multipliers`` and
#: ``mlp_multipliers``, checked for their length), the others with why they shape nothing. ``layers_block_type``
#: (and its ``attribute_map`` alias ``layer_types``) is a property, every layer ``hybrid``: transformers refuses
#: a value for it, so does derive.
KEYS = Keys(
    "FalconH1Config",
    {**_DEFAULTS, "mamba_chunk_size": 256},
    {
        **{
            k: DECODER_INERT[k]
            for k in (
                "rms_norm_eps",
                "num_logits_to_keep",
                "max_position_embeddings",
                "attention_dropout",
                "time_step_limit",
                *ROPE_KEYS,
            )
        },
        "mamba_norm_before_gate": "the gated norm's order in the mixer (modeling_falcon_h1.py 644): no tensor",
        **dict.fromkeys(
            (
                "lm_head_multiplier",
                "embedding_multiplier",
                "key_multiplier",
                "attention_out_multiplier",
                "attention_in_multiplier",
                "ssm_in_multiplier",
                "ssm_out_multiplier",
            ),
            _MULTIPLIER,
        ),
        "layers_block_type": "a property, every layer hybrid (refused when given: no setter)",
    },  # fmt: skip
    {"layer_types": "layers_block_type"},
)
_SOURCE = (
    "transformers/models/falcon_h1/configuration_falcon_h1.py 68-133, modeling_falcon_h1.py 51-84, 169-194, "
    "588-660, 826-882, 948-982, 1017-1040, 1112-1122"
)


def _multipliers(c: Mapping[str, Any], key: str, least: int) -> None:
    """``mlp_multipliers`` unpacks into two names, ``ssm_multipliers`` is indexed 0-4 (lines 836, 974-980)."""
    value = c[key]
    if value is None:
        return
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) < least:
        raise ValueError(f"config key {key!r} must list {least} multipliers, got {value!r:.60}")
    if key == "mlp_multipliers" and len(value) != least:
        raise ValueError(f"config key {key!r} must list exactly {least} multipliers (gate, down), got {value!r:.60}")


def falcon_h1(config: Mapping[str, Any]) -> Module:
    """``FalconH1ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``FalconH1Config``'s defaults. Sizes may be SymPy symbols;
        ``num_hidden_layers`` is a size too (every layer is the same).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; ``mamba_n_heads`` not dividing the mixer's width, a
        ``mamba_d_head`` other than their quotient (``validate_architecture``), multipliers
        transformers cannot unpack, ``head_dim`` None, a rotary embedding derive does not know;
        naming the key.
    """
    refuse_property(config, "FalconH1Config", ("layer_types", "layers_block_type"), "num_hidden_layers")
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    if "head_dim" in config and config["head_dim"] is None:
        raise ValueError("config key 'head_dim' is None: FalconH1Attention reads it as a size")
    d = floordiv(D, H) if c["head_dim"] is None else hf_config.size(c, "head_dim")
    _multipliers(c, "mlp_multipliers", 2)
    _multipliers(c, "ssm_multipliers", 5)
    expand = hf_config.strict_int(c, "mamba_expand", "FalconH1Config")
    E = expand * D if c["mamba_d_ssm"] is None else hf_config.size(c, "mamba_d_ssm")
    Hm, G = hf_config.size(c, "mamba_n_heads"), hf_config.size(c, "mamba_n_groups")
    N, K = hf_config.size(c, "mamba_d_state"), hf_config.size(c, "mamba_d_conv")
    if type(E) is int and type(Hm) is int and E % Hm:
        raise ValueError(f"config key 'mamba_n_heads' ({Hm}) must divide the mixer's width ({E}, mamba_d_ssm)")
    P = floordiv(E, Hm)
    if c["mamba_d_head"] != "auto":
        given = hf_config.size(c, "mamba_d_head")
        if type(given) is int and type(P) is int and given != P:
            raise ValueError(f"config key 'mamba_d_head' ({given}) must be the mixer's width / mamba_n_heads ({P})")
    keys = ("mamba_conv_bias", "mamba_proj_bias", "mamba_rms_norm", "projectors_bias", "attention_bias", "mlp_bias")
    flags = {k: hf_config.flag(c, k) for k in keys}
    tie = hf_config.flag(c, "tie_word_embeddings")
    rope = config.get("rope_parameters")
    kind = rope.get("rope_type", rope.get("type", "default")) if isinstance(rope, Mapping) else "default"
    rotary = rotary_dim(
        config, d, 1.0, plain_reads_factor=False, given=c["head_dim"] is not None
    )  # the default type reads no factor (line 80)

    mamba = mixer(
        D, N, K, expand, P, d_inner=E, ngroups=G, nheads=Hm, chunk=chunk_size(config, "mamba_chunk_size", 256),
        rmsnorm=flags["mamba_rms_norm"],
        bias=flags["mamba_proj_bias"], conv_bias=flags["mamba_conv_bias"], spelling="transformers", name="mamba",
        type="FalconH1Mixer", norm_type="FalconH1RMSNormGated",
    )  # fmt: skip
    out = linear(E, D, flags["projectors_bias"], name="out_proj")
    mup = Param("mup_vector", (1, 1, 2 * E + 2 * G * N + Hm), buffer=True, dtype="float32")
    mamba = mamba.replace(
        params=mamba.params + (mup,), children=tuple(out if m.name == "out_proj" else m for m in mamba.children)
    )
    norm = lambda n: rms_norm((D,), name=n, type="FalconH1RMSNorm")  # noqa: E731
    layer = Module(
        "", "FalconH1DecoderLayer",
        children=(
            gated_mlp(D, F, bias=flags["mlp_bias"], name="feed_forward", type="FalconH1MLP"),
            mamba,
            self_attention(D, H, KV, d, bias=flags["attention_bias"], type="FalconH1Attention"),
            norm("input_layernorm"),
            norm("pre_ff_layernorm"),
        ),
    )  # fmt: skip
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV)
    if c["head_dim"] is not None:
        shape["head_dim"] = d
    shape.update(mamba_d_ssm=E, mamba_n_heads=Hm, mamba_n_groups=G, mamba_d_state=N, mamba_d_conv=K)
    shape.update(**flags, tie_word_embeddings=tie)
    shape.update(kept_chunk(config, shape, "mamba_chunk_size"))
    if isinstance(rope, Mapping):  # what shapes the buffers: the type and the factor
        shape["rope_parameters"] = {"rope_type": kind}
        if "partial_rotary_factor" in rope:
            shape["rope_parameters"]["partial_rotary_factor"] = float(rope["partial_rotary_factor"])
    return causal_lm(
        "FalconH1", vocab=V, hidden=D, layers=layer_list(lambda _: layer, None, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="final_layernorm", type="FalconH1RMSNorm"), rotary=rope_buffers(rotary),
    )  # fmt: skip


register("FalconH1Mixer", decode_flops)
register_family("falcon_h1", "FalconH1Config", "FalconH1ForCausalLM", falcon_h1, _SOURCE, keys=KEYS)
