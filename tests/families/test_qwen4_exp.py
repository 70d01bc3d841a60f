"""Qwen4-Exp's text model (``model_type`` ``qwen4_exp_text``) held against transformers 5.23.0: meta-device
builds of drawn configs (every tensor and buffer, the total and the active parameters), the config class's
defaults with the QSA indexer's keys it needs, where the parameters sit (hyper-connections their own part),
the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States, and the
configs derive refuses. Expected values are read off the real models, never off derive.
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
from derive.blocks import config_model

#: The QSA indexer's keys (``Qwen4ExpTextConfig`` has none by default, and its indexed layers need them):
#: chosen here, the smallest values its checks accept at the default head width — not a released config.
INDEXER = {
    "indexer_n_heads": 1,
    "indexer_kv_heads": 1,
    "indexer_head_dim": 256,
    "indexer_budget": 4,
    "indexer_compress_ratio": 2,
}


#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "qwen4_exp_text")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 4))
    head = draw(st.sampled_from([2, 4, 8]))
    config: dict = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(2, 16)),
        "num_hidden_layers": layers,
        "num_attention_heads": kv * draw(st.integers(1, 2)),
        "num_key_value_heads": kv,
        "head_dim": head,
        "attention_bias": draw(st.booleans()),
        "linear_conv_kernel_dim": draw(st.integers(1, 4)),
        "linear_key_head_dim": draw(st.integers(1, 6)),
        "linear_value_head_dim": draw(st.integers(1, 6)),
        "linear_num_key_heads": draw(st.integers(1, 2)),
        "linear_num_value_heads": draw(st.integers(1, 3)),
        "moe_intermediate_size": draw(st.integers(1, 8)),
        "shared_expert_intermediate_size": draw(st.integers(1, 8)),
        "num_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "hc_count": draw(st.integers(2, 3)),
        "hc_lowrank": draw(st.integers(1, 5)),
        "tie_word_embeddings": draw(st.booleans()),
        "indexer_n_heads": draw(st.integers(1, 3)),
        "indexer_kv_heads": 1,
        "indexer_head_dim": draw(st.sampled_from([head, head + 2])),
        "indexer_compress_ratio": 2,
        "indexer_budget": 2 * draw(st.integers(1, 3)),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers)
        )
    else:
        config["full_attention_interval"] = draw(st.integers(1, 3))
    return config


@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer, total and active count of drawn configs (patterns, indexer, experts, streams)."""
    check(config)


def test_defaults_with_the_indexer() -> None:
    """``Qwen4ExpTextConfig()`` with the indexer's keys (40 layers, 10 indexed, 512 experts of which 10 per
    token), read off the build; without them transformers cannot build it, and derive says why."""
    check(INDEXER)
    with pytest.raises(ValueError, match="indexer"):
        derive.explain({"model_type": "qwen4_exp_text"})


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({**INDEXER, "ple_layer_ids": [1]}, "ple_layer_ids"),
        ({**INDEXER, "indexer_kv_heads": 2}, "indexer_kv_heads"),
        ({**INDEXER, "indexer_budget": 5}, "indexer_budget"),
        ({**INDEXER, "indexer_head_dim": 8}, "indexer_head_dim"),
        ({**INDEXER, "hc_count": 1}, "hc_count"),
        ({**INDEXER, "num_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({**INDEXER, "num_hidden_layers": 2, "layer_types": ["linear_attention", "sliding_attention"]}, "layer_types"),
        ({**INDEXER, "output_gate_type": "gelu"}, "output_gate_type"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """What derive does not derive (the n-gram embeddings), values transformers refuses, keys it cannot map."""
    with pytest.raises(ValueError, match=words):
        config_model("qwen4_exp_text").build(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 8,
    "linear_key_head_dim": 4,
    "linear_value_head_dim": 4,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_conv_kernel_dim": 3,
    "moe_intermediate_size": 8,
    "shared_expert_intermediate_size": 6,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "hc_count": 2,
    "hc_lowrank": 3,
    "layer_types": ["linear_attention", "full_attention", "linear_attention"],
    "indexer_n_heads": 2,
    "indexer_kv_heads": 1,
    "indexer_head_dim": 8,
    "indexer_budget": 4,
    "indexer_compress_ratio": 2,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Gated DeltaNet's conv and float32 recurrent states, the indexed layer's keys, values and indexer keys (measured)."""
    hf_cache.check_cache("qwen4_exp_text", CACHE, dtype, batch, prefill, steps)
    assert cost({"model_type": "qwen4_exp_text", **CACHE}, prefill + steps, batch, dtype).flops_per_token is None
