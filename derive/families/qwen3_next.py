"""Qwen3-Next (``model_type`` ``qwen3_next``): Gated DeltaNet layers with a gated-attention layer every
``full_attention_interval``, and a mixture of experts with a shared expert.

``Qwen3NextForCausalLM`` (``models/qwen3_next/modeling_qwen3_next.py`` 229-256 ``Qwen3NextAttention``,
582-626 ``Qwen3NextGatedDeltaNet``, 772-870 the MLP, experts, router and sparse-MoE block, 871-891
``Qwen3NextDecoderLayer``, 976-990 ``Qwen3NextModel``, 1126-1137): layer i mixes tokens with
``linear_attn`` (:func:`derive.blocks.gated_deltanet.gated_deltanet`) when ``layer_types[i]`` is
``"linear_attention"``, else with ``self_attn`` — q/k/v/o with ``attention_bias``, a gated output
(``q_proj`` gives 2·H·d: the query and its gate) and QK-norms of ``head_dim``. Its ``mlp`` is a
sparse MoE — ``gate`` (E, D), ``experts`` (E routed, k = ``num_experts_per_tok``, width
``moe_intermediate_size``), ``shared_expert`` (a gated MLP of ``shared_expert_intermediate_size``)
and ``shared_expert_gate`` Linear(D, 1) — when ``num_experts`` > 0, i is not in
``mlp_only_layers`` and (i + 1) is a multiple of ``decoder_sparse_step``; else a gated MLP of
``intermediate_size``. ``layer_types`` is read as given, else made as ``Qwen3NextConfig`` makes it:
every ``full_attention_interval``-th layer (default 4) attends (``configuration_qwen3_next.py``
127-137). The rotary embedding turns ``int(head_dim · partial_rotary_factor)`` dimensions (default
factor 0.25): its buffers hold half as many.

Its cache: per attention layer keys and values (batch, KV, tokens, d); per Gated DeltaNet layer
``conv_states`` (batch, 2·H_k·d_k + H_v·d_v, K) in the model's dtype and ``recurrent_states``
(batch, H_v, d_k, d_v) in float32.

>>> from derive.tree import count, active
>>> model = qwen3_next({})   # Qwen3NextConfig(): Qwen3-Next-80B-A3B's shape
>>> count(model), active(model)
(79674391296, 3874929408)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import _hf
from ..blocks.gated_deltanet import gated_deltanet
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from ._decoder import causal_lm, kv_heads, layer_list, rope_buffers
from .llama import register_family

__all__ = ["qwen3_next", "rotary_dim", "linear_layer_types"]

#: ``Qwen3NextConfig``'s shape keys and defaults (configuration_qwen3_next.py 92-125).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 151936,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "head_dim": 256,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "decoder_sparse_step": 1,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "num_experts_per_tok": 10,
    "num_experts": 512,
    "mlp_only_layers": None,
    "layer_types": None,
    "full_attention_interval": 4,
    "partial_rotary_factor": 0.25,
    "rope_parameters": None,
}
_INERT = (
    "max_position_embeddings",
    "rms_norm_eps",
    "attention_dropout",
    "norm_topk_prob",
    "output_router_logits",
    "router_aux_loss_coef",
    "rope_theta",
    "rope_scaling",
)
_SOURCE = (
    "transformers/models/qwen3_next/configuration_qwen3_next.py 92-137, modeling_qwen3_next.py 95-112, 229-256, "
    "582-626, 772-891, 976-990, 1126-1137"
)


def rotary_dim(c: Mapping[str, Any], head_dim: Dim) -> Dim:
    """The dimensions the rotary embedding turns: ``int(head_dim · partial_rotary_factor)``.

    The factor is ``rope_parameters["partial_rotary_factor"]``, else the ``partial_rotary_factor``
    key, else 0.25 (``__post_init__``'s default); only the default RoPE is derived.

    Parameters
    ----------
    c : mapping
        The resolved config.
    head_dim : int or sympy.Expr

    Returns
    -------
    int

    Raises
    ------
    ValueError
        A rope type other than "default", a factor that is not a number, a symbolic head_dim.
    """
    rope = c.get("rope_parameters") or {}
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind != "default":
        raise ValueError(f"config key 'rope_parameters': rope_type {kind!r} is not derived here (only 'default')")
    factor = rope.get("partial_rotary_factor", c["partial_rotary_factor"])
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise ValueError(f"config key 'partial_rotary_factor' must be a number, got {factor!r}")
    if type(head_dim) is not int:
        raise ValueError("config key 'head_dim' must be a number: the rotary buffers take int(head_dim * factor)")
    return int(head_dim * factor)


def linear_layer_types(c: Mapping[str, Any], layers: int) -> list[str]:
    """``layer_types`` as given, else every ``full_attention_interval``-th layer attends.

    Parameters
    ----------
    c : mapping
    layers : int

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        Not a list of ``num_hidden_layers`` known types; a bad interval.
    """
    kinds = c["layer_types"]
    if kinds is None:
        interval = _hf.size(c, "full_attention_interval")
        if type(interval) is not int:
            raise ValueError("config key 'full_attention_interval' must be a number: it fixes the layer pattern")
        return ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(layers)]
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    for kind in kinds:
        if kind not in ("linear_attention", "full_attention"):
            raise ValueError(f"config key 'layer_types' holds {kind!r}: 'linear_attention' or 'full_attention'")
    return list(kinds)


def qwen3_next(config: Mapping[str, Any]) -> Module:
    """``Qwen3NextForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen3NextConfig``'s defaults.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; a layer pattern transformers would not build; more experts per
        token than experts; naming the key.
    """
    c = _hf.resolve(config, cls="Qwen3NextConfig", defaults=_DEFAULTS, inert=_INERT)
    V, D, F = _hf.size(c, "vocab_size"), _hf.size(c, "hidden_size"), _hf.size(c, "intermediate_size")
    L = _hf.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes Qwen3-Next's layer pattern")
    H, d = _hf.size(c, "num_attention_heads"), _hf.size(c, "head_dim")
    KV = kv_heads(c, H)
    hk, hv = _hf.size(c, "linear_num_key_heads"), _hf.size(c, "linear_num_value_heads")
    dk, dv = _hf.size(c, "linear_key_head_dim"), _hf.size(c, "linear_value_head_dim")
    K = _hf.size(c, "linear_conv_kernel_dim")
    E, k = _hf.size(c, "num_experts", 0), _hf.size(c, "num_experts_per_tok")
    if type(E) is int and type(k) is int and E > 0 and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_experts ({E})")
    Fe, Fs = _hf.size(c, "moe_intermediate_size"), _hf.size(c, "shared_expert_intermediate_size")
    step = _hf.size(c, "decoder_sparse_step")
    if type(step) is not int or type(E) is not int:
        raise ValueError("config keys 'decoder_sparse_step' and 'num_experts' must be numbers: they fix the pattern")
    only = c["mlp_only_layers"] or []
    if isinstance(only, str) or not isinstance(only, Sequence):
        raise ValueError(f"config key 'mlp_only_layers' must be a list of layer indices, got {only!r:.60}")
    bias, tie = _hf.flag(c, "attention_bias"), _hf.flag(c, "tie_word_embeddings")
    rotary = rotary_dim(c, d)
    kinds = [(t, i not in only and E > 0 and (i + 1) % step == 0) for i, t in enumerate(linear_layer_types(c, L))]

    def make(kind: tuple[str, bool]) -> Module:
        mixer_type, sparse = kind
        if mixer_type == "linear_attention":
            mixer = gated_deltanet(D, hk, hv, dk, dv, K, spelling="qwen3_next")
        else:
            mixer = self_attention(
                D, H, KV, d, bias=bias, qk_norm=True, gated=True, norm_type="Qwen3NextRMSNorm",
                type="Qwen3NextAttention",
            )  # fmt: skip
        if sparse:
            mlp = moe_block(
                router(D, E, name="gate", type="Qwen3NextTopKRouter"),
                routed_experts(D, Fe, E, k, type="Qwen3NextExperts"),
                gated_mlp(D, Fs, name="shared_expert", type="Qwen3NextMLP"),
                linear(D, 1, False, name="shared_expert_gate"),
                type="Qwen3NextSparseMoeBlock",
            )
        else:
            mlp = gated_mlp(D, F, type="Qwen3NextMLP")
        norm = lambda n: rms_norm((D,), name=n, type="Qwen3NextRMSNorm")  # noqa: E731
        return Module(
            "",
            "Qwen3NextDecoderLayer",
            children=(mixer, mlp, norm("input_layernorm"), norm("post_attention_layernorm")),
        )

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, attention_bias=bias)
    shape.update(linear_num_key_heads=hk, linear_num_value_heads=hv, linear_key_head_dim=dk)
    shape.update(linear_value_head_dim=dv, linear_conv_kernel_dim=K, num_experts=E, num_experts_per_tok=k)
    shape.update(moe_intermediate_size=Fe, shared_expert_intermediate_size=Fs, decoder_sparse_step=step)
    shape.update(mlp_only_layers=list(only), layer_types=[t for t, _ in kinds], tie_word_embeddings=tie)
    shape["_fixed"] = ("num_hidden_layers", "layer_types", "num_experts", "decoder_sparse_step", "mlp_only_layers")
    return causal_lm(
        "Qwen3Next", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape,
        rotary=rope_buffers(rotary),
    )  # fmt: skip


register_family("qwen3_next", "Qwen3NextConfig", "Qwen3NextForCausalLM", qwen3_next, _SOURCE)
