"""OLMo-hybrid (``model_type`` ``olmo_hybrid``) held against transformers 5.23.0: its data. Meta-device builds of
drawn configs (every tensor and buffer, the total) and the cache of tiny models run with ``use_cache=True``
(float32, bfloat16) against derive's States, through the shared checks (``hf_live.check_family``,
``hf_cache``'s); ``OlmoHybridConfig()`` and the configs derive refuses are rows of ``test_harness.py``.
Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "olmo_hybrid")


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


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, linear sizes, RoPE or none)."""
    check(config)


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 recurrent states of the others (measured)."""
    hf_cache.check_cache("olmo_hybrid", CACHE, dtype, batch, prefill, steps)
