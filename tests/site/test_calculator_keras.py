"""The calculator's Keras 3 branch: node against the library, the library against Keras 3 itself.

The script's ``deriveKeras`` (tables of :mod:`docs_src.calculator.keras`) is run with node on
random configurations and compared with :func:`docs_src.calculator.evaluate` (numbers, code,
refusals); the code the calculator shows is then run in real Keras 3 (torch backend), and its
``count_params()`` must be the total shown.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import pytest

from docs_src.calculator import evaluate, javascript
from docs_src.calculator.keras import KERAS_CLASSES, KERAS_MERGE_MODES

NODE = shutil.which("node")
HARNESS = """
const fs = require("fs");
const configs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
process.stdout.write(JSON.stringify(configs.map(function (cfg) {
  try {
    const r = deriveCount(cfg);
    return {total: r.total.toString(), layer0: r.layer0.toString(),
            upper: r.layers > 1n ? r.upper.toString() : null, call: r.call};
  } catch (e) { return {error: e.message}; }
})));
"""


def run_js(configs, tmp_path):
    script = tmp_path / "calc.js"
    script.write_text(javascript(dom=False) + "\n" + HARNESS)
    data = tmp_path / "configs.json"
    data.write_text(json.dumps(configs))
    out = subprocess.run([NODE, str(script), str(data)], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def python_side(cfg):
    merge = None if cfg["mergeMode"] == "None" else cfg["mergeMode"]
    try:
        r = evaluate(
            cfg["cell"],
            int(cfg["inputSize"]),
            int(cfg["hiddenSize"]),
            int(cfg["numLayers"]),
            cfg["bidirectional"],
            cfg["bias"],
            framework="keras",
            merge_mode=merge,
        )
    except (ValueError, TypeError) as error:
        return {"error": str(error)}
    upper = None if r["upper"] is None else str(r["upper"])
    return {"total": str(r["total"]), "layer0": str(r["layer0"]), "upper": upper, "call": r["call"]}


def configs(n, seed, top=600, bad=False):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        sizes = [rng.randint(-2 if bad else 1, top) for _ in range(2)] + [rng.randint(0 if bad else 1, 5)]
        out.append(
            {
                "framework": "keras",
                "cell": rng.choice(KERAS_CLASSES),
                "inputSize": str(sizes[0]),
                "hiddenSize": str(sizes[1]),
                "numLayers": str(sizes[2]),
                "bidirectional": rng.random() < 0.6,
                "bias": rng.random() < 0.7,
                "mergeMode": str(rng.choice(KERAS_MERGE_MODES)),
                "projSize": "0",
            }
        )
    return out


@pytest.mark.skipif(NODE is None, reason="node not installed")
def test_random_keras_inputs_match_the_library(tmp_path):
    cases = configs(600, 1) + configs(150, 2, top=10**9) + configs(200, 3, top=40, bad=True)
    js = run_js(cases, tmp_path)
    for c, a in zip(cases, js, strict=True):
        assert a == python_side(c), c
    assert sum("error" not in r for r in js) > 600
    assert any("merge_mode=None" in r.get("error", "") for r in js)
    assert any(r.get("error", "").startswith(("units must", "input_dim must", "num_layers must")) for r in js)


def test_the_seed_question():
    """Keras ``Bidirectional(LSTM(128))`` on 28 features: 160,768 (README, seed question)."""
    r = evaluate("LSTM", 28, 128, 1, True, True, framework="keras")
    assert r["total"] == 160768


CASES = [
    ("LSTM", 28, 128, 1, True, True, "concat"),
    ("LSTM", 28, 64, 3, True, True, "sum"),
    ("GRU", 10, 20, 2, True, False, "ave"),
    ("GRU", 7, 5, 3, False, True, "concat"),
    ("SimpleRNN", 9, 4, 2, True, True, "mul"),
    ("SimpleRNN", 3, 6, 1, True, False, None),
    ("LSTM", 5, 3, 4, False, False, "concat"),
]

# The calculator's own generated code, run by Keras 3 in a fresh process (not user text; a separate
# process keeps Keras' native libraries out of this one, where paddle's are loaded by other tests).
KERAS_RUNNER = """
import json, sys
import keras
from keras import layers
print(json.dumps([eval(code, {"keras": keras, "layers": layers}) for code in json.load(sys.stdin)]))
"""


@pytest.mark.slow
def test_the_code_shown_counts_the_total_in_keras():
    shown = [
        evaluate(cls, i, h, layers, bidirectional, bias, framework="keras", merge_mode=merge)
        for cls, i, h, layers, bidirectional, bias, merge in CASES
    ]
    env = dict(os.environ, KERAS_BACKEND="torch", KERAS_HOME=tempfile.mkdtemp(prefix="keras-home-"))
    out = subprocess.run(
        [sys.executable, "-c", KERAS_RUNNER],
        input=json.dumps([r["call"] for r in shown]),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    assert json.loads(out.stdout) == [r["total"] for r in shown]


def test_merge_mode_none_cannot_be_stacked():
    with pytest.raises(ValueError, match="merge_mode=None"):
        evaluate("LSTM", 4, 8, 2, True, True, framework="keras", merge_mode=None)
    with pytest.raises(ValueError, match="no projection"):
        evaluate("LSTM", 4, 8, 2, True, True, 3, framework="keras")
    with pytest.raises(ValueError, match="cell must be one of"):
        evaluate("ConvLSTM2D", 4, 8, 2, True, True, framework="keras")
    with pytest.raises(ValueError, match="merge_mode must be one of"):
        evaluate("LSTM", 4, 8, 2, True, True, framework="keras", merge_mode="max")
