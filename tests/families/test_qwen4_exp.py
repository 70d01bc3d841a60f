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


#: The indexer around its compression and budget (CACHE's: c = 2, a budget of 4, 2 blocks): one block per token
#: (c = 1, the first token a block of its own), a tail left over at most steps (c = 3, 3 heads of 10), blocks
#: of 4 (c = 4: T below c at the first steps) with two indexed layers, gated GQA attention with biases and 3 streams.
FLOPS = [
    {},
    {"indexer_compress_ratio": 1, "indexer_budget": 2},
    {"indexer_compress_ratio": 3, "indexer_budget": 6, "indexer_n_heads": 3, "indexer_head_dim": 10},
    {"indexer_compress_ratio": 4, "indexer_budget": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
     "attention_bias": True, "hc_count": 3, "layer_types": ["full_attention", "linear_attention", "full_attention"]},
]  # fmt: skip


@pytest.mark.parametrize("changed", FLOPS, ids=["c2", "c1", "c3", "c4-two-indexed"])
def test_decode_flops(changed: dict) -> None:
    """A decode step's matmul FLOPs after T - 1 tokens (``FlopCounterMode`` over the eager model): the Gated
    DeltaNet projections, the indexer's scores against the ⌊T / c⌋ complete blocks whether they are fewer or
    more than the budget picks, attention over every cached key (the selection a mask), the router, visited and
    shared experts, the hyper-connections; one and two sequences, and the closed form at the same T."""
    config = {**CACHE, **changed}
    model = hf_cache.tiny("qwen4_exp_text", config)
    for batch, tokens in ((1, 1), (1, 2), (2, 3), (1, 6), (2, 8), (1, 12)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "qwen4_exp_text", **config}, tokens, batch).cache_bytes == held
        numeric = cost(derive.explain({"model_type": "qwen4_exp_text", **config}), tokens + 1, batch)
        assert numeric.flops_per_token == flops
        assert hf_cache.closed_form(numeric) == flops
        hf_live.record("transformers", "Qwen4ExpForCausalLM")


@pytest.mark.parametrize("changed", FLOPS, ids=["c2", "c1", "c3", "c4-two-indexed"])
def test_first_token_flops(changed: dict) -> None:
    """A sequence's first token (no state yet): Gated DeltaNet's chunked path padded to a chunk of 64, attention
    over the one key, the indexer's one block where c = 1 and none above; the closed form's ``Piecewise`` at T = 1."""
    hf_cache.check_first_token("qwen4_exp_text", {**CACHE, **changed})


def test_decode_flops_in_bfloat16() -> None:
    """The same counts in bfloat16 (the indexer's scores run in float32: its ``.float()`` changes no shape)."""
    model = hf_cache.tiny("qwen4_exp_text", CACHE, "bfloat16")
    for batch, tokens in ((1, 4), (2, 9)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "qwen4_exp_text", **CACHE}, tokens + 1, batch, "bfloat16").flops_per_token == flops


def test_flops_whatever_the_budget() -> None:
    """The budget picks blocks without a product: models differing in ``indexer_budget`` alone (one block kept of
    up to 8, or all of them) count the same FLOPs at each T, derive's figure among them."""
    for tokens in (3, 10):
        measured = {
            budget: hf_cache.run(hf_cache.tiny("qwen4_exp_text", {**CACHE, "indexer_budget": budget}), 1, tokens)[1]
            for budget in (2, 16)
        }
        assert measured[2] == measured[16]
        assert cost({"model_type": "qwen4_exp_text", **CACHE}, tokens + 1, 1).flops_per_token == measured[2]


def test_report_text_and_closed_forms() -> None:
    """The report's text and its rows' formulas rebuild the model with the config's sizes as letters,
    ``indexer_kv_heads`` the number 1 (transformers accepts no other): each formula at its letters' values
    is its row's count, and the rows add up to the total read off the meta build."""
    import sympy

    report = derive.explain({"model_type": "qwen4_exp_text", **INDEXER})
    assert "formula" in report.text()  # it raised
    for row in report.rows:
        values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in row.values.items()}
        assert sympy.sympify(row.formula).subs(values) == row.params
    assert sum(row.params for row in report.rows) == hf_live.total(hf_live.build("qwen4_exp_text", INDEXER))
