"""Config classes whose own defaults transformers cannot build: derive refuses them naming the key.

``AutoConfig.for_model(model_type)`` leaves a key None that the model reads (LFM2-MoE's ``layer_types``,
Qwen4-Exp's indexer sizes, Ministral's ``head_dim``), so ``from_config`` fails on the meta device; derive's
answer to ``{"model_type": ...}`` is a refusal naming the key, never a count of a model that does not build.
"""

from __future__ import annotations

import pytest

import derive

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

#: model_type -> what derive's refusal names
DEFAULTS_THAT_DO_NOT_BUILD = {
    "lfm2_moe": ["layer_types"],
    "qwen4_exp_text": ["indexer_n_heads", "indexer_head_dim"],
    "ministral": ["head_dim"],
}


@pytest.mark.parametrize("model_type", sorted(DEFAULTS_THAT_DO_NOT_BUILD))
def test_a_default_config_transformers_cannot_build_is_refused_by_name(model_type: str) -> None:
    config = transformers.AutoConfig.for_model(model_type)
    with pytest.raises(TypeError), torch.device("meta"):  # None where the model reads a size
        transformers.AutoModelForCausalLM.from_config(config)
    with pytest.raises(ValueError) as refused:
        derive.explain({"model_type": model_type})
    for key in DEFAULTS_THAT_DO_NOT_BUILD[model_type]:
        assert key in str(refused.value), (key, str(refused.value))
