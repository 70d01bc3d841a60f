"""OLMo 2 (``model_type`` ``olmo2``): Llama's projections with QK-norms over all heads and the norms after the
attention and the MLP, none before.

``Olmo2ForCausalLM`` (``models/olmo2/modeling_olmo2.py`` 50-67 ``Olmo2RMSNorm``, 70-113 ``Olmo2RotaryEmbedding``,
188-214 ``Olmo2Attention``: q/k/v/o biased when ``attention_bias``, then ``q_norm`` an RMSNorm of H·d and
``k_norm`` of KV·d, 261-270 ``Olmo2MLP``, 277-285 ``Olmo2DecoderLayer``: ``self_attn``, ``mlp``,
``post_attention_layernorm``, ``post_feedforward_layernorm``; 338-351 ``Olmo2Model``, 412-422: ``lm_head``, untied
by default). ``Olmo2Config`` (``configuration_olmo2.py``) has no ``head_dim``: the attention reads
``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 195; null refused, ``None ** -0.5``
fails). The cache is ``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`).

:func:`olmo_layer` is the decoder layer OLMo 2 and OLMo 3 share (:mod:`derive.families.olmo3`).

>>> from derive.tree import count
>>> count(olmo2({}))   # Olmo2Config()
6888624128
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, attention, cache_shape, cache_windows, check_rope, head_width, lm

__all__ = ["KEYS", "olmo2", "olmo_layer", "OLMO_DEFAULTS", "OLMO_INERT"]

#: The shape keys ``Olmo2Config`` and ``Olmo3Config`` share, with their defaults, and ``head_dim``, which neither
#: class defines and their attention reads.
OLMO_DEFAULTS: dict[str, Any] = {
    "vocab_size": 50304,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": None,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
}
#: The keys they share that shape nothing.
OLMO_INERT: dict[str, str] = {
    **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
    **ROPE_INERT,
}
#: ``Olmo2Config``'s every key at transformers 5.23.0 (``configuration_olmo2.py``).
KEYS = Keys("Olmo2Config", {**OLMO_DEFAULTS, **CACHE_KEYS}, OLMO_INERT)
_SOURCE = (
    "transformers/models/olmo2/configuration_olmo2.py, modeling_olmo2.py 50-113, 188-214, 261-285, 338-351, 412-422"
)


def olmo_layer(prefix: str, D: Dim, H: Dim, KV: Dim, d: Dim, F: Dim, bias: bool, window: Dim | None) -> Module:
    """``{prefix}DecoderLayer``: ``self_attn`` (q/k/v/o, ``q_norm`` of H·d, ``k_norm`` of KV·d), ``mlp``,
    ``post_attention_layernorm`` and ``post_feedforward_layernorm``.

    Parameters
    ----------
    prefix : str
        ``"Olmo2"`` or ``"Olmo3"``.
    D, H, KV, d, F : int or sympy.Expr
    bias : bool
        ``attention_bias``.
    window : int or sympy.Expr, optional
        The layer's cache window.

    Returns
    -------
    derive.tree.Module
    """
    norm = f"{prefix}RMSNorm"
    attn = attention(
        D, H, KV, d, bias=bias, window=window, norms=(("q_norm", H * d), ("k_norm", KV * d)), norm_type=norm,
        type=f"{prefix}Attention",
    )  # fmt: skip
    children = (
        attn,
        gated_mlp(D, F, type=f"{prefix}MLP"),
        rms_norm((D,), name="post_attention_layernorm", type=norm),
        rms_norm((D,), name="post_feedforward_layernorm", type=norm),
    )
    return Module("", f"{prefix}DecoderLayer", children=children)


def olmo2(config: Mapping[str, Any]) -> Module:
    """``Olmo2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Olmo2Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a RoPE derive does not map, a bad ``layer_types``, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="Olmo2Attention", null="given")
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    bias = hf_config.flag(c, "attention_bias")
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape = {"attention_bias": bias, **cache_shape(c, window, windows)}
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window = windows[0]

    def layer(w: Any) -> Module:
        return olmo_layer("Olmo2", D, H, KV, d, F, bias, w if kinds is not None else window)

    return lm(c, prefix="Olmo2", layer=layer, kinds=kinds, head_dim=d, shape=shape)


register_family("olmo2", "Olmo2Config", "Olmo2ForCausalLM", olmo2, _SOURCE, keys=KEYS)
