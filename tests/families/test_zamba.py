"""Zamba (``model_type`` ``zamba``, Zamba-7B v1) held against transformers 5.23.0: meta-device builds of
drawn configs (every tensor and buffer, the total: the shared block tied whole counts once, only with
``tie_word_embeddings``), ``ZambaConfig()`` — Zamba-7B v1's shape — against transformers' own count and
the published size, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States (every hybrid layer's invocation of the shared block caches), a decode step's FLOPs,
and the configs derive refuses. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import json

import cache_live
import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import active, named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("zamba", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "zamba", **config})
        return
    report = derive.explain({"model_type": "zamba", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model) == active(report.module)
    hf_live.record("transformers", "ZambaForCausalLM")


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


def test_zamba_7b() -> None:
    """Zamba-7B v1 (``ZambaConfig()``: 76 layers, 13 hybrid) against transformers' own count on the meta
    device, untied too (each hybrid layer then holds its own block), and its published "7B"."""
    check({})
    check({"tie_word_embeddings": False})
    report = derive.explain({"model_type": "zamba"})
    assert abs(report.total - 7e9) / 7e9 < 0.04


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layers_block_type": ["hybrid"]}, "layers_block_type"),
        ({"num_hidden_layers": 1, "layers_block_type": ["attention"]}, "layers_block_type"),
        ({"num_hidden_layers": 2}, "num_hidden_layers"),
        ({"num_hidden_layers": 3}, "tie_word_embeddings"),
        ({"n_mamba_heads": 3}, "n_mamba_heads"),
        ({"head_dim": 3, "attention_head_dim": 5}, "head_dim"),
        ({"mamba_expand": 1.5}, "mamba_expand"),
        ({"attn_layer_period": "6"}, "attn_layer_period"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Patterns and keys derive cannot map, aliases that disagree, configs transformers refuses."""
    with pytest.raises(ValueError, match=words):
        config_model("zamba").build(config)


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Conv and float32 per-head SSM states in every layer, keys and values in both hybrid layers — the
    second's block tied to the first's (measured)."""
    module = config_model("zamba").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("zamba", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    assert cost({"model_type": "zamba", **CACHE}, prefill + steps, batch, dtype).cache_bytes == sum(measured.values())


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, each
    head's selection, time step and state readout, attention over the cache), and the cache the prefill leaves."""
    model = hf_cache.tiny("zamba", CACHE)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "zamba", **CACHE}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "zamba", **CACHE}, tokens + 1, batch, "float32").flops_per_token == flops


def test_saved_config() -> None:
    """The config.json transformers saves (every key ``to_json_string`` writes, the derived ones too) reads back."""
    import transformers

    saved = json.loads(transformers.AutoConfig.for_model("zamba", **CACHE).to_json_string())
    assert derive.explain(saved).total == hf_live.total(hf_live.build("zamba", CACHE))
