"""ERNIE 4.5 dense (``model_type`` ``ernie4_5``, ERNIE-4.5-0.3B): Llama's layers, every projection biased by
``use_bias``.

``Ernie4_5ForCausalLM`` (``models/ernie4_5/modeling_ernie4_5.py`` 90-100 ``Ernie4_5MLP``, 185-202
``Ernie4_5Attention``, 266-275 ``Ernie4_5DecoderLayer``, 329-340 ``Ernie4_5Model``, 403-413): every
layer ``self_attn`` (q/k/v/o) and ``mlp`` (gate/up/down), each Linear biased when ``use_bias``;
``input_layernorm``, ``post_attention_layernorm``; ``lm_head`` without bias, tied by default. ``head_dim``
128 by default (null: ``hidden_size // num_attention_heads``, ``configuration_ernie4_5.py`` 87). The cache
is ``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(ernie4_5({}))   # Ernie4_5Config(): ERNIE-4.5-0.3B's shape
360748032
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

__all__ = ["KEYS", "ernie4_5"]

#: ``Ernie4_5Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Ernie4_5Config",
    {
        "vocab_size": 103424,
        "hidden_size": 1024,
        "intermediate_size": 3072,
        "num_hidden_layers": 18,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "tie_word_embeddings": True,
        "use_bias": False,
        **CACHE_KEYS,
    },
    {**{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", *ROPE_KEYS)}, **ROPE_INERT},
)
_SOURCE = (
    "transformers/models/ernie4_5/configuration_ernie4_5.py 64-88, modeling_ernie4_5.py 90-100, 185-202, 266-275, "
    "329-340, 403-413"
)


def ernie4_5(config: Mapping[str, Any]) -> Module:
    """``Ernie4_5ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Ernie4_5Config``'s defaults; sizes may be SymPy symbols.

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
    c = {**c, "head_dim": head_width(config, c, D, H, cls="Ernie4_5Attention", null="derived")}
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "use_bias")
    shape = {"use_bias": bias, **cache_shape(c, window, windows)}
    return decoder(
        c, prefix="Ernie4_5", qkv_bias=bias, o_bias=bias, mlp_bias=bias, window=window, windows=windows, shape=shape
    )


register_family("ernie4_5", "Ernie4_5Config", "Ernie4_5ForCausalLM", ernie4_5, _SOURCE, keys=KEYS)
