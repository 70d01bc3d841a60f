"""OLMo-hybrid (``model_type`` ``olmo_hybrid``) held against transformers 5.23.0: meta-device builds of
drawn configs (every tensor and buffer, the total), the cache of tiny models run with ``use_cache=True``
(float32, bfloat16) against derive's States, and the configs derive refuses. Expected values are read
off the real models (``tests/support/hf_live.py``, ``cache_live.py``), never off derive.
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
        model = hf_live.build("olmo_hybrid", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "olmo_hybrid", **config})
        return
    report = derive.explain({"model_type": "olmo_hybrid", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    hf_live.record("transformers", "OlmoHybridForCausalLM")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 6))
    config: dict = {
        "pad_token_id": 0,
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(2, 30)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "attention_bias": draw(st.booleans()),
        "linear_conv_kernel_dim": draw(st.integers(1, 5)),
        "tie_word_embeddings": draw(st.booleans()),
    }
    for key, values in (
        ("linear_num_key_heads", st.integers(1, 3)),
        ("linear_num_value_heads", st.integers(1, 3)),
        ("linear_key_head_dim", st.integers(1, 6)),
        ("linear_value_head_dim", st.integers(1, 6)),
        ("rope_theta", st.sampled_from([None, 10000.0])),
    ):
        if draw(st.booleans()):
            config[key] = draw(values)
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers)
        )
    return config


@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, linear sizes, RoPE or none)."""
    check(config)


def test_defaults() -> None:
    """``OlmoHybridConfig()``: 7,430,870,688 parameters, read off the meta build."""
    check({})
    assert hf_live.total(hf_live.build("olmo_hybrid", {})) == 7_430_870_688


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention", "linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["full_attention"]}, "layer_types"),
        ({"vocab_size": 100}, "pad_token_id"),
        ({"rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1.0}}, "rope_parameters"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Patterns transformers refuses, and keys derive cannot map, refused naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("olmo_hybrid").build(config)


CACHE = {
    "pad_token_id": 0,
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 4,
    "linear_value_head_dim": 6,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 2,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 recurrent states of the others (measured)."""
    from derive.analysis.cost import model_cost

    module = config_model("olmo_hybrid").build(CACHE)
    built = cache_live.model("olmo_hybrid", CACHE, dtype)
    measured = cache_live.cache_bytes(built, batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    longer = cache_live.cache_bytes(built, batch, prefill, steps + 1)
    cost = model_cost(module, prefill + steps, batch, dtype)
    assert cost.kv_bytes_per_token * batch == sum(longer.values()) - sum(measured.values())
    assert cost.state_bytes == sum(measured.values()) - cost.kv_bytes_per_token * batch * (prefill + steps)
