"""Qwen3-MoE and Qwen2-MoE (``qwen3_moe``, ``qwen2_moe``) held against transformers 5.23.0 where their data cannot
say it: drawn configs built on the meta device (the layer patterns of ``decoder_sparse_step``, ``mlp_only_layers``
and ``num_experts``, windows, every tensor, buffer, the total, the active count), caches and FLOPs run past a
sliding window, a symbolic number of layers, edge values transformers builds, Qwen2MoeConfig()'s defaults (the
Qwen1.5-MoE-A2.7B shape: no qwen2_moe release config was found to ship), and the configs derive refuses with the
failure transformers meets. Expected values are read off the real models (or the published figures), never off
derive.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.tree import active

PROPERTY = settings(max_examples=15, deadline=None)
KINDS = ["full_attention", "sliding_attention"]


def transformers_fails(model_type: str, config: dict) -> None:
    """transformers refuses ``config``, or builds a model whose first forward (eager, 5 tokens) fails."""
    try:
        model = hf_cache.tiny(model_type, config)
    except Exception:
        return
    with pytest.raises(Exception):  # any failure of transformers' own forward
        hf_cache.run(model, 1, 5)


@st.composite
def moe_configs(draw: st.DrawFn, model_type: str) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 5)) if draw(st.booleans()) else 0
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(0, 20)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "num_experts": experts,
        "num_experts_per_tok": draw(st.integers(0, experts)) if experts else draw(st.integers(0, 4)),
        "moe_intermediate_size": draw(st.integers(0, 12)),
        "decoder_sparse_step": draw(st.sampled_from([1, 2, 3, -2])),
        "mlp_only_layers": draw(st.lists(st.integers(-1, layers), unique=True, max_size=3)),
        "tie_word_embeddings": draw(st.booleans()),
        "use_sliding_window": draw(st.booleans()),
        "sliding_window": draw(st.sampled_from([3, 4096])),
    }
    head_dim = draw(st.sampled_from([None, 4, 6]))
    if head_dim is not None:
        config["head_dim"] = head_dim
    if model_type == "qwen2_moe":
        config["shared_expert_intermediate_size"] = draw(st.integers(0, 12))
        config["qkv_bias"] = draw(st.booleans())
        config["max_window_layers"] = draw(st.integers(-1, 5))
    else:
        config["attention_bias"] = draw(st.booleans())
        if not config["use_sliding_window"]:
            config["sliding_window"] = draw(st.sampled_from([None, 3]))
    if config["use_sliding_window"] and draw(st.booleans()):
        if model_type == "qwen2_moe":
            config["layer_types"] = draw(st.lists(st.sampled_from(KINDS), min_size=layers, max_size=layers))
        else:  # Qwen3-MoE's one mask for every layer: one kind (test_refused_...)
            config["layer_types"] = [draw(st.sampled_from(KINDS))] * layers
    return config


@PROPERTY
@given(moe_configs("qwen3_moe"))
def test_qwen3_moe_drawn(config: dict) -> None:
    hf_live.check_family("qwen3_moe", config)


@PROPERTY
@given(moe_configs("qwen2_moe"))
def test_qwen2_moe_drawn(config: dict) -> None:
    hf_live.check_family("qwen2_moe", config)


SMALL = {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 12, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8}  # fmt: skip
SHARED = {**SMALL, "shared_expert_intermediate_size": 6}


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        # every layer's cache a DynamicSlidingWindowLayer (no layer_types)
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 3}),
        # layer_types (an attribute DynamicCache reads): full layers keep every token, the window only masks
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 3, "use_sliding_window": True, "sliding_window": 4,
                       "layer_types": ["full_attention"] * 3}),
        # Qwen2-MoE's default pattern: the even layers below max_window_layers slide
        ("qwen2_moe", {**SHARED, "num_hidden_layers": 4, "use_sliding_window": True, "sliding_window": 3,
                       "max_window_layers": 3, "decoder_sparse_step": 2}),
        ("qwen2_moe", {**SHARED, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 2,
                       "layer_types": ["full_attention", "sliding_attention"], "mlp_only_layers": [1]}),
    ],
    ids=["qwen3_moe-every-layer", "qwen3_moe-layer-types", "qwen2_moe-even-layers", "qwen2_moe-layer-types"],
)  # fmt: skip
def test_cache_and_flops_past_the_window(model_type: str, config: dict) -> None:
    for dtype, batch, prefill, steps in (("float32", 2, 6, 2), ("bfloat16", 1, 2, 4)):
        hf_cache.check_cache(model_type, config, dtype, batch, prefill, steps, split=False)
    hf_cache.check_decode(model_type, config, runs=((1, 1), (2, 5), (1, 9)))


@pytest.mark.parametrize("model_type", ["qwen3_moe", "qwen2_moe"])
def test_symbolic_number_of_layers(model_type: str) -> None:
    """Every layer sparse: the total and active count are polynomials in L, transformers' at L = 1, 2, 3."""
    L = sympy.Symbol("L", integer=True, positive=True)
    small = SHARED if model_type == "qwen2_moe" else SMALL
    report = derive.explain({"model_type": model_type, **small, "num_hidden_layers": L})
    assert report.total.free_symbols == {L}
    for n in (1, 2, 3):
        live = hf_live.build(model_type, {**small, "num_hidden_layers": n})
        assert report.total.subs(L, n) == hf_live.total(live)
        assert active(report.module).subs(L, n) == hf_live.active(live)


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        ("qwen3_moe", {**SMALL, "mlp_only_layers": [0]}),
        ("qwen2_moe", {**SHARED, "decoder_sparse_step": 2}),
    ],
)
def test_symbolic_layers_refused_where_the_pattern_depends_on_them(model_type: str, config: dict) -> None:
    L = sympy.Symbol("L", integer=True, positive=True)
    with pytest.raises(ValueError, match="num_hidden_layers"):
        derive.explain({"model_type": model_type, **config, "num_hidden_layers": L})


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        # experts of width 0: transformers builds them (its default grouped_mm cannot run them; the eager loop can)
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 2, "moe_intermediate_size": 0}),
        ("qwen2_moe", {**SHARED, "num_hidden_layers": 2, "moe_intermediate_size": 0,
                       "shared_expert_intermediate_size": 0}),
        # num_experts and num_local_experts disagreeing: the class sets num_local_experts after the field
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 2, "num_experts": 3, "num_local_experts": 5}),
        # a negative step (Python's modulo: every second layer), indices outside the layers
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 4, "decoder_sparse_step": -2, "mlp_only_layers": [-1, 7]}),
        # the top-k equal to the experts, and above them where no layer routes
        ("qwen2_moe", {**SHARED, "num_hidden_layers": 2, "num_experts_per_tok": 4}),
        ("qwen2_moe", {**SHARED, "num_hidden_layers": 2, "num_experts": 0, "num_experts_per_tok": 6}),
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 2, "num_experts_per_tok": 6, "mlp_only_layers": [0, 1]}),
        # a window Qwen3-MoE keeps as null: no layer slides
        ("qwen3_moe", {**SMALL, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": None}),
    ],
    ids=["qwen3_moe-experts-0-wide", "qwen2_moe-experts-0-wide", "qwen3_moe-num-local-experts",
         "qwen3_moe-negative-step", "qwen2_moe-top-k-all", "qwen2_moe-no-experts", "qwen3_moe-no-routing-layer",
         "qwen3_moe-null-window"],
)  # fmt: skip
def test_edge_values_transformers_builds(model_type: str, config: dict) -> None:
    hf_live.check_family(model_type, config, builds=True)
    hf_cache.check_decode(model_type, config)  # eager attention and experts: every matmul counted


@pytest.mark.parametrize(
    ("model_type", "config", "key"),
    [
        ("qwen3_moe", {"head_dim": None}, "head_dim"),
        ("qwen2_moe", {"head_dim": None}, "head_dim"),
        ("qwen3_moe", {"num_key_value_heads": None}, "num_key_value_heads"),
        ("qwen2_moe", {"num_key_value_heads": None}, "num_key_value_heads"),
        ("qwen3_moe", {"decoder_sparse_step": 0}, "decoder_sparse_step"),
        ("qwen2_moe", {"num_experts_per_tok": 5}, "num_experts_per_tok"),
        ("qwen3_moe", {"mlp_only_layers": [True]}, "mlp_only_layers"),
        ("qwen3_moe", {"mlp_only_layers": 1}, "mlp_only_layers"),
        # sliding layers without a window: Qwen2-MoE's window is 0 without use_sliding_window, null if set so
        ("qwen2_moe", {"num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]}, "sliding_window"),
        ("qwen2_moe", {"use_sliding_window": True, "sliding_window": None}, "sliding_window"),
        ("qwen3_moe", {"num_hidden_layers": 2, "layer_types": ["sliding_attention"] * 2}, "sliding_window"),
        ("qwen3_moe", {"use_sliding_window": True, "sliding_window": 0}, "sliding_window"),
        ("qwen3_moe", {"num_hidden_layers": 2, "layer_types": ["full_attention"]}, "layer_types"),
        # one mask for caches of two lengths: fails past the window
        ("qwen3_moe", {"num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 3,
                       "layer_types": ["sliding_attention", "full_attention"]}, "layer_types"),
    ],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(model_type: str, config: dict, key: str) -> None:
    config = {**(SHARED if model_type == "qwen2_moe" else SMALL), "num_hidden_layers": 1, **config}
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **config})
    transformers_fails(model_type, config)


def test_qwen2_moe_defaults_against_the_published_size() -> None:
    """Qwen2MoeConfig(), Qwen1.5-MoE-A2.7B's shape (no release config.json of a qwen2_moe model was found to ship):
    transformers' build, and the sizes Qwen published for that model, 14.3B in all and 2.7B activated
    (https://qwenlm.github.io/blog/qwen-moe/)."""
    model = hf_live.check_family("qwen2_moe", {}, builds=True)
    assert hf_live.total(model) == 14_315_784_192
    assert hf_live.active(model) == 2_689_173_504
    report = derive.explain({"model_type": "qwen2_moe"})
    assert round(report.total / 1e9, 1) == 14.3
    assert round(active(report.module) / 1e9, 1) == 2.7


@pytest.mark.parametrize("model_type", ["qwen3_moe", "qwen2_moe"])
def test_a_live_config_object_at_its_defaults(model_type: str) -> None:
    """derive.explain(config object): Qwen3MoeConfig's to_dict() holds num_local_experts, not num_experts."""
    import transformers

    config = transformers.AutoConfig.for_model(model_type)
    report = derive.explain(config)
    model = hf_live.build(model_type, {})
    assert report.total == hf_live.total(model)
    assert active(report.module) == hf_live.active(model)


def test_a_release_names_the_keys_its_class_does_not_have() -> None:
    """Qwen3-30B-A3B carries Qwen2's max_window_layers, no key of Qwen3MoeConfig: transformers keeps it and builds
    the same model; derive answers it with a note (the total and active count: transformers' build, as
    test_registry.py holds it)."""
    from derive.families.family import released

    release = next(r for r in released("qwen3_moe") if r.name == "Qwen/Qwen3-30B-A3B")
    report = derive.explain(dict(release.config))
    assert any("max_window_layers" in note and "Qwen3MoeConfig" in note for note in report.notes)
    assert report.total == 30_532_122_624
    assert active(report.module) == 3_353_032_704
