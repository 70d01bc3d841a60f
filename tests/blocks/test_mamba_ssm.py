"""``mamba_ssm.Mamba``, ``Mamba2`` and ``MambaLMHeadModel`` held against mamba-ssm 2.3.2.post1.

mamba_ssm runs in its own environment, ``.venv-ssm`` (``scripts/bootstrap --test``), as a subprocess
(``tests/support/mamba_worker.py``) that builds each block on the meta device and reports
``named_parameters()`` and ``sum(p.numel() for p in parameters())``; derive builds the same call
with :mod:`derive.blocks.mamba`, :mod:`derive.blocks.mamba2` and :mod:`derive.blocks.mamba_lm`.
An argument mamba_ssm refuses must be refused by derive too.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mamba_live import live, ssm_python

import derive
from derive.blocks.mamba import Mamba
from derive.blocks.mamba2 import Mamba2
from derive.engine.constructors import find, lookup
from derive.tree import count, named_buffers, named_parameters

if ssm_python() is None:
    pytest.skip(".venv-ssm is missing (scripts/bootstrap --test makes it)", allow_module_level=True)

PROPERTY = settings(max_examples=60, deadline=None)
BLOCKS = {"Mamba": Mamba, "Mamba2": Mamba2}


def check_block(cls: str, kwargs: dict) -> object:
    """derive's ``cls(**kwargs)`` against mamba_ssm's: names, shapes, order, buffers, total."""
    try:
        got = live({"kind": cls, "kwargs": kwargs})
    except RuntimeError as error:  # mamba_ssm refuses: so does derive
        with pytest.raises((ValueError, TypeError)):
            BLOCKS[cls](**kwargs)
        return error
    module = BLOCKS[cls](**kwargs)
    assert [[n, list(p.shape)] for n, p in named_parameters(module)] == got["tensors"]
    assert [[n, list(p.shape)] for n, p in named_buffers(module)] == got["buffers"]
    assert count(module) == got["total"]
    hf_live.record("mamba_ssm", cls)
    return module


def check_lm(config: dict) -> derive.read.Report:
    """``derive.explain(config)`` against ``MambaLMHeadModel(MambaConfig(**config))``."""
    try:
        got = live({"kind": "lm", "config": config})
    except RuntimeError as error:
        with pytest.raises(ValueError):
            derive.explain(config)
        return error  # type: ignore[return-value]
    report = derive.explain(config)
    assert report.framework == "mamba_ssm"
    assert [[t["name"], list(t["shape"])] for t in report.tensors] == got["tensors"]
    assert report.total == got["total"]
    hf_live.record("mamba_ssm", "MambaLMHeadModel")
    return report


# --------------------------------------------------------------------------- the questions


def test_mamba_817_one_block() -> None:
    """state-spaces/mamba#817: ``Mamba(d_model=18, d_state=16, d_conv=4, expand=2)``."""
    kwargs = {"d_model": 18, "d_state": 16, "d_conv": 4, "expand": 2}
    assert live({"kind": "Mamba", "kwargs": kwargs})["total"] == 4068
    assert count(check_block("Mamba", kwargs)) == 4068


def test_mamba_697_d_model_1600() -> None:
    """state-spaces/mamba#697: one block at d_model 1600 holds 16,176,000 parameters, whatever the sequence."""
    assert live({"kind": "Mamba", "kwargs": {"d_model": 1600}})["total"] == 16_176_000
    assert count(check_block("Mamba", {"d_model": 1600})) == 16_176_000


#: The released mamba_ssm configs (config.json of each state-spaces/<name> repository on the Hub).
MAMBA_130M = {"d_model": 768, "n_layer": 24, "vocab_size": 50277, "ssm_cfg": {}, "rms_norm": True,
              "residual_in_fp32": True, "fused_add_norm": True, "pad_vocab_size_multiple": 8}  # fmt: skip
MAMBA2_130M = {"d_model": 768, "d_intermediate": 0, "n_layer": 24, "vocab_size": 50277, "ssm_cfg": {"layer": "Mamba2"},
               "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": True, "residual_in_fp32": True, "fused_add_norm": True,
               "pad_vocab_size_multiple": 16, "tie_embeddings": True}  # fmt: skip


def test_mamba_48_the_released_configs_and_the_issues_own_build() -> None:
    """mamba#48: the maintainer's 129,135,360 and 2,768,345,600; the asker's 1,449,006,080 (n_layer 32, LayerNorm)."""
    assert check_lm(MAMBA_130M).total == 129_135_360
    assert check_lm({**MAMBA_130M, "d_model": 2560, "n_layer": 64}).total == 2_768_345_600
    asked = {"d_model": 2560, "n_layer": 32, "vocab_size": 50432, "rms_norm": False}
    assert check_lm(asked).total == 1_449_006_080
    report = check_lm(MAMBA2_130M)
    assert report.total == live({"kind": "lm", "config": MAMBA2_130M})["total"]
    assert any("50,288" in note for note in report.notes)


def test_live_attributes_remake_the_block() -> None:
    """The registered ``read`` remakes a live block from the attributes mamba_ssm sets."""
    for cls, kwargs, names in (
        ("Mamba", {"d_model": 20, "expand": 1.5, "dt_rank": 3, "bias": True, "conv_bias": False},
         ["d_model", "d_state", "d_conv", "expand", "dt_rank"]),
        ("Mamba2", {"d_model": 32, "headdim": 16, "d_ssm": 32, "ngroups": 2, "D_has_hdim": True, "rmsnorm": False},
         ["d_model", "d_state", "d_conv", "expand", "headdim", "d_ssm", "ngroups", "D_has_hdim", "rmsnorm"]),
    ):  # fmt: skip
        attrs = live({"kind": "attrs", "cls": cls, "kwargs": kwargs, "names": [*names, "in_proj.bias", "conv1d.bias"]})
        obj = SimpleNamespace(**{n: attrs[n] for n in names})
        obj.in_proj, obj.conv1d = (
            SimpleNamespace(bias=attrs["in_proj.bias"]),
            SimpleNamespace(bias=attrs["conv1d.bias"]),
        )
        constructor = lookup("mamba_ssm", cls)
        args, again = constructor.read(obj)
        assert [(n, p.shape) for n, p in named_parameters(constructor.make(*args, **again))] == [
            (n, tuple(s)) for n, s in live({"kind": cls, "kwargs": kwargs})["tensors"]
        ]
    assert [c.name for c in find("mamba_ssm.Mamba")] == ["Mamba"]
    assert [c.name for c in find("mamba_ssm.modules.mamba2.Mamba2")] == ["Mamba2"]


def test_refusals_where_mamba_ssm_refuses() -> None:
    for cls, kwargs in (
        ("Mamba2", {"d_model": 64, "headdim": 48}),  # d_ssm % headdim
        ("Mamba2", {"d_model": 64, "expand": 1.5}),  # a float inner width
        ("Mamba2", {"d_model": 64, "A_init_range": (0, 16)}),
        ("Mamba", {"d_model": 16, "dt_init": "uniform"}),
        ("Mamba", {"d_model": 16, "expand": 0.01}),  # no inner width
    ):
        assert isinstance(check_block(cls, kwargs), RuntimeError), (cls, kwargs)
    for config in (
        {"d_model": 64, "n_layer": 1, "norm_epsilon": 1e-5},
        {"d_model": 64, "n_layer": 1, "ssm_cfg": {"layer": "Mamba3"}},
    ):
        assert isinstance(check_lm(config), RuntimeError), config


# --------------------------------------------------------------------------- drawn arguments


@st.composite
def mamba_arguments(draw: st.DrawFn) -> dict:
    kwargs = {"d_model": draw(st.integers(1, 64))}
    for key, strategy in (
        ("d_state", st.integers(1, 24)),
        ("d_conv", st.integers(1, 5)),
        ("expand", st.one_of(st.integers(1, 4), st.sampled_from([0.5, 1.5, 2.5, 0.75]))),
        ("dt_rank", st.one_of(st.just("auto"), st.integers(1, 10))),
        ("conv_bias", st.booleans()),
        ("bias", st.booleans()),
    ):
        if draw(st.booleans()):
            kwargs[key] = draw(strategy)
    return kwargs


@pytest.mark.slow
@PROPERTY
@given(kwargs=mamba_arguments())
def test_random_mamba_blocks(kwargs: dict) -> None:
    check_block("Mamba", kwargs)


@st.composite
def mamba2_arguments(draw: st.DrawFn) -> dict:
    d_model, expand = draw(st.integers(1, 48)), draw(st.integers(1, 3))
    inner = d_model * expand
    kwargs = {"d_model": d_model, "expand": expand}
    d_ssm = draw(st.one_of(st.none(), st.integers(1, inner)))
    channels = inner if d_ssm is None else d_ssm
    headdim = draw(st.sampled_from([d for d in range(1, channels + 1) if channels % d == 0]))
    kwargs["headdim"] = headdim + (draw(st.sampled_from(range(10))) == 9)  # now and then refused
    if d_ssm is not None:
        kwargs["d_ssm"] = d_ssm
    for key, strategy in (
        ("d_state", st.integers(1, 40)),
        ("d_conv", st.integers(1, 5)),
        ("ngroups", st.integers(1, 4)),
        ("D_has_hdim", st.booleans()),
        ("rmsnorm", st.booleans()),
        ("bias", st.booleans()),
        ("conv_bias", st.booleans()),
    ):
        if draw(st.booleans()):
            kwargs[key] = draw(strategy)
    return kwargs


@pytest.mark.slow
@PROPERTY
@given(kwargs=mamba2_arguments())
def test_random_mamba2_blocks(kwargs: dict) -> None:
    check_block("Mamba2", kwargs)


@st.composite
def lm_configs(draw: st.DrawFn) -> dict:
    d_model = draw(st.integers(1, 40))
    if draw(st.booleans()):
        ssm = {
            "layer": "Mamba2",
            "headdim": draw(st.sampled_from([d for d in range(1, 2 * d_model + 1) if 2 * d_model % d == 0])),
        }
        ssm["d_state"] = draw(st.integers(1, 32))
    else:
        ssm = {"d_state": draw(st.integers(1, 16)), "expand": draw(st.sampled_from([1, 2, 1.5]))}
    config = {"d_model": d_model, "n_layer": draw(st.integers(0, 2)), "ssm_cfg": ssm}
    for key, strategy in (
        ("vocab_size", st.integers(1, 100)),
        ("pad_vocab_size_multiple", st.integers(1, 16)),
        ("d_intermediate", st.one_of(st.just(0), st.integers(1, 300))),
        ("rms_norm", st.booleans()),
        ("tie_embeddings", st.booleans()),
        ("fused_add_norm", st.booleans()),
    ):
        if draw(st.booleans()):
            config[key] = draw(strategy)
    return config


@pytest.mark.slow
@PROPERTY
@given(config=lm_configs())
def test_random_mamba_lm_head_models(config: dict) -> None:
    check_lm(config)


# --------------------------------------------------------------------------- mamba_ssm 1.0's keywords

#: mamba_ssm 1.0's MambaLMHeadModel(d_model, n_layer, vocab_size, ...) (no MambaConfig) is
#: MambaConfig's model with 1.0's defaults: rms_norm False (nn.LayerNorm), pad_vocab_size_multiple 1,
#: the head tied (mamba-ssm 1.0.1, models/mixer_seq_simple.py 21-47, 83-131, 173-206). 1.0 cannot run
#: here (it takes no config; mamba-ssm 2.3.2 raises TypeError for these keywords): its model is built
#: by 2.3.2 from the config with those defaults written out.
V1_DEFAULTS = {"rms_norm": False, "pad_vocab_size_multiple": 1}


@pytest.mark.parametrize(
    "keywords",
    [
        "d_model=2560, n_layer=32, vocab_size=50432",  # state-spaces/mamba#136: the asker's 1,449,006,080
        "d_model=64, n_layer=2, vocab_size=100, rms_norm=True, pad_vocab_size_multiple=8",
        "d_model=64, n_layer=3, vocab_size=101, ssm_cfg={'d_state': 8, 'expand': 3}, initializer_cfg=None",
    ],
)
def test_mamba_ssm_1_0_keywords(keywords) -> None:
    """``MambaLMHeadModel(d_model=..., n_layer=..., vocab_size=...)`` (issue 26): 1.0's model, noted."""
    import ast

    given = {k.arg: ast.literal_eval(k.value) for k in ast.parse(f"f({keywords})", mode="eval").body.keywords}
    config = {**V1_DEFAULTS, **{k: v for k, v in given.items() if k != "initializer_cfg"}}
    got = live({"kind": "lm", "config": config})
    report = derive.explain(f"from mamba_ssm import MambaLMHeadModel\nmodel = MambaLMHeadModel({keywords})")
    assert [[t["name"], list(t["shape"])] for t in report.tensors] == got["tensors"]
    assert report.total == got["total"]
    if given["d_model"] == 2560:
        assert report.total == 1_449_006_080  # the count the asker printed


@pytest.mark.parametrize(
    "call,words",
    [
        (
            "MambaLMHeadModel(d_model=64, n_layer=2, vocab_size=100, d_intermediate=128)",
            "'d_intermediate' (a field of MambaConfig",
        ),
        (
            "MambaLMHeadModel(d_model=64, n_layer=2, vocab_size=100, ssm_cfg={'layer': 'Mamba2'})",
            "ssm_cfg 'layer' is mamba_ssm 2's",
        ),
        ("MambaLMHeadModel(d_model=64, n_layer=2)", "'vocab_size'"),
        ("MambaLMHeadModel(cfg)", "cfg without a value"),  # a name: a config, maybe; not read as a size
    ],
)
def test_mamba_ssm_1_0_keywords_refused_naming_the_argument(call, words) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        derive.explain(f"from mamba_ssm import MambaLMHeadModel\nmodel = {call}")
