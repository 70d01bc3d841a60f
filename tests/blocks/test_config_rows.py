"""The rows of a config's report, one per kind of layer, held against the model transformers builds.

A model whose layers are built one by one (RecurrentGemma's pattern of recurrent and attention
blocks; RWKV's first block) is reported with one row per kind of layer — ``model.layers
(RecurrentBlock ×18)`` — not one per leaf of every layer. Each row's parameters, its tensors'
names and shapes, and its closed form at the config's values must be those of the layers of that
kind in ``AutoModelForCausalLM.from_config(config)`` on the meta device.
"""

from __future__ import annotations

import math
import re

import pytest
import sympy
from blocks_live import hf_model
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.read.configs.pretrained import _labels, _of_kind, explain_config
from derive.tree import Module


def _check_rows(model_type: str, config: dict) -> list:
    """Every row against the live model: tensors (names, shapes), count, closed form at the values."""
    report = explain_config({"model_type": model_type, **config})
    live = dict(hf_model(model_type, config)["parameters"])
    listed = []
    for row in report.rows:
        names = []  # the live tensors of the row: a tied head is listed once, at the embedding
        for name, shape in row.tensors:  # "{k}": every copy of a repeated block
            pattern = re.compile(re.escape(name).replace(r"\{k\}", r"\d+"))
            matches = [n for n in live if pattern.fullmatch(n) and n not in listed]  # k from the block's start
            assert all(live[n] == tuple(shape) for n in matches), name
            names += matches
        listed += names
        assert row.params == sum(math.prod(live[n]) for n in names), row.name
        at = {sympy.Symbol(k, integer=True, positive=True): v for k, v in row.values.items()}
        assert sympy.S(row.formula).subs(at) == row.params, row.name
    assert sorted(listed) == sorted(live) and report.total == sum(math.prod(s) for s in live.values())
    return report.rows


def test_recurrentgemma_2b_one_row_per_kind() -> None:
    """recurrentgemma-2b (the config's defaults): 18 recurrent and 8 attention layers, embeddings apart."""
    rows = _check_rows("recurrent_gemma", {})
    assert [(r.name, r.params) for r in rows] == [
        ("model.embed_tokens", 655_360_000),
        ("model.layers (RecurrentBlock ×18)", 909_112_320),
        ("model.layers (Attention ×8)", 445_788_160),
        ("model.final_norm", 2_560),
        ("lm_head", 0),
    ]
    assert rows[1].note == "18 layers, k = 0, 1, 3, 4, …, 24, 25"
    assert rows[2].note == "8 layers, k = 2, 5, 8, 11, 14, 17, 20, 23"
    assert {r.type for r in rows[1:3]} == {"RecurrentGemmaDecoderLayer"}


@settings(max_examples=12, deadline=None)
@given(
    layers=st.integers(1, 7),
    pattern=st.sampled_from(
        [["recurrent", "recurrent", "attention"], ["recurrent"], ["attention", "recurrent"], ["attention"]]
    ),
    heads=st.sampled_from([1, 2, 4]),
)
def test_recurrentgemma_rows_per_kind_live(layers: int, pattern: list, heads: int) -> None:
    config = {"num_hidden_layers": layers, "block_types": pattern, "hidden_size": 8 * heads, "vocab_size": 11,
              "num_attention_heads": heads, "intermediate_size": 12}  # fmt: skip
    rows = _check_rows("recurrent_gemma", config)
    kinds = [r for r in rows if r.name.startswith("model.layers")]
    assert len(kinds) == len(set(pattern[:layers]))  # one row per kind present


def test_one_kind_is_named_by_its_layer_and_one_layer_by_its_path() -> None:
    rows = _check_rows("recurrent_gemma", {"num_hidden_layers": 3, "block_types": ["recurrent"], "hidden_size": 8,
                                           "num_attention_heads": 2, "vocab_size": 5})  # fmt: skip
    assert rows[1].name == "model.layers (RecurrentGemmaDecoderLayer ×3)"
    rows = _check_rows("recurrent_gemma", {"num_hidden_layers": 4, "hidden_size": 8, "num_attention_heads": 2,
                                           "vocab_size": 5})  # fmt: skip
    assert [r.name for r in rows[1:3]] == ["model.layers (RecurrentBlock ×3)", "model.layers.2"]
    assert rows[2].note == ""


@pytest.mark.parametrize(
    ("model_type", "config", "names"),
    [
        ("rwkv", {"hidden_size": 16, "num_hidden_layers": 3, "vocab_size": 10}, ["rwkv.blocks.0", "rwkv.blocks.{k}"]),
        ("rwkv", {"hidden_size": 16, "num_hidden_layers": 1, "vocab_size": 10}, ["rwkv.blocks.0"]),
        ("mamba", {"hidden_size": 16, "num_hidden_layers": 2, "vocab_size": 10}, ["backbone.layers.{k}"]),
    ],
)
def test_rwkv_and_mamba_keep_a_row_per_block(model_type: str, config: dict, names: list) -> None:
    """RWKV's first block (its extra pre_ln) is one row, not one per leaf; the identical blocks one row."""
    rows = _check_rows(model_type, config)
    assert [r.name for r in rows if ".blocks" in r.name or ".layers" in r.name] == names


def test_labels_cut_the_shared_prefix_at_a_word() -> None:
    def layer(*types: str) -> list:
        children = tuple(Module(f"c{i}", t) for i, t in enumerate(types))
        return [Module("0", "Layer", children=children)]

    assert _labels([layer("Norm", "GemmaRecurrentBlock"), layer("Norm", "GemmaAttention")]) == [
        "RecurrentBlock",
        "Attention",
    ]
    assert _labels([layer("FooBar"), layer("FooBaz")]) == ["Bar", "Baz"]  # no word boundary: back to one
    assert _labels([layer("Foo"), layer("FooBar")]) == ["Foo", "FooBar"]  # nothing left of one: kept
    assert _labels([layer("Norm"), layer("Norm")]) == ["Layer", "Layer"]  # nothing apart: the layer's type


def test_a_kind_the_symbolic_model_lacks_has_no_closed_form() -> None:
    assert _of_kind("rwkv", "rwkv.nowhere", (), ()) is None
    assert _of_kind("rwkv", "rwkv.blocks", (("no", "such", ("kind",)),), ()) is None
