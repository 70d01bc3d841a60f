"""Zamba2 (``model_type`` ``zamba2``) held against transformers 5.23.0: its data and its own cases. Meta-device
builds of drawn configs (every tensor and buffer, the total: shared blocks tied whole count once, only with
``tie_word_embeddings``), Zamba2-2.7B's layout against transformers' own count and the published size, the
closed form of the cache, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States (every hybrid layer caches, its block tied or not), a decode step's and a first token's FLOPs,
the saved config.json, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); the configs derive
refuses are rows of ``test_harness.py``. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "zamba2")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 2))
    layers = draw(st.integers(1, 6))
    hidden = draw(st.sampled_from([4, 8]))
    expand = draw(st.integers(1, 2))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": hidden,
        "intermediate_size": draw(st.none() | st.integers(1, 12)),
        "num_hidden_layers": layers,
        "layers_block_type": draw(st.lists(st.sampled_from(["mamba", "hybrid"]), min_size=layers, max_size=layers)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "n_mamba_heads": draw(st.sampled_from([h for h in (1, 2, 4) if expand * hidden % h == 0])),
        "mamba_ngroups": draw(st.integers(1, 2)),
        "mamba_d_state": draw(st.integers(1, 6)),
        "mamba_d_conv": draw(st.integers(1, 4)),
        "mamba_expand": expand,
        "num_mem_blocks": draw(st.integers(1, 3)),
        "use_shared_attention_adapter": draw(st.booleans()),
        "adapter_rank": draw(st.integers(1, 4)),
        "use_mem_rope": draw(st.booleans()),
        "add_bias_linear": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["head_dim"] = draw(st.sampled_from([2, 3, 4, 6]))
    return config


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, memory blocks, adapters, ties)."""
    check(config)


#: Zamba2-2.7B: Zamba2Config's defaults (its 54-layer pattern, the "Zamba2-2.7B style") with the two
#: memory blocks, the MLP LoRA of rank 128 and 80 Mamba-2 heads of 64 of Zyphra/Zamba2's config.json.
ZAMBA2_2_7B = {"num_mem_blocks": 2, "n_mamba_heads": 80}


def test_zamba2_2_7b() -> None:
    """Zamba2-2.7B against transformers' own count on the meta device, and its published "2.7B"."""
    check(ZAMBA2_2_7B)
    check({**ZAMBA2_2_7B, "tie_word_embeddings": False})  # no tie: each of the 9 hybrid layers holds its block
    report = derive.explain({"model_type": "zamba2", **ZAMBA2_2_7B})
    assert abs(report.total - 2.7e9) / 2.7e9 < 0.03


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the cache (a tied block's attention caches)."""
    hf_cache.check_closed_cache("zamba2", ZAMBA2_2_7B)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 8,
    "intermediate_size": 12,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,  # the q/k/v adapters give 2D: with fewer key/value heads the forward fails
    "n_mamba_heads": 2,
    "mamba_d_state": 4,
    "mamba_d_conv": 3,
    "chunk_size": 4,
    "adapter_rank": 3,
    "use_shared_attention_adapter": True,
    "num_hidden_layers": 4,
    "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Conv and float32 SSM states in every layer, keys and values in both hybrid layers — the second's block
    tied to the first's (measured)."""
    hf_cache.check_cache("zamba2", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("zamba2", CACHE)


@pytest.mark.parametrize("changed", [{}, {"chunk_size": 1}, {"chunk_size": 6, "mamba_ngroups": 2, "mamba_d_state": 2}])
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): Zamba2MambaMixer runs the chunked scan padded to the chunk size,
    its einsums under ``FlopCounterMode``, and the closed form's ``Piecewise`` at T = 1; chunk sizes of 1
    and above the token, several groups and states."""
    hf_cache.check_first_token("zamba2", {**CACHE, **changed})


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("zamba2", CACHE)
