"""LFM2 (``model_type`` ``lfm2``) held against transformers 5.23.0: its data. Meta-device builds of drawn configs
(every tensor and buffer, the total) and the cache of tiny models run with ``use_cache=True`` (float32,
bfloat16) against derive's States, through the shared checks (``hf_live.check_family``, ``hf_cache``'s);
LFM2-1.2B's shape and the configs derive refuses are rows of ``test_harness.py``. Expected values are read off
the real models, never off derive.
"""

from __future__ import annotations

from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.families.family import tiny

#: derive's report against the model transformers builds on the meta device, or both refuse (hf_live.check_family).
check = partial(hf_live.check_family, "lfm2")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    config = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "intermediate_size": draw(st.integers(3, 60)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "conv_L_cache": draw(st.integers(1, 5)),
        "conv_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        "block_multiple_of": draw(st.sampled_from([1, 8, 256])),
        "block_ffn_dim_multiplier": draw(st.sampled_from([1.0, 1.3, 2])),
        "block_auto_adjust_ff_dim": draw(st.booleans()),
    }
    if draw(st.booleans()):
        config["layer_types"] = draw(
            st.lists(st.sampled_from(["conv", "full_attention"]), min_size=layers, max_size=layers)
        )
    else:
        config["full_attn_idxs"] = draw(st.lists(st.integers(0, layers - 1), unique=True, max_size=layers))
    return config


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer and total of drawn configs (patterns, FFN widths, biases, ties)."""
    check(config)


#: The small config the caches run on: the family's first tiny config (derive/families/data/lfm2.json).
CACHE = tiny("lfm2")[0]


@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), hf_cache.CACHE_RUNS)
def test_cache_bytes(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Keys and values of the attention layers, conv states of the others (measured), and the cost's split."""
    hf_cache.check_cache("lfm2", CACHE, dtype, batch, prefill, steps)


def test_liquids_spellings_are_read_as_the_keys_they_set() -> None:
    """``block_ff_dim`` and ``tie_embedding`` (LFM2's released configs spell them) are ``Lfm2Config``'s
    ``intermediate_size`` and ``tie_word_embeddings``, popped over them by ``__post_init__``: transformers builds
    ``w1`` of ``block_ff_dim``'s width and an untied head. derive builds the same, and its notes neither call them
    keys that change no tensor nor put the keys they set at the class's defaults."""
    import derive

    config = {**CACHE, "block_ff_dim": 36, "intermediate_size": 12, "tie_embedding": False}
    del config["layer_types"]
    model = check(config)  # every tensor, buffer and the total against the meta-device build
    assert dict(hf_live.tensors(model))["model.layers.0.feed_forward.w1.weight"] == (24, 16)  # int(2 * 36 / 3)
    assert "lm_head.weight" in dict(hf_live.tensors(model))  # untied: a head of its own
    notes = derive.explain({"model_type": "lfm2", **config}).notes
    assert not any(("block_ff_dim" in n or "tie_embedding" in n) for n in notes), notes
    assert not any(("intermediate_size=" in n or "tie_word_embeddings=" in n) for n in notes), notes
