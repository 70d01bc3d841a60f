"""The four question pages (seeds 000-003): every number and formula against torch and live Keras 3."""

from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import keras
import pytest
import sympy
import torch
from torch import nn
from torch_live import MODES, TwoStacks, torch_count

from derive import H, I, L, P
from derive.engine.wirings import K
from derive.render.latex import shape_latex
from docs_src.pages import questions
from docs_src.pages.wirings import tex

SIZES = [(3, 4, 1), (5, 7, 2), (6, 2, 4)]


def per_layer(module: nn.Module) -> list[int]:
    counts = defaultdict(int)
    for name, p in module.named_parameters():
        counts[int(re.search(r"_l(\d+)", name).group(1))] += p.numel()
    return [counts[k] for k in sorted(counts)]


def shape_cell(shape) -> str:
    return f"${shape_latex(shape)}$"


# --------------------------------------------------------------------------- seed 000


@pytest.fixture(scope="module")
def q000():
    return questions.seed_000()


def test_seed_000_numbers(q000):
    bi = nn.LSTM(32, 128, 2, batch_first=True, bidirectional=True)
    uni = nn.LSTM(32, 128, 2, batch_first=True)
    two = TwoStacks("LSTM", 32, 128, 2)
    assert (q000["bi"], q000["uni"]) == (torch_count(bi), torch_count(uni)) == (561152, 215040)
    assert q000["twice"] == 2 * torch_count(uni)
    assert q000["concat"] == torch_count(two)
    assert q000["extra"] == q000["numeric"]["total"] == torch_count(bi) - torch_count(two)
    (change,) = q000["numeric"]["changes"]
    assert change["tensors"] == "`weight_ih_l1`, `weight_ih_l1_reverse`"
    assert change["shape_a"] == shape_cell(bi.weight_ih_l1.shape) == shape_cell(bi.weight_ih_l1_reverse.shape)
    assert change["shape_b"] == shape_cell(two.forward_stack.weight_ih_l1.shape)
    assert change["amount"] == tex(torch_count(bi) - torch_count(two))


def test_seed_000_formulas(q000):
    total = q000["symbolic"]["total"]
    for i, h, layers in SIZES:
        v = {I: i, H: h, L: layers}
        assert total.xreplace(v) == torch_count(nn.LSTM(i, h, layers, bidirectional=True)) - torch_count(
            TwoStacks("LSTM", i, h, layers)
        )
    for row in q000["cells"]:
        for i, h, layers in SIZES:
            proj = h - 1 if row["proj_size"] != 0 else 0
            if proj == 0 and row["proj_size"] != 0:
                continue
            extra = {"proj_size": proj} if proj else {}
            cls = MODES[row["mode"]]
            expected = torch_count(cls(i, h, layers, bidirectional=True, **extra)) - torch_count(
                TwoStacks(row["mode"], i, h, layers, proj=proj)
            )
            assert row["total"].xreplace({I: i, H: h, L: layers, P: proj}) == expected
    m = q000["modified"]
    for i, h, layers in SIZES:
        for classes in (1, 10):
            v = {I: i, H: h, L: layers, K: classes}
            twice = 2 * torch_count(nn.LSTM(i, h, layers))
            assert (
                m["formula_minus_twice"].xreplace(v)
                == torch_count(TwoStacks("LSTM", i, h, layers, classes=classes)) - twice
            )
            assert (
                m["formula_bi_minus_twice"].xreplace(v)
                == torch_count(nn.LSTM(i, h, layers, bidirectional=True)) - twice
            )


def test_seed_000_layer_series_and_shapes(q000):
    for row, layers in zip(q000["layer_series"], (1, 2, 3)):
        module = nn.LSTM(32, 128, layers)
        assert row["call"] == f"nn.LSTM(32, 128, {layers})"
        assert row["count"] == torch_count(module)
        assert row["layers"] == per_layer(module)
    module = nn.LSTM(32, 128, 3)
    assert q000["layer_inputs"] == [getattr(module, f"weight_ih_l{k}").shape[1] for k in range(3)]
    for shown, bidirectional in zip(q000["shapes"], (False, True)):
        expected = nn.LSTM(20, 50, 3, bias=False, bidirectional=bidirectional)
        assert shown == [(n, tuple(p.shape)) for n, p in expected.named_parameters()]


def test_seed_000_modified_brnn(q000):
    m = q000["modified"]
    k = m["classes"]
    modified = TwoStacks("LSTM", 32, 128, 2, classes=k)
    bi = nn.LSTM(32, 128, 2, bidirectional=True)
    assert m["count"] == torch_count(modified)
    assert m["minus_twice_uni"] == torch_count(modified) - 2 * torch_count(nn.LSTM(32, 128, 2))
    assert m["minus_bi"] == torch_count(modified) - torch_count(bi)
    assert m["minus_bi"] != 0
    names = modified.derive_names()
    for change in m["changes"]:
        for name in re.findall(r"`([^`]+)`", change["tensors"]):
            assert change["shape_a"] == shape_cell(names[name])
            assert change["shape_b"] == shape_cell(getattr(bi, name).shape)
    assert m["one_layer"] == torch_count(TwoStacks("LSTM", 32, 128, 1, classes=k))
    assert m["bi_one"] == torch_count(nn.LSTM(32, 128, 1, bidirectional=True)) == 2 * m["uni_one"]
    assert m["uni_one"] == torch_count(nn.LSTM(32, 128, 1))
    assert m["one_layer"] != m["bi_one"]


# --------------------------------------------------------------------------- seed 001


@pytest.fixture(scope="module")
def q001():
    return questions.seed_001()


def live_keras(layer, steps=28, features=28):
    model = keras.Sequential([keras.Input((steps, features)), layer])
    return model


def test_seed_001_numbers(q001):
    uni = live_keras(keras.layers.LSTM(256))
    bi = live_keras(keras.layers.Bidirectional(keras.layers.LSTM(128)))
    assert q001["seed"]["uni"] == uni.count_params() == 291840
    assert q001["seed"]["bi"] == bi.count_params() == 160768
    assert q001["engine"] == [uni.count_params(), bi.count_params()]
    assert q001["numeric"]["total"] == uni.count_params() - bi.count_params()
    assert q001["output_widths"] == [uni.output_shape[-1], bi.output_shape[-1]]
    assert q001["same_units"] == live_keras(keras.layers.Bidirectional(keras.layers.LSTM(256))).count_params()
    assert q001["torch_counts"] == [torch_count(nn.LSTM(28, 256)), torch_count(nn.LSTM(28, 128, bidirectional=True))]
    # the attribution: forward kernels of LSTM(256) against the Bidirectional's forward layer, reverse ones alone
    uni_weights = {w.path.rsplit("/", 1)[-1]: tuple(w.shape) for w in uni.weights}
    forward = {w.path.rsplit("/", 1)[-1]: tuple(w.shape) for w in bi.weights if "/forward_" in w.path}
    backward = {w.path.rsplit("/", 1)[-1]: tuple(w.shape) for w in bi.weights if "/backward_" in w.path}
    for change in q001["numeric"]["changes"]:
        name = change["tensors"].strip("`")
        if change["directions"] == "forward":
            assert change["shape_a"] == shape_cell(uni_weights[name])
            assert change["shape_b"] == shape_cell(forward[name])
        else:
            assert change["shape_a"] == "—"
            assert change["shape_b"] == shape_cell(backward[name])


def test_seed_001_formula(q001):
    for i, h in [(3, 2), (28, 128), (7, 5)]:
        uni = live_keras(keras.layers.LSTM(2 * h), 4, i)
        bi = live_keras(keras.layers.Bidirectional(keras.layers.LSTM(h)), 4, i)
        assert q001["symbolic"]["total"].xreplace({I: i, H: h}) == uni.count_params() - bi.count_params()


# --------------------------------------------------------------------------- seed 002


@pytest.fixture(scope="module")
def q002():
    return questions.seed_002()


def test_seed_002_widths(q002):
    stack = nn.RNN(25, 50, 4, batch_first=True, bidirectional=True)
    assert q002["input_widths"] == [
        [getattr(stack, f"weight_ih_l{k}{s}").shape[1] for s in ("", "_reverse")] for k in range(4)
    ]
    assert q002["layer1_ih"] == [
        (n, tuple(p.shape)) for n, p in stack.named_parameters() if n.startswith("weight_ih_l1")
    ]
    _, h_n = stack(torch.randn(3, 5, 25))
    assert q002["h0_shape"] == f"({h_n.shape[0]}, N, {h_n.shape[2]})"
    for i, h, layers in SIZES:
        assert (
            q002["symbolic_width"].xreplace({I: i, H: h, L: layers})
            == nn.RNN(i, h, max(layers, 2), bidirectional=True).weight_ih_l1.shape[1]
        )


def test_seed_002_h0_rows_are_what_torch_reads(q002):
    """Each row's index holds that layer's and direction's initial state: checked by running the stack
    with h_0 zero except at that index, against the single-layer module of that layer and direction."""
    from torch_split import run_by_hand, split_stack

    torch.manual_seed(0)
    stack = nn.RNN(25, 50, 4, batch_first=True, bidirectional=True, dtype=torch.float64)
    x = torch.randn(2, 6, 25, dtype=torch.float64)
    layers = split_stack(stack)
    assert [r["index"] for r in q002["h0"]] == list(range(8))
    for row in q002["h0"]:
        h0 = torch.zeros(8, 2, 50, dtype=torch.float64)
        h0[row["index"]] = torch.randn(2, 50, dtype=torch.float64)
        states = [[torch.zeros(1, 2, 50, dtype=torch.float64) for _ in range(2)] for _ in range(4)]
        states[row["layer"]][("forward", "reverse").index(row["direction"])] = h0[row["index"] : row["index"] + 1]
        expected, _ = run_by_hand(layers, x, [tuple(s) for s in states])
        output, _ = stack(x, h0)
        torch.testing.assert_close(output, expected)


def test_seed_002_shows_the_test_file(q002):
    assert q002["test_source"] == questions.DECOMPOSITION_TEST.read_text(encoding="utf-8")
    assert "def test_stack_equals_single_layer_modules_run_by_hand" in q002["test_source"]


# --------------------------------------------------------------------------- seed 003


@pytest.fixture(scope="module")
def q003():
    return questions.seed_003()


def test_seed_003_per_cell_layer_total(q003):
    for reading, hidden in zip(q003["readings"], (256, 128)):
        module = nn.LSTM(512, hidden, 2, bidirectional=True)
        shapes = dict((n, tuple(p.shape)) for n, p in module.named_parameters())
        assert reading["hidden"] == hidden
        for cell in reading["cells"]:
            suffix = "_reverse" if cell["direction"] == "reverse" else ""
            names = [n for n in shapes if n.endswith(f"_l{cell['layer']}{suffix}")]
            assert [t[0] for t in cell["tensors"]] == names
            assert [t[1] for t in cell["tensors"]] == [shapes[n] for n in names]
            assert cell["count"] == sum(getattr(module, n).numel() for n in names)
            assert cell["input"] == getattr(module, f"weight_ih_l{cell['layer']}{suffix}").shape[1]
        assert reading["layers"] == per_layer(module)
        assert reading["count"] == torch_count(module)
        output, _ = module(torch.randn(3, 1, 512))
        assert reading["output_width"] == output.shape[-1]
    assert q003["readings"][0]["count"] == 3153920


def test_seed_003_formulas(q003):
    for i, h in [(512, 256), (3, 5), (7, 2)]:
        v = {I: i, H: h}
        assert q003["cell_count"].xreplace(v) == torch_count(nn.LSTMCell(i, h)) == torch_count(nn.LSTM(i, h))
        module = nn.LSTM(i, h, 2, bidirectional=True)
        assert q003["layer_formula"].xreplace(v) == per_layer(module)[0]
        assert q003["upper_formula"].xreplace(v) == per_layer(module)[1]
        assert q003["total_formula"].xreplace(v) == torch_count(module)
    cell = nn.LSTMCell(9, 4)
    blocks = {"i": 0, "f": 1, "g": 2, "o": 3}
    for p in q003["cell_parameters"]:
        rows, cols = (sympy.sympify(d).xreplace({I: 9, H: 4}) for d in p["dims"])
        source = p["symbol"][3]  # W_{ii} -> i (input) or h (hidden); b_{hi} likewise
        gate = p["symbol"][4]
        assert gate in blocks
        tensor = getattr(cell, ("weight_" if p["symbol"][0] == "W" else "bias_") + ("ih" if source == "i" else "hh"))
        assert rows == tensor.shape[0] // 4
        assert cols == (tensor.shape[1] if tensor.dim() == 2 else 1)
