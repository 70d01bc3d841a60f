"""PhiMoE (``phimoe``) where its registry data cannot say it: the configs derive refuses, each naming the key and
failing in transformers 5.23.0 too (``PhimoeConfig`` refuses it, or the model fails its first forward or gives NaN
logits); the RoPEs and layer patterns transformers builds; and ``num_experts_per_tok``, which the router does not
read: a token's experts counted off a forward.
"""

from __future__ import annotations

import copy

import hf_cache
import hf_live
import pytest

import derive
from derive.families.family import tiny
from derive.tree import active

SMALL = tiny("phimoe")[0]  # D 32, 4 heads of 8, 4 experts, 2 layers
MSCALE = {"short_mscale": 1.0, "long_mscale": 1.0}
LONGROPE = {
    "rope_type": "longrope",
    "rope_theta": 10000.0,
    "short_factor": [1.0] * 4,
    "long_factor": [1.0] * 4,
    "original_max_position_embeddings": 64,
    **MSCALE,
}


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"rope_parameters": "x"}, ("'rope_parameters'", "'x'")),
        ({"rope_parameters": {"rope_type": "proportional", "rope_theta": 1e4, **MSCALE}}, ("'rope_parameters'", "'proportional'")),
        # su: PhimoeConfig does not read it as longrope (ROPE_INIT_FUNCTIONS has no su: KeyError)
        ({"rope_parameters": {**LONGROPE, "rope_type": "su"}}, ("'rope_parameters'", "'su'")),
        ({"rope_scaling": {**{k: v for k, v in LONGROPE.items() if k != "rope_type"}, "type": "su"}}, ("'rope_scaling'", "'su'")),
        # a scaled RoPE without its mscales: validate_rope raises TypeError
        ({"rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1e4, "short_mscale": 1.0}}, ("'rope_parameters'", "long_mscale", "None")),
        ({"rope_parameters": {**LONGROPE, "short_mscale": "x"}}, ("'rope_parameters'", "short_mscale", "'x'")),
        # linear without original_max_position_embeddings: the rotary embedding's forward reads it (KeyError)
        ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4, **MSCALE}}, ("'rope_parameters'", "original_max_position_embeddings")),
        # a scaled RoPE turning part of a head the attention rotates whole: the forward's shapes fail
        ({"rope_parameters": {**LONGROPE, "partial_rotary_factor": 0.5, "short_factor": [1.0] * 2, "long_factor": [1.0] * 2}}, ("'rope_parameters'", "0.5")),
        ({"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1e4, "original_max_position_embeddings": 64, **MSCALE}}, ("'partial_rotary_factor'", "0.5")),
        # LongRoPE's factors of another length than ⌈d/2⌉: the frequencies' product fails
        ({"rope_parameters": {**LONGROPE, "short_factor": [1.0] * 3}}, ("'rope_parameters'", "short_factor", "4")),
        # one expert: sparsemixer's second pick masks every score (the logits are NaN)
        ({"num_local_experts": 1}, ("'num_local_experts'", "1")),
        ({"head_dim": None}, ("'head_dim'",)),
    ],
    ids=["rope-not-an-object", "rope-proportional", "su", "su-legacy", "yarn-without-long-mscale",
         "mscale-a-string", "linear-without-original-context", "longrope-half-turned", "yarn-half-turned",
         "longrope-short-3", "one-expert", "head-dim-null"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("phimoe", {**SMALL, "max_position_embeddings": 256, **config}, *names)


@pytest.mark.parametrize(
    "config",
    [
        {"rope_parameters": LONGROPE},
        {"rope_scaling": LONGROPE},  # the legacy spelling, read first
        {"rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1e4, **MSCALE}},
        {"rope_parameters": {"rope_type": "llama3", "factor": 2.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "rope_theta": 1e4, **MSCALE}},
        {"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4,
                             "original_max_position_embeddings": 64, **MSCALE}},
        {"sliding_window": 10, "layer_types": ["sliding_attention", "sliding_attention"]},
        {"sliding_window": 10, "layer_types": ["sliding_attention", "full_attention"]},
    ],
    ids=["longrope", "longrope-legacy", "yarn", "llama3", "linear", "all-sliding", "mixed"],
)  # fmt: skip
def test_edge_values_transformers_builds(config: dict) -> None:
    hf_live.check_family("phimoe", {**SMALL, "max_position_embeddings": 256, **config}, builds=True)


def _experts_a_token(config: dict) -> int:
    """How many experts each token of a forward (eager, 5 tokens) is sent to, read off every router's output."""
    import torch

    model = hf_cache.tiny("phimoe", copy.deepcopy(config))
    seen: set[int] = set()
    for name, module in model.named_modules():
        if name.endswith("mlp.router"):
            module.register_forward_hook(lambda _m, _args, out: seen.add(out[2].shape[-1]))
    with torch.no_grad():
        model(torch.arange(5)[None], use_cache=True)
    assert len(seen) == 1, seen
    return seen.pop()


@pytest.mark.parametrize("k", [0, 1, 3])
def test_num_experts_per_tok_other_than_two_routes_to_two(k: int) -> None:
    """transformers builds any ``num_experts_per_tok`` and ``sparsemixer`` sends each token to two experts
    whatever it says (once refused): derive answers the model, its active count at the experts a forward uses."""
    config = {**SMALL, "num_experts_per_tok": k}
    used = _experts_a_token(config)
    assert used == 2
    model = hf_live.build("phimoe", copy.deepcopy(config))
    report = derive.explain({"model_type": "phimoe", **copy.deepcopy(config)})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)
    assert report.total == hf_live.total(model)
    expected = sum(
        p.numel() // p.shape[0] * used if ".experts." in name else p.numel() for name, p in model.named_parameters()
    )
    assert report.module is not None and active(report.module) == expected
