"""HunYuan dense (``model_type`` ``hunyuan_v1_dense``, Hunyuan-0.5B to 7B): Llama's layers with norms on the
queries and keys.

``HunYuanDenseV1ForCausalLM`` (``models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py`` 65-75
``HunYuanDenseV1MLP``, 153-183 ``HunYuanDenseV1Attention``, 224-232 ``HunYuanDenseV1DecoderLayer``,
365-373 ``HunYuanDenseV1Model``, 446 ``lm_head``): every layer ``self_attn`` — q/k/v/o (biased when
``attention_bias``), then ``query_layernorm`` and ``key_layernorm`` (RMSNorms of ``head_dim``, applied after
the RoPE) —, ``mlp`` (gate/up/down), ``input_layernorm``, ``post_attention_layernorm``; ``lm_head`` untied by
default. The QK-norms are always built: transformers 5.23's class has no ``use_qk_norm`` and no cross-layer
KV sharing (``use_cla``, ``cla_share_factor`` of the remote code are keys it keeps and never reads).
``head_dim`` defaults to null and the attention reads it as is (line 160): a null head width fails in
transformers (``None ** -0.5``), so ``HunYuanDenseV1Config()`` itself does not build; derive refuses it naming
the key. A ``dynamic`` RoPE with an ``alpha`` is HunYuan's NTK-alpha RoPE: the same ⌈d/2⌉ buffers.

>>> from derive.tree import count
>>> count(hunyuan_v1_dense({"head_dim": 128}))   # HunYuanDenseV1Config(head_dim=128)
8859684864
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, ROPE_INERT, attention, cache_shape, cache_windows, check_rope, head_width, lm

__all__ = ["KEYS", "hunyuan_v1_dense", "INERT", "head_width_of"]

#: The keys of the HunYuan classes that shape no tensor, with why.
INERT: dict[str, str] = {
    **{
        k: DECODER_INERT[k]
        for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "pretraining_tp", *ROPE_KEYS)
    },
    "eod_token_id": "a token id: no tensor",
    **ROPE_INERT,
}
#: ``HunYuanDenseV1Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "HunYuanDenseV1Config",
    {
        "vocab_size": 290943,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "head_dim": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        **CACHE_KEYS,
    },
    INERT,
)
_SOURCE = (
    "transformers/models/hunyuan_v1_dense/configuration_hunyuan_v1_dense.py 36-61, modeling_hunyuan_v1_dense.py "
    "65-75, 153-183, 224-232, 287-300, 365-373, 446"
)


def head_width_of(config: Mapping[str, Any], c: Mapping[str, Any], hidden: Any, heads: Any, cls: str) -> Any:
    """``head_dim`` as HunYuan's attention reads it: as given, a null one refused — naming ``attention_head_dim``
    where the config has it (Hunyuan-A13B's ``config.json``: the remote code's key, ``auto_map``, which
    transformers' own class does not read).

    Parameters
    ----------
    config, c : mapping
        The config as given, and resolved.
    hidden, heads : int or sympy.Expr
    cls : str
        The attention's class.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A null ``head_dim``, naming the key.
    """
    if c.get("head_dim") is None and "attention_head_dim" in config:
        raise ValueError(
            f"config key 'head_dim' is null: {cls} reads it as the head width (None ** -0.5 fails in transformers). "
            f"This config names it 'attention_head_dim' ({config['attention_head_dim']!r}), a key of the remote code "
            f"its auto_map names, which transformers' own {cls.replace('Attention', 'Config')} does not read: give "
            f"head_dim"
        )
    return head_width(config, c, hidden, heads, cls=cls, null="refused")


def hunyuan_v1_dense(config: Mapping[str, Any]) -> Module:
    """``HunYuanDenseV1ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``HunYuanDenseV1Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a bad ``layer_types``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width_of(config, c, D, H, "HunYuanDenseV1Attention")
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "attention_bias")
    norm = "HunYuanDenseV1RMSNorm"

    def layer(w: Any) -> Module:
        attn = attention(
            D, H, KV, d, bias=bias, window=w if windows is not None else window, type="HunYuanDenseV1Attention",
            norms=(("query_layernorm", d), ("key_layernorm", d)), norm_type=norm,
        )  # fmt: skip
        children = (
            attn,
            gated_mlp(D, F, type="HunYuanDenseV1MLP"),
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
        )
        return Module("", "HunYuanDenseV1DecoderLayer", children=children)

    shape = {"attention_bias": bias, **cache_shape(c, window, windows)}
    return lm(c, prefix="HunYuanDenseV1", layer=layer, kinds=windows, head_dim=d, shape=shape)


register_family(
    "hunyuan_v1_dense", "HunYuanDenseV1Config", "HunYuanDenseV1ForCausalLM", hunyuan_v1_dense, _SOURCE, keys=KEYS
)
