"""Live transformers models explained from their ``model.config`` (``derive.read.live.blocks``),
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
import torch
from hypothesis import given, settings

import derive

CLASSES = blocks_configs.CLASSES
PROPERTY = settings(max_examples=40, deadline=None)


def listed(report: derive.read.Report) -> list[tuple[str, tuple]]:
    return [(t["name"], tuple(t["shape"])) for t in report.tensors]


def derived_from_config(model, model_type: str) -> derive.read.Report:
    """``derive.explain(model)``: derived from the config, every tensor and the total the object's."""
    report = derive.explain(model)
    assert report.title.startswith(f"{type(model).__name__} (live; derived from its {model_type!r} config)")
    assert listed(report) == hf_live.tensors(model)
    assert report.total == hf_live.total(model)
    assert not any("numeric" in row.note for row in report.rows)
    return report


def closed_forms_hold(report: derive.read.Report) -> None:
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
    assert report.notes == [
        "(MambaForCausalLM): the model its config builds differs from the live tensors (lm_head.weight is live but "
        "not derived); counted from its tensors"
    ]
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
    assert report.notes[0].startswith("(MambaForCausalLM): its config is not one derive maps (config key 'ssm_cfg'")


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


# --------------------------------------------------------------------------- a library's registered block


class Gate(torch.nn.Module):
    """A library's block (registered below as mylib's ``Gate``): Linear(n, 2n) in, Linear(2n, n) out."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.inp = torch.nn.Linear(n, 2 * n)
        self.act = torch.nn.SiLU()
        self.out = torch.nn.Linear(2 * n, n, bias=False)


def gate(n):
    from derive.layers.linear import linear
    from derive.tree import Module

    return Module("", "Gate", children=(linear(n, 2 * n, name="inp"), linear(2 * n, n, False, name="out")))


@pytest.fixture
def mylib(monkeypatch):
    from derive.engine import constructors

    entry = constructors.Constructor("mylib", "Gate", gate, read=lambda m: ((m.n,), {}), module_types=(__name__,))
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("mylib", "Gate"), entry)
    return entry


def params(model) -> int:
    return sum(p.numel() for p in model.parameters())


def test_a_registered_block_is_derived_through_its_read(mylib, monkeypatch) -> None:
    from derive.engine import constructors

    model = torch.nn.Sequential(torch.nn.Linear(3, 3), Gate(3))
    report = derive.explain(model)
    assert [(row.name, row.type, row.note) for row in report.rows] == [("0", "Linear", ""), ("1", "Gate", "")]
    assert report.total == params(model) and report.rows[1].params == params(model[1])
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
        (n, tuple(p.shape)) for n, p in model.named_parameters()
    ]
    # frozen tensors: marked, and said
    model[1].out.weight.requires_grad_(False)
    frozen = derive.explain(model)
    assert [t["name"] for t in frozen.tensors if t.get("trainable") is False] == ["1.out.weight"]
    assert "1 tensor frozen (requires_grad=False: out.weight)" in frozen.rows[1].note
    # tensors other than its arguments': counted, the difference said
    model[1].out = torch.nn.Linear(6, 3)
    other = derive.explain(model)
    assert other.total == params(model)
    assert (
        "1 (Gate): mylib Gate of its arguments differs from the live tensors (out.bias is live but not derived)"
        in (other.notes[0])
    )
    # a tensor shared with a module read before: counted once, from the tensors
    shared = torch.nn.Sequential(torch.nn.Linear(3, 6), Gate(3))
    shared[1].inp.weight = shared[0].weight
    report = derive.explain(shared)
    assert report.total == params(shared)
    assert report.notes == ["1 (Gate): it shares a tensor with another module; counted from its tensors"]
    # arguments that cannot be read back; a constructor that makes no module
    broken = constructors.Constructor("mylib", "Gate", gate, read=lambda m: m.size, module_types=(__name__,))
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("mylib", "Gate"), broken)
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("mylib", "Other"), broken)  # a new length: the index is rebuilt
    report = derive.explain(torch.nn.Sequential(Gate(2)))
    assert report.notes[0].startswith("0 (Gate): its arguments could not be read back")
    deferred = constructors.Constructor("mylib", "Gate", lambda n: object(), read=mylib.read, module_types=(__name__,))
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("mylib", "Gate"), deferred)
    monkeypatch.delitem(constructors.CONSTRUCTORS, ("mylib", "Other"))
    report = derive.explain(torch.nn.Sequential(Gate(2)))
    assert report.notes == [] and [row.name for row in report.rows] == ["0.inp", "0.act", "0.out"]


class Wrapped(torch.nn.Module):
    """A module of the user's holding a config object (no part of the model its config builds)."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        self.proj = torch.nn.Linear(2, 2)


class PlainConfig:
    """A config object that is not transformers' (fla's are like it): a model_type and to_dict()."""

    model_type = "rwkv"

    def __init__(self, data: dict) -> None:
        self.data = data

    def to_dict(self) -> dict:
        if self.data is None:
            raise TypeError("no dict")
        return dict(self.data)


def test_configs_of_other_kinds() -> None:
    model = hf_live.build("rwkv", {"vocab_size": 40, "hidden_size": 8, "num_hidden_layers": 2})
    plain = dict(model.config.to_dict())
    model.config = PlainConfig(plain)  # read through its to_dict(), as fla's configs are
    derived_from_config(model, "rwkv")
    model.config = PlainConfig(None)  # a to_dict() that fails: read from the tensors
    assert derive.explain(model).title == "RwkvForCausalLM (nn.Module)"
    wrapped = Wrapped(hf_live.build("rwkv", {"vocab_size": 40, "hidden_size": 8, "num_hidden_layers": 2}).config)
    report = derive.explain(wrapped)
    assert report.total == params(wrapped)
    assert any(
        "derive builds RwkvForCausalLM from a 'rwkv' config, and no part of it is a Wrapped" in n for n in report.notes
    )
    wrapped.config = {"model_type": "rwkv"}  # a mapping is not a config object
    assert derive.explain(wrapped).notes == []


def test_an_rwkv7_config_as_a_live_config_gives_it() -> None:
    # fla's RWKV7Config.to_dict() lists value_dim per layer: the closed form keeps those numbers
    config = {"model_type": "rwkv7", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100, "head_dim": 16}
    plain, listed = derive.explain(config), derive.explain({**config, "value_dim": [64, 64]})
    assert listed.total == plain.total
    closed_forms_hold(listed)
    assert listed.to_dict()["total"] == plain.total
