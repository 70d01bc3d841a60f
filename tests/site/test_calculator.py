"""The calculator's generated JavaScript, run with node, against the Python library and torch."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from torch import nn

import derive.frameworks as fws
import derive.torch as dt
from derive.cells import CELLS as CELL_EQUATIONS
from docs_src.calculator import CELLS, FRAMEWORKS, LEFT_OUT, evaluate, javascript

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


@pytest.mark.slow
def test_page_inlines_the_script_and_the_ids(rendered_pages):
    page = rendered_pages["tools/calculator.md"]
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


@pytest.mark.slow
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


# --- issue 12: every registered framework's classes ----------------------------------------------

OTHER = [(key, spec.name) for key in FRAMEWORKS for spec in fws.FRAMEWORKS[key].cells]


def other_side(cfg):
    try:
        r = evaluate(
            cfg["cell"],
            int(cfg["inputSize"]),
            int(cfg["hiddenSize"]),
            int(cfg["numLayers"]),
            cfg["bidirectional"],
            cfg["bias"],
            int(cfg["projSize"]),
            framework=cfg["framework"],
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


def other_configs(n, seed, top=600):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        key, name = rng.choice(OTHER)
        spec = fws.FRAMEWORKS[key].cell(name)
        h, i = rng.randint(1, top), rng.randint(1, top)
        bidirectional = rng.random() < 0.5
        if "num_directions" in CELL_EQUATIONS[spec.mode].options and rng.random() < 0.5:
            i = (2 if bidirectional else 1) * h  # SRU's square input
        proj = 0
        if rng.random() < 0.3:
            proj = rng.choice([i, rng.randint(1, max(1, h - 1)), h, rng.randint(1, top)])
        out.append(
            {
                "framework": key,
                "cell": name,
                "inputSize": str(i),
                "hiddenSize": str(h),
                "numLayers": str(rng.randint(1, 6)),
                "bidirectional": bidirectional,
                "bias": rng.random() < 0.7,
                "projSize": str(proj),
            }
        )
    return out


def test_every_offered_framework_and_class_is_in_the_script():
    assert set(FRAMEWORKS) == set(fws.FRAMEWORKS) - set(LEFT_OUT)
    assert set(LEFT_OUT) <= {"xlstm"}


@pytest.mark.slow
def test_other_frameworks_random_inputs_match_the_library(tmp_path):
    configs = other_configs(1500, 3) + other_configs(300, 4, top=10**9)
    js = run_js(configs, tmp_path)
    python = [other_side(c) for c in configs]
    for c, a, b in zip(configs, js, python, strict=True):
        assert a == b, (c, a, b)
    assert sum("error" not in r for r in js) > 900
    assert any(int(r["total"]) > 2**53 for r in js if "error" not in r)
    tried = {(c["framework"], c["cell"]) for c, r in zip(configs, js) if "error" not in r}
    refusable = {(k, n) for k, n in OTHER if "kernel_size" in fws.FRAMEWORKS[k].cell(n).options}
    assert tried == set(OTHER) - refusable


def test_other_frameworks_refusals_use_the_library_words(tmp_path):
    base = {"inputSize": "8", "hiddenSize": "16", "numLayers": "2", "bidirectional": False, "bias": True}
    bad = [
        dict(base, framework="tf1", cell="GRUCell", bias=False, projSize="0"),
        dict(base, framework="tf1", cell="GRUCell", projSize="3"),
        dict(base, framework="cudnn", cell="CUDNN_LSTM", projSize="16"),
        dict(base, framework="flax.linen", cell="ConvLSTMCell", projSize="0"),
        dict(base, framework="haiku", cell="Conv2DLSTM", projSize="0"),
        dict(base, framework="mingru", cell="minGRU", projSize="5"),
        dict(base, framework="mingru", cell="minGRU", projSize="8", bidirectional=True),
        dict(base, framework="onnx", cell="LSTM", hiddenSize="0", projSize="0"),
        dict(base, framework="paddle", cell="LSTM", projSize="-1"),
    ]
    js = run_js(bad, tmp_path)
    assert js == [other_side(c) for c in bad]
    assert all("error" in r for r in js)
    assert js[0]["error"] == "bias must be one of [True] for tf1 GRUCell, got False"
    assert js[3]["error"].startswith("kernel_size is required for flax.linen ConvLSTMCell")


# (a) Python's numbers against the installed frameworks themselves: each function builds the real
# module or cells and counts its parameters (tests/support/frameworks_live*.py), never derive.
def _live(key, cls, i, h, layers, bidirectional, bias, proj):
    import frameworks_live_extra as fx
    import live_registry

    options = {"num_layers": layers, "bidirectional": bidirectional}
    spec = fws.FRAMEWORKS[key].cell(cls)
    if "bias" in spec.options and bias is not None and key != "tf.keras":
        options["bias"] = bias
    if proj:
        options["proj_size"] = proj
    if key == "paddle" and not bias and layers > 1 and not cls.endswith("Cell"):
        # Paddle cannot build its layers without biases beyond one cell (IndexError, see
        # tests/frameworks/test_frameworks.py); the same stack of its cells has the same tensors
        cls += "Cell"
    if key == "mxnet" and fx.mxnet_python() is None:
        # MXNet lives in its own environment (.venv-mxnet); without it, derive.frameworks.count,
        # which tests/frameworks/test_live_mxnet.py holds against MXNet itself, stands in.
        return fws.count("mxnet", cls, i, h, **options)
    return live_registry.count(key, cls, i, h, **options)


def _live_cases():
    rng = random.Random(12)
    for key, name in OTHER:
        spec = fws.FRAMEWORKS[key].cell(name)
        if "kernel_size" in spec.options:
            continue
        biases = spec.options.get("bias", (True,))
        for layers, bidirectional, bias in ((1, False, biases[0]), (3, True, biases[-1])):
            i, h = rng.randint(2, 9), rng.randint(3, 12)
            proj = 0
            if bidirectional and "proj_size" in spec.options:
                proj = i if spec.check is not None else rng.randint(1, h - 1)
            if key == "mingru" and proj:
                layers = 1  # to_out maps back to dim: a layer above would read 2·dim (see test_live_cells)
            if key == "sru" and bidirectional:
                i = 2 * h  # SRU's square input (no projection of layer 0's input)
            if key in ("keras2", "tf.keras", "tf1", "mxnet") and layers == 1:
                continue  # one case per class for the slow subprocess frameworks
            yield pytest.param(key, name, i, h, layers, bidirectional, bias, proj, id=f"{key}-{name}-{layers}-{bias}")


@pytest.mark.slow
@pytest.mark.parametrize("key,cls,i,h,layers,bidirectional,bias,proj", list(_live_cases()))
def test_evaluate_matches_the_real_framework(key, cls, i, h, layers, bidirectional, bias, proj):
    r = evaluate(cls, i, h, layers, bidirectional, bias, proj, framework=key)
    assert r["total"] == _live(key, cls, i, h, layers, bidirectional, bias, proj)
