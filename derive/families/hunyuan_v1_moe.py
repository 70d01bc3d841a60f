"""HunYuan MoE (``model_type`` ``hunyuan_v1_moe``, Hunyuan-A13B): HunYuan's attention with QK-norms, and in
every layer a mixture of experts beside a shared MLP.

``HunYuanMoEV1ForCausalLM`` (``models/hunyuan_v1_moe/modeling_hunyuan_v1_moe.py`` 65-74 ``HunYuanMoEV1MLP``,
152-182 ``HunYuanMoEV1Attention``, 223-230 ``HunYuanMoEV1Gate``, 244-254 ``HunYuanMoEV1Experts``, 283-289
``HunYuanMoEV1Moe``, 302-309 ``HunYuanMoEV1DecoderLayer``, 446-458 ``HunYuanMoEV1Model``, 522-531): every layer
``self_attn`` (q/k/v/o biased when ``attention_bias``, then ``query_layernorm`` and ``key_layernorm`` of
``head_dim``), ``mlp`` — ``gate.wg`` Linear(D, E) in float32, ``experts`` (``gate_up_proj`` (E, 2F, D),
``down_proj`` (E, D, F)) and ``shared_mlp`` (gate/up/down of F), F = ``intermediate_size``, E = ``num_experts``
—, ``input_layernorm``, ``post_attention_layernorm``. k = ``moe_topk``: one int, or a list read at each
layer's index (the routers' ``top_k``). The QK-norms are always built and no layers share keys and values:
transformers 5.23 has no ``use_qk_norm``, ``use_cla`` or ``cla_share_factor`` (keys of the remote code it
keeps and never reads). ``head_dim`` defaults to null and the attention reads it as is: a null head width
fails in transformers, so ``HunYuanMoEV1Config()`` itself does not build; derive refuses it naming the key.

Hunyuan-A13B-Instruct's own ``config.json`` has ``model_type`` "hunyuan" and an ``auto_map`` to its remote
code; transformers' own class for its architecture (``HunYuanMoEV1ForCausalLM``) is this one, and it does not
build that file either: the file names its head width ``attention_head_dim`` (128), which the class does not
read. derive refuses it with that reason; with ``head_dim`` 128 added the class builds 80,393,183,232
parameters, 12,747,448,320 active (its card: 80B, 13B active), every key of the file mapping onto the class
(``moe_topk`` [8] × 32, ``num_experts`` 64, ``intermediate_size`` 3072 for the experts and the shared MLP —
the remote code's ``moe_intermediate_size`` and ``num_shared_expert`` [1] agree —, ``use_qk_norm`` true,
``use_cla`` false).

>>> from derive.tree import count, active
>>> model = hunyuan_v1_moe({"head_dim": 128})   # HunYuanMoEV1Config(head_dim=128)
>>> count(model), active(model)
(13188337664, 13188337664)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import kv_heads
from .family import Keys, register_family
from .hunyuan_v1_dense import INERT, head_width_of
from .llama_like import CACHE_KEYS, attention, cache_shape, cache_windows, check_rope, lm

__all__ = ["KEYS", "hunyuan_v1_moe"]

#: ``HunYuanMoEV1Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "HunYuanMoEV1Config",
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
        "num_experts": 1,
        "moe_topk": 1,
        **CACHE_KEYS,
    },
    {**INERT, "output_router_logits": "whether the forward returns the router's logits: no tensor"},
    aliases={"num_experts_per_tok": "moe_topk", "num_local_experts": "num_experts"},
)
_SOURCE = (
    "transformers/models/hunyuan_v1_moe/configuration_hunyuan_v1_moe.py 51-80, modeling_hunyuan_v1_moe.py 65-74, "
    "152-182, 223-309, 446-458, 522-531"
)


def _top_k(c: Mapping[str, Any], experts: Dim, layers: Dim) -> list[Dim] | Dim:
    """k of every layer (a list when ``moe_topk`` is one), each at most E (``topk`` fails beyond it)."""
    value = c["moe_topk"]
    if isinstance(value, str) or not isinstance(value, Sequence):
        k = hf_config.size(c, "moe_topk", 0)
        ks: list[Dim] = [k]
    else:
        if type(layers) is not int:
            raise ValueError("config key 'num_hidden_layers' must be a number: a moe_topk list gives each layer's k")
        if len(value) < layers:
            raise ValueError(f"config key 'moe_topk' has {len(value)} entries for num_hidden_layers={layers}")
        ks = [hf_config.size({"moe_topk": v}, "moe_topk", 0) for v in value[:layers]]
    for k in ks:
        if type(k) is int and type(experts) is int and k > experts:
            raise ValueError(
                f"config key 'moe_topk' ({k}) exceeds num_experts ({experts}) (topk fails in transformers)"
            )
    return ks if not isinstance(value, str) and isinstance(value, Sequence) else ks[0]


def hunyuan_v1_moe(config: Mapping[str, Any]) -> Module:
    """``HunYuanMoEV1ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``HunYuanMoEV1Config``'s defaults; sizes may be SymPy symbols (the layer count a number
        with a ``moe_topk`` list).

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (its k, E).

    Raises
    ------
    ValueError
        A null ``head_dim`` (naming ``attention_head_dim`` where the config has it), a ``moe_topk`` beyond the
        experts or shorter than the layers, a bad ``layer_types``, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width_of(config, c, D, H, "HunYuanMoEV1Attention")
    E, L = hf_config.size(c, "num_experts"), hf_config.size(c, "num_hidden_layers", 0)
    k = _top_k(c, E, L)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "attention_bias")
    norm = "HunYuanMoEV1RMSNorm"

    def layer(kind: tuple[Any, Any]) -> Module:
        w, top = kind
        attn = attention(
            D, H, KV, d, bias=bias, window=w, type="HunYuanMoEV1Attention",
            norms=(("query_layernorm", d), ("key_layernorm", d)), norm_type=norm,
        )  # fmt: skip
        gate = Module("gate", "HunYuanMoEV1Gate", children=(linear(D, E, False, name="wg"),), part="routers")
        moe = moe_block(
            gate, routed_experts(D, F, E, top, type="HunYuanMoEV1Experts"),
            gated_mlp(D, F, name="shared_mlp", type="HunYuanMoEV1MLP"), type="HunYuanMoEV1Moe",
        )  # fmt: skip
        children = (
            attn,
            moe,
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
        )
        return Module("", "HunYuanMoEV1DecoderLayer", children=children)

    shape: dict[str, Any] = {"attention_bias": bias, "num_experts": E, **cache_shape(c, window, windows)}
    if isinstance(k, list):
        shape.update(moe_topk=tuple(k), _fixed=("num_hidden_layers",))
        per_layer = windows if windows is not None else [window] * len(k)
        kinds: list[Any] | None = list(zip(per_layer, k))
    else:
        shape["moe_topk"] = k
        kinds = None if windows is None else [(w, k) for w in windows]
    if kinds is None:
        return lm(c, prefix="HunYuanMoEV1", layer=lambda _: layer((window, k)), kinds=None, head_dim=d, shape=shape)
    return lm(c, prefix="HunYuanMoEV1", layer=layer, kinds=kinds, head_dim=d, shape=shape)


register_family("hunyuan_v1_moe", "HunYuanMoEV1Config", "HunYuanMoEV1ForCausalLM", hunyuan_v1_moe, _SOURCE, keys=KEYS)
