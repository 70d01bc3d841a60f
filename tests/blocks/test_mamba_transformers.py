"""Mamba, FalconMamba and Mamba-2 configs held against transformers 5.23.0 on the meta device.

Every expected name, shape, buffer and total is read off ``AutoModelForCausalLM.from_config``
(``tests/support/hf_live.py``); derive reads the same config through :func:`derive.explain`. A config
transformers refuses must be refused by derive too.
"""

from __future__ import annotations

import hf_live
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.families.family import tiny
from derive.tree import named_buffers

CLASSES = {"mamba": "MambaForCausalLM", "falcon_mamba": "FalconMambaForCausalLM", "mamba2": "Mamba2ForCausalLM"}
PROPERTY = settings(max_examples=60, deadline=None)


def check(model_type: str, config: dict, formula: bool = False) -> derive.read.Report:
    """derive's report of ``config`` against the built model: tensors, buffers, total, rows (and closed forms)."""
    try:
        model = hf_live.build(model_type, config)
    except Exception as error:  # transformers refuses it: derive must refuse it too
        with pytest.raises(ValueError):
            derive.explain({"model_type": model_type, **config})
        return error  # type: ignore[return-value]
    report = derive.explain({"model_type": model_type, **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == hf_live.buffers(model)
    assert report.total == hf_live.total(model)
    for row in report.rows:
        assert row.params == hf_live.under(model, row.name), row.name
        if formula:
            assert (
                sympy.S(row.formula).subs(
                    {sympy.Symbol(k, integer=True, positive=True): v for k, v in row.values.items()}
                )
                == row.params
            )
    if formula:
        values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in report.module.formula.values}
        assert report.module.formula.expr.subs(values) == hf_live.total(model)
    hf_live.record("transformers", CLASSES[model_type])
    return report


# --------------------------------------------------------------------------- the released models


#: state-spaces/mamba-130m-hf's config.json (the keys that shape it; the rest are inert).
MAMBA_130M_HF = {
    "vocab_size": 50280,
    "hidden_size": 768,
    "intermediate_size": 1536,
    "num_hidden_layers": 24,
    "state_size": 16,
    "conv_kernel": 4,
    "expand": 2,
    "time_step_rank": 48,
    "use_bias": False,
    "use_conv_bias": True,
    "layer_norm_epsilon": 1e-05,
    "hidden_act": "silu",
    "torch_dtype": "float32",
    "architectures": ["MambaForCausalLM"],
}


def test_the_maintainers_counts_mamba_48() -> None:
    """state-spaces/mamba#48: 129,135,360 for mamba-130m, 2,768,345,600 for mamba-2.8b (both read off the build)."""
    small = hf_live.build("mamba", MAMBA_130M_HF)
    assert hf_live.total(small) == 129_135_360
    assert check("mamba", MAMBA_130M_HF, formula=True).total == 129_135_360
    big = {"vocab_size": 50280, "hidden_size": 2560, "num_hidden_layers": 64}
    assert hf_live.total(hf_live.build("mamba", big)) == 2_768_345_600
    assert check("mamba", big).total == 2_768_345_600


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        ("mamba", {}),
        ("mamba", tiny("mamba")[0]),  # derive/families/data/mamba.json
        (
            "mamba",
            {"hidden_size": 40, "num_hidden_layers": 1, "vocab_size": 9, "use_bias": True, "use_conv_bias": False},
        ),
        ("falcon_mamba", tiny("falcon_mamba")[0]),  # derive/families/data/falcon_mamba.json
        ("mamba2", {"hidden_size": 64, "num_heads": 4, "head_dim": 32, "n_groups": 2, "num_hidden_layers": 2}),
        (
            "mamba2",
            {"hidden_size": 32, "num_heads": 2, "head_dim": 32, "num_hidden_layers": 1, "tie_word_embeddings": True},
        ),
        ("mamba2", {}),
    ],
)
def test_configs_and_their_closed_forms(model_type: str, config: dict) -> None:
    assert isinstance(check(model_type, config, formula=True), derive.read.Report)


def test_live_config_objects_and_saved_config_files(tmp_path) -> None:
    """A live ``PretrainedConfig`` (its ``to_dict()``) and the ``config.json`` transformers writes."""
    import transformers

    for model_type, config in (
        ("mamba", {"hidden_size": 32, "num_hidden_layers": 2, "vocab_size": 50}),
        ("falcon_mamba", {"hidden_size": 32, "num_hidden_layers": 1, "vocab_size": 50, "tie_word_embeddings": False}),
        ("mamba2", {"hidden_size": 32, "num_heads": 2, "head_dim": 32, "num_hidden_layers": 1, "vocab_size": 50}),
    ):
        cfg = transformers.AutoConfig.for_model(model_type, **config)
        expected = hf_live.total(hf_live.build(model_type, config))
        assert derive.explain(cfg).total == expected
        folder = tmp_path / model_type
        cfg.save_pretrained(folder)
        report = derive.explain(folder / "config.json")
        assert report.total == expected
        assert report.framework == "transformers"
        assert derive.explain(str(folder / "config.json")).total == expected


def test_refusals_where_transformers_refuses() -> None:
    for model_type, config in (
        ("mamba", {"expand": 1.5}),
        ("falcon_mamba", {"expand": 2.5}),
        ("mamba2", {"hidden_size": 768}),  # 768 * 2 != 128 * 64 (mamba#752's config read as Mamba2Config)
        ("mamba2", {"hidden_size": 100, "num_heads": 3, "head_dim": 64}),
        ("mamba2", {"expand": 2.0, "hidden_size": 4096}),
    ):
        assert isinstance(check(model_type, config), Exception)


# --------------------------------------------------------------------------- drawn configs

_SIZES = {
    "vocab_size": st.integers(1, 120),
    "hidden_size": st.integers(1, 64),
    "state_size": st.integers(1, 20),
    "num_hidden_layers": st.integers(0, 3),
    "conv_kernel": st.integers(1, 6),
    "use_bias": st.booleans(),
    "use_conv_bias": st.booleans(),
    "tie_word_embeddings": st.booleans(),
}


@st.composite
def mamba_configs(draw: st.DrawFn) -> dict:
    config = {k: draw(s) for k, s in _SIZES.items() if draw(st.booleans())}
    if draw(st.booleans()):
        config["expand"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        config["time_step_rank"] = draw(st.one_of(st.just("auto"), st.integers(1, 12)))
    if draw(st.booleans()):
        config["intermediate_size"] = draw(st.integers(1, 90))
    return config


@pytest.mark.slow
@PROPERTY
@given(model_type=st.sampled_from(["mamba", "falcon_mamba"]), config=mamba_configs())
def test_random_mamba_and_falcon_mamba_configs(model_type: str, config: dict) -> None:
    check(model_type, config)


@st.composite
def mamba2_configs(draw: st.DrawFn) -> dict:
    config = {k: draw(s) for k, s in _SIZES.items() if k != "hidden_size" and draw(st.booleans())}
    hidden, expand = draw(st.integers(1, 48)), draw(st.integers(1, 3))
    inner = hidden * expand
    heads = draw(st.sampled_from([d for d in range(1, inner + 1) if inner % d == 0]))
    head_dim = inner // heads + (draw(st.sampled_from(range(10))) == 9)  # now and then inconsistent: refused
    config |= {"hidden_size": hidden, "expand": expand, "num_heads": heads, "head_dim": head_dim}
    config["state_size"] = draw(st.integers(1, 40))
    config["n_groups"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        config["time_step_rank"] = draw(st.one_of(st.just("auto"), st.integers(1, 12)))
    return config


@pytest.mark.slow
@PROPERTY
@given(config=mamba2_configs())
def test_random_mamba2_configs(config: dict) -> None:
    check("mamba2", config)
