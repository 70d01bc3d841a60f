"""Bamba (``model_type`` ``bamba``) held against transformers 5.23.0: meta-device builds of drawn configs
(every tensor and buffer, the total), Bamba-9B's layout against transformers' own count and the published
size, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States,
and the configs derive refuses. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import json

import cache_live
import hf_cache
import hf_live
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import active, named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("bamba", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "bamba", **config})
        return
    report = derive.explain({"model_type": "bamba", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model) == active(report.module)
    hf_live.record("transformers", "BambaForCausalLM")


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


@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, head widths, rotary factors, biases)."""
    check(config)


#: Bamba-9B: BambaConfig's defaults (its docstring's checkpoint, ibm-fms/Bamba-9.8b-2.2T-hf) with
#: attention at layers 9, 18 and 27 and a state of 128 (the HF blog "bamba": 3 attention + 29 Mamba-2 layers).
BAMBA_9B = {"attn_layer_indices": [9, 18, 27], "mamba_d_state": 128}


def test_bamba_9b() -> None:
    """Bamba-9B's layout against transformers' own count on the meta device, and its published "9.8B"."""
    model = hf_live.build("bamba", BAMBA_9B)
    report = derive.explain({"model_type": "bamba", **BAMBA_9B})
    assert report.total == hf_live.total(model)
    assert abs(report.total - 9.8e9) / 9.8e9 < 0.01
    assert sum(1 for name, _ in hf_live.tensors(model) if name.endswith("q_proj.weight")) == 3


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the total and the cache."""
    numeric = cost(derive.explain({"model_type": "bamba", **BAMBA_9B}), 4096, 2, "bfloat16")
    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values.update(
        {sympy.Symbol("T", integer=True, positive=True): 4096, sympy.Symbol("N", integer=True, positive=True): 2}
    )
    assert sympy.sympify(forms["cache_bytes"]).subs(values) == numeric.cache_bytes


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"mamba_n_heads": 3}, "mamba_n_heads"),
        ({"mamba_d_head": 32}, "mamba_d_head"),
        ({"mamba_expand": 1.5}, "mamba_expand"),
        ({"attn_layer_indices": "9,18"}, "attn_layer_indices"),
        ({"head_dim": None}, "head_dim"),
        ({"head_dim": 7, "rope_parameters": {"partial_rotary_factor": 1.0}}, "head_dim"),
        ({"layer_types": ["mamba"] * 32}, "layer_types"),
        ({"rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
        ({"rope_scaling": {"type": "linear", "factor": 2.0}}, "rope_scaling"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Keys derive cannot map and values transformers refuses, naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("bamba").build(config)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "attn_layer_indices": [1],
    "mamba_n_heads": 4,
    "mamba_n_groups": 2,
    "mamba_d_state": 8,
    "mamba_d_conv": 3,
    "mamba_chunk_size": 4,
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer; conv states and float32 SSM states of the Mamba-2 layers (measured)."""
    module = config_model("bamba").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("bamba", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    assert cost({"model_type": "bamba", **CACHE}, prefill + steps, batch, dtype).cache_bytes == sum(measured.values())


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    model = hf_cache.tiny("bamba", CACHE)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "bamba", **CACHE}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "bamba", **CACHE}, tokens + 1, batch, "float32").flops_per_token == flops


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
    import transformers

    saved = json.loads(transformers.AutoConfig.for_model("bamba", **CACHE).to_json_string())
    assert derive.explain(saved).total == hf_live.total(hf_live.build("bamba", CACHE))
