"""StarCoder2 (``model_type`` ``starcoder2``): LayerNorms with bias, every projection biased, an ungated
``c_fc``/``c_proj`` MLP, one sliding window.

``Starcoder2ForCausalLM`` (``models/starcoder2/modeling_starcoder2.py`` 52-59 ``Starcoder2MLP``, 140-156
``Starcoder2Attention``, 204-211 ``Starcoder2DecoderLayer``, 312-325 ``Starcoder2Model``, 396-401): every layer
``self_attn`` (q/k/v/o, biased when ``use_bias``), ``mlp`` (``c_fc`` Linear(D, F) and ``c_proj`` Linear(F, D),
biased when ``use_bias``), ``input_layernorm`` and ``post_attention_layernorm`` (``nn.LayerNorm``: weight and
bias); ``model.norm`` a LayerNorm; ``lm_head`` tied by default. With a ``sliding_window`` (default null)
every layer attends within it and keeps ``sliding_window - 1`` tokens (``DynamicCache(config=...)``,
:func:`derive.families.llama_like.cache_windows`). The head width is ``head_dim`` when a config gives one
(the class has none: ``getattr(config, "head_dim", None) or hidden_size // num_attention_heads``, line 147).

>>> from derive.tree import count
>>> count(starcoder2({}))   # Starcoder2Config(): StarCoder2-3B's shape
3030371328
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.norm import layer_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, lm, not_null

__all__ = ["KEYS", "starcoder2"]

#: ``Starcoder2Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Starcoder2Config",
    {
        "vocab_size": 49152,
        "hidden_size": 3072,
        "intermediate_size": 12288,
        "num_hidden_layers": 30,
        "num_attention_heads": 24,
        "num_key_value_heads": 2,
        "tie_word_embeddings": True,
        "use_bias": True,
        **CACHE_KEYS,
        # not Starcoder2Config's: read by its attention and rotary embedding with getattr (lines 147, 293)
        "head_dim": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "attention_dropout", *ROPE_KEYS)},
        "norm_epsilon": "an epsilon of the norms",
        "residual_dropout": "dropout, off at inference: no tensor",
        "embedding_dropout": "dropout, off at inference: no tensor",
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/starcoder2/configuration_starcoder2.py 61-84, modeling_starcoder2.py 52-59, 140-156, "
    "204-211, 312-325, 396-401"
)


def starcoder2(config: Mapping[str, Any]) -> Module:
    """``Starcoder2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Starcoder2Config``'s defaults; sizes may be SymPy symbols.

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
    not_null(config, ("num_key_value_heads",), "Starcoder2Config")
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="Starcoder2Attention", null="derived")
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "use_bias")
    norm = lambda name: layer_norm((D,), name=name)  # noqa: E731

    def layer(w: Any) -> Module:
        attn = self_attention(D, H, KV, d, bias=bias, window=w if windows is not None else window,
                              type="Starcoder2Attention")  # fmt: skip
        mlp = Module(
            "mlp", "Starcoder2MLP", children=(linear(D, F, bias, name="c_fc"), linear(F, D, bias, name="c_proj")),
            part="MLP",
        )  # fmt: skip
        children = (attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", "Starcoder2DecoderLayer", children=children)

    shape = {"use_bias": bias, **cache_shape(c, window, windows)}
    return lm(c, prefix="Starcoder2", layer=layer, kinds=windows, head_dim=d, shape=shape, norm=norm("norm"))


register_family("starcoder2", "Starcoder2Config", "Starcoder2ForCausalLM", starcoder2, _SOURCE, keys=KEYS)
