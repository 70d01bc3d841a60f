"""Kimi-Linear (``model_type`` ``kimi_linear``) held against transformers 5.23.0: its data and its own cases.
Meta-device builds of drawn configs (every tensor and buffer, the total; both names of aliased keys), the cache
of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States, and a decode step's
FLOPs, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); ``KimiLinearConfig()``, a
checkpoint's ``linear_attn_config`` and the configs derive refuses are rows of ``test_harness.py``. Expected
values are read off the real models.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "kimi_linear")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    layers = draw(st.integers(1, 6))
    experts = draw(st.integers(1, 4))
    config: dict = {
        "pad_token_id": 0,
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(4, 24)),
        "intermediate_size": draw(st.integers(1, 20)),
        "moe_intermediate_size": draw(st.integers(1, 10)),
        "num_hidden_layers": layers,
        "num_attention_heads": draw(st.integers(1, 3)),
        "kv_lora_rank": draw(st.integers(1, 8)),
        "qk_rope_head_dim": draw(st.sampled_from([2, 4])),
        "qk_nope_head_dim": draw(st.integers(1, 6)),
        "v_head_dim": draw(st.integers(1, 6)),
        "q_lora_rank": draw(st.sampled_from([None, 3, 5])),
        "attention_bias": draw(st.booleans()),
        draw(st.sampled_from(["num_experts", "num_local_experts"])): experts,
        draw(st.sampled_from(["num_experts_per_token", "num_experts_per_tok"])): draw(st.integers(1, experts)),
        draw(st.sampled_from(["num_shared_experts", "n_shared_experts"])): draw(st.integers(1, 2)),
        "linear_head_dim": draw(st.integers(1, 6)),
        "linear_num_heads": draw(st.integers(1, 3)),
        "linear_conv_kernel_dim": draw(st.integers(1, 4)),
        "first_k_dense_replace": draw(st.integers(0, 3)),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers)
        )
    return config


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, MLA ranks, experts, aliases)."""
    check(config)


CACHE = {
    "pad_token_id": 0,
    "bos_token_id": 0,
    "eos_token_id": 0,
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "moe_intermediate_size": 8,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "kv_lora_rank": 8,
    "qk_rope_head_dim": 4,
    "v_head_dim": 6,
    "qk_nope_head_dim": 4,
    "num_experts": 4,
    "num_experts_per_token": 2,
    "linear_head_dim": 4,
    "linear_num_heads": 2,
    "linear_conv_kernel_dim": 3,
    "layer_types": ["linear_attention", "full_attention", "linear_attention"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """MLA's cached latent and KDA's conv and float32 recurrent states (measured)."""
    hf_cache.check_cache("kimi_linear", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: KDA's projections, its low-rank
    gates included; latent attention re-expanding every cached latent; the router, visited and shared experts)."""
    # eager attention's key/value groups: 2 // 32 = 0 fails its forward
    hf_cache.check_decode("kimi_linear", {**CACHE, "num_key_value_heads": 2})
