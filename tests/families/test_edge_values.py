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

transformers = pytest.importorskip("transformers")


def _cache(module: str) -> dict:
    return copy.deepcopy(importlib.import_module(f"test_{module}").CACHE)


#: (id, model_type, the family's small config (its test module's CACHE), the edge value)
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
]


def _saved(model_type: str, config: dict) -> dict:
    """The config.json transformers writes for ``config`` (its every key), without what names the file."""
    saved = transformers.AutoConfig.for_model(model_type, **copy.deepcopy(config)).to_dict()
    return {k: v for k, v in saved.items() if k not in ("model_type", "transformers_version", "architectures")}


def _cli(config: dict) -> tuple[int, dict]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([json.dumps(config), "--json"])
    return status, (json.loads(out.getvalue()) if status in (0, 3) else {"error": err.getvalue()})


@pytest.mark.parametrize(("case", "model_type", "module", "edge"), EDGES, ids=[e[0] for e in EDGES])
def test_edge_value_as_given_and_as_saved(case: str, model_type: str, module: str, edge: dict) -> None:
    config = {**_cache(module), **edge}
    for form in (config, _saved(model_type, config)):
        model = hf_live.check_family(model_type, copy.deepcopy(form), builds=True)
        status, answer = _cli({"model_type": model_type, **form})
        assert status == 0, answer
        assert answer["total"] == hf_live.total(model)
