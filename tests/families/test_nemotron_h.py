"""Nemotron-H (``model_type`` ``nemotron_h``) held against transformers 5.23.0: its data and its own cases.
Meta-device builds of drawn configs (every tensor and buffer, the total, the active count), Nemotron-H-8B's
layout against transformers' own count and the published size, the legacy key names, the closed form of the
cache, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States, a
decode step's and a first token's FLOPs, the saved config.json, through the shared checks
(``hf_live.check_family``, ``hf_cache``'s); the configs derive refuses are rows of ``test_harness.py``.
Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.tree import active

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "nemotron_h")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    experts = draw(st.integers(1, 4))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(4, 16)),
        "intermediate_size": draw(st.integers(1, 20)),
        "num_attention_heads": kv * draw(st.integers(1, 3)),
        "num_key_value_heads": kv,
        "head_dim": draw(st.integers(1, 8)),
        "mamba_num_heads": draw(st.integers(1, 4)),
        "mamba_head_dim": draw(st.integers(1, 6)),
        "ssm_state_size": draw(st.integers(1, 8)),
        "n_groups": draw(st.integers(1, 3)),
        "conv_kernel": draw(st.integers(1, 4)),
        "n_routed_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "moe_intermediate_size": draw(st.integers(1, 12)),
        "moe_shared_expert_intermediate_size": draw(st.integers(1, 12)),
        "moe_latent_size": draw(st.none() | st.integers(1, 6)),
        "mlp_bias": draw(st.booleans()),
        "use_bias": draw(st.booleans()),
        "use_conv_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["hybrid_override_pattern"] = draw(st.text("ME*-", min_size=1, max_size=6))
    else:
        kinds = ["mamba", "attention", "linear_attention", "full_attention", "mlp", "moe"]
        config["layers_block_type"] = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=6))
    return config


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer, total and active of drawn configs (patterns, MoE, latent, biases)."""
    check(config)


#: nvidia/Nemotron-H-8B-Base-8K: NemotronHConfig's defaults with its 52-layer pattern (24 Mamba-2,
#: 4 attention, 24 MLP; the pattern as the Nemotron-H paper, arXiv 2504.03624, and Megatron-Bridge give it).
NEMOTRON_H_8B = {"hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"}


def test_nemotron_h_8b() -> None:
    """Nemotron-H-8B's layout against transformers' own count on the meta device, and its published "8B"."""
    check({**NEMOTRON_H_8B, "num_hidden_layers": 52, "tie_word_embeddings": True})  # neither changes a tensor
    report = derive.explain({"model_type": "nemotron_h", **NEMOTRON_H_8B})
    assert abs(report.total - 8e9) / 8e9 < 0.03
    assert active(report.module) == report.total  # no MoE layer


def test_legacy_names() -> None:
    """``mamba_n_groups``/``mamba_d_conv``/``mamba_conv_bias`` win over the keys they replace; ``layer_types``
    over ``layers_block_type``; ``num_local_experts`` over ``n_routed_experts`` (as transformers sets them)."""
    small = {"vocab_size": 16, "hidden_size": 8, "mamba_num_heads": 2, "mamba_head_dim": 4, "ssm_state_size": 4}
    small.update(num_attention_heads=2, num_key_value_heads=1, head_dim=4, intermediate_size=8)
    small.update(moe_intermediate_size=4, moe_shared_expert_intermediate_size=4, n_routed_experts=4)
    check({**small, "layers_block_type": ["mlp"], "layer_types": ["mamba", "moe"], "num_local_experts": 3,
           "n_groups": 2, "mamba_n_groups": 1, "conv_kernel": 4, "mamba_d_conv": 2, "mamba_conv_bias": False})  # fmt: skip


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the cache."""
    hf_cache.check_closed_cache("nemotron_h", NEMOTRON_H_8B)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 8,
    "mamba_num_heads": 4,
    "mamba_head_dim": 6,
    "ssm_state_size": 8,
    "n_groups": 2,
    "conv_kernel": 3,
    "chunk_size": 4,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 8,
    "moe_shared_expert_intermediate_size": 12,
    "hybrid_override_pattern": "ME*-M",
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 SSM states of the Mamba-2 layers, nothing for
    the MLP and MoE layers (measured)."""
    hf_cache.check_cache("nemotron_h", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("nemotron_h", CACHE)


@pytest.mark.parametrize(
    "changed", [{}, {"chunk_size": 1}, {"mamba_chunk_size": 6, "n_groups": 4, "ssm_state_size": 3}]
)
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): NemotronHMamba2Mixer runs the chunked scan padded to the chunk size (``mamba_chunk_size`` replaces ``chunk_size`` when given),
    its einsums under ``FlopCounterMode``, and the closed form's ``Piecewise`` at T = 1; chunk sizes of 1
    and above the token, several groups and states."""
    hf_cache.check_first_token("nemotron_h", {**CACHE, **changed})


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("nemotron_h", CACHE)
