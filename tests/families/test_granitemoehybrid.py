"""GraniteMoeHybrid (``model_type`` ``granitemoehybrid``) held against transformers 5.23.0: its data and its own
cases. Meta-device builds of drawn configs (every tensor and buffer, the total, the active count),
Granite-4.0-H-Small against transformers' own count and its published 32B / 9B, the closed form of the cache,
the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States, a decode
step's and a first token's FLOPs, the saved config.json, through the shared checks (``hf_live.check_family``,
``hf_cache``'s); the configs derive refuses are rows of ``test_harness.py``. Expected values are read off the
real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.families.family import released, tiny

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "granitemoehybrid")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    layers = draw(st.integers(1, 4))
    hidden = draw(st.sampled_from([8, 12, 16]))
    expand = draw(st.integers(1, 2))
    experts = draw(st.integers(0, 4))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)),
        "shared_intermediate_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers,
        "num_attention_heads": kv * draw(st.integers(1, 3)),
        "num_key_value_heads": kv,
        "num_local_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, max(experts, 1))),
        "mamba_n_heads": draw(st.sampled_from([h for h in (1, 2, 4, 8) if expand * hidden % h == 0])),
        "mamba_n_groups": draw(st.integers(1, 3)),
        "mamba_d_state": draw(st.integers(1, 8)),
        "mamba_d_conv": draw(st.integers(1, 4)),
        "mamba_expand": expand,
        "mamba_conv_bias": draw(st.booleans()),
        "mamba_proj_bias": draw(st.booleans()),
        "attention_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "position_embedding_type": draw(st.sampled_from([None, "nope", "rope"])),
    }
    kinds = ["mamba", "attention", "linear_attention", "full_attention"]
    if draw(st.booleans()):
        key = draw(st.sampled_from(["layer_types", "layers_block_type"]))
        config[key] = draw(st.lists(st.sampled_from(kinds), min_size=layers, max_size=layers))
    if draw(st.booleans()):
        config["head_dim"] = draw(st.integers(1, 6))
    return config


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer, total and active of drawn configs (patterns, experts, RoPE, biases)."""
    check(config)


def _granite_4_h_small() -> dict:
    """ibm-granite/granite-4.0-h-small's config.json as published (its one home:
    ``derive/families/data/granitemoehybrid.json``), without its ``model_type``: 36 Mamba-2 and 4 attention layers."""
    release = next(r for r in released("granitemoehybrid") if r.name == "ibm-granite/granite-4.0-h-small")
    return {k: v for k, v in release.config.items() if k != "model_type"}


def test_granite_4_h_small() -> None:
    """Total and active against transformers' build on the meta device; against the published 32B / 9B."""
    config = _granite_4_h_small()
    check(config)
    report = derive.explain({"model_type": "granitemoehybrid", **config})
    assert abs(report.total - 32e9) / 32e9 < 0.03
    assert abs(report.active - 9e9) / 9e9 < 0.03


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the cache."""
    hf_cache.check_closed_cache(
        "granitemoehybrid", {**_granite_4_h_small(), "position_embedding_type": "rope", "head_dim": 64}
    )


#: Widths multiples of 8: the fused experts run as torch._grouped_mm, whose strides must be multiples of 16 bytes.
#: The small config the caches run on: the family's first tiny config (derive/families/data/granitemoehybrid.json).
CACHE = tiny("granitemoehybrid")[0]


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 SSM states of the Mamba-2 layers (measured)."""
    hf_cache.check_cache("granitemoehybrid", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("granitemoehybrid", CACHE)


@pytest.mark.parametrize(
    "changed", [{}, {"mamba_chunk_size": 1}, {"mamba_chunk_size": 9, "mamba_n_groups": 1, "mamba_d_state": 3}]
)
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): GraniteMoeHybridMambaLayer runs the chunked scan padded to the chunk size,
    its einsums under ``FlopCounterMode``, and the closed form's ``Piecewise`` at T = 1; chunk sizes of 1
    and above the token, several groups and states."""
    hf_cache.check_first_token("granitemoehybrid", {**CACHE, **changed})


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("granitemoehybrid", CACHE)
