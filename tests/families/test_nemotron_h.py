"""Nemotron-H (``model_type`` ``nemotron_h``) held against transformers 5.23.0: meta-device builds of drawn
configs (every tensor and buffer, the total), Nemotron-H-8B's layout against transformers' own count and
the published size, the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States, and the configs derive refuses. Expected values are read off the real models, never off
derive.
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
    """Every parameter, the routed experts at num_experts_per_tok / n_routed_experts."""
    k = model.config.num_experts_per_tok
    return sum(p.numel() // p.shape[0] * k if ".experts." in n else p.numel() for n, p in model.named_parameters())


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("nemotron_h", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "nemotron_h", **config})
        return
    report = derive.explain({"model_type": "nemotron_h", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    assert active(report.module) == _live_active(model)
    hf_live.record("transformers", "NemotronHForCausalLM")


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
    numeric = cost(derive.explain({"model_type": "nemotron_h", **NEMOTRON_H_8B}), 4096, 2, "bfloat16")
    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values.update({sympy.Symbol("T", integer=True, positive=True): 4096, sympy.Symbol("N", integer=True, positive=True): 2})  # fmt: skip
    assert sympy.sympify(forms["cache_bytes"]).subs(values) == numeric.cache_bytes


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"hybrid_override_pattern": "MX"}, "hybrid_override_pattern"),
        ({"hybrid_override_pattern": None}, "hybrid_override_pattern"),
        ({"layers_block_type": ["mamba", "conv"]}, "layers_block_type"),
        ({"layer_types": "M*"}, "layer_types"),
        ({"n_routed_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Patterns transformers cannot build and keys derive cannot map, naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("nemotron_h").build(config)


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 SSM states of the Mamba-2 layers, nothing for
    the MLP and MoE layers (measured)."""
    module = config_model("nemotron_h").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("nemotron_h", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    assert cost({"model_type": "nemotron_h", **CACHE}, prefill + steps, batch, dtype).cache_bytes == sum(
        measured.values()
    )


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: the projections, the Mamba-2
    state readout, attention over the cache), and the cache the prefill leaves."""
    model = hf_cache.tiny("nemotron_h", CACHE)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "nemotron_h", **CACHE}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "nemotron_h", **CACHE}, tokens + 1, batch, "float32").flops_per_token == flops


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
    import transformers

    saved = json.loads(transformers.AutoConfig.for_model("nemotron_h", **CACHE).to_json_string())
    assert derive.explain(saved).total == hf_live.total(hf_live.build("nemotron_h", CACHE))
