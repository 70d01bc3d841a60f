"""The calculator's generated JavaScript, run with node, against the Python library and torch."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import derive.torch as dt
import pytest
from derive.calculator import CELLS, evaluate, javascript
from torch import nn

import docs_src.site as site

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node not installed")

HARNESS = """
const fs = require("fs");
const configs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = configs.map(function (cfg) {
  try {
    const r = deriveCount(cfg);
    return {total: r.total.toString(), layer0: r.layer0.toString(),
            upper: r.layers > 1n ? r.upper.toString() : null, call: r.call, grouped: deriveGroup(r.total)};
  } catch (e) { return {error: e.message}; }
});
process.stdout.write(JSON.stringify(out));
"""


def run_js(configs, tmp_path):
    script = tmp_path / "calc.js"
    script.write_text(javascript(dom=False) + "\n" + HARNESS)
    data = tmp_path / "configs.json"
    data.write_text(json.dumps(configs))
    result = subprocess.run([NODE, str(script), str(data)], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)


def python_side(cfg):
    try:
        r = evaluate(
            cfg["cell"],
            int(cfg["inputSize"]),
            int(cfg["hiddenSize"]),
            int(cfg["numLayers"]),
            cfg["bidirectional"],
            cfg["bias"],
            int(cfg["projSize"]),
        )
    except (ValueError, TypeError) as error:
        return {"error": str(error)}
    return {
        "total": str(r["total"]),
        "layer0": str(r["layer0"]),
        "upper": None if r["upper"] is None else str(r["upper"]),
        "call": r["call"],
        "grouped": f"{r['total']:,}",
    }


def random_configs(n, seed, big=False):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cell = rng.choice(list(CELLS))
        top = 10**9 if big else 600
        h = rng.randint(1, top)
        proj = rng.randint(1, h - 1) if cell == "LSTM" and h > 1 and rng.random() < 0.3 else 0
        out.append(
            {
                "cell": cell,
                "inputSize": str(rng.randint(1, top)),
                "hiddenSize": str(h),
                "numLayers": str(rng.randint(1, 40 if big else 6)),
                "bidirectional": rng.random() < 0.5,
                "bias": rng.random() < 0.7,
                "projSize": str(proj),
            }
        )
    return out


def test_many_random_inputs_match_the_library(tmp_path):
    configs = random_configs(600, 1) + random_configs(200, 2, big=True)
    js = run_js(configs, tmp_path)
    assert js == [python_side(c) for c in configs]
    assert any(int(r["total"]) > 2**53 for r in js)  # exact beyond float precision


def test_refused_inputs_match_the_library(tmp_path):
    base = {
        "cell": "LSTM",
        "inputSize": "32",
        "hiddenSize": "128",
        "numLayers": "2",
        "bidirectional": True,
        "bias": True,
        "projSize": "0",
    }
    bad = [
        dict(base, hiddenSize="0"),
        dict(base, inputSize="-3"),
        dict(base, numLayers="0"),
        dict(base, projSize="128"),
        dict(base, projSize="200"),
        dict(base, projSize="-1"),
        dict(base, cell="GRU", projSize="5"),
        dict(base, cell="RNN_TANH", projSize="1"),
    ]
    js = run_js(bad, tmp_path)
    assert js == [python_side(c) for c in bad]
    assert all("error" in r for r in js)
    not_int = run_js([dict(base, inputSize="3.5"), dict(base, hiddenSize="abc"), dict(base, numLayers="")], tmp_path)
    assert [r["error"] for r in not_int] == [
        "input_size should be of type int",
        "hidden_size should be of type int",
        "num_layers should be of type int",
    ]


@pytest.mark.parametrize(
    "cfg,module",
    [
        (("LSTM", 32, 128, 2, True, True, 0), lambda: nn.LSTM(32, 128, 2, bidirectional=True)),
        (("LSTM", 40, 512, 3, False, True, 128), lambda: nn.LSTM(40, 512, 3, proj_size=128)),
        (("GRU", 10, 20, 3, True, False, 0), lambda: nn.GRU(10, 20, 3, bias=False, bidirectional=True)),
        (("RNN_RELU", 25, 50, 4, True, True, 0), lambda: nn.RNN(25, 50, 4, nonlinearity="relu", bidirectional=True)),
    ],
)
def test_a_few_against_torch(cfg, module, tmp_path):
    cell, i, h, layers, bidirectional, bias, proj = cfg
    js = run_js(
        [
            {
                "cell": cell,
                "inputSize": i,
                "hiddenSize": h,
                "numLayers": layers,
                "bidirectional": bidirectional,
                "bias": bias,
                "projSize": proj,
            }
        ],
        tmp_path,
    )[0]
    m = module()
    per_layer = [sum(p.numel() for n, p in m.named_parameters() if f"_l{k}" in n) for k in range(layers)]
    assert int(js["total"]) == sum(p.numel() for p in m.parameters())
    assert int(js["layer0"]) == per_layer[0] and all(int(js["upper"]) == c for c in per_layer[1:])
    assert (
        js["call"]
        == python_side(
            dict(
                cell=cell,
                inputSize=i,
                hiddenSize=h,
                numLayers=layers,
                bidirectional=bidirectional,
                bias=bias,
                projSize=proj,
            )
        )["call"]
    )


def test_page_inlines_the_script_and_the_ids():
    from pathlib import Path

    pages = site.render_pages(Path(__file__).resolve().parents[2] / "templates")
    page = pages["tools/calculator.md"]
    assert javascript() in page
    for element in (
        "calc-form",
        "calc-framework",
        "calc-cell",
        "calc-input-size",
        "calc-hidden-size",
        "calc-num-layers",
        "calc-bidirectional",
        "calc-bias",
        "calc-proj-size",
        "calc-total",
        "calc-layer0",
        "calc-upper",
        "calc-layers",
        "calc-call",
        "calc-error",
    ):
        assert f'id="{element}"' in page
    assert "http://" not in page and "https://" not in page


# --- issue 13, item 3: refuse what torch would refuse, never map it to something else -----------


@pytest.mark.parametrize("text", ["0x10", "010", "1e1", "+5", "1_0", "10.0", "0b11", "١٠", "", " ", "5 5"])
@pytest.mark.parametrize("field", ["inputSize", "hiddenSize", "numLayers", "projSize"])
def test_js_refuses_what_is_not_a_decimal_int(field, text, tmp_path):
    base = {"cell": "LSTM", "inputSize": "16", "hiddenSize": "32", "numLayers": "2", "bidirectional": False}
    base.update(bias=True, projSize="0")
    [out] = run_js([dict(base, **{field: text})], tmp_path)
    name = {"inputSize": "input_size", "hiddenSize": "hidden_size", "numLayers": "num_layers"}.get(field, "proj_size")
    assert out == {"error": f"{name} should be of type int"}, (field, text, out)


@pytest.mark.parametrize("proj", [False, None, 0.0, "0", 1.5, True])
def test_evaluate_never_maps_an_invalid_proj_size_to_zero(proj):
    """torch itself takes False and 0.0 as 0 and True as 1; derive.torch refuses non-ints (TypeError)."""
    with pytest.raises(TypeError, match="proj_size"):
        evaluate("LSTM", 16, 32, 2, False, True, proj)
    with pytest.raises(TypeError, match="proj_size"):
        dt.LSTM(16, 32, 2, proj_size=proj)


@pytest.mark.parametrize("cell", ["GRU", "RNN_TANH"])
def test_evaluate_refuses_proj_size_for_cells_without_projection(cell):
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        evaluate(cell, 16, 32, 2, False, True, 4)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        getattr(nn, CELLS[cell][0])(16, 32, 2, proj_size=4)
