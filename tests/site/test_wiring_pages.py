"""Every number and formula of the wiring pages, held against torch constructions and live Keras 3.

A formula shown on a page is re-derived here with the public API, checked to be the one the page
prints (its LaTeX), then substituted and compared with the count of a real model built in torch
(see ``test_wirings.py`` for the constructions) or in Keras 3.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import keras
import numpy as np
import pytest
import sympy
from torch import nn
from torch_live import MODES, KerasLikeStack, TwoStacks, tied, torch_count, unidirectional

import derive.keras as dk
from derive import H, I, L, P
from derive.analysis.difference import compare
from derive.engine.stack import UPPER
from derive.engine.wirings import K
from derive.frameworks.pytorch import PYTORCH
from derive.render.diagram import wiring_svg
from derive.render.latex import shape_latex
from docs_src.pages import wirings as pages

O = pages.O
E = pages.EXAMPLE_SIZES
SIZES = [(3, 4, 1, 2, 5), (5, 7, 3, 3, 2)]  # I, H, L, K, O


def torch_model(wiring, mode, i, h, layers, classes=0, output=0, proj=0) -> nn.Module:
    """The torch construction of ``wiring`` (PyTorch's tensors), with an output ``nn.Linear`` if asked."""
    labels = wiring.labels
    if labels is not None:
        return TwoStacks(
            mode,
            i,
            h,
            layers,
            proj=proj,
            classes=classes,
            posterior=labels.posterior,
            output=output,
            labels_into_states="states" in labels.placement,
            labels_into_output="output" in labels.placement,
        )
    if wiring.merge == "separate":
        return TwoStacks(mode, i, h, layers, proj=proj, output=output)
    if wiring.shared:
        model = tied(mode, i, h, layers, proj=proj)
    elif wiring.merge in ("sum", "mul", "ave"):
        model = KerasLikeStack(mode, i, h, layers, wiring.merge)
    elif wiring.num_directions == 2:
        extra = {"proj_size": proj} if proj else {}
        model = MODES[mode](i, h, layers, bidirectional=True, **extra)
    else:
        model = unidirectional(mode, i, h, layers, proj)
    if not output:
        return model
    return nn.ModuleDict({"rnn": model, "output": nn.Linear(wiring.top_size(proj or h), output)})


KERAS_CELLS = {"RNN_TANH": keras.layers.SimpleRNN, "LSTM": keras.layers.LSTM, "GRU": keras.layers.GRU}


def keras_count(wiring, mode, i, h, layers) -> int:
    """Parameters of ``wiring`` built from Keras 3 layers (unidirectional, Bidirectional per layer, or two stacks)."""
    cell = KERAS_CELLS[mode]

    def stack(bidirectional, merge="concat", go_backwards=False):
        model = keras.Sequential([keras.Input((6, i))])
        for _ in range(layers):
            layer = cell(h, return_sequences=True, go_backwards=go_backwards)
            model.add(keras.layers.Bidirectional(layer, merge_mode=merge) if bidirectional else layer)
        return model.count_params()

    if wiring.merge == "separate":
        return stack(False) + stack(False, go_backwards=True)
    if wiring.num_directions == 1:
        return stack(False)
    return stack(True, wiring.merge)


def values(i, h, layers, classes=0, output=0, proj=0):
    return {I: i, H: h, L: layers, K: classes, O: output, P: proj}


def count_of(page, wiring, mode, i, h, layers, classes=0, output=0, proj=0) -> int:
    """The count of the page's framework: torch for PyTorch's convention, live Keras for Keras'."""
    if page.convention is PYTORCH:
        return torch_count(torch_model(wiring, mode, i, h, layers, classes, output, proj))
    assert output == 0 and proj == 0
    return keras_count(wiring, mode, i, h, layers)


PAGES = pages.WIRING_PAGES


@pytest.fixture(scope="module")
def contexts():
    return {p.slug: pages.wiring_page_context(p) for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_counts_table(page, contexts):
    rows = contexts[page.slug]["counts"]
    shown = [c for c in pages.CELLS if c[1] == 0 or page.convention is PYTORCH]
    assert [r["cell"] for r in rows] == [c[2] for c in shown]
    for row, (mode, proj, _, _) in zip(rows, shown):
        stack = pages.build(page.wiring, mode, proj_size=proj, convention=page.convention)
        assert row["count"] == sympy.latex(sympy.factor(stack.count))
        for i, h, layers, classes, _ in SIZES:
            p = h - 1 if proj != 0 else 0
            expected = count_of(page, page.wiring, mode, i, h, layers, classes, proj=p)
            assert stack.count.xreplace(values(i, h, layers, classes, proj=p)) == expected


def keras_with_dense(i, h, layers, out) -> int:
    """Bidirectional(LSTM) layers and a Dense(out) on top, built in Keras 3."""
    model = keras.Sequential(
        [keras.Input((6, i))]
        + [keras.layers.Bidirectional(keras.layers.LSTM(h, return_sequences=True)) for _ in range(layers)]
        + [keras.layers.Dense(out)]
    )
    return model.count_params()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_output_layer_formulas(page, contexts):
    shown = contexts[page.slug]["output"]
    stack = pages.build(page.wiring, "LSTM", convention=page.convention)
    with_output = pages.build(page.wiring, "LSTM", output_features=O, convention=page.convention)
    assert shown["count"] == sympy.latex(sympy.factor(with_output.count))
    assert shown["extra"] == sympy.latex(sympy.factor(with_output.count - stack.count))
    assert shown["width"] == sympy.latex(page.wiring.output_layer_input_size(H))
    for i, h, layers, classes, out in SIZES:
        v = values(i, h, layers, classes, out)
        if page.convention is PYTORCH:
            expected = torch_count(torch_model(page.wiring, "LSTM", i, h, layers, classes, out))
        else:
            expected = keras_with_dense(i, h, layers, out)
        assert with_output.count.xreplace(v) == expected


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_differences(page, contexts):
    this = pages.build(page.wiring, convention=page.convention)
    for d in contexts[page.slug]["differences"]:
        ((title, _, other),) = [c for c in pages.COMPARED if c[0] == d["title"]]
        difference = compare(this, pages.build(other, convention=page.convention))
        assert d["total"] == sympy.latex(difference.total)
        assert len(d["changes"]) == len(difference.changes)
        for i, h, layers, classes, _ in SIZES:
            expected = count_of(page, page.wiring, "LSTM", i, h, layers, classes) - count_of(
                page, other, "LSTM", i, h, layers, classes
            )
            assert difference.total.xreplace(values(i, h, layers, classes)) == expected
            for shown, change in zip(d["changes"], difference.changes):
                assert shown["amount"] == pages.tex(change.amount)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_reads_and_tensor_tables(page, contexts):
    context = contexts[page.slug]
    stack = pages.build(page.wiring, convention=page.convention)
    i, h, layers, classes, out = 5, 7, 3, 3, 2
    v = values(i, h, layers, classes, out)
    rows = [r for r in context["reads"] if r["layer"] != "output"]
    assert [r["width"] for r in rows] == [
        sympy.latex(stack.layer_input_size(layer, d))
        for layer in (0, UPPER)
        for d in range(stack.wiring.num_directions)
    ]
    for group, layer in zip(context["tensors"], (0, UPPER)):
        assert [r["shape"] for r in group["rows"]] == [shape_latex(t.shape) for t in stack.layer_tensors(layer)]
    if page.convention is not PYTORCH:  # Keras: each direction's kernel is (input width, 4H)
        model = keras.Sequential(
            [keras.Input((6, i))]
            + [keras.layers.Bidirectional(keras.layers.LSTM(h, return_sequences=True)) for _ in range(2)]
        )
        kernels = [
            tuple(w.shape)
            for w in model.weights
            if w.path.endswith("/kernel") and not w.path.endswith("recurrent_kernel")
        ]
        widths = [sympy.sympify(stack.layer_input_size(layer, d)).xreplace(v) for layer in (0, UPPER) for d in range(2)]
        assert [k[0] for k in kernels] == widths
        return
    model = torch_model(page.wiring, "LSTM", i, h, layers, classes, out)
    expected = (
        dict(model.derive_names())
        if hasattr(model, "derive_names")
        else {n.removeprefix("rnn."): tuple(p.shape) for n, p in model.named_parameters()}
    )
    for layer in range(layers):
        for t in stack.layer_tensors(0 if layer == 0 else UPPER):
            name = t.name.replace(f"_l{UPPER}", f"_l{layer}")
            shape = tuple(int(sympy.sympify(d).xreplace({**v, UPPER: layer})) for d in t.shape)
            assert expected[name] == shape
    # the widths read are the torch modules' input widths
    for r, (layer, d) in zip(rows, [(0, 0), (0, 1), (1, 0), (1, 1)][: len(rows)]):
        name = f"weight_ih_l{layer}" + ("_reverse" if d else "")
        width = sympy.sympify(stack.layer_input_size(0 if layer == 0 else UPPER, d)).xreplace(v)
        if name in expected:
            assert expected[name][1] == width
        else:  # tied: the reverse direction reads through the forward tensor
            assert expected[f"weight_ih_l{layer}"][1] == width


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_worked_example(page, contexts):
    example = contexts[page.slug]["example"]
    modified = page.wiring.labels is not None
    classes = E["classes"] if modified else 0
    if page.convention is PYTORCH:
        model = torch_model(page.wiring, "LSTM", E["input_size"], E["hidden_size"], E["num_layers"], classes, classes)
        assert example["count"] == torch_count(model)
        names = (
            dict(model.derive_names())
            if hasattr(model, "derive_names")
            else {n: tuple(p.shape) for n, p in model.named_parameters()}
        )
        for layer in example["layers"]:
            for _, count, tensors in layer["directions"]:
                assert int(count.replace(",", "")) == sum(sympy.prod(names[n]) for n, _ in tensors)
                assert all(names[n] == s for n, s in tensors)
        assert all(names[n] == s for n, s in example["output"])
    else:  # Keras: the same model built from Keras 3 layers
        model = keras.Sequential(
            [keras.Input((6, E["input_size"]))]
            + [
                keras.layers.Bidirectional(
                    keras.layers.LSTM(E["hidden_size"], return_sequences=k < E["num_layers"] - 1)
                )
                for k in range(E["num_layers"])
            ]
        )
        assert example["count"] == model.count_params() == contexts[page.slug]["extra"]["adapter_count"]
        weights = [tuple(w.shape) for w in model.weights]
        assert [
            s for layer in example["layers"] for _, _, tensors in layer["directions"] for _, s in tensors
        ] == weights
        assert pages.KERAS_STACK_CALL.count("layers.Bidirectional") == E["num_layers"]


def test_keras_backward_layer_with_other_units(contexts):
    extra = contexts["keras-bidirectional"]["extra"]
    H_f, H_b = pages.H_f, pages.H_b
    layer = dk.Bidirectional(
        dk.LSTM(H_f, return_sequences=True), backward_layer=dk.LSTM(H_b, return_sequences=True, go_backwards=True)
    )
    assert extra["asym_count"] == sympy.latex(sympy.factor(dk.count(layer, I)))
    assert extra["asym_width"] == sympy.latex(layer.output_dim(I))
    for i, hf, hb in [(3, 4, 6), (28, 64, 32)]:
        live = keras.layers.Bidirectional(
            keras.layers.LSTM(hf, return_sequences=True),
            backward_layer=keras.layers.LSTM(hb, return_sequences=True, go_backwards=True),
        )
        # run on data: Keras' symbolic output shape says 2·H_f (keras-team/keras#23688), the tensor is H_f + H_b
        out = live(np.zeros((1, 5, i), dtype="float32"))
        assert dk.count(layer, I).xreplace({I: i, H_f: hf, H_b: hb}) == live.count_params()
        assert layer.output_dim(I).xreplace({I: i, H_f: hf, H_b: hb}) == tuple(out.shape)[-1]


@pytest.mark.parametrize("page", [p for p in PAGES if p.variants], ids=lambda p: p.slug)
def test_variants(page, contexts):
    modified = page.wiring.labels is not None
    for v, shown in zip(page.variants, contexts[page.slug]["variants"]):
        stack = pages.build(v, output_features=K if modified else 0, convention=page.convention)
        main = pages.build(page.wiring, output_features=K if modified else 0, convention=page.convention)
        assert shown["count"] == sympy.latex(sympy.factor(stack.count))
        assert shown["difference"]["total"] == sympy.latex(compare(stack, main).total)
        for i, h, layers, classes, _ in SIZES:
            out = classes if modified else 0
            mine = count_of(page, v, "LSTM", i, h, layers, classes, out)
            theirs = count_of(page, page.wiring, "LSTM", i, h, layers, classes, out)
            assert stack.count.xreplace(values(i, h, layers, classes)) == mine
            assert compare(stack, main).total.xreplace(values(i, h, layers, classes)) == mine - theirs


def test_modified_posteriors(contexts):
    posteriors = contexts["modified-brnn"]["posteriors"]
    placement = pages.WIRING_PAGES[-1].wiring.labels.placement
    forward = pages.build(pages._modified(placement, "forward"), output_features=K)
    backward = pages.build(pages._modified(placement, "backward"), output_features=K)
    assert posteriors["forward"] == sympy.latex(sympy.factor(forward.count))
    assert posteriors["backward"] == sympy.latex(sympy.factor(backward.count))
    assert posteriors["both"] == sympy.latex(sympy.factor(forward.count + backward.count))
    for i, h, layers, classes, _ in SIZES:
        models = [
            TwoStacks("LSTM", i, h, layers, classes=classes, posterior=side, output=classes)
            for side in ("forward", "backward")
        ]
        v = values(i, h, layers, classes)
        assert forward.count.xreplace(v) == torch_count(models[0])
        assert backward.count.xreplace(v) == torch_count(models[1])


def test_overview(monkeypatch):
    context = pages.overview_context()
    deep = pages.build(pages.DEEP_BIDIRECTIONAL)
    assert [r["title"] for r in context["rows"]] == [c[0] for c in pages.COMPARED]
    for row, (_, _, wiring) in zip(context["rows"], pages.COMPARED):
        stack = pages.build(wiring)
        assert row["count"] == sympy.latex(sympy.factor(stack.count))
        assert row["minus_deep"] == sympy.latex(compare(stack, deep).total)
        example = torch_model(wiring, "LSTM", E["input_size"], E["hidden_size"], E["num_layers"], E["classes"])
        assert row["example"] == f"{torch_count(example):,}"
        for i, h, layers, classes, _ in SIZES:
            mine = torch_count(torch_model(wiring, "LSTM", i, h, layers, classes))
            theirs = torch_count(nn.LSTM(i, h, layers, bidirectional=True))
            assert stack.count.xreplace(values(i, h, layers, classes)) == mine
            assert compare(stack, deep).total.xreplace(values(i, h, layers, classes)) == mine - theirs
    linear = nn.Linear(2 * 7, 3)
    shapes = [t["shape"] for t in context["output_tensors"]]
    assert [sympy.sympify(0) or s for s in shapes] == [
        shape_latex(t.shape) for t in pages.build(pages.DEEP_BIDIRECTIONAL, output_features=O).output_tensors
    ]
    out = pages.build(pages.DEEP_BIDIRECTIONAL, "LSTM", 5, 7, 1, output_features=3).output_tensors
    assert [tuple(int(d) for d in t.shape) for t in out] == [tuple(p.shape) for p in linear.parameters()]


# --------------------------------------------------------------------------- diagrams


@pytest.mark.parametrize(
    "wiring", [c[2] for c in pages.COMPARED] + [v for p in PAGES for v in p.variants], ids=lambda w: w.name
)
def test_diagram_is_drawn_from_the_wiring(wiring):
    import xml.etree.ElementTree as ET

    svg = wiring_svg(wiring, layers=3, output_layer=True, ident="t")
    assert "$" not in svg and "\n\n" not in svg and "http" not in svg
    root = ET.fromstring(svg)
    texts = ["".join(t.itertext()) for t in root.iter("text")]
    for layer in range(3):
        for d, name in enumerate(wiring.directions):
            assert any(t.startswith(f"layer {layer} {name}") for t in texts)
            width = sympy.sstr(sympy.expand(wiring.layer_input_size(layer, I, H, d))).replace("*", "")
            assert f"reads {width}, emits H" in texts
    arrows = len(root.findall("line")) + len(root.findall("polyline"))
    D = wiring.num_directions
    if wiring.shared:
        expected_inputs = 1 + D + 2 * 2 * D  # input -> node -> D boxes; per upper layer D -> node -> D boxes
    elif wiring.merge in ("sum", "mul", "ave"):
        expected_inputs = D + 2 * (D + D)  # input -> D boxes; per upper layer: D -> merge, merge -> D
    else:
        expected_inputs = D + 2 * sum(len(wiring.reads(d)) for d in range(D))
    labels = wiring.labels
    label_arrows = 0 if labels is None else len(labels.placement)
    top = D  # last layer -> top node
    assert arrows == expected_inputs + label_arrows + top + 1  # + top -> output layer


def test_diagram_refuses_bad_layers():
    with pytest.raises(ValueError, match="layers must be an int >= 1"):
        wiring_svg(pages.SIMPLE_CONCAT, layers=0)
