"""DeepSeek-V2, DeepSeek-V3 (R1, V3.1, and Kimi-K2 under its own ``kimi_k2``) and DeepSeek-V3.2 held against
transformers 5.23.0: what their data alone cannot say. Kimi-K2's file as released (a model type transformers does
not know), the multi-token-prediction layers against transformers' own ``MtpModel``, DeepSeek-V3's latent cache
against LMCache PR #715's bytes per token, the published sizes, drawn configs on the meta device, and the configs
transformers refuses or cannot run. Expected values are read off transformers' models, never derive's.
"""

from __future__ import annotations

import copy
from functools import partial

import hf_cache
import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.analysis.cost import cost
from derive.families.deepseek_v3 import mtp_model
from derive.families.family import released, tiny
from derive.tree import active, count, named_modules, named_parameters


def _release(name: str) -> dict:
    (found,) = [
        r for r in released("deepseek_v3") + released("deepseek_v2") + released("deepseek_v32") if r.name == name
    ]
    return copy.deepcopy(dict(found.config))


def _without_type(config: dict) -> dict:
    return {k: v for k, v in config.items() if k != "model_type"}


def test_kimi_k2_file_as_released_is_answered_as_deepseek_v3() -> None:
    """transformers refuses ``model_type: "kimi_k2"``; with the model type changed to deepseek_v3 (every other key as
    released) its DeepseekV3ForCausalLM builds the file, and derive answers the file as is with that model's every
    tensor and buffer, and says so."""
    import transformers

    config = _release("moonshotai/Kimi-K2-Instruct")
    assert config["model_type"] == "kimi_k2"
    with pytest.raises(ValueError, match="kimi_k2"):
        transformers.AutoConfig.for_model("kimi_k2", **_without_type(config))
    live = hf_live.build("deepseek_v3", _without_type(config))
    report = derive.explain(config)
    assert report.notes[0].startswith("kimi_k2 is a deepseek_v3 layout (auto_map remote code)")
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(live)
    assert [(b["name"], tuple(b["shape"])) for b in report.buffers] == hf_live.buffers(live)
    assert report.module.type == type(live).__name__ == "DeepseekV3ForCausalLM"
    assert (report.total, report.active) == (hf_live.total(live), hf_live.active(live))
    # Kimi-K2 ships no MTP layer (num_nextn_predict_layers 0): no note of one
    assert not any("multi-token" in n for n in report.notes)


@pytest.mark.parametrize(
    ("name", "total", "active_"),
    [
        ("deepseek-ai/DeepSeek-V3", 671e9, 37e9),  # model card: 671B total, 37B activated
        ("deepseek-ai/DeepSeek-R1", 671e9, 37e9),  # model card: 671B total, 37B activated
        ("moonshotai/Kimi-K2-Instruct", 1e12, 32e9),  # model card: 1T total, 32B activated
    ],
)
def test_published_sizes(name: str, total: float, active_: float) -> None:
    """Total and active against transformers' build; rounded, against the model card's figures."""
    config = _release(name)
    report = derive.explain(config)
    live = hf_live.build("deepseek_v3", _without_type(config))
    assert (report.total, report.active) == (hf_live.total(live), hf_live.active(live))
    assert abs(report.total - total) / total < 0.03
    assert abs(report.active - active_) / active_ < 0.03


def test_mtp_layers_as_transformers_mtp_model_builds_them() -> None:
    """``num_nextn_predict_layers`` (``num_mtp_layers``) layers are not built by ``from_config``; derive's
    :func:`mtp_model` is what transformers' ``MtpModel`` (``generate(use_mtp=True)``) builds — every tensor but the
    embedding and head it shares with the main model — and the report's note gives its size."""
    import torch
    import transformers
    from transformers.modeling_layers import MtpModel

    config = {**tiny("deepseek_v3")[0], "num_mtp_layers": 2}
    cfg = transformers.AutoConfig.for_model("deepseek_v3", **config)
    with torch.device("meta"):
        main = transformers.AutoModelForCausalLM.from_config(cfg)
        mtp = MtpModel(main, cfg.num_mtp_layers)
    shared = ("embed_tokens.", "shared_head.")
    expected = [(n, tuple(p.shape)) for n, p in mtp.named_parameters() if not n.startswith(shared)]
    derived = mtp_model(config)
    assert [(n, tuple(p.shape)) for n, p in named_parameters(derived)] == expected
    report = derive.explain({"model_type": "deepseek_v3", **config})
    assert report.total == hf_live.total(main)  # the MTP layers are not counted
    assert any("num_nextn_predict_layers=2" in n and f"{count(derived):,} parameters" in n for n in report.notes)


def test_deepseek_v3_mtp_layer_size() -> None:
    """DeepSeek-V3's one MTP layer, as ``MtpModel`` builds it from the release's config (11.6B parameters; the
    card's 685B is the 671B main model and the MTP module with the embedding and head copies its checkpoint ships)."""
    import torch
    import transformers
    from transformers.modeling_layers import MtpModel

    config = _release("deepseek-ai/DeepSeek-V3")
    cfg = transformers.AutoConfig.for_model("deepseek_v3", **_without_type(config))
    with torch.device("meta"):
        mtp = MtpModel(hf_live.build("deepseek_v3", _without_type(config)), cfg.num_mtp_layers)
    own = sum(p.numel() for n, p in mtp.named_parameters() if not n.startswith(("embed_tokens.", "shared_head.")))
    assert count(mtp_model(config)) == own == 11_610_067_968
    assert any("11,610,067,968 parameters" in n for n in derive.explain(config).notes)


def test_deepseek_v3_latent_cache_is_lmcache_pr_715s_bytes_per_token() -> None:
    """transformers caches MLA's compressed latent (kv_lora_rank + qk_rope_head_dim per token and layer: measured on
    the tiny models of the registry tests); DeepSeek-V3's 61 layers then hold 70,272 bytes a token in bfloat16, the
    figure of LMCache PR #715 for vLLM's latent cache (not the 4,997,120 of expanded per-head keys and values)."""
    config = _release("deepseek-ai/DeepSeek-V3")
    priced = cost(config, 4096, 1, "bfloat16")
    assert priced.kv_bytes_per_token == 61 * (512 + 64) * 2 == 70_272
    assert priced.state_bytes == 0
    assert priced.cache_bytes == 70_272 * 4096


def test_deepseek_v32_cache_adds_the_indexer_keys() -> None:
    """DeepSeek-V3.2 keeps the latent and, per layer, the indexer's keys (index_head_dim a token)."""
    config = _release("deepseek-ai/DeepSeek-V3.2")
    assert cost(config, 16, 1, "bfloat16").kv_bytes_per_token == 61 * (512 + 64 + 128) * 2


def test_keys_the_class_does_not_read_are_noted() -> None:
    """The releases' remote-code keys (``moe_layer_freq``, ``topk_method``, ``scoring_func``) are not keys of
    DeepseekV3Config: transformers builds an MoE in every layer from first_k_dense_replace on, whatever they say."""
    notes = derive.explain(_release("deepseek-ai/DeepSeek-V3")).notes
    outside = next(n for n in notes if n.startswith("not keys of DeepseekV3Config"))
    assert all(key in outside for key in ("moe_layer_freq", "topk_method", "scoring_func"))


TINY = {"vocab_size": 48, "hidden_size": 16, "intermediate_size": 24, "moe_intermediate_size": 6,
        "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 2, "kv_lora_rank": 6,
        "q_lora_rank": 5, "qk_rope_head_dim": 4, "qk_nope_head_dim": 3, "v_head_dim": 5, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 2, "topk_group": 1, "n_shared_experts": 1}  # fmt: skip


@pytest.mark.parametrize(
    ("model_type", "config"),
    [
        ("deepseek_v3", {**TINY, "first_k_dense_replace": -1}),  # every layer MoE
        ("deepseek_v3", {**TINY, "first_k_dense_replace": 7}),  # every layer dense
        ("deepseek_v3", {**TINY, "num_hidden_layers": 0}),
        ("deepseek_v2", {**TINY, "first_k_dense_replace": 2, "topk_method": "group_limited_greedy"}),
        (
            "deepseek_v32",
            {**TINY, "num_experts": 6, "index_n_heads": 2, "index_head_dim": 8},
        ),  # read as n_routed_experts
        ("deepseek_v32", {**TINY, "mlp_layer_types": ["dense", "sparse", "dense"], "first_k_dense_replace": 0}),
    ],
    ids=["v3-all-moe", "v3-all-dense", "v3-no-layers", "v2-group-limited", "v32-num-experts", "v32-pattern"],
)
def test_edge_configs_transformers_builds(model_type: str, config: dict) -> None:
    hf_live.check_family(model_type, copy.deepcopy(config), builds=True)


@pytest.mark.parametrize(
    ("model_type", "config", "key"),
    [
        ("deepseek_v32", {**TINY, "q_lora_rank": None}, "q_lora_rank"),  # @strict: an int
        ("deepseek_v2", {**TINY, "hidden_size": 15}, "hidden_size"),  # validate_architecture
        ("deepseek_v3", {**TINY, "first_k_dense_replace": None}, "first_k_dense_replace"),  # layer_idx >= None
        ("deepseek_v3", {**TINY, "pad_token_id": 48}, "pad_token_id"),  # torch's Embedding
        ("deepseek_v32", {**TINY, "first_k_dense_replace": -1}, "first_k_dense_replace"),  # one entry too many
        ("deepseek_v32", {**TINY, "mlp_layer_types": ["dense", "sparse"]}, "mlp_layer_types"),
    ],
    ids=["v32-q-rank-none", "v2-heads", "v3-first-none", "v3-pad", "v32-first-negative", "v32-pattern-length"],
)
def test_refused_where_transformers_refuses(model_type: str, config: dict, key: str) -> None:
    """transformers refuses to build each; derive refuses too, naming the key."""
    assert hf_live.check_family(model_type, copy.deepcopy(config)) is None
    with pytest.raises(ValueError, match=key):
        derive.explain({"model_type": model_type, **config})


def test_v32_layer_types_without_indexer_cache_refused() -> None:
    """A ``layer_types`` entry other than indexed_attention builds (the same tensors) but its cache layer keeps no
    indexer keys and transformers' forward with a cache fails; derive refuses it, naming the key."""
    import torch

    config = {**TINY, "index_n_heads": 2, "index_head_dim": 8, "layer_types": ["full_attention"] * 3}
    model = hf_cache.tiny("deepseek_v32", copy.deepcopy(config))
    with pytest.raises(ValueError, match="update_indexer"):
        model(torch.zeros((1, 2), dtype=torch.long), use_cache=True)
    with pytest.raises(ValueError, match="layer_types"):
        derive.explain({"model_type": "deepseek_v32", **config})


def test_v2_without_experts_per_token() -> None:
    """DeepseekV2Config's num_experts_per_tok defaults to None: transformers builds the model (its router cannot run);
    derive counts every routed expert active, as hf_live does, says so, and derives no FLOPs."""
    config = {k: v for k, v in TINY.items() if k != "num_experts_per_tok"}
    live = hf_live.check_family("deepseek_v2", copy.deepcopy(config), builds=True)
    report = derive.explain({"model_type": "deepseek_v2", **config})
    assert report.active == report.total == hf_live.active(live)
    assert any("num_experts_per_tok is None" in n for n in report.notes)
    assert cost({"model_type": "deepseek_v2", **config}, 8, 1).flops_per_token is None


@st.composite
def configs(draw: st.DrawFn, model_type: str) -> dict:
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 5))
    heads = draw(st.integers(1, 3))
    config: dict = {
        "vocab_size": draw(st.integers(8, 64)),
        "hidden_size": heads * draw(st.integers(2, 8)),
        "intermediate_size": draw(st.integers(1, 20)),
        "moe_intermediate_size": draw(st.integers(1, 10)),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "kv_lora_rank": draw(st.integers(1, 8)),
        "qk_rope_head_dim": draw(st.sampled_from([2, 4])),
        "qk_nope_head_dim": draw(st.integers(1, 6)),
        "v_head_dim": draw(st.integers(1, 6)),
        "q_lora_rank": draw(st.sampled_from([3, 5] if model_type == "deepseek_v32" else [None, 3, 5])),
        "attention_bias": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
        draw(
            st.sampled_from(["n_routed_experts", "num_local_experts" if model_type != "deepseek_v2" else "num_experts"])
        ): experts,  # fmt: skip
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "n_shared_experts": draw(st.integers(0, 2)),
        "first_k_dense_replace": draw(st.integers(0, layers + 1)),
    }
    if model_type == "deepseek_v2":
        config["mlp_bias"] = draw(st.booleans())
    if model_type == "deepseek_v32":
        config.update(index_n_heads=draw(st.integers(1, 3)), index_head_dim=draw(st.sampled_from([4, 6, 8])))
        if draw(st.booleans()):
            config["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))  # fmt: skip
    return config


@pytest.mark.parametrize("model_type", ["deepseek_v2", "deepseek_v3", "deepseek_v32"])
def test_drawn_configs(model_type: str) -> None:
    """Every tensor name and shape, buffer, total and active count of drawn configs (MLA ranks, a full-rank query,
    dense and MoE layers, no shared experts, biases, tied heads, both names of aliased keys)."""
    check = partial(hf_live.check_family, model_type)

    @settings(max_examples=25, deadline=None)
    @given(config=configs(model_type))
    def drawn(config: dict) -> None:
        check(config, builds=True)

    drawn()


def test_active_counts_the_visited_experts_only() -> None:
    """A MoE layer's routed experts at k / E, its shared experts and router whole (the tiny model's tree)."""
    report = derive.explain({"model_type": "deepseek_v3", **TINY, "first_k_dense_replace": 0})
    experts = [m for _, m in named_modules(report.module) if m.routed]
    assert experts and all(m.routed == (2, 4) for m in experts)
    assert active(report.module) == hf_live.active(hf_live.build("deepseek_v3", {**TINY, "first_k_dense_replace": 0}))
