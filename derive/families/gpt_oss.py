"""gpt-oss (``model_type`` ``gpt_oss``): sliding-window and full-attention layers alternating by ``layer_types``,
a learned attention sink per head, and a mixture of biased experts in every layer.

``GptOssForCausalLM`` (``models/gpt_oss/modeling_gpt_oss.py`` 46-64 ``GptOssRMSNorm``, 67-113 ``GptOssExperts``,
116-129 ``GptOssTopKRouter``, 132-145 ``GptOssMLP``, 148-192 ``GptOssRotaryEmbedding``, 258-327
``GptOssAttention``, 330-337 ``GptOssDecoderLayer``, 413-429 ``GptOssModel``, 564-577): every layer

- ``self_attn``: its own ``sinks`` (H,) — one logit per head joined to the scores before the softmax and
  dropped after it (``eager_attention_forward``, 243-251: no matrix product) — then q/k/v/o, each biased
  when ``attention_bias`` (default True);
- ``mlp`` (``GptOssMLP``, the MoE block): ``router`` (``weight`` (E, D) and ``bias`` (E,), one ``F.linear``)
  and ``experts``, their tensors as transformers builds them, the fused gate/up stored (E, D, 2F) (its input
  axis first: ``x @ gate_up_proj[e]``) with ``gate_up_proj_bias`` (E, 2F), then ``down_proj`` (E, F, D)
  and ``down_proj_bias`` (E, D); E = ``num_local_experts``, k = ``num_experts_per_tok``, F =
  ``intermediate_size``;
- ``input_layernorm``, ``post_attention_layernorm``.

``GptOssConfig.__post_init__`` (``configuration_gpt_oss.py`` 78-97) sets a null ``num_key_value_heads`` to
the heads, a null ``head_dim`` to ``hidden_size // num_attention_heads`` — but the class is ``@strict`` and
types both ``int``, so a null one is refused before (as here, naming the key) — and a null ``layer_types``
to layer i sliding when i is even (i + 1 odd), full otherwise; the sliding layers' attention and cache
(``DynamicSlidingWindowLayer``) keep ``sliding_window - 1`` tokens. Its default RoPE is YaRN (factor 32): the
buffers hold ``head_dim / 2`` frequencies whatever the type.

A released checkpoint's ``quantization_config`` (MXFP4 experts) changes nothing ``from_config`` builds:
the count is the logical model's; the bytes stored are :mod:`derive.analysis`'s.

A token's matmul FLOPs (``FlopCounterMode`` on the eager experts): 2·E·D for the router, 2·k·3·D·F for the
experts it visits (``x @ gate_up_proj[e]``, then ``@ down_proj[e]``; their biases are added, no product).

>>> from derive.tree import count, active
>>> model = gpt_oss({})   # GptOssConfig(): gpt-oss-120b's shape
>>> count(model), active(model)
(116829156672, 5711982912)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.moe import moe_block, router
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .granitemoe import experts_per_token
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, lm, not_null

__all__ = ["KEYS", "gpt_oss", "gpt_oss_experts", "default_layer_types"]

#: ``GptOssConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "GptOssConfig",
    {
        "vocab_size": 201088,
        "hidden_size": 2880,
        "intermediate_size": 2880,
        "num_hidden_layers": 36,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "num_local_experts": 128,
        "num_experts_per_tok": 4,
        "sliding_window": 128,
        "layer_types": None,
        "tie_word_embeddings": False,
        "attention_bias": True,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "swiglu_alpha": "the sigmoid gain of the experts' clamped SwiGLU (modeling_gpt_oss.py 85): no tensor",
        "swiglu_limit": "the clamp of the experts' gate and up projection (modeling_gpt_oss.py 83-84): no tensor",
        "router_aux_loss_coef": "the weight of the load-balancing loss in training: no tensor",
        "output_router_logits": "whether the forward returns the routers' logits: no tensor",
        **ROPE_INERT,
    },
    aliases={"num_experts": "num_local_experts"},
)
_SOURCE = (
    "transformers/models/gpt_oss/configuration_gpt_oss.py 22-97, modeling_gpt_oss.py 46-192, 227-337, 413-429, "
    "564-577; cache_utils.py 196-256, 1910-1957"
)
_KINDS = ("full_attention", "sliding_attention")


def default_layer_types(layers: Any) -> list[str]:
    """``GptOssConfig``'s ``layer_types`` when none is given: layer i sliding when i + 1 is odd, else full
    (``configuration_gpt_oss.py`` 83-86).

    Parameters
    ----------
    layers : int
        ``num_hidden_layers``.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        A layer count that is not a number (the pattern is one entry per layer).
    """
    if type(layers) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: layer_types is one entry per layer")
    return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(layers)]


def _experts_flops(module: Module, tokens: Dim) -> Any:
    """2·k/E of the experts' matrices (their biases are added, no product)."""
    top_k, experts = module.routed  # type: ignore[misc]
    weights = sum((p.numel for p in module.params if len(p.shape) == 3), 0)
    if type(weights) is int and type(experts) is int and type(top_k) is int:
        return 2 * weights // experts * top_k
    return 2 * weights * top_k / experts


def gpt_oss_experts(hidden_size: Dim, intermediate_size: Dim, num_experts: Dim, top_k: Dim) -> Module:
    """``GptOssExperts``: ``gate_up_proj`` (E, D, 2F), ``gate_up_proj_bias`` (E, 2F), ``down_proj`` (E, F, D),
    ``down_proj_bias`` (E, D) (``modeling_gpt_oss.py`` 67-77), a token visiting k of the E.

    Parameters
    ----------
    hidden_size, intermediate_size, num_experts, top_k : int or sympy.Expr
        D, F, E and k.

    Returns
    -------
    derive.tree.Module
        E·(3·D·F + 2·F + D) parameters, :attr:`~derive.tree.Module.routed` = (k, E), its FLOPs rule registered.
    """
    D, F, E = hidden_size, intermediate_size, num_experts
    params = (
        Param("gate_up_proj", (E, D, 2 * F)),
        Param("gate_up_proj_bias", (E, 2 * F)),
        Param("down_proj", (E, F, D)),
        Param("down_proj_bias", (E, D)),
    )
    register("GptOssExperts", _experts_flops)
    return Module("experts", "GptOssExperts", params, routed=(top_k, E), part="routed experts")


def gpt_oss(config: Mapping[str, Any]) -> Module:
    """``GptOssForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GptOssConfig``'s defaults; sizes may be SymPy symbols (the layer count a number).

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (k, E).

    Raises
    ------
    ValueError
        A null key the ``@strict`` class types int, more experts per token than experts, a bad ``layer_types``,
        sliding layers without a window, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    not_null(
        config,
        ("num_key_value_heads", "head_dim", "num_local_experts", "num_experts_per_tok", "intermediate_size"),
        "GptOssConfig",
    )
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="GptOssAttention", null="derived")
    E = hf_config.size(c, "num_local_experts")
    k = experts_per_token(c, E)
    L = hf_config.size(c, "num_hidden_layers", 0)
    kinds = c["layer_types"] if c["layer_types"] is not None else default_layer_types(L)
    c = {**c, "layer_types": kinds}
    _, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    bias = hf_config.flag(c, "attention_bias")
    norm = "GptOssRMSNorm"

    def layer(w: Any) -> Module:
        attn = self_attention(D, H, KV, d, bias=bias, window=w, type="GptOssAttention")
        attn = attn.replace(params=(Param("sinks", (H,)),))
        gate = router(D, E, name="router", type="GptOssTopKRouter")
        gate = gate.replace(params=(*gate.params, Param("bias", (E,))))
        moe = moe_block(gate, gpt_oss_experts(D, F, E, k), type="GptOssMLP")
        children = (
            attn,
            moe,
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
        )
        return Module("", "GptOssDecoderLayer", children=children)

    shape: dict[str, Any] = {"num_local_experts": E, "num_experts_per_tok": k, "attention_bias": bias}
    shape.update(cache_shape(c, None, windows, null_window=True))
    return lm(c, prefix="GptOss", layer=layer, kinds=windows, head_dim=d, shape=shape)


register_family("gpt_oss", "GptOssConfig", "GptOssForCausalLM", gpt_oss, _SOURCE, keys=KEYS)
