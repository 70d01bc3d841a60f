"""Gemma 3 (``gemma3``, the multimodal model) where its registry data cannot say it: the configs derive refuses,
each naming the key and failing in transformers 5.23.0 too (``Gemma3Config`` refuses it, or the model's
constructor fails).
"""

from __future__ import annotations

import copy

import hf_cache
import pytest

from derive.families.family import tiny

SMALL = tiny("gemma3")[0]  # a 3-layer text model, a 2-layer SigLIP tower of width 16 (2 heads), 4 image tokens


def _vision(**keys: object) -> dict:
    return {"vision_config": {**SMALL["vision_config"], **keys}}


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"vision_config": [1]}, ("'vision_config'", "[1]")),
        ({"text_config": "x"}, ("'text_config'", "'x'")),
        # SiglipAttention: the heads divide the width
        (_vision(num_attention_heads=3), ("'num_attention_heads'", "3", "16")),
        # the projector pools patches // int(tokens ** 0.5): 0 tokens divide by zero; the class types it int
        ({"mm_tokens_per_image": 0}, ("'mm_tokens_per_image'", "0")),
        ({"mm_tokens_per_image": True}, ("'mm_tokens_per_image'", "True")),
        ({"mm_tokens_per_image": 2.0}, ("'mm_tokens_per_image'", "2.0")),
    ],
    ids=["vision-not-an-object", "text-not-an-object", "vision-heads-not-dividing", "no-image-tokens",
         "image-tokens-a-bool", "image-tokens-a-float"],
)  # fmt: skip
def test_refused_naming_the_key_where_transformers_fails(config: dict, names: tuple[str, ...]) -> None:
    hf_cache.check_refused("gemma3", {**copy.deepcopy(SMALL), **config}, *names)
