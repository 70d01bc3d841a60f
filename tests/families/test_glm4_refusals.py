"""GLM-4 (``glm4``) and GLM-4-MoE (``glm4_moe``) where their registry data cannot say it: the configs derive refuses, each naming the key and
failing in transformers 5.23.0 too (``Glm4Config`` refuses it, or the model fails its first forward), and the
RoPEs and layer patterns transformers builds, held against its meta-device build.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest

from derive.families.family import tiny

SMALL = tiny("glm4")[0]  # D 32, 4 heads of 8 (half turned: 4), 2 key/value heads, 2 layers
LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0] * 2, "long_factor": [1.0] * 2}


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"rope_parameters": 3}, ("'rope_parameters'", "3")),
        ({"rope_parameters": {"rope_type": "bogus", "rope_theta": 1e4}}, ("'rope_parameters'", "'bogus'")),
        # past 1 the frequencies are wider than the head (the forward's shapes fail); below 0, arange fails
        ({"partial_rotary_factor": 1.5}, ("'partial_rotary_factor'", "1.5")),
        ({"partial_rotary_factor": -0.5}, ("'partial_rotary_factor'", "-0.5")),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": "x"}}, ("'rope_parameters'", "'x'")),
        ({"rope_parameters": {"rope_type": "proportional", "rope_theta": 1e4, "partial_rotary_factor": 1.5}}, ("'rope_parameters'", "1.5")),
        # an odd head rotated whole: validate_rope refuses it
        ({"head_dim": 7, "partial_rotary_factor": 1.0}, ("'head_dim'", "7")),
        # LongRoPE's factors: one a frequency (⌈4 / 2⌉ = 2), or the product fails; a null one fails at the forward
        ({"rope_parameters": {**LONGROPE, "short_factor": [1.0] * 3}}, ("'rope_parameters'", "short_factor", "2")),
        ({"rope_parameters": {**LONGROPE, "long_factor": None}}, ("'rope_parameters'", "long_factor", "None")),
        # typed int by the @strict class
        ({"head_dim": None}, ("'head_dim'",)),
        ({"num_key_value_heads": None}, ("'num_key_value_heads'",)),
    ],
    ids=["rope-not-an-object", "rope-unknown", "factor-past-1", "factor-negative", "factor-a-string",
         "proportional-past-1", "odd-head-whole", "longrope-short-3", "longrope-long-null", "head-dim-null",
         "kv-heads-null"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("glm4", {**SMALL, **config}, *names)


@pytest.mark.parametrize(
    "config",
    [
        {"sliding_window": 10, "layer_types": ["sliding_attention", "sliding_attention"]},
        {"sliding_window": 10, "layer_types": ["sliding_attention", "full_attention"]},
        # an odd head turned in part: validate_rope allows it (int(7 · 0.5) = 3 entries turned)
        {"head_dim": 7},
        # the legacy spelling, read before rope_parameters, its factor before the top-level one
        {"rope_scaling": {"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": 1.0},
         "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}, "partial_rotary_factor": 0.25},
        {"rope_parameters": {**LONGROPE, "partial_rotary_factor": 1.0, "short_factor": [1.0] * 4,
                             "long_factor": [1.0] * 4}},
    ],
    ids=["all-sliding", "mixed", "odd-head-half", "rope-scaling-first", "longrope-whole"],
)  # fmt: skip
def test_edge_values_transformers_builds(config: dict) -> None:
    hf_live.check_family("glm4", {**SMALL, **config}, builds=True)


MOE = tiny("glm4_moe")[0]  # GLM-4-MoE: 3 layers (the first dense), 4 routed experts (top 2), one shared


@pytest.mark.parametrize(
    ("config", "names"),
    [
        # the router's groups: view(-1, n_group, E // n_group).topk(2), then topk(topk_group) of the groups
        ({"n_group": 0}, ("'n_group'", "0")),
        ({"n_group": 3}, ("'n_group'", "3", "4")),
        ({"n_group": 4}, ("'n_group'", "4")),  # groups of one: topk(2) of one
        ({"n_group": 2, "topk_group": 3}, ("'topk_group'", "3")),
        ({"topk_group": True}, ("'topk_group'", "True")),
        ({"first_k_dense_replace": 1.5}, ("'first_k_dense_replace'", "1.5")),
        ({"partial_rotary_factor": 1.5}, ("'partial_rotary_factor'", "1.5")),
    ],
    ids=["no-groups", "groups-not-dividing", "groups-of-one", "more-kept-than-groups", "kept-a-bool",
         "dense-layers-a-float", "factor-past-1"],
)  # fmt: skip
def test_moe_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("glm4_moe", {**MOE, **config}, *names)


@pytest.mark.parametrize(
    "config",
    [{"n_group": 2, "topk_group": 1}, {"first_k_dense_replace": 3}],
    ids=["two-groups", "every-layer-dense"],
)
def test_moe_edge_values_transformers_builds(config: dict) -> None:
    hf_live.check_family("glm4_moe", {**MOE, **config}, builds=True)
