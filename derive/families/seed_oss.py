"""Seed-OSS (``model_type`` ``seed_oss``, ByteDance Seed-OSS-36B): Llama's layers with biased q/k/v and an
unbiased output.

``SeedOssForCausalLM`` (``models/seed_oss/modeling_seed_oss.py`` 68-78 ``SeedOssMLP``, 156-181
``SeedOssAttention``, 227-236 ``SeedOssDecoderLayer``, 337-348 ``SeedOssModel``, 416-421): every layer
``self_attn`` — q/k/v biased when ``attention_bias`` (default true), o when ``attention_out_bias`` (default
false) —, ``mlp`` (gate/up/down, biased when ``mlp_bias``), ``input_layernorm``,
``post_attention_layernorm``; ``lm_head`` untied by default. ``head_dim`` 128 by default (null:
``hidden_size // num_attention_heads``, ``configuration_seed_oss.py`` 90). ``residual_dropout`` is dropout.
The cache is ``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(seed_oss({}))   # SeedOssConfig(): Seed-OSS-36B's shape
28921040896
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, decoder
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, cache_shape, cache_windows, check_rope, head_width

__all__ = ["KEYS", "seed_oss"]

#: ``SeedOssConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "SeedOssConfig",
    {
        "vocab_size": 155136,
        "hidden_size": 4096,
        "intermediate_size": 27648,
        "num_hidden_layers": 64,
        "num_attention_heads": 80,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "tie_word_embeddings": False,
        "attention_bias": True,
        "attention_out_bias": False,
        "mlp_bias": False,
        **CACHE_KEYS,
    },
    {
        **{
            k: DECODER_INERT[k]
            for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "pretraining_tp", *ROPE_KEYS)
        },
        "residual_dropout": "dropout, off at inference: no tensor",
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/seed_oss/configuration_seed_oss.py 62-91, modeling_seed_oss.py 68-78, 156-181, 227-236, "
    "337-348, 416-421"
)


def seed_oss(config: Mapping[str, Any]) -> Module:
    """``SeedOssForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``SeedOssConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A bad ``layer_types``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    c = {**c, "head_dim": head_width(config, c, D, H, cls="SeedOssAttention", null="derived")}
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    qkv, out, mlp = (hf_config.flag(c, k) for k in ("attention_bias", "attention_out_bias", "mlp_bias"))
    shape = {"attention_bias": qkv, "attention_out_bias": out, "mlp_bias": mlp, **cache_shape(c, window, windows)}
    return decoder(
        c, prefix="SeedOss", qkv_bias=qkv, o_bias=out, mlp_bias=mlp, window=window, windows=windows, shape=shape
    )


register_family("seed_oss", "SeedOssConfig", "SeedOssForCausalLM", seed_oss, _SOURCE, keys=KEYS)
