"""The language-model families' fast checks: released models' totals and active counts against
transformers' own build and the published figures, the Jamba paper's KV-cache comparison, the
refusals, the CLI and JSON. The drawn matrices are in ``test_families_live.py`` (slow).

Released configs are the config classes' defaults where transformers documents them as the
released model (``configuration_llama.py``: "a similar configuration to that of the LLaMA-7B";
``configuration_mistral.py``: Mistral-7B-v0.1; ``configuration_mixtral.py``: Mixtral-8x7B-v0.1;
``configuration_jamba.py``: ai21labs/Jamba-v0.1), written out here key by key.
"""

from __future__ import annotations

import json
import subprocess
import sys

import hf_cache
import hf_live
import pytest
import sympy

import derive
import derive.blocks
import derive.families.llama
from derive.analysis.cost import cost, model_cost
from derive.families.family import release
from derive.tree import active
from docs_src.pages.language_models import RELEASED

#: The releases as derive stores them (derive/families/data/<model_type>.json: each config.json as published).
LLAMA_2_7B = dict(release("meta-llama/Llama-2-7b-hf").config)
MISTRAL_7B = dict(release("mistralai/Mistral-7B-v0.1").config)
MIXTRAL_8X7B = dict(release("mistralai/Mixtral-8x7B-v0.1").config)
#: ai21labs/Jamba-v0.1's shape keys, as the site gives them (JambaConfig's defaults, configuration_jamba.py).
JAMBA_V01 = dict(RELEASED["jamba-v0.1"].config)


@pytest.mark.parametrize(
    ("config", "published_total", "published_active"),
    [
        (LLAMA_2_7B, 6.7e9, 6.7e9),  # Llama 2 paper, Table 1: 7B (6.74B)
        (MISTRAL_7B, 7.2e9, 7.2e9),  # Mistral 7B model card: 7.3B
        (MIXTRAL_8X7B, 46.7e9, 12.9e9),  # Mixtral of Experts (arXiv 2401.04088) §2: 47B total, 13B active
        (JAMBA_V01, 52e9, 12e9),  # ai21labs/Jamba-v0.1 README: 52B total, 12B active
    ],
    ids=["llama-2-7b", "mistral-7b", "mixtral-8x7b", "jamba-v0.1"],
)
def test_released_totals_and_active(config: dict, published_total: float, published_active: float) -> None:
    """Total and active against transformers' build on the meta device; rounded, against the published figure."""
    model_type = config["model_type"]
    live = hf_live.build(model_type, {k: v for k, v in config.items() if k != "model_type"})
    report = derive.explain(config)
    assert report.total == hf_live.total(live)
    assert report.active == hf_live.active(live)
    assert abs(report.total - published_total) / published_total < 0.03
    assert abs(report.active - published_active) / published_active < 0.03


def test_gpt2_small_and_gemma_as_built() -> None:
    """GPT-2 small is 124,439,808 parameters (the 124M of its model card); Gemma 2/3 text with their
    sliding/full pattern, against the meta-device build."""
    assert derive.explain({"model_type": "gpt2"}).total == hf_live.total(hf_live.build("gpt2", {})) == 124_439_808
    small = {"hidden_size": 32, "intermediate_size": 24, "num_hidden_layers": 7, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 8, "vocab_size": 40}  # fmt: skip
    for model_type in ("gemma2", "gemma3_text"):
        report = derive.explain({"model_type": model_type, **small})
        live = hf_live.build(model_type, small)
        assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(live)
        assert [(b["name"], tuple(b["shape"])) for b in report.buffers] == hf_live.buffers(live)


def test_jamba_paper_kv_cache_at_256k() -> None:
    """Jamba paper (arXiv 2403.19887) Table 1: KV cache at 256K tokens in 16-bit: Jamba 4GB, Mixtral 32GB, Llama-2 7B 128GB."""
    gib = 2**30
    kv = {name: cost(c, 262144, 1, "bfloat16") for name, c in
          (("jamba", JAMBA_V01), ("mixtral", MIXTRAL_8X7B), ("llama", LLAMA_2_7B))}  # fmt: skip
    assert kv["jamba"].kv_bytes_per_token * 262144 == 4 * gib
    assert kv["mixtral"].cache_bytes == 32 * gib
    assert kv["llama"].cache_bytes == 128 * gib
    # Jamba's cache also holds its 28 Mamba layers' states, constant in T: conv (B, 8192, 4) in bf16, ssm (B, 8192, 16) in fp32
    assert kv["jamba"].state_bytes == 28 * (8192 * 4 * 2 + 8192 * 16 * 4)
    assert kv["jamba"].cache_bytes == 4 * gib + kv["jamba"].state_bytes


def test_jamba_kv_per_token_as_the_live_cache_holds_it() -> None:
    """A 32-layer Jamba of Jamba-v0.1's pattern, 8 KV heads of 128, run: its cache grows by 16 KiB per token in bf16."""
    small = {"vocab_size": 16, "hidden_size": 1024, "intermediate_size": 8, "num_hidden_layers": 32,
             "num_attention_heads": 8, "num_key_value_heads": 8, "num_experts": 2, "num_experts_per_tok": 1,
             "mamba_d_state": 1, "mamba_expand": 1, "mamba_dt_rank": 1}  # fmt: skip
    model = hf_cache.tiny("jamba", small, "bfloat16")
    one, _ = hf_cache.run(model, 1, 1)
    two, _ = hf_cache.run(model, 1, 2)
    assert two - one == cost(JAMBA_V01, 1, 1, "bfloat16").kv_bytes_per_token == 16384
    assert one == cost({"model_type": "jamba", **small}, 1, 1, "bfloat16").cache_bytes


def test_cache_and_flops_of_a_tiny_mixtral_run() -> None:
    config = {"hidden_size": 32, "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "vocab_size": 40, "num_local_experts": 3, "sliding_window": 3}  # fmt: skip
    model = hf_cache.tiny("mixtral", config)
    held, flops = hf_cache.run(model, 2, 5)
    assert cost({"model_type": "mixtral", **config}, 5, 2).cache_bytes == held
    assert cost({"model_type": "mixtral", **config}, 6, 2).flops_per_token == flops


def test_closed_forms_in_tokens_and_batch() -> None:
    T, N = sympy.symbols("T N", integer=True, positive=True)
    c = cost(MISTRAL_7B, T, N, "bfloat16")
    assert c.cache_bytes.subs({T: 10, N: 2}) == cost(MISTRAL_7B, 10, 2, "bfloat16").cache_bytes
    assert c.cache_bytes.subs({T: 10_000, N: 1}) == 32 * (2 * 8 * 4095 * 128 * 2 + 8)
    assert c.flops_per_token.subs(T, 5000) == cost(MISTRAL_7B, 4096, 1).flops_per_token
    D = sympy.Symbol("hidden_size", integer=True, positive=True)
    symbolic = model_cost(
        derive.families.llama.llama({**{k: v for k, v in LLAMA_2_7B.items() if k != "model_type"}, "hidden_size": D}),
        T,
        1,
    )
    assert symbolic.kv_bytes_per_token == 2 * 32 * 4 * 32 * sympy.floor(D / 32)


@pytest.mark.parametrize("config", [JAMBA_V01, MISTRAL_7B, MIXTRAL_8X7B, {"model_type": "gemma3_text"}])
def test_closed_forms_in_the_configs_letters(config: dict) -> None:
    """The JSON's closed forms, in T, N and the config's keys, give back the numbers at the config's values."""
    numeric = cost(derive.explain(config), 70_000, 3, "bfloat16")
    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values.update(
        {sympy.Symbol("T", integer=True, positive=True): 70_000, sympy.Symbol("N", integer=True, positive=True): 3}
    )
    for name, form in forms.items():
        assert sympy.sympify(form).subs(values) == getattr(numeric, name), name
    assert "hidden_size" in {str(s) for s in forms["flops_per_token"].free_symbols}


def test_dense_active_is_total_and_json() -> None:
    report = derive.explain(LLAMA_2_7B)
    assert report.active == report.total == active(report.module)
    assert report.to_dict()["active"] == report.total
    assert "active per token" not in report.text()  # a dense model's active is its total: shown once


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"model_type": "mistral", "layer_types": ["full_attention"]}, "layer_types"),
        ({"model_type": "llama", "rope_parameters": {"rope_type": "longrope"}}, "rope_parameters"),
        (
            {"model_type": "llama", "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5}},
            "rope_parameters",
        ),
        ({"model_type": "jamba", "attn_layer_offset": 8}, "attn_layer_offset"),
        ({"model_type": "mixtral", "num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
        ({"model_type": "qwen2", "num_hidden_layers": 2, "layer_types": ["full_attention"]}, "layer_types"),
        ({"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 5}, "num_key_value_heads"),
        ({"model_type": "gpt2", "add_cross_attention": True}, "add_cross_attention"),
        ({"model_type": "gpt2", "n_embd": 10, "n_head": 3}, "n_embd"),
        ({"model_type": "gpt2", "hidden_size": 10, "n_embd": 12}, "hidden_size"),
        ({"model_type": "gemma3_text", "use_bidirectional_attention": True}, "use_bidirectional_attention"),
        ({"model_type": "gemma2", "sliding_window": None}, "sliding_window"),
        ({"model_type": "gemma3_text", "sliding_window_pattern": 0}, "sliding_window_pattern"),
        (
            {"model_type": "gemma3_text", "rope_parameters": {"full_attention": {"rope_type": "longrope"}}},
            "rope_parameters",
        ),
        ({"model_type": "jamba", "num_local_experts": 4, "num_experts": 5}, "num_local_experts"),
        ({"model_type": "qwen2", "layer_types": ["sliding_attention"] * 32}, "sliding_window"),
    ],
)
def test_refused_naming_the_key(config: dict, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        derive.explain(config)


@pytest.mark.parametrize(("rope", "builds"), [
    ({"type": "su"}, False),  # Phi-3-mini-128k-instruct's first config.json (May 2024)
    ({"rope_type": "su"}, False),
    ({"type": "su", "original_max_position_embeddings": 16}, True),
    ({"type": "longrope"}, True),  # the Hub's later revision
    ({"type": "yarn"}, True),  # standardize_rope_params moves the top-level length in for yarn
])  # fmt: skip
def test_phi3_su_rope_as_transformers_reads_it(rope: dict, builds: bool) -> None:
    """Phi3Config reads ``su`` as ``longrope`` after ``standardize_rope_params`` has moved the top-level
    ``original_max_position_embeddings`` into the RoPE's object for longrope, yarn and llama3 only, so an ``su``
    object without its own fails ``validate_rope`` (KeyError) in transformers 5.23.0: derive refuses it, naming
    the key; with the key, or as longrope or yarn, both build the same model."""
    config = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 48, "num_attention_heads": 4,
              "num_hidden_layers": 2, "num_key_value_heads": 2, "pad_token_id": 0, "eos_token_id": 1,
              "max_position_embeddings": 64, "original_max_position_embeddings": 16,
              "rope_scaling": {**rope, "short_factor": [1.0] * 4, "long_factor": [2.0] * 4}}  # fmt: skip
    if builds:
        assert hf_live.check_family("phi3", config, builds=True) is not None
    else:
        with pytest.raises(KeyError, match="original_max_position_embeddings"):
            hf_live.build("phi3", json.loads(json.dumps(config)))  # transformers edits the RoPE's object
        with pytest.raises(ValueError, match="rope_scaling"):
            derive.explain({"model_type": "phi3", **config})


def test_a_key_its_class_does_not_define_is_answered_and_named() -> None:
    """``hidden_sizes`` is no key of LlamaConfig: transformers keeps it as an attribute and builds
    LlamaConfig()'s model (6,738,415,616, Llama-2-7B's shape), so derive answers that and names the key."""
    import hf_live

    report = derive.explain({"model_type": "llama", "hidden_sizes": 4})
    assert report.total == hf_live.total(hf_live.build("llama", {"hidden_sizes": 4})) == 6_738_415_616
    assert any("hidden_sizes" in note and "not keys of LlamaConfig" in note for note in report.notes)


def test_cost_refuses_what_it_cannot_price() -> None:
    with pytest.raises(TypeError):
        model_cost("llama")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cost(object())


def test_cli_cost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(JAMBA_V01))
    run = [sys.executable, "-m", "derive", str(path), "--cost", "--seq-len", "262144", "--dtype", "bfloat16"]
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, check=True).stdout)
    assert data["active"] == derive.explain(JAMBA_V01).active
    assert data["cost"]["cache_bytes"] == cost(JAMBA_V01, 262144, 1, "bfloat16").cache_bytes
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "16,384 B per token" in text
    torch_model = tmp_path / "m.py"
    torch_model.write_text("import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(3, 4))\n")
    refused = subprocess.run(
        [sys.executable, "-m", "derive", str(torch_model), "--cost"], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "--cost" in refused.stderr


def test_config_text_pasted_on_the_command_line(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A config.json's text, copied from the Hub page, as INPUT and on stdin: the model transformers builds."""
    import io

    from derive.cli.app import main

    config = {"model_type": "jamba", "vocab_size": 100, "hidden_size": 32, "intermediate_size": 48,
              "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4,
              "num_experts_per_tok": 2, "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2,
              "expert_layer_offset": 1, "mamba_d_state": 4, "mamba_dt_rank": 4}  # fmt: skip
    live = hf_live.build("jamba", {k: v for k, v in config.items() if k != "model_type"})
    text = json.dumps(config, indent=2)  # on several lines, as the file is
    assert main([text, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == hf_live.total(live)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == hf_live.total(live)
    refused = {
        '{"model_type": "jamba",}': "not JSON",
        '{"model_type": "a/b",}': "not JSON",  # a "/" in a config's text does not make it a path
        '{"hidden_size": 8}': 'needs a "model_type"',
        '{"model_type": 5}': '"model_type" is a string, got 5',
        "{}": "got an empty object",
    }
    for given, words in refused.items():
        assert main([given]) == 2 and words in capsys.readouterr().err
    assert main([text, "--torch"]) == 2 and "leave out the framework option" in capsys.readouterr().err
    assert main([text, "--input-dim", "3"]) == 2 and "--input-dim" in capsys.readouterr().err
    # derive.explain reads the text by the same rule, and refuses it in the same words
    assert derive.explain(text).total == hf_live.total(live)
    with pytest.raises(derive.read.SourceError, match='needs a "model_type"'):
        derive.explain('{"hidden_size": 8}')


def test_a_line_of_transformers_without_its_import(capsys) -> None:  # type: ignore[no-untyped-def]
    """The line as transformers' documentation shows it, copied without ``from transformers import ...``."""
    from derive.cli.app import main

    sizes = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
             "vocab_size": 100}  # fmt: skip
    live = hf_live.total(hf_live.build("llama", sizes))
    args = ", ".join(f"{k}={v}" for k, v in sizes.items())
    for line in (
        f"LlamaForCausalLM(LlamaConfig({args}))",
        f"model = LlamaForCausalLM(LlamaConfig({args}))",
        f"AutoModelForCausalLM.from_config(LlamaConfig({args}))",
    ):
        assert main([line, "--json"]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["total"] == live, line
        assert derive.explain(line).total == live, line
    # a model on the Hub is named, not read: derive reads no network
    assert main(["ai21labs/Jamba-v0.1"]) == 2
    assert "hf download ai21labs/Jamba-v0.1 config.json" in capsys.readouterr().err
    assert main(["AutoModelForCausalLM.from_pretrained('ai21labs/Jamba-v0.1')"]) == 2
    assert "give derive the config.json" in capsys.readouterr().err


def test_code_builds_a_family() -> None:
    report = derive.explain("from transformers import LlamaConfig, LlamaForCausalLM\n"
                            "model = LlamaForCausalLM(LlamaConfig(hidden_size=64, intermediate_size=96, "
                            "num_hidden_layers=2, num_attention_heads=4, vocab_size=100))\n")  # fmt: skip
    live = hf_live.build("llama", {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
                                   "num_attention_heads": 4, "vocab_size": 100})  # fmt: skip
    assert report.total == hf_live.total(live)


@pytest.mark.slow
@pytest.mark.parametrize(
    "model_type", ["llama", "mistral", "qwen2", "mixtral", "jamba", "gemma2", "gemma3_text", "gpt2"]
)
def test_a_live_config_object_at_its_defaults(model_type: str) -> None:
    """derive.explain(PretrainedConfig) of each family at the config class's defaults, against its meta build."""
    import transformers

    report = derive.explain(transformers.AutoConfig.for_model(model_type))
    assert report.total == hf_live.total(hf_live.build(model_type, {}))


@pytest.mark.parametrize("model_type", ["llama", "mistral", "qwen2"])
def test_symbolic_number_of_layers(model_type: str) -> None:
    """``num_hidden_layers`` as a SymPy symbol L: the total is a polynomial in L (the report's note says
    "L identical blocks"); at L = 1, 2, 3 it is what transformers builds."""
    layers = sympy.Symbol("L", integer=True, positive=True)
    small = {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24, "num_attention_heads": 4,
             "num_key_value_heads": 2}  # fmt: skip
    report = derive.explain({"model_type": model_type, **small, "num_hidden_layers": layers})
    assert report.total.free_symbols == {layers}
    assert any("L identical blocks" in row.note for row in report.rows)
    for n in (1, 2, 3):
        assert report.total.subs(layers, n) == hf_live.total(
            hf_live.build(model_type, {**small, "num_hidden_layers": n})
        )


#: Every model type transformers builds from a config that derive reads (fla's RWKV-6/7 and
#: mamba_ssm are not transformers classes): at the config class's defaults, LFM2-MoE with a pattern,
#: Qwen4-Exp with the QSA indexer's keys its indexed layers need, and the classes whose null default
#: ``head_dim`` transformers cannot build (Ministral, HunYuan) with one.
_HEAD_DIM_NEEDED = ("ministral", "hunyuan_v1_dense", "hunyuan_v1_moe")
PART_CONFIGS = [
    (t, {"head_dim": 128} if t in _HEAD_DIM_NEEDED else {})
    for t in sorted(derive.blocks.CONFIG_MODELS)
    if t not in ("lfm2_moe", "qwen4_exp_text", "mamba_ssm", "rwkv6", "rwkv7")
    and not derive.blocks.CONFIG_MODELS[t].alias_of  # kimi_k2: transformers builds it as deepseek_v3 only
]
PART_CONFIGS.append(("lfm2_moe", {"num_hidden_layers": 4, "layer_types": ["conv", "conv", "full_attention", "conv"]}))
PART_CONFIGS.append(
    (
        "qwen4_exp_text",
        {
            "indexer_n_heads": 1,
            "indexer_kv_heads": 1,
            "indexer_head_dim": 256,
            "indexer_budget": 4,
            "indexer_compress_ratio": 2,
        },
    )
)


@pytest.mark.parametrize(("model_type", "config"), PART_CONFIGS, ids=[t for t, _ in PART_CONFIGS])
def test_parts_as_transformers_classes_place_them(model_type: str, config: dict) -> None:
    """Where the parameters sit (embeddings, attention, recurrent mixers, MLP, routers, routed and
    shared experts, norms, head), in all and per token, against the model transformers builds: each
    parameter placed by the class of its outermost module that is a part (``hf_live.parts``)."""
    live = hf_live.build(model_type, config)
    whole, used = hf_live.parts(live)
    report = derive.explain({"model_type": model_type, **config})
    assert report.parts is not None, model_type
    assert {p["part"]: p["parameters"] for p in report.parts} == whole
    assert {p["part"]: p["active"] for p in report.parts} == used
    assert sum(p["parameters"] for p in report.parts) == report.total == hf_live.total(live)
    assert sum(p["active"] for p in report.parts) == report.active
    assert "other" not in whole


def test_parts_in_json_text_and_closed_form() -> None:
    """Mixtral-8x7B's parts in ``--json`` and the text; in a symbolic config they add up to the total."""
    report = derive.explain(MIXTRAL_8X7B)
    data = report.to_dict()
    assert [p["part"] for p in data["parts"]] == [
        "embeddings",
        "attention",
        "routers",
        "routed experts",
        "norms",
        "head",
    ]
    assert sum(p["parameters"] for p in data["parts"]) == data["total"]
    assert sum(p["active"] for p in data["parts"]) == data["active"]
    assert "where the parameters sit" in report.text() and "routed experts" in report.text()
    D = sympy.Symbol("hidden_size", integer=True, positive=True)
    symbolic = derive.explain({**MIXTRAL_8X7B, "hidden_size": D})
    assert sympy.expand(sum(p["parameters"] for p in symbolic.parts) - symbolic.total) == 0
    assert derive.explain("nn.LSTM(10, 20)").parts is None  # not every tensor placed: no parts, none guessed
