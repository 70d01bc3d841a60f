"""Hunyuan-A13B-Instruct's ``config.json`` as released, held against transformers 5.23.0 (what derive answers for it).

The file (``files/tencent__Hunyuan-A13B-Instruct.config.json``, byte for byte the copy in the official GitHub
repository, https://github.com/Tencent-Hunyuan/Hunyuan-A13B/blob/df832ebcc42e64db91ec1a4eadb90c296f3c7346/models/config.json)
has ``model_type`` "hunyuan" and an ``auto_map`` to its remote code. transformers' own class for its
architecture, ``HunYuanMoEV1ForCausalLM`` (model type ``hunyuan_v1_moe``), does not build it: the file names its
head width ``attention_head_dim``, which ``HunYuanMoEV1Config`` does not read, so ``head_dim`` stays null and the
attention fails. derive refuses it with that reason, as released and under transformers' model type; with
``head_dim`` added, every other key maps onto the class and derive's count is transformers' (its card: 80B
total, 13B active). Expected values are read off transformers' models (and the card), never off derive.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import hf_live
import pytest

import derive

RELEASE = json.loads((Path(__file__).parent / "files" / "tencent__Hunyuan-A13B-Instruct.config.json").read_text())


def _as(model_type: str, **changes: object) -> dict:
    return {**copy.deepcopy(RELEASE), **changes, "model_type": model_type}


def test_as_released_refused() -> None:
    """``model_type`` "hunyuan" is the remote code's: transformers does not know it, nor does derive."""
    import transformers

    assert RELEASE["model_type"] == "hunyuan" and "AutoModelForCausalLM" in RELEASE["auto_map"]
    with pytest.raises(ValueError, match="hunyuan"):
        transformers.AutoConfig.for_model("hunyuan")
    with pytest.raises(ValueError, match="'hunyuan'"):
        derive.explain(copy.deepcopy(RELEASE))


def test_under_transformers_own_class_refused_naming_attention_head_dim() -> None:
    """As ``hunyuan_v1_moe`` (its ``architectures``' class): transformers fails on the null ``head_dim``; derive
    refuses, naming ``head_dim`` and the file's ``attention_head_dim``."""
    config = _as("hunyuan_v1_moe")
    assert "head_dim" not in config and config["attention_head_dim"] == 128
    with pytest.raises(TypeError):
        hf_live.build("hunyuan_v1_moe", {k: v for k, v in config.items() if k != "model_type"})
    with pytest.raises(ValueError, match="head_dim.*attention_head_dim"):
        derive.explain(config)


def test_with_head_dim_as_transformers_builds_it() -> None:
    """With ``head_dim`` 128 (its ``attention_head_dim``): every tensor, the total and the active count (k = 8 of
    64 experts in each of the 32 layers, the file's ``moe_topk`` list) are transformers', near the card's."""
    config = _as("hunyuan_v1_moe", head_dim=128)
    model = hf_live.check_family("hunyuan_v1_moe", {k: v for k, v in config.items() if k != "model_type"}, builds=True)
    total, used = hf_live.total(model), hf_live.active(model)
    assert (total, used) == (80_393_183_232, 12_747_448_320)  # read off transformers' build
    assert abs(total / 80e9 - 1) < 0.01 and abs(used / 13e9 - 1) < 0.02  # the card: 80B, 13B active
    report = derive.explain(config)
    assert (report.total, report.active) == (total, used)
    # the remote code's keys (attention_head_dim, use_cla, ...) are noted as keys the class does not define
    assert any("HunYuanMoEV1Config" in n and "attention_head_dim" in n for n in report.notes)
