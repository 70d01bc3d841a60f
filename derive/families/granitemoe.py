"""GraniteMoe (``model_type`` ``granitemoe``, Granite 3.x MoE): Granite's attention and multipliers with a
mixture of experts in every layer.

``GraniteMoeForCausalLM`` (``models/granitemoe/modeling_granitemoe.py`` 113-126 ``GraniteMoeTopKRouter``, 136-146
``GraniteMoeExperts``, 175-183 ``GraniteMoeMoE``, 263-285 ``GraniteMoeAttention``, 330-338
``GraniteMoeDecoderLayer``, ``GraniteMoeModel``, ``GraniteMoeForCausalLM``): every layer ``self_attn`` (q/k/v/o,
biased when ``attention_bias``), ``input_layernorm``, ``post_attention_layernorm`` and ``block_sparse_moe`` —
``router`` (``weight`` (E, D)) and ``experts`` (``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F)), E =
``num_local_experts``, k = ``num_experts_per_tok``, F = ``intermediate_size`` — in that order. The four
multipliers are floats (:data:`derive.families.granite.MULTIPLIERS`); ``head_dim`` and the cache as Granite's
(:mod:`derive.families.granite`).

>>> from derive.tree import count, active
>>> model = granitemoe({})   # GraniteMoeConfig()
>>> count(model), active(model)
(37039116288, 11067985920)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .granite import MULTIPLIERS
from .llama_like import CACHE_KEYS, ROPE_INERT, attention, cache_shape, cache_windows, check_rope, head_width, lm

__all__ = ["KEYS", "granitemoe", "experts_per_token"]

#: ``GraniteMoeConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "GraniteMoeConfig",
    {
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        # not GraniteMoeConfig's, read by its attention with getattr (modeling_granitemoe.py 270)
        "head_dim": None,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        **MULTIPLIERS,
        "output_router_logits": "whether the forward returns the router's logits: no tensor",
        "router_aux_loss_coef": "the weight of the load-balancing loss in training: no tensor",
        **ROPE_INERT,
    },
)
_SOURCE = (
    "transformers/models/granitemoe/configuration_granitemoe.py 59-91, modeling_granitemoe.py 113-183, 263-285, 330-338, "
    "398-405, 554"
)


def experts_per_token(c: Mapping[str, Any], experts: Dim, key: str = "num_experts_per_tok") -> Dim:
    """k, the experts a token visits (0 too: ``topk(0)`` runs), at most E.

    Parameters
    ----------
    c : mapping
        The resolved config.
    experts : int or sympy.Expr
        E.
    key : str
        The config's key for k.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Not a size or 0, or more than E (``topk`` fails at the first forward), naming the key.
    """
    k = hf_config.size(c, key, 0)
    if type(k) is int and type(experts) is int and k > experts:
        raise ValueError(f"config key {key!r} ({k}) exceeds the {experts} experts (topk fails in transformers)")
    return k


def granitemoe(config: Mapping[str, Any]) -> Module:
    """``GraniteMoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GraniteMoeConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Each layer's ``block_sparse_moe.experts`` carries ``routed`` = (k, E).

    Raises
    ------
    ValueError
        A null ``head_dim``, more experts per token than experts, a bad ``layer_types``, a RoPE derive does not
        map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="GraniteMoeAttention", null="given")
    E = hf_config.size(c, "num_local_experts")
    k = experts_per_token(c, E)
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    bias = hf_config.flag(c, "attention_bias")
    norm = "GraniteMoeRMSNorm"

    def layer(w: Any) -> Module:
        attn = attention(D, H, KV, d, bias=bias, window=w if windows is not None else window,
                         type="GraniteMoeAttention")  # fmt: skip
        moe = moe_block(
            router(D, E, name="router", type="GraniteMoeTopKRouter"),
            routed_experts(D, F, E, k, type="GraniteMoeExperts"),
            name="block_sparse_moe", type="GraniteMoeMoE",
        )  # fmt: skip
        children = (
            attn,
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
            moe,
        )
        return Module("", "GraniteMoeDecoderLayer", children=children)

    shape = {"attention_bias": bias, "num_local_experts": E, "num_experts_per_tok": k}
    shape.update(cache_shape(c, window, windows))
    return lm(c, prefix="GraniteMoe", layer=layer, kinds=windows, head_dim=d, shape=shape)


register_family("granitemoe", "GraniteMoeConfig", "GraniteMoeForCausalLM", granitemoe, _SOURCE, keys=KEYS)
