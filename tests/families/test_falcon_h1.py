"""Falcon-H1 (``model_type`` ``falcon_h1``) held against transformers 5.23.0: its data and its own cases.
Meta-device builds of drawn configs (every tensor and buffer — the μP ``mup_vector`` a buffer — and the total),
the closed form of the cache, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States (attention and Mamba-2 in every layer), a decode step's and a first token's FLOPs, the saved
config.json, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); ``FalconH1Config()`` and the
configs derive refuses are rows of ``test_harness.py``. Expected values are read off the real models, never off
derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "falcon_h1")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    mamba_heads = draw(st.integers(1, 4))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.sampled_from([6, 8, 12])),
        "intermediate_size": draw(st.integers(1, 20)),
        "num_hidden_layers": draw(st.integers(0, 3)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "mamba_n_heads": mamba_heads,
        "mamba_d_ssm": mamba_heads * draw(st.integers(1, 4)),
        "mamba_n_groups": draw(st.integers(1, 3)),
        "mamba_d_state": draw(st.integers(1, 8)),
        "mamba_d_conv": draw(st.integers(1, 4)),
        "mamba_rms_norm": draw(st.booleans()),
        "mamba_conv_bias": draw(st.booleans()),
        "mamba_proj_bias": draw(st.booleans()),
        "projectors_bias": draw(st.booleans()),
        "attention_bias": draw(st.booleans()),
        "mlp_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "ssm_multipliers": [draw(st.floats(0.5, 2.0)) for _ in range(5)],
        "mlp_multipliers": [1.0, draw(st.floats(0.5, 2.0))],
        "key_multiplier": 0.5,
    }
    if draw(st.booleans()):
        config["head_dim"] = draw(st.integers(1, 6))
    if draw(st.booleans()):
        kind = draw(st.sampled_from(["default", "linear"]))
        config["rope_parameters"] = {"rope_type": kind, "rope_theta": 1e4, "factor": 2.0}
        config["rope_parameters"]["partial_rotary_factor"] = draw(st.sampled_from([0.25, 0.5, 1.0]))
    return config


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (widths, norms, biases, multipliers, RoPE)."""
    check(config)


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the cache."""
    hf_cache.check_closed_cache(
        "falcon_h1", {"head_dim": 96, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}
    )


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "mamba_d_ssm": 24,
    "mamba_n_heads": 4,
    "mamba_n_groups": 2,
    "mamba_d_state": 8,
    "mamba_d_conv": 3,
    "mamba_chunk_size": 4,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values, conv states and float32 SSM states, in every layer (measured)."""
    hf_cache.check_cache("falcon_h1", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("falcon_h1", CACHE)


@pytest.mark.parametrize(
    "changed",
    [
        {},
        {"mamba_chunk_size": 1, "mamba_n_groups": 1},
        {"mamba_chunk_size": 5, "mamba_d_state": 1, "mamba_n_groups": 4},
    ],
)
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): FalconH1Mixer runs the chunked scan padded to the chunk size,
    its einsums under ``FlopCounterMode``, and the closed form's ``Piecewise`` at T = 1; chunk sizes of 1
    and above the token, several groups and states."""
    hf_cache.check_first_token("falcon_h1", {**CACHE, **changed})


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("falcon_h1", CACHE)
