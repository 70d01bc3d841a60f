"""LFM3 (``model_type`` ``lfm3``) held against transformers 5.23.0: its data. Meta-device builds of drawn configs
(every tensor and buffer — a rotary pair per attention type — and the total), the cache of tiny models run with
``use_cache=True`` (float32, bfloat16: sliding-window and full attention, convolution states) against derive's
States, and a decode step's FLOPs, through the shared checks (``hf_live.check_family``, ``hf_cache``'s);
``Lfm3Config()`` (LFM3-1.7B's shape) and the configs derive refuses are rows of ``test_harness.py``. Expected
values are read off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "lfm3")


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Convolution states, a full layer's keys and values, a sliding layer's last window − 1 (measured)."""
    hf_cache.check_cache("lfm3", CACHE, dtype, batch, prefill, steps, split=False)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the convolutions' projections,
    gated attention over the cache or its window), and the cache the prefill leaves."""
    hf_cache.check_decode("lfm3", CACHE)
