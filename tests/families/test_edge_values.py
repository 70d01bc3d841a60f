"""Configs transformers builds that derive once answered wrongly or refused (issue 33): each as a user hands it
over — the edge value the class allows, and the class's whole ``to_dict()`` (every key explicit, as
``save_pretrained`` writes it) — held against transformers 5.23.0 on the meta device, and answered by the
command line with exit 0.
"""

from __future__ import annotations

import copy
import importlib
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import hf_live
import pytest

from derive.cli import main
from derive.families.family import tiny

transformers = pytest.importorskip("transformers")


def _base(model_type: str, source: str | int) -> dict:
    """The family's small config: its test module's CACHE (a module's name), or the registry's tiny config of that
    index (``derive/families/data/<model_type>.json``)."""
    if isinstance(source, int):
        return tiny(model_type)[source]
    return copy.deepcopy(importlib.import_module(f"test_{source}").CACHE)


LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0] * 2, "long_factor": [1.0] * 2}

#: (id, model_type, the family's small config (its test module's CACHE, or the index of a tiny config), the edge value)
EDGES = [
    # BailingHybridConfig().to_dict() writes head_dim = qk_rope_head_dim and linear_head_dim = the given head_dim:
    # KDA's heads are linear_head_dim wide (once given qk_rope_head_dim's width: 123,312,252,192 for 124,414,191,072)
    ("bailing-linear-widths", "bailing_hybrid", "bailing_hybrid", {"head_dim": 8, "linear_num_heads": 3}),
    ("lfm2-ffn-multiplier", "lfm2", "lfm2", {"block_ffn_dim_multiplier": 1.5}),  # once exit 70
    ("lfm2-moe-no-dense-layer", "lfm2_moe", "lfm2_moe", {"num_dense_layers": 0}),  # once exit 70
    ("granite-no-routed-expert", "granitemoehybrid", "granitemoehybrid", {"num_experts_per_tok": 0}),
    ("granite-no-experts", "granitemoehybrid", "granitemoehybrid", {"num_local_experts": 0, "num_experts_per_tok": 0}),
    ("kimi-no-shared-expert", "kimi_linear", "kimi_linear", {"num_shared_experts": 0}),
    ("bailing-no-shared-expert", "bailing_hybrid", "bailing_hybrid", {"num_shared_experts": 0}),
    ("nemotron-key-outside-the-class", "nemotron_h", "nemotron_h", {"rms_norm_eps": 1e-5}),  # Nemotron-3-Nano's
    # a factor of 0 turns nothing: Phi-3's and GLM-4's attention rotate q[..., :0] and pass the whole head (once
    # refused, the factor read as outside (0, 1])
    ("phi3-factor-0", "phi3", 0, {"partial_rotary_factor": 0.0}),
    ("phi3-rope-factor-0", "phi3", 0, {"rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0}}),
    ("glm4-factor-0", "glm4", 0, {"partial_rotary_factor": 0.0}),
    ("glm4-moe-factor-0", "glm4_moe", 0, {"partial_rotary_factor": 0.0}),
    # GLM-4's LongRoPE (the default's width) and proportional RoPE (head_dim // 2 frequencies): once refused
    ("glm4-longrope", "glm4", 0, {"rope_parameters": LONGROPE}),
    ("glm4-proportional", "glm4", 0, {"rope_parameters": {"rope_type": "proportional", "rope_theta": 1e4, "partial_rotary_factor": 0.25}}),
    ("glm4-moe-proportional", "glm4_moe", 0, {"rope_parameters": {"rope_type": "proportional", "rope_theta": 1e4}}),
    # PhiMoE's and Gemma 4's default RoPE turns the whole head whatever the factor says: once refused
    ("phimoe-default-factor", "phimoe", 0, {"partial_rotary_factor": 0.5}),
    ("phimoe-rope-default-factor", "phimoe", 2, {"rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.25}}),
    ("gemma4-default-factor", "gemma4_text", 2, {"rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.5},
        "full_attention": {"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": 0.0}}}),
]  # fmt: skip


def _saved(model_type: str, config: dict) -> dict:
    """The config.json transformers writes for ``config`` (its every key), without what names the file."""
    saved = transformers.AutoConfig.for_model(model_type, **copy.deepcopy(config)).to_dict()
    return {k: v for k, v in saved.items() if k not in ("model_type", "transformers_version", "architectures")}


def _cli(config: dict) -> tuple[int, dict]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([json.dumps(config), "--json"])
    return status, (json.loads(out.getvalue()) if status in (0, 3) else {"error": err.getvalue()})


@pytest.mark.parametrize(("case", "model_type", "source", "edge"), EDGES, ids=[e[0] for e in EDGES])
def test_edge_value_as_given_and_as_saved(case: str, model_type: str, source: str | int, edge: dict) -> None:
    config = {**_base(model_type, source), **edge}
    for form in (config, _saved(model_type, config)):
        model = hf_live.check_family(model_type, copy.deepcopy(form), builds=True)
        status, answer = _cli({"model_type": model_type, **form})
        assert status == 0, answer
        assert answer["total"] == hf_live.total(model)
