"""DeepSeek-V4 (``model_type`` ``deepseek_v4``) held against transformers 5.23.0: what its tiny configs in the
registry cannot show. Those keep every compressor's window open (the registry's runs are shorter than its
compression rates and sliding window, so the bytes a token adds are one number); here the tiny models run past
their windows: the cache after windows close (the compressed entries, the open window's buffers, CSA's overlap)
by dtype, a decode step's FLOPs as compressed entries accrue, the cache's closed form in ⌊T / m⌋ and T mod m;
DeepseekV4Config() (DeepSeek-V4-Flash's shape) beside its published size; drawn configs; refusals. Expected values
are read off transformers' models.
"""

from __future__ import annotations

import copy

import cache_live
import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import named_buffers

#: Windows that close within a few tokens: CSA every 4, HCA every 8, a sliding window of 6.
SHORT = {"vocab_size": 64, "hidden_size": 16, "moe_intermediate_size": 8, "num_hidden_layers": 4,
         "num_attention_heads": 2, "head_dim": 16, "q_lora_rank": 8, "num_experts_per_tok": 2, "n_routed_experts": 4,
         "hc_mult": 2, "sliding_window": 6, "o_groups": 2, "o_lora_rank": 4, "index_n_heads": 2, "index_head_dim": 8,
         "index_topk": 2, "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
         "layer_types": ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                         "compressed_sparse_attention"],
         "mlp_layer_types": ["hash_moe", "moe", "moe", "moe"]}  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("batch", "prefill", "steps"), [(1, 3, 0), (2, 5, 2), (1, 9, 3), (2, 2, 15), (1, 17, 0)])
def test_cache_past_the_windows(dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Bytes by dtype after windows close (sliding keys and values, HCA's one key-value tensor, the compressors'
    buffers, emitted entries and CSA's overlap, the indexer's own), against the tiny model's cache."""
    hf_cache.check_cache("deepseek_v4", copy.deepcopy(SHORT), dtype, batch, prefill, steps, split=False)


def test_decode_flops_as_compressed_entries_accrue() -> None:
    """A decode step's matmul FLOPs at lengths before and after CSA's and HCA's windows close."""
    hf_cache.check_decode("deepseek_v4", copy.deepcopy(SHORT), runs=((1, 1), (2, 5), (1, 8), (1, 11), (2, 17)))


def test_cache_closed_form_holds_floor_and_mod() -> None:
    """The cache's closed form (in T, the batch and the config's letters, ⌊T / m⌋ and T mod m) gives back the bytes
    derive derives, which are the model's (above), at lengths on and off a window's edge."""
    import sympy

    for tokens in (4095, 4096, 4101):
        hf_cache.check_closed_cache("deepseek_v4", copy.deepcopy(SHORT), tokens=tokens)
    forms, _ = cost({"model_type": "deepseek_v4", **SHORT}, 64, 1, "bfloat16").closed_forms()
    expr = sympy.sympify(forms["cache_bytes"])
    assert expr.has(sympy.floor) and expr.has(sympy.Mod)


def test_bytes_a_token_adds_while_windows_are_open() -> None:
    """Below every window the cache grows by one number per token (the registry's check): sliding keys and values,
    HCA/CSA keys once, and each open window's kv and gate rows."""
    config = {**SHORT, "sliding_window": 40,
              "compress_rates": {"compressed_sparse_attention": 20, "heavily_compressed_attention": 24}}  # fmt: skip
    built = cache_live.model("deepseek_v4", config, "float32")
    grown = sum(cache_live.cache_bytes(built, 1, 6, 1).values()) - sum(cache_live.cache_bytes(built, 1, 6).values())
    assert cost({"model_type": "deepseek_v4", **config}, 7, 1).kv_bytes_per_token == grown


def test_defaults_are_deepseek_v4_flash() -> None:
    """DeepseekV4Config() builds DeepSeek-V4-Flash's shape: 284,325,869,015 parameters, 13,793,261,015 a token
    (the card's 284B total, 13B activated), every tensor and buffer as transformers builds them, the hash layers'
    int64 ``tid2eid``; the release's MTP layer is not built and says so."""
    live = hf_live.check_family("deepseek_v4", {}, builds=True)
    report = derive.explain({"model_type": "deepseek_v4"})
    assert (report.total, report.active) == (284_325_869_015, 13_793_261_015)
    assert abs(report.total - 284e9) / 284e9 < 0.01 and abs(report.active - 13e9) / 13e9 < 0.07
    dtypes = {n: str(b.dtype).removeprefix("torch.") for n, b in live.named_buffers()}
    derived = {n: p.dtype for n, p in named_buffers(report.module)}
    assert {n for n, d in dtypes.items() if d == "int64"} == {n for n, d in derived.items() if d == "int64"}
    assert any(n.endswith("tid2eid") for n, d in derived.items() if d == "int64")
    assert any("multi-token-prediction" in n for n in report.notes)


@pytest.mark.parametrize(
    "config",
    [
        {**SHORT, "layer_types": [*SHORT["layer_types"], "sliding_attention"]},  # truncated by __post_init__
        {**SHORT, "layer_types": None, "compress_ratios": [0, 4, 128, 4]},
        {**SHORT, "mlp_layer_types": None, "num_hash_layers": 0},
        {**SHORT, "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}},
        {**SHORT, "qk_rope_head_dim": 8},  # legacy: partial_rotary_factor 8 / 16
    ],
    ids=["longer-pattern", "legacy-ratios", "no-hash-layers", "yarn", "legacy-rope-dim"],
)
def test_configs_transformers_builds(config: dict) -> None:
    hf_live.check_family("deepseek_v4", copy.deepcopy(config), builds=True)


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({**SHORT, "layer_types": ["full_attention"] * 4}, "layer_types"),
        ({**SHORT, "layer_types": SHORT["layer_types"][:3]}, "layer_types"),
        ({**SHORT, "layer_types": None, "compress_ratios": [0, 4, 5, 4]}, "compress_ratios"),
        ({**SHORT, "mlp_layer_types": ["dense"] * 4}, "mlp_layer_types"),
        ({**SHORT, "compress_rates": {"compressed_sparse_attention": 4}}, "compress_rates"),
    ],
    ids=["unknown-type", "short-pattern", "unknown-ratio", "unknown-mlp", "missing-rate"],
)
def test_refused_where_transformers_refuses(config: dict, key: str) -> None:
    assert hf_live.check_family("deepseek_v4", copy.deepcopy(config)) is None
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": "deepseek_v4", **config})


@st.composite
def configs(draw: st.DrawFn) -> dict:
    layers = draw(st.integers(1, 4))
    experts = draw(st.integers(1, 4))
    heads = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([g for g in (1, 2, 3) if heads % g == 0]))
    return {
        "vocab_size": draw(st.integers(8, 48)),
        "hidden_size": draw(st.integers(2, 16)),
        "moe_intermediate_size": draw(st.integers(1, 8)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "head_dim": draw(st.sampled_from([8, 16])),
        "q_lora_rank": draw(st.integers(1, 8)),
        "n_routed_experts": experts,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "hc_mult": draw(st.integers(1, 3)),
        "sliding_window": draw(st.integers(2, 16)),
        "o_groups": groups,
        "o_lora_rank": draw(st.integers(1, 6)),
        "index_n_heads": draw(st.integers(1, 3)),
        "index_head_dim": draw(st.sampled_from([4, 8])),
        "tie_word_embeddings": draw(st.booleans()),
        "mlp_bias": draw(st.booleans()),
        "compress_rates": {
            "compressed_sparse_attention": draw(st.integers(1, 6)),
            "heavily_compressed_attention": draw(st.integers(1, 9)),
        },  # fmt: skip
        "layer_types": draw(
            st.lists(
                st.sampled_from(["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]),
                min_size=layers,
                max_size=layers,
            )
        ),  # fmt: skip
        "mlp_layer_types": draw(st.lists(st.sampled_from(["hash_moe", "moe"]), min_size=layers, max_size=layers)),
    }


@settings(max_examples=25, deadline=None)
@given(config=configs())
def test_drawn_configs(config: dict) -> None:
    """Every tensor name and shape, buffer, total and active count of drawn configs (patterns, rates, groups,
    streams, tied heads)."""
    hf_live.check_family("deepseek_v4", config, builds=True)


def test_the_module_tree_keeps_the_compressors_share_of_the_cache() -> None:
    """The cache's states sit on the modules that keep them: a CSA layer's attention, compressor and indexer."""
    model = config_model("deepseek_v4").build(copy.deepcopy(SHORT))
    layer = model.child("model").child("layers").children[1]
    attention = layer.child("self_attn")
    compressor = attention.child("compressor")
    assert [s.name for s in attention.cache] == ["keys", "_sliding_window_tensor"]
    assert {s.name.split(".")[0] for s in compressor.cache} == {"buffer_kv", "buffer_gate", "compressed_kv",
                                                               "overlap_kv", "overlap_gate"}  # fmt: skip
    assert compressor.child("indexer").cache
