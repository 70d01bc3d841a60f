"""What fits where the cache grows piecewise: sliding-window layers capped beside full-attention layers that keep
growing (gpt-oss's alternation, Gemma 3's five-to-one), the largest context exact at T and T + 1 against the
forward's cache on both sides of the window, and with weights stored quantized (fine-grained FP8: the quantizer's
own meta build's tensors) in the budget.

The truth is the tiny model run on the CPU (``served_live``: its cache tensors' element counts times the format's
size) and, for the FP8 weights, transformers' FineGrainedFP8 quantizer replacing the modules of a meta build
(``tests/support/quant_worker.py``, as ``tests/analysis/test_stored.py`` runs it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cache_live
import live_record
import pytest
import served_live

from derive.analysis import served
from derive.analysis.cost import cost

#: Each case runs the tiny models' forward a few dozen times (several seconds each on this machine's two cores).
pytestmark = pytest.mark.slow

WORKER = Path(__file__).resolve().parents[1] / "support" / "quant_worker.py"

#: Window 4 (transformers keeps window - 1 = 3 tokens in a sliding layer): 2, 3, 4 and 9 tokens land below, at
#: and past it. Head widths of 32 for ggml's blocks.
GPT_OSS = {"vocab_size": 40, "hidden_size": 32, "intermediate_size": 24, "num_attention_heads": 2,
           "num_key_value_heads": 1, "head_dim": 32, "num_local_experts": 2, "num_experts_per_tok": 1,
           "num_hidden_layers": 2, "sliding_window": 4, "layer_types": ["sliding_attention", "full_attention"]}  # fmt: skip
GEMMA3 = {"vocab_size": 40, "hidden_size": 32, "intermediate_size": 24, "num_attention_heads": 2,
          "num_key_value_heads": 1, "head_dim": 32, "num_hidden_layers": 6, "sliding_window": 4,
          "layer_types": ["sliding_attention"] * 5 + ["full_attention"]}  # fmt: skip
MODELS = {"gpt_oss": GPT_OSS, "gemma3_text": GEMMA3}
ARCH = {"gpt_oss": "GptOssForCausalLM", "gemma3_text": "Gemma3ForCausalLM"}
TOKENS = (2, 3, 4, 9)


@pytest.fixture(scope="module")
def built() -> dict:
    return {m: cache_live.model(m, c, "bfloat16") for m, c in MODELS.items()}


def _held(model, batch: int, tokens: int, fmt: str | None) -> int:
    found = served_live.forward(model, batch, tokens)
    return served_live.priced(found, "kv", fmt) + served_live.priced(found, "state", None)


@pytest.mark.parametrize("model_type", sorted(MODELS))
@pytest.mark.parametrize("kv", [None, "fp8", "q8_0"])
def test_largest_context_exact_across_the_window(built, model_type, kv) -> None:
    """A budget of the model's weights plus its cache after T tokens (both measured): derive's largest context is
    T and the forward's cache at T + 1 does not fit, for T below, at and past the window; the sliding layers'
    share stops growing past it (the measured caches at 9 and 10 tokens differ by the full layers' one token)."""
    config = {"model_type": model_type, **MODELS[model_type]}
    model = built[model_type]
    fmt = served.served_format(kv)
    weights = served_live.weights(model)
    for batch in (1, 2):
        for tokens in TOKENS:
            budget = weights + _held(model, batch, tokens, fmt)
            c = cost(config, tokens, batch, "bfloat16", kv_dtype=kv, memory=budget)
            assert c.weights_bytes == weights
            assert (c.max_seq_len, c.fits, c.fits_any_length) == (tokens, True, False)
            assert weights + _held(model, batch, tokens + 1, fmt) > budget
            assert cost(config, tokens + 1, batch, "bfloat16", kv_dtype=kv, memory=budget).fits is False
    full_token = cost(config, 1, 1, "bfloat16", kv_dtype=kv).cache_kinds["full attention"]["kv_bytes_per_token"]
    assert _held(model, 1, 10, fmt) - _held(model, 1, 9, fmt) == full_token
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("fits", "sliding-window")


def _fp8_tensors(model_type: str, config: dict, quantization: dict) -> dict:
    ask = {"model_type": model_type, "config": config, "quantization_config": quantization, "dtype": "bfloat16",
           "mode": "meta"}  # fmt: skip
    done = subprocess.run([sys.executable, str(WORKER), json.dumps(ask)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_largest_context_with_fp8_weights_as_stored(built) -> None:
    """The budget holds the weights as the FP8 checkpoint stores them (the bytes of every tensor of the
    quantizer's own meta build, buffers and tied names left out) plus the forward's cache after T tokens:
    derive's largest context is T, one more token does not fit."""
    import torch

    quantization = {"quant_method": "fp8", "weight_block_size": [16, 16]}
    real = _fp8_tensors("gemma3_text", GEMMA3, quantization)
    skip = set(real["buffers"])
    stored = 0
    for name, (dtype, shape) in real["tensors"].items():
        if name not in skip:
            stored += torch.empty(shape, dtype=getattr(torch, dtype), device="meta").nbytes
    config = {"model_type": "gemma3_text", **GEMMA3, "quantization_config": quantization}
    assert cost(config, 1, 1, "bfloat16").weights_bytes == stored
    model = built["gemma3_text"]
    for tokens in TOKENS:
        budget = stored + _held(model, 1, tokens, None)
        c = cost(config, tokens, 1, "bfloat16", memory=budget)
        assert c.max_seq_len == tokens and stored + _held(model, 1, tokens + 1, None) > budget
    live_record.checked("transformers", "Gemma3ForCausalLM")
    live_record.checked_memory("fits", "fp8-weights", against=real["quantizer"], versions=real["versions"])
