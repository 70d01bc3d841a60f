"""Live transformers models explained from their ``model.config`` (``derive.models.live_blocks``),
held against the objects themselves.

Each model is built by transformers 5.23.0 on the meta device (``tests/support/hf_live.py``);
``derive.explain(model)`` must answer from the config (rows per part, closed forms in the config's
keys) and list exactly the tensors ``model.named_parameters()`` lists, with its total
``sum(p.numel() for p in model.parameters())``. A model whose tensors are not its config's (a head
untied by hand) must be counted from its tensors, with a note naming the tensor that differs.
"""

from __future__ import annotations

import blocks_configs
import hf_live
import pytest
import sympy
from hypothesis import given, settings

import derive

CLASSES = blocks_configs.CLASSES
PROPERTY = settings(max_examples=25, deadline=None)


def listed(report: derive.models.Report) -> list[tuple[str, tuple]]:
    return [(t["name"], tuple(t["shape"])) for t in report.tensors]


def derived_from_config(model, model_type: str) -> derive.models.Report:
    """``derive.explain(model)``: derived from the config, every tensor and the total the object's."""
    report = derive.explain(model)
    assert report.title.startswith(f"{type(model).__name__} (live; derived from its {model_type!r} config)")
    assert listed(report) == hf_live.tensors(model)
    assert report.total == hf_live.total(model)
    assert not any("numeric" in row.note for row in report.rows)
    return report


def closed_forms_hold(report: derive.models.Report) -> None:
    """Each row's closed form, at the config's values, is its count (RecurrentGemma's layer rows have
    none once the pattern is symbolic: the total's closed form is checked instead)."""
    for row in report.rows:
        values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in row.values.items()}
        assert row.formula is None or sympy.S(row.formula).subs(values) == row.params, row.name
    formula = report.module.formula
    if formula is not None:
        values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values}
        assert formula.expr.subs(values) == report.total


def test_a_live_mamba_is_derived_from_its_config() -> None:
    config = {"vocab_size": 120, "hidden_size": 24, "num_hidden_layers": 2, "state_size": 8, "expand": 2}
    model = hf_live.build("mamba", config)
    report = derived_from_config(model, "mamba")
    assert [row.name for row in report.rows] == [
        "backbone.embeddings",
        "backbone.layers.{k}",
        "backbone.norm_f",
        "lm_head",
    ]
    closed_forms_hold(report)
    # a part of the model is the part's rows
    part = derive.explain(model.backbone)
    assert [row.name for row in part.rows] == ["embeddings", "layers.{k}", "norm_f"]
    assert listed(part) == hf_live.tensors(model.backbone) and part.total == hf_live.total(model.backbone)
    closed_forms_hold(part)
    # inside a module of the user's: one row, derived from its config
    import torch

    wrapper = torch.nn.Module()
    wrapper.lm = model
    wrapper.score = torch.nn.Linear(24, 1, device="meta")
    nested = derive.explain(wrapper)
    assert nested.rows[0].name == "lm" and nested.rows[0].note == "derived from its config"
    assert nested.total == hf_live.total(wrapper)
    assert [(t["name"], tuple(t["shape"])) for t in nested.tensors] == hf_live.tensors(wrapper)
    hf_live.record("transformers", "MambaForCausalLM")


def test_tensors_other_than_the_configs_are_counted_and_said() -> None:
    import torch

    model = hf_live.build("mamba", {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 1})
    model.lm_head.weight = torch.nn.Parameter(torch.empty(50, 16, device="meta"))  # untied by hand
    report = derive.explain(model)
    assert report.total == hf_live.total(model) == 2 * 50 * 16 + hf_live.total(model.backbone) - 50 * 16
    assert any("lm_head.weight is live but not derived" in note for note in report.notes)
    assert report.title == "MambaForCausalLM (nn.Module)"
    # the backbone still matches its config: derived, as one row
    assert [row.note for row in report.rows if row.name == "backbone"] == ["derived from its config"]
    # frozen tensors are said; every parameter still counts
    fresh = hf_live.build("rwkv", {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2})
    fresh.rwkv.embeddings.weight.requires_grad_(False)
    frozen = derive.explain(fresh)
    assert frozen.total == hf_live.total(fresh)
    assert any(
        note.startswith("1 tensor frozen (requires_grad=False: rwkv.embeddings.weight)") for note in frozen.notes
    )


def test_a_config_derive_refuses_falls_back_to_the_tensors() -> None:
    model = hf_live.build("mamba", {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 1})
    model.config.ssm_cfg = {"d_state": 4}  # a key transformers ignores and derive refuses
    report = derive.explain(model)
    assert report.total == hf_live.total(model)
    assert any("its config is not one derive maps" in note and "ssm_cfg" in note for note in report.notes)


# --------------------------------------------------------------------------- hypothesis-drawn, every type


@pytest.mark.slow
@PROPERTY
@given(blocks_configs.configs())
def test_random_live_models_are_their_configs(drawn: tuple[str, dict]) -> None:
    model_type, config = drawn
    try:
        model = hf_live.build(model_type, config)
    except Exception:  # transformers refuses the config: nothing live to read
        return
    report = derived_from_config(model, model_type)
    closed_forms_hold(report)
    hf_live.record("transformers", CLASSES[model_type])
