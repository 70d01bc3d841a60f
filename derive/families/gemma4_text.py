"""Gemma 4's text model (``model_type`` ``gemma4_text``): sliding and full layers of their own head widths,
per-layer embeddings, keys and values shared by the last layers, keys that are the values on full layers
(``attention_k_eq_v``), and a mixture of experts beside the MLP (``enable_moe_block``).

``Gemma4ForCausalLM`` (``models/gemma4/modeling_gemma4.py`` 204-222 ``Gemma4RMSNorm``, 1059-1070
``Gemma4TextMLP``, 1078-1107 ``Gemma4TextRotaryEmbedding``, 1150-1200 ``Gemma4TextAttention``, 1263-1274
``Gemma4TextExperts``, 1302-1313 ``Gemma4TextRouter``, 1339-1365 ``Gemma4TextDecoderLayer``, 1428-1440,
1544-1585 ``Gemma4TextModel``, 1853-1865), each layer read through ``config.per_layer_config[i]``
(``integrations/heterogeneity/configuration_utils.py``):

- ``layer_types`` defaults to five sliding layers then one full, and its last layer is made full whatever it
  says (``configuration_gemma4.py`` ``__post_init__``); a full layer's ``head_dim`` is ``global_head_dim``
  (default 512) and, when ``attention_k_eq_v``, its key/value heads ``num_global_key_value_heads`` — the
  ``per_layer_config`` the class makes of them, or the one the config gives (overrides of ``head_dim`` and
  ``num_key_value_heads`` only are derived);
- ``self_attn``: ``q_proj``, ``q_norm``, then — a layer that does not reuse another's keys and values — ``k_norm``
  (``v_norm`` holds no weight), ``k_proj`` and ``v_proj``, which a full layer with ``attention_k_eq_v`` does not
  have (its values are its keys' projection); ``o_proj``;
- ``mlp`` (gate/up/down; twice as wide on a reusing layer with ``use_double_wide_mlp``), four norms, the buffer
  ``layer_scalar`` (1,); with ``hidden_size_per_layer_input`` (nonzero) ``per_layer_input_gate``,
  ``per_layer_projection``, ``post_per_layer_input_norm``; with ``enable_moe_block`` ``router`` (``scale``,
  ``per_expert_scale``, ``proj`` Linear(D, E)), ``experts`` (fused, ``top_k_experts`` of ``num_experts`` a
  token) and three more norms;
- the model: ``embed_tokens`` (scaled), the layers, ``norm``, ``rotary_emb`` (a pair of buffers per layer type:
  ⌈d/2⌉ for the default RoPE, d // 2 for the proportional one, d the type's head width), and with per-layer
  inputs ``embed_tokens_per_layer``, ``per_layer_model_projection``, ``per_layer_projection_norm``; ``lm_head``
  tied by default.

The cache is ``DynamicCache(config=...)``'s (``cache_utils.py`` 1910-1940): nothing for a reusing layer
(``DummyLayer``), else keys and values of the layer's own heads and width, ``window - 1`` tokens on a sliding
layer. ``use_bidirectional_attention`` ``"vision"`` touches only the multimodal model's masks; ``"all"`` makes
every mask bidirectional and the window ``sliding_window // 2 + 1`` (``__post_init__``; ``to_dict`` writes back
``(window - 1) · 2``), which the sliding layers and their cache then hold.

>>> from derive.tree import count
>>> count(gemma4_text({}))   # Gemma4TextConfig()
5077177856
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops, kv_state
from ..layers.mlp import gated_mlp
from ..layers.moe import routed_experts
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_TYPES, floordiv, kinds_of, layer_list
from .family import Keys, register_family
from .gemma import scaled_embedding
from .gemma3n_text import sharing
from .llama_like import not_null

__all__ = ["KEYS", "gemma4_text"]

#: ``Gemma4TextConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Gemma4TextConfig",
    {
        "vocab_size": 262144,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 30,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "tie_word_embeddings": True,
        "attention_bias": False,
        "sliding_window": 512,
        "layer_types": None,
        "use_bidirectional_attention": None,
        "vocab_size_per_layer_input": 262144,
        "hidden_size_per_layer_input": 256,
        "attention_k_eq_v": False,
        "num_kv_shared_layers": 0,
        "enable_moe_block": False,
        "use_double_wide_mlp": False,
        "num_experts": None,
        "top_k_experts": None,
        "moe_intermediate_size": None,
        "rope_parameters": None,
        # not Gemma4TextConfig's fields: popped by its __post_init__ into per_layer_config (PreTrainedConfig's)
        "global_head_dim": 512,
        "num_global_key_value_heads": None,
        "per_layer_config": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout")},
        "hidden_activation": "the MLP's, the experts' and the per-layer gate's activation: no tensor",
        "final_logit_softcapping": "a tanh cap on the logits: no tensor",
    },
)
_SOURCE = (
    "transformers/models/gemma4/configuration_gemma4.py (Gemma4TextConfig), modeling_gemma4.py 204-222, "
    "1059-1107, 1150-1200, 1263-1313, 1339-1365, 1428-1440, 1544-1585, 1853-1865; "
    "integrations/heterogeneity/configuration_utils.py; modeling_rope_utils.py 194-250; cache_utils.py 1910-1940"
)
_KINDS = ("full_attention", "sliding_attention")
_DEFAULT_ROPE = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
    "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1_000_000.0},
}

register("Gemma4TextAttention", attention_flops)


def _overrides(c: Mapping[str, Any], kinds: list[str], L: int) -> dict[int, dict[str, Any]]:
    """Each layer's overrides of ``head_dim`` / ``num_key_value_heads`` (``per_layer_config``, given or made)."""
    given = c["per_layer_config"]
    if given is None:
        over: dict[str, Any] = {"head_dim": c["global_head_dim"]}
        if c["attention_k_eq_v"] and c["num_global_key_value_heads"] is not None:
            over["num_key_value_heads"] = c["num_global_key_value_heads"]
        return {i: dict(over) for i, kind in enumerate(kinds) if kind == "full_attention"}
    if not isinstance(given, Mapping):
        raise ValueError(f"config key 'per_layer_config' must be an object of layer indices, got {given!r:.60}")
    out: dict[int, dict[str, Any]] = {}
    for key, value in given.items():
        try:
            i = int(key)
        except (TypeError, ValueError):
            raise ValueError(f"config key 'per_layer_config': {key!r} is not a layer index") from None
        if not 0 <= i < L or not isinstance(value, Mapping):
            raise ValueError(f"config key 'per_layer_config': layer {key!r} must be in [0, {L}) with an object")
        unknown = sorted(set(value) - {"head_dim", "num_key_value_heads"})
        if unknown:
            raise ValueError(f"config key 'per_layer_config': overrides of {unknown} are not derived")
        out[i] = dict(value)
    return out


def _rope(c: Mapping[str, Any]) -> Mapping[str, Any]:
    rope = c["rope_parameters"] if c["rope_parameters"] is not None else _DEFAULT_ROPE
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
    return rope


def _rope_width(rope: Any, kind: str, d: Dim) -> Dim | None:
    """The buffers' entries for a layer type's RoPE: ⌈d/2⌉ (default, whatever ``partial_rotary_factor`` says:
    ``Gemma4TextRotaryEmbedding.compute_default_rope_parameters`` does not read it; the other types of
    :data:`ROPE_TYPES` with their whole head turned, as the attention turns it), d // 2 (proportional,
    ``modeling_rope_utils.py`` 232-250); None: no RoPE."""
    if rope is None:
        return None
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters': {kind} must be an object, got {rope!r:.60}")
    kind_of = rope.get("rope_type", "default")
    if kind_of == "proportional":
        factor = rope.get("partial_rotary_factor", 1.0)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 <= factor <= 1:
            raise ValueError(f"config key 'rope_parameters': {kind} partial_rotary_factor must be in [0, 1]")
        return floordiv(d, 2)
    if kind_of not in ROPE_TYPES:
        raise ValueError(f"config key 'rope_parameters': {kind}'s rope_type {kind_of!r} is not derived")
    if kind_of != "default" and rope.get("partial_rotary_factor", 1.0) != 1.0:
        raise ValueError(
            f"config key 'rope_parameters': {kind}'s partial_rotary_factor {rope['partial_rotary_factor']!r} with "
            f"rope_type {kind_of!r} turns part of a head the attention rotates whole (its first forward fails)"
        )
    return floordiv(d + 1, 2)


def gemma4_text(config: Mapping[str, Any]) -> Module:
    """``Gemma4ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Gemma4TextConfig``'s defaults; the layer count is a number (it fixes the pattern).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A bad ``layer_types`` or ``per_layer_config``, layers of one type with different widths, a shared
        layer type no earlier layer makes, a mixture of experts without its sizes, a ``use_bidirectional_attention``
        the class does not know, a RoPE derive does not map, a null key ``@strict`` types int, naming the key.
    """
    c = KEYS.resolve(config)
    not_null(config, ("num_key_value_heads", "head_dim", "sliding_window"), "Gemma4TextConfig")
    bidirectional = c["use_bidirectional_attention"]
    if bidirectional not in (None, "vision", "all"):
        raise ValueError(
            f"config key 'use_bidirectional_attention' must be None, 'vision' or 'all', got {bidirectional!r:.60}"
        )
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L, H = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_attention_heads")
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    F, window = hf_config.size(c, "intermediate_size"), hf_config.size(c, "sliding_window")
    if bidirectional == "all":  # __post_init__ halves the window (exclusive bounds): the layers and the cache read it
        window = floordiv(window, 2) + 1
    P = hf_config.size(c, "hidden_size_per_layer_input", 0)
    given = c["layer_types"]
    if given is None:
        kinds = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(L)]
    else:
        kinds = kinds_of("layer_types", given, L, _KINDS)
    if kinds:
        kinds[-1] = "full_attention"  # the class forces it (configuration_gemma4.py __post_init__)
    shared = c["num_kv_shared_layers"]
    if isinstance(shared, bool) or type(shared) is not int or not 0 <= shared < max(L, 1):
        raise ValueError(f"config key 'num_kv_shared_layers' must be an int in [0, {L}), got {shared!r}")
    modes = sharing(kinds, shared)
    over = _overrides(c, kinds, L)
    heads = [over.get(i, {}).get("num_key_value_heads", c["num_key_value_heads"]) for i in range(L)]
    widths = [over.get(i, {}).get("head_dim", c["head_dim"]) for i in range(L)]
    KVs = [hf_config.size({"num_key_value_heads": h}, "num_key_value_heads") for h in heads]
    ds = [hf_config.size({"head_dim": w}, "head_dim") for w in widths]
    k_eq_v, double = hf_config.flag(c, "attention_k_eq_v"), hf_config.flag(c, "use_double_wide_mlp")
    moe, bias, tie = (hf_config.flag(c, k) for k in ("enable_moe_block", "attention_bias", "tie_word_embeddings"))
    if moe:
        for key in ("num_experts", "top_k_experts", "moe_intermediate_size"):
            if c[key] is None:
                raise ValueError(f"config key {key!r} is null but enable_moe_block is true (transformers fails)")
        E, k, Fe = (hf_config.size(c, key) for key in ("num_experts", "top_k_experts", "moe_intermediate_size"))
        if type(k) is int and type(E) is int and k > E:
            raise ValueError(f"config key 'top_k_experts' ({k}) exceeds num_experts ({E}) (topk fails)")
    norm = lambda name, width=D: rms_norm((width,), name=name, type="Gemma4RMSNorm")  # noqa: E731

    def make(kind: tuple[Any, ...]) -> Module:
        layer_type, reuse, KV, d = kind
        w = window if layer_type == "sliding_attention" else None
        proj: tuple[Module, ...] = (linear(D, H * d, bias, name="q_proj"), norm("q_norm", d))
        if not reuse:
            proj += (norm("k_norm", d), linear(D, KV * d, bias, name="k_proj"))
            if not (k_eq_v and layer_type == "full_attention"):
                proj += (linear(D, KV * d, bias, name="v_proj"),)
        proj += (linear(H * d, D, bias, name="o_proj"),)
        config = {"num_heads": H, "num_kv_heads": KV, "head_dim": d, "value_dim": d, "window": w}
        cache = () if reuse else kv_state(KV, d, window=w)
        attn = Module("self_attn", "Gemma4TextAttention", children=proj, config=config, cache=cache, part="attention")
        names = (
            "input_layernorm",
            "post_attention_layernorm",
            "pre_feedforward_layernorm",
            "post_feedforward_layernorm",
        )
        children = (
            attn,
            gated_mlp(D, 2 * F if double and reuse else F, type="Gemma4TextMLP"),
            *(norm(x) for x in names),
        )
        if P:
            children += (
                linear(D, P, False, name="per_layer_input_gate").replace(part="per-layer inputs"),
                linear(P, D, False, name="per_layer_projection").replace(part="per-layer inputs"),
                norm("post_per_layer_input_norm"),
            )
        if moe:
            router = Module("router", "Gemma4TextRouter", (Param("scale", (D,)), Param("per_expert_scale", (E,))),
                            children=(linear(D, E, False, name="proj"),), part="routers")  # fmt: skip
            experts = routed_experts(D, Fe, E, k, type="Gemma4TextExperts")
            extra = ("post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2")
            children += (router, experts, *(norm(x) for x in extra))
        return Module("", "Gemma4TextDecoderLayer", (Param("layer_scalar", (1,), buffer=True),), children=children)

    rope = _rope(c)
    rotary: tuple[Param, ...] = ()
    for kind in sorted(set(kinds)):
        if kind not in rope:
            raise ValueError(f"config key 'rope_parameters' has no {kind} entry (transformers' rotary embedding fails)")
        typed = {(KVs[i], ds[i]) for i, t in enumerate(kinds) if t == kind}
        if len(typed) > 1:
            raise ValueError(
                f"config key 'per_layer_config': the {kind} layers differ (transformers' rotary embedding refuses it)"
            )
        n = _rope_width(rope[kind], kind, ds[kinds.index(kind)])
        if n is not None:
            rotary += (Param(f"{kind}_inv_freq", (n,), buffer=True, dtype="float32"),
                       Param(f"{kind}_original_inv_freq", (n,), buffer=True, dtype="float32"))  # fmt: skip
    body: tuple[Module, ...] = (
        scaled_embedding("Gemma4", V, D),
        layer_list(make, [(t, m == "reuse", KVs[i], ds[i]) for i, (t, m) in enumerate(zip(kinds, modes))], L),
        norm("norm"),
        Module("rotary_emb", "Gemma4TextRotaryEmbedding", rotary),
    )
    if P:
        Vp = hf_config.size(c, "vocab_size_per_layer_input")
        body += (
            scaled_embedding("Gemma4", Vp, L * P).replace(name="embed_tokens_per_layer"),
            linear(D, L * P, False, name="per_layer_model_projection").replace(part="per-layer inputs"),
            norm("per_layer_projection_norm", P),
        )
    model = Module("model", "Gemma4TextModel", children=body)
    head = hf_config.lm_head(D, V, "model.embed_tokens.weight" if tie else None)
    skip = ("global_head_dim", "num_global_key_value_heads", "per_layer_config")
    shape: dict[str, Any] = {k: c[k] for k in KEYS.shape if k not in skip and (c[k] is not None or k in config)}
    # each layer's overrides as numbers (a letter "head_dim" is the sliding layers')
    shape.update(
        layer_types=tuple(kinds), per_layer_config={str(i): {**o, "_fixed": tuple(o)} for i, o in over.items()}
    )
    # no per-layer inputs (0) stays a number: a letter is positive
    shape["_fixed"] = ("num_hidden_layers", "num_kv_shared_layers", *(() if P else ("hidden_size_per_layer_input",)))
    return Module("", "Gemma4ForCausalLM", children=(model, head), config=shape)


register_family("gemma4_text", "Gemma4TextConfig", "Gemma4ForCausalLM", gemma4_text, _SOURCE, "gemma4", keys=KEYS)
