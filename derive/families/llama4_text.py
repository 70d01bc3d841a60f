"""Llama 4's text model (``model_type`` ``llama4_text``): chunked-attention RoPE layers and full-attention NoPE
layers, dense MLPs and a mixture of experts with a shared expert interleaved.

``Llama4ForCausalLM`` (``models/llama4/modeling_llama4.py`` 54-83 ``Llama4TextExperts``, 87-102
``Llama4TextMLP``, 105-117 ``Llama4TextL2Norm``, 120-137 ``Llama4TextRMSNorm``, 140-152 ``Llama4Router``,
155-174 ``Llama4TextMoe``, 177-220 ``Llama4TextRotaryEmbedding``, 301-390 ``Llama4TextAttention``, 393-407
``Llama4TextDecoderLayer``, 486-500 ``Llama4TextModel``, 576-583): every layer

- ``self_attn``: q/k/v/o, biased when ``attention_bias``; on a RoPE layer with ``use_qk_norm`` a
  ``qk_norm``, an L2 norm without weights (no tensor); a NoPE layer's queries are scaled by a temperature
  (``attn_temperature_tuning``, ``floor_scale``, ``attn_scale``: element-wise, no tensor);
- ``feed_forward``: in the layers of ``moe_layers`` a ``Llama4TextMoe`` — ``experts`` (``gate_up_proj``
  (E, D, 2F), ``down_proj`` (E, F, D), F = ``intermediate_size``, E = ``num_local_experts``), ``router``
  (a Linear(D, E) without bias) and ``shared_expert`` (a gated MLP of F) —, elsewhere a gated MLP of
  ``intermediate_size_mlp``;
- ``input_layernorm``, ``post_attention_layernorm``.

``Llama4TextConfig.__post_init__`` (``configuration_llama4.py`` 166-193): ``no_rope_layers`` (1: RoPE) is
made, when null or empty, as layer i RoPE unless (i + 1) is a multiple of ``no_rope_layer_interval``;
``moe_layers``, when null, as ``range(interleave_moe_layer_step - 1, num_hidden_layers,
interleave_moe_layer_step)``; ``layer_types``, when null, ``chunked_attention`` for a RoPE layer and
``full_attention`` for a NoPE one. A chunked layer's cache (``DynamicSlidingWindowLayer``) keeps
``attention_chunk_size - 1`` tokens. A token visits k = ``num_experts_per_tok`` experts (the active count),
but ``Llama4TextMoe.forward`` runs every expert on every token, each pre-scaled by its router score (0
off the top k), in two ``bmm``: a token's matmul FLOPs count all E experts (2·E·3·D·F), the router 2·E·D.

>>> from derive.tree import count, active
>>> model = llama4_text({})   # Llama4TextConfig(): Llama-4-Scout-17B-16E's text shape
>>> count(model), active(model)
(107769861120, 17172894720)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, router
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param, count
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads
from .family import Keys, register_family
from .granitemoe import experts_per_token
from .llama_like import ROPE_INERT, cache_shape, cache_windows, check_rope, head_width, lm, not_null

__all__ = ["KEYS", "llama4_text", "llama4_experts", "moe_layers", "rope_layers"]

#: ``Llama4TextConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Llama4TextConfig",
    {
        "vocab_size": 202048,
        "hidden_size": 5120,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_hidden_layers": 48,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "tie_word_embeddings": False,
        "num_experts_per_tok": 1,
        "num_local_experts": 16,
        "moe_layers": None,
        "interleave_moe_layer_step": 1,
        "no_rope_layers": None,
        "no_rope_layer_interval": 4,
        "attention_chunk_size": 8192,
        "layer_types": None,
        "attention_bias": False,
        # not Llama4TextConfig's: read by DynamicCache (cache_utils.py 1918-1948)
        "sliding_window": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "use_qk_norm": "an L2 norm of the queries and keys without weights (modeling_llama4.py 105-117): no tensor",
        "attn_temperature_tuning": "scales a NoPE layer's queries by a temperature (element-wise): no tensor",
        "floor_scale": "the temperature's scale in tokens (element-wise): no tensor",
        "attn_scale": "the temperature's strength (element-wise): no tensor",
        "output_router_logits": "whether the forward returns the routers' logits: no tensor",
        "router_aux_loss_coef": "the weight of the load-balancing loss in training: no tensor",
        "router_jitter_noise": "noise on the router's input in training: no tensor",
        **ROPE_INERT,
        # read in modeling_llama4.py by the vision model, its projector and Llama4ForConditionalGeneration, off
        # their own configs: not keys of this class, never read by Llama4ForCausalLM
        **dict.fromkeys(
            (
                "image_size",
                "image_token_id",
                "num_channels",
                "patch_size",
                "pixel_shuffle_ratio",
                "projector_dropout",
                "projector_input_dim",
                "projector_output_dim",
                "text_config",
                "vision_config",
            ),
            "read by Llama4's vision model or its multimodal wrapper off their own configs, not by Llama4ForCausalLM",
        ),
    },
)
_SOURCE = (
    "transformers/models/llama4/configuration_llama4.py 79-193, modeling_llama4.py 54-220, 301-407, 486-500, "
    "576-583; cache_utils.py 196-256, 1910-1957"
)
_KINDS = ("full_attention", "chunked_attention")


def _ints(key: str, value: Any) -> list[int]:
    if (
        isinstance(value, str)
        or not isinstance(value, Sequence)
        or any(isinstance(v, bool) or type(v) is not int for v in value)
    ):
        raise ValueError(f"config key {key!r} must be a list of ints, got {value!r:.60}")
    return list(value)


def rope_layers(c: Mapping[str, Any], layers: Any) -> list[int]:
    """``no_rope_layers`` as the class settles it: as given when not empty, else layer i 1 (RoPE) unless
    (i + 1) is a multiple of ``no_rope_layer_interval``.

    Parameters
    ----------
    c : mapping
        The resolved config.
    layers : int
        ``num_hidden_layers``.

    Returns
    -------
    list of int
        One entry per layer (a longer list's first ``num_hidden_layers``: the attention reads its layer's).

    Raises
    ------
    ValueError
        Not a list of ints, shorter than the layers (its attention's index fails), or an interval that is
        not a nonzero int, naming the key.
    """
    given = c["no_rope_layers"]
    if given:
        flags = _ints("no_rope_layers", given)
        if len(flags) < layers:
            raise ValueError(f"config key 'no_rope_layers' has {len(flags)} entries for num_hidden_layers={layers}")
        return flags[:layers]
    every = c["no_rope_layer_interval"]
    if isinstance(every, bool) or type(every) is not int or every == 0:
        raise ValueError(f"config key 'no_rope_layer_interval' must be a nonzero int, got {every!r:.60}")
    return [int((i + 1) % every != 0) for i in range(layers)]


def moe_layers(c: Mapping[str, Any], layers: Any) -> list[bool]:
    """Which layers hold the mixture of experts: those of ``moe_layers``, else every
    ``interleave_moe_layer_step``-th from ``interleave_moe_layer_step - 1``.

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
        ``moe_layers`` not a list of ints, a step that is not an int >= 1 (``range`` with step 0 fails; a
        negative one is refused), naming the key.
    """
    given = c["moe_layers"]
    if given is not None:
        chosen = set(_ints("moe_layers", given))
    else:
        step = c["interleave_moe_layer_step"]
        if isinstance(step, bool) or type(step) is not int or step < 1:
            raise ValueError(f"config key 'interleave_moe_layer_step' must be an int >= 1, got {step!r:.60}")
        chosen = set(range(step - 1, layers, step))
    return [i in chosen for i in range(layers)]


def _experts_flops(module: Module, tokens: Dim) -> Any:
    """Every expert on every token (``Llama4TextMoe.forward``: two ``bmm`` over all E)."""
    return 2 * count(module)


def llama4_experts(hidden_size: Dim, intermediate_size: Dim, num_experts: Dim, top_k: Dim) -> Module:
    """``Llama4TextExperts``: ``gate_up_proj`` (E, D, 2F) and ``down_proj`` (E, F, D) (``modeling_llama4.py`` 54-63).

    Parameters
    ----------
    hidden_size, intermediate_size, num_experts, top_k : int or sympy.Expr
        D, F, E and k.

    Returns
    -------
    derive.tree.Module
        3·E·D·F parameters, :attr:`~derive.tree.Module.routed` = (k, E) (the active count); its FLOPs rule
        counts all E (see the module's docstring).
    """
    D, F, E = hidden_size, intermediate_size, num_experts
    params = (Param("gate_up_proj", (E, D, 2 * F)), Param("down_proj", (E, F, D)))
    register("Llama4TextExperts", _experts_flops)
    return Module("experts", "Llama4TextExperts", params, routed=(top_k, E), part="routed experts")


def llama4_text(config: Mapping[str, Any]) -> Module:
    """``Llama4ForCausalLM`` of a ``Llama4TextConfig`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Llama4TextConfig``'s defaults; sizes may be SymPy symbols (the layer count a number).

    Returns
    -------
    derive.tree.Module
        Each MoE layer's ``feed_forward.experts`` carries ``routed`` = (k, E).

    Raises
    ------
    ValueError
        A null key the ``@strict`` class types int, more experts per token than experts, a bad ``moe_layers``,
        ``no_rope_layers`` or ``layer_types``, chunked layers without a chunk size, a RoPE derive does not map,
        naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    not_null(
        config, ("num_key_value_heads", "head_dim", "num_local_experts", "num_experts_per_tok"), "Llama4TextConfig"
    )
    D, F = hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    Fm = hf_config.size(c, "intermediate_size_mlp")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_width(config, c, D, H, cls="Llama4TextAttention", null="derived")
    E = hf_config.size(c, "num_local_experts")
    k = experts_per_token(c, E)
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: the layer pattern is one entry per layer")
    rope = rope_layers(c, L)
    sparse = moe_layers(c, L)
    kinds = c["layer_types"]
    if kinds is None:
        kinds = ["chunked_attention" if r else "full_attention" for r in rope]
    c = {**c, "layer_types": kinds}
    _, windows = cache_windows(c, L, types=kinds, allowed=_KINDS)
    assert windows is not None
    bias = hf_config.flag(c, "attention_bias")
    norm = "Llama4TextRMSNorm"

    def layer(kind: tuple[Any, bool]) -> Module:
        window, moe = kind
        attn = self_attention(D, H, KV, d, bias=bias, window=window, type="Llama4TextAttention")
        if moe:
            ff = moe_block(
                llama4_experts(D, F, E, k),
                router(D, E, name="router", type="Llama4Router"),
                gated_mlp(D, F, name="shared_expert", type="Llama4TextMLP"),
                name="feed_forward",
                type="Llama4TextMoe",
            )
        else:
            ff = gated_mlp(D, Fm, name="feed_forward", type="Llama4TextMLP")
        children = (
            attn,
            ff,
            rms_norm((D,), name="input_layernorm", type=norm),
            rms_norm((D,), name="post_attention_layernorm", type=norm),
        )
        return Module("", "Llama4TextDecoderLayer", children=children)

    shape: dict[str, Any] = {"intermediate_size_mlp": Fm, "num_local_experts": E, "num_experts_per_tok": k}
    shape.update(attention_bias=bias, moe_layers=[i for i, s in enumerate(sparse) if s], no_rope_layers=rope)
    shape.update(cache_shape(c, None, windows))
    model = lm(c, prefix="Llama4Text", layer=layer, kinds=list(zip(windows, sparse)), head_dim=d, shape=shape)
    return model.replace(type="Llama4ForCausalLM")


register_family(
    "llama4_text", "Llama4TextConfig", "Llama4ForCausalLM", llama4_text, _SOURCE, package="llama4", keys=KEYS
)
