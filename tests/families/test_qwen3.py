"""Qwen2 and Qwen3 (``qwen2``, ``qwen3``) held against transformers 5.23.0 where their data cannot say it: drawn
configs built on the meta device (every tensor, buffer, the total), caches and FLOPs run past a sliding window
(the registry's tiny configs stay below theirs, so that one more token adds a token's bytes), a symbolic number
of layers, the edge values transformers builds, and the configs derive refuses with the failure transformers
meets. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import derive

PROPERTY = settings(max_examples=15, deadline=None)


def transformers_fails(model_type: str, config: dict) -> None:
    """transformers refuses ``config``, or builds a model whose first forward (eager, 5 tokens) fails."""
    try:
        model = hf_cache.tiny(model_type, config)
    except Exception:
        return
    with pytest.raises(Exception):  # any failure of transformers' own forward
        hf_cache.run(model, 1, 5)


@st.composite
def dense_configs(draw: st.DrawFn, model_type: str) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(1, 24)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([kv, None])),
        "tie_word_embeddings": draw(st.booleans()),
        "use_sliding_window": draw(st.booleans()),
        "sliding_window": draw(st.sampled_from([None, 3, 4096])),
        "max_window_layers": draw(st.integers(-1, 5)),
    }
    head_dim = draw(st.sampled_from([None, 4, 6]))
    if head_dim is not None or model_type == "qwen3":
        config["head_dim"] = head_dim or 8
    if model_type == "qwen3":
        config["attention_bias"] = draw(st.booleans())
    if config["use_sliding_window"] and config["sliding_window"] is not None and draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["full_attention", "sliding_attention"]), min_size=layers, max_size=layers)
        )
    return config


@PROPERTY
@given(dense_configs("qwen2"))
def test_qwen2_drawn(config: dict) -> None:
    hf_live.check_family("qwen2", config)


@PROPERTY
@given(dense_configs("qwen3"))
def test_qwen3_drawn(config: dict) -> None:
    hf_live.check_family("qwen3", config)


SMALL = {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 12, "num_attention_heads": 4,
         "num_key_value_heads": 2}  # fmt: skip


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        ("qwen2", {**SMALL, "num_hidden_layers": 3, "use_sliding_window": True, "sliding_window": 3,
                   "max_window_layers": 1}),
        ("qwen3", {**SMALL, "num_hidden_layers": 3, "head_dim": 8, "use_sliding_window": True, "sliding_window": 4,
                   "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}),
        ("qwen3", {**SMALL, "num_hidden_layers": 2, "head_dim": 6, "use_sliding_window": True, "sliding_window": 2,
                   "max_window_layers": 0, "attention_bias": True}),
    ],
    ids=["qwen2-window-3", "qwen3-window-4-pattern", "qwen3-window-2-every-layer"],
)  # fmt: skip
def test_cache_and_flops_past_the_window(model_type: str, config: dict) -> None:
    """A sliding layer's cache stops at ``sliding_window - 1`` tokens and its attention at ``sliding_window`` keys:
    the bytes after prefills and steps longer than the window, and the next token's FLOPs at 1 and 5 tokens."""
    for dtype, batch, prefill, steps in (("float32", 2, 6, 2), ("bfloat16", 1, 2, 4)):
        hf_cache.check_cache(model_type, config, dtype, batch, prefill, steps, split=False)
    hf_cache.check_decode(model_type, config, runs=((1, 1), (2, 5), (1, 9)))


@pytest.mark.parametrize("model_type", ["qwen2", "qwen3"])
def test_symbolic_number_of_layers(model_type: str) -> None:
    """``num_hidden_layers`` a symbol L (no sliding layer): the total is a polynomial in L, transformers' at L = 1, 2, 3."""
    L = sympy.Symbol("L", integer=True, positive=True)
    small = {**SMALL, "head_dim": 8} if model_type == "qwen3" else SMALL
    report = derive.explain({"model_type": model_type, **small, "num_hidden_layers": L})
    assert report.total.free_symbols == {L}
    for n in (1, 2, 3):
        assert report.total.subs(L, n) == hf_live.total(hf_live.build(model_type, {**small, "num_hidden_layers": n}))


def test_symbolic_layers_refused_where_the_windows_depend_on_them() -> None:
    L = sympy.Symbol("L", integer=True, positive=True)
    with pytest.raises(ValueError, match="num_hidden_layers"):
        derive.explain({"model_type": "qwen3", **SMALL, "num_hidden_layers": L, "use_sliding_window": True})


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        # a window transformers keeps but no layer uses (max_window_layers past the last layer)
        ("qwen3", {**SMALL, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 0}),
        ("qwen2", {**SMALL, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": -5,
                   "max_window_layers": 2}),
        # every layer sliding (max_window_layers below 0), and a window wider than the context
        ("qwen2", {**SMALL, "num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 4096,
                   "max_window_layers": -1}),
        # head_dim, which Qwen2Config does not define, read by its attention and rotary embedding
        ("qwen2", {**SMALL, "num_hidden_layers": 1, "head_dim": 12}),
        # layer_types without a sliding layer, use_sliding_window off
        ("qwen2", {**SMALL, "num_hidden_layers": 2, "layer_types": ["full_attention", "full_attention"]}),
    ],
    ids=["qwen3-window-0-unused", "qwen2-window-negative-unused", "qwen2-all-sliding", "qwen2-head-dim",
         "qwen2-layer-types-full"],
)  # fmt: skip
def test_edge_values_transformers_builds(model_type: str, config: dict) -> None:
    hf_live.check_family(model_type, config, builds=True)


@pytest.mark.parametrize(
    ("model_type", "config", "key"),
    [
        ("qwen2", {"head_dim": None}, "head_dim"),
        ("qwen3", {"head_dim": None}, "head_dim"),
        # sliding layers but no window: use_sliding_window off, or a null or zero window
        ("qwen3", {"num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]}, "sliding_window"),
        ("qwen2", {"num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": None,
                   "layer_types": ["sliding_attention", "full_attention"]}, "sliding_window"),
        ("qwen3", {"num_hidden_layers": 2, "use_sliding_window": True, "sliding_window": 0, "max_window_layers": 1},
         "sliding_window"),
        ("qwen3", {"num_hidden_layers": 2, "layer_types": ["chunked_attention", "full_attention"]}, "layer_types"),
        ("qwen3", {"max_window_layers": 1.5}, "max_window_layers"),
        ("qwen2", {"use_sliding_window": 1}, "use_sliding_window"),
    ],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(model_type: str, config: dict, key: str) -> None:
    config = {**SMALL, "num_hidden_layers": 1, **({"head_dim": 8} if model_type == "qwen3" else {}), **config}
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **config})
    transformers_fails(model_type, config)


@pytest.mark.parametrize("model_type", ["qwen3"])
def test_a_live_config_object_at_its_defaults(model_type: str) -> None:
    """derive.explain(Qwen3Config()) (its to_dict(): layer_types made by __post_init__) against the meta build."""
    import transformers

    report = derive.explain(transformers.AutoConfig.for_model(model_type))
    assert report.total == hf_live.total(hf_live.build(model_type, {}))


def test_an_fp8_release_is_counted_as_from_config_builds_it() -> None:
    """Qwen3-32B-FP8: its quantization_config is kept as published and named in the notes (no key of
    Qwen3Config); the count is the model from_config builds, the same as the BF16 release's."""
    from derive.families.family import released

    by_name = {r.name: r for r in released("qwen3")}
    fp8, bf16 = by_name["Qwen/Qwen3-32B-FP8"], by_name["Qwen/Qwen3-32B"]
    assert "quantization_config" in fp8.config
    report = derive.explain(dict(fp8.config))
    assert any("quantization_config" in note for note in report.notes)
    config = {k: v for k, v in fp8.config.items() if k != "model_type"}
    assert report.total == hf_live.total(hf_live.build("qwen3", config)) == derive.explain(dict(bf16.config)).total
