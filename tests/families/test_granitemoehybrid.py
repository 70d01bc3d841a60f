"""GraniteMoeHybrid (``model_type`` ``granitemoehybrid``) held against transformers 5.23.0: meta-device
builds of drawn configs (every tensor and buffer, the total, the active count), Granite-4.0-H-Small
against transformers' own count and its published 32B / 9B, the cache of tiny models run with
``use_cache=True`` (float32, bfloat16) against derive's States, and the configs derive refuses.
Expected values are read off the real models, never off derive.
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


def _live_active(model) -> int:  # type: ignore[no-untyped-def]
    """Every parameter, the routed experts at num_experts_per_tok / num_local_experts."""
    k = model.config.num_experts_per_tok
    return sum(p.numel() // p.shape[0] * k if ".experts." in n else p.numel() for n, p in model.named_parameters())


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("granitemoehybrid", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "granitemoehybrid", **config})
        return
    report = derive.explain({"model_type": "granitemoehybrid", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    assert active(report.module) == _live_active(model)
    hf_live.record("transformers", "GraniteMoeHybridForCausalLM")


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


@settings(max_examples=12, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer, total and active of drawn configs (patterns, experts, RoPE, biases)."""
    check(config)


#: ibm-granite/granite-4.0-h-small's shape keys (its config.json; 36 Mamba-2 and 4 attention layers:
#: their order changes no count).
GRANITE_4_H_SMALL = {
    "vocab_size": 100352,
    "hidden_size": 4096,
    "num_hidden_layers": 40,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 72,
    "num_experts_per_tok": 10,
    "shared_intermediate_size": 1536,
    "intermediate_size": 768,
    "mamba_d_state": 128,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "tie_word_embeddings": True,
    "layer_types": ["mamba"] * 36 + ["attention"] * 4,
}


def test_granite_4_h_small() -> None:
    """Total and active against transformers' build on the meta device; against the published 32B / 9B."""
    check(GRANITE_4_H_SMALL)
    report = derive.explain({"model_type": "granitemoehybrid", **GRANITE_4_H_SMALL})
    assert abs(report.total - 32e9) / 32e9 < 0.03
    assert abs(report.active - 9e9) / 9e9 < 0.03


def test_closed_forms() -> None:
    """The report's closed forms, at the config's values, give back the cache."""
    config = {"model_type": "granitemoehybrid", **GRANITE_4_H_SMALL, "position_embedding_type": "rope", "head_dim": 64}
    numeric = cost(derive.explain(config), 4096, 2, "bfloat16")
    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values.update({sympy.Symbol("T", integer=True, positive=True): 4096, sympy.Symbol("N", integer=True, positive=True): 2})  # fmt: skip
    assert sympy.sympify(forms["cache_bytes"]).subs(values) == numeric.cache_bytes


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layer_types": ["mamba"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["mamba"], "layers_block_type": ["attention"]}, "layers_block_type"),
        ({"mamba_n_heads": 3}, "mamba_n_heads"),
        ({"mamba_d_head": 32}, "mamba_d_head"),
        ({"num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({"position_embedding_type": "rope", "rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
        ({"d_model": 8}, "d_model"),
        ({"head_dim": 5}, "head_dim"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Patterns and keys derive cannot map and values transformers refuses, naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("granitemoehybrid").build(config)


#: Widths multiples of 8: the fused experts run as torch._grouped_mm, whose strides must be multiples of 16 bytes.
CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 16,
    "shared_intermediate_size": 8,
    "num_hidden_layers": 3,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "num_local_experts": 4,
    "num_experts_per_tok": 2,
    "mamba_n_heads": 4,
    "mamba_n_groups": 2,
    "mamba_d_state": 8,
    "mamba_d_conv": 3,
    "mamba_chunk_size": 4,
    "position_embedding_type": "rope",
    "layer_types": ["mamba", "attention", "mamba"],
}


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 SSM states of the Mamba-2 layers (measured)."""
    module = config_model("granitemoehybrid").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("granitemoehybrid", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    assert cost({"model_type": "granitemoehybrid", **CACHE}, prefill + steps, batch, dtype).cache_bytes == sum(
        measured.values()
    )


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    model = hf_cache.tiny("granitemoehybrid", CACHE)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "granitemoehybrid", **CACHE}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "granitemoehybrid", **CACHE}, tokens + 1, batch, "float32").flops_per_token == flops


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
    import transformers

    saved = json.loads(transformers.AutoConfig.for_model("granitemoehybrid", **CACHE).to_json_string())
    assert derive.explain(saved).total == hf_live.total(hf_live.build("granitemoehybrid", CACHE))
