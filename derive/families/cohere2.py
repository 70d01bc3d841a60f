"""Cohere 2 (``model_type`` ``cohere2``, Command R7B and Command A): attention and the MLP side by side on one
LayerNorm without bias, sliding-window layers by a pattern, a tied head.

``Cohere2ForCausalLM`` (``models/cohere2/modeling_cohere2.py`` 88-102 ``Cohere2LayerNorm``, 178-204
``Cohere2Attention``, 248-258 ``Cohere2MLP``, 264-270 ``Cohere2DecoderLayer``, 334-345 ``Cohere2Model``,
412-423): every layer one ``input_layernorm`` (a LayerNorm of ``weight`` only) feeding ``self_attn``
(q/k/v/o, biased when ``attention_bias``) and ``mlp`` (gate/up/down) in parallel, their sum added to the
residual; ``model.norm`` the same LayerNorm; ``lm_head`` tied by default. ``logit_scale`` is a float the
logits are multiplied by: no tensor. ``layer_types`` is read as given, else made from the legacy
``sliding_window_pattern`` (default 4, ``configuration_cohere2.py`` 96-102): layer i full when (i + 1) is a
multiple of it. The sliding layers keep ``sliding_window - 1`` tokens; the full ones use no RoPE (the
buffers are there). ``head_dim`` is set to ``hidden_size // num_attention_heads`` by ``__post_init__`` — a
``head_dim`` key the config gives replaces it (line 93 runs before ``super().__post_init__`` sets the keyword
arguments, line 104). A null
``sliding_window`` builds but its forward fails (``create_sliding_window_causal_mask``, line 387): derive
answers what it builds.

>>> from derive.tree import count
>>> count(cohere2({}))   # Cohere2Config()
34980831232
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import layer_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, lm, pattern_kinds

__all__ = ["KEYS", "cohere2"]

#: ``Cohere2Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Cohere2Config",
    {
        "vocab_size": 256000,
        "hidden_size": 8192,
        "intermediate_size": 22528,
        "num_hidden_layers": 40,
        "num_attention_heads": 64,
        "num_key_value_heads": None,
        "tie_word_embeddings": True,
        "attention_bias": False,
        "sliding_window": 4096,
        "layer_types": None,
        # not Cohere2Config's fields: popped by its __post_init__ (line 98), set by it (line 93), read by DynamicCache
        "sliding_window_pattern": 4,
        "head_dim": None,
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "layer_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "logit_scale": "a float the logits are multiplied by (modeling_cohere2.py 423, 473): no tensor",
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/cohere2/configuration_cohere2.py 66-104, modeling_cohere2.py 88-102, 178-204, 248-270, "
    "334-345, 412-423"
)
_KINDS = ("full_attention", "sliding_attention")


def cohere2(config: Mapping[str, Any]) -> Module:
    """``Cohere2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Cohere2Config``'s defaults; sizes may be SymPy symbols (the layer count a number).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A pattern that is not a nonzero int, a bad ``layer_types``, sliding layers without a window, a null
        ``head_dim``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="Cohere2Attention", null="given")
    L = hf_config.size(c, "num_hidden_layers", 0)
    kinds = c["layer_types"]
    if kinds is None:
        kinds = pattern_kinds(L, c["sliding_window_pattern"], "sliding_window_pattern")
    c = {**c, "layer_types": kinds}
    _, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    bias = hf_config.flag(c, "attention_bias")
    norm = lambda name: layer_norm((D,), bias=False, name=name, type="Cohere2LayerNorm")  # noqa: E731

    def layer(w: Any) -> Module:
        attn = self_attention(D, H, KV, d, bias=bias, window=w, type="Cohere2Attention")
        children = (attn, gated_mlp(D, F, type="Cohere2MLP"), norm("input_layernorm"))
        return Module("", "Cohere2DecoderLayer", children=children)

    shape = {"attention_bias": bias, **cache_shape(c, None, windows, null_window=True)}
    return lm(c, prefix="Cohere2", layer=layer, kinds=windows, head_dim=d, shape=shape, norm=norm("norm"))


register_family("cohere2", "Cohere2Config", "Cohere2ForCausalLM", cohere2, _SOURCE, keys=KEYS)
