"""Ministral (``model_type`` ``ministral``, Ministral-8B): Mistral's layers with sliding and full
attention by ``layer_types``.

``MinistralForCausalLM`` (``models/ministral/modeling_ministral.py`` 49-62 ``MinistralMLP``, 136-154
``MinistralAttention``, 219-228 ``MinistralDecoderLayer``, 329-340 ``MinistralModel``, 410-421): Llama's
tensors without biases. ``layer_types`` (``configuration_ministral.py`` 86-95: absent, every layer
``sliding_attention`` when ``sliding_window`` is set, else ``full_attention``) says which layers attend
within ``sliding_window`` and keep ``sliding_window - 1`` tokens in the cache. ``head_dim`` defaults to
null and the attention reads it as is (``getattr(config, "head_dim", ...)``, line 144): a null head width
fails in transformers (``None ** -0.5``), so ``MinistralConfig()`` itself does not build; derive refuses it
naming the key. A null ``sliding_window`` builds (every layer full) but its forward fails
(``create_sliding_window_causal_mask`` is made for every config, line 386): derive answers what it builds.

>>> from derive.tree import count
>>> count(ministral({"head_dim": 128}))   # MinistralConfig(head_dim=128): Mistral-7B's shape
7241732096
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, decoder
from .family import Keys, register_family
from .llama_like import ROPE_INERT, cache_windows, check_rope, head_width, not_null

__all__ = ["KEYS", "ministral"]

#: ``MinistralConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "MinistralConfig",
    {
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": None,
        "tie_word_embeddings": False,
        "sliding_window": 4096,
        "layer_types": None,
        # not MinistralConfig's: DynamicCache reads it off any config (cache_utils.py 1925)
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/ministral/configuration_ministral.py 66-97, modeling_ministral.py 49-62, 136-154, 219-228, "
    "329-340, 410-421"
)
_KINDS = ("full_attention", "sliding_attention")


def ministral(config: Mapping[str, Any]) -> Module:
    """``MinistralForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``MinistralConfig``'s defaults; sizes may be SymPy symbols (the layer count a
        number with ``layer_types``).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a ``layer_types`` of another length or kind, sliding layers without a
        window, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    head_width(config, c, D, H, cls="MinistralAttention", null="refused")
    L = hf_config.size(c, "num_hidden_layers", 0)
    not_null(config, ("num_key_value_heads",), "MinistralConfig")
    window = None if c["sliding_window"] is None else hf_config.size(c, "sliding_window")
    shape: dict[str, Any] = {"sliding_window": window}
    if c["layer_types"] is None:  # every layer alike (configuration_ministral.py 92-95)
        return decoder(c, prefix="Ministral", qkv_bias=False, o_bias=False, window=window, shape=shape)
    _, windows = cache_windows(c, L, types=c["layer_types"], allowed=_KINDS)
    shape.update(layer_types=tuple(c["layer_types"]), _fixed=("num_hidden_layers",))
    return decoder(c, prefix="Ministral", qkv_bias=False, o_bias=False, windows=windows, shape=shape)


register_family("ministral", "MinistralConfig", "MinistralForCausalLM", ministral, _SOURCE, keys=KEYS)
