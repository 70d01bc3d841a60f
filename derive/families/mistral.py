"""Mistral (``model_type`` ``mistral``): Llama's layers, grouped-query attention, one sliding window.

``MistralForCausalLM`` (``models/mistral/modeling_mistral.py``, ``configuration_mistral.py``):
Llama's tensors without biases; ``sliding_window`` (default 4096; null: none) makes every layer's
cache a ``DynamicSlidingWindowLayer`` keeping ``sliding_window - 1`` tokens
(``cache_utils.py`` ``get_layer_types_and_kwargs``: a config without ``layer_types`` takes each
layer's ``sliding_window``).

>>> from derive.tree import count
>>> count(mistral({}))   # MistralConfig(): Mistral-7B's shape
7241732096
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, check_rope, decoder
from .family import Keys, register_family
from .llama import DEFAULTS

__all__ = ["MISTRAL_DEFAULTS", "MISTRAL_INERT", "CACHE_REFUSED", "KEYS", "mistral", "refuse_cache_keys"]

#: ``MistralConfig``'s shape keys and defaults (configuration_mistral.py).
MISTRAL_DEFAULTS: dict[str, Any] = {
    **{k: v for k, v in DEFAULTS.items() if k not in ("attention_bias", "mlp_bias")},
    "intermediate_size": 14336,
    "num_key_value_heads": 8,
    "sliding_window": 4096,
}
#: ``MistralConfig``'s keys that shape nothing, with why (configuration_mistral.py).
MISTRAL_INERT: dict[str, str] = {
    k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)
}
#: Keys no Mistral-like config class defines that ``DynamicCache(config=...)`` reads off any config
#: (``cache_utils.py`` 1918-1928: ``layer_types``, else a layer's ``attention_chunk_size`` where it has no
#: ``sliding_window``): the cache would keep other layers than the attention reads, so they are refused.
CACHE_REFUSED: dict[str, Any] = {"layer_types": None, "attention_chunk_size": None}
#: ``MistralConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why.
KEYS = Keys("MistralConfig", {**MISTRAL_DEFAULTS, **CACHE_REFUSED}, MISTRAL_INERT)
_SOURCE = "transformers/models/mistral/configuration_mistral.py, modeling_mistral.py"


def mistral(config: Mapping[str, Any]) -> Module:
    """``MistralForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``MistralConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A cache key derive cannot map (``layer_types``, which Mistral's config does not define), naming it.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    window = None if c["sliding_window"] is None else hf_config.size(c, "sliding_window")
    refuse_cache_keys(c, "MistralConfig", window)
    return decoder(c, prefix="Mistral", qkv_bias=False, o_bias=False, window=window, shape={"sliding_window": window})


def refuse_cache_keys(c: Mapping[str, Any], cls: str, window: Any) -> None:
    """Refuse a cache key of :data:`CACHE_REFUSED` the config sets where transformers' cache would read it.

    Parameters
    ----------
    c : mapping
        The resolved config.
    cls : str
        The config class, named in the refusal.
    window : int, sympy.Expr or None
        The resolved ``sliding_window`` (a layer with one never reads ``attention_chunk_size``).

    Raises
    ------
    ValueError
        ``layer_types`` set, or ``attention_chunk_size`` set without a window, naming the key.
    """
    if c["layer_types"] is not None:
        raise ValueError(
            f"config key 'layer_types' is not one of {cls}'s: its attention never reads it, but transformers' "
            "cache does (cache_utils.py get_layer_types_and_kwargs) and keeps other layers: not derived"
        )
    if c["attention_chunk_size"] is not None and window is None:
        raise ValueError(
            f"config key 'attention_chunk_size' is not one of {cls}'s: its attention never reads it, but "
            "transformers' cache makes chunked layers of it where sliding_window is null: not derived"
        )


register_family("mistral", "MistralConfig", "MistralForCausalLM", mistral, _SOURCE, keys=KEYS)
