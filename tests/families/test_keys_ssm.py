"""``test_keys.py`` for the families whose config class is not transformers': mamba_ssm's ``MambaConfig`` and fla's
``RWKV6Config`` and ``RWKV7Config``, installed in ``.venv-ssm`` only (mamba-ssm 2.3.2.post1, flash-linear-attention
0.6.0). Their keys are read off the installed classes in that environment (``tests/support/ssm_keys_worker.py``),
every inert key is varied on the real package's model (built there on the meta device: ``mamba_worker.py``,
``fla_worker.py``), and a key outside the class is held to what the package does with it: fla's classes keep it
(``**kwargs`` to ``PreTrainedConfig``) and build the same model, so derive answers with a note; mamba_ssm's dataclass
raises TypeError, so derive refuses it, naming it. Skipped whole when ``.venv-ssm`` is missing.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
from pathlib import Path

import pytest
from blocks_live import fla
from blocks_live import tensors as derive_tensors
from mamba_live import live as mamba
from mamba_live import ssm_python
from test_keys import OTHER_LIBRARIES, config_reads

import derive
from derive.blocks.hf_config import GENERIC
from derive.families.family import families

if ssm_python() is None:
    pytest.skip(".venv-ssm is missing (scripts/bootstrap --test)", allow_module_level=True)

TYPES = ("mamba_ssm", "rwkv6", "rwkv7")

#: A small config of each, built by the real package in a moment on the meta device.
SMALL: dict[str, dict] = {
    "mamba_ssm": {"d_model": 16, "n_layer": 2, "vocab_size": 60, "ssm_cfg": {"d_state": 4}},
    "rwkv6": {"hidden_size": 32, "num_hidden_layers": 2, "vocab_size": 64, "num_heads": 2, "proj_low_rank_dim": 4,
              "gate_low_rank_dim": 8},
    "rwkv7": {"hidden_size": 32, "num_hidden_layers": 2, "vocab_size": 64, "head_dim": 16, "decay_low_rank_dim": 4,
              "gate_low_rank_dim": 8, "a_low_rank_dim": 4, "v_low_rank_dim": 4},
}  # fmt: skip

#: Each inert key's changed value (another than the class's default; a flag's is its negation); more keys where the
#: package takes one only with another (fla's validate_loss_config refuses both loss kernels at once).
CHANGED: dict[str, dict] = {
    "attn_cfg": {"attn_cfg": {"num_heads": 2, "rotary_emb_dim": 4}},
    "attn_mode": {"attn_mode": "fused_recurrent"},
    "max_position_embeddings": {"max_position_embeddings": 77},
    "norm_eps": {"norm_eps": 1e-3},
    "fuse_linear_cross_entropy": {"fuse_linear_cross_entropy": True, "fuse_cross_entropy": False},
}


@functools.cache
def installed() -> dict:
    """The installed classes' keys (``ssm_keys_worker.py``'s answer, run once by ``.venv-ssm``'s Python)."""
    worker = Path(__file__).resolve().parents[1] / "support" / "ssm_keys_worker.py"
    done = subprocess.run([str(ssm_python()), str(worker)], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def real(model_type: str, config: dict) -> tuple[list, int]:
    """The real package's model of ``config``: its (name, shape) listing and total (RuntimeError: it refused)."""
    if model_type == "mamba_ssm":
        got = mamba({"kind": "lm", "config": config})
        return [(n, tuple(s)) for n, s in got["tensors"]], got["total"]
    got = fla({"kind": "model", "model_type": model_type, "config": config})
    return got["parameters"], got["total"]


def explain(model_type: str, config: dict):  # type: ignore[no-untyped-def]
    """derive's answer (mamba_ssm's configs carry no ``model_type``: read by their keys)."""
    return derive.explain(copy.deepcopy(config) if model_type == "mamba_ssm" else {"model_type": model_type, **config})


def test_these_are_the_families_of_other_libraries() -> None:
    assert set(TYPES) == OTHER_LIBRARIES
    assert all(families()[t].keys is not None and families()[t].keys.complete for t in TYPES)


@pytest.mark.parametrize("model_type", TYPES)
def test_every_key_of_the_class_is_mapped_or_inert(model_type: str) -> None:
    keys, cls = families()[model_type].keys, installed()[model_type]
    assert keys.cls == cls["cls"]
    own = set(cls["own"]) - GENERIC
    declared = set(keys.shape) | set(keys.inert) | set(keys.aliases) | set(keys.same_as)
    assert not own - declared, f"{keys.cls}: keys neither mapped nor declared inert: {sorted(own - declared)}"
    stale = declared - own - set(cls["base"])
    assert not stale, f"{keys.cls}: declared keys the installed class does not have: {sorted(stale)}"


@pytest.mark.parametrize("model_type", TYPES)
def test_what_the_model_reads_off_its_config_is_a_declared_key(model_type: str) -> None:
    keys, cls = families()[model_type].keys, installed()[model_type]
    defined = set(cls["own"]) | set(cls["base"]) | set(cls["attributes"]) | GENERIC
    reads = {r for r in config_reads(cls["modeling"]) if not r.startswith("__")}  # mamba_ssm saves config.__dict__
    unknown = reads - defined - set(keys.shape) - set(keys.inert)
    assert not unknown, f"{model_type}'s modeling code reads config attributes no declared key names: {sorted(unknown)}"


def _inert_cases() -> list:
    return [
        pytest.param(t, key, id=f"{t}-{key}") for t in TYPES for key in sorted(families()[t].keys.inert)
    ]  # fmt: skip


@pytest.mark.parametrize(("model_type", "key"), _inert_cases())
def test_an_inert_key_changes_no_tensor(model_type: str, key: str) -> None:
    """Each declared inert key at a value other than its class's default: the real package builds the same tensors as at
    the default, and derive answers its total and every tensor (name, shape) as the package builds them."""
    default = installed()[model_type]["saved"][key]
    change = CHANGED.get(key, {key: not default} if isinstance(default, bool) else None)
    assert change is not None, f"{key}: give a changed value in CHANGED"
    changed = {**copy.deepcopy(SMALL[model_type]), **copy.deepcopy(change)}
    assert changed[key] != default
    built, total = real(model_type, changed)
    assert (built, total) == real(model_type, copy.deepcopy(SMALL[model_type]))
    report = explain(model_type, changed)
    assert report.total == total
    assert derive_tensors(report.module) == built


@pytest.mark.parametrize("model_type", ["rwkv6", "rwkv7"])
def test_a_key_outside_the_class_is_answered_with_a_note(model_type: str) -> None:
    """fla's classes pass a key they do not define to ``PreTrainedConfig``, which keeps it; no modeling code reads it
    and the model is the same: derive answers as the package builds, naming the key and the class."""
    config = {**copy.deepcopy(SMALL[model_type]), "some_future_key": [1, 2], "d_model": 999}
    built, total = real(model_type, copy.deepcopy(config))
    assert (built, total) == real(model_type, copy.deepcopy(SMALL[model_type]))
    report = explain(model_type, config)
    assert report.total == total
    cls = families()[model_type].keys.cls
    assert any("some_future_key" in n and "d_model" in n and cls in n for n in report.notes), report.notes


@pytest.mark.parametrize("key", ["some_future_key", "use_cache", "norm_epsilon"])
def test_a_key_outside_mamba_ssms_dataclass_is_refused_as_mamba_ssm_refuses_it(key: str) -> None:
    """``MambaConfig`` is a dataclass without ``**kwargs``: ``MambaConfig(**config)`` (``from_pretrained``) raises
    TypeError on a key it does not define, even one every transformers config has. derive refuses it, naming it."""
    config = {**copy.deepcopy(SMALL["mamba_ssm"]), key: 1}
    with pytest.raises(RuntimeError, match=f"TypeError.*{key}"):
        real("mamba_ssm", copy.deepcopy(config))
    with pytest.raises(ValueError, match=key):
        explain("mamba_ssm", config)


@pytest.mark.parametrize(("model_type", "config", "key"), [
    ("rwkv6", {"attn_mode": "parallel"}, "attn_mode"),
    ("rwkv7", {"attn_mode": "parallel"}, "attn_mode"),
    ("rwkv6", {"fuse_linear_cross_entropy": True}, "fuse_linear_cross_entropy"),
    ("rwkv7", {"fuse_linear_cross_entropy": True}, "fuse_linear_cross_entropy"),
    ("rwkv6", {"attn": {"layers": [1], "num_heads": 2}}, "attn"),
    ("rwkv7", {"attn": {"layers": [1], "num_heads": 2}}, "attn"),
    ("mamba_ssm", {"attn_layer_idx": [1], "attn_cfg": {"num_heads": 2}}, "attn_layer_idx"),
])  # fmt: skip
def test_a_value_of_a_key_the_package_refuses_or_derive_does_not_map_is_refused(
    model_type: str, config: dict, key: str
) -> None:
    """An inert key's value the package refuses (fla's mode assertion, its validate_loss_config), and the hybrid
    attention layers derive does not map (mamba_ssm builds its MHA layers; fla's ``Attention`` needs flash-attn,
    which ``.venv-ssm`` does not install: not built here): refused, naming the key."""
    changed = {**copy.deepcopy(SMALL[model_type]), **config}
    if key == "attn_layer_idx":
        assert real(model_type, copy.deepcopy(changed))[1] > 0  # the package builds it: derive does not map it
    elif key == "attn":
        try:
            assert real(model_type, copy.deepcopy(changed))[1] > 0
        except RuntimeError as error:
            assert "Flash Attention" in str(error)
    else:
        with pytest.raises(RuntimeError):
            real(model_type, copy.deepcopy(changed))
    with pytest.raises(ValueError, match=key):
        explain(model_type, changed)


@pytest.mark.slow
@pytest.mark.parametrize("model_type", TYPES)
def test_the_class_defaults_whole_are_answered(model_type: str) -> None:
    """The class's defaults with every key explicit, as ``save_pretrained`` writes them: answered without a refusal,
    its total the real package's build of the class's defaults."""
    saved = copy.deepcopy(installed()[model_type]["saved"])
    assert explain(model_type, saved).total == real(model_type, {})[1]
