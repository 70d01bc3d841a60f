"""SmolLM3 (``smollm3``) where its registry data cannot say it: the configs derive refuses, each naming the key and
failing in transformers 5.23.0 too (``SmolLM3Config`` refuses it, or its layers fail to build), and the RoPE
patterns transformers builds, held against its meta-device build.
"""

from __future__ import annotations

import hf_cache
import hf_live
import pytest
import sympy

from derive.families.family import tiny

SMALL = tiny("smollm3")[0]  # 4 layers, D 32, 4 heads, 2 key/value heads


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"no_rope_layers": "1111"}, ("'no_rope_layers'", "'1111'")),
        # indexed by layer: too short an IndexError
        ({"no_rope_layers": [1, 1]}, ("'no_rope_layers'", "2")),
        ({"no_rope_layer_interval": 0}, ("'no_rope_layer_interval'", "0")),
        ({"no_rope_layer_interval": 1.5}, ("'no_rope_layer_interval'", "1.5")),
        # a sliding window makes layer_types one a layer: the layer count must be a number
        ({"num_hidden_layers": sympy.Symbol("L", integer=True, positive=True), "use_sliding_window": True,
          "sliding_window": 8}, ("'num_hidden_layers'",)),
    ],
    ids=["flags-a-string", "flags-too-few", "interval-0", "interval-a-float", "layers-symbolic-sliding"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("smollm3", {**SMALL, **config}, *names)


@pytest.mark.parametrize(
    "config",
    [
        {"no_rope_layers": [1, 0, 1, 0, 1]},  # more flags than layers: the first L read
        {"no_rope_layer_interval": -2},  # (i + 1) % -2: Python's modulo, every other layer
        {"use_sliding_window": True, "sliding_window": 8},  # the layers without RoPE slide, the others are full
    ],
    ids=["flags-too-many", "interval-negative", "sliding"],
)
def test_edge_values_transformers_builds(config: dict) -> None:
    hf_live.check_family("smollm3", {**SMALL, **config}, builds=True)
