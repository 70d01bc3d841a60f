"""Weights as stored (derive.analysis.stored) against each quantizer's own build, tensor by tensor.

Every expected tensor is read off the real thing, in a subprocess (``tests/support/quant_worker.py``): the
tiny transformers model's modules replaced by transformers' quantizer on the meta device (fine-grained FP8,
GPTQ and AWQ through GPTQModel, compressed-tensors), or a checkpoint bitsandbytes wrote on this CPU (its
safetensors header). transformers' FP8 runs in the test environment; the other quantizers' packages live in
their own environment, named by ``DERIVE_QUANT_PYTHON`` (checked with bitsandbytes 0.50.2, compressed-tensors
0.20.0, gptqmodel 7.7.0 with optimum 2.3.0, on transformers 5.23.0): where it is not set, or lacks the
package, those cases are skipped saying so. ``scripts/bootstrap --test`` makes that environment, ``.venv-quant``
(bitsandbytes, compressed-tensors and accelerate on torch 2.13.0; ``scripts/test`` points
``DERIVE_QUANT_PYTHON`` at it), so CI runs all but the GPTQ and AWQ cases: GPTQModel 7.7.0 requires
torch >= 2.14.1.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import live_record
import pytest

import derive
from derive.analysis import stored as stored_module
from derive.analysis.cost import cost
from derive.cli import main

#: One worker runs every case (the module is one xdist group, its builds made once).
pytestmark = pytest.mark.xdist_group("stored")

WORKER = Path(__file__).resolve().parents[1] / "support" / "quant_worker.py"

LLAMA = {"vocab_size": 128, "hidden_size": 256, "intermediate_size": 384, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2}  # fmt: skip
QWEN2 = {**LLAMA, "tie_word_embeddings": False}
GPT2 = {"vocab_size": 128, "n_embd": 128, "n_layer": 2, "n_head": 4, "n_positions": 64}
MIXTRAL = {**LLAMA, "num_local_experts": 4, "num_experts_per_tok": 2}
JAMBA = {"vocab_size": 128, "hidden_size": 256, "intermediate_size": 384, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
         "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2, "expert_layer_offset": 1,
         "mamba_d_state": 16, "mamba_expand": 2, "mamba_dt_rank": 16, "tie_word_embeddings": False}  # fmt: skip

ARCH = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "gpt2": "GPT2LMHeadModel",
        "mixtral": "MixtralForCausalLM", "jamba": "JambaForCausalLM"}  # fmt: skip


def _ct(weights: dict, fmt: str, ignore: list | None = None, inputs: dict | None = None) -> dict:
    return {"quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
            "ignore": ["lm_head"] if ignore is None else ignore,
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": inputs,
                                          "output_activations": None}}}  # fmt: skip


INT4_GROUP = {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128, "dynamic": False}
FP8_TENSOR = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "tensor", "dynamic": False}
STATIC = {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "tensor", "dynamic": False}

#: (id, model_type, config, quantization_config, mode)
CASES = [
    # transformers' fine-grained FP8 (integrations/finegrained_fp8.py): the DeepSeek-V3 layout and its variants
    ("fp8-block", "llama", LLAMA, {"quant_method": "fp8", "weight_block_size": [128, 128]}, "meta"),
    ("fp8-tensor", "llama", LLAMA, {"quant_method": "fp8", "weight_block_size": None}, "meta"),
    ("fp8-static", "qwen2", QWEN2, {"quant_method": "fp8", "weight_block_size": [64, 128], "activation_scheme": "static"}, "meta"),
    ("fp8-experts", "mixtral", MIXTRAL, {"quant_method": "fp8", "weight_block_size": [128, 128]}, "meta"),
    ("fp8-experts-static", "mixtral", MIXTRAL, {"quant_method": "fp8", "weight_block_size": [32, 64], "activation_scheme": "static"}, "meta"),
    ("fp8-jamba", "jamba", JAMBA, {"quant_method": "fp8", "weight_block_size": [128, 128]}, "meta"),
    ("fp8-skip", "llama", LLAMA, {"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": ["lm_head", "model.layers.1.mlp", "k_proj"]}, "meta"),
    ("fp8-fmt-torch", "llama", LLAMA, {"quant_method": "fp8", "weight_block_size": [128, 128], "fmt": "float8_e4m3fn"}, "meta"),
    ("fp8-ue8m0", "llama", LLAMA, {"quant_method": "fp8", "weight_block_size": [128, 128], "scale_fmt": "ue8m0"}, "meta"),
    # bitsandbytes on the CPU: the header of the checkpoint it writes
    ("bnb-nf4-double", "llama", LLAMA, {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True}, "checkpoint"),
    ("bnb-fp4", "qwen2", QWEN2, {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "fp4"}, "checkpoint"),
    ("bnb-nf4-gpt2", "gpt2", GPT2, {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}, "checkpoint"),
    ("bnb-nf4-skip", "mixtral", MIXTRAL, {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True, "llm_int8_skip_modules": ["lm_head", "o_proj"]}, "checkpoint"),
    ("bnb-int8", "llama", LLAMA, {"quant_method": "bitsandbytes", "load_in_8bit": True}, "checkpoint"),
    ("bnb-int8-gpt2", "gpt2", GPT2, {"quant_method": "bitsandbytes", "load_in_8bit": True}, "checkpoint"),
    ("bnb-int8-jamba", "jamba", JAMBA, {"quant_method": "bitsandbytes", "load_in_8bit": True}, "checkpoint"),
    # GPTQ and AWQ through GPTQModel (transformers' quantizer_gptq / quantizer_awq)
    ("gptq-4-g128", "llama", LLAMA, {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}, "meta"),
    ("gptq-3-desc", "qwen2", QWEN2, {"quant_method": "gptq", "bits": 3, "group_size": 64, "desc_act": True, "sym": False}, "meta"),
    ("gptq-8-perchannel", "llama", LLAMA, {"quant_method": "gptq", "bits": 8, "group_size": -1, "desc_act": False, "sym": True}, "meta"),
    ("gptq-2", "llama", LLAMA, {"quant_method": "gptq", "bits": 2, "group_size": 32, "desc_act": False, "sym": True}, "meta"),
    ("gptq-gpt2", "gpt2", GPT2, {"quant_method": "gptq", "bits": 4, "group_size": 32, "desc_act": False, "sym": True}, "meta"),
    ("awq-gemm", "llama", LLAMA, {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}, "meta"),
    ("awq-gemm-bias", "qwen2", QWEN2, {"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": True, "version": "gemm", "modules_to_not_convert": ["down_proj"]}, "meta"),
    # compressed-tensors (vLLM's llm-compressor releases)
    ("ct-w4a16", "llama", LLAMA, _ct(INT4_GROUP, "pack-quantized"), "meta"),
    ("ct-w4a16-asym", "llama", LLAMA, _ct({**INT4_GROUP, "symmetric": False, "group_size": 64}, "pack-quantized"), "meta"),
    ("ct-w8a16-channel", "qwen2", QWEN2, _ct({"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel", "dynamic": False}, "pack-quantized"), "meta"),
    ("ct-int8-w8a8", "llama", LLAMA, _ct({"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel", "dynamic": False}, "int-quantized", inputs={"num_bits": 8, "type": "int", "symmetric": True, "strategy": "token", "dynamic": True}), "meta"),
    ("ct-fp8-static", "llama", LLAMA, _ct(FP8_TENSOR, "float-quantized", inputs=STATIC), "meta"),
    ("ct-fp8-block", "llama", LLAMA, _ct({**FP8_TENSOR, "strategy": "block", "block_structure": [128, 128]}, "float-quantized", ignore=["lm_head", "re:.*mlp.down_proj"]), "meta"),
]  # fmt: skip


def _python() -> str:
    return os.environ.get("DERIVE_QUANT_PYTHON") or sys.executable


def _ask(model_type: str, config: dict, quantization: dict, mode: str, dtype: str = "bfloat16") -> dict:
    return {
        "model_type": model_type,
        "config": config,
        "quantization_config": quantization,
        "dtype": dtype,
        "mode": mode,
    }


def _run(asks: list[dict]) -> list[dict]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TRANSFORMERS_VERBOSITY": "error", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [_python(), str(WORKER), "-"], input=json.dumps(asks), capture_output=True, text=True, env=env, timeout=1800
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@functools.cache
def _built() -> dict[str, dict]:
    """Every case's build, by its id, from one worker process (torch and the quantizers imported once)."""
    return dict(zip([c[0] for c in CASES], _run([_ask(*c[1:]) for c in CASES])))


@pytest.mark.parametrize(("case", "model_type", "config", "quantization", "mode"), CASES, ids=[c[0] for c in CASES])
def test_stored_tensors_match_the_quantizers_build(case, model_type, config, quantization, mode) -> None:
    real = _built()[case]
    assert "error" not in real, real["error"]
    if "missing" in real:
        pytest.skip(f"{real['missing']} is not installed for {_python()} (set DERIVE_QUANT_PYTHON to its environment)")
    expected = {k: (d, tuple(s)) for k, (d, s) in real["tensors"].items() if k not in set(real["buffers"])}
    priced = cost({"model_type": model_type, **config, "quantization_config": quantization}, 1, 1, "bfloat16")
    ours = {t.name: (t.dtype, t.shape) for t in priced.stored_tensors}
    offsets = real.get("offsets", {})
    for name, text in offsets.items():  # the float text of a double-quantized state: its length the weights'
        dtype, (length,) = ours[name]
        assert length >= expected[name][1][0] == length - stored_module.OFFSET_TEXT + len(text), name
        ours[name] = expected[name]
    assert ours == expected
    header = {k: (d, tuple(s)) for k, (d, s) in real.get("header", {}).items()}
    if header and set(header) == set(expected):  # the file bitsandbytes wrote, where it names tensors as in memory
        assert ours == header
    assert priced.weights_bytes == sum(t.nbytes for t in priced.stored_tensors)
    live_record.checked("transformers", ARCH[model_type])
    live_record.checked_memory("stored", _method(quantization), against=real["quantizer"], versions=real["versions"])


def _method(quantization: dict) -> str:
    """The record's method of a case (docs_src.record.MEMORY["stored"]): bitsandbytes by its bits."""
    method = quantization["quant_method"]
    if method == "bitsandbytes":
        return "bnb-4bit" if quantization.get("load_in_4bit") else "bnb-8bit"
    return method


def test_fp8_release_shape_deepseek_style() -> None:
    """The fp8 layout at a released scale without running anything: weight_scale_inv of a 7168 x 18432
    linear in blocks of 128 is (56, 144) float32 (DeepSeek-V3's ``weight_block_size`` [128, 128])."""
    config = {"model_type": "llama", "hidden_size": 7168, "intermediate_size": 18432, "num_hidden_layers": 1,
              "num_attention_heads": 56, "num_key_value_heads": 8, "vocab_size": 256,
              "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}  # fmt: skip
    tensors = {t.name: t for t in cost(config, 1, 1, "bfloat16").stored_tensors}
    assert tensors["model.layers.0.mlp.up_proj.weight_scale_inv"].shape == (144, 56)
    assert tensors["model.layers.0.mlp.down_proj.weight_scale_inv"].shape == (56, 144)
    assert tensors["lm_head.weight"].dtype == "bfloat16"


@pytest.mark.parametrize(
    ("quantization", "key"),
    [
        ({"quant_method": "hqq"}, "hqq"),
        ({"quant_method": "mxfp4"}, "gpt-oss"),
        ({"quant_method": "fp8", "fmt": "e5m2"}, "fmt"),
        ({"quant_method": "bitsandbytes"}, "load_in_4bit"),
        ({"quant_method": "awq", "bits": 4, "version": "gemv"}, "version"),
        ({"quant_method": "gptq", "bits": 5}, "bits"),
        ({"quant_method": "compressed-tensors", "format": "marlin-24"}, "format"),
        ({"bits": 4}, "quant_method"),
        # layouts derive does not store: GPTQ's Marlin checkpoints, AWQ without zero points, FP8 embeddings
        ({"quant_method": "gptq", "bits": 4, "group_size": 128, "checkpoint_format": "marlin"}, "checkpoint_format"),
        ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": False, "version": "gemm"}, "zero_point"),
        ({"quant_method": "fp8", "modules_to_convert": ["embed_tokens"]}, "modules_to_convert"),
    ],
)
def test_refused_naming_the_key(quantization: dict, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        cost({"model_type": "llama", **LLAMA, "quantization_config": quantization}, 1, 1)


@pytest.mark.parametrize(
    ("quantization", "key"),
    [
        ({"quant_method": "gptq", "bits": 4, "group_size": 0}, "group_size"),
        ({"quant_method": "fp8", "weight_block_size": [128]}, "weight_block_size"),
        ({"quant_method": "fp8", "weight_block_size": [128, 0]}, "weight_block_size"),
        ({"quant_method": "fp8", "expert_dtype": "bfloat16"}, "expert_dtype"),
    ],
)
def test_refused_naming_the_key_where_transformers_refuses_it(quantization: dict, key: str) -> None:
    """Values transformers' own quantization config classes refuse (``GPTQConfig.post_init``,
    ``FineGrainedFP8Config.post_init``): derive refuses them too, naming the key and the value."""
    from transformers.quantizers.auto import AutoQuantizationConfig

    with pytest.raises(ValueError, match=key):
        AutoQuantizationConfig.from_dict(copy.deepcopy(quantization))
    with pytest.raises(ValueError, match=key) as refused:
        cost({"model_type": "llama", **LLAMA, "quantization_config": copy.deepcopy(quantization)}, 1, 1)
    assert repr(quantization[key]) in str(refused.value)


def test_gptq_with_fused_experts_is_refused() -> None:
    with pytest.raises(ValueError, match="routed expert"):
        cost({"model_type": "mixtral", **MIXTRAL, "quantization_config": {"quant_method": "gptq", "bits": 4}}, 1, 1)


def test_not_quantized_is_the_parameters_at_the_dtype() -> None:
    c = cost({"model_type": "llama", **LLAMA, "torch_dtype": "bfloat16"}, 1, 1)
    assert c.dtype == "bfloat16" and c.quant_method is None
    assert c.weights_bytes == c.weight_bytes == 2 * derive.explain({"model_type": "llama", **LLAMA}).total
    assert {t.dtype for t in c.stored_tensors} == {"bfloat16"}


def test_should_convert_as_transformers() -> None:
    """derive's copy of transformers' matching rule against transformers' own, over names and patterns."""
    from transformers.quantizers.quantizers_utils import should_convert_module

    names = ["lm_head", "model.layers.1.mlp", "model.layers.11.mlp", "model.layers.0.mlp.gate_proj",
             "model.layers.0.mlp.gate", "model.decoder.layers.23.fc1", "model.layers.3.self_attn.k_proj"]  # fmt: skip
    patterns = [
        ["lm_head"],
        ["model.layers.1"],
        ["mlp.gate"],
        ["fc1"],
        ["model.layers.*.self_attn"],
        ["k_proj", "lm_head"],
        None,
    ]
    for name in names:
        for pattern in patterns:
            assert stored_module.should_convert(name, pattern) == should_convert_module(name, pattern), (name, pattern)


def test_cli_reads_a_quantized_config(tmp_path) -> None:
    """``derive config.json`` with a quantization_config: the logical model counted as from_config builds it (the
    key no longer refused), and --cost its weights as stored."""
    config = {"model_type": "llama", **LLAMA, "torch_dtype": "bfloat16",
              "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    plain = {k: v for k, v in config.items() if k != "quantization_config"}

    def run(*argv: str) -> tuple[int, str, str]:  # the command line in this process, as a shell runs it
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main([str(path), *argv])
        return status, out.getvalue(), err.getvalue()

    counted = json.loads(run("--json")[1])
    assert counted["total"] == derive.explain(plain).total
    data = json.loads(run("--cost", "--json")[1])
    ours = cost(config, 1, 1)
    assert data["cost"]["quant_method"] == "fp8" and data["cost"]["dtype"] == "bfloat16"
    assert data["cost"]["weights_bytes"] == ours.weights_bytes < data["cost"]["weight_bytes"]
    assert data["cost"]["weights_by_dtype"] == ours.weights_by_dtype
    status, text, _ = run("--cost")
    assert status == 0 and f"weights as stored (fp8): {ours.weights_bytes:,} B" in text
    path.write_text(json.dumps({**config, "quantization_config": {"quant_method": "hqq"}}))
    status, _, err = run("--cost")
    assert status == 2 and "'hqq'" in err


def test_mxfp4_blocks_dequantize_to_gpt_oss_experts() -> None:
    """MXFP4 (gpt-oss): transformers' own dequantizer (``integrations/mxfp4.py``, ``convert_moe_packed_tensors``:
    a byte holds two e2m1 values, a block of 16 bytes one E8M0 scale, and the result transposed back) turns
    derive's ``*_blocks`` and ``*_scales``, under the names transformers' quantizer serializes
    (``Mxfp4HfQuantizer.serialized_names``), into exactly the shapes of the live gpt-oss model's experts. The
    quantizer itself does not run here (its kernels come from the Hub), and derive builds no gpt-oss from a
    config: the tree is the live model's, read by derive.explain."""
    import torch
    import transformers
    from transformers.integrations.mxfp4 import convert_moe_packed_tensors
    from transformers.quantizers.quantizer_mxfp4 import Mxfp4HfQuantizer

    cfg = transformers.AutoConfig.for_model("gpt_oss", vocab_size=128, hidden_size=64, intermediate_size=96,
                                            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                            num_local_experts=4, head_dim=16)  # fmt: skip
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg)
    tree = derive.explain(model).module
    tensors = {t.name: t for t in stored_module.stored(tree, {"quant_method": "mxfp4"}, "bfloat16").tensors}
    live = dict(model.named_parameters())
    for layer in range(2):
        experts = f"model.layers.{layer}.mlp.experts"
        for proj, names in Mxfp4HfQuantizer.serialized_names.items():
            blocks, scales = (tensors[f"{experts}.{n}"] for n in names)
            assert blocks.dtype == scales.dtype == "uint8"
            made = convert_moe_packed_tensors(torch.zeros(blocks.shape, dtype=torch.uint8),
                                              torch.full(scales.shape, 127, dtype=torch.uint8))  # fmt: skip
            assert tuple(made.shape) == tuple(live[f"{experts}.{proj}"].shape)
            assert f"{experts}.{proj}" not in tensors
        assert tensors[f"model.layers.{layer}.self_attn.q_proj.weight"].dtype == "bfloat16"
    live_record.checked_memory("stored", "mxfp4", against=convert_moe_packed_tensors.__name__)


@pytest.mark.parametrize(("case", "model_type", "config", "quantization", "mode"), CASES, ids=[c[0] for c in CASES])
def test_stored_tensors_hold_every_parameter_once(case, model_type, config, quantization, mode) -> None:
    """Every case, where its quantizer runs or not: the stored tensors' bytes are the weights' bytes, fewer than
    the bf16 parameters' (every method here stores fewer), and every parameter transformers builds is stored
    under its own name or packed under its module's (the names the quantizers' builds above give)."""
    import hf_live

    priced = cost({"model_type": model_type, **config, "quantization_config": quantization}, 1, 1, "bfloat16")
    assert priced.weights_bytes == sum(t.nbytes for t in priced.stored_tensors)
    assert 0 < priced.weights_bytes < priced.weight_bytes
    stored = {t.name.rsplit(".", 1)[0] for t in priced.stored_tensors} | {t.name for t in priced.stored_tensors}
    for name, _ in hf_live.tensors(hf_live.build(model_type, copy.deepcopy(config))):
        assert name in stored or name.rsplit(".", 1)[0] in stored, (case, name)


#: A llama whose widths are no multiple of 32 (hidden 80, intermediate 200): GPTQ's and AWQ's packing rounds up.
ODD = {"vocab_size": 64, "hidden_size": 80, "intermediate_size": 200, "num_hidden_layers": 1,
       "num_attention_heads": 2, "num_key_value_heads": 1}  # fmt: skip


def _packed(config: dict) -> dict:
    c = cost({"model_type": "llama", **ODD, "quantization_config": config}, 1, 1, "float16")
    return {t.name: (t.dtype, t.shape) for t in c.stored_tensors if ".mlp.down_proj." in t.name}


def test_gptq_and_awq_round_their_packing_up_as_gptqmodel_registers_it() -> None:
    """down_proj is Linear(200, 80): in 200, out 80. GPTQModel 7.7.0 (gptqmodel/nn_modules/qlinear/__init__.py,
    ``_register_gptq_buffers``, lines 922-958): qweight (ceil(in·bits / 32), out), qzeros (ceil(in / group),
    ceil(out·bits / 32)), scales (ceil(in / group), out) float16, g_idx (in,); ``AWQuantLinear.__init__`` (lines 1769-1790,
    the buffers transformers' replace_with_awq_linear asks for): qweight (in, ceil(out·bits / 32)), qzeros and
    scales (in // group rows). gptqmodel does not install on torch 2.13.0 (the quantizers' build test skips)."""
    gptq = _packed({"quant_method": "gptq", "bits": 3, "group_size": 64, "desc_act": False, "sym": True})
    name = "model.layers.0.mlp.down_proj."
    assert gptq == {
        name + "qweight": ("int32", (19, 80)),  # ceil(200 * 3 / 32) = ceil(18.75)
        name + "qzeros": ("int32", (4, 8)),  # ceil(200 / 64) = 4 groups; ceil(80 * 3 / 32) = ceil(7.5)
        name + "scales": ("float16", (4, 80)),
        name + "g_idx": ("int32", (200,)),
    }
    awq = _packed({"quant_method": "awq", "bits": 4, "group_size": 40, "zero_point": True, "version": "gemm"})
    assert awq == {
        name + "qweight": ("int32", (200, 10)),  # ceil(80 * 4 / 32)
        name + "qzeros": ("int32", (5, 10)),  # 200 // 40 groups
        name + "scales": ("float16", (5, 80)),
    }
    with pytest.raises(ValueError, match=r"group_size 64 does not divide model\.layers\.0\.self_attn\.q_proj's 80"):
        _packed({"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": True, "version": "gemm"})
