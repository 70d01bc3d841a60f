"""Ministral 3 (``model_type`` ``ministral3``, the text model of Ministral-3 and Mistral-3): Mistral's
layers, a YaRN RoPE by default.

``Ministral3ForCausalLM`` (``models/ministral3/modeling_ministral3.py``: the classes of
``modeling_ministral.py`` without ``layer_types``; ``Ministral3Attention`` scales its queries by
``llama_4_scaling_beta``, a float of ``rope_parameters``): Llama's tensors without biases, ``head_dim``
128 by default (typed int: a null one is refused by the ``@strict`` class, as is a null
``num_key_value_heads``).
Every layer attends within ``sliding_window`` when it is set (default null) and the cache is
``DynamicCache(config=...)``'s: every layer keeps ``sliding_window - 1`` tokens then — and a
``layer_types`` key, which the class does not define but keeps (with a warning, line 114-117), sets
each layer's cache instead (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(ministral3({}))   # Ministral3Config()
8489553920
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, decoder
from .family import Keys, register_family
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, not_null

__all__ = ["KEYS", "ministral3"]

#: ``Ministral3Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Ministral3Config",
    {
        "vocab_size": 131072,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 34,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "tie_word_embeddings": False,
        "sliding_window": None,
        # not Ministral3Config's: DynamicCache reads them off any config (cache_utils.py 1918-1948)
        "layer_types": None,
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **ROPE_INERT,
    },
)
_SOURCE = "transformers/models/ministral3/configuration_ministral3.py 74-119, modeling_ministral3.py"


def ministral3(config: Mapping[str, Any]) -> Module:
    """``Ministral3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Ministral3Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A bad ``layer_types``, sliding layers without a window, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    not_null(config, ("num_key_value_heads", "head_dim"), "Ministral3Config")
    d = head_width(config, c, D, H, cls="Ministral3Attention", null="derived")
    c = {**c, "head_dim": d}
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape = cache_shape(c, window, windows)
    return decoder(c, prefix="Ministral3", qkv_bias=False, o_bias=False, window=window, windows=windows, shape=shape)


register_family("ministral3", "Ministral3Config", "Ministral3ForCausalLM", ministral3, _SOURCE, keys=KEYS)
