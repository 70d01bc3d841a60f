"""GLM-4-MoE (``model_type`` ``glm4_moe``: GLM-4.5, GLM-4.5-Air, GLM-4.6, GLM-4.7): grouped-query attention with
biased q/k/v, optional QK-norms and half of each head rotated, dense MLPs in the first layers, then DeepSeek-V3's
mixture of experts (routed experts, the sigmoid router with its correction-bias buffer, shared experts).

``Glm4MoeForCausalLM`` (``models/glm4_moe/modeling_glm4_moe.py`` 45-80 ``Glm4MoeRotaryEmbedding``: two float32
buffers of ⌈int(head_dim · partial_rotary_factor) / 2⌉; 174-201 ``Glm4MoeAttention``: q/k/v biased when
``attention_bias``, ``o_proj`` never, ``q_norm``/``k_norm`` RMSNorms of ``head_dim`` when ``use_qk_norm``;
252-261 ``Glm4MoeMLP``; 268-279 ``Glm4MoeTopkRouter``: ``weight`` (E, D) and the float32 buffer
``e_score_correction_bias`` (E,); 331-341 ``Glm4MoeExperts``: ``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F),
F = ``moe_intermediate_size``; 370-383 ``Glm4MoeMoE``: ``experts``, ``gate``, ``shared_experts`` (a gated MLP of
``moe_intermediate_size * n_shared_experts``); 394-407 ``Glm4MoeDecoderLayer``: the MoE from layer
``first_k_dense_replace`` on, a gated MLP of ``intermediate_size`` below; 474-483 ``Glm4MoeModel``; 550-560).
``Glm4MoeConfig`` (``configuration_glm4_moe.py``): ``num_local_experts`` is ``n_routed_experts``
(``attribute_map``), ``partial_rotary_factor`` 0.5 by default (read as GLM-4's,
:func:`derive.families.glm4.glm_rotary`); it has no ``head_dim``: the attention reads ``getattr(config,
"head_dim", ...)`` (null refused). The router's ``n_group`` / ``topk_group`` choose experts (no tensor, no matmul);
groups that do not divide the experts, of fewer than two experts, or fewer than ``topk_group`` fail in
transformers' router and are refused. The release's multi-token-prediction layers (``num_nextn_predict_layers``)
are not built by ``from_config`` and not counted. The cache is ``DynamicCache(config=...)``'s
(:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count, active
>>> model = glm4_moe({"hidden_size": 5120, "num_hidden_layers": 92, "head_dim": 128, "moe_intermediate_size": 1536,
...                   "n_routed_experts": 160, "first_k_dense_replace": 3, "vocab_size": 151552,
...                   "intermediate_size": 12288, "use_qk_norm": True, "attention_bias": True})  # GLM-4.5's shape
>>> count(model), active(model)
(352797814784, 33632251904)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import deepseek_moe
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads, rope_buffers
from .deepseek_v3 import dense_first
from .family import Keys, register_family
from .glm4 import glm_rotary
from .llama_like import CACHE_KEYS, cache_shape, cache_windows, head_width, lm, not_null
from .olmoe import MOE_INERT
from .qwen3_moe import check_top_k

__all__ = ["KEYS", "glm4_moe"]

#: ``Glm4MoeConfig``'s every key at transformers 5.23.0 (``configuration_glm4_moe.py``), and ``head_dim``, which
#: the class does not define and the attention reads.
KEYS = Keys(
    "Glm4MoeConfig",
    {
        "vocab_size": 151552,
        "hidden_size": 4096,
        "intermediate_size": 10944,
        "num_hidden_layers": 46,
        "num_attention_heads": 96,
        "num_key_value_heads": 8,
        "head_dim": None,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "use_qk_norm": False,
        "moe_intermediate_size": 1408,
        "num_experts_per_tok": 8,
        "n_shared_experts": 1,
        "n_routed_experts": 128,
        "first_k_dense_replace": 1,
        "n_group": 1,
        "topk_group": 1,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "rope_parameters": "the rotary embedding's frequencies: buffers only, of the rotated width (glm_rotary)",
        "rope_scaling": "the legacy spelling of rope_parameters, read first (glm_rotary)",
        "partial_rotary_factor": "the rotated fraction of a head (default 0.5): the buffers' width (glm_rotary)",
        **MOE_INERT,
        "routed_scaling_factor": "a scale of the routed experts' weights: no tensor",
        "num_nextn_predict_layers": "the release's multi-token-prediction layers: from_config builds none",
    },
    aliases={"num_local_experts": "n_routed_experts", "num_mtp_layers": "num_nextn_predict_layers"},
)
_SOURCE = (
    "transformers/models/glm4_moe/configuration_glm4_moe.py, modeling_glm4_moe.py 45-80, 174-201, 252-383, "
    "394-407, 474-483, 550-560"
)


def _check_groups(E: Dim, k: Dim, groups: Any, keep: Any) -> None:
    """The router's groups as ``Glm4MoeTopkRouter.forward`` reshapes and ranks them (``view(-1, n_group, E //
    n_group).topk(2)``, then ``topk(topk_group)`` of the groups)."""
    for key, value in (("n_group", groups), ("topk_group", keep)):
        if isinstance(value, bool) or type(value) is not int or value < 1:
            raise ValueError(f"config key {key!r} must be an int >= 1, got {value!r}")
    if type(E) is not int:
        return
    if E % groups or E // groups < 2:
        raise ValueError(
            f"config key 'n_group' ({groups}) must divide n_routed_experts ({E}) into groups of two or more: "
            f"the router's view(-1, n_group, E // n_group).topk(2) fails"
        )
    if keep > groups:
        raise ValueError(f"config key 'topk_group' ({keep}) exceeds n_group ({groups}): the router's topk fails")
    check_top_k(E, k, True)


def glm4_moe(config: Mapping[str, Any]) -> Module:
    """``Glm4MoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Glm4MoeConfig``'s defaults; either name of an aliased key; sizes may be SymPy symbols
        (not the layer count nor ``first_k_dense_replace``: they fix the pattern).

    Returns
    -------
    derive.tree.Module
        Each MoE layer's ``mlp.experts`` carries ``routed`` = (num_experts_per_tok, n_routed_experts).

    Raises
    ------
    ValueError
        A null ``head_dim`` or ``num_key_value_heads``, router groups transformers' router fails on, more experts
        per token than experts, a RoPE derive does not map, a bad ``layer_types``, naming the key.
    """
    if "num_local_experts" in config:  # the alias is set after the field: transformers builds it
        config = {k: v for k, v in config.items() if k != "n_routed_experts"}
    not_null(config, ("num_key_value_heads",), "Glm4MoeConfig")
    c = KEYS.resolve(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="Glm4MoeAttention", null="given")
    rot = glm_rotary(config, d, 0.5, given=c.get("head_dim") is not None)
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    Fe, shared = hf_config.size(c, "moe_intermediate_size"), hf_config.size(c, "n_shared_experts", 0)
    E, k = hf_config.size(c, "n_routed_experts"), hf_config.size(c, "num_experts_per_tok")
    L = hf_config.size(c, "num_hidden_layers", 0)
    first = c["first_k_dense_replace"]
    if isinstance(first, bool) or type(first) is not int or type(L) is not int:
        raise ValueError(
            f"config keys 'first_k_dense_replace' ({first!r}) and 'num_hidden_layers' must be numbers: they fix the "
            f"layer pattern"
        )
    mlps = dense_first(first, L)
    if "sparse" in mlps:
        _check_groups(E, k, c["n_group"], c["topk_group"])
    bias, qk = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "use_qk_norm")
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape: dict[str, Any] = {"attention_bias": bias, "use_qk_norm": qk, "moe_intermediate_size": Fe}
    shape.update(n_shared_experts=shared, n_routed_experts=E, num_experts_per_tok=k, first_k_dense_replace=first)
    shape.update(cache_shape(c, window, windows))
    shape["_fixed"] = tuple(dict.fromkeys(("num_hidden_layers", "first_k_dense_replace", *shape.get("_fixed", ()))))
    ws = windows if windows is not None else [window] * L
    kinds = list(zip(ws, mlps))

    def layer(kind: tuple[Dim | None, str]) -> Module:
        w, mlp_kind = kind
        attn = self_attention(
            D, H, KV, d, bias=bias, output_bias=False, qk_norm=qk, window=w, norm_type="Glm4MoeRMSNorm",
            type="Glm4MoeAttention",
        )  # fmt: skip
        mlp = (
            deepseek_moe(D, Fe, E, k, shared, prefix="Glm4Moe")
            if mlp_kind == "sparse"
            else gated_mlp(D, F, type="Glm4MoeMLP")
        )
        norm = lambda n: rms_norm((D,), name=n, type="Glm4MoeRMSNorm")  # noqa: E731
        return Module("", "Glm4MoeDecoderLayer", children=(attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm")))  # fmt: skip

    return lm(c, prefix="Glm4Moe", layer=layer, kinds=kinds, head_dim=d, shape=shape, rotary=rope_buffers(rot))


register_family("glm4_moe", "Glm4MoeConfig", "Glm4MoeForCausalLM", glm4_moe, _SOURCE, keys=KEYS)
