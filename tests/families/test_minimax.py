"""MiniMax (``model_type`` ``minimax``) held against transformers 5.23.0: meta-device builds of drawn
configs (every tensor and buffer, the total), the cache of tiny models run with ``use_cache=True``
(float32, bfloat16; with a sliding window the cache still keeps every token) against derive's States,
and the configs derive refuses. Expected values are read off the real models, never off derive.
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
        model = hf_live.build("minimax", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "minimax", **config})
        return
    report = derive.explain({"model_type": "minimax", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    hf_live.record("transformers", "MiniMaxForCausalLM")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 4))
    config: dict = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(1, 20)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "num_local_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "block_size": draw(st.integers(1, 8)),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["head_dim"] = draw(st.sampled_from([2, 4, 6]))
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers)
        )
    return config


@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, experts, head widths)."""
    check(config)


def test_defaults() -> None:
    """``MiniMaxConfig()``: 47,373,946,880 parameters, read off the meta build."""
    check({})
    assert hf_live.total(hf_live.build("minimax", {})) == 47_373_946_880


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Keys derive cannot map and patterns transformers would not build, refused naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("minimax").build(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "num_local_experts": 4,
    "num_experts_per_tok": 2,
    "block_size": 4,
    "sliding_window": 3,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of every token (the window notwithstanding) and each lightning layer's K^T V (measured)."""
    from derive.analysis.cost import model_cost

    module = config_model("minimax").build(CACHE)
    built = cache_live.model("minimax", CACHE, dtype)
    measured = cache_live.cache_bytes(built, batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    longer = cache_live.cache_bytes(built, batch, prefill, steps + 1)
    cost = model_cost(module, prefill + steps, batch, dtype)
    assert cost.kv_bytes_per_token * batch == sum(longer.values()) - sum(measured.values())
    assert cost.state_bytes == sum(measured.values()) - cost.kv_bytes_per_token * batch * (prefill + steps)
