"""MiniMax-M2 (``model_type`` ``minimax_m2``): full attention with QK-norms over all heads, a partial RoPE, and a
mixture of experts with a sigmoid router in every layer.

``MiniMaxM2ForCausalLM`` (``models/minimax_m2/modeling_minimax_m2.py`` 45-51 ``MiniMaxM2TopKRouter``, 67-77
``MiniMaxM2Experts``, 106-113 ``MiniMaxM2SparseMoeBlock``, 147-181 ``MiniMaxM2RotaryEmbedding``, 276-293
``MiniMaxM2Attention``, 340-350 ``MiniMaxM2DecoderLayer``, 411-423 ``MiniMaxM2Model``, ``MiniMaxM2ForCausalLM``):
every layer ``self_attn`` — q/k/v/o without biases, then ``q_norm`` an RMSNorm over all H·d query features and
``k_norm`` over all KV·d key features (not per head) —, ``mlp`` — ``gate`` (``weight`` (E, D)), ``experts``
(``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F)), E = ``num_local_experts``, k = ``num_experts_per_tok``,
F = ``intermediate_size``, and the buffer ``e_score_correction_bias`` (E,) —, ``input_layernorm``,
``post_attention_layernorm``. The rotary embedding turns ``int(head_dim · partial_rotary_factor)`` dimensions,
the factor from ``rope_parameters``, else the config's ``partial_rotary_factor``, else the released
checkpoints' ``rotary_dim`` / ``head_dim`` (``configuration_minimax_m2.py`` 99-104); its buffers hold half as
many. Multi-token-prediction modules (``use_mtp``, ``num_mtp_modules``) are keys transformers keeps and never
builds: not counted. Its cache is ``DynamicCache(config=...)``'s.

>>> from derive.tree import count, active
>>> model = minimax_m2({})   # MiniMaxM2Config(): MiniMax-M2's shape
>>> count(model), active(model)
(228689748992, 11030537216)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, ROPE_TYPES, kv_heads, rope_buffers, rotated
from .family import Keys, register_family
from .granitemoe import experts_per_token
from .llama_like import CACHE_KEYS, attention, cache_shape, cache_windows, head_width, lm, not_null

__all__ = ["KEYS", "minimax_m2", "rotary_width"]

#: ``MiniMaxM2Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "MiniMaxM2Config",
    {
        "vocab_size": 200064,
        "hidden_size": 3072,
        "intermediate_size": 1536,
        "num_hidden_layers": 62,
        "num_attention_heads": 48,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "tie_word_embeddings": False,
        "num_experts_per_tok": 8,
        "num_local_experts": 256,
        # not MiniMaxM2Config's fields: read by its RoPE conversion (configuration_minimax_m2.py 99-104,
        # modeling_rope_utils.py 786) and by DynamicCache
        "rotary_dim": None,
        "partial_rotary_factor": None,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "output_router_logits": "whether the forward returns the router's logits: no tensor",
        "router_aux_loss_coef": "the weight of the load-balancing loss in training: no tensor",
        "router_jitter_noise": "noise on the router's input in training: no tensor",
    },
    aliases={"num_experts": "num_local_experts"},
)
_SOURCE = (
    "transformers/models/minimax_m2/configuration_minimax_m2.py 75-104, modeling_minimax_m2.py 45-181, 276-350, "
    "411-423, 569"
)


def rotary_width(config: Mapping[str, Any], c: Mapping[str, Any], head_dim: Dim) -> tuple[Dim, dict[str, Any]]:
    """The RoPE's rotated width ``int(head_dim · partial_rotary_factor)``, the factor as ``MiniMaxM2Config``
    settles it (see the module's docstring), and the keys that give it for the model's config.

    Parameters
    ----------
    config, c : mapping
        The config as given, and resolved.
    head_dim : int or sympy.Expr

    Returns
    -------
    (width, shape)
        ``shape`` holds the key the factor came from, as given (a ``rotary_dim`` whose float division does not
        give it back exactly is kept a number, with ``head_dim``, in ``_fixed``).

    Raises
    ------
    ValueError
        A RoPE type derive does not map, a factor outside (0, 1] or one with no closed form, naming the key.
    """
    source = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"  # modeling_rope_utils.py 777
    rope = config.get(source)
    if rope is not None and not isinstance(rope, Mapping):
        raise ValueError(f"config key {source!r} must be an object, got {rope!r:.60}")
    rope = rope or {}
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind not in ROPE_TYPES:
        raise ValueError(f"config key {source!r}: rope_type {kind!r} is not one derive maps ({sorted(ROPE_TYPES)})")
    shape: dict[str, Any] = {}
    if "partial_rotary_factor" in rope:
        factor, key = rope["partial_rotary_factor"], source
        shape[source] = {"partial_rotary_factor": factor}
    elif c["partial_rotary_factor"] is not None:
        factor, key = c["partial_rotary_factor"], "partial_rotary_factor"
        shape[key] = factor
    elif c["rotary_dim"] is not None:
        rot = hf_config.size(c, "rotary_dim")
        if type(rot) is not int or type(head_dim) is not int:
            return rot, {"rotary_dim": rot}  # a closed form: the numbers gave int(d * (r / d)) = r (below)
        factor, key = rot / head_dim, "rotary_dim"
        width = int(head_dim * factor) if 0 < factor <= 1 else None
        if width is None:
            raise ValueError(f"config key 'rotary_dim' ({rot}) must be in (0, head_dim={head_dim}]")
        shape["rotary_dim"] = rot
        if width != rot:
            shape["_fixed"] = ("rotary_dim", "head_dim")
        return width, shape
    else:
        return head_dim, shape
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1:
        raise ValueError(f"config key {key!r}: partial_rotary_factor must be in (0, 1], got {factor!r}")
    return rotated(head_dim, factor, key), shape


def minimax_m2(config: Mapping[str, Any]) -> Module:
    """``MiniMaxM2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``MiniMaxM2Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (k, E).

    Raises
    ------
    ValueError
        A null key the class types int, more experts per token than experts, a RoPE derive does not map, a bad
        ``layer_types``, naming the key.
    """
    c = KEYS.resolve(config)
    not_null(config, ("num_key_value_heads", "head_dim", "num_experts_per_tok", "num_local_experts"), "MiniMaxM2Config")
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="MiniMaxM2Attention", null="refused")
    rot, rope_shape = rotary_width(config, c, d)
    E = hf_config.size(c, "num_local_experts")
    k = experts_per_token(c, E)
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])
    norm = "MiniMaxM2RMSNorm"

    def layer(w: Any) -> Module:
        attn = attention(
            D, H, KV, d, window=w if windows is not None else window, type="MiniMaxM2Attention",
            norms=(("q_norm", H * d), ("k_norm", KV * d)), norm_type=norm,
        )  # fmt: skip
        moe = moe_block(
            router(D, E, type="MiniMaxM2TopKRouter"), routed_experts(D, F, E, k, type="MiniMaxM2Experts"),
            type="MiniMaxM2SparseMoeBlock",
        )  # fmt: skip
        moe = moe.replace(params=(Param("e_score_correction_bias", (E,), buffer=True),))
        children = (
            attn,
            moe,
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
        )
        return Module("", "MiniMaxM2DecoderLayer", children=children)

    shape: dict[str, Any] = {"num_local_experts": E, "num_experts_per_tok": k, **cache_shape(c, window, windows)}
    fixed = (*shape.get("_fixed", ()), *rope_shape.pop("_fixed", ()))
    shape.update(rope_shape)
    if fixed:
        shape["_fixed"] = fixed
    return lm(c, prefix="MiniMaxM2", layer=layer, kinds=windows, head_dim=d, shape=shape, rotary=rope_buffers(rot))


register_family("minimax_m2", "MiniMaxM2Config", "MiniMaxM2ForCausalLM", minimax_m2, _SOURCE, keys=KEYS)
