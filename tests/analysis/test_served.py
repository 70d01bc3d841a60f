"""Caches as served (--kv-dtype, --state-dtype) and what fits (--memory) against transformers' cache after a
forward: its tensors' element counts times the served format's size (ggml's block formats per their block
layout), and the largest context and batch exact at the answer and one past it.

Tiny models run on the CPU (``served_live``): the keys and values of full and sliding-window attention, Mamba's
and Mamba-2's conv and SSM states, Gated DeltaNet's and LFM2's short-convolution states.
"""

from __future__ import annotations

import subprocess
import sys

import cache_live
import live_record
import pytest
import served_live

from derive.analysis import served
from derive.analysis.cost import cost
from derive.analysis.fit import parse_size
from docs_src import record

#: Tiny configs (head widths of 32, so that ggml's blocks of 32 apply).
LLAMA = {"vocab_size": 40, "hidden_size": 64, "intermediate_size": 24, "num_hidden_layers": 2,
         "num_attention_heads": 2, "num_key_value_heads": 1}  # fmt: skip
MISTRAL = {**LLAMA, "sliding_window": 4}
JAMBA = {"vocab_size": 40, "hidden_size": 64, "intermediate_size": 24, "num_hidden_layers": 4,
         "num_attention_heads": 2, "num_key_value_heads": 1, "num_experts": 2, "num_experts_per_tok": 1,
         "attn_layer_period": 2, "attn_layer_offset": 1, "mamba_d_state": 8, "mamba_expand": 1, "mamba_dt_rank": 4}  # fmt: skip
QWEN3_NEXT = {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32, "linear_conv_kernel_dim": 3,
              "linear_key_head_dim": 4, "linear_value_head_dim": 6, "linear_num_key_heads": 2,
              "linear_num_value_heads": 4, "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8,
              "num_experts": 4, "num_experts_per_tok": 2}  # fmt: skip
LFM2 = {"vocab_size": 40, "hidden_size": 64, "intermediate_size": 24, "num_hidden_layers": 4,
        "num_attention_heads": 2, "num_key_value_heads": 1, "conv_L_cache": 3, "block_multiple_of": 8,
        "layer_types": ["conv", "full_attention", "conv", "full_attention"]}  # fmt: skip
NEMOTRON_H = {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24, "num_attention_heads": 2,
              "num_key_value_heads": 1, "head_dim": 32, "mamba_num_heads": 4, "mamba_head_dim": 6,
              "ssm_state_size": 8, "n_groups": 2, "conv_kernel": 3, "chunk_size": 4, "n_routed_experts": 4,
              "num_experts_per_tok": 2, "moe_intermediate_size": 8, "moe_shared_expert_intermediate_size": 12,
              "hybrid_override_pattern": "ME*-M"}  # fmt: skip

MODELS = {"llama": LLAMA, "mistral": MISTRAL, "jamba": JAMBA, "qwen3_next": QWEN3_NEXT, "lfm2": LFM2,
          "nemotron_h": NEMOTRON_H}  # fmt: skip
ARCH = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "jamba": "JambaForCausalLM",
        "qwen3_next": "Qwen3NextForCausalLM", "lfm2": "Lfm2ForCausalLM", "nemotron_h": "NemotronHForCausalLM"}  # fmt: skip

#: (kv_dtype, state_dtype) asked, each against the tensors' element counts.
SERVED = [(None, None), ("float8_e4m3fn", None), ("fp8_e5m2", "bfloat16"), ("q8_0", "float16"), ("q4_0", None),
          ("q4_1", "float8_e4m3fn"), ("q5_0", None), ("q5_1", None), ("iq4_nl", None), ("int8", "float32")]  # fmt: skip


@pytest.fixture(scope="module")
def built() -> dict:
    return {(m, d): cache_live.model(m, c, d) for m, c in MODELS.items() for d in ("float32", "bfloat16")}


@pytest.mark.parametrize("model_type", sorted(MODELS))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("kv", "state"), SERVED, ids=[f"{k}-{s}" for k, s in SERVED])
def test_served_bytes_are_element_counts_times_the_format(built, model_type, dtype, kv, state) -> None:
    """kv_bytes and state_bytes (and by kind of layer, summed) against the forward's cache, at two lengths and two
    batches; the ggml formats priced per their blocks of 32."""
    config = {"model_type": model_type, **MODELS[model_type]}
    model = built[(model_type, dtype)]
    kv_fmt = served.served_format(kv)
    state_fmt = served.served_format(state, "state_dtype")
    held = [record.served_method("kv", kv_fmt)]
    for batch, tokens in ((1, 5), (3, 9)):
        found = served_live.forward(model, batch, tokens)
        if any(served_live.kind(where, tensor) == "state" for where, tensor in found):
            held.append(record.served_method("state", state_fmt))
        c = cost(config, tokens, batch, dtype, kv_dtype=kv, state_dtype=state)
        assert c.kv_bytes == served_live.priced(found, "kv", kv_fmt)
        assert c.state_bytes == served_live.priced(found, "state", state_fmt)
        assert c.cache_bytes == c.kv_bytes + c.state_bytes
        kinds = c.cache_kinds.values()
        assert sum(k["kv_bytes"] for k in kinds) == c.kv_bytes and sum(k["state_bytes"] for k in kinds) == c.state_bytes
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("served", *dict.fromkeys(held))


def test_the_block_sizes_are_ggmls() -> None:
    """derive's table of ggml's blocks against gguf-py's GGML_QUANT_SIZES where gguf is installed."""
    pytest.importorskip("gguf")
    assert {name: served.BLOCKS[name] for name in served.BLOCKS} == served_live.ggml_blocks()


def test_float8_sizes_are_torchs() -> None:
    import torch

    for name in ("float8_e4m3fn", "float8_e5m2", "int8", "bfloat16", "float16", "float32"):
        assert served.FORMATS[name] == torch.empty(0, dtype=getattr(torch, name)).element_size()


def test_a_width_not_a_multiple_of_32_is_refused_for_blocks() -> None:
    config = {"model_type": "llama", **LLAMA, "hidden_size": 48, "num_attention_heads": 2}  # head_dim 24
    with pytest.raises(ValueError, match="not a multiple of 32"):
        cost(config, 4, 1, kv_dtype="q4_0")
    assert cost(config, 4, 1, kv_dtype="fp8").kv_bytes_per_token == 2 * 2 * 24  # two layers' keys and values
    with pytest.raises(ValueError, match="kv_dtype must be one of"):
        cost(config, 4, 1, kv_dtype="q3_k")
    with pytest.raises(ValueError, match="not a multiple of 32"):  # Mamba's conv state is d_conv wide
        cost({"model_type": "jamba", **JAMBA}, 4, 1, state_dtype="q8_0")


def test_state_dtype_leaves_keys_and_values_and_the_reverse() -> None:
    """vLLM #55196's point: fp8 keys and values leave the Mamba state as it was."""
    config = {"model_type": "jamba", **JAMBA}
    plain = cost(config, 100, 1, "bfloat16")
    fp8 = cost(config, 100, 1, "bfloat16", kv_dtype="fp8")
    assert fp8.state_bytes == plain.state_bytes and 2 * fp8.kv_bytes == plain.kv_bytes
    half = cost(config, 100, 1, "bfloat16", state_dtype="bfloat16")
    assert half.kv_bytes == plain.kv_bytes and half.state_bytes < plain.state_bytes


# --- what fits -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model_type", ["llama", "jamba", "qwen3_next", "lfm2", "nemotron_h"])
@pytest.mark.parametrize("kv", [None, "q8_0", "fp8"])
def test_largest_context_exact_at_t_and_t_plus_one(built, model_type, kv) -> None:
    """A budget of the real model's weights plus its cache after T tokens (both measured): derive's largest
    context is T, and the forward's cache at T + 1 no longer fits; likewise the largest batch."""
    config = {"model_type": model_type, **MODELS[model_type]}
    model = built[(model_type, "bfloat16")]
    fmt = served.served_format(kv)
    weights = served_live.weights(model)

    def held(batch: int, tokens: int) -> int:
        found = served_live.forward(model, batch, tokens)
        return served_live.priced(found, "kv", fmt) + served_live.priced(found, "state", None)

    for batch, tokens in ((1, 7), (2, 11)):
        budget = weights + held(batch, tokens)
        c = cost(config, tokens, batch, "bfloat16", kv_dtype=kv, memory=budget)
        assert c.weights_bytes == weights
        assert c.max_seq_len == tokens and c.fits is True and c.fits_any_length is False
        assert weights + held(batch, tokens + 1) > budget
        reserved = cost(config, tokens, batch, "bfloat16", kv_dtype=kv, memory=budget + 1000, reserve=1000)
        assert reserved.max_seq_len == tokens
        # the largest batch at this length: the budget of three sequences
        budget = weights + held(3, tokens)
        c = cost(config, tokens, 1, "bfloat16", kv_dtype=kv, memory=budget)
        assert c.max_batch == 3 and weights + held(4, tokens) > budget
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("fits", "context-and-batch")


def test_a_capped_cache_fits_any_length(built) -> None:
    """Every layer of the tiny Mistral slides over 4 tokens: past 3 cached tokens its cache stops growing
    (the forward's cache at 3 and at 50 tokens hold the same bytes), so a budget of weights + that cache fits
    any length; one byte less fits 2 tokens."""
    config = {"model_type": "mistral", **MISTRAL}
    model = built[("mistral", "bfloat16")]
    weights = served_live.weights(model)
    capped = served_live.priced(served_live.forward(model, 1, 3), "kv", None)
    assert capped == served_live.priced(served_live.forward(model, 1, 50), "kv", None)
    state = cost(config, 1, 1, "bfloat16").state_bytes
    c = cost(config, 50, 1, "bfloat16", memory=weights + capped + state)
    assert c.fits_any_length is True and c.max_seq_len is None and c.fits is True
    c = cost(config, 50, 1, "bfloat16", memory=weights + capped + state - 1)
    assert c.fits_any_length is False and c.max_seq_len == 2
    live_record.checked("transformers", "MistralForCausalLM")
    live_record.checked_memory("fits", "any-length")


def test_weights_alone_too_large_is_an_answer() -> None:
    c = cost({"model_type": "llama", **LLAMA}, 10, 1, "bfloat16", memory=1000)
    assert c.fits is False and c.max_seq_len == 0 and c.max_batch == 0 and c.fits_any_length is False
    assert c.as_dict()["weights_bytes"] > c.as_dict()["budget"] == 1000


@pytest.mark.parametrize(
    ("text", "size"),
    [("24GB", 24 * 10**9), ("80GiB", 80 * 2**30), ("1000", 1000), ("1.5 GiB", 3 * 2**29), ("512mib", 512 * 2**20),
     ("2TB", 2 * 10**12), (4096, 4096), ("7kB", 7000)],
)  # fmt: skip
def test_sizes_as_written(text, size) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["24G", "-5GB", "1.5B", "GB", "24 gigabytes", "0.1B", "1e9"])
def test_sizes_refused(text) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


def test_reserve_above_memory_and_symbolic_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="reserve"):
        cost({"model_type": "llama", **LLAMA}, 10, 1, memory="1GB", reserve="2GB")
    with pytest.raises(TypeError, match="memory"):
        cost({"model_type": "llama", **LLAMA}, 10, 1, memory=2.5)


def test_cli_memory_json_and_text(tmp_path) -> None:
    import json

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", **LLAMA, "torch_dtype": "bfloat16"}))
    run = [sys.executable, "-m", "derive", str(path), "--memory", "1MiB", "--kv-dtype", "q8_0", "--seq-len", "64"]
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, check=True).stdout)["cost"]
    ours = cost({"model_type": "llama", **LLAMA}, 64, 1, "bfloat16", kv_dtype="q8_0", memory=2**20)
    assert data["dtype"] == "bfloat16" and data["memory"] == 2**20 and data["kv_dtype"] == "q8_0"
    for key in ("max_seq_len", "max_batch", "fits", "fits_any_length", "kv_bytes", "state_bytes", "weights_bytes"):
        assert data[key] == getattr(ours, key), key
    assert set(data["cache_kinds"]) == {"full attention"}
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "memory: budget 1,048,576 B" in text and f"largest context at batch 1: {ours.max_seq_len:,} tokens" in text
    assert "not counted: activations" in text
    bad = subprocess.run([*run, "--memory", "24G"], capture_output=True, text=True)
    assert bad.returncode == 2 and "GiB" in bad.stderr


def test_cost_imports_no_sympy() -> None:
    """``import derive.analysis.cost`` (and fit, served, stored) imports no SymPy, and neither does a model's
    cost with int sizes — weights as stored, the cache as served, the largest context: numbers are ints."""
    code = (
        "import sys\n"
        "import derive.analysis.cost, derive.analysis.fit, derive.analysis.served, derive.analysis.stored\n"
        "print('sympy' in sys.modules)\n"
        "from derive.analysis.cost import cost\n"
        "c = cost({'model_type': 'llama', 'num_hidden_layers': 2, 'torch_dtype': 'bfloat16', 'quantization_config':"
        " {'quant_method': 'fp8', 'weight_block_size': [128, 128]}}, 4096, 2, kv_dtype='q8_0', memory='24GB')\n"
        "assert type(c.max_seq_len) is int and type(c.max_batch) is int and type(c.weights_bytes) is int\n"
        "print('sympy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
