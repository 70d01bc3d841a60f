"""Llama (``model_type`` ``llama``): the plain-attention baseline, and the builder its descendants share.

``LlamaForCausalLM`` (``models/llama/modeling_llama.py`` 152–160 ``LlamaMLP``, 206–235
``LlamaAttention``, 273–282 ``LlamaDecoderLayer``, 336–347 ``LlamaModel``, 410–420): every layer
``self_attn`` (q/k/v/o, biased when ``attention_bias``), ``mlp`` (gate/up/down, biased when
``mlp_bias``), ``input_layernorm`` and ``post_attention_layernorm``; ``model.norm``;
``model.rotary_emb``'s two buffers; ``lm_head``, untied by default. The keys and defaults are
``LlamaConfig``'s (``configuration_llama.py``).

>>> from derive.tree import count
>>> count(llama({}))   # LlamaConfig() as transformers builds it: Llama-2-7B's shape
6738415616
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, check_rope, decoder
from .family import Keys, register_family

__all__ = ["DEFAULTS", "INERT", "KEYS", "llama"]

#: ``LlamaConfig``'s shape keys and their defaults (configuration_llama.py).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": None,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
}
#: Keys of the Llama-like configs that shape no tensor.
INERT = (
    "max_position_embeddings",
    "rms_norm_eps",
    "pretraining_tp",
    "attention_dropout",
    *ROPE_KEYS,
)
#: ``LlamaConfig``'s every key (configuration_llama.py): the shape keys, and the others with why they shape nothing.
KEYS = Keys(
    "LlamaConfig",
    DEFAULTS,
    {
        k: DECODER_INERT[k]
        for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "pretraining_tp", *ROPE_KEYS)
    },
)
_SOURCE = (
    "transformers/models/llama/configuration_llama.py, modeling_llama.py 152-160, 206-235, 273-282, 336-347, 410-420"
)


def llama(config: Mapping[str, Any]) -> Module:
    """``LlamaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``LlamaConfig``'s defaults. Sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, or a value transformers refuses, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    bias, mlp_bias = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "mlp_bias")
    return decoder(
        c, prefix="Llama", qkv_bias=bias, o_bias=bias, mlp_bias=mlp_bias,
        shape={"attention_bias": bias, "mlp_bias": mlp_bias},
    )  # fmt: skip


register_family("llama", "LlamaConfig", "LlamaForCausalLM", llama, _SOURCE, keys=KEYS)
