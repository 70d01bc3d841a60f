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
from .decoder import check_rope, decoder
from .family import register_family
from .llama import DEFAULTS, INERT

__all__ = ["MISTRAL_DEFAULTS", "mistral"]

#: ``MistralConfig``'s shape keys and defaults (configuration_mistral.py).
MISTRAL_DEFAULTS: dict[str, Any] = {
    **{k: v for k, v in DEFAULTS.items() if k not in ("attention_bias", "mlp_bias")},
    "intermediate_size": 14336,
    "num_key_value_heads": 8,
    "sliding_window": 4096,
}
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
        A key derive cannot map (``layer_types``, which Mistral's config does not define), naming it.
    """
    c = hf_config.resolve(config, cls="MistralConfig", defaults=MISTRAL_DEFAULTS, inert=INERT)
    check_rope(config)
    window = None if c["sliding_window"] is None else hf_config.size(c, "sliding_window")
    return decoder(c, prefix="Mistral", qkv_bias=False, o_bias=False, window=window, shape={"sliding_window": window})


register_family("mistral", "MistralConfig", "MistralForCausalLM", mistral, _SOURCE)
