"""ERNIE 4.5 MoE (``model_type`` ``ernie4_5_moe``, ERNIE-4.5-21B-A3B and -300B-A47B): ERNIE 4.5's layers with
a mixture of experts and shared experts in the layers a start, an end and an interval pick.

``Ernie4_5_MoeForCausalLM`` (``models/ernie4_5_moe/modeling_ernie4_5_moe.py`` 65-75 ``Ernie4_5_MoeMLP``, 208-227
``Ernie4_5_MoeAttention``, 268-282 ``Ernie4_5_MoeStatics``, 296-306 ``Ernie4_5_MoeExperts``, 335-342
``Ernie4_5_MoeTopKRouter``, 359-369 ``Ernie4_5_MoeSparseMoeBlock``, 389-402 ``Ernie4_5_MoeDecoderLayer``,
475-489 ``Ernie4_5_MoeModel``, 624-637): every layer ``self_attn`` (q/k/v/o) and ``mlp``, each Linear biased
when ``use_bias``, then ``input_layernorm``, ``post_attention_layernorm``. Layer i's ``mlp`` is a sparse MoE
when (i + 1) is a multiple of ``moe_layer_interval`` and ``moe_layer_start_index`` <= i <=
``moe_layer_end_index`` (-1: the last layer, ``configuration_ernie4_5_moe.py`` 119-122): ``gate`` — ``weight``
(E, D) and ``moe_statics.e_score_correction_bias`` (1, E), both float32 parameters (the second never trained,
counted as ``named_parameters()`` counts it) —, ``experts`` (E = ``moe_num_experts``, k = ``moe_k``, width
``moe_intermediate_size``) and ``shared_experts``, one MLP of ``moe_num_shared_experts`` ·
``moe_intermediate_size`` (none when 0); else a dense MLP of ``intermediate_size``. ``lm_head`` is biased
when ``use_bias`` (its weight tied by default, the bias its own). The class has no ``head_dim``; the attention
reads ``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 215). Multi-token prediction
layers (``mtp``) of a checkpoint are not built (``_keys_to_ignore_on_load_unexpected``, line 459).

>>> from derive.tree import count, active
>>> model = ernie4_5_moe({})   # Ernie4_5_MoeConfig(): ERNIE-4.5-21B-A3B's shape
>>> count(model), active(model)
(21825437888, 3352150208)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .granitemoe import experts_per_token
from .llama_like import CACHE_KEYS, ROPE_INERT, attention, cache_shape, cache_windows, check_rope, head_width, lm

__all__ = ["KEYS", "ernie4_5_moe", "moe_layers"]

#: ``Ernie4_5_MoeConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Ernie4_5_MoeConfig",
    {
        "vocab_size": 103424,
        "hidden_size": 2560,
        "intermediate_size": 12288,
        "num_hidden_layers": 28,
        "num_attention_heads": 20,
        "num_key_value_heads": 4,
        "tie_word_embeddings": True,
        "use_bias": False,
        "moe_intermediate_size": 1536,
        "moe_k": 6,
        "moe_num_experts": 64,
        "moe_num_shared_experts": 2,
        "moe_layer_start_index": 1,
        "moe_layer_end_index": -1,
        "moe_layer_interval": 1,
        # not Ernie4_5_MoeConfig's, read by its attention with getattr (modeling_ernie4_5_moe.py 215)
        "head_dim": None,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", *ROPE_KEYS)},
        "moe_norm_min": "the floor of the routing weights' sum: no tensor",
        "output_router_logits": "whether the forward returns the router's logits: no tensor",
        "router_aux_loss_coef": "the weight of the load-balancing loss in training: no tensor",
        **ROPE_INERT,
    },
    aliases={"num_experts": "moe_num_experts", "num_experts_per_tok": "moe_k"},
)
_SOURCE = (
    "transformers/models/ernie4_5_moe/configuration_ernie4_5_moe.py 91-122, modeling_ernie4_5_moe.py 65-75, 208-227, "
    "268-402, 475-489, 624-637"
)
_PATTERN = ("moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval")


def moe_layers(c: Mapping[str, Any], layers: Any) -> list[bool]:
    """Which layers are sparse (``Ernie4_5_MoeDecoderLayer.__init__``, lines 393-399).

    Parameters
    ----------
    c : mapping
        The resolved config.
    layers : int
        ``num_hidden_layers``.

    Returns
    -------
    list of bool

    Raises
    ------
    ValueError
        A key of the pattern (or the layer count) that is not a number, an interval of 0, naming the key.
    """
    if type(layers) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: the MoE layers' pattern depends on it")
    start, end, every = (c[k] for k in _PATTERN)
    for key, value in zip(_PATTERN, (start, end, every)):
        if isinstance(value, bool) or type(value) is not int:
            raise ValueError(f"config key {key!r} must be an int: it fixes the layer pattern, got {value!r}")
    if every == 0:
        raise ValueError("config key 'moe_layer_interval' is 0: transformers computes (i + 1) % 0")
    end = layers - 1 if end == -1 else end
    return [(i + 1) % every == 0 and start <= i <= end for i in range(layers)]


def ernie4_5_moe(config: Mapping[str, Any]) -> Module:
    """``Ernie4_5_MoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Ernie4_5_MoeConfig``'s defaults; sizes may be SymPy symbols (the layer count and the
        MoE pattern's keys are numbers).

    Returns
    -------
    derive.tree.Module
        Each sparse layer's ``mlp.experts`` carries ``routed`` = (k, E).

    Raises
    ------
    ValueError
        A null ``head_dim``, more experts per token than experts, a bad MoE pattern or ``layer_types``, a RoPE
        derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    F, Fe = hf_config.size(c, "intermediate_size"), hf_config.size(c, "moe_intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="Ernie4_5_MoeAttention", null="given")
    E = hf_config.size(c, "moe_num_experts")
    k, shared = experts_per_token(c, E, "moe_k"), hf_config.size(c, "moe_num_shared_experts", 0)
    L = hf_config.size(c, "num_hidden_layers", 0)
    sparse = moe_layers(c, L)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "use_bias")

    def mlp(moe: bool) -> Module:
        if not moe:
            return gated_mlp(D, F, bias=bias, type="Ernie4_5_MoeMLP")
        statics = Module(
            "moe_statics", "Ernie4_5_MoeStatics", (Param("e_score_correction_bias", (1, E), dtype="float32"),)
        )
        gate = router(D, E, type="Ernie4_5_MoeTopKRouter")
        gate = gate.replace(params=(Param("weight", (E, D), dtype="float32"),), children=(statics,))
        parts: tuple[Module, ...] = (gate, routed_experts(D, Fe, E, k, type="Ernie4_5_MoeExperts"))
        if type(shared) is not int or shared > 0:
            parts += (gated_mlp(D, Fe * shared, bias=bias, name="shared_experts", type="Ernie4_5_MoeMLP"),)
        return moe_block(*parts, type="Ernie4_5_MoeSparseMoeBlock")

    def layer(kind: tuple[bool, Any]) -> Module:
        moe, w = kind
        attn = attention(D, H, KV, d, bias=bias, window=w, type="Ernie4_5_MoeAttention")
        norm = lambda n: rms_norm((D,), name=n, type="Ernie4_5_MoeRMSNorm")  # noqa: E731
        children = (attn, mlp(moe), norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", "Ernie4_5_MoeDecoderLayer", children=children)

    per_layer = windows if windows is not None else [window] * L
    shape: dict[str, Any] = {"use_bias": bias, "moe_intermediate_size": Fe, "moe_k": k, "moe_num_experts": E}
    shape.update(moe_num_shared_experts=shared, **{key: c[key] for key in _PATTERN}, **cache_shape(c, window, windows))
    shape["_fixed"] = ("num_hidden_layers", *_PATTERN)
    model = lm(c, prefix="Ernie4_5_Moe", layer=layer, kinds=list(zip(sparse, per_layer)), head_dim=d, shape=shape)
    if not bias:
        return model
    head = model.child("lm_head")
    biased = linear(D, V, True, name="lm_head").params[1]
    head = head.replace(params=head.params + (biased,))
    return model.replace(children=tuple(head if m.name == "lm_head" else m for m in model.children))


register_family("ernie4_5_moe", "Ernie4_5_MoeConfig", "Ernie4_5_MoeForCausalLM", ernie4_5_moe, _SOURCE, keys=KEYS)
