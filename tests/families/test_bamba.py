"""Bamba (``model_type`` ``bamba``) held against transformers 5.23.0: its data and its own cases. Meta-device
builds of drawn configs (every tensor and buffer, the total), Bamba-9B-v1's released config.json (read from its
data) against transformers' own count and the published size, the closed form of the cache, the cache of tiny
models run with ``use_cache=True`` (float32, bfloat16) against derive's States, a decode step's and a first
token's FLOPs, the saved config.json, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); the
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

import derive
from derive.analysis.cost import cost
from derive.families.family import released, tiny

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "bamba")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 4))
    hidden = draw(st.sampled_from([8, 12, 16]))
    expand = draw(st.integers(1, 2))
    mamba_heads = draw(st.sampled_from([h for h in (1, 2, 4, 8) if expand * hidden % h == 0]))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 20)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "attn_layer_indices": draw(st.lists(st.integers(0, layers), unique=True, max_size=layers)),
        "mamba_n_heads": mamba_heads,
        "mamba_n_groups": draw(st.integers(1, 3)),
        "mamba_d_state": draw(st.integers(1, 8)),
        "mamba_d_conv": draw(st.integers(1, 4)),
        "mamba_expand": expand,
        "mamba_conv_bias": draw(st.booleans()),
        "mamba_proj_bias": draw(st.booleans()),
        "attention_bias": draw(st.booleans()),
        "mlp_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["head_dim"] = draw(st.integers(1, 6))
    if draw(st.booleans()):
        config["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e4}
        config["rope_parameters"]["partial_rotary_factor"] = draw(st.sampled_from([0.25, 0.5, 1.0]))
    return config


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, head widths, rotary factors, biases)."""
    check(config)


def _bamba_9b() -> dict:
    """ibm-ai-platform/Bamba-9B-v1's config.json as published (its one home: ``derive/families/data/bamba.json``),
    without its ``model_type``: attention at layers 9, 18 and 27, 29 Mamba-2 layers of state 128."""
    release = next(r for r in released("bamba") if r.name == "ibm-ai-platform/Bamba-9B-v1")
    return {k: v for k, v in release.config.items() if k != "model_type"}


def test_bamba_9b() -> None:
    """Bamba-9B's release against transformers' own count on the meta device, and its model card's 9.78B."""
    config = _bamba_9b()
    model = hf_live.build("bamba", config)
    report = derive.explain({"model_type": "bamba", **config})
    assert report.total == hf_live.total(model)
    assert abs(report.total - 9.78e9) / 9.78e9 < 0.005
    assert sum(1 for name, _ in hf_live.tensors(model) if name.endswith("q_proj.weight")) == 3


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the total and the cache."""
    hf_cache.check_closed_cache("bamba", _bamba_9b())


#: The small config the caches run on: the family's first tiny config (derive/families/data/bamba.json).
CACHE = tiny("bamba")[0]


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer; conv states and float32 SSM states of the Mamba-2 layers (measured)."""
    hf_cache.check_cache("bamba", CACHE, dtype, batch, prefill, steps)


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    hf_cache.check_decode("bamba", CACHE)


@pytest.mark.parametrize(
    "changed",
    [
        {},
        {"mamba_chunk_size": 1, "mamba_n_groups": 1},
        {"mamba_chunk_size": 7, "mamba_d_state": 1, "mamba_n_groups": 4},
    ],
)
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): BambaMixer runs the chunked scan padded to the chunk size,
    its einsums under ``FlopCounterMode``, and the closed form's ``Piecewise`` at T = 1; chunk sizes of 1
    and above the token, several groups and states."""
    hf_cache.check_first_token("bamba", {**CACHE, **changed})


def test_first_token_without_a_chunk_size_is_refused() -> None:
    """``mamba_chunk_size=None`` (BambaConfig allows it) builds, but transformers' chunked scan fails on the first
    token (``pad_size``'s ``%``): derive refuses that token, never a number."""
    config = {**CACHE, "mamba_chunk_size": None}
    with pytest.raises(TypeError):
        hf_cache.first(hf_cache.tiny("bamba", config), 1)
    assert cost({"model_type": "bamba", **config}, 1, 1, "float32").flops_per_token is None


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    hf_live.check_saved_config("bamba", CACHE)
