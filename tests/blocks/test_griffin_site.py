"""Every number of the Griffin / RecurrentGemma page (``docs_src/pages/griffin.py``) against
transformers' ``RecurrentGemmaForCausalLM`` built on the meta device."""

from __future__ import annotations

import pytest
import sympy
from blocks_live import hf_model

from docs_src.pages.griffin import RELEASES, griffin_context, layer_formulas, preset_config

CONTEXT = griffin_context()
S = {n: sympy.Symbol(n, integer=True, positive=True) for n in ("V", "D", "W", "H", "K", "F", "L", "d", "H_kv")}


def n(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.slow
@pytest.mark.parametrize("release", CONTEXT["releases"], ids=RELEASES)
def test_released_totals(release) -> None:
    config = {k: v for k, v in preset_config(release["name"]).items() if k != "model_type"}
    live = hf_model("recurrent_gemma", config)
    assert n(release["total"]) == live["total"]
    kinds = live["config"].layers_block_type
    assert (release["recurrent"], release["attention"]) == (
        kinds.count("linear_attention"),
        kinds.count("sliding_attention"),
    )


def test_tensor_tables_are_transformers_names() -> None:
    config = {"vocab_size": 11, "hidden_size": 24, "lru_width": 36, "num_attention_heads": 3, "num_key_value_heads": 1,
              "intermediate_size": 40, "conv1d_width": 5, "num_hidden_layers": 3}  # fmt: skip
    live = dict(hf_model("recurrent_gemma", config)["parameters"])
    values = {S["D"]: 24, S["W"]: 36, S["H"]: 3, S["K"]: 5, S["F"]: 20}

    assert [r["hf"] for r in CONTEXT["recurrent"]] == [k[len("model.layers.0.temporal_block."):] for k in live
                                                        if k.startswith("model.layers.0.temporal_block.")]  # fmt: skip
    assert [r["hf"] for r in CONTEXT["attention"]] == [k[len("model.layers.2.temporal_block."):] for k in live
                                                        if k.startswith("model.layers.2.temporal_block.")]  # fmt: skip
    assert [r["name"] for r in CONTEXT["mlp"]] == [k[len("model.layers.0.mlp_block."):] for k in live
                                                    if k.startswith("model.layers.0.mlp_block.")]  # fmt: skip
    # the closed forms of one layer of each kind, at these sizes, against the live tensors
    f = layer_formulas()
    per = {
        kind: sum(_numel(s) for k, s in live.items() if k.startswith(f"model.layers.{i}."))
        for kind, i in (("recurrent", 0), ("attention", 2))
    }
    assert f["recurrent"].subs(values) == per["recurrent"]
    assert f["attention"].subs(values | {S["H_kv"]: 1, S["d"]: 8}) == per["attention"]
    assert f["mlp"].subs(values) == sum(_numel(s) for k, s in live.items() if k.startswith("model.layers.0.mlp_block."))
    gates = sum(_numel(s) for k, s in live.items() if k.startswith("model.layers.0.temporal_block.rg_lru."))
    assert f["rg_lru"].subs(values) == gates


def _numel(shape) -> int:
    out = 1
    for x in shape:
        out *= x
    return out


def test_pitfall_numbers() -> None:
    two_b = {k: v for k, v in preset_config("recurrentgemma-2b").items() if k != "model_type"}
    base = hf_model("recurrent_gemma", two_b)["total"]
    assert n(CONTEXT["two_b"]) == base == 2_682_862_080
    assert n(CONTEXT["default"]) == hf_model("recurrent_gemma", {})["total"]
    assert n(CONTEXT["full_kv"]) == hf_model("recurrent_gemma", {**two_b, "num_key_value_heads": 10})["total"] - base
    assert n(CONTEXT["half_mlp"]) == base - hf_model("recurrent_gemma", {**two_b, "intermediate_size": 7680})["total"]
    assert n(CONTEXT["untied"]) == hf_model("recurrent_gemma", {**two_b, "tie_word_embeddings": False})["total"]
    live = dict(hf_model("recurrent_gemma", {**two_b, "num_hidden_layers": 1})["parameters"])
    gates = [s for k, s in live.items() if "_gate_" in k]
    assert n(CONTEXT["gates"]) == sum(_numel(s) for s in gates)
    import torch

    dense = torch.nn.Linear(2560, 2560, device="meta")
    assert n(CONTEXT["dense_gates"]) == 2 * sum(p.numel() for p in dense.parameters())


def test_layer_counts_of_the_pattern() -> None:
    from transformers import RecurrentGemmaConfig

    from derive.blocks.griffin import layer_types

    counts = layer_types(["recurrent", "recurrent", "attention"], S["L"])
    l_rec = counts[0] + counts[1]
    for layers in range(1, 40):
        kinds = RecurrentGemmaConfig(num_hidden_layers=layers).layers_block_type
        expected = kinds.count("linear_attention")
        assert l_rec.subs(S["L"], layers) == expected
        assert layers - expected == layers // 3
    assert sympy.latex(l_rec) == CONTEXT["l_rec"]
