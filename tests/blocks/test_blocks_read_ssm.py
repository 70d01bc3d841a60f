"""mamba_ssm and flash-linear-attention objects read by derive, live, in their own environment.

mamba-ssm 2.3.2.post1 and fla 0.6.0 need triton and torch 2.13, so they run in ``.venv-ssm``
(``tests/support/blocks_read_worker.py``), where ``derive.explain`` is called on the real objects
built on the meta device: a ``Mamba``/``Mamba2`` block and fla's layers must be derived through
their registered constructors (one row, a closed form), ``MambaLMHeadModel`` and fla's RWKV models
through their configs, every tensor the object's own ``named_parameters()``, the total its
``parameters()``'. mamba_ssm's checkpoints (``torch.save(model.state_dict())`` of real CPU tensors)
are read back here to their configs, and its ``load_state_dict`` errors explained.
"""

from __future__ import annotations

import os
from pathlib import Path

import hf_live
import pytest
from frameworks_live_extra import worker_request
from hypothesis import given, settings
from hypothesis import strategies as st

import derive

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("DERIVE_SSM_PYTHON") or str(ROOT / ".venv-ssm/bin/python")

if not Path(PYTHON).exists():
    pytest.skip(".venv-ssm is missing (torch + triton + mamba-ssm + flash-linear-attention)", allow_module_level=True)

pytestmark = pytest.mark.slow
PROPERTY = settings(max_examples=15, deadline=None)


@pytest.fixture(autouse=True, scope="module")
def _close_the_worker():
    """Stop the subprocess when this module is done (it is started on first use)."""
    yield
    import frameworks_live_extra as extra

    process = extra._WORKERS.pop("blocks_read", None)
    if process is not None:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


def explained(cls: str, kwargs: dict, wrap: bool = False) -> dict:
    """derive's report of the live object (JSON), checked against the object's own tensors and total."""
    answer = worker_request("blocks_read", PYTHON, {"kind": "explain", "cls": cls, "kwargs": kwargs, "wrap": wrap})
    report = answer["report"]
    assert [[t["name"], t["shape"]] for t in report["tensors"]] == answer["tensors"]
    assert report["total"] == answer["total"]
    assert not any("numeric" in layer.get("note", "") for layer in report["layers"]), report["layers"]
    return report


def block(cls: str, kwargs: dict, framework: str) -> None:
    report = explained(cls, kwargs)
    (row,) = report["layers"]
    assert row["type"] == cls and row["formula"] is not None
    wrapped = explained(cls, kwargs, wrap=True)
    assert [layer["name"] for layer in wrapped["layers"]] == ["inner", "head"]
    hf_live.record(framework, cls)


@PROPERTY
@given(
    d_model=st.integers(2, 40),
    d_state=st.integers(1, 16),
    d_conv=st.integers(1, 5),
    expand=st.sampled_from([1, 2, 1.5]),
    dt_rank=st.sampled_from(["auto", 1, 3]),
    bias=st.booleans(),
    conv_bias=st.booleans(),
)
def test_live_mamba_blocks_are_derived(d_model, d_state, d_conv, expand, dt_rank, bias, conv_bias) -> None:
    kwargs = {"d_model": d_model, "d_state": d_state, "d_conv": d_conv, "expand": expand, "dt_rank": dt_rank,
              "bias": bias, "conv_bias": conv_bias}  # fmt: skip
    if int(expand * d_model) < 1:
        return
    block("Mamba", kwargs, "mamba_ssm")


@PROPERTY
@given(
    heads=st.integers(1, 4),
    headdim=st.sampled_from([4, 8, 16]),
    d_state=st.integers(1, 16),
    ngroups=st.sampled_from([1, 2]),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_live_mamba2_blocks_are_derived(heads, headdim, d_state, ngroups, flags) -> None:
    d_model = heads * headdim
    kwargs = {"d_model": d_model, "headdim": headdim, "d_state": d_state, "ngroups": ngroups, "expand": 1,
              "D_has_hdim": flags[0], "rmsnorm": flags[1], "bias": flags[2]}  # fmt: skip
    block("Mamba2", kwargs, "mamba_ssm")


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        ("GatedLinearAttention", {"hidden_size": 64, "num_heads": 4}),
        ("MultiScaleRetention", {"hidden_size": 64, "num_heads": 2}),
        ("HGRNAttention", {"hidden_size": 32}),
        ("HGRN2Attention", {"hidden_size": 256, "expand_ratio": None, "num_heads": 4, "use_short_conv": True}),
        ("DeltaNet", {"hidden_size": 64, "num_heads": 4}),
        ("RWKV6Attention", {"hidden_size": 64, "num_heads": 4}),
        ("RWKV7Attention", {"hidden_size": 64, "head_dim": 16}),
    ],
)
def test_live_fla_layers_are_derived(cls: str, kwargs: dict) -> None:
    block(cls, kwargs, "fla")


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        ("MambaLMHeadModel", {"d_model": 32, "n_layer": 2, "vocab_size": 101}),
        ("MambaLMHeadModel", {"d_model": 32, "n_layer": 2, "vocab_size": 64, "d_intermediate": 40, "rms_norm": False,
                              "tie_embeddings": False, "ssm_cfg": {"layer": "Mamba2", "headdim": 8, "d_state": 8}}),
        ("RWKV6ForCausalLM", {"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100, "num_heads": 4}),
        ("RWKV7ForCausalLM", {"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100, "head_dim": 16}),
    ],
)  # fmt: skip
def test_live_models_are_derived_from_their_configs(cls: str, kwargs: dict) -> None:
    report = explained(cls, kwargs)
    assert len(report["layers"]) > 1
    assert any(note.startswith("derived from model.config") for note in report["notes"])
    hf_live.record("mamba_ssm" if cls == "MambaLMHeadModel" else "fla", cls)


@pytest.mark.parametrize(
    "config",
    [
        {"d_model": 24, "n_layer": 2, "vocab_size": 101},
        {"d_model": 24, "n_layer": 1, "vocab_size": 101, "pad_vocab_size_multiple": 1},
        {"d_model": 24, "n_layer": 3, "vocab_size": 96, "tie_embeddings": False, "rms_norm": False,
         "ssm_cfg": {"d_state": 4, "d_conv": 3, "expand": 3, "dt_rank": 5, "bias": True, "conv_bias": False}},
        {"d_model": 32, "n_layer": 2, "vocab_size": 64, "d_intermediate": 40,
         "ssm_cfg": {"layer": "Mamba2", "headdim": 8, "d_state": 8, "ngroups": 2, "D_has_hdim": True}},
        {"d_model": 32, "n_layer": 1, "vocab_size": 64,
         "ssm_cfg": {"layer": "Mamba2", "headdim": 8, "d_state": 8, "d_ssm": 16, "rmsnorm": False}},
    ],
)  # fmt: skip
def test_mamba_ssm_checkpoints_read_back(config: dict, tmp_path) -> None:
    path = tmp_path / "pytorch_model.bin"
    live = worker_request("blocks_read", PYTHON, {"kind": "save", "kwargs": config, "path": str(path)})
    report = derive.explain(str(path))
    assert report.title == "MambaLMHeadModel from its tensors (config inferred)"
    assert report.total == live["total"]
    assert [[t["name"], list(t["shape"])] for t in report.tensors] == live["tensors"]
    inferred = report.module.config
    assert inferred["d_model"] == config["d_model"] and inferred["n_layer"] == config["n_layer"]
    for key, value in config.get("ssm_cfg", {}).items():
        if key not in ("d_state", "ngroups"):  # their product only (said in a note)
            assert inferred["ssm_cfg"][key] == value, key
    hf_live.record("mamba_ssm", "MambaLMHeadModel")


def test_mamba_ssm_errors_name_the_argument() -> None:
    a = {"d_model": 24, "n_layer": 2, "vocab_size": 64, "ssm_cfg": {"d_state": 8}}
    b = {"d_model": 24, "n_layer": 2, "vocab_size": 64, "ssm_cfg": {"d_state": 16, "d_conv": 2}}
    text = worker_request("blocks_read", PYTHON, {"kind": "mismatch", "a": a, "b": b})
    explained_text = derive.explain_error(text)
    # torch names the model (MambaLMHeadModel); transformers' MambaForCausalLM names the mixers' tensors alike
    assert (
        "MambaLMHeadModel: checkpoint has d_state=8, your model 16 (also MambaForCausalLM: state_size)"
        in explained_text
    )
    assert (
        "MambaLMHeadModel: checkpoint has d_conv=4, your model 2 (also MambaForCausalLM: conv_kernel)" in explained_text
    )
    c = {**a, "n_layer": 3}
    text = worker_request("blocks_read", PYTHON, {"kind": "mismatch", "a": c, "b": a})
    assert "MambaLMHeadModel: checkpoint has n_layer=3, your model 2" in derive.explain_error(text)
