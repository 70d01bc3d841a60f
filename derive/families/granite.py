"""Granite (``model_type`` ``granite``, IBM Granite 3.x dense): Llama's layers with four scalar multipliers.

``GraniteForCausalLM`` (``models/granite/modeling_granite.py`` 114-139 ``GraniteAttention``, 202-211
``GraniteMLP``, 218-227 ``GraniteDecoderLayer``, 349-362 ``GraniteModel``, 427-437): every layer
``self_attn`` (q/k/v/o, all biased when ``attention_bias``), ``mlp`` (gate/up/down, biased when
``mlp_bias``), ``input_layernorm``, ``post_attention_layernorm``; ``model.norm``, ``rotary_emb``'s two
buffers, ``lm_head`` (tied with ``tie_word_embeddings``). ``embedding_multiplier``, ``logits_scaling``,
``residual_multiplier`` and ``attention_multiplier`` are Python floats the forward multiplies by
(``modeling_granite.py`` 123, 227, 362, 486): no tensor. ``GraniteConfig`` has no ``head_dim``, but the
attention reads ``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 121), so a
config's ``head_dim`` sets the head width (null: refused, transformers fails on it). The cache is
``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(granite({}))   # GraniteConfig(): Llama-2-7B's shape
6738415616
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

__all__ = ["KEYS", "granite", "MULTIPLIERS"]

#: The four multipliers of Granite's classes (``configuration_granite.py`` 83-86), with why no tensor depends on them.
MULTIPLIERS: dict[str, str] = {
    "embedding_multiplier": "a float the embeddings are multiplied by (modeling_granite.py 362): no tensor",
    "logits_scaling": "a float the logits are divided by (line 486): no tensor",
    "residual_multiplier": "a float each residual branch is multiplied by (line 227): no tensor",
    "attention_multiplier": "the attention's softmax scale, a float (line 123): no tensor",
}
#: ``GraniteConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "GraniteConfig",
    {
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "mlp_bias": False,
        # not GraniteConfig's, read by its attention with getattr (modeling_granite.py 121)
        "head_dim": None,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **MULTIPLIERS,
        **ROPE_INERT,
    },
)
_SOURCE = "transformers/models/granite/configuration_granite.py, modeling_granite.py 114-139, 202-227, 349-362, 427-437"


def granite(config: Mapping[str, Any]) -> Module:
    """``GraniteForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GraniteConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a bad ``layer_types``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    head_width(config, c, D, H, cls="GraniteAttention", null="given")
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias, mlp_bias = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "mlp_bias")
    shape = {"attention_bias": bias, "mlp_bias": mlp_bias, **cache_shape(c, window, windows)}
    return decoder(
        c, prefix="Granite", qkv_bias=bias, o_bias=bias, mlp_bias=mlp_bias, window=window, windows=windows,
        shape=shape,
    )  # fmt: skip


register_family("granite", "GraniteConfig", "GraniteForCausalLM", granite, _SOURCE, keys=KEYS)
