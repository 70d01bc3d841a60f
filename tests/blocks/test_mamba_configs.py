"""The config reader and the Mamba builders' refusals: every input form, every key refused by name.

The counts here come from the live tests' anchors (``test_mamba_transformers.py``, ``test_mamba_ssm.py``
build every one of these models); this module checks what is not a count: the forms a config arrives in,
the words of each refusal, the notes, the rows' letters, the constructors' registration.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
import sympy

import derive
from derive.blocks import CONFIG_MODELS, config_model, hf_config
from derive.blocks.mamba import Mamba, dt_rank_auto, inner_width, mixer
from derive.blocks.mamba2 import Mamba2
from derive.blocks.mamba2 import mixer as mixer2
from derive.blocks.mamba_lm import mlp_width, padded_vocab
from derive.cli import main as cli_main
from derive.engine.constructors import find, lookup
from derive.read.configs.pretrained import MAX_CONFIG_BYTES, explain_config, is_config, load
from derive.read.source import SourceError
from derive.tree import count

SMALL = {"model_type": "mamba", "hidden_size": 32, "num_hidden_layers": 2, "vocab_size": 50}


def test_the_model_types_are_registered() -> None:
    assert {"mamba", "falcon_mamba", "mamba2", "mamba_ssm"} <= set(CONFIG_MODELS)
    assert config_model("mamba").architecture == "MambaForCausalLM"
    with pytest.raises(ValueError, match=r"model_type 'opt' is not one derive builds from a config; known: \["):
        config_model("opt")  # no family: derive.explain measures it (tests/families/test_measured.py)


def test_every_form_a_config_arrives_in(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(SMALL))
    expected = explain_config(SMALL).total
    assert derive.explain(path).total == expected  # a PathLike
    assert derive.explain(str(path)).total == expected  # a path
    assert derive.explain(json.dumps(SMALL)).total == expected  # the JSON text, pasted
    assert derive.explain(SMALL).total == expected

    @dataclasses.dataclass
    class MambaConfig:  # mamba_ssm's dataclass, as its module names it
        d_model: int = 64
        n_layer: int = 2
        vocab_size: int = 100
        ssm_cfg: dict = dataclasses.field(default_factory=dict)

    MambaConfig.__module__ = "mamba_ssm.models.config_mamba"
    live = MambaConfig()
    assert is_config(live)
    assert derive.explain(live).total == explain_config({"d_model": 64, "n_layer": 2, "vocab_size": 100}).total


def test_what_is_not_a_config() -> None:
    for obj in ({"weight_ih_l0": (4, 3)}, "nn.LSTM(3, 4)", "{not json", "{1: 2}", object(), {"d_model": 4}):
        assert not is_config(obj), obj
    assert not is_config("{" + " " * MAX_CONFIG_BYTES + "}")
    assert derive.explain({"weight_ih_l0": (8, 3), "weight_hh_l0": (8, 2)}).total == 40  # still a state dict


def test_bad_files_and_texts_are_refused(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        load(tmp_path / "missing.json")
    cases = {
        "big.json": ("{" + " " * MAX_CONFIG_BYTES + "}", "larger than"),
        "bad.json": ("{not json", "not JSON"),
        "list.json": ("[1, 2]", "a config is a JSON object, got list"),
        "none.json": ('{"hidden_size": 8}', 'a config needs a "model_type"'),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(SourceError, match=message):
            load(tmp_path / name)
    with pytest.raises(SourceError, match="config keys must be strings"):
        load({"model_type": "mamba", 3: 4})
    with pytest.raises(SourceError, match="not JSON"):
        load('{"model_type": "mamba",}')
    with pytest.raises(SourceError, match="the JSON text: larger than"):
        load("{" + " " * MAX_CONFIG_BYTES + "}")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {**SMALL, "d_model": 2048},
            r"config key 'd_model' \(2048\) is not read by transformers' MambaConfig: it builds hidden_size=32",
        ),
        ({**SMALL, "ssm_cfg": {"d_state": 8}}, "config key 'ssm_cfg' is mamba_ssm's"),
        ({**SMALL, "hidden_size": True}, "config key 'hidden_size' must be an integer, got bool True"),
        ({**SMALL, "vocab_size": 0}, "config key 'vocab_size' must be at least 1, got 0"),
        ({**SMALL, "num_hidden_layers": -1}, "config key 'num_hidden_layers' must be at least 0"),
        ({**SMALL, "use_bias": "yes"}, "config key 'use_bias' must be true or false"),
        ({**SMALL, "time_step_rank": "x"}, "config key 'time_step_rank' must be an int >= 1"),
        ({**SMALL, "expand": 1.5}, r"config key 'expand' must be an int \(MambaConfig is @strict: it refuses 1.5\)"),
        ({**SMALL, "intermediate_size": None}, "config key 'intermediate_size' must be an integer, got NoneType None"),
        ({**SMALL, "model_type": "mamba2", "ssm_cfg": {"layer": "Mamba2"}}, "config key 'ssm_cfg' is mamba_ssm's"),
        ({**SMALL, "model_type": "mamba2"}, r"hidden_size \* expand \(64\) must equal num_heads \* head_dim \(8192\)"),
        ({**SMALL, "model_type": "mamba2", "expand": 2.0}, "config key 'expand' must be an int"),
        (
            {"d_model": 64, "n_layer": 1, "norm_epsilon": 1e-5},
            "config key 'norm_epsilon' is not a field of mamba_ssm's MambaConfig",
        ),
        (
            {"d_model": 64, "n_layer": 1, "attn_layer_idx": [0]},
            "config key 'attn_layer_idx': mamba_ssm's attention layers",
        ),
        ({"d_model": 64, "n_layer": 1, "ssm_cfg": [1]}, "config key 'ssm_cfg' must be an object"),
        ({"d_model": 64, "n_layer": 1, "ssm_cfg": {"layer": "Mamba3"}}, "layer must be 'Mamba1' or 'Mamba2'"),
        ({"d_model": 64, "n_layer": 1, "ssm_cfg": {"d_model": 8}}, "must not set d_model or layer_idx"),
        ({"d_model": 64, "n_layer": 1, "ssm_cfg": {"d_sate": 8}}, r"config key 'ssm_cfg' \(Mamba1\): .*d_sate"),
        ({"d_model": 64, "n_layer": 1, "ssm_cfg": {"layer": "Mamba2", "headdim": 48}}, "multiple of headdim"),
    ],
)
def test_refusals_name_the_key(config: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        derive.explain(config)


def test_a_key_outside_the_class_is_answered_with_a_note() -> None:
    """MambaConfig's keys are declared whole (tests/families/test_keys.py): ``quantization_config``, no key of the
    class, is kept by transformers as an attribute ``from_config`` never reads; answered as it builds, and named."""
    import hf_live

    config = {k: v for k, v in SMALL.items() if k != "model_type"}
    report = derive.explain({**SMALL, "quantization_config": {}})
    assert report.total == hf_live.total(hf_live.build("mamba", {**config, "quantization_config": {}}))
    assert any("quantization_config" in n and "not keys of MambaConfig" in n for n in report.notes)


def test_keys_transformers_ignores_are_accepted_when_they_agree() -> None:
    converted = {**SMALL, "d_model": 32, "n_layer": 2, "rms_norm": True, "fused_add_norm": True, "ssm_cfg": {}}
    converted |= {"pad_vocab_size_multiple": 8, "torch_dtype": "float32", "max_length": 20, "time_step_rank": "12"}
    assert derive.explain(converted).total == explain_config({**SMALL, "time_step_rank": 12}).total


def test_rows_notes_and_letters() -> None:
    report = explain_config({**SMALL, "intermediate_size": 48})
    assert [(r.name, r.type) for r in report.rows] == [
        ("backbone.embeddings", "Embedding"),
        ("backbone.layers.{k}", "MambaBlock"),
        ("backbone.norm_f", "MambaRMSNorm"),
        ("lm_head", "Linear"),
    ]
    assert report.rows[1].note == "2 identical blocks, k = 0…1"
    assert report.rows[3].note == "tied to backbone.embeddings.weight: counted once, there"
    assert report.rows[3].params == 0
    assert set(report.rows[1].values) == {
        "hidden_size",
        "intermediate_size",
        "state_size",
        "conv_kernel",
        "num_hidden_layers",
    }
    assert any("intermediate_size 48 is the mixer's inner width E" in note for note in report.notes)
    assert any(
        note.startswith("not in the config, so at the config class's defaults: state_size=16") for note in report.notes
    )
    assert explain_config({**SMALL, "num_hidden_layers": 1}).rows[1].note == "one block, k = 0"
    assert explain_config({**SMALL, "num_hidden_layers": 0}).rows[1].note == "no layers"
    data = report.to_dict()
    assert data["framework"] == "transformers" and data["tensors"][0]["name"] == "backbone.embeddings.weight"
    assert "num_hidden_layers" in data["layers"][1]["formula"]  # a closed form in the config's keys
    assert "backbone.layers.{k}" in report.text()
    assert report.rows[1].tensors[0] == ("backbone.layers.{k}.norm.weight", (32,))
    report.rows[1].values = {"x": 1}  # a row's letters can still be set
    assert report.rows[1]._values == {"x": 1}


def test_the_closed_form_in_mamba_ssm_keys() -> None:
    config = {
        "d_model": 64,
        "n_layer": 2,
        "vocab_size": 100,
        "d_intermediate": 100,
        "ssm_cfg": {"layer": "Mamba2", "headdim": 16},
    }
    report = explain_config(config)
    expr = report.module.formula.expr
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in report.module.formula.values}
    assert expr.subs(values) == report.total
    names = {str(s) for s in expr.free_symbols}
    assert {
        "d_model",
        "n_layer",
        "vocab_size",
        "pad_vocab_size_multiple",
        "d_intermediate",
        "headdim",
        "d_state",
    } <= names
    assert any("padded to 104" in note for note in report.notes)


def test_the_command_line_reads_a_config(tmp_path, capsys) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(SMALL))
    assert cli_main([str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] == explain_config(SMALL).total and data["partial"] is False
    (tmp_path / "bad.json").write_text(json.dumps({**SMALL, "d_model": 7}))
    assert cli_main([str(tmp_path / "bad.json")]) == 2
    assert "config key 'd_model' (7)" in capsys.readouterr().err


def test_the_constructors() -> None:
    assert [c.framework for c in find("Mamba")] == ["mamba_ssm"]
    assert find("mamba_ssm.modules.mamba_simple.Mamba")[0].make is Mamba
    assert lookup("mamba_ssm", "Mamba2").make is Mamba2
    make = lookup("transformers", "MambaConfig").make
    assert count(make(hidden_size=32, num_hidden_layers=2, vocab_size=50)) == explain_config(SMALL).total
    assert (
        count(lookup("transformers", "FalconMambaConfig").make(hidden_size=32, num_hidden_layers=2, vocab_size=50)) > 0
    )
    assert count(lookup("transformers", "Mamba2Config").make(hidden_size=64, num_heads=2, vocab_size=5)) > 0
    for cls in ("MambaConfig", "FalconMambaConfig", "Mamba2Config"):
        with pytest.raises(TypeError, match="accepts only keyword arguments"):
            lookup("transformers", cls).make(50280)


def test_the_block_constructors_refuse_like_mamba_ssm() -> None:
    with pytest.raises(ValueError, match="argument dt_rank must be an int >= 1, got 0"):
        Mamba(16, dt_rank=0)
    with pytest.raises(ValueError, match="argument expand must be a number"):
        Mamba(16, expand="2")
    with pytest.raises(TypeError, match="argument bias must be True or False"):
        Mamba(16, bias=1)
    with pytest.raises(TypeError, match=r"Mamba\(\) got an unexpected keyword argument 'd_sate'"):
        Mamba(16, d_sate=4)
    with pytest.raises(ValueError, match="process_group"):
        Mamba2(64, process_group=object())
    with pytest.raises(TypeError, match="argument rmsnorm must be True or False"):
        Mamba2(64, rmsnorm=None)
    with pytest.raises(ValueError, match="spelling must be one of"):
        mixer(16, spelling="keras")
    with pytest.raises(ValueError, match="spelling must be one of"):
        mixer2(16, spelling="keras")


def test_symbolic_sizes() -> None:
    D, e = sympy.symbols("D e", integer=True, positive=True)
    assert dt_rank_auto(D) == sympy.ceiling(D / 16)
    assert inner_width(1.5, D) == sympy.floor(sympy.Rational(3, 2) * D)
    assert inner_width(e, D) == e * D
    assert padded_vocab(D, 8) == 8 * sympy.ceiling(D / 8)
    assert mlp_width(D) == 128 * sympy.ceiling(D / 128)
    assert mlp_width(300) == 384
    assert Mamba(D).count == count(mixer(D))
    assert Mamba(16, expand=1.5).formula.values == (("d", 16), ("N", 16), ("K", 4))  # a float expand stays a number
    formula = Mamba2(64, headdim=16).formula
    assert (
        formula.expr.subs({sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values})
        == Mamba2(64, headdim=16).count
    )


def test_the_key_helpers() -> None:
    assert hf_config.size({"n": sympy.Integer(4)}, "n") == 4
    assert hf_config.positive(sympy.Symbol("n"), "n") == sympy.Symbol("n")
    with pytest.raises(ValueError, match="config key 'n' must be an integer size, got 1.5"):
        hf_config.size({"n": sympy.Float(1.5)}, "n")
    assert hf_config.time_step_rank("auto") == "auto" and hf_config.time_step_rank("7") == 7
    assert hf_config.lm_head(4, 10).params[0].tied_to is None
