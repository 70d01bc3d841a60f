"""The language-model families held against transformers 5.23.0: meta-device builds (names, shapes,
buffers, totals) of hypothesis-drawn configs, and tiny CPU models' caches and decode FLOPs.

Expected values are read off the real models (``tests/support/hf_live.py``, ``hf_cache.py``), never
off derive. Slow as a whole (tests/conftest.py ``SLOW_PATHS``); ``test_families.py`` keeps a fast subset.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.tree import named_buffers

CLASSES = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "jamba": "JambaForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
    "gemma3_text": "Gemma3ForCausalLM",
    "gpt2": "GPT2LMHeadModel",
    "mamba": "MambaForCausalLM",
    "falcon_mamba": "FalconMambaForCausalLM",
    "mamba2": "Mamba2ForCausalLM",
    "qwen3_next": "Qwen3NextForCausalLM",
    "qwen3_5_text": "Qwen3_5ForCausalLM",
    "olmo_hybrid": "OlmoHybridForCausalLM",
    "minimax": "MiniMaxForCausalLM",
    "recurrent_gemma": "RecurrentGemmaForCausalLM",
    "xlstm": "xLSTMForCausalLM",
    "rwkv": "RwkvForCausalLM",
}
PROPERTY = settings(max_examples=12, deadline=None)


def check(model_type: str, config: dict) -> None:
    """derive's report against the model built on the meta device: every tensor, buffer, the total."""
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
    hf_live.record("transformers", CLASSES[model_type])


@st.composite
def attention_sizes(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2, 4]))
    heads = kv * draw(st.integers(1, 3))
    return {
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(4, 40)),
        "num_hidden_layers": draw(st.integers(1, 5)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "vocab_size": draw(st.integers(8, 64)),
        "tie_word_embeddings": draw(st.booleans()),
    }


@PROPERTY
@given(attention_sizes(), st.booleans(), st.booleans(), st.sampled_from([None, 4, 6]))
def test_llama_drawn(sizes: dict, bias: bool, mlp_bias: bool, head_dim: int | None) -> None:
    check("llama", {**sizes, "attention_bias": bias, "mlp_bias": mlp_bias, "head_dim": head_dim})


@PROPERTY
@given(attention_sizes(), st.sampled_from([None, 3, 4096]))
def test_mistral_drawn(sizes: dict, window: int | None) -> None:
    check("mistral", {**sizes, "sliding_window": window})


@PROPERTY
@given(attention_sizes(), st.booleans(), st.integers(0, 5))
def test_qwen2_drawn(sizes: dict, sliding: bool, first: int) -> None:
    check("qwen2", {**sizes, "use_sliding_window": sliding, "sliding_window": 4, "max_window_layers": first})


@PROPERTY
@given(attention_sizes(), st.integers(1, 6), st.integers(1, 3))
def test_mixtral_drawn(sizes: dict, experts: int, k: int) -> None:
    check("mixtral", {**sizes, "num_local_experts": experts, "num_experts_per_tok": min(k, experts)})


@st.composite
def jamba_configs(draw: st.DrawFn) -> dict:
    sizes = draw(attention_sizes())
    ap, ep = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    return {
        **sizes,
        "num_hidden_layers": draw(st.integers(1, 7)),
        "attn_layer_period": ap,
        "attn_layer_offset": draw(st.integers(0, ap - 1)),
        "expert_layer_period": ep,
        "expert_layer_offset": draw(st.integers(0, ep - 1)),
        "num_experts": draw(st.integers(1, 5)),
        "num_experts_per_tok": draw(st.integers(1, 2)),
        "mamba_d_state": draw(st.integers(1, 8)),
        "mamba_d_conv": draw(st.integers(2, 4)),
        "mamba_expand": draw(st.integers(1, 2)),
        "mamba_dt_rank": draw(st.sampled_from(["auto", 3])),
        "mamba_conv_bias": draw(st.booleans()),
        "mamba_proj_bias": draw(st.booleans()),
    }


@PROPERTY
@given(jamba_configs())
def test_jamba_drawn(config: dict) -> None:
    check("jamba", config)


@PROPERTY
@given(attention_sizes(), st.sampled_from([4, 8]), st.booleans(), st.sampled_from([3, 4096]), st.integers(1, 3))
def test_gemma_drawn(sizes: dict, head_dim: int, bias: bool, window: int, every: int) -> None:
    """(A null sliding_window with sliding layers builds, but its cache, DynamicSlidingWindowLayer(None),
    fails at the first forward: derive refuses it, test_families.py::test_refused_naming_the_key.)"""
    config = {**sizes, "head_dim": head_dim, "attention_bias": bias, "sliding_window": window}
    check("gemma2", config)
    check("gemma3_text", {**config, "sliding_window_pattern": every})


@PROPERTY
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.sampled_from([None, 7]), st.booleans())
def test_gpt2_drawn(heads: int, width: int, layers: int, inner: int | None, tie: bool) -> None:
    check("gpt2", {"n_head": heads, "n_embd": heads * width, "n_layer": layers, "n_inner": inner,
                   "vocab_size": 20, "n_positions": 16, "tie_word_embeddings": tie})  # fmt: skip


# --------------------------------------------------------------------------- caches and FLOPs, run

SMALL = {
    "hidden_size": 32,
    "intermediate_size": 48,
    "num_hidden_layers": 3,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 64,
}
#: A hybrid stack's two kinds of layer, the recurrent mixer's first.
HYBRID = {"num_hidden_layers": 2, "layer_types": ["linear_attention", "full_attention"]}
RUN = [
    ("llama", SMALL),
    ("llama", {**SMALL, "num_key_value_heads": 1, "head_dim": 16, "tie_word_embeddings": True}),
    ("mistral", {**SMALL, "sliding_window": 3}),
    ("mistral", {**SMALL, "sliding_window": 6}),
    ("qwen2", {**SMALL, "use_sliding_window": True, "sliding_window": 4, "max_window_layers": 1}),
    ("mixtral", {**SMALL, "num_local_experts": 4, "num_experts_per_tok": 2}),
    ("jamba", {**SMALL, "num_hidden_layers": 4, "num_experts": 4, "attn_layer_period": 2, "attn_layer_offset": 1}),
    (
        "jamba",
        {
            **SMALL,
            "num_hidden_layers": 3,
            "num_experts": 3,
            "attn_layer_period": 3,
            "attn_layer_offset": 2,
            "expert_layer_period": 3,
            "expert_layer_offset": 0,
            "mamba_d_state": 5,
        },
    ),  # fmt: skip
    ("mamba", {"hidden_size": 32, "state_size": 8, "num_hidden_layers": 2, "vocab_size": 64, "conv_kernel": 3}),
    ("falcon_mamba", {"hidden_size": 24, "state_size": 4, "num_hidden_layers": 2, "vocab_size": 64, "expand": 3}),
    (
        "mamba2",
        {
            "hidden_size": 32,
            "num_heads": 8,
            "head_dim": 8,
            "n_groups": 2,
            "state_size": 8,
            "num_hidden_layers": 2,
            "vocab_size": 64,
            "conv_kernel": 4,
        },
    ),  # fmt: skip
    # Mamba-2's first token padded to a chunk of 5, or a chunk of 1 (no padding) with one state per group
    ("mamba2", {"hidden_size": 16, "num_heads": 4, "head_dim": 8, "n_groups": 1, "state_size": 3,
                "num_hidden_layers": 1, "vocab_size": 32, "chunk_size": 5}),
    ("mamba2", {"hidden_size": 16, "num_heads": 4, "head_dim": 8, "n_groups": 4, "state_size": 1,
                "num_hidden_layers": 1, "vocab_size": 32, "chunk_size": 1}),
    # the recurrent mixers: Gated DeltaNet (two of its spellings), lightning attention, RG-LRU, mLSTM
    ("qwen3_next", {**SMALL, **HYBRID, "num_key_value_heads": 1, "head_dim": 8, "num_experts": 4,
                    "num_experts_per_tok": 2, "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8,
                    "linear_conv_kernel_dim": 3, "linear_key_head_dim": 4, "linear_value_head_dim": 6,
                    "linear_num_key_heads": 2, "linear_num_value_heads": 4}),
    ("qwen3_5_text", {**SMALL, **HYBRID, "head_dim": 8, "linear_conv_kernel_dim": 2, "linear_key_head_dim": 8,
                      "linear_value_head_dim": 4, "linear_num_key_heads": 1, "linear_num_value_heads": 3}),
    ("olmo_hybrid", {**SMALL, **HYBRID, "pad_token_id": 0, "linear_key_head_dim": 4, "linear_value_head_dim": 6,
                     "linear_num_key_heads": 2, "linear_num_value_heads": 2}),
    ("minimax", {**SMALL, **HYBRID, "num_local_experts": 4, "num_experts_per_tok": 2, "block_size": 4,
                 "head_dim": 6}),
    ("recurrent_gemma", {**SMALL, "num_hidden_layers": 2, "block_types": ["recurrent", "attention"],
                         "lru_width": 32, "attention_window_size": 3, "conv1d_width": 3}),
    ("xlstm", {"vocab_size": 50, "hidden_size": 128, "num_heads": 2, "num_hidden_layers": 2, "chunk_size": 4}),
    ("xlstm", {"vocab_size": 50, "hidden_size": 128, "num_heads": 4, "num_hidden_layers": 1, "v_dim_factor": 0.5,
               "use_bias": True, "chunk_size": 2}),
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("model_type", "config"), RUN, ids=[f"{m}-{i}" for i, (m, _) in enumerate(RUN)])
def test_cache_and_flops_run(model_type: str, config: dict, dtype: str) -> None:
    """Bytes of every tensor in past_key_values after T tokens, the next token's matmul FLOPs, and a sequence's
    first token's (no state yet: Gated DeltaNet's chunked path, lightning attention's block path, Mamba-2's
    chunked scan padded to ``chunk_size``)."""
    model = hf_cache.tiny(model_type, config, dtype)
    for batch, tokens in ((1, 1), (1, 5), (3, 2), (2, 9)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": model_type, **config}, tokens, batch, dtype).cache_bytes == held
        assert cost({"model_type": model_type, **config}, tokens + 1, batch, dtype).flops_per_token == flops
        hf_live.record("transformers", CLASSES[model_type])
    first = cost(derive.explain({"model_type": model_type, **config}), 1, 2, dtype)
    assert first.flops_per_token == hf_cache.first(model, 2)
    if model_type == "mamba2":  # the closed form's first token too (P = E / H, the chunk a number in it)
        assert hf_cache.closed_form(first) == first.flops_per_token


def test_recurrent_gemma_flops_with_a_wider_recurrence() -> None:
    """RG-LRU's block-diagonal gates with ``lru_width`` W != ``hidden_size`` and heads not dividing it evenly
    into the attention's: the next token's FLOPs (transformers decodes such a model only after a prefill of
    two tokens or more: ``conv1d_state`` starts ``hidden_size`` wide)."""
    config = {**SMALL, "num_hidden_layers": 2, "block_types": ["recurrent", "attention"], "lru_width": 24,
              "num_attention_heads": 4, "attention_window_size": 1, "conv1d_width": 2}  # fmt: skip
    model = hf_cache.tiny("recurrent_gemma", config)
    for batch, tokens in ((1, 2), (3, 6)):
        held, flops = hf_cache.run(model, batch, tokens)
        assert cost({"model_type": "recurrent_gemma", **config}, tokens, batch).cache_bytes == held
        assert cost({"model_type": "recurrent_gemma", **config}, tokens + 1, batch).flops_per_token == flops
        hf_live.record("transformers", CLASSES["recurrent_gemma"])


RWKV = {"vocab_size": 40, "hidden_size": 12, "num_hidden_layers": 3, "intermediate_size": 20}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_rwkv_flops_of_one_sequence(dtype: str) -> None:
    """RWKV's next token at a batch of one (its projections); at a batch of N transformers' one-token step
    broadcasts to N x N rows, N times one sequence's FLOPs (measured), which derive leaves underived."""
    model = hf_cache.tiny("rwkv", RWKV, dtype)
    for tokens in (1, 6):
        held, flops = hf_cache.run(model, 1, tokens)
        assert cost({"model_type": "rwkv", **RWKV}, tokens, 1, dtype).cache_bytes == held
        assert cost({"model_type": "rwkv", **RWKV}, tokens + 1, 1, dtype).flops_per_token == flops
        hf_live.record("transformers", CLASSES["rwkv"])
    held, three = hf_cache.run(model, 3, 6)
    assert three == 3 * flops
    assert cost({"model_type": "rwkv", **RWKV}, 7, 3, dtype).cache_bytes == held
    assert cost({"model_type": "rwkv", **RWKV}, 7, 3, dtype).flops_per_token is None
    assert "broadcasts a batch of N to N x N rows" in cost({"model_type": "rwkv", **RWKV}, 7, 3).flops_not_derived
    assert cost({"model_type": "rwkv", **RWKV}, 7, 1).flops_not_derived is None
    assert cost({"model_type": "rwkv", **RWKV}).flops_per_token is None  # a symbolic batch


def test_xlstm_flops_refused_where_transformers_cannot_step() -> None:
    """q = 48 over 2 heads: the cache keeps per-head widths rounded up to a multiple of 64 (32, not 24), and
    transformers fails writing its state; derive leaves the FLOPs underived."""
    config = {"vocab_size": 50, "hidden_size": 96, "num_heads": 2, "num_hidden_layers": 1, "chunk_size": 4}
    with pytest.raises(RuntimeError, match="must match"):
        hf_cache.run(hf_cache.tiny("xlstm", config), 1, 2)
    assert cost({"model_type": "xlstm", **config}, 3, 1).flops_per_token is None


def test_xlstm_flops_in_symbols() -> None:
    """The mLSTM's FLOPs with ``hidden_size`` a symbol, evaluated, against a tiny model's next token."""
    import sympy

    from derive.families.xlstm import xlstm
    from derive.layers.token_flops import matmul_flops

    config = {"vocab_size": 50, "hidden_size": 128, "num_heads": 2, "num_hidden_layers": 2, "chunk_size": 4}
    D = sympy.Symbol("D", integer=True, positive=True)
    form = matmul_flops(xlstm({**config, "hidden_size": D}), 4)
    assert form.free_symbols == {D}
    assert form.subs(D, 128) == hf_cache.run(hf_cache.tiny("xlstm", config), 2, 3)[1]
