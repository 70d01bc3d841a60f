"""Bamba (``model_type`` ``bamba``): Mamba-2 layers with full attention at the indices ``attn_layer_indices``
names, every layer followed by a gated MLP.

``BambaForCausalLM`` (``models/bamba/modeling_bamba.py`` 50-86 ``BambaRotaryEmbedding``, 182-207
``BambaAttention``, 583-646 ``BambaMixer``, 803-812 ``BambaMLP``, 840-856 ``BambaDecoderLayer``,
927-941 ``BambaModel``, 1009-1019): layer i is ``self_attn`` when i is in ``attn_layer_indices``,
else ``mamba`` (``configuration_bamba.py`` 96-101 ``layers_block_type``; indices past the last
layer are ignored, as there); each layer's ``feed_forward`` is a gated MLP (biased with
``mlp_bias``), with ``input_layernorm`` and ``pre_ff_layernorm``. The mixer is
:func:`derive.blocks.mamba2.mixer` with E = ``mamba_expand`` · D, H = ``mamba_n_heads``, G =
``mamba_n_groups``, N = ``mamba_d_state``; ``mamba_d_head`` is E / H ("auto" computes it,
``validate_architecture`` refuses any other value). Attention's head width is ``head_dim`` when
the config sets it, else D // H (no multiple required). The rotary embedding rotates
``partial_rotary_factor`` of each head, 0.5 unless ``rope_parameters`` says otherwise
(``configuration_bamba.py`` 84 hardcodes it): its two float32 buffers hold ⌈int(d · factor) / 2⌉.
``lm_head`` untied by default.

Its cache (``DynamicCache``: ``LinearAttentionLayer`` for a Mamba layer, ``DynamicLayer`` for an
attention layer): ``conv_states`` (batch, E + 2GN, K) in the model's dtype and
``recurrent_states`` (batch, H, E / H, N) in float32 (:func:`derive.blocks.mamba2.cache`); keys
and values (batch, KV, tokens, d).

>>> from derive.tree import count
>>> count(bamba({"attn_layer_indices": [9, 18, 27], "mamba_d_state": 128}))   # Bamba-9B's layout
9778138240
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba2 import chunk_size, decode_flops, kept_chunk, mixer
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import (
    ROPE_KEYS,
    causal_lm,
    floordiv,
    kv_heads,
    layer_list,
    mamba2_heads,
    refuse_property,
    rope_buffers,
    rotary_dim,
)  # fmt: skip
from .family import Keys, register_family

__all__ = ["KEYS", "bamba"]

#: ``BambaConfig``'s shape keys and defaults (configuration_bamba.py 45-78).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 128000,
    "tie_word_embeddings": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": None,
    "attn_layer_indices": None,
    "mamba_n_heads": 128,
    "mamba_d_head": "auto",
    "mamba_n_groups": 1,
    "mamba_d_state": 256,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
    "attention_bias": False,
    "mlp_bias": False,
}
#: ``BambaConfig``'s every key at transformers 5.23.0 (configuration_bamba.py): the shape keys with their defaults
#: (``mamba_chunk_size``: the scan's chunk, which a prefill's FLOPs read), the others with why they shape nothing.
#: ``layers_block_type`` (and its ``attribute_map`` alias ``layer_types``) is a property made of
#: ``attn_layer_indices``: transformers refuses a value for it, so does derive.
KEYS = Keys(
    "BambaConfig",
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
                "z_loss_coefficient",
                *ROPE_KEYS,
            )
        },
        "layers_block_type": "a property made of attn_layer_indices (refused when given: no setter)",
    },  # fmt: skip
    {"layer_types": "layers_block_type"},
)
_SOURCE = (
    "transformers/models/bamba/configuration_bamba.py 45-113, modeling_bamba.py 50-86, 182-207, 583-646, "
    "803-812, 840-856, 927-941, 1009-1019"
)


def _int(c: Mapping[str, Any], key: str, minimum: int) -> int:
    value = hf_config.size(c, key, minimum)
    if type(value) is not int:
        raise ValueError(f"config key {key!r} must be a number: it fixes the layer pattern")
    return value


def _indices(value: Any) -> frozenset[int]:
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Sequence) or any(type(i) is not int for i in value):
        raise ValueError(f"config key 'attn_layer_indices' must be a list of layer indices, got {value!r:.60}")
    return frozenset(value)


def bamba(config: Mapping[str, Any]) -> Module:
    """``BambaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``BambaConfig``'s defaults. Sizes may be SymPy symbols; ``num_hidden_layers``
        and ``attn_layer_indices`` are numbers (they fix the pattern).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; ``mamba_n_heads`` not dividing ``mamba_expand * hidden_size``, a
        ``mamba_d_head`` other than their quotient (``validate_architecture``), ``head_dim`` None,
        a rotary embedding derive does not know; naming the key.
    """
    refuse_property(config, "BambaConfig", ("layer_types", "layers_block_type"), "attn_layer_indices")
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = _int(c, "num_hidden_layers", 0)
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    if "head_dim" in config and config["head_dim"] is None:
        raise ValueError("config key 'head_dim' is None: BambaAttention reads it as a size")
    d = floordiv(D, H) if c["head_dim"] is None else hf_config.size(c, "head_dim")
    attends = _indices(c["attn_layer_indices"])
    expand, Hm, G, N, K, P = mamba2_heads(c, D, "BambaConfig")
    flags = {k: hf_config.flag(c, k) for k in ("mamba_conv_bias", "mamba_proj_bias", "attention_bias", "mlp_bias")}
    tie = hf_config.flag(c, "tie_word_embeddings")
    rotary = rotary_dim(config, d, 0.5, given=c["head_dim"] is not None)

    def make(attention: bool) -> Module:
        if attention:
            mix = self_attention(D, H, KV, d, bias=flags["attention_bias"], type="BambaAttention")
        else:
            mix = mixer(
                D, N, K, expand, P, ngroups=G, nheads=Hm, chunk=chunk_size(config, "mamba_chunk_size", 256),
                bias=flags["mamba_proj_bias"], conv_bias=flags["mamba_conv_bias"], spelling="transformers",
                name="mamba", type="BambaMixer",
                norm_type="BambaRMSNormGated",
            )  # fmt: skip
        norm = lambda n: rms_norm((D,), name=n, type="BambaRMSNorm")  # noqa: E731
        ff = gated_mlp(D, F, bias=flags["mlp_bias"], name="feed_forward", type="BambaMLP")
        return Module("", "BambaDecoderLayer", children=(ff, norm("input_layernorm"), norm("pre_ff_layernorm"), mix))

    kinds = [i in attends for i in range(L)]
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, attn_layer_indices=sorted(attends))
    if c["head_dim"] is not None:
        shape["head_dim"] = d
    shape.update(mamba_n_heads=Hm, mamba_n_groups=G, mamba_d_state=N, mamba_d_conv=K, mamba_expand=expand)
    shape.update(**flags, tie_word_embeddings=tie, _fixed=("num_hidden_layers",))
    shape.update(kept_chunk(config, shape, "mamba_chunk_size"))
    if config.get("rope_parameters") is not None:  # the factor only: the rest shapes no tensor
        shape["rope_parameters"] = {
            "partial_rotary_factor": float(config["rope_parameters"].get("partial_rotary_factor", 0.5))
        }
    return causal_lm(
        "Bamba", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="final_layernorm", type="BambaRMSNorm"), rotary=rope_buffers(rotary),
    )  # fmt: skip


register("BambaMixer", decode_flops)
register_family("bamba", "BambaConfig", "BambaForCausalLM", bamba, _SOURCE, keys=KEYS)
