"""DeepSeek-V4 (``model_type`` ``deepseek_v4``, DeepSeek-V4-Flash's and -Pro's layout): shared-key-value MQA over a
sliding window, with compressed long-range entries in most layers (CSA: every ``m`` tokens, picked by a lightning
indexer; HCA: every ``m'`` tokens), a grouped low-rank output projection, a mixture of experts in every layer (hash
routing in the first ones) and manifold-constrained hyper-connections (``hc_mult`` residual streams).

``DeepseekV4ForCausalLM`` (``models/deepseek_v4/modeling_deepseek_v4.py``; the lines below): ``model.embed_tokens``;
each of ``model.layers`` (1151-1202 ``DeepseekV4DecoderLayer``) holds

- ``self_attn`` (766-845 ``DeepseekV4Attention``): ``sinks`` (H,), ``q_a_proj`` Linear(D, q), ``q_a_norm`` (q),
  ``q_b_proj`` Linear(q, H·d), ``kv_proj`` Linear(D, d) (one key-value head, read as both), ``kv_norm`` (d),
  ``o_a_proj`` (``DeepseekV4GroupedLinear``, 314-343: weight (g·r_o, H·d / g)), ``o_b_proj`` Linear(g·r_o, D), with
  q = ``q_lora_rank``, d = ``head_dim``, g = ``o_groups``, r_o = ``o_lora_rank``; and, where ``layer_types[i]`` is
  not ``"sliding_attention"``, ``compressor``: HCA's (373-454: ``position_bias`` (m', d), ``kv_proj``, ``gate_proj``
  Linear(D, d), ``kv_norm`` (d), its own rotary embedding) or CSA's (600-713: the same at 2d, and ``indexer``,
  473-598: ``position_bias`` (m, 2·d_I), ``kv_proj``, ``gate_proj`` Linear(D, 2·d_I), ``kv_norm`` (d_I),
  ``q_b_proj`` Linear(q, n_I·d_I), a rotary embedding, ``scorer.weights_proj`` Linear(D, n_I)), with m / m' =
  ``compress_rates``, n_I / d_I = ``index_n_heads`` / ``index_head_dim``;
- ``mlp`` (1131-1148 ``DeepseekV4SparseMoeBlock``): ``gate`` — ``DeepseekV4HashRouter`` (1100-1128: ``weight`` (E,
  D) and the int64 buffer ``tid2eid`` (V, k)) where ``mlp_layer_types[i]`` is ``"hash_moe"``, else
  ``DeepseekV4TopKRouter`` (1079-1097: ``weight`` and the buffer ``e_score_correction_bias`` (E,)) —, ``experts``
  (E = ``n_routed_experts``, width ``moe_intermediate_size``, k = ``num_experts_per_tok``) and ``shared_experts``,
  one gated MLP of ``moe_intermediate_size`` (``n_shared_experts`` is not read), biased with ``mlp_bias``;
- ``input_layernorm``, ``post_attention_layernorm`` (D), ``attn_hc`` and ``ffn_hc`` (887-998
  ``DeepseekV4HyperConnection``: ``fn`` ((2 + N)·N, N·D), ``base`` ((2 + N)·N), ``scale`` (3), N = ``hc_mult``);

then ``model.norm``, ``model.rotary_emb`` and ``model.hc_head`` (1001-1017: ``hc_fn`` (N, N·D), ``hc_base`` (N),
``hc_scale`` (1)); ``lm_head``, tied with ``tie_word_embeddings``. Each rotary embedding (75-153) keeps, per entry of
``rope_parameters`` (``main``, ``compress``), ``<entry>_inv_freq`` and ``<entry>_original_inv_freq`` of
⌈int(d · f) / 2⌉, f its ``partial_rotary_factor``. ``__post_init__`` (``configuration_deepseek_v4.py`` 235-320) makes
the patterns: ``layer_types`` as given, else from a legacy ``compress_ratios`` (0 / 4 / 128), else two HCA layers
then CSA and HCA in turn; ``mlp_layer_types`` as given, else ``num_hash_layers`` (3) hash layers then top-k ones;
``compress_rates`` from the legacy ``compress_rate_csa`` / ``compress_rate_hca``; the factor from a legacy
``qk_rope_head_dim`` (``qk_rope_head_dim / head_dim``), else 64 / 512.

**Its cache** (156-311; ``cache_utils.py`` 196-256): a sliding layer is a ``DynamicSlidingWindowLayer`` — keys and
values (batch, 1, tokens, d), the last ``sliding_window - 1`` tokens, and an int64 window scalar; an HCA layer keeps
one tensor read as both keys and values (``values = keys``), the window scalar, the open window's ``buffer_kv`` and
``buffer_gate`` (batch, tokens mod m', d) and the emitted ``compressed_kv`` (batch, ⌊tokens / m'⌋, d); a CSA layer the
same at m with buffers of 2d, and once a window has closed the previous window's ``overlap_kv`` / ``overlap_gate``
(batch, m, d), and the indexer's own buffers (batch, tokens mod m, 2·d_I), compressed keys (batch, ⌊tokens / m⌋, d_I)
and overlap (batch, m, d_I); all in the model's dtype. So the cache is not linear in the tokens: its closed form
holds ⌊T / m⌋ and T mod m (:attr:`derive.tree.State.stride`).

**A token's FLOPs** (eager, as ``FlopCounterMode`` counts them): the projections (``o_a_proj`` a ``bmm`` of its
weight), attention's 4·H·d per key over min(T, ``sliding_window``) window keys and every compressed entry
(⌊T / m⌋ or ⌊T / m'⌋: the indexer's top-``index_topk`` mask removes no product), the compressors' and indexer's
projections, the indexer's scores 2·n_I·d_I·⌊T / m⌋, each hyper-connection's 2·(2 + N)·N²·D and its streams' mix
2·N²·D, the head's 2·N²·D, the router 2·E·D, k experts and the shared one, ``lm_head`` 2·V·D.

``num_nextn_predict_layers`` counts the release's MTP layers; ``from_config`` builds none (checkpoint keys
``mtp.*`` are ignored on load, 1244) and ``MtpModel`` cannot (no ``num_mtp_layers``): not counted, a note says so.

>>> from derive.tree import count, active
>>> model = deepseek_v4({})   # DeepseekV4Config(): DeepSeek-V4-Flash's shape
>>> count(model), active(model)
(284325869015, 13793261015)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.lm_attention import attended
from ..layers.mlp import gated_mlp
from ..layers.moe import routed_experts, router
from ..layers.norm import rms_norm
from ..layers.token_flops import matmul_flops, register
from ..tree import Dim, Module, Param, State
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_TYPES, floordiv, kinds_of, layer_list, rotated
from .family import Keys, register_family

__all__ = ["KEYS", "deepseek_v4"]

_LAYER_TYPES = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")
_RATIO_TYPES = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}

#: ``DeepseekV4Config``'s shape keys and their defaults (configuration_deepseek_v4.py 128-180), and the legacy
#: keywords ``__post_init__`` folds in (239-243).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 129280,
    "hidden_size": 4096,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 43,
    "num_attention_heads": 64,
    "head_dim": 512,
    "q_lora_rank": 1024,
    "num_experts_per_tok": 6,
    "n_routed_experts": 256,
    "layer_types": None,
    "compress_rates": None,
    "hc_mult": 4,
    "mlp_layer_types": None,
    "sliding_window": 128,
    "o_groups": 8,
    "o_lora_rank": 1024,
    "index_n_heads": 64,
    "index_head_dim": 128,
    "tie_word_embeddings": False,
    "rope_parameters": None,
    "partial_rotary_factor": None,
    "mlp_bias": False,
    "compress_ratios": None,
    "compress_rate_csa": None,
    "compress_rate_hca": None,
    "num_hash_layers": None,
    "qk_rope_head_dim": None,
}
#: ``DeepseekV4Config``'s every key: the shape keys, and the others with why they shape nothing.
KEYS = Keys(
    "DeepseekV4Config",
    DEFAULTS,
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout")},
        "rope_theta": "the main rotary embedding's base: the buffers' values only",
        "compress_rope_theta": "the compressed branches' rotary base: the buffers' values only",
        "num_key_value_heads": "not read: V4's attention has one key-value head (kv_proj is Linear(D, head_dim))",
        "n_shared_experts": "not read: DeepseekV4SparseMoeBlock builds one shared expert of moe_intermediate_size",
        "scoring_func": "the router's activation (no tensor)",
        "norm_topk_prob": "not read (the router always renormalises)",
        "routed_scaling_factor": "a scale of the routed experts' output (no tensor)",
        "hc_sinkhorn_iters": "Sinkhorn-Knopp iterations of the streams' mix (element-wise, no tensor)",
        "hc_eps": "an epsilon of the hyper-connections",
        "swiglu_limit": "a clamp of the experts' activations (no tensor)",
        "index_topk": (
            "the compressed entries the indexer keeps per query: a mask (no tensor; eager attention multiplies "
            "every entry)"
        ),
        "num_nextn_predict_layers": "the release's MTP layers: from_config builds none (noted)",
        "output_router_logits": "whether the router's logits are returned (no tensor)",
        "router_aux_loss_coef": "a training loss's weight (no tensor)",
        "router_jitter_noise": "training noise (no tensor)",
        "attention_bias": "not read: no projection of V4 is biased",
    },
    aliases={"num_local_experts": "n_routed_experts", "intermediate_size": "moe_intermediate_size"},
)
_SOURCE = (
    "transformers/models/deepseek_v4/configuration_deepseek_v4.py 104-320, modeling_deepseek_v4.py 45-311, 314-343, "
    "373-713, 766-1202, 1203-1385, 1458-1470; cache_utils.py 196-256"
)


def _ints(*values: Any) -> bool:
    return all(type(v) is int for v in values)


# --- FLOPs rules (per token, ``tokens`` in the cache once it is in) -------------------------------------------


def _children(module: Module, tokens: Dim) -> Any:
    return sum((matmul_flops(c, tokens) for c in module.children), 0)


def _attention_flops(module: Module, tokens: Dim) -> Any:
    c = module.config
    keys = attended(tokens, c["window"])
    if c["stride"] is not None:
        keys = keys + floordiv(tokens, c["stride"])
    return _children(module, tokens) + 4 * c["num_heads"] * c["head_dim"] * keys


def _indexer_flops(module: Module, tokens: Dim) -> Any:
    c = module.config
    return _children(module, tokens) + 2 * c["heads"] * c["head_dim"] * floordiv(tokens, c["stride"])


def _hyper_flops(module: Module, tokens: Dim) -> Any:
    n, d = module.config["hc_mult"], module.config["hidden_size"]
    return 2 * module.params[0].numel + (2 * n * n * d if module.type == "DeepseekV4HyperConnection" else 0)


def _weight_flops(module: Module, tokens: Dim) -> Any:
    return 2 * module.params[0].numel


# --- the modules -----------------------------------------------------------------------------------------------


def _norm(width: Dim, name: str) -> Module:
    return rms_norm((width,), name=name, type="DeepseekV4RMSNorm")


def _rotary(dims: Mapping[str, Dim], name: str = "rotary_emb") -> Module:
    """A ``DeepseekV4RotaryEmbedding``: per rope entry (``main``, ``compress``) its two float32 buffers."""
    params = tuple(
        Param(
            f"{entry}_{kind}", ((dim + 1) // 2 if type(dim) is int else _ceil_half(dim),), buffer=True, dtype="float32"
        )
        for entry, dim in dims.items()
        for kind in ("inv_freq", "original_inv_freq")
    )
    return Module(name, "DeepseekV4RotaryEmbedding", params)


def _ceil_half(dim: Dim) -> Dim:
    import sympy

    return sympy.ceiling(dim / 2)


def _compressor(kind: str, s: Mapping[str, Any], rope: Mapping[str, Dim]) -> Module:
    """The HCA or CSA compressor (with the CSA indexer), and its share of the cache."""
    D, d = s["D"], s["d"]
    csa = kind == "compressed_sparse_attention"
    m = s["rates"][kind]
    wide = 2 * d if csa else d
    children: tuple[Module, ...] = (
        linear(D, wide, False, name="kv_proj"),
        linear(D, wide, False, name="gate_proj"),
        _norm(d, "kv_norm"),
        _rotary(rope),
    )
    cache = _compressed_states("compressor", wide, d, m, overlap=csa)
    if csa:
        dI, nI = s["dI"], s["nI"]
        scorer = Module("scorer", "DeepseekV4IndexerScorer", children=(linear(D, nI, False, name="weights_proj"),))
        indexer = Module(
            "indexer", "DeepseekV4Indexer", (Param("position_bias", (m, 2 * dI)),),
            children=(linear(D, 2 * dI, False, name="kv_proj"), linear(D, 2 * dI, False, name="gate_proj"),
                      _norm(dI, "kv_norm"), linear(s["q"], nI * dI, False, name="q_b_proj"), _rotary(rope), scorer),
            config={"heads": nI, "head_dim": dI, "stride": m}, cache=_compressed_states("indexer", 2 * dI, dI, m),
        )  # fmt: skip
        children += (indexer,)
    cls = "DeepseekV4CSACompressor" if csa else "DeepseekV4HCACompressor"
    return Module("compressor", cls, (Param("position_bias", (m, wide)),), children=children, cache=cache)


def _compressed_states(name: str, wide: Dim, d: Dim, m: Dim, *, overlap: bool = True) -> tuple[State, ...]:
    """A compressor's cache entries ``name`` (``compressor``/``indexer``): its open window's kv and gate, the emitted
    entries, and (CSA) the last closed window's first half, kept once a window has closed."""
    states: tuple[State, ...] = (
        State(f"buffer_kv.{name}", ("batch", "tokens", wide), stride=m, remainder=True),
        State(f"buffer_gate.{name}", ("batch", "tokens", wide), stride=m, remainder=True),
        State(f"compressed_kv.{name}", ("batch", "tokens", d), stride=m),
    )
    if overlap:
        states += (
            State(f"overlap_kv.{name}", ("batch", "tokens", m, d), stride=m, window=1),
            State(f"overlap_gate.{name}", ("batch", "tokens", m, d), stride=m, window=1),
        )
    return states


def _attention(kind: str, s: Mapping[str, Any], rope: Mapping[str, Dim]) -> Module:
    D, d, H, q, g, r = s["D"], s["d"], s["H"], s["q"], s["g"], s["r"]
    grouped = Module("o_a_proj", "DeepseekV4GroupedLinear", (Param("weight", (g * r, floordiv(H * d, g))),))
    children: tuple[Module, ...] = (
        linear(D, q, False, name="q_a_proj"),
        _norm(q, "q_a_norm"),
        linear(q, H * d, False, name="q_b_proj"),
        linear(D, d, False, name="kv_proj"),
        _norm(d, "kv_norm"),
        grouped,
        linear(g * r, D, False, name="o_b_proj"),
    )
    W = s["window"]
    stride = None
    if kind == "sliding_attention":
        cache: tuple[State, ...] = (
            State("keys", ("batch", 1, "tokens", d), window=W - 1),
            State("values", ("batch", 1, "tokens", d), window=W - 1),
            State("_sliding_window_tensor", (), dtype="int64"),
        )
    else:  # one tensor read as keys and values, and the compressor's own
        cache = (
            State("keys", ("batch", 1, "tokens", d), window=W - 1),
            State("_sliding_window_tensor", (), dtype="int64"),
        )
        children += (_compressor(kind, s, rope),)
        stride = s["rates"][kind]
    config = {"num_heads": H, "head_dim": d, "window": W, "stride": stride}
    return Module(
        "self_attn", "DeepseekV4Attention", (Param("sinks", (H,)),), children=children, config=config, cache=cache,
        part="attention",
    )  # fmt: skip


def _hyper(s: Mapping[str, Any], name: str) -> Module:
    n, D = s["N"], s["D"]
    params = (Param("fn", ((2 + n) * n, n * D)), Param("base", ((2 + n) * n,)), Param("scale", (3,)))
    config = {"hc_mult": n, "hidden_size": D}
    return Module(name, "DeepseekV4HyperConnection", params, config=config, part="hyper-connections")


def _moe(hashed: bool, s: Mapping[str, Any], mlp_bias: bool) -> Module:
    D, E, k, F, V = s["D"], s["E"], s["k"], s["F"], s["V"]
    if hashed:
        gate = router(D, E, name="gate", type="DeepseekV4HashRouter")
        gate = gate.replace(params=gate.params + (Param("tid2eid", (V, k), buffer=True, dtype="int64"),))
    else:
        gate = router(D, E, correction_bias=True, name="gate", type="DeepseekV4TopKRouter")
    experts = routed_experts(D, F, E, k, type="DeepseekV4Experts")
    shared = gated_mlp(D, F, bias=mlp_bias, name="shared_experts", type="DeepseekV4MLP").replace(part="shared experts")
    return Module("mlp", "DeepseekV4SparseMoeBlock", children=(gate, experts, shared))


# --- the config ------------------------------------------------------------------------------------------------


def _rates(c: Mapping[str, Any]) -> dict[str, Any]:
    rates = c["compress_rates"]
    if rates is None:
        rates = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}
    if not isinstance(rates, Mapping):
        raise ValueError(f"config key 'compress_rates' must be an object, got {rates!r:.60}")
    rates = dict(rates)
    for key, kind in (("compress_rate_csa", "compressed_sparse_attention"), ("compress_rate_hca", "heavily_compressed_attention")):  # fmt: skip
        if c[key] is not None:
            rates[kind] = c[key]
    return rates


def _patterns(c: Mapping[str, Any], layers: int) -> tuple[list[str], list[str]]:
    kinds = c["layer_types"]
    if kinds is None and c["compress_ratios"] is not None:
        ratios = c["compress_ratios"]
        if (
            isinstance(ratios, str)
            or not isinstance(ratios, (list, tuple))
            or any(r not in _RATIO_TYPES for r in ratios)
        ):
            raise ValueError(f"config key 'compress_ratios' must be a list of 0, 4 or 128, got {ratios!r:.80}")
        kinds = [_RATIO_TYPES[r] for r in ratios]
    if kinds is None:
        kinds = ["heavily_compressed_attention"] * min(layers, 2)
        kinds += ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(max(layers - 2, 0))]  # fmt: skip
    mlps = c["mlp_layer_types"]
    if mlps is None:
        hashed = 3 if c["num_hash_layers"] is None else c["num_hash_layers"]
        if type(hashed) is not int:
            raise ValueError(f"config key 'num_hash_layers' must be an int, got {hashed!r}")
        mlps = ["hash_moe"] * min(layers, hashed) + ["moe"] * max(0, layers - hashed)
    if isinstance(kinds, (list, tuple)):
        kinds = list(kinds)[:layers]  # __post_init__ truncates to num_hidden_layers
    if isinstance(mlps, (list, tuple)):
        mlps = list(mlps)[:layers]
    return (
        kinds_of("layer_types", kinds, layers, _LAYER_TYPES),
        kinds_of("mlp_layer_types", mlps, layers, ("hash_moe", "moe")),
    )


def _rope_dims(c: Mapping[str, Any], d: Dim) -> tuple[dict[str, Dim], Any]:
    """Each rope entry's rotated width int(d · f) (``main``, ``compress``), and the config's factor."""
    factor = c["partial_rotary_factor"]
    if factor is None:
        factor = 64 / 512 if c["qk_rope_head_dim"] is None else None
        if factor is None:
            qk = c["qk_rope_head_dim"]
            if not _ints(qk, d):
                raise ValueError("config key 'qk_rope_head_dim' (legacy) needs a numeric head_dim and itself a number")
            factor = qk / d
    rope = c["rope_parameters"] or {}
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
    if isinstance(rope.get("main"), Mapping) and isinstance(rope.get("compress"), Mapping):
        entries = {"main": rope["main"], "compress": rope["compress"]}
    else:
        flat = {k: v for k, v in rope.items() if k not in ("main", "compress")}
        entries = {"main": {"rope_type": "default", "partial_rotary_factor": factor},
                   "compress": {"rope_type": "default", **flat, "partial_rotary_factor": factor}}  # fmt: skip
    dims = {}
    for entry, params in entries.items():
        kind = params.get("rope_type", params.get("type", "default"))
        if kind not in ROPE_TYPES:
            raise ValueError(f"config key 'rope_parameters': {entry} rope_type {kind!r} is not one derive maps")
        f = params.get("partial_rotary_factor", 1.0)
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f <= 1:
            raise ValueError(
                f"config key 'rope_parameters': {entry} partial_rotary_factor must be in (0, 1], got {f!r}"
            )
        dims[entry] = rotated(d, f, "partial_rotary_factor")
    return dims, factor


def deepseek_v4(config: Mapping[str, Any]) -> Module:
    """``DeepseekV4ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``DeepseekV4Config``'s defaults; either name of an aliased key
        (``intermediate_size`` is ``moe_intermediate_size``). Sizes may be SymPy symbols (not the layer count nor
        the patterns).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A pattern transformers refuses (an unknown layer type, a list of the wrong length), a compression rate
        missing for a layer type that needs one, more experts per token than experts, a RoPE derive does not map,
        naming the key.
    """
    c = KEYS.resolve(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    kinds, mlps = _patterns(c, L)
    rates = _rates(c)
    for kind in set(kinds) - {"sliding_attention"}:
        if kind not in rates:
            raise ValueError(f"config key 'compress_rates' has no rate for {kind!r}, which layer_types names")
        rates[kind] = hf_config.size(rates, kind)
    s: dict[str, Any] = {
        "V": hf_config.size(c, "vocab_size"),
        "D": hf_config.size(c, "hidden_size"),
        "F": hf_config.size(c, "moe_intermediate_size"),
        "H": hf_config.size(c, "num_attention_heads"),
        "d": hf_config.size(c, "head_dim"),
        "q": hf_config.size(c, "q_lora_rank"),
        "E": hf_config.size(c, "n_routed_experts"),
        "k": hf_config.size(c, "num_experts_per_tok"),
        "N": hf_config.size(c, "hc_mult"),
        "window": hf_config.size(c, "sliding_window"),
        "g": hf_config.size(c, "o_groups"),
        "r": hf_config.size(c, "o_lora_rank"),
        "nI": hf_config.size(c, "index_n_heads"),
        "dI": hf_config.size(c, "index_head_dim"),
        "rates": rates,
    }
    if _ints(s["E"], s["k"]) and s["k"] > s["E"]:
        raise ValueError(f"config key 'num_experts_per_tok' ({s['k']}) exceeds n_routed_experts ({s['E']})")
    pad = config.get("pad_token_id")
    if type(pad) is int and type(s["V"]) is int and not -s["V"] <= pad < s["V"]:
        raise ValueError(f"config key 'pad_token_id' ({pad}) must be below vocab_size ({s['V']}): torch's Embedding refuses it")  # fmt: skip
    rope, factor = _rope_dims(c, s["d"])
    tie, mlp_bias = hf_config.flag(c, "tie_word_embeddings"), hf_config.flag(c, "mlp_bias")
    for kind, rule in (("DeepseekV4Attention", _attention_flops), ("DeepseekV4Indexer", _indexer_flops),
                       ("DeepseekV4HyperConnection", _hyper_flops), ("DeepseekV4HyperHead", _hyper_flops),
                       ("DeepseekV4HCACompressor", _children), ("DeepseekV4CSACompressor", _children),
                       ("DeepseekV4GroupedLinear", _weight_flops)):  # fmt: skip
        register(kind, rule)

    def make(kind: tuple[str, str]) -> Module:
        attention, mlp = kind
        children = (
            _attention(attention, s, rope), _moe(mlp == "hash_moe", s, mlp_bias), _norm(s["D"], "input_layernorm"),
            _norm(s["D"], "post_attention_layernorm"), _hyper(s, "attn_hc"), _hyper(s, "ffn_hc"),
        )  # fmt: skip
        return Module("", "DeepseekV4DecoderLayer", children=children)

    n, D = s["N"], s["D"]
    head = Module(
        "hc_head", "DeepseekV4HyperHead", (Param("hc_fn", (n, n * D)), Param("hc_base", (n,)), Param("hc_scale", (1,))),
        config={"hc_mult": n, "hidden_size": D}, part="hyper-connections",
    )  # fmt: skip
    model = Module(
        "model", "DeepseekV4Model",
        children=(embedding(s["V"], D, name="embed_tokens"), layer_list(make, list(zip(kinds, mlps)), L),
                  _norm(D, "norm"), _rotary(rope), head),
    )  # fmt: skip
    shape: dict[str, Any] = {"vocab_size": s["V"], "hidden_size": D, "moe_intermediate_size": s["F"]}
    shape.update(num_hidden_layers=L, num_attention_heads=s["H"], head_dim=s["d"], q_lora_rank=s["q"])
    shape.update(n_routed_experts=s["E"], num_experts_per_tok=s["k"], hc_mult=n, sliding_window=s["window"])
    shape.update(o_groups=s["g"], o_lora_rank=s["r"], index_n_heads=s["nI"], index_head_dim=s["dI"])
    shape.update(compress_rates={k: v for k, v in rates.items() if k in kinds})
    # the patterns and the legacy keys they may come from, where the config gives them (else the class makes them)
    given = ("layer_types", "mlp_layer_types", "compress_ratios", "num_hash_layers", "qk_rope_head_dim")
    shape.update({key: c[key] for key in given if c[key] is not None})
    shape.update(partial_rotary_factor=factor, mlp_bias=mlp_bias, tie_word_embeddings=tie)
    shape["_fixed"] = ("num_hidden_layers", "layer_types", "mlp_layer_types", "num_hash_layers")
    lm_head = hf_config.lm_head(D, s["V"], "model.embed_tokens.weight" if tie else None)
    note = _mtp_note(config)
    return Module("", "DeepseekV4ForCausalLM", children=(model, lm_head), config=shape, note=note)


def _mtp_note(config: Mapping[str, Any]) -> str:
    n = config.get("num_nextn_predict_layers", 1)
    if not n:
        return ""
    return (
        f"num_nextn_predict_layers={n!r}: the release's multi-token-prediction layer{'s' if n != 1 else ''} (mtp.* in "
        f"its checkpoint, ignored on load) {'are' if n != 1 else 'is'} not built by from_config and not counted; nor "
        "does transformers 5.23 "
        "build one for DeepseekV4 (MtpModel needs num_mtp_layers, which DeepseekV4Config lacks)"
    )


register_family("deepseek_v4", "DeepseekV4Config", "DeepseekV4ForCausalLM", deepseek_v4, _SOURCE, keys=KEYS)
