"""Gemma 3n's text model (``model_type`` ``gemma3n_text``, Gemma-3n E2B/E4B): per-layer embeddings, AltUp's
residual streams, LAuReL's low-rank residual, and keys and values shared by the last layers.

``Gemma3nForCausalLM`` (``models/gemma3n/modeling_gemma3n.py`` 129-143 ``Gemma3nRMSNorm``, 917-928
``Gemma3nTextScaledWordEmbedding``, 931-946 ``Gemma3nTextLaurelBlock``, 949-960 ``Gemma3nTextMLP``, 987-1003
``Gemma3nTextAltUp``, 1161-1196 ``Gemma3nTextAttention``, 1258-1277 ``Gemma3nTextDecoderLayer``, 1514-1534
``Gemma3nRotaryEmbedding``, 1577-1626 ``Gemma3nTextModel``, 1787-1797):

- every layer: ``self_attn`` — ``q_proj``, ``q_norm`` (of ``head_dim``), ``k_proj``, ``v_proj``, ``k_norm``
  (``v_norm`` holds no weight), ``o_proj``; a layer past ``num_hidden_layers - num_kv_shared_layers`` reuses the
  keys and values of the last earlier layer of its type and has no ``k_proj``/``v_proj``/``k_norm`` —; ``mlp``
  (gate/up/down of its own ``intermediate_size``, a list or one for all), four norms, ``altup``
  (``correct_output_scale`` (D), ``correction_coefs`` Linear(n, n), ``prediction_coefs`` Linear(n, n²),
  ``modality_router`` Linear(D, n), ``router_norm``, the float32 buffer ``router_input_scale``; n =
  ``altup_num_inputs``), ``laurel`` (``linear_left`` Linear(D, r), ``linear_right`` Linear(r, D),
  ``post_laurel_norm``; r = ``laurel_rank``), ``per_layer_input_gate`` Linear(D, P),
  ``per_layer_projection`` Linear(P, D), ``post_per_layer_input_norm`` (P = ``hidden_size_per_layer_input``);
- the model: the float32 buffers ``per_layer_projection_scale`` and ``per_layer_input_scale``, ``embed_tokens``
  (scaled), the layers, ``norm``, ``rotary_emb`` (a pair of buffers per layer type), ``embed_tokens_per_layer``
  (scaled, ``vocab_size_per_layer_input`` × L·P), ``per_layer_model_projection`` Linear(D, L·P),
  ``per_layer_projection_norm`` (P), ``altup_projections`` and ``altup_unembed_projections`` (n - 1 Linear(D, D)
  each); ``lm_head`` tied by default.

``layer_types`` defaults to four sliding layers then one full (``configuration_gemma3n.py`` 150-153). The cache
is ``DynamicCache(config=...)``'s (``cache_utils.py`` 1910-1940): a layer that reuses keys and values keeps a
``DummyLayer`` (nothing); the others ``keys``/``values`` (``window - 1`` tokens for a sliding one). A token's
FLOPs: the projections, attention over the keys its layer type's producer keeps, and AltUp's — the router twice
(predict and correct), both coefficient Linears and the prediction's ``matmul`` (2·D·n² a token). Parts: AltUp
is "hyper-connections" (n residual streams mixed), LAuReL "learned residuals", the per-layer inputs'
projections "per-layer inputs".

>>> from derive.tree import count
>>> count(gemma3n_text({}))   # Gemma3nTextConfig()
6835235568
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops, kv_state
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..layers.token_flops import matmul_flops, register
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kinds_of, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family
from .gemma import _check_rope, scaled_embedding
from .llama_like import not_null

__all__ = ["KEYS", "gemma3n_text"]

#: ``Gemma3nTextConfig``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Gemma3nTextConfig",
    {
        "vocab_size": 262400,
        "hidden_size": 2048,
        "intermediate_size": 16384,
        "num_hidden_layers": 35,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "tie_word_embeddings": True,
        "attention_bias": False,
        "sliding_window": 512,
        "layer_types": None,
        "vocab_size_per_layer_input": 262144,
        "hidden_size_per_layer_input": 256,
        "altup_active_idx": 0,
        "altup_num_inputs": 4,
        "num_kv_shared_layers": 15,
        "laurel_rank": 64,
        "activation_sparsity_pattern": None,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "hidden_activation": "the MLP's and the per-layer gate's activation: no tensor",
        "final_logit_softcapping": "a tanh cap on the logits: no tensor",
        "altup_coef_clip": "a clamp of AltUp's coefficients in training: no tensor",
        "altup_correct_scale": "whether AltUp's correct_output_scale multiplies (the parameter is built either way)",
        "rope_local_base_freq": "the legacy sliding layers' RoPE base, which the class moves into rope_parameters",
    },
)
_SOURCE = (
    "transformers/models/gemma3n/configuration_gemma3n.py 36-185, modeling_gemma3n.py 129-143, 917-1003, "
    "1161-1277, 1514-1626, 1787-1797; cache_utils.py 1910-1940"
)
_KINDS = ("full_attention", "sliding_attention")


def _altup_flops(module: Module, tokens: Dim) -> Any:
    """AltUp's products for a token: ``modality_router`` in ``predict`` and in ``correct``, the two coefficient
    Linears, and ``predict``'s ``matmul`` of the D × n streams by the n × n coefficients."""
    n, D = module.config["altup_num_inputs"], module.config["hidden_size"]
    router = matmul_flops(module.child("modality_router"), tokens)
    coefs = matmul_flops(module.child("prediction_coefs"), tokens) + matmul_flops(
        module.child("correction_coefs"), tokens
    )
    return 2 * router + coefs + 2 * D * n * n


register("Gemma3nTextAltUp", _altup_flops)
register("Gemma3nTextAttention", attention_flops)


def _sizes(c: Mapping[str, Any], key: str, layers: int) -> list[Any]:
    value = c[key]
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != layers:
            raise ValueError(f"config key {key!r} has {len(value)} entries for num_hidden_layers={layers}")
        return [hf_config.size({key: v}, key) for v in value]
    return [hf_config.size(c, key)] * layers


def sharing(kinds: Sequence[str], shared: int) -> list[str | None]:
    """Each layer's part in sharing keys and values, as ``Gemma3nTextConfig.kv_sharing_modes`` gives it
    (``configuration_gemma3n.py``): ``"reuse"`` past ``L - num_kv_shared_layers``, ``"store"`` for the last
    earlier layer of each type, else None.

    Parameters
    ----------
    kinds : sequence of str
        ``layer_types``.
    shared : int
        ``num_kv_shared_layers``.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        A layer type that reuses keys no earlier layer of its type makes (transformers refuses it).
    """
    if shared == 0:
        return [None] * len(kinds)
    first = len(kinds) - shared
    modes: list[str | None] = [None if i < first else "reuse" for i in range(len(kinds))]
    earlier = list(kinds[:first])
    if set(earlier) != set(kinds):
        raise ValueError(
            "config key 'num_kv_shared_layers': a layer type that shares keys and values has no earlier layer "
            "making them (transformers refuses it)"
        )
    for kind in set(kinds):
        modes[max(i for i, k in enumerate(earlier) if k == kind)] = "store"
    return modes


def gemma3n_text(config: Mapping[str, Any]) -> Module:
    """``Gemma3nForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Gemma3nTextConfig``'s defaults; the layer count is a number (it fixes the pattern).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A per-layer list of another length, heads not dividing the width, a bad ``layer_types``,
        ``num_kv_shared_layers`` outside [0, L), ``altup_active_idx`` outside [0, n), a null key ``@strict`` types
        int, a RoPE derive does not map, naming the key.
    """
    c = KEYS.resolve(config)
    not_null(config, ("num_key_value_heads", "head_dim", "sliding_window"), "Gemma3nTextConfig")
    _check_rope(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L, H = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_attention_heads")
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    if type(D) is int and type(H) is int and D % H:
        raise ValueError(f"config key 'num_attention_heads' ({H}) must divide hidden_size ({D})")
    KV, d = kv_heads(c, H), hf_config.size(c, "head_dim")
    window = hf_config.size(c, "sliding_window")
    Vp, P = hf_config.size(c, "vocab_size_per_layer_input"), hf_config.size(c, "hidden_size_per_layer_input")
    n, r = hf_config.size(c, "altup_num_inputs"), hf_config.size(c, "laurel_rank")
    active = c["altup_active_idx"]
    if type(n) is int and (type(active) is not int or not 0 <= active < n):
        raise ValueError(f"config key 'altup_active_idx' ({active!r}) must index the {n} AltUp streams")
    shared = c["num_kv_shared_layers"]
    if isinstance(shared, bool) or type(shared) is not int or not 0 <= shared < max(L, 1):
        raise ValueError(f"config key 'num_kv_shared_layers' must be an int in [0, {L}), got {shared!r}")
    sparsity = c["activation_sparsity_pattern"]
    if isinstance(sparsity, Sequence) and not isinstance(sparsity, str) and len(sparsity) != L:
        raise ValueError(f"config key 'activation_sparsity_pattern' has {len(sparsity)} entries for {L} layers")
    widths = _sizes(c, "intermediate_size", L)
    given = c["layer_types"]
    if given is None:
        kinds = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(L)]
    else:
        kinds = kinds_of("layer_types", given, L, _KINDS)
    modes = sharing(kinds, shared)
    bias, tie = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "tie_word_embeddings")
    norm = lambda name, width=D: rms_norm((width,), name=name, type="Gemma3nRMSNorm")  # noqa: E731

    def make(kind: tuple[str, bool, Any]) -> Module:
        layer_type, reuse, F = kind
        w = window if layer_type == "sliding_attention" else None
        proj: tuple[Module, ...] = (linear(D, H * d, bias, name="q_proj"), norm("q_norm", d))
        if not reuse:
            proj += (linear(D, KV * d, bias, name="k_proj"), linear(D, KV * d, bias, name="v_proj"), norm("k_norm", d))
        proj += (linear(H * d, D, bias, name="o_proj"),)
        config = {"num_heads": H, "num_kv_heads": KV, "head_dim": d, "value_dim": d, "window": w}
        cache = () if reuse else kv_state(KV, d, window=w)
        attn = Module("self_attn", "Gemma3nTextAttention", children=proj, config=config, cache=cache, part="attention")
        altup = Module(
            "altup",
            "Gemma3nTextAltUp",
            (Param("correct_output_scale", (D,)), Param("router_input_scale", (), buffer=True, dtype="float32")),
            children=(linear(n, n, False, name="correction_coefs"), linear(n, n * n, False, name="prediction_coefs"),
                      linear(D, n, False, name="modality_router"), norm("router_norm")),
            config={"altup_num_inputs": n, "hidden_size": D},
            part="hyper-connections",
        )  # fmt: skip
        laurel = Module(
            "laurel",
            "Gemma3nTextLaurelBlock",
            children=(linear(D, r, False, name="linear_left"), linear(r, D, False, name="linear_right"),
                      norm("post_laurel_norm")),
            part="learned residuals",
        )  # fmt: skip
        per_layer = lambda name, a, b: linear(a, b, False, name=name).replace(part="per-layer inputs")  # noqa: E731
        names = (
            "input_layernorm",
            "post_attention_layernorm",
            "pre_feedforward_layernorm",
            "post_feedforward_layernorm",
        )
        children = (
            attn, gated_mlp(D, F, type="Gemma3nTextMLP"), *(norm(x) for x in names), altup, laurel,
            per_layer("per_layer_input_gate", D, P), per_layer("per_layer_projection", P, D),
            norm("post_per_layer_input_norm"),
        )  # fmt: skip
        return Module("", "Gemma3nTextDecoderLayer", children=children)

    streams = lambda name: Module(  # noqa: E731
        name, "ModuleList", children=(linear(D, D, False, name="{k}").replace(repeat=n - 1),), part="hyper-connections"
    )
    layer_kinds = [(k, m == "reuse", F) for k, m, F in zip(kinds, modes, widths)]
    rope = c.get("rope_parameters")
    rotary: tuple[Param, ...] = ()
    for kind in sorted(set(kinds)):
        if not (isinstance(rope, Mapping) and set(rope) <= set(_KINDS) and rope and rope.get(kind, {}) is None):
            rotary += rope_buffers(d, f"{kind}_")
    model = Module(
        "model",
        "Gemma3nTextModel",
        (Param("per_layer_projection_scale", (), buffer=True, dtype="float32"),
         Param("per_layer_input_scale", (), buffer=True, dtype="float32")),
        children=(
            scaled_embedding("Gemma3n", V, D), layer_list(make, layer_kinds, L), norm("norm"),
            Module("rotary_emb", "Gemma3nRotaryEmbedding", rotary),
            scaled_embedding("Gemma3n", Vp, L * P).replace(name="embed_tokens_per_layer"),
            linear(D, L * P, False, name="per_layer_model_projection").replace(part="per-layer inputs"),
            norm("per_layer_projection_norm", P), streams("altup_projections"), streams("altup_unembed_projections"),
        ),
    )  # fmt: skip
    head = hf_config.lm_head(D, V, "model.embed_tokens.weight" if tie else None)
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L}
    shape.update(intermediate_size=widths if isinstance(c["intermediate_size"], Sequence) else widths[0])
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, attention_bias=bias, sliding_window=window)
    shape.update(layer_types=tuple(kinds), vocab_size_per_layer_input=Vp, hidden_size_per_layer_input=P)
    shape.update(altup_active_idx=active, altup_num_inputs=n, num_kv_shared_layers=shared, laurel_rank=r)
    shape.update(tie_word_embeddings=tie, _fixed=("num_hidden_layers", "num_kv_shared_layers", "altup_active_idx"))
    return Module("", "Gemma3nForCausalLM", children=(model, head), config=shape)


register_family("gemma3n_text", "Gemma3nTextConfig", "Gemma3nForCausalLM", gemma3n_text, _SOURCE, "gemma3n", keys=KEYS)
