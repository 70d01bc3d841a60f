"""LFM3 (``model_type`` ``lfm3``) held against transformers 5.23.0: meta-device builds of drawn configs
(every tensor and buffer — a rotary pair per attention type — and the total), ``Lfm3Config()`` (LFM3-1.7B's
shape), the cache of tiny models run with ``use_cache=True`` (float32, bfloat16: sliding-window and full
attention, convolution states) against derive's States, a decode step's FLOPs, and the configs derive
refuses. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import cache_live
import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import active, named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("lfm3", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "lfm3", **config})
        return
    report = derive.explain({"model_type": "lfm3", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model) == active(report.module)
    hf_live.record("transformers", "Lfm3ForCausalLM")


_ROPES = [
    None,
    {"full_attention": {"rope_type": "default", "rope_theta": 1e4}},
    {
        "full_attention": {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.25},
        "sliding_attention": {"rope_type": "linear", "rope_theta": 1e4, "factor": 2.0, "partial_rotary_factor": 0.5},
    },
]


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    layers = draw(st.integers(1, 6))
    config = {
        "pad_token_id": 0,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(2, 24)),
        "intermediate_size": draw(st.integers(1, 30)),
        "num_hidden_layers": layers,
        "num_attention_heads": kv * draw(st.integers(1, 3)),
        "num_key_value_heads": kv,
        "head_dim": draw(st.sampled_from([2, 4, 6, 8])),
        "conv_L_cache": draw(st.integers(1, 7)),
        "conv_bias": draw(st.booleans()),
        "sliding_window": draw(st.integers(1, 8)),
        "use_sandwich_norm": draw(st.booleans()),
        "use_attention_gate": draw(st.booleans()),
        "attention_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["conv", "full_attention", "sliding_attention"]), min_size=layers, max_size=layers)
        )
    rope = draw(st.sampled_from(_ROPES))
    if rope is not None:
        config["rope_parameters"] = rope
    return config


@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, gates, sandwich norms, RoPE types)."""
    check(config)


def test_lfm3_1_7b() -> None:
    """``Lfm3Config()`` — LFM3-1.7B's shape (24 layers: 6 full, 5 sliding, 13 convolutions) — against
    transformers' own count on the meta device, and its published "1.7B"."""
    check({})
    report = derive.explain({"model_type": "lfm3"})
    assert abs(report.total - 1.7e9) / 1.7e9 < 0.03


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["chunked_attention"]}, "layer_types"),
        ({"sliding_window": None}, "sliding_window"),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}, "rope_parameters"),
        ({"rope_parameters": {**_ROPES[2], "full_attention": {"rope_type": "longrope"}}}, "rope_parameters"),
        ({"head_dim": 7}, "head_dim"),
        ({"block_ff_dim": 8}, "block_ff_dim"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Patterns transformers would not run, RoPE parameters it cannot read, keys derive cannot map."""
    with pytest.raises(ValueError, match=words):
        config_model("lfm3").build(config)


CACHE = {
    "pad_token_id": 0,
    "bos_token_id": 0,
    "eos_token_id": 0,
    "vocab_size": 40,
    "hidden_size": 8,
    "intermediate_size": 12,
    "num_hidden_layers": 5,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "conv_L_cache": 3,
    "sliding_window": 3,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Convolution states, a full layer's keys and values, a sliding layer's last window − 1 (measured)."""
    module = config_model("lfm3").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("lfm3", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    assert cost({"model_type": "lfm3", **CACHE}, prefill + steps, batch, dtype).cache_bytes == sum(measured.values())


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the convolutions' projections,
    gated attention over the cache or its window), and the cache the prefill leaves."""
    model = hf_cache.tiny("lfm3", CACHE)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "lfm3", **CACHE}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "lfm3", **CACHE}, tokens + 1, batch, "float32").flops_per_token == flops
