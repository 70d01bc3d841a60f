"""LFM2 (``model_type`` ``lfm2``): Liquid AI's hybrid of short gated convolutions and grouped-query attention.

``Lfm2ForCausalLM`` (``models/lfm2/modeling_lfm2.py`` 111-125 ``Lfm2MLP``, 202-217
``Lfm2Attention``, 316-338 ``Lfm2ShortConv``, 384-395 ``Lfm2DecoderLayer``, 449-462 ``Lfm2Model``,
529-540): layer i is an attention layer (``self_attn``: ``q_proj``, ``k_proj``, ``v_proj``,
``out_proj``, no bias, and RMSNorms ``q_layernorm``/``k_layernorm`` of the head width) when
``layer_types[i]`` is ``"full_attention"``, else a short convolution (``conv``,
:func:`derive.blocks.short_conv.short_conv`); every layer has ``feed_forward`` (``w1``, ``w3``
D → F, ``w2`` F → D, no bias), ``operator_norm`` and ``ffn_norm``. The model has no final norm:
``embedding_norm`` (registered last) normalises the output; ``lm_head`` is tied to the embedding
by default. ``layer_types`` is read as given, else made from ``full_attn_idxs`` (default: every
layer attends) as ``Lfm2Config.__post_init__`` makes it (``configuration_lfm2.py`` 81-92).

F, the feed-forward width (``Lfm2MLP``): ``intermediate_size``; with ``block_auto_adjust_ff_dim``
``int(2F/3)``, then ``int(block_ffn_dim_multiplier · F)`` rounded up to a multiple of
``block_multiple_of``.

Its cache: a ``DynamicLayer`` per attention layer (keys, values (batch, KV, tokens, d)) and a
``LinearAttentionLayer`` per convolution layer (``conv_states`` (batch, D, L)), all in the model's dtype.

>>> from derive.tree import count
>>> count(lfm2({"hidden_size": 2048, "intermediate_size": 12288, "num_hidden_layers": 16,
...             "full_attn_idxs": [2, 5, 8, 10, 12, 14], "num_key_value_heads": 8}))   # LFM2-1.2B's shape
1170340608
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.short_conv import short_conv
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, causal_lm, check_rope, head_dim, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family

__all__ = ["KEYS", "INERT", "ALIASES", "lfm2", "ffn_width", "attention"]

#: ``Lfm2Config``'s shape keys and defaults (configuration_lfm2.py 58-79).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 65536,
    "hidden_size": 2560,
    "intermediate_size": 12288,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": None,
    "tie_word_embeddings": True,
    "conv_bias": False,
    "conv_L_cache": 3,
    "block_multiple_of": 256,
    "block_ffn_dim_multiplier": 1.0,
    "block_auto_adjust_ff_dim": True,
    "full_attn_idxs": None,
    "layer_types": None,
}
_INIT = "Liquid's own initialisation key in released configs (no key of Lfm2Config): no tensor"
#: ``Lfm2Config``'s keys that shape no tensor, with why (and Liquid's own keys in released configs, outside the class).
INERT: dict[str, str] = {
    **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "norm_eps", *ROPE_KEYS)},
    "block_norm_eps": "Liquid's own epsilon key in released configs (no key of Lfm2Config): no tensor",
    **dict.fromkeys(("block_mlp_init_scale", "block_out_init_scale", "block_use_xavier_init", "conv_use_xavier_init"), _INIT),
}  # fmt: skip
#: Keys transformers ignores that name a size it reads elsewhere: accepted when they agree.
SAME_AS = {
    "block_dim": "hidden_size",
    "conv_dim": "hidden_size",
    "conv_dim_out": "hidden_size",
    "num_heads": "num_attention_heads",
}
#: Liquid's spellings ``Lfm2Config.__post_init__`` pops as the class's own keys (configuration_lfm2.py 90-91).
ALIASES = {"tie_embedding": "tie_word_embeddings", "block_ff_dim": "intermediate_size"}
#: ``Lfm2Config``'s every key at transformers 5.23.0 (configuration_lfm2.py): the shape keys with their defaults,
#: the others with why; Liquid's own spellings of its sizes refused where they disagree (:data:`SAME_AS`).
KEYS = Keys("Lfm2Config", _DEFAULTS, INERT, aliases=ALIASES, same_as=SAME_AS)
_SOURCE = (
    "transformers/models/lfm2/configuration_lfm2.py 58-92, modeling_lfm2.py 111-125, 202-217, 316-338, "
    "384-395, 449-462, 529-540"
)


def ffn_width(c: Mapping[str, Any]) -> Dim:
    """``Lfm2MLP``'s width from the resolved config (see the module's docstring).

    Parameters
    ----------
    c : mapping
        The resolved config.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A ``block_ffn_dim_multiplier`` that is not a number; a symbolic width under the adjustment
        (``int(2F/3)`` of a letter is not a polynomial: give numbers).
    """
    F = hf_config.size(c, "intermediate_size")
    if not hf_config.flag(c, "block_auto_adjust_ff_dim"):
        return F
    if type(F) is not int:
        raise ValueError("config key 'intermediate_size': block_auto_adjust_ff_dim needs a number (int(2F/3))")
    F = int(2 * F / 3)
    multiplier = c["block_ffn_dim_multiplier"]  # Lfm2Config is @strict: a float or an int, never None
    if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)):
        raise ValueError(f"config key 'block_ffn_dim_multiplier' must be a number, got {multiplier!r}")
    m = hf_config.size(c, "block_multiple_of")
    if type(m) is not int:
        raise ValueError("config key 'block_multiple_of' must be a number under block_auto_adjust_ff_dim")
    F = int(multiplier * F)
    return m * ((F + m - 1) // m)


def attention(D: Dim, H: Dim, KV: Dim, d: Dim, prefix: str = "Lfm2") -> Module:
    """``{prefix}Attention``: q/k/v/``out_proj`` without bias and ``q_layernorm``/``k_layernorm``, with its cache.

    Parameters
    ----------
    D, H, KV, d : int or sympy.Expr
        hidden_size, heads, key/value heads, head width.
    prefix : str
        ``"Lfm2"`` or ``"Lfm2Moe"``.

    Returns
    -------
    derive.tree.Module
    """
    attn = self_attention(D, H, KV, d, qk_norm=True, norm_type=f"{prefix}RMSNorm", type=f"{prefix}Attention")
    names = {"o_proj": "out_proj", "q_norm": "q_layernorm", "k_norm": "k_layernorm"}
    return attn.replace(children=tuple(c.replace(name=names.get(c.name, c.name)) for c in attn.children))


def _kinds(c: Mapping[str, Any], layers: int) -> list[str]:
    kinds = c["layer_types"]
    if kinds is None:
        idxs = c["full_attn_idxs"]
        if idxs is None:
            idxs = range(layers)
        if isinstance(idxs, str) or not isinstance(idxs, Sequence) or any(type(i) is not int for i in idxs):
            raise ValueError(f"config key 'full_attn_idxs' must be a list of layer indices, got {idxs!r:.60}")
        return ["full_attention" if i in idxs else "conv" for i in range(layers)]
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    for kind in kinds:
        if kind not in ("conv", "full_attention", "sliding_attention"):
            raise ValueError(f"config key 'layer_types' holds {kind!r}: LFM2's layers are 'conv' or attention")
        if kind == "sliding_attention":
            raise ValueError("config key 'layer_types': 'sliding_attention' is not derived for LFM2 (no window key)")
    return list(kinds)


def lfm2(config: Mapping[str, Any]) -> Module:
    """``Lfm2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Lfm2Config``'s defaults; ``tie_embedding`` and ``block_ff_dim`` read as
        ``tie_word_embeddings`` and ``intermediate_size`` (as ``__post_init__`` pops them).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a layer pattern transformers would not build, naming the key.
    """
    config = dict(config)
    for alias, key in ALIASES.items():  # the alias wins, as __post_init__ pops it over the key
        if alias in config:
            config[key] = config.pop(alias)
    if config.get("block_use_swiglu", True) is not True:
        raise ValueError("config key 'block_use_swiglu': transformers' Lfm2MLP is always SwiGLU")
    config.pop("block_use_swiglu", None)
    c = KEYS.resolve(config)
    check_rope(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes LFM2's layer pattern")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    K, bias, tie = (
        hf_config.size(c, "conv_L_cache"),
        hf_config.flag(c, "conv_bias"),
        hf_config.flag(c, "tie_word_embeddings"),
    )
    F = ffn_width(c)
    kinds = _kinds(c, L)

    def make(kind: str) -> Module:
        mixer = short_conv(D, K, conv_bias=bias) if kind == "conv" else attention(D, H, KV, d)
        ff = Module(
            "feed_forward",
            "Lfm2MLP",
            children=(linear(D, F, False, name="w1"), linear(D, F, False, name="w3"), linear(F, D, False, name="w2")),
            part="MLP",
        )
        norm = lambda n: rms_norm((D,), name=n, type="Lfm2RMSNorm")  # noqa: E731
        return Module("", "Lfm2DecoderLayer", children=(mixer, ff, norm("operator_norm"), norm("ffn_norm")))

    shape = {"vocab_size": V, "hidden_size": D, "intermediate_size": hf_config.size(c, "intermediate_size")}
    shape.update(num_hidden_layers=L, num_attention_heads=H, num_key_value_heads=KV, conv_L_cache=K)
    fixed: tuple[str, ...] = ("num_hidden_layers", "layer_types")
    shape.update(conv_bias=bias, layer_types=kinds, tie_word_embeddings=tie)
    if hf_config.flag(c, "block_auto_adjust_ff_dim"):  # int(2F/3), scaled and rounded: F stays a number
        shape.update(block_ffn_dim_multiplier=c["block_ffn_dim_multiplier"], block_multiple_of=c["block_multiple_of"])
        fixed += ("intermediate_size", "block_multiple_of")
    else:
        shape["block_auto_adjust_ff_dim"] = False
    shape["_fixed"] = fixed
    return causal_lm(
        "Lfm2", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="embedding_norm", type="Lfm2RMSNorm"), rotary=rope_buffers(d),
    )  # fmt: skip


register_family("lfm2", "Lfm2Config", "Lfm2ForCausalLM", lfm2, _SOURCE, keys=KEYS)
