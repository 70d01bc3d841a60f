"""xLSTM (``model_type`` ``xlstm``) held against transformers 5.23.0 (with xlstm 2.0.6 installed): its data and
its own cases.

Meta-device builds of hypothesis-drawn configs (every tensor's name and shape, the total, no buffers; the head
never tied), xLSTM-7B's sizes, and the cache of tiny models run on the CPU with ``use_cache=True`` (float32 and
bfloat16) against derive's States, through the shared checks (``hf_live.check_family``, ``hf_cache``'s); the
configs derive refuses are rows of ``test_harness.py``. Expected values are read off the real models, never off
derive.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.blocks import config_model
from derive.tree import count


def check(config: dict) -> None:
    """derive's report against the model transformers builds on the meta device (``hf_live.check_family``),
    which must build: it holds no buffers."""
    assert hf_live.buffers(hf_live.check_family("xlstm", config, builds=True)) == []


@st.composite
def configs(draw: st.DrawFn) -> dict:
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": draw(st.integers(2, 48)),
        "num_heads": draw(st.integers(1, 4)),
        "num_hidden_layers": draw(st.integers(1, 3)),
        "use_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "weight_mode": draw(st.sampled_from(["single", "fused"])),
        "qk_dim_factor": draw(st.sampled_from([0.25, 0.5, 1.0, 0.3])),
        "v_dim_factor": draw(st.sampled_from([0.5, 1.0, 2.0])),
        "ffn_proj_factor": draw(st.sampled_from([2.667, 1.0, 1.3])),
        "ffn_round_up_to_multiple_of": draw(st.sampled_from([1, 8, 64])),
    }
    return {k: v for k, v in config.items() if draw(st.booleans()) or k in ("hidden_size", "num_heads")}


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, and the total, of drawn configs (both weight modes, biases, factors)."""
    config.setdefault("vocab_size", 32)
    config.setdefault("num_hidden_layers", 2)
    check(config)


def test_xlstm_7b() -> None:
    """xLSTM-7B's sizes (vocab 50304, width 4096, 32 blocks, 8 heads; published as "7B"): 6,865,424,896
    parameters, read off the build; ``embedding_dim``/``num_blocks`` agreeing with their twins are accepted."""
    released = {
        "vocab_size": 50304,
        "embedding_dim": 4096,
        "num_blocks": 32,
        "num_heads": 8,
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "weight_mode": "fused",
    }
    check(released)
    assert count(config_model("xlstm").build(released)) == 6_865_424_896


def test_the_head_is_never_tied() -> None:
    """``tie_word_embeddings`` True: transformers still builds a separate lm_head (no tied keys)."""
    config = {"vocab_size": 20, "hidden_size": 8, "num_heads": 2, "num_hidden_layers": 1, "tie_word_embeddings": True}
    check(config)


RUNS = [("float32", 2, 5, 1), ("bfloat16", 1, 3, 2)]


@pytest.mark.slow
@pytest.mark.parametrize(
    "config",
    [
        {"vocab_size": 50, "hidden_size": 128, "num_heads": 2, "num_hidden_layers": 2, "chunk_size": 4},
        {"vocab_size": 50, "hidden_size": 128, "num_heads": 4, "num_hidden_layers": 1, "v_dim_factor": 0.5,
         "use_bias": True, "chunk_size": 2},
    ],
)  # fmt: skip
def test_cache_bytes(config: dict) -> None:
    """The xLSTMCache's C, n, m per layer and its int64 counter, in the model's dtype (measured)."""
    for dtype, batch, prefill, steps in RUNS:
        hf_cache.check_cache("xlstm", config, dtype, batch, prefill, steps)
