"""LFM2-MoE (``model_type`` ``lfm2_moe``) held against transformers 5.23.0: its data. Meta-device builds of drawn
configs (every tensor and buffer, the total) and the cache of tiny models run with ``use_cache=True`` (float32,
bfloat16) against derive's States, through the shared checks (``hf_live.check_family``, ``hf_cache``'s);
LFM2-8B-A1B's shape and the configs derive refuses are rows of ``test_harness.py``. Expected values are read
off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "lfm2_moe")


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


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (dense leading layers, experts, biases)."""
    check(config)


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv states of the others (measured)."""
    hf_cache.check_cache("lfm2_moe", CACHE, dtype, batch, prefill, steps)
