"""OLMo 3 (``model_type`` ``olmo3``): OLMo 2's layers (:func:`derive.families.olmo2.olmo_layer`) with sliding-window
and full layers by ``layer_types``, and a rotary embedding per layer type.

``Olmo3ForCausalLM`` (``models/olmo3/modeling_olmo3.py`` 139-164 ``Olmo3Attention``: q/k/v/o, ``q_norm`` of H·d,
``k_norm`` of KV·d, the layer's window ``sliding_window`` when its type is ``sliding_attention``; 228-236
``Olmo3DecoderLayer``; 269-295 ``Olmo3RotaryEmbedding``: for each type of ``sorted(set(layer_types))``,
``{type}_inv_freq`` and ``{type}_original_inv_freq``, float32 buffers of ⌈d/2⌉; 366-374 ``Olmo3Model``).
``Olmo3Config`` (``configuration_olmo3.py``): ``sliding_window`` 4096, ``layer_types`` by default sliding but every
fourth layer full (``(i + 1) % 4``); ``rope_parameters`` holds one entry per layer type (a legacy ``rope_scaling``
updates the full layers'). No ``head_dim`` key: the attention reads ``getattr(config, "head_dim", ...)`` (null
refused). The cache keeps ``sliding_window - 1`` tokens in the sliding layers
(:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(olmo3({}))   # Olmo3Config()
6888624128
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..tree import Module, Param
from .decoder import check_rope as _check_rope
from .decoder import kv_heads, rope_buffers
from .family import Keys, register_family
from .llama_like import cache_shape, cache_windows, check_rope, head_width, lm, pattern_kinds
from .olmo2 import OLMO_DEFAULTS, OLMO_INERT, olmo_layer

__all__ = ["KEYS", "olmo3"]

#: ``Olmo3Config``'s every key at transformers 5.23.0 (``configuration_olmo3.py``).
KEYS = Keys(
    "Olmo3Config",
    {**OLMO_DEFAULTS, "sliding_window": 4096, "layer_types": None, "attention_chunk_size": None},
    {**OLMO_INERT, "rope_parameters": "the rotary embeddings' frequencies, one entry per layer type: buffers only"},
)
_SOURCE = (
    "transformers/models/olmo3/configuration_olmo3.py, modeling_olmo3.py 139-164, 228-236, 269-295, 366-374, 408-434"
)
_KINDS = ("full_attention", "sliding_attention")


def _check_olmo3_rope(config: Mapping[str, Any]) -> None:
    """Each layer type's entry of ``rope_parameters`` (and ``rope_scaling``, the full layers') a RoPE derive maps."""
    rope = config.get("rope_parameters")
    if rope is not None:
        if not isinstance(rope, Mapping):
            raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
        for kind in _KINDS:
            if rope.get(kind) is not None:
                _check_rope({"rope_parameters": rope[kind]})
        _check_rope({"rope_parameters": {k: v for k, v in rope.items() if k not in _KINDS}})
    check_rope({k: v for k, v in config.items() if k != "rope_parameters"})


def olmo3(config: Mapping[str, Any]) -> Module:
    """``Olmo3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Olmo3Config``'s defaults; sizes may be SymPy symbols (the layer count a number).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A bad ``layer_types``, sliding layers with a null ``sliding_window``, a null ``head_dim``, a RoPE derive
        does not map, naming the key.
    """
    c = KEYS.resolve(config)
    _check_olmo3_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="Olmo3Attention", null="given")
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    bias = hf_config.flag(c, "attention_bias")
    kinds = c["layer_types"]
    if kinds is None:
        kinds = pattern_kinds(L, 4, "num_hidden_layers")
    c = {**c, "layer_types": kinds}
    _, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    assert windows is not None
    rotary: tuple[Param, ...] = ()
    for kind in sorted(set(kinds)):
        rotary += rope_buffers(d, prefix=f"{kind}_")
    shape = {"attention_bias": bias, **cache_shape(c, None, windows, null_window=True)}

    def layer(w: Any) -> Module:
        return olmo_layer("Olmo3", D, H, KV, d, F, bias, w)

    return lm(c, prefix="Olmo3", layer=layer, kinds=windows, head_dim=d, shape=shape, rotary=rotary)


register_family("olmo3", "Olmo3Config", "Olmo3ForCausalLM", olmo3, _SOURCE, keys=KEYS)
