"""The hybrid families' cases that are data alone, each kind one test over a table across the families:
whole configs (the config classes' defaults and released shapes) held against transformers 5.23.0's
meta-device build, with the totals its build gives and the published sizes; and the configs derive refuses,
naming the key. A family's drawn configs, caches, FLOPs and its own cases are in its file
(``test_<model_type>.py``); the checks they all run are ``hf_live.check_family`` and ``hf_cache``'s.
Expected values are read off the real models (or the published figures), never off derive.
"""

from __future__ import annotations

from collections import Counter

import hf_live
import pytest

from derive.blocks import config_model

#: LFM2-1.2B's shape (width 2048, 16 layers, attention at 2, 5, 8, 10, 12, 14; published as "1.2B").
LFM2_1_2B = {"hidden_size": 2048, "intermediate_size": 12288, "num_hidden_layers": 16, "num_key_value_heads": 8,
             "full_attn_idxs": [2, 5, 8, 10, 12, 14]}  # fmt: skip
#: A Kimi-Linear checkpoint's ``linear_attn_config`` (1-indexed layers, sizes overriding the ``linear_*`` keys).
KIMI_LINEAR_ATTN = {
    "head_dim": 3,
    "num_heads": 2,
    "short_conv_kernel_size": 2,
    "full_attn_layers": [2],
    "kda_layers": [1, 3],
}

#: Whole configs, checked by ``hf_live.check_family`` (every tensor, buffer, the total, the active count, the
#: class; transformers must build them), with what is known of them: the total (and active count)
#: transformers' build gives, read off it once and pinned; the published size (total, and active where
#: published) derive's total is within ``within`` of.
WHOLE = [
    # FalconH1Config(), and its mixer at mamba_expand · D
    pytest.param("falcon_h1", {}, {}, id="falcon_h1-defaults"),
    pytest.param("falcon_h1", {"mamba_d_ssm": None, "num_hidden_layers": 2}, {}, id="falcon_h1-d_ssm-from-expand"),
    pytest.param("minimax", {}, {"total": 47_373_946_880}, id="minimax-defaults"),
    pytest.param("olmo_hybrid", {}, {"total": 7_430_870_688}, id="olmo_hybrid-defaults"),
    # Qwen3NextConfig(): the 80B-A3B shape (48 layers, 512 experts, 10 routed + 1 shared)
    pytest.param("qwen3_next", {}, {"total": 79_674_391_296}, id="qwen3_next-80b-a3b"),
    # the config classes' defaults: Qwen3.5-9B's and Qwen3.5-35B-A3B's text shapes
    pytest.param("qwen3_5_text", {}, {}, id="qwen3_5_text-defaults"),
    pytest.param("qwen3_5_moe_text", {}, {}, id="qwen3_5_moe_text-defaults"),
    pytest.param("kimi_linear", {}, {"total": 49_133_074_464}, id="kimi_linear-defaults"),
    pytest.param(
        "kimi_linear",
        {
            "pad_token_id": 0,
            "vocab_size": 50,
            "hidden_size": 16,
            "num_hidden_layers": 3,
            "linear_attn_config": KIMI_LINEAR_ATTN,
        },
        {},
        id="kimi_linear-checkpoint-keys",
    ),
    # BailingHybridConfig(): 42 layers, 7 MLA, 512 experts of which 8 per token
    pytest.param(
        "bailing_hybrid", {}, {"total": 124_414_191_072, "active": 5_505_672_672}, id="bailing_hybrid-defaults"
    ),
    # Lfm3Config(): LFM3-1.7B's shape (24 layers: 6 full, 5 sliding, 13 convolutions), published "1.7B"
    pytest.param("lfm3", {}, {"published": 1.7e9, "within": 0.03}, id="lfm3-1.7b"),
    pytest.param("lfm2", LFM2_1_2B, {}, id="lfm2-1.2b"),
    pytest.param(
        "lfm2",
        {**LFM2_1_2B, "tie_embedding": True, "block_dim": 2048, "num_heads": 32, "block_use_swiglu": True},
        {},
        id="lfm2-1.2b-checkpoint-keys",
    ),
    # Lfm2MoeConfig() with 24 layers, attention every third (LFM2-8B-A1B's shape; published 8.3B / 1.5B)
    pytest.param(
        "lfm2_moe",
        {"layer_types": ["conv", "conv", "full_attention"] * 8, "num_hidden_layers": 24},
        {},
        id="lfm2_moe-8b-a1b",
    ),
    # ZambaConfig(): Zamba-7B v1 (76 layers, 13 hybrid), published "7B"; untied, each hybrid layer holds its own block
    pytest.param("zamba", {}, {"published": 7e9, "within": 0.04}, id="zamba-7b"),
    pytest.param("zamba", {"tie_word_embeddings": False}, {}, id="zamba-7b-untied"),
]


@pytest.mark.parametrize(("model_type", "config", "known"), WHOLE)
def test_whole_config(model_type: str, config: dict, known: dict) -> None:
    """The config against transformers' build on the meta device; its pinned counts and published size."""
    model = hf_live.check_family(model_type, config, builds=True)
    if "total" in known:
        assert hf_live.total(model) == known["total"]
    if "active" in known:
        assert hf_live.active(model) == known["active"]
    if "published" in known:  # derive's total, equal to the build's (checked above), against the published figure
        assert abs(hf_live.total(model) - known["published"]) / known["published"] < known["within"]


#: Per family, configs derive refuses and the word its message names: keys it cannot map, patterns and values
#: transformers refuses or would not build, aliases that disagree.
REFUSED: dict[str, list[tuple[dict, str]]] = {
    # Keys derive cannot map and values transformers refuses, naming the key.
    "bamba": [
        ({"mamba_n_heads": 3}, "mamba_n_heads"),
        ({"mamba_d_head": 32}, "mamba_d_head"),
        ({"mamba_expand": 1.5}, "mamba_expand"),
        ({"attn_layer_indices": "9,18"}, "attn_layer_indices"),
        ({"head_dim": None}, "head_dim"),
        ({"head_dim": 7, "rope_parameters": {"partial_rotary_factor": 1.0}}, "head_dim"),
        ({"layer_types": ["mamba"] * 32}, "layer_types"),
        ({"rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
        ({"rope_scaling": {"type": "linear", "factor": 2.0}}, "rope_scaling"),
    ],
    # Keys derive cannot map and values transformers refuses, naming the key.
    "falcon_h1": [
        ({"mamba_n_heads": 3}, "mamba_n_heads"),
        ({"mamba_d_head": 32}, "mamba_d_head"),
        ({"mlp_multipliers": [1.0]}, "mlp_multipliers"),
        ({"ssm_multipliers": [1.0] * 4}, "ssm_multipliers"),
        ({"head_dim": None}, "head_dim"),
        ({"head_dim": 5}, "head_dim"),
        ({"layer_types": ["hybrid"] * 32}, "layer_types"),
        ({"rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
    ],
    # Patterns and keys derive cannot map and values transformers refuses, naming the key.
    "granitemoehybrid": [
        ({"num_hidden_layers": 2, "layer_types": ["mamba"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["mamba"], "layers_block_type": ["attention"]}, "layers_block_type"),
        ({"mamba_n_heads": 3}, "mamba_n_heads"),
        ({"mamba_d_head": 32}, "mamba_d_head"),
        ({"num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({"position_embedding_type": "rope", "rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
        ({"head_dim": 5}, "head_dim"),
    ],
    # Aliases that disagree, patterns transformers would not build, keys derive cannot map.
    "kimi_linear": [
        ({"num_local_experts": 4, "num_experts": 8}, "num_local_experts"),
        ({"num_experts": 2, "num_experts_per_token": 3}, "num_experts_per_token"),
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "mlp_layer_types": ["moe"]}, "mlp_layer_types"),
        ({"vocab_size": 100}, "pad_token_id"),
    ],
    # Keys derive cannot map, and patterns transformers would not build, refused naming the key.
    "lfm2": [
        ({"block_dim": 1024}, "block_dim"),
        ({"block_use_swiglu": False}, "block_use_swiglu"),
        ({"layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 2, "layer_types": ["conv", "mamba"]}, "layer_types"),
        ({"full_attn_idxs": "all"}, "full_attn_idxs"),
        ({"block_ffn_dim_multiplier": None}, "block_ffn_dim_multiplier"),
    ],
    # No layer pattern (transformers fails), keys derive cannot map: refused naming the key.
    "lfm2_moe": [
        ({}, "layer_types"),
        ({"num_hidden_layers": 2, "layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["mamba"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["conv"], "num_experts": 2, "num_experts_per_tok": 3}, "num_experts"),
    ],
    # Patterns transformers would not run, RoPE parameters it cannot read, keys derive cannot map.
    "lfm3": [
        ({"num_hidden_layers": 2, "layer_types": ["conv"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["chunked_attention"]}, "layer_types"),
        ({"sliding_window": None}, "sliding_window"),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}, "rope_parameters"),
        (
            {
                "rope_parameters": {
                    "full_attention": {"rope_type": "longrope"},
                    "sliding_attention": {
                        "rope_type": "linear",
                        "rope_theta": 1e4,
                        "factor": 2.0,
                        "partial_rotary_factor": 0.5,
                    },
                }
            },
            "rope_parameters",
        ),
        ({"head_dim": 7}, "head_dim"),
    ],
    # Keys derive cannot map and patterns transformers would not build, refused naming the key.
    "minimax": [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
    ],
    # Patterns transformers cannot build and keys derive cannot map, naming the key.
    "nemotron_h": [
        ({"hybrid_override_pattern": "MX"}, "hybrid_override_pattern"),
        ({"hybrid_override_pattern": None}, "hybrid_override_pattern"),
        ({"layers_block_type": ["mamba", "conv"]}, "layers_block_type"),
        ({"layer_types": "M*"}, "layer_types"),
        ({"n_routed_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
    ],
    # Patterns transformers refuses, and keys derive cannot map, refused naming the key.
    "olmo_hybrid": [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention", "linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["full_attention"]}, "layer_types"),
        ({"vocab_size": 100}, "pad_token_id"),
        ({"rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1.0}}, "rope_parameters"),
    ],
    # Keys derive cannot map, and patterns it does not derive, refused naming the key.
    "qwen3_next": [
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}, "layer_types"),
        ({"num_experts": 4, "num_experts_per_tok": 5}, "num_experts_per_tok"),
        ({"rope_parameters": {"rope_type": "yarn", "factor": 2.0}}, "rope_parameters"),
        ({"partial_rotary_factor": "quarter"}, "partial_rotary_factor"),
        ({"mlp_only_layers": "none"}, "mlp_only_layers"),
    ],
    # A key derive cannot map, or sizes the blocks would not fit, refused naming the key.
    "xlstm": [
        ({"embedding_dim": 32, "hidden_size": 64}, "embedding_dim"),
        ({"num_blocks": 3}, "num_blocks"),
        ({"weight_mode": "split"}, "weight_mode"),
        ({"qk_dim_factor": "half"}, "qk_dim_factor"),
    ],
    # Patterns and keys derive cannot map, aliases that disagree, configs transformers refuses.
    "zamba": [
        ({"num_hidden_layers": 2, "layers_block_type": ["hybrid"]}, "layers_block_type"),
        ({"num_hidden_layers": 1, "layers_block_type": ["attention"]}, "layers_block_type"),
        ({"num_hidden_layers": 2}, "num_hidden_layers"),
        ({"num_hidden_layers": 3}, "tie_word_embeddings"),
        ({"n_mamba_heads": 3}, "n_mamba_heads"),
        ({"head_dim": 3, "attention_head_dim": 5}, "head_dim"),
        ({"mamba_expand": 1.5}, "mamba_expand"),
        ({"attn_layer_period": "6"}, "attn_layer_period"),
    ],
    # Patterns and keys derive cannot map, saved derived keys that disagree, values transformers refuses.
    "zamba2": [
        ({"num_hidden_layers": 2, "layers_block_type": ["hybrid"]}, "layers_block_type"),
        ({"num_hidden_layers": 1, "layers_block_type": ["attention"]}, "layers_block_type"),
        ({"num_hidden_layers": 4}, "layers_block_type"),
        ({"n_mamba_heads": 3}, "n_mamba_heads"),
        ({"attention_hidden_size": 1024}, "attention_hidden_size"),
        ({"hybrid_layer_ids": [0]}, "hybrid_layer_ids"),
        ({"head_dim": 165}, "head_dim"),
    ],
    # Aliases that disagree, patterns transformers would not build, keys derive cannot map.
    "bailing_hybrid": [
        ({"num_local_experts": 4, "num_experts": 8}, "num_local_experts"),
        ({"num_experts": 2, "num_experts_per_token": 3}, "num_experts_per_token"),
        ({"num_hidden_layers": 2, "layer_types": ["linear_attention"]}, "layer_types"),
        ({"num_hidden_layers": 1, "mlp_layer_types": ["moe"]}, "mlp_layer_types"),
        ({"layer_group_size": 2.5}, "layer_group_size"),
        ({"vocab_size": 100}, "pad_token_id"),
        ({"rope_parameters": {"rope_type": "longrope", "rope_theta": 1e4}}, "rope_parameters"),
    ],
}


def _refused_cases() -> list:
    """REFUSED's rows as cases, named by family and word (numbered from the second where a family names a word again)."""
    cases, named = [], Counter()
    for model_type, rows in REFUSED.items():
        for config, words in rows:
            named[model_type, words] += 1
            again = f"-{named[model_type, words]}" if named[model_type, words] > 1 else ""
            cases.append(pytest.param(model_type, config, words, id=f"{model_type}-{words}{again}"))
    return cases


@pytest.mark.parametrize(("model_type", "config", "words"), _refused_cases())
def test_refused(model_type: str, config: dict, words: str) -> None:
    """derive refuses the config with a ``ValueError`` naming the key."""
    with pytest.raises(ValueError, match=words):
        config_model(model_type).build(config)
