"""Zamba (``model_type`` ``zamba``, Zamba-7B v1) held against transformers 5.23.0: its data. Meta-device builds of
drawn configs (every tensor and buffer, the total: the shared block tied whole counts once, only with
``tie_word_embeddings``), the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States (every hybrid layer's invocation of the shared block caches), a decode step's FLOPs and the
saved config.json, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); ``ZambaConfig()`` —
Zamba-7B v1's shape, against the published size — and the configs derive refuses are rows of
``test_harness.py``. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "zamba")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 2))
    layers = draw(st.integers(3, 7))
    hidden = draw(st.sampled_from([4, 8]))
    expand = draw(st.integers(1, 2))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "n_mamba_heads": draw(st.sampled_from([h for h in (1, 2, 4) if expand * hidden % h == 0])),
        "mamba_d_state": draw(st.integers(1, 6)),
        "mamba_d_conv": draw(st.integers(1, 4)),
        "mamba_expand": expand,
        "mamba_dt_rank": draw(st.sampled_from(["auto", 1, 3])),
        "mamba_conv_bias": draw(st.booleans()),
        "mamba_proj_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["layers_block_type"] = draw(
            st.lists(st.sampled_from(["mamba", "hybrid"]), min_size=layers, max_size=layers)
        )
    else:
        config["attn_layer_period"] = draw(st.integers(1, 3))
        config["attn_layer_offset"] = draw(st.integers(0, 2))
    if draw(st.booleans()):
        config[draw(st.sampled_from(["head_dim", "attention_head_dim"]))] = draw(st.sampled_from([2, 3, 4, 6]))
    if draw(st.booleans()):
        config["attention_hidden_size"] = draw(st.integers(2, 12))
    return config


@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, per-head mixers, ties)."""
    check(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 8,
    "intermediate_size": 12,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "n_mamba_heads": 2,
    "mamba_d_state": 4,
    "mamba_d_conv": 3,
    "num_hidden_layers": 4,
    "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Conv and float32 per-head SSM states in every layer, keys and values in both hybrid layers — the
    second's block tied to the first's (measured)."""
    hf_cache.check_cache("zamba", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, each
    head's selection, time step and state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("zamba", CACHE)


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("zamba", CACHE)
