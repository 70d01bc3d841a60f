"""Kimi-Linear (``model_type`` ``kimi_linear``) held against transformers 5.23.0: meta-device builds of
drawn configs (every tensor and buffer, the total; both names of aliased keys; the checkpoint's
``linear_attn_config``), the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against
derive's States, and the configs derive refuses. Expected values are read off the real models.
"""

from __future__ import annotations

import cache_live
import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import named_buffers


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    try:
        model = hf_live.build("kimi_linear", config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": "kimi_linear", **config})
        return
    report = derive.explain({"model_type": "kimi_linear", **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    hf_live.record("transformers", "KimiLinearForCausalLM")


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


@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, MLA ranks, experts, aliases)."""
    check(config)


def test_defaults_and_the_checkpoint_keys() -> None:
    """``KimiLinearConfig()`` (49,133,074,464 parameters, read off the build) and a checkpoint's
    ``linear_attn_config`` (1-indexed layers, sizes overriding the ``linear_*`` keys)."""
    check({})
    assert hf_live.total(hf_live.build("kimi_linear", {})) == 49_133_074_464
    linear = {"head_dim": 3, "num_heads": 2, "short_conv_kernel_size": 2, "full_attn_layers": [2], "kda_layers": [1, 3]}
    check(
        {"pad_token_id": 0, "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 3, "linear_attn_config": linear}
    )


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_local_experts": 4, "num_experts": 8}, "num_local_experts"),
        ({"num_experts": 2, "num_experts_per_token": 3}, "num_experts_per_token"),
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "mlp_layer_types": ["moe"]}, "mlp_layer_types"),
        ({"vocab_size": 100}, "pad_token_id"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Aliases that disagree, patterns transformers would not build, keys derive cannot map."""
    with pytest.raises(ValueError, match=words):
        config_model("kimi_linear").build(config)


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


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """MLA's cached latent and KDA's conv and float32 recurrent states (measured)."""
    module = config_model("kimi_linear").build(CACHE)
    measured = cache_live.cache_bytes(cache_live.model("kimi_linear", CACHE, dtype), batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured


def test_decode_flops() -> None:
    """A decode step's matmul FLOPs (``FlopCounterMode`` over the eager model: KDA's projections, its low-rank
    gates included; latent attention re-expanding every cached latent; the router, visited and shared experts)."""
    config = {**CACHE, "num_key_value_heads": 2}  # eager attention's key/value groups: 2 // 32 = 0 fails its forward
    model = hf_cache.tiny("kimi_linear", config)
    for batch, tokens in ((1, 1), (2, 5)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "kimi_linear", **config}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": "kimi_linear", **config}, tokens + 1, batch, "float32").flops_per_token == flops
