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

The same builder reads Qwen3.5's text models, which differ only in their parts' cut and names:
``qwen3_5_text`` (``Qwen3_5ForCausalLM``, ``models/qwen3_5/modeling_qwen3_5.py`` 499-542, 742-835,
854-870, 1203-1215, 1650-1662: a gated MLP in every layer, Gated DeltaNet's projections in four,
``in_proj_qkv``/``in_proj_z``/``in_proj_b``/``in_proj_a``) and ``qwen3_5_moe_text``
(``Qwen3_5MoeForCausalLM``, ``models/qwen3_5_moe/modeling_qwen3_5_moe.py`` 495-538, 738-933,
1292-1304, 1811-1823: the sparse MoE with a shared expert in every layer); no
``decoder_sparse_step`` or ``mlp_only_layers`` there.

>>> from derive.tree import count, active
>>> model = qwen3_next({})   # Qwen3NextConfig(): Qwen3-Next-80B-A3B's shape
>>> count(model), active(model)
(79674391296, 3874929408)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..blocks import hf_config
from ..blocks.gated_deltanet import gated_deltanet
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT, causal_lm, kv_heads, layer_list, rope_buffers, rotated
from .family import Keys, register_family

__all__ = ["Variant", "VARIANTS", "KEYS", "VARIANT_KEYS", "qwen3_next", "build", "rotary_dim", "linear_layer_types"]

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
#: ``Qwen3NextConfig``'s every key (configuration_qwen3_next.py 92-137): the shape keys above, the legacy
#: ``full_attention_interval`` and ``partial_rotary_factor`` its ``__post_init__`` reads among them, the rest inert.
KEYS = Keys(
    "Qwen3NextConfig",
    _DEFAULTS,
    {
        **{
            k: INERT[k]
            for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "rope_scaling", "rope_theta")
        },
        "norm_topk_prob": "renormalises the top-k routing weights (a division): no tensor, no matmul",
        "output_router_logits": "returns the routers' logits for the auxiliary loss: no tensor",
        "router_aux_loss_coef": "the auxiliary loss's weight, in training: no tensor",
    },
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
    int or sympy.Expr

    Raises
    ------
    ValueError
        A rope type other than "default", a factor that is not a number, a symbolic head_dim with a factor
        that is no binary fraction (:func:`derive.families.decoder.rotated`).
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
    return rotated(head_dim, factor, "partial_rotary_factor")


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
        interval = hf_config.size(c, "full_attention_interval")
        if type(interval) is not int:
            raise ValueError("config key 'full_attention_interval' must be a number: it fixes the layer pattern")
        return ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(layers)]
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    for kind in kinds:
        if kind not in ("linear_attention", "full_attention"):
            raise ValueError(f"config key 'layer_types' holds {kind!r}: 'linear_attention' or 'full_attention'")
    return list(kinds)


@dataclass(frozen=True)
class Variant:
    """One model type the builder reads.

    Attributes
    ----------
    model_type, config_cls, prefix, model_cls : str
        ``"qwen3_5_text"``, ``"Qwen3_5TextConfig"``, the class prefix (``"Qwen3_5"``), the inner model's class.
    spelling : str
        Gated DeltaNet's (:data:`derive.blocks.gated_deltanet.SPELLINGS`).
    moe : {"pattern", "dense", "all"}
        Qwen3-Next's placement rule, a gated MLP everywhere, a sparse MoE everywhere.
    defaults : mapping
        The config class's shape keys and defaults.
    source : str
    """

    model_type: str
    config_cls: str
    prefix: str
    model_cls: str
    spelling: str
    moe: str
    defaults: Mapping[str, Any]
    source: str


_QWEN3_5 = {k: v for k, v in _DEFAULTS.items() if k not in ("decoder_sparse_step", "mlp_only_layers")}
_QWEN3_5_DENSE = {k: v for k, v in _QWEN3_5.items() if "expert" not in k}
_QWEN3_5_DENSE.update(vocab_size=248320, hidden_size=4096, intermediate_size=12288, num_hidden_layers=32)
_QWEN3_5_DENSE.update(num_key_value_heads=4)
_QWEN3_5_MOE = {k: v for k, v in _QWEN3_5.items() if k != "intermediate_size"}
_QWEN3_5_MOE.update(vocab_size=248320, num_hidden_layers=40, num_experts_per_tok=8, num_experts=256)

#: The model types read, by ``model_type``.
VARIANTS = {
    "qwen3_next": Variant(
        "qwen3_next", "Qwen3NextConfig", "Qwen3Next", "Qwen3NextModel", "qwen3_next", "pattern", _DEFAULTS, _SOURCE
    ),
    "qwen3_5_text": Variant(
        "qwen3_5_text", "Qwen3_5TextConfig", "Qwen3_5", "Qwen3_5TextModel", "qwen3_5", "dense", _QWEN3_5_DENSE,
        "transformers/models/qwen3_5/configuration_qwen3_5.py 82-120, modeling_qwen3_5.py 499-542, 742-870, "
        "1203-1215, 1650-1662",
    ),
    "qwen3_5_moe_text": Variant(
        "qwen3_5_moe_text", "Qwen3_5MoeTextConfig", "Qwen3_5Moe", "Qwen3_5MoeTextModel", "qwen3_5_moe", "all",
        _QWEN3_5_MOE,
        "transformers/models/qwen3_5_moe/configuration_qwen3_5_moe.py 89-130, modeling_qwen3_5_moe.py 495-538, "
        "738-933, 1292-1304, 1811-1823",
    ),
}  # fmt: skip

#: Each variant's config class's every key at transformers 5.23.0 (configuration_qwen3_5.py 82-120,
#: configuration_qwen3_5_moe.py 89-130): the shape keys with their defaults (``full_attention_interval`` and
#: ``partial_rotary_factor``, keywords ``__post_init__`` reads, among them), the others with why they shape nothing.
VARIANT_KEYS = {
    "qwen3_next": KEYS,
    "qwen3_5_text": Keys(
        "Qwen3_5TextConfig",
        _QWEN3_5_DENSE,
        {
            k: INERT[k]
            for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "rope_scaling", "rope_theta")
        },
    ),  # fmt: skip
    "qwen3_5_moe_text": Keys("Qwen3_5MoeTextConfig", _QWEN3_5_MOE, KEYS.inert),
}


def qwen3_next(config: Mapping[str, Any]) -> Module:
    """``Qwen3NextForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it (:func:`build`).

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
        As :func:`build`.
    """
    return build(config, VARIANTS["qwen3_next"])


def build(config: Mapping[str, Any], variant: Variant) -> Module:
    """The model of ``variant`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at the config class's defaults.
    variant : Variant

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; a layer pattern transformers would not build; more experts per
        token than experts; naming the key.
    """
    v, P = variant, variant.prefix
    c = VARIANT_KEYS[v.model_type].resolve(config)  # the class's whole key set: a key outside it is noted
    c = {**_DEFAULTS, **c} if v.moe != "pattern" else c  # keys the variant lacks: read as absent
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    H, d = hf_config.size(c, "num_attention_heads"), hf_config.size(c, "head_dim")
    KV = kv_heads(c, H)
    hk, hv = hf_config.size(c, "linear_num_key_heads"), hf_config.size(c, "linear_num_value_heads")
    dk, dv = hf_config.size(c, "linear_key_head_dim"), hf_config.size(c, "linear_value_head_dim")
    K = hf_config.size(c, "linear_conv_kernel_dim")
    bias, tie = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "tie_word_embeddings")
    rotary = rotary_dim(c, d)
    types = linear_layer_types(c, L)
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, attention_bias=bias)
    shape.update(linear_num_key_heads=hk, linear_num_value_heads=hv, linear_key_head_dim=dk)
    shape.update(linear_value_head_dim=dv, linear_conv_kernel_dim=K)
    fixed: tuple[str, ...] = ("num_hidden_layers", "layer_types")
    if v.moe == "dense":
        kinds = [(t, False) for t in types]
    else:
        E, k = (
            hf_config.size(c, "num_experts", 0 if v.moe == "pattern" else 1),
            hf_config.size(c, "num_experts_per_tok"),
        )
        if type(E) is int and type(k) is int and E > 0 and k > E:
            raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_experts ({E})")
        Fe, Fs = hf_config.size(c, "moe_intermediate_size"), hf_config.size(c, "shared_expert_intermediate_size")
        shape.update(num_experts=E, num_experts_per_tok=k, moe_intermediate_size=Fe, shared_expert_intermediate_size=Fs)
        if v.moe == "all":
            kinds = [(t, True) for t in types]
        else:
            step = hf_config.size(c, "decoder_sparse_step")
            if type(step) is not int or type(E) is not int:
                raise ValueError(
                    "config keys 'decoder_sparse_step' and 'num_experts' must be numbers: they fix the pattern"
                )
            only = c["mlp_only_layers"] or []
            if isinstance(only, str) or not isinstance(only, Sequence):
                raise ValueError(f"config key 'mlp_only_layers' must be a list of layer indices, got {only!r:.60}")
            kinds = [(t, i not in only and E > 0 and (i + 1) % step == 0) for i, t in enumerate(types)]
            shape.update(decoder_sparse_step=step, mlp_only_layers=list(only))
            fixed += ("num_experts", "decoder_sparse_step", "mlp_only_layers")
    if v.moe != "all":
        F = shape["intermediate_size"] = hf_config.size(c, "intermediate_size")

    def make(kind: tuple[str, bool]) -> Module:
        mixer_type, sparse = kind
        if mixer_type == "linear_attention":
            mixer = gated_deltanet(D, hk, hv, dk, dv, K, spelling=v.spelling)
        else:
            mixer = self_attention(
                D, H, KV, d, bias=bias, qk_norm=True, gated=True, norm_type=f"{P}RMSNorm", type=f"{P}Attention",
            )  # fmt: skip
        if sparse:
            mlp = moe_block(
                router(D, E, name="gate", type=f"{P}TopKRouter"),
                routed_experts(D, Fe, E, k, type=f"{P}Experts"),
                gated_mlp(D, Fs, name="shared_expert", type=f"{P}MLP"),
                linear(D, 1, False, name="shared_expert_gate").replace(part="shared experts"),
                type=f"{P}SparseMoeBlock",
            )
        else:
            mlp = gated_mlp(D, F, type=f"{P}MLP")
        norm = lambda n: rms_norm((D,), name=n, type=f"{P}RMSNorm")  # noqa: E731
        return Module(
            "", f"{P}DecoderLayer", children=(mixer, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        )

    shape.update(layer_types=types, tie_word_embeddings=tie, _fixed=fixed)
    model = causal_lm(
        P, vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape, rotary=rope_buffers(rotary),
        architecture=f"{P}ForCausalLM",
    )  # fmt: skip
    inner = model.children[0]
    rotary_cls = f"{P}TextRotaryEmbedding" if v.moe != "pattern" else f"{P}RotaryEmbedding"
    body = tuple(m.replace(type=rotary_cls) if m.name == "rotary_emb" else m for m in inner.children)
    return model.replace(children=(inner.replace(type=v.model_cls, children=body), *model.children[1:]))


def _reader(variant: Variant) -> Any:
    def read(config: Mapping[str, Any]) -> Module:
        return build(config, variant)

    return read


for _variant in VARIANTS.values():
    register_family(
        _variant.model_type, _variant.config_cls, f"{_variant.prefix}ForCausalLM", _reader(_variant), _variant.source,
        keys=VARIANT_KEYS[_variant.model_type],
    )  # fmt: skip
