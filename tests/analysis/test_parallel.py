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

import live_record
import pytest

from derive.analysis import parallel
from derive.analysis.cost import cost
from derive.blocks import config_model
from derive.tree import Module, Param, State

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


@pytest.mark.slow
@pytest.mark.parametrize("model_type", MOE)
def test_expert_parallel_ranks_hold_transformers_experts(ranks: dict, model_type: str) -> None:
    """With ep the experts whole, E / tp a rank, as transformers' expert parallelism (ep_size = tp_size) holds
    them (its base_model_ep_plan: grouped_gemm), the attention still tensor parallel."""
    _compare(ranks[(2, True)], model_type, MOE.index(model_type), 2, True)
    live_record.checked("transformers", ARCH[model_type])


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
    with pytest.raises(ValueError, match="no tensor-parallel rule .*Mamba2Mixer"):
        cost(config_model("mamba2").build({"num_hidden_layers": 1}), tp=2)
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
    mamba.write_text(json.dumps({"model_type": "mamba", "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 128}),
                     encoding="utf-8")  # fmt: skip
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
        "derive splits nn.Linear": _model(_attention().replace(children=(
            Module("q_proj", "Conv1D", (Param("weight", (8, 4)),)), *_attention().children[1:]))),
        "derive splits an MLP": _model(Module("mlp", "MLP", children=(Module("c_fc", "Linear", (Param("w", (4, 4)),)),),
                                              part="MLP")),
        "the cache 'indexer_keys'": _model(_attention().replace(cache=(State("indexer_keys", ("batch", "tokens", 4)),))),
        r"Mixer \(layers.0.mixer\) and its cache": _model(Module("mixer", "Mixer", cache=(State("h", ("batch", 4)),))),
        "not yet Mamba-2": _model(Module("mixer", "Mixer", (Param("A", (4,)),))),
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
