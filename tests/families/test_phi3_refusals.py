"""Phi-3 (``phi3``) where its registry data cannot say it: the configs derive refuses, each naming the key and
failing in transformers 5.23.0 too (its ``Phi3Config.validate_rope`` refuses it, or the model fails its first
forward), and the layer patterns transformers builds, held against its meta-device build.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest

from derive.families.family import tiny

SMALL = tiny("phi3")[0]  # D 32, 4 heads of 8, 2 key/value heads, 2 layers
LONGROPE = {
    "rope_type": "longrope",
    "rope_theta": 10000.0,
    "short_factor": [1.0] * 4,
    "long_factor": [1.0] * 4,
    "original_max_position_embeddings": 64,
}


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"rope_parameters": [1, 2]}, ("'rope_parameters'", "[1, 2]")),
        # validate_rope: only default and longrope (su and yarn read as longrope)
        ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4}}, ("'rope_parameters'", "'linear'")),
        ({"rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 1e4}}, ("'rope_parameters'", "'dynamic'")),
        # a factor past 1 turns more than the head (the forward's shapes fail); below 0, arange fails
        ({"partial_rotary_factor": 1.5}, ("'partial_rotary_factor'", "1.5")),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": -0.5}}, ("'rope_parameters'", "-0.5")),
        ({"partial_rotary_factor": "x"}, ("'partial_rotary_factor'", "'x'")),
        # an odd head rotated whole: validate_rope refuses it
        ({"head_dim": 7}, ("'head_dim'", "7")),
        # LongRoPE's factors: a list each, of half the rotated width (and of hidden_size // heads, validate_rope)
        ({"rope_parameters": {**LONGROPE, "short_factor": [1.0] * 3}, "max_position_embeddings": 256}, ("'rope_parameters'", "short_factor", "3")),
        ({"rope_parameters": {**LONGROPE, "long_factor": None}, "max_position_embeddings": 256}, ("'rope_parameters'", "long_factor", "None")),
        ({"head_dim": 12, "rope_parameters": LONGROPE, "max_position_embeddings": 256}, ("'rope_parameters'", "short_factor", "12")),
        ({"head_dim": 12, "rope_parameters": {**LONGROPE, "short_factor": [1.0] * 6, "long_factor": [1.0] * 6},
          "max_position_embeddings": 256}, ("'rope_parameters'", "validate_rope 4")),
        ({"head_dim": None}, ("'head_dim'",)),
    ],
    ids=["rope-not-an-object", "rope-linear", "rope-dynamic", "factor-past-1", "factor-negative", "factor-a-string",
         "odd-head-whole", "longrope-short-3", "longrope-long-null", "longrope-head-12-with-4",
         "longrope-head-12-with-6", "head-dim-null"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("phi3", {**SMALL, **config}, *names)


@pytest.mark.parametrize(
    "config",
    [
        # every layer sliding, every layer full, one of each (layer_types given beside the window)
        {"sliding_window": 10, "layer_types": ["sliding_attention", "sliding_attention"]},
        {"sliding_window": 10, "layer_types": ["full_attention", "full_attention"]},
        {"sliding_window": 10, "layer_types": ["sliding_attention", "full_attention"]},
        # LongRoPE, and its legacy spelling su in rope_scaling (the class reads it as longrope)
        {"rope_parameters": LONGROPE, "max_position_embeddings": 256},
        {"rope_scaling": {**LONGROPE, "rope_type": "su"}, "max_position_embeddings": 256},
        # an odd head turned in part: validate_rope allows it (int(7 · 0.5) = 3 entries turned)
        {"head_dim": 7, "partial_rotary_factor": 0.5},
    ],
    ids=["all-sliding", "all-full", "mixed", "longrope", "su", "odd-head-half"],
)
def test_edge_values_transformers_builds(config: dict) -> None:
    hf_live.check_family("phi3", {**SMALL, **config}, builds=True)
