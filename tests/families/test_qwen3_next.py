"""Qwen3-Next and Qwen3.5's text models (``qwen3_next``, ``qwen3_5_text``, ``qwen3_5_moe_text``) held against
transformers 5.23.0: their data. Meta-device builds of drawn configs (every tensor and buffer, the total) and
the cache of tiny models run with ``use_cache=True`` (float32, bfloat16) against derive's States, through the
shared checks (``hf_live.check_family``, ``hf_cache``'s); a symbolic ``head_dim``'s closed forms; the config classes' defaults and the configs derive
refuses are rows of ``test_harness.py``. Expected values are read off the real models, never off derive.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.tree import named_buffers

#: The model types held here (the class each builds is checked against derive's, hf_live.check_family).
TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text")
#: Keys a Qwen3.5 config class does not have.
ABSENT = {
    "qwen3_next": (),
    "qwen3_5_text": ("decoder_sparse_step", "mlp_only_layers", "num_experts", "num_experts_per_tok",
                     "moe_intermediate_size", "shared_expert_intermediate_size"),
    "qwen3_5_moe_text": ("decoder_sparse_step", "mlp_only_layers", "intermediate_size"),
}  # fmt: skip


def check(config: dict, model_type: str = "qwen3_next") -> None:
    """derive's report against the model transformers builds on the meta device, or both refuse
    (``hf_live.check_family``), the keys the type's config class does not have left out."""
    hf_live.check_family(model_type, {k: v for k, v in config.items() if k not in ABSENT[model_type]})


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    layers = draw(st.integers(1, 6))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(4, 24)),
        "intermediate_size": draw(st.integers(2, 30)),
        "num_hidden_layers": layers,
        "num_attention_heads": kv * draw(st.integers(1, 3)),
        "num_key_value_heads": kv,
        "head_dim": draw(st.sampled_from([4, 6, 8])),
        "attention_bias": draw(st.booleans()),
        "linear_conv_kernel_dim": draw(st.integers(1, 5)),
        "linear_key_head_dim": draw(st.integers(1, 8)),
        "linear_value_head_dim": draw(st.integers(1, 8)),
        "linear_num_key_heads": draw(st.integers(1, 3)),
        "linear_num_value_heads": draw(st.integers(1, 4)),
        "num_experts": draw(st.integers(1, 5)) if draw(st.booleans()) else 0,
        "num_experts_per_tok": 1,
        "moe_intermediate_size": draw(st.integers(1, 12)),
        "shared_expert_intermediate_size": draw(st.integers(1, 12)),
        "decoder_sparse_step": draw(st.integers(1, 3)),
        "mlp_only_layers": draw(st.lists(st.integers(0, layers - 1), unique=True, max_size=2)),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers)
        )
    else:
        config["full_attention_interval"] = draw(st.integers(1, 4))
    return config


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(TYPES))
@settings(max_examples=30, deadline=None)
@given(config=configs())
def test_drawn_configs(model_type: str, config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, MoE placement, biases, ties)."""
    if model_type == "qwen3_5_moe_text" and config["num_experts"] == 0:
        config["num_experts"] = 1
    check(config, model_type)


CACHE = {
    "vocab_size": 40,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 8,
    "linear_conv_kernel_dim": 3,
    "linear_key_head_dim": 4,
    "linear_value_head_dim": 6,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "moe_intermediate_size": 8,
    "shared_expert_intermediate_size": 8,
    "num_experts": 4,
    "num_experts_per_tok": 2,
}


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(TYPES))
@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(model_type: str, dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 recurrent states of the Gated DeltaNet
    layers (measured), and the cost's split into state and per-token bytes."""
    config = {k: v for k, v in CACHE.items() if k not in ABSENT[model_type]}
    hf_cache.check_cache(model_type, config, dtype, batch, prefill, steps)


@pytest.mark.parametrize("model_type", sorted(TYPES))
def test_a_symbolic_head_dim(model_type: str) -> None:
    """``head_dim`` as a SymPy symbol d: the rotary embedding turns ``int(d · 0.25)`` dimensions (the
    default factor; 0.5 and 0.75 given), so its buffers are ⌈⌊d/4⌋/2⌉ wide; the total, every shape and
    buffer at d = 6 … 13 are what transformers builds (odd widths and widths not a multiple of 4 included).
    A factor with no binary closed form (0.1) is refused naming the key."""
    import sympy

    d = sympy.Symbol("head_dim", integer=True, positive=True)
    small = {k: v for k, v in CACHE.items() if k not in ABSENT[model_type]}
    for rope in ({}, {"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.75}}):
        report = derive.explain({"model_type": model_type, **small, **rope, "head_dim": d})
        assert report.total.free_symbols == {d}
        buffers = [(n, p.shape) for n, p in named_buffers(report.module)]
        for value in range(6, 14):
            live = hf_live.build(model_type, {**small, **rope, "head_dim": value})
            assert report.total.subs(d, value) == hf_live.total(live)
            assert [(n, tuple(int(sympy.sympify(x).subs(d, value)) for x in s)) for n, s in buffers] == hf_live.buffers(
                live
            )
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        derive.explain({"model_type": model_type, **small, "head_dim": d, "partial_rotary_factor": 0.1})


def test_a_key_outside_qwen3_next_config_is_noted() -> None:
    """Qwen3NextConfig's keys are declared whole: a key outside them (Qwen3-Next-80B-A3B's ``use_sliding_window``,
    a ``d_model``) is one transformers keeps and never reads, answered with a note, transformers' count."""
    config = {**CACHE, "use_sliding_window": False, "d_model": 8}
    report = derive.explain({"model_type": "qwen3_next", **config})
    assert any("use_sliding_window" in n and "d_model" in n and "Qwen3NextConfig" in n for n in report.notes)
    assert report.total == hf_live.total(hf_live.build("qwen3_next", config))
