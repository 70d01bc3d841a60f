"""LFM2 (``model_type`` ``lfm2``) held against transformers 5.23.0: meta-device builds of drawn configs
(every tensor and buffer, the total), the cache of tiny models run with ``use_cache=True`` (float32,
bfloat16) against derive's States, and the configs derive refuses. Expected values are read off the
real models (``tests/support/hf_live.py``, ``cache_live.py``), never off derive.
"""

from __future__ import annotations

import cache_live
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.blocks import config_model
from derive.tree import active, named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("lfm2", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "lfm2", **config})
        return
    report = derive.explain({"model_type": "lfm2", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model) == active(report.module)
    hf_live.record("transformers", "Lfm2ForCausalLM")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(3, 60)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "conv_L_cache": draw(st.integers(1, 5)),
        "conv_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "block_multiple_of": draw(st.sampled_from([1, 8, 256])),
        "block_ffn_dim_multiplier": draw(st.sampled_from([1.0, 1.3, 2])),
        "block_auto_adjust_ff_dim": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["conv", "full_attention"]), min_size=layers, max_size=layers)
        )
    else:
        config["full_attn_idxs"] = draw(st.lists(st.integers(0, layers - 1), unique=True, max_size=layers))
    return config


@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, FFN widths, biases, ties)."""
    check(config)


def test_lfm2_1_2b_shape() -> None:
    """LFM2-1.2B's shape (width 2048, 16 layers, attention at 2, 5, 8, 10, 12, 14; published as "1.2B")."""
    config = {"hidden_size": 2048, "intermediate_size": 12288, "num_hidden_layers": 16, "num_key_value_heads": 8}
    config["full_attn_idxs"] = [2, 5, 8, 10, 12, 14]
    check(config)
    check({**config, "tie_embedding": True, "block_dim": 2048, "num_heads": 32, "block_use_swiglu": True})


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"block_dim": 1024}, "block_dim"),
        ({"block_use_swiglu": False}, "block_use_swiglu"),
        ({"layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 2, "layer_types": ["conv", "mamba"]}, "layer_types"),
        ({"full_attn_idxs": "all"}, "full_attn_idxs"),
        ({"block_ffn_dim_multiplier": None}, "block_ffn_dim_multiplier"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Keys derive cannot map, and patterns transformers would not build, refused naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("lfm2").build(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "conv_L_cache": 3,
    "block_multiple_of": 8,
    "layer_types": ["conv", "full_attention", "conv", "full_attention"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layers, conv states of the others (measured), and the cost's split."""
    from derive.analysis.cost import model_cost

    module = config_model("lfm2").build(CACHE)
    built = cache_live.model("lfm2", CACHE, dtype)
    measured = cache_live.cache_bytes(built, batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    longer = cache_live.cache_bytes(built, batch, prefill, steps + 1)
    cost = model_cost(module, prefill + steps, batch, dtype)
    assert cost.cache_bytes == sum(measured.values())
    assert cost.kv_bytes_per_token * batch == sum(longer.values()) - sum(measured.values())
    assert cost.state_bytes == sum(measured.values()) - cost.kv_bytes_per_token * batch * (prefill + steps)
