"""One GPU's share (--tp, --pp): each rank's tensors and cache.

Against transformers 5.23.0's own tensor parallelism run on the CPU (``tp_worker``: ``torch.distributed`` with
gloo, 2 and 4 processes): each rank's local shard of every parameter (``DTensor.to_local()``), its bytes, and its
keys and values after a forward, for Llama, Qwen3 (with biases and QK-norms), Qwen3-MoE and Mixtral — at sizes
where vLLM's rules and transformers' agree (a vocabulary that is a multiple of 64 · tp, KV heads tp divides).
vLLM's rules transformers does not share (the vocabulary padded to 64, KV heads replicated when tp > KV, the
pipeline stages of ``get_pp_indices``) are held by hand-computed cases, cited in
:mod:`derive.analysis.parallel`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import live_record
import pytest

from derive import explain
from derive.analysis import parallel
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.families.family import release, tiny
from derive.tree import Module, Param, State, count, named_modules

WORKER = Path(__file__).resolve().parents[1] / "support" / "tp_worker.py"

_BASE = {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 8, "num_key_value_heads": 4,
         "num_hidden_layers": 2, "vocab_size": 512, "head_dim": 16}  # fmt: skip
#: Tiny configs whose sizes 2 and 4 divide (heads, KV heads, widths, and the vocabulary a multiple of 64 · 4).
CONFIGS = {
    "llama": {**_BASE},
    "qwen3": {**_BASE, "attention_bias": True},
    "qwen3_moe": {**_BASE, "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2},
    "mixtral": {**_BASE, "intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2},
}
ARCH = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM", "qwen3_moe": "Qwen3MoeForCausalLM",
        "mixtral": "MixtralForCausalLM"}  # fmt: skip
TOKENS = 5  # tp_worker.TOKENS
MOE = ("qwen3_moe", "mixtral")


@pytest.fixture(scope="module")
def ranks(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict]:
    """transformers' shards on every rank, for 2 and 4 processes, and 2 with expert parallelism (run at once)."""
    path = tmp_path_factory.mktemp("tp") / "runs.json"
    dense = [{"model_type": m, **c} for m, c in CONFIGS.items()]
    runs = [{"world": 2, "ep": False, "configs": dense}, {"world": 4, "ep": False, "configs": dense},
            {"world": 2, "ep": True, "configs": [{"model_type": m, **CONFIGS[m]} for m in MOE]}]  # fmt: skip
    path.write_text(json.dumps(runs), encoding="utf-8")
    done = subprocess.run([sys.executable, str(WORKER), str(path)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    out = {}
    for run, ranks in zip(runs, found):
        out[(run["world"], run["ep"])] = {int(rank): models for rank, models in ranks.items()}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(CONFIGS))
@pytest.mark.parametrize("world", [2, 4])
def test_each_rank_holds_transformers_shards(ranks: dict, model_type: str, world: int) -> None:
    """Every tensor's shape on every rank, the rank's bytes and its cache after a forward, as transformers'
    tensor parallelism holds them."""
    _compare(ranks[(world, False)], model_type, list(CONFIGS).index(model_type), world, False)
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("share", f"tp{world}")


@pytest.mark.slow
@pytest.mark.parametrize("model_type", MOE)
def test_expert_parallel_ranks_hold_transformers_experts(ranks: dict, model_type: str) -> None:
    """With ep the experts whole, E / tp a rank, as transformers' expert parallelism (ep_size = tp_size) holds
    them (its base_model_ep_plan: grouped_gemm), the attention still tensor parallel."""
    _compare(ranks[(2, True)], model_type, MOE.index(model_type), 2, True)
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("share", "ep2")


def _compare(ranks: dict, model_type: str, index: int, world: int, ep: bool) -> None:
    tree = config_model(model_type).build(dict(CONFIGS[model_type]))
    share = parallel.plan(tree, tp=world, ep=ep)
    derived = {t.name: list(t.rank_shape) for t in share.stages[0].tensors}
    c = cost(tree, seq_len=TOKENS, batch=1, dtype="float32", tp=world, ep=ep)
    for rank in range(world):
        found = ranks[rank][index]
        local = {name: t["local"] for name, t in found["tensors"].items()}
        assert derived == local, (rank, {k: (derived.get(k), local.get(k)) for k in derived.keys() | local.keys()
                                         if derived.get(k) != local.get(k)})  # fmt: skip
        held = sum(_numel(shape) for shape in local.values()) * 4
        assert c.rank_weights_bytes == held
        cache = sum(_numel(shape) for layer in found["cache"] for shape in layer) * 4
        assert c.rank_cache_bytes == cache
        assert {tuple(s) for layer in found["cache"] for s in layer} == {(1, 4 // world, TOKENS, 16)}


@pytest.mark.slow
def test_the_rules_derive_shares_with_transformers_are_its_plans() -> None:
    """The styles derive gives the tensors transformers' plan names are the plan's own (colwise, rowwise,
    packed_colwise on the experts' gate_up_proj, replicated QK-norms, the vocabulary split row-wise)."""
    transformers = pytest.importorskip("transformers")
    same = {"colwise": {"colwise", "kv_colwise"}, "rowwise": {"rowwise", "experts_rowwise"},
            "packed_colwise": {"experts_colwise"}, "replicated_with_grad_allreduce": {"replicated"},
            "embedding_rowwise": {"vocab"}, "colwise_gather_output": {"vocab"}}  # fmt: skip
    for model_type, config in CONFIGS.items():
        cls = getattr(transformers, ARCH[model_type])
        plan = {f"model.{k}": v for k, v in cls.config_class.base_model_tp_plan.items()} | dict(cls._tp_plan)
        plan |= {"model.embed_tokens": "embedding_rowwise"}  # transformers' PreTrainedModel adds it (the ranks' plan)
        share = parallel.plan(config_model(model_type).build(dict(config)), tp=2)
        for tensor in share.stages[0].tensors:
            module = tensor.name.rpartition(".")[0]
            generic = ".".join("*" if part.isdigit() else part for part in module.split("."))
            rule = plan.get(generic) or plan.get(".".join("*" if p.isdigit() else p for p in tensor.name.split(".")))
            if rule is None:
                assert tensor.style == "replicated", tensor
            elif rule != "moe_tp_experts":
                assert tensor.style in same[rule], (tensor, rule)


def _numel(shape: list[int]) -> int:
    total = 1
    for d in shape:
        total *= d
    return total


# --- vLLM's own rules, by hand ---------------------------------------------------------------------------------------


def test_kv_heads_are_replicated_when_tp_exceeds_them() -> None:
    """Llama-3-8B's shape (32 heads, 8 KV heads of 128) on 16 devices: 2 query heads a device, one KV head
    replicated on 2 (vLLM's QKVParallelLinear), not half a head as transformers' colwise k_proj would give."""
    tree = config_model("llama").build({"num_key_value_heads": 8, "num_hidden_layers": 2})
    share = parallel.plan(tree, tp=16)
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors}
    assert shapes["model.layers.0.self_attn.q_proj.weight"] == (2 * 128, 4096)
    assert shapes["model.layers.0.self_attn.k_proj.weight"] == (128, 4096)
    assert shapes["model.layers.0.self_attn.v_proj.weight"] == (128, 4096)
    assert shapes["model.layers.0.self_attn.o_proj.weight"] == (4096, 256)
    assert share.kv_heads == (8, 1, 2)
    assert {s.shape for s in share.stages[0].states} == {("batch", 1, "tokens", 128)}
    c = cost(tree, seq_len=1000, batch=1, dtype="bfloat16", tp=16)
    assert c.rank_kv_bytes == 2 * 2 * 1 * 1000 * 128 * 2  # 2 layers, keys and values, one head, bf16
    assert cost(tree, seq_len=1000, batch=1, dtype="bfloat16", tp=8).rank_kv_bytes == c.rank_kv_bytes
    with pytest.raises(ValueError, match="not a multiple of num_key_value_heads"):
        parallel.plan(config_model("llama").build({"num_key_value_heads": 8, "num_attention_heads": 48,
                                                   "hidden_size": 6144, "num_hidden_layers": 1, "vocab_size": 3072}), tp=12)  # fmt: skip


def test_the_vocabulary_is_padded_to_64_then_split() -> None:
    """GPT-2's 50,257 tokens padded to 50,304 (vLLM's pad_vocab_size), 25,152 rows a device at tp=2; a padded
    vocabulary tp does not divide is refused naming vocab_size."""
    assert parallel.pad_vocab_size(50257) == 50304 and parallel.pad_vocab_size(64) == 64
    tree = config_model("llama").build({"vocab_size": 50257, "num_hidden_layers": 1})
    share = parallel.plan(tree, tp=2)
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors}
    assert shapes["model.embed_tokens.weight"] == shapes["lm_head.weight"] == (25152, 4096)
    assert share.vocab == (50257, 50304)
    with pytest.raises(ValueError, match="tp=5 does not divide vocab_size 50,257 padded to a multiple of 64 = 50,304"):
        parallel.plan(tree, tp=5)


def test_pipeline_stages_split_the_layers_as_vllm() -> None:
    """get_pp_indices: L // pp layers a stage, the rest one each to the stages before the last; the embedding
    on the first stage, the norm and the head on the last (tied: the embedding there too)."""
    assert [parallel.pp_indices(10, s, 4) for s in range(4)] == [(0, 2), (2, 5), (5, 8), (8, 10)]
    assert [parallel.pp_indices(3, s, 2) for s in range(2)] == [(0, 2), (2, 3)]
    assert [parallel.pp_indices(8, s, 4) for s in range(4)] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    small = {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4, "num_hidden_layers": 3,
             "vocab_size": 128}  # fmt: skip
    share = parallel.plan(config_model("llama").build(dict(small)), pp=2)
    first, last = ({t.name for t in s.tensors} for s in share.stages)
    assert "model.embed_tokens.weight" in first and "lm_head.weight" not in first and "model.norm.weight" in last
    assert "model.embed_tokens.weight" not in last and "lm_head.weight" in last
    assert [len(s.states) for s in share.stages] == [4, 2]  # keys and values of 2 and 1 layers
    tied = parallel.plan(config_model("llama").build({**small, "tie_word_embeddings": True}), pp=2)
    assert "model.embed_tokens.weight" in {t.name for t in tied.stages[1].tensors}
    c = cost(config_model("llama").build(dict(small)), seq_len=7, batch=1, tp=2, pp=2)
    layer = 4 * 64 * 64 // 2 + 3 * 64 * 96 // 2 + 2 * 64  # attention, MLP (halves), two norms (whole)
    assert [e["parameters"] for e in c.stages] == [64 * 64 + 2 * layer, layer + 64 + 64 * 64]
    assert c.rank_weights_bytes == 4 * (64 * 64 + 2 * layer)


def test_fused_projections_scaled_embeddings_and_a_head_bias() -> None:
    """Phi-3's fused qkv_proj (vLLM's QKVParallelLinear: q, k and v segments each split) and gate_up_proj
    (MergedColumnParallelLinear), Gemma's scaled embedding (a VocabParallelEmbedding), a head's bias (padded)."""
    phi3 = config_model("phi3").build({"num_hidden_layers": 1, "num_key_value_heads": 8})
    shapes = {t.name: t.rank_shape for t in parallel.plan(phi3, tp=4).stages[0].tensors}
    assert shapes["model.layers.0.self_attn.qkv_proj.weight"] == ((32 // 4 + 2 * 8 // 4) * 96, 3072)
    assert shapes["model.layers.0.mlp.gate_up_proj.weight"] == (2 * 8192 // 4, 3072)
    assert shapes["model.embed_tokens.weight"] == (32064 // 4, 3072)
    replicated = {t.name: t.rank_shape for t in parallel.plan(phi3, tp=16).stages[0].tensors}
    assert replicated["model.layers.0.self_attn.qkv_proj.weight"] == ((2 + 2) * 96, 3072)
    starcoder2 = config_model("starcoder2").build({"num_hidden_layers": 1})
    shapes = {t.name: t.rank_shape for t in parallel.plan(starcoder2, tp=4).stages[0].tensors}
    assert shapes["model.layers.0.mlp.c_fc.weight"] == (12288 // 4, 3072)
    assert shapes["model.layers.0.mlp.c_fc.bias"] == (12288 // 4,)
    assert shapes["model.layers.0.mlp.c_proj.weight"] == (3072, 12288 // 4)
    assert shapes["model.layers.0.mlp.c_proj.bias"] == (3072,)
    gemma = config_model("gemma").build({"num_hidden_layers": 1})
    shapes = {t.name: t.rank_shape for t in parallel.plan(gemma, tp=8).stages[0].tensors}
    assert shapes["model.embed_tokens.weight"] == (256000 // 8, 3072)
    head = Module("lm_head", "Linear", (Param("weight", (100, 4)), Param("bias", (100,))), part="head")
    shapes = {t.name: t.rank_shape for t in parallel.plan(_model(_attention(), top=(head,)), tp=2).stages[0].tensors}
    assert shapes["lm_head.weight"] == (64, 4) and shapes["lm_head.bias"] == (64,)  # 100 padded to 128


def test_latent_attention_splits_its_heads_and_keeps_the_latent_whole() -> None:
    """DeepSeek-V3's MLA on tp devices (vLLM's DeepseekV2MLAAttention): the A projections whole, q_b_proj and
    kv_b_proj H / tp heads, o_proj's columns; every device keeps the whole latent (kv_lora_rank + rope a token)."""
    config = {"hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 32, "num_attention_heads": 4,
              "num_key_value_heads": 4, "num_hidden_layers": 2, "vocab_size": 512, "n_routed_experts": 4,
              "num_experts_per_tok": 2, "n_shared_experts": 1, "first_k_dense_replace": 1, "kv_lora_rank": 32,
              "q_lora_rank": 48, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "n_group": 1,
              "topk_group": 1}  # fmt: skip
    tree = config_model("deepseek_v3").build(dict(config))
    share = parallel.plan(tree, tp=4)
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors if ".layers.1." in t.name}
    attn = "model.layers.1.self_attn."
    assert shapes[attn + "q_a_proj.weight"] == (48, 64) and shapes[attn + "kv_a_proj_with_mqa.weight"] == (40, 64)
    assert shapes[attn + "q_b_proj.weight"] == (4 * 24 // 4, 48) and shapes[attn + "kv_b_proj.weight"] == (32, 32)
    assert shapes[attn + "o_proj.weight"] == (64, 16) and shapes[attn + "kv_a_layernorm.weight"] == (32,)
    assert shapes["model.layers.1.mlp.shared_experts.gate_proj.weight"] == (8, 64)
    assert share.kv_heads == (1, 1, 4)
    c, whole = cost(tree, seq_len=10, batch=1, tp=4), cost(tree, seq_len=10, batch=1)
    assert c.rank_cache_bytes == whole.cache_bytes == 2 * 10 * (32 + 8) * 4
    with pytest.raises(ValueError, match="num_attention_heads"):
        parallel.plan(tree, tp=8)
    llama4 = Module("experts", "Llama4TextExperts", (Param("gate_up_proj", (2, 4, 8)), Param("down_proj", (2, 4, 4))),
                    part="routed experts")  # fmt: skip
    assert [t.rank_shape for t in parallel.plan(_model(llama4), tp=2).stages[0].tensors] == [(2, 4, 4), (2, 2, 4)]
    with pytest.raises(ValueError, match="the experts Llama4TextExperts"):
        parallel.plan(_model(llama4.replace(params=llama4.params[:1])), tp=2)


def test_the_experts_split_inside_each_expert() -> None:
    """vLLM's default FusedMoE: every device all E experts, each F / tp wide; the router whole."""
    tree = config_model("qwen3_moe").build({**CONFIGS["qwen3_moe"]})
    shapes = {t.name: t.rank_shape for t in parallel.plan(tree, tp=4).stages[0].tensors}
    assert shapes["model.layers.0.mlp.experts.gate_up_proj"] == (4, 2 * 32 // 4, 64)
    assert shapes["model.layers.0.mlp.experts.down_proj"] == (4, 64, 32 // 4)
    assert shapes["model.layers.0.mlp.gate.weight"] == (4, 64)
    with pytest.raises(ValueError, match="moe_intermediate_size"):
        parallel.plan(config_model("qwen3_moe").build({**CONFIGS["qwen3_moe"], "moe_intermediate_size": 30}), tp=4)
    ep = {t.name: t.rank_shape for t in parallel.plan(tree, tp=4, ep=True).stages[0].tensors}
    assert ep["model.layers.0.mlp.experts.gate_up_proj"] == (1, 64, 64) and ep["model.layers.0.mlp.gate.weight"] == (
        4,
        64,
    )
    uneven = config_model("qwen3_moe").build({**CONFIGS["qwen3_moe"], "num_experts": 6})
    ep = {t.name: t.rank_shape for t in parallel.plan(uneven, tp=4, ep=True).stages[0].tensors}
    assert ep["model.layers.0.mlp.experts.down_proj"] == (2, 64, 32)  # 6 experts on 4 devices: 2, 2, 1, 1
    with pytest.raises(ValueError, match="give tp > 1"):
        cost(tree, ep=True)
    with pytest.raises(TypeError, match="ep must be a bool"):
        cost(tree, tp=2, ep=1)
    assert cost(tree, tp=2, ep=True).as_dict()["expert_mode"].startswith("expert parallel")
    oss = config_model("gpt_oss").build({"hidden_size": 64, "intermediate_size": 32, "num_attention_heads": 4,
                                         "num_key_value_heads": 2, "num_hidden_layers": 1, "vocab_size": 256,
                                         "num_local_experts": 4, "head_dim": 16})  # fmt: skip
    shapes = {t.name: t.rank_shape for t in parallel.plan(oss, tp=2).stages[0].tensors}
    assert shapes["model.layers.0.mlp.experts.gate_up_proj"] == (4, 64, 32)  # (E, D, 2F): 2F / tp
    assert shapes["model.layers.0.mlp.experts.gate_up_proj_bias"] == (4, 32)
    assert shapes["model.layers.0.mlp.experts.down_proj"] == (4, 16, 64)  # (E, F, D)
    assert shapes["model.layers.0.mlp.experts.down_proj_bias"] == (4, 64)
    assert shapes["model.layers.0.self_attn.sinks"] == (2,)
    assert shapes["model.layers.0.self_attn.o_proj.bias"] == (64,)


def test_a_budget_is_one_devices() -> None:
    """With tp the largest context is solved on one device's share, exact at T and T + 1."""
    tree = config_model("llama").build({"num_key_value_heads": 8})
    c = cost(tree, seq_len=4096, batch=1, dtype="bfloat16", memory="24GB", tp=4)
    weights = c.rank_weights_bytes
    per_token = c.rank_kv_bytes_per_token
    assert per_token == 32 * 2 * 2 * 128 * 2  # 32 layers, keys and values, 2 KV heads a device, bf16
    t = c.max_seq_len
    assert weights + t * per_token <= 24 * 10**9 < weights + (t + 1) * per_token
    assert c.max_batch == (24 * 10**9 - weights) // (4096 * per_token) and c.fits is True
    assert c.max_seq_len > cost(tree, seq_len=4096, batch=1, dtype="bfloat16", memory="24GB").max_seq_len
    tight = cost(tree, seq_len=4096, batch=1, dtype="bfloat16", memory=weights - 1, tp=4)
    assert tight.max_seq_len == 0 and tight.fits is False and tight.max_batch == 0
    open_length = cost(tree, batch=1, dtype="bfloat16", memory="24GB", tp=4)  # T left as the symbol
    assert open_length.max_seq_len == t and open_length.fits is None and open_length.max_batch is None
    open_batch = cost(tree, seq_len=4096, dtype="bfloat16", memory="24GB", tp=4)
    assert open_batch.max_batch == c.max_batch and open_batch.max_seq_len is None
    window = config_model("mistral").build({"sliding_window": 16, "num_hidden_layers": 2})
    capped = cost(window, seq_len=10, batch=1, memory="80GB", tp=2, pp=2)
    assert capped.fits_any_length is True and capped.max_seq_len is None


def test_refusals_name_the_key() -> None:
    tree = config_model("llama").build({"num_hidden_layers": 2})
    with pytest.raises(ValueError, match="num_attention_heads"):
        parallel.plan(tree, tp=64)
    with pytest.raises(ValueError, match="intermediate_size"):
        parallel.plan(config_model("llama").build({"num_hidden_layers": 1, "intermediate_size": 11010}), tp=4)
    with pytest.raises(ValueError, match="pp=3 is more than the 2 decoder layers"):
        parallel.plan(tree, pp=3)
    with pytest.raises(TypeError, match="tp must be an int"):
        parallel.plan(tree, tp=True)
    with pytest.raises(ValueError, match="tp must be >= 1"):
        parallel.plan(tree, tp=0)
    with pytest.raises(ValueError, match="pp must be >= 1"):
        cost(tree, pp=0)
    with pytest.raises(TypeError, match="tp must be an int"):
        cost(tree, tp=2.0)
    with pytest.raises(
        ValueError, match="no tensor-parallel rule for OlmoHybridGatedDeltaNet .*not yet other recurrent"
    ):
        cost(config_model("olmo_hybrid").build({}), tp=2)  # vLLM's own OLMo Gated DeltaNet: no rule yet
    with pytest.raises(ValueError, match="quantization_config"):
        cost(tree, tp=2, quantization_config={"quant_method": "fp8", "weight_block_size": [128, 128]})
    import derive.torch as dt

    with pytest.raises(ValueError, match="recurrent stack"):
        cost(dt.LSTM(4, 8), tp=2)
    with pytest.raises(ValueError, match="int sizes"):
        parallel.plan(config_model("llama").build({"num_hidden_layers": 1}).replace(params=(
            Param("w", ("n",)),)), tp=2)  # fmt: skip


def test_the_cli_says_each_devices_share(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from derive.cli import main

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "num_key_value_heads": 8, "num_hidden_layers": 4,
                                  "torch_dtype": "bfloat16"}), encoding="utf-8")  # fmt: skip
    run = [str(config), "--tp", "16", "--pp", "2", "--memory", "24GB"]
    assert main(run) == 0
    text = capsys.readouterr().out
    assert "one device's share (tp=16, pp=2" in text and "each on 2 devices" in text
    assert "stage 1 (layers 2-3)" in text and "largest context on every device" in text
    assert main([*run, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["cost"]
    assert data["tp"] == 16 and data["pp"] == 2 and data["kv_head_replicas"] == 2 and data["vocab_padded"] == 32000
    assert [e["layers"] for e in data["stages"]] == [[0, 2], [2, 4]] and data["stages"][0]["fits"] is True
    assert data["max_seq_len"] == min(e["max_seq_len"] for e in data["stages"])
    assert main([str(config), "--tp", "2", "--seq-len", "8"]) == 0
    assert "one device's share (tp=2, pp=1" in capsys.readouterr().out
    assert main([*run[:1], "--tp", "3"]) == 2
    assert "tp=3 does not divide vocab_size" in capsys.readouterr().err
    assert main([*run[:1], "--tp", "2", "--memory", "100MB"]) == 0
    assert "stage 0: fits" not in (text := capsys.readouterr().out) and "the weights alone exceed the budget" in text
    mamba = tmp_path / "mamba.json"
    mamba.write_text(json.dumps({"model_type": "mamba", "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 128,
                                 "torch_dtype": "float32"}), encoding="utf-8")  # fmt: skip
    assert main([str(mamba), "--tp", "2", "--memory", "1GB"]) == 0
    text = capsys.readouterr().out
    assert "as vLLM shards it: vocabulary padded to 128)" in text and "any length fits" in text
    assert "largest context on every device at batch 1: any length" in text


def _attention(
    kv: int = 2, *, children: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj"), **config
) -> Module:
    made = tuple(Module(c, "Linear", (Param("weight", (8 if c != "o_proj" else 4, 4 if c != "o_proj" else 8)),))
                 for c in children)  # fmt: skip
    keys = (State("keys", ("batch", kv, "tokens", 4)), State("values", ("batch", kv, "tokens", 4)))
    return Module("self_attn", "Attention", children=made, part="attention", cache=keys,
                  config={"num_heads": 2, "num_kv_heads": kv, "head_dim": 4, **config})  # fmt: skip


def _model(*layers: Module, top: tuple[Module, ...] = ()) -> Module:
    listed = tuple(Module(str(i), "Layer", children=(layer,)) for i, layer in enumerate(layers))
    return Module("", "Model", children=(Module("layers", "ModuleList", children=listed), *top))


def test_what_has_no_rule_is_refused() -> None:
    """Never a guess: each module, tensor or cache derive has no tensor-parallel rule for is refused, named."""
    assert len(parallel.plan(_model(_attention()), tp=2).stages[0].tensors) == 4
    odd = _attention().children[1].replace(params=(Param("weight", (6, 4)),))
    latent = _attention().replace(children=tuple(Module(n, "Linear", (Param("weight", (8, 4)),))
                                                 for n in ("kv_a_proj_with_mqa", "kv_b_proj", "o_proj")),
                                 cache=(State("keys", ("batch", 1, "tokens", 4)),))  # fmt: skip
    cases = {
        "Attention layers.0.self_attn: its heads are not known": _model(latent.replace(config={"num_heads": "H"})),
        "differ in KV heads .layers.1": _model(latent, _attention()),
        "differ in KV heads .layers.1.self_attn": _model(_attention(), latent),
        "has 6 rows, not KV heads": _model(_attention().replace(children=(_attention().children[0], odd,
                                                                          *_attention().children[2:]))),
        "is not counted": _model(_attention().replace(counted=False)),
        "heads are not known as ints": _model(_attention(num_heads="H")),
        "differ in KV heads": _model(_attention(2), _attention(1)),
        "derive splits attention of q_proj": _model(_attention(children=("c_attn", "c_proj"))),
        r"Attention \(layers.0.self_attn\), attention of c_attn, c_proj:": _model(_attention(children=("c_attn", "c_proj"))),
        r"Linear \(layers.0.linear\), a bare module counted as attention": _model(
            Module("linear", "Linear", (Param("weight", (4, 4)),), part="attention")),
        "derive splits nn.Linear": _model(_attention().replace(children=(
            Module("q_proj", "Conv1D", (Param("weight", (8, 4)),)), *_attention().children[1:]))),
        "derive splits an MLP": _model(Module("mlp", "MLP", children=(Module("c_fc", "Linear", (Param("w", (4, 4)),)),),
                                              part="MLP")),
        "the cache 'indexer_keys'": _model(_attention().replace(cache=(State("indexer_keys", ("batch", "tokens", 4)),))),
        r"Mixer \(layers.0.mixer\) and its cache": _model(Module("mixer", "Mixer", cache=(State("h", ("batch", 4)),))),
        "Mamba and Mamba-2 mixers, Qwen's Gated DeltaNet.*not yet other recurrent": _model(
            Module("mixer", "Mixer", (Param("A", (4,)),))),
        "the experts Experts": _model(Module("experts", "Experts", (Param("w1", (2, 4, 4)),), part="routed experts")),
        "the experts GptOssExperts": _model(Module("experts", "GptOssExperts", (Param("w1", (2, 4, 4)),),
                                                   part="routed experts")),
        "GptOssExperts .*, w1": _model(Module("experts", "GptOssExperts", (Param("gate_up_proj", (2, 4, 8)),
                                              Param("down_proj", (2, 4, 4)), Param("w1", (2,))), part="routed experts")),
        "differ in vocabulary": _model(_attention(), top=(Module("embed_tokens", "Embedding", (Param("weight", (64, 4)),),
                                                                 part="embeddings"),
                                                          Module("lm_head", "Linear", (Param("weight", (128, 4)),),
                                                                 part="head"))),
    }  # fmt: skip
    for message, tree in cases.items():
        with pytest.raises(ValueError, match=message):
            parallel.plan(tree, tp=2)
    outside = _model(_attention(), _attention(), top=(Module("extra", "Linear", (Param("weight", (4, 4)),)),))
    with pytest.raises(ValueError, match="no tensor-parallel rule"):
        parallel.plan(outside, tp=2)
    norm = Module("extra", "RMSNorm", (Param("weight", (4,)),), part="norms")
    assert (
        parallel.plan(_model(_attention(), _attention(), top=(norm,)), pp=2).stages[1].tensors[-1].name
        == "extra.weight"
    )
    with pytest.raises(ValueError, match="extra.weight is outside the decoder layers"):
        parallel.plan(_model(_attention(), _attention(), top=(norm.replace(part="routers"),)), pp=2)
    with pytest.raises(ValueError, match="a cache outside the decoder layers"):
        parallel.plan(_model(_attention(), _attention(), top=(_attention(children=("q_proj", "k_proj", "v_proj",
                                                                                    "o_proj")).replace(params=()),)),
                      pp=2)  # fmt: skip


def test_mamba_mixers_split_their_channels() -> None:
    """vLLM's MambaMixer: the intermediate size E / tp in every tensor but x_proj's rows and Jamba's norms; the conv
    and SSM states E / tp channels."""
    tree = config_model("mamba").build({"num_hidden_layers": 2, "hidden_size": 16, "state_size": 4, "vocab_size": 128})
    share = parallel.plan(tree, tp=2)
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors if ".layers.0.mixer." in t.name}
    assert shapes == {
        "backbone.layers.0.mixer.A_log": (16, 4), "backbone.layers.0.mixer.D": (16,),
        "backbone.layers.0.mixer.conv1d.weight": (16, 1, 4), "backbone.layers.0.mixer.conv1d.bias": (16,),
        "backbone.layers.0.mixer.in_proj.weight": (32, 16), "backbone.layers.0.mixer.x_proj.weight": (9, 16),
        "backbone.layers.0.mixer.dt_proj.weight": (16, 1), "backbone.layers.0.mixer.dt_proj.bias": (16,),
        "backbone.layers.0.mixer.out_proj.weight": (16, 16),
    }  # fmt: skip
    assert {s.shape for s in share.stages[0].states} == {("batch", 16, 4)}
    c = cost(tree, seq_len=9, batch=3, tp=2)
    assert c.rank_cache_bytes == c.cache_bytes // 2 and c.rank_kv_bytes_per_token == 0
    with pytest.raises(ValueError, match="mamba_expand x hidden_size"):
        parallel.plan(config_model("mamba").build({"num_hidden_layers": 1, "hidden_size": 16, "vocab_size": 192}), tp=3)
    jamba = config_model("jamba").build({"num_hidden_layers": 2, "hidden_size": 16, "intermediate_size": 24,
                                         "num_attention_heads": 2, "num_key_value_heads": 1, "num_experts": 2,
                                         "num_experts_per_tok": 1, "attn_layer_period": 2, "attn_layer_offset": 1,
                                         "mamba_d_state": 8, "mamba_expand": 1, "mamba_dt_rank": 4, "vocab_size": 64})  # fmt: skip
    shapes = {t.name: t.rank_shape for t in parallel.plan(jamba, tp=2).stages[0].tensors}
    assert shapes["model.layers.0.mamba.x_proj.weight"] == (20, 8)
    assert shapes["model.layers.0.mamba.b_layernorm.weight"] == (8,)
    mixer = next(m for m in jamba.children[0].children[1].children[0].children if m.name == "mamba")
    with pytest.raises(ValueError, match="its tensors are not Mamba's"):
        parallel.plan(_model(mixer.replace(params=mixer.params[:1])), tp=2)
    conv = Module("conv1d", "Conv1d", (Param("weight", (8, 1, 4)),))
    with pytest.raises(ValueError, match="derive splits nn.Linear"):
        parallel.plan(_model(_attention().replace(children=(conv.replace(name="q_proj"), *_attention().children[1:]))),
                      tp=2)  # fmt: skip


# --- Mamba-2 mixers, Gated DeltaNet and DeepSeek-V3.2's indexer, as vLLM 0.33.0 holds them -------------------------
# (derive.analysis.parallel's table cites the lines; each expected shape below is worked from those formulas.)


def _mamba2(groups: int) -> Module:
    """Mamba-2, two layers: D = 32, I = 2·32 = 64, H = 8 heads of P = 8, G groups, N = 16, K = 4."""
    return config_model("mamba2").build({"hidden_size": 32, "num_heads": 8, "head_dim": 8, "expand": 2,
                                         "n_groups": groups, "state_size": 16, "conv_kernel": 4, "vocab_size": 64,
                                         "num_hidden_layers": 2})  # fmt: skip


def _mixer_shapes(share: parallel.Plan, prefix: str) -> dict[str, tuple[int, ...]]:
    return {t.name.removeprefix(prefix): t.rank_shape for t in share.stages[0].tensors if t.name.startswith(prefix)}


@pytest.mark.parametrize(("groups", "tp"), [(4, 2), (8, 4), (8, 8), (1, 2), (1, 4), (1, 8)])
def test_mamba2_mixers_split_heads_and_groups(groups: int, tp: int) -> None:
    """vLLM's MambaMixer2: H / tp heads; B and C's G groups / tp when tp divides them, else the one group
    replicated on every rank (G' = G + extra_groups_for_head_shards(G, tp) = tp), conv_dim' = I + 2G'N."""
    D, I, H, P, N, K = 32, 64, 8, 8, 16, 4
    extra = 0 if groups % tp == 0 else tp - groups  # MambaStateShapeCalculator.extra_groups_for_head_shards
    g = groups + extra
    conv_dim = I + 2 * g * N
    share = parallel.plan(_mamba2(groups), tp=tp)
    shapes = _mixer_shapes(share, "backbone.layers.0.mixer.")
    assert shapes == {
        "dt_bias": (H // tp,), "A_log": (H // tp,), "D": (H // tp,),
        "conv1d.weight": (conv_dim // tp, 1, K), "conv1d.bias": (conv_dim // tp,),
        "in_proj.weight": ((I + conv_dim + H) // tp, D),
        "norm.weight": (I // tp,),  # Mixer2RMSNormGated: per_rank_hidden_size = intermediate // tp
        "out_proj.weight": (D, I // tp),
    }  # fmt: skip
    styles = {t.name: t.style for t in share.stages[0].tensors}
    assert styles["backbone.layers.0.mixer.in_proj.weight"] == ("colwise" if extra == 0 else "groups_colwise")
    assert {s.shape for s in share.stages[0].states} == {("batch", conv_dim // tp, K), ("batch", H // tp, P, N)}
    c = cost(_mamba2(groups), seq_len=7, batch=3, tp=tp)
    per_layer = 3 * (conv_dim // tp * K * 4 + H // tp * P * N * 4)  # float32 (the default dtype): conv and SSM states
    assert c.rank_state_bytes == c.rank_cache_bytes == 2 * per_layer and c.rank_kv_bytes_per_token == 0
    whole = cost(_mamba2(groups), seq_len=7, batch=3)
    if extra:  # each rank keeps its copy of the replicated group: more than the model on tp devices, not "fixed"
        assert c.rank_state_bytes * tp > whole.state_bytes and c.rank_weights_bytes * tp > whole.weights_bytes
    else:
        assert c.rank_state_bytes * tp == whole.state_bytes


def test_mamba2_refusals_name_the_key() -> None:
    """A tp that does not divide the heads is refused naming each family's key; groups tp does not divide, more
    than one, are refused (vLLM 0.33.0 asserts n_groups % tp_size == 0 or n_groups == 1)."""
    with pytest.raises(ValueError, match="tp=4 does not divide n_groups = 2 .*n_groups == 1"):
        parallel.plan(_mamba2(2), tp=4)
    with pytest.raises(ValueError, match="tp=16 does not divide num_heads, the heads of backbone.layers.0.mixer = 8"):
        parallel.plan(_mamba2(1), tp=16)
    zamba2 = {"vocab_size": 64, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
              "mamba_d_state": 8, "n_mamba_heads": 4, "mamba_ngroups": 1,
              "layers_block_type": ["mamba", "hybrid"]}  # fmt: skip
    falcon_h1 = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "num_key_value_heads": 1, "mamba_d_ssm": 32, "mamba_n_heads": 4,
                 "mamba_d_head": 8, "mamba_n_groups": 1, "mamba_d_state": 8, "mamba_d_conv": 3}  # fmt: skip
    keys = {"bamba": ("mamba_n_heads", tiny("bamba")[0]), "granitemoehybrid": ("mamba_n_heads", tiny("granitemoehybrid")[0]),
            "nemotron_h": ("mamba_num_heads", tiny("nemotron_h")[0]), "falcon_h1": ("mamba_n_heads", falcon_h1),
            "zamba2": ("n_mamba_heads", zamba2)}  # fmt: skip
    for model_type, (key, config) in keys.items():
        tree = config_model(model_type).build(dict(config))  # 4 heads
        with pytest.raises(ValueError, match=f"tp=8 does not divide {key}, the heads of"):
            parallel.plan(tree, tp=8)
    falcon = {t.name: t.rank_shape for t in parallel.plan(config_model("falcon_h1").build(dict(falcon_h1)), tp=2)
              .stages[0].tensors if ".layers.0.mamba." in t.name}  # fmt: skip
    conv_dim = 32 + 2 * 2 * 8  # I = mamba_d_ssm = 32, its one group replicated on 2 ranks (G' = 2), N = 8
    assert falcon == {  # no gated norm (mamba_rms_norm false); mup_vector a buffer, not a tensor of the share
        "model.layers.0.mamba.dt_bias": (2,), "model.layers.0.mamba.A_log": (2,), "model.layers.0.mamba.D": (2,),
        "model.layers.0.mamba.conv1d.weight": (conv_dim // 2, 1, 3), "model.layers.0.mamba.conv1d.bias": (conv_dim // 2,),
        "model.layers.0.mamba.in_proj.weight": ((32 + conv_dim + 4) // 2, 16),
        "model.layers.0.mamba.out_proj.weight": (16, 32 // 2),
    }  # fmt: skip
    assert parallel.plan(config_model("zamba2").build(dict(zamba2)), tp=2).stages[0].parameters > 0  # and its block
    mixer = next(m for path, m in named_modules(_mamba2(1)) if path.endswith("layers.0.mixer"))
    cases = {
        "its tensors are not Mamba-2's": mixer.replace(params=mixer.params[:2]),
        "its sizes are not Mamba-2's": mixer.replace(params=(*mixer.params[:2], Param("D", (64,)))),  # D per channel
        "sizes are not Mamba-2's": mixer.replace(children=tuple(
            c.replace(params=(Param("weight", (100, 32)),)) if c.name == "in_proj" else c for c in mixer.children)),
    }  # fmt: skip
    for message, tree in cases.items():
        with pytest.raises(ValueError, match=message):
            parallel.plan(_model(tree), tp=2)


def test_released_mamba2_hybrids_per_device() -> None:
    """Nemotron-H-8B (G = 8 groups: divided), Granite-4.0-H-Small (G = 1: replicated, its shared MLP as vLLM's
    GraniteMoeSharedMLP), Bamba-9B at tp 2, 4, 8."""
    nemotron = release("nvidia/Nemotron-H-8B-Base-8K").config  # I = 128·64 = 8192, G = 8, N = 128, H = 128
    granite = release("ibm-granite/granite-4.0-h-small").config  # I = 2·4096 = 8192, G = 1, N = 128, H = 128
    tree, small = explain(nemotron).module, explain(granite).module
    for tp in (2, 4, 8):
        shapes = {t.name: t.rank_shape for t in parallel.plan(tree, tp=tp).stages[0].tensors}
        conv_dim = 8192 + 2 * 8 * 128  # tp divides the 8 groups
        assert shapes["model.layers.0.mixer.in_proj.weight"] == ((8192 + conv_dim + 128) // tp, 4096)
        assert shapes["model.layers.0.mixer.conv1d.weight"] == (conv_dim // tp, 1, 4)
        assert shapes["model.layers.0.mixer.A_log"] == (128 // tp,)
        assert shapes["model.layers.1.mixer.up_proj.weight"] == (21504 // tp, 4096)
        granite_shapes = {t.name: t.rank_shape for t in parallel.plan(small, tp=tp).stages[0].tensors}
        conv_dim = 8192 + 2 * tp * 128  # the one group replicated on the tp ranks: G' = tp
        assert granite_shapes["model.layers.0.mamba.in_proj.weight"] == ((8192 + conv_dim + 128) // tp, 4096)
        assert granite_shapes["model.layers.0.mamba.conv1d.bias"] == (conv_dim // tp,)
        assert granite_shapes["model.layers.0.mamba.norm.weight"] == (8192 // tp,)
        assert granite_shapes["model.layers.0.shared_mlp.input_linear.weight"] == (2 * 1536 // tp, 4096)
        assert granite_shapes["model.layers.0.shared_mlp.output_linear.weight"] == (4096, 1536 // tp)
        assert granite_shapes["model.layers.0.block_sparse_moe.experts.gate_up_proj"] == (72, 2 * 768 // tp, 4096)
    assert {t.name: t.rank_shape for t in parallel.plan(small, tp=2).stages[0].tensors}[
        "model.layers.0.mamba.in_proj.weight"] == (8512, 4096)  # (8192 + 8704 + 128) / 2  # fmt: skip
    mamba_layers = nemotron["hybrid_override_pattern"].count("M")  # 24 Mamba-2 layers, 4 attention
    attention = nemotron["hybrid_override_pattern"].count("*")
    c = cost(tree, seq_len=1000, batch=2, dtype="bfloat16", tp=4)  # conv states 2 bytes, the SSM state float32
    state = mamba_layers * 2 * ((8192 + 2 * 8 * 128) // 4 * 4 * 2 + 128 // 4 * 64 * 128 * 4)
    kv = attention * 2 * 1000 * 2 * (8 // 4) * 128 * 2  # keys and values, 2 KV heads a device, bf16
    assert (mamba_layers, attention) == (24, 4)
    assert c.rank_state_bytes == state and c.rank_kv_bytes == kv and c.rank_cache_bytes == state + kv
    bamba = explain(release("ibm-ai-platform/Bamba-9B-v1").config).module  # G = 1
    shapes = {t.name: t.rank_shape for t in parallel.plan(bamba, tp=8).stages[0].tensors}
    assert shapes["model.layers.0.mamba.conv1d.weight"] == ((8192 + 2 * 8 * 128) // 8, 1, 4)


def _deltanet(model_type: str, **config: Any) -> Module:
    """A Gated DeltaNet hybrid: D = 16, H_k = 4 key heads of d_k = 4, H_v = 8 value heads of d_v = 6, K = 3."""
    base = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "linear_conv_kernel_dim": 3,
            "linear_key_head_dim": 4, "linear_value_head_dim": 6, "linear_num_key_heads": 4,
            "linear_num_value_heads": 8}  # fmt: skip
    if model_type == "qwen3_next":
        base |= {"moe_intermediate_size": 8, "shared_expert_intermediate_size": 8, "num_experts": 4,
                 "num_experts_per_tok": 2}  # fmt: skip
    return config_model(model_type).build({**base, **config})


@pytest.mark.parametrize("model_type", ["qwen3_next", "qwen3_5_text"])
@pytest.mark.parametrize("tp", [2, 4])
def test_gated_deltanet_splits_its_key_heads(model_type: str, tp: int) -> None:
    """vLLM's QwenGatedDeltaNetAttention: H_k / tp key heads a rank, each with its H_v / H_k value heads, in every
    projection (K = H_k·d_k, V = H_v·d_v), the conv1d (2K + V channels) and the states; the gated norm whole."""
    D, Hk, dk, Hv, dv, conv_k = 16, 4, 4, 8, 6, 3
    K, V = Hk * dk, Hv * dv
    share = parallel.plan(_deltanet(model_type), tp=tp)
    shapes = _mixer_shapes(share, "model.layers.0.linear_attn.")
    projections = (
        {"in_proj_qkvz.weight": ((2 * K + 2 * V) // tp, D), "in_proj_ba.weight": (2 * Hv // tp, D)}
        if model_type == "qwen3_next"
        else {"in_proj_qkv.weight": ((2 * K + V) // tp, D), "in_proj_z.weight": (V // tp, D),
              "in_proj_b.weight": (Hv // tp, D), "in_proj_a.weight": (Hv // tp, D)}
    )  # fmt: skip
    assert shapes == {
        "dt_bias": (Hv // tp,), "A_log": (Hv // tp,), "conv1d.weight": ((2 * K + V) // tp, 1, conv_k),
        "norm.weight": (dv,), "out_proj.weight": (D, V // tp), **projections,
    }  # fmt: skip
    states = {s.shape for s in share.stages[0].states if s.name in ("conv_states", "recurrent_states")}
    assert states == {("batch", (2 * K + V) // tp, conv_k), ("batch", Hv // tp, dk, dv)}
    c = cost(_deltanet(model_type), seq_len=5, batch=2, tp=tp)  # 3 linear-attention layers, the 4th full attention
    assert c.rank_state_bytes == 3 * 2 * ((2 * K + V) // tp * conv_k * 4 + Hv // tp * dk * dv * 4)
    assert c.rank_kv_bytes == 2 * 5 * 2 * max(2 // tp, 1) * 8 * 4  # 2 KV heads: 1 a rank, replicated at tp 4


def test_gated_deltanet_refuses_key_heads_tp_does_not_divide() -> None:
    """Each rank views its rows as num_k_heads // tp_size key-head groups: a tp that does not divide
    linear_num_key_heads is refused by name (none replicated); Qwen3-Next-80B-A3B at tp 2, 4, 8 and refused at 32."""
    with pytest.raises(ValueError, match="tp=8 does not divide linear_num_key_heads = 4 of model.layers.0.linear_attn"):
        parallel.plan(_deltanet("qwen3_next", num_attention_heads=8), tp=8)
    with pytest.raises(ValueError, match="linear_num_value_heads"):
        parallel.plan(_deltanet("qwen3_5_text", linear_num_key_heads=2, linear_num_value_heads=3), tp=2)
    mixer = next(m for path, m in named_modules(_deltanet("qwen3_next")) if path.endswith("layers.0.linear_attn"))
    with pytest.raises(ValueError, match="its tensors are not Gated DeltaNet's"):
        parallel.plan(_model(mixer.replace(params=mixer.params[:1])), tp=2)
    with pytest.raises(ValueError, match="its sizes are not Gated DeltaNet's"):
        parallel.plan(
            _model(mixer.replace(cache=(mixer.cache[0], State("recurrent_states", ("batch", 8, 4, 7))))), tp=2
        )
    with pytest.raises(ValueError, match="rows, not its mixer's"):
        parallel.plan(_model(mixer.replace(children=tuple(c.replace(params=(Param("weight", (9, 16)),))
                                                          if c.name == "in_proj_ba" else c for c in mixer.children))),
                      tp=2)  # fmt: skip
    tree = explain(release("Qwen/Qwen3-Next-80B-A3B-Instruct").config).module  # H_k 16, H_v 32, d_k = d_v = 128
    for tp in (2, 4, 8):
        shapes = {t.name: t.rank_shape for t in parallel.plan(tree, tp=tp).stages[0].tensors}
        assert shapes["model.layers.0.linear_attn.in_proj_qkvz.weight"] == ((2 * 2048 + 2 * 4096) // tp, 2048)
        assert shapes["model.layers.0.linear_attn.in_proj_ba.weight"] == (64 // tp, 2048)
        assert shapes["model.layers.0.linear_attn.conv1d.weight"] == ((2 * 2048 + 4096) // tp, 1, 4)
        assert shapes["model.layers.0.linear_attn.out_proj.weight"] == (2048, 4096 // tp)
    c = cost(tree, seq_len=1, batch=1, dtype="bfloat16", tp=4)  # 36 linear-attention layers: conv bf16, state float32
    assert c.rank_state_bytes == 36 * ((2 * 2048 + 4096) // 4 * 4 * 2 + 32 // 4 * 128 * 128 * 4)
    with pytest.raises(ValueError, match="tp=32 does not divide linear_num_key_heads = 16"):
        parallel.plan(tree, tp=32)


def test_the_indexer_is_whole_on_every_device() -> None:
    """DeepSeek-V3.2's indexer (vLLM's Indexer): wq_b ReplicatedLinear, wk and weights_proj one
    MergedColumnParallelLinear with disable_tp, k_norm whole; its key cache one head, whole on every rank."""
    config = tiny("deepseek_v32")[0]  # 4 heads; indexer: 2 heads of 8, q_lora_rank 10, hidden 32; 3 layers
    tree = config_model("deepseek_v32").build(dict(config))
    for tp in (2, 4):
        share = parallel.plan(tree, tp=tp)
        shapes = _mixer_shapes(share, "model.layers.1.self_attn.indexer.")
        assert shapes == {"wq_b.weight": (2 * 8, 10), "wk.weight": (8, 32), "weights_proj.weight": (2, 32),
                          "k_norm.weight": (8,), "k_norm.bias": (8,)}  # fmt: skip
        assert {t.style for t in share.stages[0].tensors if ".indexer." in t.name} == {"replicated"}
        assert _mixer_shapes(share, "model.layers.1.self_attn.")["q_b_proj.weight"] == (4 * (6 + 4) // tp, 10)
        c, whole = cost(tree, seq_len=9, batch=2, tp=tp), cost(tree, seq_len=9, batch=2)
        indexer = 3 * 2 * 9 * 8 * 4  # 3 layers' keys of 8, float32
        assert c.rank_cache_bytes == whole.cache_bytes == 3 * 2 * 9 * (12 + 4) * 4 + indexer
    attention = next(m for path, m in named_modules(tree) if path.endswith("layers.1.self_attn"))
    broken = tuple(c.replace(cache=()) if c.name == "indexer" else c for c in attention.children)
    with pytest.raises(ValueError, match="its tensors are not the indexer's"):
        parallel.plan(_model(attention.replace(children=broken)), tp=2)


def _lfm2(model_type: str = "lfm2", **config: Any) -> Module:
    """LFM2: D = 64, a conv layer (L = 3, biases) then an attention layer (4 heads of 16, 2 KV heads), F = 96."""
    base = {"vocab_size": 1536, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "conv_L_cache": 3, "conv_bias": True,
            "block_auto_adjust_ff_dim": False, "layer_types": ["conv", "full_attention"]}  # fmt: skip
    if model_type == "lfm2_moe":  # layer 0 dense (F = 96), layer 1 4 experts of 32
        base |= {"num_dense_layers": 1, "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2}
    return config_model(model_type).build({**base, **config})


@pytest.mark.parametrize("model_type", ["lfm2", "lfm2_moe"])
@pytest.mark.parametrize("tp", [2, 4])
def test_lfm2_short_convolutions_split_their_channels(model_type: str, tp: int) -> None:
    """vLLM's ShortConv: conv a ColumnParallelLinear of D outputs, in_proj a MergedColumnParallelLinear of three D,
    out_proj a RowParallelLinear; the conv state D / tp channels. Lfm2Attention's q, k, v one QKVParallelLinear,
    out_proj row-parallel, q_layernorm and k_layernorm whole; Lfm2MLP's w1, w3 (w13) and w2 split by F."""
    D, L, F, H, KV, d = 64, 3, 96, 4, 2, 16
    kv = max(KV // tp, 1)  # one KV head a rank at tp 4, replicated on 2
    share = parallel.plan(_lfm2(model_type), tp=tp)
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors}
    conv = _mixer_shapes(share, "model.layers.0.conv.")
    assert conv == {"conv.weight": (D // tp, 1, L), "conv.bias": (D // tp,), "in_proj.weight": (3 * D // tp, D),
                    "in_proj.bias": (3 * D // tp,), "out_proj.weight": (D, D // tp), "out_proj.bias": (D,)}  # fmt: skip
    attention = _mixer_shapes(share, "model.layers.1.self_attn.")
    assert attention == {"q_proj.weight": (H // tp * d, D), "k_proj.weight": (kv * d, D), "v_proj.weight": (kv * d, D),
                         "out_proj.weight": (D, H * d // tp), "q_layernorm.weight": (d,), "k_layernorm.weight": (d,)}  # fmt: skip
    assert _mixer_shapes(share, "model.layers.0.feed_forward.") == {
        "w1.weight": (F // tp, D), "w3.weight": (F // tp, D), "w2.weight": (D, F // tp)}  # fmt: skip
    assert shapes["model.embed_tokens.weight"] == (1536 // tp, D)
    if model_type == "lfm2_moe":  # FusedMoE inside each expert; the router (GateLinear) whole
        assert shapes["model.layers.1.feed_forward.experts.gate_up_proj"] == (4, 2 * 32 // tp, D)
        assert shapes["model.layers.1.feed_forward.experts.down_proj"] == (4, D, 32 // tp)
        assert shapes["model.layers.1.feed_forward.gate.weight"] == (4, D)
    assert {s.shape for s in share.stages[0].states if s.name == "conv_states"} == {("batch", D // tp, L)}
    c = cost(_lfm2(model_type), seq_len=7, batch=3, tp=tp)  # float32: the conv state, keys and values
    assert c.rank_state_bytes == 3 * D // tp * L * 4
    assert c.rank_kv_bytes == 2 * 3 * 7 * kv * d * 4 and c.rank_cache_bytes == c.rank_state_bytes + c.rank_kv_bytes
    whole = cost(_lfm2(model_type), seq_len=7, batch=3)
    assert c.rank_state_bytes * tp == whole.state_bytes


def test_lfm2_refusals_name_the_key() -> None:
    """A tp that does not divide the short convolution's channels is refused naming hidden_size; LFM2-MoE refuses a
    tp above num_experts (Lfm2MoeSparseMoeBlock); LFM3 (no vLLM model) and a changed ShortConv are refused by name."""
    with pytest.raises(ValueError, match=r"tp=3 does not divide hidden_size, the channels of model.layers.0.conv"):
        parallel.plan(_lfm2(), tp=3)  # 1536 = 3 · 512: the vocabulary divides
    with pytest.raises(ValueError, match="tp=8 is more than num_experts = 4 of model.layers.1.feed_forward"):
        parallel.plan(_lfm2("lfm2_moe", hidden_size=128, num_attention_heads=8), tp=8)
    assert parallel.plan(_lfm2("lfm2_moe", hidden_size=128, num_attention_heads=8, num_experts=8), tp=8).tp == 8
    with pytest.raises(ValueError, match="no tensor-parallel rule for Lfm3ShortConv"):
        parallel.plan(explain({"model_type": "lfm3"}).module, tp=2)
    mixer = next(m for path, m in named_modules(_lfm2()) if path.endswith("layers.0.conv"))
    with pytest.raises(ValueError, match="its tensors are not ShortConv's"):
        parallel.plan(_model(mixer.replace(children=mixer.children[1:])), tp=2)
    with pytest.raises(ValueError, match="its sizes are not ShortConv's"):
        parallel.plan(_model(mixer.replace(cache=(State("conv_states", ("batch", 32, 3)),))), tp=2)
    mlp = next(m for path, m in named_modules(_lfm2()) if path.endswith("layers.0.feed_forward"))
    with pytest.raises(ValueError, match="its MLP of w1, w3, w2"):
        parallel.plan(_model(mlp.replace(children=mlp.children[:2])), tp=2)


def test_released_lfm2_per_device() -> None:
    """LFM2-1.2B (D = 2048, 10 conv layers of L = 3, 6 attention layers of 32 heads of 64 and 8 KV heads, F = 8192
    as Lfm2MLP adjusts 12288: int(2 · 12288 / 3) = 8192, a multiple of 256) at tp 2, 4, 8, counted by hand."""
    release_ = release("LiquidAI/LFM2-1.2B")
    tree = explain(release_.config).module
    D, F, V, conv_layers, attention_layers = 2048, 8192, 65536, 10, 6
    for tp in (1, 2, 4, 8):
        share = parallel.plan(tree, tp=tp)
        shapes = {t.name: t.rank_shape for t in share.stages[0].tensors}
        assert shapes["model.layers.0.conv.in_proj.weight"] == (3 * D // tp, D)
        assert shapes["model.layers.2.self_attn.k_proj.weight"] == (8 // tp * 64, D)
        mlp = 3 * F * D // tp
        conv = D * 3 // tp + 3 * D * D // tp + D * D // tp
        attention = D * D // tp + 2 * (8 * 64) * D // tp + D * D // tp + 2 * 64
        norms = 2 * D
        total = conv_layers * (conv + mlp + norms) + attention_layers * (attention + mlp + norms) + V * D // tp + D
        assert share.stages[0].parameters == total  # the head tied to the embedding
        if tp == 1:
            assert total == int(release_.published.replace(",", ""))  # 1,170,340,608 (the model card)
        if tp == 1:
            continue
        c = cost(tree, seq_len=1000, batch=2, dtype="bfloat16", tp=tp)  # the conv states, keys and values 2 bytes
        assert c.rank_state_bytes == conv_layers * 2 * D // tp * 3 * 2
        assert c.rank_kv_bytes == attention_layers * 2 * 2 * 1000 * (8 // tp) * 64 * 2


def _zamba2(**config: Any) -> Module:
    """Zamba2: D = 64, hybrid layers 0, 1, 3 sharing one block (num_mem_blocks 1) of 4 heads of 32 (2D = 128 wide),
    F = 128, LoRA adapters of rank 8 on q, k, v and the MLP; the mixers H = 4 heads of 32, one group, N = 16."""
    base = {"vocab_size": 1024, "hidden_size": 64, "num_hidden_layers": 4,
            "layers_block_type": ["hybrid", "hybrid", "mamba", "hybrid"], "num_attention_heads": 4,
            "attention_head_dim": 32, "n_mamba_heads": 4, "mamba_headdim": 32, "mamba_d_state": 16,
            "mamba_ngroups": 1, "intermediate_size": 128, "adapter_rank": 8, "num_mem_blocks": 1,
            "use_shared_attention_adapter": True, "use_shared_mlp_adapter": True}  # fmt: skip
    return config_model("zamba2").build({**base, **config})


@pytest.mark.parametrize("tp", [2, 4])
def test_zamba2_shared_block_splits_as_vllm(tp: int) -> None:
    """vLLM's zamba2.py: the shared attention's heads / tp (QKVParallelLinear, o_proj RowParallelLinear), its MLP's F
    / tp, each Zamba2LoRA's A adapter_rank / tp rows and B its rows / tp, the hybrid layer's linear whole
    (ReplicatedLinear); the shared tensors held once, each hybrid layer's KV cache H / tp heads."""
    D, A, H, d, F, R, hybrid = 64, 128, 4, 32, 128, 8, 3
    tree = _zamba2()
    share = parallel.plan(tree, tp=tp)
    block = _mixer_shapes(share, "model.layers.0.shared_transformer.")
    expected = {
        "self_attn.q_proj.weight": (A // tp, A), "self_attn.k_proj.weight": (A // tp, A),
        "self_attn.v_proj.weight": (A // tp, A), "self_attn.o_proj.weight": (D, A // tp),
        "feed_forward.gate_up_proj.weight": (2 * F // tp, D), "feed_forward.down_proj.weight": (D, F // tp),
        "input_layernorm.weight": (2 * D,), "pre_ff_layernorm.weight": (D,),
    }  # fmt: skip
    for i in range(hybrid):  # one adapter per hybrid layer (block_idx % num_mem_blocks == 0)
        for name in ("q", "k", "v"):
            expected[f"self_attn.linear_{name}_adapter_list.{i}.0.weight"] = (R // tp, A)
            expected[f"self_attn.linear_{name}_adapter_list.{i}.1.weight"] = (A // tp, R)
        expected[f"feed_forward.gate_up_proj_adapter_list.{i}.0.weight"] = (R // tp, D)
        expected[f"feed_forward.gate_up_proj_adapter_list.{i}.1.weight"] = (2 * F // tp, R)
    assert block == expected
    assert _mixer_shapes(share, "model.layers.1.shared_transformer.") == {}  # tied to layer 0's: held once
    shapes = {t.name: t.rank_shape for t in share.stages[0].tensors}
    assert shapes["model.layers.1.linear.weight"] == (D, D)
    c = cost(tree, seq_len=7, batch=3, tp=tp)  # float32
    assert c.rank_kv_bytes == hybrid * 2 * 3 * 7 * (H // tp) * d * 4
    conv_dim = 128 + 2 * tp * 16  # the mixers' one group replicated: G' = tp
    assert c.rank_state_bytes == 4 * 3 * (conv_dim // tp * 4 * 4 + 4 // tp * 32 * 16 * 4)
    assert parallel.plan(tree).stages[0].parameters == count(tree)  # the shared block counted once at tp 1


def test_zamba2_refusals_name_the_key() -> None:
    """adapter_rank tp does not divide, num_attention_heads, pipeline stages (no SupportsPP), a changed adapter."""
    with pytest.raises(ValueError, match=r"tp=4 does not divide adapter_rank \(the rows of model.layers.0"):
        parallel.plan(_zamba2(adapter_rank=6), tp=4)
    with pytest.raises(ValueError, match="tp=8 does not divide num_attention_heads"):
        parallel.plan(_zamba2(n_mamba_heads=8, mamba_headdim=16), tp=8)
    with pytest.raises(ValueError, match="pp=2: vLLM serves Zamba2 in one pipeline stage.*SupportsPP"):
        parallel.plan(_zamba2(), pp=2)
    block = next(m for path, m in named_modules(_zamba2()) if path.endswith("layers.0.shared_transformer.feed_forward"))
    adapters = next(c for c in block.children if c.name == "gate_up_proj_adapter_list")
    broken = adapters.replace(children=(adapters.children[0].replace(children=adapters.children[0].children[:1]),))
    with pytest.raises(ValueError, match="not a LoRA adapter of Zamba2's"):
        parallel.plan(_model(block.replace(children=(*block.children[:2], broken))), tp=2)
    hybrid = next(m for path, m in named_modules(_zamba2()) if path.endswith("layers.1"))
    with pytest.raises(ValueError, match="its linear is not Zamba2's"):
        parallel.plan(_model(hybrid.replace(children=tuple(c for c in hybrid.children if c.name != "linear"))), tp=2)


def _kimi(**config: Any) -> Module:
    """Kimi-Linear: D = 32, a KDA layer (H = 4 heads of d = 4, K = 3) then an MLA layer (4 heads), both MLPs dense."""
    base = {"vocab_size": 64, "pad_token_id": 0, "hidden_size": 32, "intermediate_size": 16, "num_hidden_layers": 2,
            "num_attention_heads": 4, "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 4,
            "v_head_dim": 4, "linear_head_dim": 4, "linear_num_heads": 4, "linear_conv_kernel_dim": 3,
            "first_k_dense_replace": 2, "layer_types": ["linear_attention", "full_attention"]}  # fmt: skip
    return config_model("kimi_linear").build({**base, **config})


@pytest.mark.parametrize("tp", [2, 4])
def test_kda_splits_its_heads(tp: int) -> None:
    """vLLM's KimiGatedDeltaNetAttention: q, k, v, b and the gates' B projections H / tp heads (P = H·d), f_a_proj
    (its replicated shard), g_a_proj and o_norm whole, conv1d 3P / tp, dt_bias P / tp, A_log H / tp; the states
    (kda_state_shape) 3P / tp conv channels and (H / tp, d, d)."""
    D, H, d, K = 32, 4, 4, 3
    P = H * d
    share = parallel.plan(_kimi(), tp=tp)
    assert _mixer_shapes(share, "model.layers.0.self_attn.") == {
        "q_proj.weight": (P // tp, D), "k_proj.weight": (P // tp, D), "v_proj.weight": (P // tp, D),
        "b_proj.weight": (H // tp, D), "conv1d.weight": (3 * P // tp, 1, K),
        "forget_gate.dt_bias": (P // tp,), "forget_gate.A_log": (1, 1, H // tp, 1),
        "forget_gate.f_a_proj.weight": (d, D), "forget_gate.f_b_proj.weight": (P // tp, d),
        "g_a_proj.weight": (d, D), "g_b_proj.weight": (P // tp, d), "o_norm.weight": (d,),
        "o_proj.weight": (D, P // tp),
    }  # fmt: skip
    latent = _mixer_shapes(share, "model.layers.1.self_attn.")
    assert latent["kv_b_proj.weight"] == (H * (4 + 4) // tp, 8) and latent["kv_a_proj_with_mqa.weight"] == (8 + 4, D)
    states = {s.shape for s in share.stages[0].states if s.name in ("conv_states", "recurrent_states")}
    assert states == {("batch", 3 * P // tp, K), ("batch", H // tp, d, d)}
    c = cost(_kimi(), seq_len=5, batch=3, tp=tp)  # float32 (the default dtype); the latent cache whole
    assert c.rank_state_bytes == 3 * (3 * P // tp * K * 4 + H // tp * d * d * 4)
    assert c.rank_kv_bytes == 3 * 5 * (8 + 4) * 4


def test_kda_and_lightning_refusals_name_them() -> None:
    """A tp that does not divide the KDA heads is refused naming linear_num_heads; a changed KDA layer by name;
    MiniMax's lightning attention as what it is (vLLM 0.33.0 no longer serves MiniMax-Text-01 or -M1)."""
    with pytest.raises(ValueError, match=r"tp=2 does not divide linear_num_heads \(linear_attn_config's num_heads\)"):
        parallel.plan(_kimi(linear_num_heads=3), tp=2)
    mixer = next(m for path, m in named_modules(_kimi()) if path.endswith("layers.0.self_attn"))
    with pytest.raises(ValueError, match="its tensors are not KDA's"):
        parallel.plan(_model(mixer.replace(children=mixer.children[1:])), tp=2)
    with pytest.raises(ValueError, match="its sizes are not KDA's"):
        parallel.plan(_model(mixer.replace(cache=(mixer.cache[0], State("recurrent_states", ("batch", 4, 4, 5))))),
                      tp=2)  # fmt: skip
    with pytest.raises(ValueError, match="MiniMaxLightningAttention .*no longer serves MiniMax-Text-01"):
        parallel.plan(explain({"model_type": "minimax"}).module, tp=2)
    with pytest.raises(ValueError, match="no tensor-parallel rule for .*Bailing-hybrid's KDA"):
        parallel.plan(explain({"model_type": "bailing_hybrid"}).module, tp=2)
