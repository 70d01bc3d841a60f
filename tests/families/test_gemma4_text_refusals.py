"""Gemma 4's text model (``gemma4_text``) where its registry data cannot say it: the configs derive refuses, each
naming the key and failing in transformers 5.23.0 too (``Gemma4TextConfig`` or its ``per_layer_config`` refuses it,
or the model fails its first forward); the RoPEs, overrides and layer counts transformers builds, held against its
meta-device build; and a bidirectional model (``use_bidirectional_attention`` ``"all"``), whose window the class
halves, held against the cache transformers' model keeps past it and its decode FLOPs.
"""

from __future__ import annotations

import copy

import hf_cache
import hf_live
import pytest
import sympy

from derive.families.family import tiny

SMALL = tiny("gemma4_text")[0]  # 4 layers (two sharing), per-layer inputs, sliding heads of 8, full of 16
MOE = tiny("gemma4_text")[1]  # 3 layers, 4 experts (top 2), keys that are the values on the full layer
GIVEN = tiny("gemma4_text")[2]  # 3 layers, per_layer_config given (full layers 0 and 2 of 16), rope_parameters given
SLIDING = {"rope_type": "default", "rope_theta": 10000.0}


def _rope(full: object, sliding: object = SLIDING) -> dict:
    return {"rope_parameters": {"sliding_attention": sliding, "full_attention": full}}


@pytest.mark.parametrize(
    ("base", "config", "names"),
    [
        # per_layer_config: an object of layer indices in range, each an object of head_dim / num_key_value_heads
        (GIVEN, {"per_layer_config": [1]}, ("'per_layer_config'", "[1]")),
        (GIVEN, {"per_layer_config": {"x": {"head_dim": 16}}}, ("'per_layer_config'", "'x'")),
        (GIVEN, {"per_layer_config": {"5": {"head_dim": 16}}}, ("'per_layer_config'", "'5'")),
        (GIVEN, {"per_layer_config": {"0": 16}}, ("'per_layer_config'", "'0'")),
        (GIVEN, {"per_layer_config": {"0": {"head_dim": 16, "intermediate_size": 64}, "2": {"head_dim": 16}}},
         ("'per_layer_config'", "intermediate_size")),
        # layers of one type of different widths: its rotary embedding refuses them
        (GIVEN, {"per_layer_config": {"0": {"head_dim": 16}}}, ("'per_layer_config'", "full_attention")),
        # rope_parameters: an object, an object (or null) for each layer type there is
        (GIVEN, {"rope_parameters": [1]}, ("'rope_parameters'", "[1]")),
        (GIVEN, _rope({"rope_type": "default", "rope_theta": 1e6}, 3), ("'rope_parameters'", "sliding_attention")),
        (GIVEN, {"rope_parameters": {"sliding_attention": SLIDING}}, ("'rope_parameters'", "full_attention")),
        (GIVEN, _rope({"rope_type": "longrope", "rope_theta": 1e6, "short_factor": [1.0] * 8,
                       "long_factor": [1.0] * 8, "original_max_position_embeddings": 64}), ("'rope_parameters'", "'longrope'")),
        # a proportional factor past 1, a scaled type turning part of a head: the forward's shapes fail
        (GIVEN, _rope({"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 1.5}),
         ("'rope_parameters'", "full_attention")),
        (GIVEN, _rope({"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6, "partial_rotary_factor": 0.5}),
         ("'rope_parameters'", "0.5", "'linear'")),
        # the class's Literal
        (GIVEN, {"use_bidirectional_attention": "text"}, ("'use_bidirectional_attention'", "'text'")),
        # the layer count fixes the pattern; the sharing layers in [0, L) with an earlier layer of each type
        (SMALL, {"num_hidden_layers": sympy.Symbol("L", integer=True, positive=True), "layer_types": None},
         ("'num_hidden_layers'",)),
        (SMALL, {"num_kv_shared_layers": 4}, ("'num_kv_shared_layers'", "4")),
        (SMALL, {"num_kv_shared_layers": -1}, ("'num_kv_shared_layers'", "-1")),
        # the experts' sizes, and no more experts a token than there are (topk fails)
        (MOE, {"num_experts": None}, ("'num_experts'",)),
        (MOE, {"top_k_experts": 5}, ("'top_k_experts'", "5")),
        # typed int by the @strict class
        (SMALL, {"head_dim": None}, ("'head_dim'",)),
        (SMALL, {"sliding_window": None}, ("'sliding_window'",)),
    ],
    ids=["overrides-a-list", "override-not-an-index", "override-past-the-layers", "override-not-an-object",
         "override-of-the-mlp", "full-layers-differ", "rope-a-list", "rope-entry-an-int", "rope-without-full",
         "rope-longrope", "proportional-past-1", "linear-half-turned", "bidirectional-text", "layers-symbolic",
         "sharing-every-layer", "sharing-negative", "experts-null", "top-k-past-the-experts", "head-dim-null",
         "window-null"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(base: dict, config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("gemma4_text", {**copy.deepcopy(base), **config}, *names)


@pytest.mark.parametrize(
    ("base", "config"),
    [
        # a null entry: that layer type has no RoPE (no buffers)
        (GIVEN, _rope({"rope_type": "default", "rope_theta": 1e6}, None)),
        (GIVEN, _rope({"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.0})),
        (GIVEN, _rope({"rope_type": "yarn", "factor": 2.0, "rope_theta": 1e6, "original_max_position_embeddings": 64})),
        # an override of a sliding layer's key/value heads
        (GIVEN, {"per_layer_config": {"0": {"head_dim": 16}, "2": {"head_dim": 16}, "1": {"num_key_value_heads": 1}}}),
        # no layers: no pattern to force full
        (SMALL, {"num_hidden_layers": 0, "layer_types": [], "num_kv_shared_layers": 0}),
    ],
    ids=["nope-sliding", "proportional-none-turned", "yarn-full", "sliding-override", "no-layers"],
)  # fmt: skip
def test_edge_values_transformers_builds(base: dict, config: dict) -> None:
    hf_live.check_family("gemma4_text", {**copy.deepcopy(base), **config}, builds=True)


#: A bidirectional model: its window of 7 made 7 // 2 + 1 = 4 by the class (3 tokens kept), not 7 (6 kept).
BIDIRECTIONAL = {
    **{k: v for k, v in SMALL.items() if k not in ("num_kv_shared_layers", "layer_types", "use_double_wide_mlp")},
    "num_hidden_layers": 3,
    "sliding_window": 7,
    "layer_types": ["sliding_attention", "sliding_attention", "full_attention"],
    "use_bidirectional_attention": "all",
}


def test_a_bidirectional_model_keeps_the_halved_window() -> None:
    """``use_bidirectional_attention`` ``"all"`` (once refused): the meta build; its config.json as transformers
    writes it (``to_dict`` writes the window back doubled); the cache after more tokens than the halved window and
    fewer than the given one, by dtype; the next token's FLOPs."""
    config = copy.deepcopy(BIDIRECTIONAL)
    hf_live.check_family("gemma4_text", copy.deepcopy(config), builds=True)
    hf_live.check_saved_config("gemma4_text", copy.deepcopy(config))
    for dtype, batch, prefill, steps in (("float32", 1, 4, 1), ("bfloat16", 2, 3, 2)):
        hf_cache.check_cache("gemma4_text", copy.deepcopy(config), dtype, batch, prefill, steps, split=False)
    hf_cache.check_decode("gemma4_text", copy.deepcopy(config), runs=((1, 2), (2, 5)))
    hf_cache.check_closed_cache("gemma4_text", copy.deepcopy(config))
