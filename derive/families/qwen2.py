"""Qwen2 (``model_type`` ``qwen2``): Llama's layers with q/k/v biases, and sliding windows by layer.

``Qwen2ForCausalLM`` (``models/qwen2/modeling_qwen2.py`` ``Qwen2Attention``: q/k/v biased,
``o_proj`` not; ``configuration_qwen2.py`` ``__post_init__``): ``sliding_window`` counts only when
``use_sliding_window``; ``layer_types`` (default: ``sliding_attention`` for layers from
``max_window_layers`` on, when there is a window) says which layers' caches keep
``sliding_window - 1`` tokens.

>>> from derive.tree import count
>>> count(qwen2({"vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
...              "num_attention_heads": 14, "num_key_value_heads": 2, "tie_word_embeddings": True}))  # Qwen2-0.5B
494032768
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module
from .decoder import check_rope, decoder, layer_types
from .family import register_family
from .llama import DEFAULTS, INERT

__all__ = ["QWEN2_DEFAULTS", "qwen2"]

#: ``Qwen2Config``'s shape keys and defaults (configuration_qwen2.py).
QWEN2_DEFAULTS: dict[str, Any] = {
    **{k: v for k, v in DEFAULTS.items() if k not in ("attention_bias", "mlp_bias", "head_dim")},
    "vocab_size": 151936,
    "intermediate_size": 22016,
    "num_key_value_heads": 32,
    "use_sliding_window": False,
    "sliding_window": 4096,
    "max_window_layers": 28,
    "layer_types": None,
}
_SOURCE = "transformers/models/qwen2/configuration_qwen2.py, modeling_qwen2.py"
_KINDS = ("full_attention", "sliding_attention")


def qwen2(config: Mapping[str, Any]) -> Module:
    """``Qwen2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen2Config``'s defaults; sizes may be SymPy symbols (not with sliding windows).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a ``layer_types`` of the wrong length or kind, a sliding layer
        without a window, naming the key.
    """
    c = hf_config.resolve(config, cls="Qwen2Config", defaults=QWEN2_DEFAULTS, inert=INERT)
    check_rope(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    use = hf_config.flag(c, "use_sliding_window")
    window = hf_config.size(c, "sliding_window") if use and c["sliding_window"] is not None else None
    kinds = layer_types(c, L, _KINDS)
    if kinds is None and window is not None:
        first = hf_config.size(c, "max_window_layers", 0)
        kinds = ["sliding_attention" if i >= first else "full_attention" for i in range(L)]
    shape: dict[str, Any] = {"use_sliding_window": use}
    if kinds is None:
        return decoder(c, prefix="Qwen2", qkv_bias=True, o_bias=False, shape=shape)
    if "sliding_attention" in kinds and window is None:
        raise ValueError(
            "config key 'layer_types' has sliding_attention layers but no sliding_window (use_sliding_window)"
        )
    shape.update(sliding_window=window, layer_types=tuple(kinds), _fixed=("num_hidden_layers",))
    windows = [window if k == "sliding_attention" else None for k in kinds]
    return decoder(c, prefix="Qwen2", qkv_bias=True, o_bias=False, windows=windows, shape=shape)


register_family("qwen2", "Qwen2Config", "Qwen2ForCausalLM", qwen2, _SOURCE)
