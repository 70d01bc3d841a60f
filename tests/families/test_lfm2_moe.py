"""LFM2-MoE (``model_type`` ``lfm2_moe``) held against transformers 5.23.0: meta-device builds of drawn
configs (every tensor and buffer, the total), the cache of tiny models run with ``use_cache=True``
(float32, bfloat16) against derive's States, and the configs derive refuses. Expected values are read
off the real models, never off derive.
"""

from __future__ import annotations

import cache_live
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.blocks import config_model
from derive.tree import named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("lfm2_moe", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "lfm2_moe", **config})
        return
    report = derive.explain({"model_type": "lfm2_moe", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    hf_live.record("transformers", "Lfm2MoeForCausalLM")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 4))
    return {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(1, 20)),
        "moe_intermediate_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "num_dense_layers": draw(st.integers(0, 3)),
        "num_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "use_expert_bias": draw(st.booleans()),
        "conv_L_cache": draw(st.integers(1, 4)),
        "conv_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "layer_types": draw(st.lists(st.sampled_from(["conv", "full_attention"]), min_size=layers, max_size=layers)),
    }


@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (dense leading layers, experts, biases)."""
    check(config)


def test_lfm2_8b_a1b_shape() -> None:
    """``Lfm2MoeConfig()`` with 24 layers, attention every third (LFM2-8B-A1B's shape; published 8.3B / 1.5B)."""
    check({"layer_types": ["conv", "conv", "full_attention"] * 8, "num_hidden_layers": 24})


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({}, "layer_types"),
        ({"num_hidden_layers": 2, "layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["mamba"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["conv"], "num_experts": 2, "num_experts_per_tok": 3}, "num_experts"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """No layer pattern (transformers fails), keys derive cannot map: refused naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("lfm2_moe").build(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "moe_intermediate_size": 8,
    "num_hidden_layers": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "num_dense_layers": 1,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "layer_types": ["conv", "full_attention", "conv", "conv"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv states of the others (measured)."""
    module = config_model("lfm2_moe").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("lfm2_moe", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
