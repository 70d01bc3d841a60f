"""EXAONE 4.0 (``model_type`` ``exaone4``): sliding-window and full-attention layers by a pattern, QK-norms, and
norms after the attention and the MLP instead of before.

``Exaone4ForCausalLM`` (``models/exaone4/modeling_exaone4.py`` 186-213 ``Exaone4Attention``, 260-270
``Exaone4MLP``, 276-285 ``Exaone4DecoderLayer``, 337-348 ``Exaone4Model``, ``Exaone4ForCausalLM``): every
layer ``self_attn`` — q/k/v/o without biases, then ``q_norm`` and ``k_norm`` (RMSNorms of ``head_dim``) —,
``mlp`` (gate/up/down), ``post_attention_layernorm`` and ``post_feedforward_layernorm`` (no input norm);
``lm_head`` untied by default. ``layer_types`` is read as given, else made as ``Exaone4Config`` makes it
(``configuration_exaone4.py`` 100-111): layer i full when (i + 1) is a multiple of ``sliding_window_pattern``
(default 4), sliding otherwise; a null ``sliding_window`` makes the pattern 0, and ``(i + 1) % 0`` fails
(refused naming the key), as does a string pattern. The full layers use no RoPE (a mask and a code path:
the buffers are there). ``Exaone4Config`` has no ``head_dim``; the attention reads
``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 194).

>>> from derive.tree import count
>>> count(exaone4({}))   # Exaone4Config()
9429069824
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, lm, not_null, pattern_kinds

__all__ = ["KEYS", "exaone4"]

#: ``Exaone4Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Exaone4Config",
    {
        "vocab_size": 102400,
        "hidden_size": 4096,
        "intermediate_size": 16384,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "tie_word_embeddings": False,
        "sliding_window": 4096,
        "sliding_window_pattern": 4,
        "layer_types": None,
        # not Exaone4Config's: read by its attention with getattr (modeling_exaone4.py 194), and by DynamicCache
        "head_dim": None,
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/exaone4/configuration_exaone4.py 79-111, modeling_exaone4.py 186-213, 260-285, 337-348, 431"
)
_KINDS = ("full_attention", "sliding_attention")


def exaone4(config: Mapping[str, Any]) -> Module:
    """``Exaone4ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Exaone4Config``'s defaults; sizes may be SymPy symbols (the layer count a number).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``sliding_window`` without ``layer_types``, a pattern that is not a nonzero int, a bad
        ``layer_types``, a null ``head_dim``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    not_null(config, ("num_key_value_heads",), "Exaone4Config")
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="Exaone4Attention", null="given")
    L = hf_config.size(c, "num_hidden_layers", 0)
    kinds = c["layer_types"]
    if kinds is None:
        every = 0 if c["sliding_window"] is None else c["sliding_window_pattern"]
        kinds = pattern_kinds(L, every, "sliding_window_pattern" if every else "sliding_window")
    c = {**c, "layer_types": kinds}
    _, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    assert windows is not None
    norm = "Exaone4RMSNorm"

    def layer(w: Any) -> Module:
        attn = self_attention(D, H, KV, d, qk_norm=True, window=w, norm_type=norm, type="Exaone4Attention")
        children = (
            attn,
            gated_mlp(D, F, type="Exaone4MLP"),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
            rms_norm((D,), name="post_feedforward_layernorm", type=norm),
        )
        return Module("", "Exaone4DecoderLayer", children=children)

    return lm(
        c,
        prefix="Exaone4",
        layer=layer,
        kinds=windows,
        head_dim=d,
        shape=cache_shape(c, None, windows, null_window=True),
    )


register_family("exaone4", "Exaone4Config", "Exaone4ForCausalLM", exaone4, _SOURCE, keys=KEYS)
