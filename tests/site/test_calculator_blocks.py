"""The calculator's blocks (Mamba, Mamba-2, MambaForCausalLM, RwkvForCausalLM): the generated script,
run with node on random inputs, against the Python library (derive's builders); and the Python
library against the real ones — mamba_ssm in ``.venv-ssm`` and transformers on the meta device."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from docs_src.calculator import javascript
from docs_src.calculator.blocks import BLOCKS, DEFAULT, FIELDS, block_formulas, evaluate_block

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node not installed")

HARNESS = """
const fs = require("fs");
const configs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
process.stdout.write(JSON.stringify(configs.map(function (cfg) {
  try {
    const r = deriveBlock(cfg);
    const tensors = r.tensors.map(t => [t.name, t.shape.map(String), t.count.toString(), t.copies.toString()]);
    return {total: r.total.toString(), call: r.call, tensors: tensors};
  }
  catch (e) { return {error: e.message}; }
})));
"""


def run_js(configs, tmp_path):
    script = tmp_path / "blocks.js"
    script.write_text(javascript(dom=False) + "\n" + HARNESS)
    data = tmp_path / "configs.json"
    data.write_text(json.dumps(configs))
    result = subprocess.run([NODE, str(script), str(data)], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)


def _number(text: str) -> int | float:
    return int(text) if text.lstrip("-").isdigit() else float(text)


def python_side(cfg: dict) -> dict:
    block = BLOCKS[cfg["block"]]
    values = {name: _number(cfg[name]) for name, _ in block.sizes}
    flags = {name: cfg[name] for name, _, _ in block.flags if name in cfg}
    try:
        r = evaluate_block(cfg["block"], values, flags)
    except (ValueError, TypeError) as error:
        return {"error": str(error)}
    tensors = [[name, [str(d) for d in shape], str(_numel(shape)), str(n)] for name, shape, n, _ in r["rows"]]
    return {"total": str(r["total"]), "call": r["call"], "tensors": tensors}


def _numel(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def expanded(rows) -> dict[str, tuple[int, ...]]:
    """The calculator's rows, each repeated layer's copy by copy (``{k}`` from its first index)."""
    out = {}
    for name, shape, copies, start in rows:
        for k in range(start, start + copies) if "{k}" in name else [None]:
            out[name if k is None else name.replace("{k}", str(k))] = tuple(shape)
    return out


def random_configs(n: int, seed: int, top: int = 3000) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        key = rng.choice(list(BLOCKS))
        block = BLOCKS[key]
        cfg: dict = {"block": key}
        for name, _ in block.sizes:
            cfg[name] = str(rng.randint(1, top if name in ("d_model", "vocab_size") else 64))
        if key == "mamba2" and rng.random() < 0.8:  # mostly a headdim that divides the inner width
            inner = int(cfg["expand"]) * int(cfg["d_model"])
            cfg["headdim"] = str(rng.choice([d for d in range(1, min(inner, 300) + 1) if inner % d == 0]))
        if key == "mamba" and rng.random() < 0.4:
            cfg["expand"] = f"{rng.randint(0, 3)}.{rng.randint(0, 9999):0{rng.randint(1, 4)}d}"
        for name, _, default in block.flags:
            if rng.random() < 0.5:
                cfg[name] = not default if rng.random() < 0.5 else default
        out.append(cfg)
    return out


@needs_node
def test_many_random_inputs_match_the_library(tmp_path) -> None:
    configs = random_configs(500, 20) + random_configs(150, 21, top=10**9)
    js = run_js(configs, tmp_path)
    for cfg, a in zip(configs, js, strict=True):
        assert a == python_side(cfg), cfg
    answered = [(c["block"], r) for c, r in zip(configs, js) if "error" not in r]
    assert {b for b, _ in answered} == set(BLOCKS)
    assert len(answered) > 550 and any(int(r["total"]) > 2**53 for _, r in answered)


@needs_node
def test_refusals_in_the_library_words(tmp_path) -> None:
    base = {"d_model": "64", "d_state": "16", "d_conv": "4", "expand": "2", "headdim": "32", "ngroups": "1",
            "vocab_size": "100", "n_layer": "2"}  # fmt: skip
    bad = [
        dict(base, block="mamba2", headdim="48"),
        dict(base, block="mamba", expand="0"),
        dict(base, block="mamba", expand="0.01", d_model="10"),
        dict(base, block="mamba_lm", n_layer="0"),
        dict(base, block="rwkv_lm", d_model="-3"),
        dict(base, block="mamba2", expand="1.5"),
    ]
    js = run_js(bad, tmp_path)
    assert js[:5] == [python_side(c) for c in bad[:5]]
    assert js[0] == {"error": "d_ssm (128) must be a multiple of headdim (48): mamba_ssm asserts it"}
    assert js[1] == {"error": "int(expand * d_model) = 0: the inner width must be >= 1"}
    assert js[3] == {"error": "n_layer must be greater than zero"}
    assert js[5] == {"error": "expand should be of type int"}  # Mamba2 and transformers take an int


@needs_node
@pytest.mark.parametrize("text", ["0x10", "1e3", "+5", "1_0", "", "2.12345", "1234567.5", "-1.5", ".5"])
def test_js_refuses_what_is_not_a_size(text, tmp_path) -> None:
    [out] = run_js([{"block": "mamba", "d_model": "16", "d_state": "4", "d_conv": "4", "expand": text}], tmp_path)
    assert out == {"error": "expand should be an int or a decimal fraction such as 1.5 (up to 6 digits and 4 decimals)"}
    [out] = run_js([{"block": "mamba", "d_model": text, "d_state": "4", "d_conv": "4", "expand": "2"}], tmp_path)
    assert out == {"error": "d_model should be of type int"}


@needs_node
def test_the_questions(tmp_path) -> None:
    """mamba#817 (one block: 4,068), mamba#48 (mamba-130m: 129,135,360), RWKV-4 169m (169,342,464)."""
    js = run_js(
        [
            {"block": "mamba", "d_model": "18", "d_state": "16", "d_conv": "4", "expand": "2"},
            {"block": "mamba_lm", **{k: str(d) for k, (_, d) in FIELDS.items()}},
            {"block": "rwkv_lm", "vocab_size": "50277", "d_model": "768", "n_layer": "12"},
        ],
        tmp_path,
    )
    assert [r["total"] for r in js] == ["4068", "129135360", "169342464"]
    assert js[0]["call"] == "Mamba(d_model=18, d_state=16, d_conv=4, expand=2)"


def test_every_flag_combination_has_a_formula() -> None:
    for key, forms in block_formulas().items():
        assert len(forms) == 2 ** len(BLOCKS[key].flags)
    assert DEFAULT in BLOCKS


def test_evaluate_refuses_an_unknown_block_and_bad_flags() -> None:
    with pytest.raises(ValueError, match="block must be one of"):
        evaluate_block("lstm", {})
    with pytest.raises(TypeError, match="bias"):
        evaluate_block("mamba", {"d_model": 4, "d_state": 4, "d_conv": 4, "expand": 2}, {"bias": 1})
    with pytest.raises(ValueError, match="expand must be >= 0"):
        evaluate_block("mamba", {"d_model": 4, "d_state": 4, "d_conv": 4, "expand": -1})


# --- the Python side against the real libraries (the tests of tests/blocks hold derive's builders there) ---


def _real_cases(seed: int = 7, each: int = 3) -> list[dict]:
    """Random configurations the library answers, ``each`` per block."""
    found: dict[str, list[dict]] = {key: [] for key in BLOCKS}
    for cfg in random_configs(200, seed, top=96):
        if "error" not in python_side(cfg) and len(found[cfg["block"]]) < each:
            found[cfg["block"]].append(cfg)
    return [cfg for cases in found.values() for cfg in cases]


@pytest.mark.slow
@pytest.mark.parametrize("cfg", _real_cases(), ids=lambda c: c["block"])
def test_the_python_side_is_the_real_library(cfg) -> None:
    import hf_live
    from mamba_live import live, ssm_python

    block = BLOCKS[cfg["block"]]
    values = {name: _number(cfg[name]) for name, _ in block.sizes}
    flags = {name: cfg.get(name, default) for name, _, default in block.flags}
    shown = evaluate_block(cfg["block"], values, flags)
    if cfg["block"] in ("mamba", "mamba2"):
        if ssm_python() is None:
            pytest.skip(".venv-ssm is missing")
        kwargs = values | flags
        answer = live({"kind": "Mamba" if cfg["block"] == "mamba" else "Mamba2", "kwargs": kwargs})
        real, tensors = answer["total"], [(name, tuple(shape)) for name, shape in answer["tensors"]]
    else:
        model_type = "mamba" if cfg["block"] == "mamba_lm" else "rwkv"
        sizes = {arg: values[field] for field, arg in block.sizes}
        extra = {arg: flags[name] for name, arg, _ in block.flags}
        model = hf_live.build(model_type, sizes | extra)
        real, tensors = hf_live.total(model), hf_live.tensors(model)
    assert shown["total"] == real
    # the per-tensor split the page shows: every tensor of the real module, its name and shape, once
    assert expanded(shown["rows"]) == dict(tensors)
    assert sum(_numel(shape) * n for _, shape, n, _ in shown["rows"]) == real


def test_page_has_the_blocks_form_and_the_script() -> None:
    from pathlib import Path

    import docs_src.site as site

    page = next(p for p in site.pages() if p.path == "tools/calculator.md")
    text = (
        site._environment(Path(__file__).resolve().parents[2] / "templates")
        .get_template(page.template)
        .render(**page.context())
    )
    assert javascript() in text and text.index('id="calc-block-form"') < text.index("<script>")
    for element in ("calc-block-form", "calc-block", "calc-block-total", "calc-block-call", "calc-block-error"):
        assert f'id="{element}"' in text
    for name in FIELDS:
        assert f'id="calc-block-{name}"' in text
    assert 'data-value="129135360"' in text  # mamba-130m, before any script runs
    assert 'id="calc-block-tensors"' in text and "<code>backbone.layers.{k}.mixer.in_proj.weight</code>" in text
