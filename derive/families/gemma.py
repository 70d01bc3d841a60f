"""Gemma, Gemma 2 and Gemma 3's text model (``model_type`` ``gemma``, ``gemma2``, ``gemma3_text``): a scaled
embedding and Gemma's RMSNorm (``1 + weight``, zeros at init); Gemma 2 and 3 alternate sliding-window and
full-attention layers with four norms per layer.

``GemmaForCausalLM`` (``models/gemma/modeling_gemma.py`` 49-60 ``GemmaTextScaledWordEmbedding``, 63-80
``GemmaRMSNorm``, 83-91 ``GemmaMLP``, 217-241 ``GemmaAttention``, 284-293 ``GemmaDecoderLayer``, 356-368
``GemmaModel``, 432-442): Llama's layers — ``self_attn`` (q/k/v/o, biased when ``attention_bias``),
``mlp`` (gate/up/down), ``input_layernorm``, ``post_attention_layernorm`` — under an embedding that keeps the
float32 buffer ``embed_scale`` (√D, not persistent); ``head_dim`` 256 by default (read with
``getattr(config, "head_dim", ...)``, line 224, typed ``int``: null refused); ``lm_head`` tied by default.
Its cache is ``DynamicCache(config=...)``'s (line 389; :func:`derive.families.llama_like.cache_windows`).

``Gemma2ForCausalLM`` (``models/gemma2/modeling_gemma2.py`` 210–240 ``Gemma2Attention``, 283–294
``Gemma2DecoderLayer``, 330–338 ``Gemma2TextScaledWordEmbedding``) and ``Gemma3ForCausalLM``
(``models/gemma3/modeling_gemma3.py``: ``Gemma3Attention`` adds ``q_norm``/``k_norm`` of
``head_dim``; ``Gemma3RotaryEmbedding`` keeps a pair of buffers per layer type,
``{type}_inv_freq`` and ``{type}_original_inv_freq``): every layer ``self_attn`` (q/k/v/o biased
when ``attention_bias``), ``mlp`` (gate/up/down), ``input_layernorm``,
``post_attention_layernorm``, ``pre_feedforward_layernorm``, ``post_feedforward_layernorm``; the
embedding keeps the float32 buffer ``embed_scale`` (√D); ``lm_head`` tied by default. ``layer_types``
(Gemma 2 default: sliding, full, sliding, ...; Gemma 3: five sliding then one full,
``sliding_window_pattern`` = 6) says which layers' caches keep ``sliding_window - 1`` tokens.

>>> from derive.tree import count
>>> count(gemma2({}))   # Gemma2Config(): Gemma-2-2B's shape
2614341888
>>> count(gemma({}))    # GemmaConfig(): Gemma-7B's shape
8537680896
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, check_rope, kv_heads, layer_list, layer_types, rope_buffers
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, cache_shape, cache_windows, head_width, lm, not_null
from .llama_like import check_rope as llama_check_rope

__all__ = ["KEYS", "GEMMA2_KEYS", "GEMMA3_KEYS", "gemma", "gemma2", "gemma3_text", "scaled_embedding"]

#: ``GemmaConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "GemmaConfig",
    {
        "vocab_size": 256000,
        "hidden_size": 3072,
        "intermediate_size": 24576,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 256,
        "tie_word_embeddings": True,
        "attention_bias": False,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "use_bidirectional_attention": "the mask's causality (checked: only False or None is derived)",
        **ROPE_INERT,
    },
)

_DEFAULTS: dict[str, Any] = {
    "vocab_size": 256000,
    "hidden_size": 2304,
    "intermediate_size": 9216,
    "num_hidden_layers": 26,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "tie_word_embeddings": True,
    "attention_bias": False,
    "sliding_window": 4096,
    "layer_types": None,
}
#: The keys Gemma 2's and Gemma 3's text configs share that shape nothing, with why (configuration_gemma2.py,
#: configuration_gemma3.py; the modeling files' lines).
_GEMMA2_INERT: dict[str, str] = {
    **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
    "hidden_activation": "the MLP's activation (ACT2FN[config.hidden_activation]): no tensor",
    "query_pre_attn_scalar": "the attention's scaling, query_pre_attn_scalar ** -0.5: no tensor",
    "final_logit_softcapping": "a tanh cap on the logits (logits / cap, tanh, * cap): no tensor",
    "attn_logit_softcapping": "a tanh cap on the attention scores: no tensor",
}
#: ``Gemma2Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why.
#: ``use_bidirectional_attention`` is mapped: only False (or None) is derived, True refused.
GEMMA2_KEYS = Keys(
    "Gemma2Config",
    {**_DEFAULTS, "use_bidirectional_attention": None},
    _GEMMA2_INERT,
)
#: ``Gemma3TextConfig``'s every key at transformers 5.23.0; ``sliding_window_pattern`` is no field but a keyword its
#: ``__post_init__`` reads (``kwargs.get("sliding_window_pattern", 6)``) for the layer pattern where ``layer_types``
#: is null: mapped too. (``_sliding_window_pattern`` is not read: the class sets it from that keyword.)
GEMMA3_KEYS = Keys(
    "Gemma3TextConfig",
    {**_DEFAULTS, "vocab_size": 262208, "use_bidirectional_attention": False, "sliding_window_pattern": 6},
    {
        **_GEMMA2_INERT,
        "rope_local_base_freq": "the legacy rope_theta of the sliding layers, which the class moves into "
        "rope_parameters['sliding_attention']: buffers only",
    },
)
_KINDS = ("full_attention", "sliding_attention")
_SOURCE = {
    "gemma": "transformers/models/gemma/configuration_gemma.py 33-97, modeling_gemma.py 49-91, 217-293, 356-368, 432-442",
    "gemma2": "transformers/models/gemma2/configuration_gemma2.py, modeling_gemma2.py 210-240, 283-294, 330-338",
    "gemma3_text": "transformers/models/gemma3/configuration_gemma3.py, modeling_gemma3.py",
}


def _embedding_flops(module: Module, tokens: Dim) -> Any:
    return 0  # a lookup, scaled: no matrix product


def _check_rope(config: Mapping[str, Any]) -> None:
    rope = config.get("rope_parameters")
    if isinstance(rope, Mapping) and set(rope) <= set(_KINDS) and rope:
        for kind in rope.values():
            check_rope({"rope_parameters": kind})
        check_rope({k: v for k, v in config.items() if k != "rope_parameters"})
    else:
        check_rope(config)


def scaled_embedding(prefix: str, vocab: Dim, hidden: Dim) -> Module:
    """``embed_tokens``: ``{prefix}TextScaledWordEmbedding``, an Embedding and its float32 buffer ``embed_scale``
    (a scalar, √D; ``modeling_gemma.py`` 49-60), its lookup costing no matrix product.

    Parameters
    ----------
    prefix : str
        The class prefix (``"Gemma"``, ``"Gemma3n"``).
    vocab, hidden : int or sympy.Expr
        V and D.

    Returns
    -------
    derive.tree.Module
    """
    embed_type = f"{prefix}TextScaledWordEmbedding"
    register(embed_type, _embedding_flops)
    return Module(
        "embed_tokens",
        embed_type,
        (Param("weight", (vocab, hidden)), Param("embed_scale", (), buffer=True, dtype="float32")),
        part="embeddings",
    )


def gemma(config: Mapping[str, Any]) -> Module:
    """``GemmaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GemmaConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null key ``@strict`` types ``int``, a bad ``layer_types``, a bidirectional model, a RoPE derive does
        not map, naming the key.
    """
    c = KEYS.resolve(config)
    not_null(config, ("num_key_value_heads", "head_dim"), "GemmaConfig")
    llama_check_rope(config)
    if config.get("use_bidirectional_attention"):
        raise ValueError("config key 'use_bidirectional_attention': a bidirectional Gemma is not derived")
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="GemmaAttention", null="refused")
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "attention_bias")
    norm = lambda n: rms_norm((D,), name=n, type="GemmaRMSNorm")  # noqa: E731

    def layer(w: Any) -> Module:
        attn = self_attention(
            D, H, KV, d, bias=bias, window=w if windows is not None else window, type="GemmaAttention"
        )
        children = (attn, gated_mlp(D, F, type="GemmaMLP"), norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", "GemmaDecoderLayer", children=children)

    shape = {"attention_bias": bias, **cache_shape(c, window, windows)}
    embed = scaled_embedding("Gemma", hf_config.size(c, "vocab_size"), D)
    return lm(c, prefix="Gemma", layer=layer, kinds=windows, head_dim=d, shape=shape, embed=embed)


def _gemma(config: Mapping[str, Any], version: int) -> Module:
    prefix = f"Gemma{version}"
    c = (GEMMA3_KEYS if version == 3 else GEMMA2_KEYS).resolve(config)
    _check_rope(config)
    if config.get("use_bidirectional_attention"):
        raise ValueError("config key 'use_bidirectional_attention': a bidirectional Gemma is not derived")
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L, H = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), hf_config.size(c, "head_dim")
    bias, tie = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "tie_word_embeddings")
    window = None if c["sliding_window"] is None else hf_config.size(c, "sliding_window")
    kinds = layer_types(c, L, _KINDS)
    if kinds is None:
        if type(L) is not int:
            raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
        # Gemma3TextConfig reads the keyword sliding_window_pattern, never _sliding_window_pattern (which it sets)
        every = 2 if version == 2 else c["sliding_window_pattern"]
        if type(every) is not int or every < 1:
            raise ValueError(f"config key 'sliding_window_pattern' must be an int >= 1, got {every!r}")
        kinds = ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(L)]
    if "sliding_attention" in kinds and window is None:
        raise ValueError("config key 'sliding_window' is null but layer_types has sliding_attention layers")

    def make(kind: str) -> Module:
        w = window if kind == "sliding_attention" else None
        attn = self_attention(D, H, KV, d, bias=bias, qk_norm=version == 3, window=w,
                              norm_type=f"{prefix}RMSNorm", type=f"{prefix}Attention")  # fmt: skip
        norm = lambda n: rms_norm((D,), name=n, type=f"{prefix}RMSNorm")  # noqa: E731
        names = (
            "input_layernorm",
            "post_attention_layernorm",
            "pre_feedforward_layernorm",
            "post_feedforward_layernorm",
        )
        children = (attn, gated_mlp(D, F, type=f"{prefix}MLP"), *(norm(n) for n in names))
        return Module("", f"{prefix}DecoderLayer", children=children)

    embed = scaled_embedding(prefix, V, D)
    if version == 2:
        rotary = rope_buffers(d)
    else:
        rotary = tuple(p for kind in sorted(set(kinds)) for p in rope_buffers(d, f"{kind}_"))
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, attention_bias=bias)
    shape.update(
        sliding_window=window, layer_types=tuple(kinds), tie_word_embeddings=tie, _fixed=("num_hidden_layers",)
    )
    return causal_lm(
        prefix, vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape, embed=embed,
        rotary=rotary, base=f"{prefix}TextModel" if version == 3 else None,
    )  # fmt: skip


def gemma2(config: Mapping[str, Any]) -> Module:
    """``Gemma2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Gemma2Config``'s defaults; sizes may be SymPy symbols (the layer count is a number).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a bad ``layer_types``, a bidirectional model, naming the key.
    """
    return _gemma(config, 2)


def gemma3_text(config: Mapping[str, Any]) -> Module:
    """``Gemma3ForCausalLM`` (``model_type`` ``gemma3_text``) as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Gemma3TextConfig``'s defaults.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a bad ``layer_types`` or ``sliding_window_pattern``, a bidirectional
        model, naming the key.
    """
    return _gemma(config, 3)


register_family("gemma", "GemmaConfig", "GemmaForCausalLM", gemma, _SOURCE["gemma"], keys=KEYS)
register_family("gemma2", "Gemma2Config", "Gemma2ForCausalLM", gemma2, _SOURCE["gemma2"], keys=GEMMA2_KEYS)
register_family(
    "gemma3_text", "Gemma3TextConfig", "Gemma3ForCausalLM", gemma3_text, _SOURCE["gemma3_text"], "gemma3",
    keys=GEMMA3_KEYS,
)  # fmt: skip
