"""SmolLM3 (``model_type`` ``smollm3``): Llama's layers, every ``no_rope_layer_interval``-th without RoPE (NoPE),
and optional sliding windows by ``layer_types``.

``SmolLM3ForCausalLM`` (``models/smollm3/modeling_smollm3.py`` 48-86 ``SmolLM3RotaryEmbedding``, 166-197
``SmolLM3Attention``: q/k/v/o biased when ``attention_bias``, ``use_rope = config.no_rope_layers[layer_idx]``, the
layer's ``sliding_window`` when ``use_sliding_window`` and its type is ``sliding_attention``; 263-272 ``SmolLM3MLP``
biased when ``mlp_bias``; 279-288 ``SmolLM3DecoderLayer``; 342-355 ``SmolLM3Model``; 427-437: ``lm_head``, tied by
default). A NoPE layer skips only the rotation: no tensor, no matmul, the same cache. ``SmolLM3Config``
(``configuration_smollm3.py`` ``__post_init__``): ``no_rope_layers`` defaults to
``int((i + 1) % no_rope_layer_interval != 0)`` per layer; ``layer_types`` to ``sliding_attention`` for the NoPE
layers when ``use_sliding_window`` and ``sliding_window`` are set, else ``full_attention``. No ``head_dim`` key:
the attention reads ``getattr(config, "head_dim", ...)`` (null refused). The cache is
``DynamicCache(config=...)``'s, from ``layer_types`` (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(smollm3({}))   # SmolLM3Config(): SmolLM3-3B's shape
3075098624
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, decoder
from .family import Keys, register_family
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width

__all__ = ["KEYS", "smollm3"]

#: ``SmolLM3Config``'s every key at transformers 5.23.0 (``configuration_smollm3.py``), and ``head_dim``, which the
#: class does not define and the attention reads.
KEYS = Keys(
    "SmolLM3Config",
    {
        "vocab_size": 128256,
        "hidden_size": 2048,
        "intermediate_size": 11008,
        "num_hidden_layers": 36,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": None,
        "tie_word_embeddings": True,
        "attention_bias": False,
        "mlp_bias": False,
        "use_sliding_window": False,
        "sliding_window": None,
        "layer_types": None,
        "attention_chunk_size": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **ROPE_INERT,
        "no_rope_layers": "which layers skip the rotation (NoPE): no tensor, no matmul (checked: one per layer)",
        "no_rope_layer_interval": "the NoPE pattern when no_rope_layers is absent: no tensor (checked: a nonzero int)",
    },
)
_SOURCE = (
    "transformers/models/smollm3/configuration_smollm3.py, modeling_smollm3.py 48-86, 166-197, 263-288, 342-355, "
    "395-411, 427-437"
)
_KINDS = ("full_attention", "sliding_attention")


def _rope_layers(config: Mapping[str, Any], layers: Any) -> list[Any] | None:
    """``no_rope_layers`` as the class makes it (None: a symbolic layer count), checked."""
    given = config.get("no_rope_layers")
    if given is not None:
        if isinstance(given, str) or not isinstance(given, list):
            raise ValueError(f"config key 'no_rope_layers' must be a list of 0/1 per layer, got {given!r:.60}")
        if type(layers) is int and len(given) < layers:
            raise ValueError(
                f"config key 'no_rope_layers' has {len(given)} entries for num_hidden_layers={layers} "
                f"(transformers indexes it by layer: IndexError)"
            )
        return given
    every = config.get("no_rope_layer_interval", 4)
    if isinstance(every, bool) or type(every) is not int or every == 0:
        raise ValueError(f"config key 'no_rope_layer_interval' must be a nonzero int, got {every!r}")
    if type(layers) is not int:
        return None
    return [int((i + 1) % every != 0) for i in range(layers)]


def smollm3(config: Mapping[str, Any]) -> Module:
    """``SmolLM3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``SmolLM3Config``'s defaults; sizes may be SymPy symbols (the layer count a number where
        the windows go by layer).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a bad ``layer_types`` or ``no_rope_layers``, sliding layers without a window, a RoPE
        derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    c = {**c, "head_dim": head_width(config, c, D, H, cls="SmolLM3Attention", null="given")}
    L = hf_config.size(c, "num_hidden_layers", 0)
    rope = _rope_layers(config, L)
    sliding = hf_config.flag(c, "use_sliding_window") and c["sliding_window"] is not None
    kinds = c["layer_types"]
    if kinds is None and sliding:
        if rope is None:
            raise ValueError("config key 'num_hidden_layers' must be a number: use_sliding_window makes layer_types")
        kinds = ["full_attention" if r else "sliding_attention" for r in rope]
    if kinds is None:
        window, windows = None, None
    else:
        c = {**c, "layer_types": kinds}
        window, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    qkv, mlp = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "mlp_bias")
    shape = {"attention_bias": qkv, "mlp_bias": mlp, **cache_shape(c, window, windows)}
    return decoder(
        c, prefix="SmolLM3", qkv_bias=qkv, o_bias=qkv, mlp_bias=mlp, window=window, windows=windows, shape=shape
    )


register_family("smollm3", "SmolLM3Config", "SmolLM3ForCausalLM", smollm3, _SOURCE, keys=KEYS)
