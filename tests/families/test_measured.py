"""The measured answer for the decoder types derive has no family for (``derive.read.measured``): every
number held against transformers itself — the tensors of its meta-device build, and the bytes of the cache a
tiny model on the CPU holds after a forward (every tensor of ``past_key_values``), at other batches and lengths
than the measurement's, in float32 and bfloat16, sliding windows included.
"""

from __future__ import annotations

import copy
import io
import json
import warnings
from contextlib import redirect_stderr, redirect_stdout

import hf_cache
import hf_live
import pytest

import derive
from derive.cli import main

pytest.importorskip("transformers")

SMALL = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 96,
    "vocab_size": 128,
    "max_position_embeddings": 64,
    "head_dim": 16,
}
#: model_type -> a small config (the class's other keys at their defaults), none of them a derive family.
CASES = {
    "gpt_neox": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "vocab_size": 128,
        "max_position_embeddings": 64,
    },
    "opt": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "ffn_dim": 96,
        "vocab_size": 128,
        "max_position_embeddings": 64,
        "word_embed_proj_dim": 64,
    },
    "persimmon": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "vocab_size": 128,
        "max_position_embeddings": 64,
    },
    "falcon": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "vocab_size": 128,
        "max_position_embeddings": 64,
    },
    "bloom": {"hidden_size": 64, "n_layer": 2, "n_head": 4, "vocab_size": 128},
    "olmo": SMALL,
    "stablelm": SMALL,
    "cohere": SMALL,
    "internlm3": SMALL,
    # sliding windows: a capped cache, and a scalar tensor per layer (the window) that the cache also holds
    "vaultgemma": {**SMALL, "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"]},
    # routed experts (measured in bfloat16: transformers' grouped expert matmul takes no float32)
    "cohere2_moe": SMALL,
    "granitemoeshared": SMALL,
    # a multimodal wrapper (the language model under text_config) whose causal-LM class builds the language model
    # alone: the vision tower a not-counted part (Qwen3.5's and Llama 4's are derived: derive.families.qwen3_5)
    "mllama": {
        "text_config": {
            **SMALL,
            "num_hidden_layers": 4,
            "cross_attention_layers": [1],
            "num_key_value_heads": 2,
            "pad_token_id": 0,
        }
    },
}
MOE = {"cohere2_moe", "granitemoeshared"}
WRAPPERS = {"mllama"}


def _config(model_type: str) -> dict:
    return {"model_type": model_type, **copy.deepcopy(CASES[model_type])}


@pytest.mark.parametrize("model_type", list(CASES))
def test_measured_tensors_are_transformers_own(model_type: str) -> None:
    report = derive.explain(_config(model_type))
    live = hf_live.build(model_type, copy.deepcopy(CASES[model_type]))
    assert report.method == "measured"
    assert report.total == hf_live.total(live)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(live)
    assert report.to_dict()["method"] == "measured" and "formula" not in report.to_dict()
    assert any("measured, not derived" in n for n in report.notes)
    assert report.partial == (model_type in WRAPPERS)
    if model_type in WRAPPERS:
        assert [m.name for m in report.module.children if not m.counted] == ["vision_tower"]
    if model_type in MOE:  # which experts a token visits is not read off the module: not given, never the total
        assert report.active is None and report.parts is None
        assert derive.cost(_config(model_type), 1, 1).active is None
    else:
        assert report.active == report.total


@pytest.mark.parametrize("model_type", list(CASES))
@pytest.mark.parametrize(("dtype", "batch", "tokens"), [("float32", 1, 3), ("bfloat16", 2, 20)])
def test_measured_cache_is_what_a_forward_holds(model_type: str, dtype: str, batch: int, tokens: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hf_cache.tiny(model_type, copy.deepcopy(CASES[model_type]), dtype)
        held, _ = hf_cache.run(model, batch, tokens)
    cost = derive.cost(_config(model_type), tokens, batch, dtype)
    assert cost.cache_bytes == held


def test_a_wrapper_whose_causal_lm_leaves_the_vision_tower_out_is_partial() -> None:
    """Llama 3.2 Vision (``mllama``, MllamaConfig's defaults): MllamaForCausalLM builds its language model;
    the vision tower is a not-counted part, the total a lower bound."""
    report = derive.explain({"model_type": "mllama"})
    assert report.total == hf_live.total(hf_live.build("mllama", {}))
    assert report.partial and [m.name for m in report.module.children if not m.counted] == ["vision_tower"]


def test_the_command_line_gives_the_same_answer() -> None:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([json.dumps(_config("gpt_neox")), "--json"])
    assert status == 0, err.getvalue()
    data = json.loads(out.getvalue())
    report = derive.explain(_config("gpt_neox"))
    assert data["method"] == "measured" and data["total"] == report.total
    assert data["tensors"] == report.to_dict()["tensors"]


def test_a_derived_answer_says_so() -> None:
    assert derive.explain({"model_type": "llama", "num_hidden_layers": 2}).to_dict()["method"] == "derived"


def test_auto_map_is_not_followed_and_said() -> None:
    config = {**_config("gpt_neox"), "auto_map": {"AutoModelForCausalLM": "modeling_custom.CustomModel"}}
    report = derive.explain(config)
    assert report.total == hf_live.total(hf_live.build("gpt_neox", copy.deepcopy(CASES["gpt_neox"])))
    assert any("auto_map" in n and "not followed" in n for n in report.notes)


def test_a_cache_it_cannot_read_is_refused_for_the_cost() -> None:
    """JetMoE's meta-device forward stops (its experts index by value): its tensors are answered, its cost is
    refused rather than counted without the cache."""
    config = {"model_type": "jetmoe", **SMALL}
    report = derive.explain(config)
    assert report.total == hf_live.total(hf_live.build("jetmoe", dict(SMALL)))
    assert any("cache is not measured" in n for n in report.notes)
    with pytest.raises(ValueError, match="cost of this model is not known"):
        derive.cost(config, 8, 1)


def test_transformers_refusal_is_passed_on_naming_the_type() -> None:
    with pytest.raises(ValueError, match="transformers (refuses|could not build) this 'dbrx' config"):
        derive.explain(
            {"model_type": "dbrx", "d_model": 64, "n_layers": 2, "n_heads": 4, "attn_config": {"kv_n_heads": 2}}
        )


def test_a_type_transformers_does_not_build_as_a_causal_lm_is_refused() -> None:
    with pytest.raises(ValueError, match="nor a causal LM of the installed transformers"):
        derive.explain({"model_type": "no_such_model"})
