"""Qwen3-Next and Qwen3.5's text models (``qwen3_next``, ``qwen3_5_text``, ``qwen3_5_moe_text``) held against transformers 5.23.0: meta-device builds of
drawn configs (every tensor and buffer, the total), the cache of tiny models run with ``use_cache=True``
(float32, bfloat16) against derive's States, and the configs derive refuses. Expected values are read
off the real models (``tests/support/hf_live.py``, ``cache_live.py``), never off derive.
"""

from __future__ import annotations

import cache_live
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.blocks import config_model
from derive.tree import named_buffers

TYPES = {
    "qwen3_next": "Qwen3NextForCausalLM",
    "qwen3_5_text": "Qwen3_5ForCausalLM",
    "qwen3_5_moe_text": "Qwen3_5MoeForCausalLM",
}
#: Keys a Qwen3.5 config class does not have.
ABSENT = {
    "qwen3_next": (),
    "qwen3_5_text": ("decoder_sparse_step", "mlp_only_layers", "num_experts", "num_experts_per_tok",
                     "moe_intermediate_size", "shared_expert_intermediate_size"),
    "qwen3_5_moe_text": ("decoder_sparse_step", "mlp_only_layers", "intermediate_size"),
}  # fmt: skip


def check(config: dict, model_type: str = "qwen3_next") -> None:
    """derive's report against the model transformers builds on the meta device (or both refuse)."""
    config = {k: v for k, v in config.items() if k not in ABSENT[model_type]}
    try:
        model = hf_live.build(model_type, config)
    except Exception:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": model_type, **config})
        return
    report = derive.explain({"model_type": model_type, **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    assert report.module.type == TYPES[model_type]
    hf_live.record("transformers", TYPES[model_type])


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


@pytest.mark.parametrize("model_type", sorted(TYPES))
@settings(max_examples=30, deadline=None)
@given(config=configs())
def test_drawn_configs(model_type: str, config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, MoE placement, biases, ties)."""
    if model_type == "qwen3_5_moe_text" and config["num_experts"] == 0:
        config["num_experts"] = 1
    check(config, model_type)


@pytest.mark.parametrize("model_type", ["qwen3_5_text", "qwen3_5_moe_text"])
def test_qwen3_5_defaults(model_type: str) -> None:
    """The config classes' defaults (Qwen3.5-9B's and Qwen3.5-35B-A3B's text shapes)."""
    check({}, model_type)


def test_qwen3_next_80b_shape() -> None:
    """``Qwen3NextConfig()``, the 80B-A3B shape (48 layers, 512 experts, 10 routed + 1 shared): 79,674,391,296
    parameters, read off the meta build."""
    check({})
    assert hf_live.total(hf_live.build("qwen3_next", {})) == 79_674_391_296


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_experts": 4, "num_experts_per_tok": 5}, "num_experts_per_tok"),
        ({"rope_parameters": {"rope_type": "yarn", "factor": 2.0}}, "rope_parameters"),
        ({"partial_rotary_factor": "quarter"}, "partial_rotary_factor"),
        ({"mlp_only_layers": "none"}, "mlp_only_layers"),
        ({"d_model": 8}, "d_model"),
    ],
)
def test_refused(config: dict, words: str) -> None:
    """Keys derive cannot map, and patterns it does not derive, refused naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model("qwen3_next").build(config)


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


@pytest.mark.parametrize("model_type", sorted(TYPES))
@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)])
def test_cache_bytes(model_type: str, dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layer, conv and float32 recurrent states of the Gated DeltaNet
    layers (measured), and the cost's split into state and per-token bytes."""
    from derive.analysis.cost import model_cost

    config = {k: v for k, v in CACHE.items() if k not in ABSENT[model_type]}
    module = config_model(model_type).build(config)
    built = cache_live.model(model_type, config, dtype)
    measured = cache_live.cache_bytes(built, batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, prefill + steps, dtype) == measured
    longer = cache_live.cache_bytes(built, batch, prefill, steps + 1)
    cost = model_cost(module, prefill + steps, batch, dtype)
    assert cost.cache_bytes == sum(measured.values())
    assert cost.kv_bytes_per_token * batch == sum(longer.values()) - sum(measured.values())
    assert cost.state_bytes == sum(measured.values()) - cost.kv_bytes_per_token * batch * (prefill + steps)


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
