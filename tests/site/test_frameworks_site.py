"""Every number and tensor the framework pages and the comparison page show, held against the
real packages where they install (ONNX + ONNX Runtime, Flax linen and nnx, Equinox, Paddle, torch,
Keras with the torch backend). For frameworks read from source (cuDNN, tf.keras CuDNN layers, TF1,
MXNet) the numbers are held against the live framework their source says they equal.
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("KERAS_BACKEND", "torch")

import frameworks_live as live
import live_registry
import pytest
import sympy
from torch_live import torch_count as parameters_of
from torch_live import torch_module

import docs_src.site as site
from derive import H, I, L, frameworks
from derive.render.latex import shape_latex
from docs_src import record
from docs_src.pages import frameworks as pages

TORCH_CLASS = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU"}


def torch_count(generic, i, h, layers=1, bidirectional=False, bias=True, proj_size=0) -> int:
    kwargs = {"proj_size": proj_size} if proj_size else {}
    return parameters_of(
        torch_module(TORCH_CLASS[generic], i, h, layers, bias=bias, bidirectional=bidirectional, **kwargs)
    )


@pytest.fixture(scope="module")
def keras():
    import keras

    return keras


def keras_count(keras, generic, i, h, layers=1, bidirectional=False, **kwargs) -> int:
    """A Keras stack of the same cell, wiring and sizes (one merged bias per gate)."""
    cls = getattr(keras.layers, {"rnn": "SimpleRNN", "lstm": "LSTM", "gru": "GRU"}[generic])
    stack = []
    for _ in range(layers):
        layer = cls(h, return_sequences=True, **kwargs)
        stack.append(keras.layers.Bidirectional(layer) if bidirectional else layer)
    model = keras.Sequential([keras.Input((4, i)), *stack])
    return model.count_params()


def live_tensors(framework, cell, i, h, **options):
    """(name, shape, trainable) of the real object, for the frameworks that install here."""
    return live_registry.tensors(framework, cell, i, h, **options)


def live_count(framework, cell, i, h, keras=None, **options) -> int:
    """The count of the real object; for a framework read from source, of the live framework its
    source says it equals (``tests/support/live_registry.py``)."""
    return live_registry.count(framework, cell, i, h, **options)


FRAMEWORK_EXAMPLES = site.examples("frameworks")


@pytest.mark.slow
@pytest.mark.parametrize("example", FRAMEWORK_EXAMPLES, ids=lambda e: e.call)
def test_framework_page_example(example, keras):
    framework, cell, i, h = example.args
    options = dict(example.kwargs)
    shown = pages.example_context(example)
    assert shown["count"] == f"{live_count(framework, cell, i, h, keras=keras, **options):,}"
    if framework in live_registry.TENSORS:
        rows = sorted((name, shape, trainable) for name, shape, _, trainable in shown["rows"])
        assert rows == sorted(live_tensors(framework, cell, i, h, **options))
    if framework == "paddle":
        module = live.paddle_module(cell, i, h, **options)
        trainable = sum(int(p.numel()) for p in module.parameters() if not p.stop_gradient)
        assert shown["trainable"] == f"{trainable:,}"


def test_every_framework_example_is_rendered_and_nothing_else(rendered_pages):
    rendered = rendered_pages
    for page in pages.PAGES:
        text = rendered[page.path]
        calls = {f"frameworks.{e.call}" for e in page.examples if e.framework == "frameworks"}
        for call in calls:
            assert call in text, f"{call} not on {page.path}"
        shown = set(re.findall(r"frameworks\.count\([^()]*(?:\([^()]*\))?[^()]*\)", text))
        shown = {c for c in shown if '"' not in c}  # the notebook snippet uses double quotes
        assert shown <= calls, f"unchecked calls on {page.path}: {shown - calls}"


def numeric(value, values: dict):
    """A symbolic class option (a size or a tuple of sizes) with ``values`` substituted."""
    if isinstance(value, tuple):
        return tuple(int(sympy.sympify(v).xreplace(values)) for v in value)
    return int(sympy.sympify(value).xreplace(values))


CHECKED = [(fw, spec) for fw in frameworks.FRAMEWORKS.values() if fw.checked for spec in fw.cells]


@pytest.mark.slow
@pytest.mark.parametrize("fw,spec", CHECKED, ids=lambda v: getattr(v, "key", getattr(v, "name", "")))
def test_symbolic_tables_substituted_equal_live(fw, spec):
    """The page's symbolic tables (one cell/layer; layer k >= 1 of a bidirectional stack) with sizes
    substituted give the live names and shapes."""
    if fw.key == "xlstm":  # I = H, heads dividing H, rounded inner width, no bidirectional layer
        pytest.skip("xlstm's sizes are held live by tests/frameworks/test_live_xlstm.py")
    section = pages.cell_section(fw, spec)
    i_sym, h_sym, options = pages._sizes(spec)
    values = {i_sym: 3, h_sym: 4, pages.k_1: 3, pages.k_2: 2, pages.k_3: 1, pages.k: 2}
    numeric_extra = {name: numeric(value, values) for name, value in options.items()}
    single = frameworks.stack(fw.key, spec.name, i_sym, h_sym, **options)
    assert [r["shape"] for r in section["rows"]] == [shape_latex(t.shape) for t in single.layer_tensors(0)]
    shown = [
        (r["name"], tuple(int(sympy.sympify(d).xreplace(values)) for d in t.shape))
        for r, t in zip(section["rows"], single.layer_tensors(0))
    ]
    if fw.key == "onnx":
        assert shown == [(r.name, r.shape) for r in frameworks.tensors("onnx", spec.name, 3, 4)]
        assert live_count("onnx", spec.name, 3, 4) == sum(int(sympy.prod(s)) for _, s in shown)
    else:
        expected = sorted((n, s) for n, s, _ in live_tensors(fw.key, spec.name, 3, 4, **numeric_extra))
        assert sorted(shown) == expected
    stack = frameworks.stack(fw.key, spec.name, i_sym, h_sym, num_layers=L, bidirectional=True, **options)
    upper = [
        (
            re.sub(
                r"<([^>]*)>",
                lambda m: str(sympy.sympify(m.group(1).replace("k", "*1") if m.group(1)[0].isdigit() else "1")),
                r["name"],
            ),
            tuple(int(sympy.sympify(d).xreplace(values)) for d in t.shape),
        )
        for r, t in zip(section["upper_rows"], stack.layer_tensors(1))
    ]
    rows = frameworks.tensors(fw.key, spec.name, 3, 4, num_layers=2, bidirectional=True, **numeric_extra)
    layer1 = [(r.name, r.shape) for r in rows if r.name in {n for n, _ in upper}]
    assert sorted(upper) == sorted(layer1) and len(upper) == len(layer1) > 0
    if fw.key != "onnx":
        live_rows = live_tensors(fw.key, spec.name, 3, 4, num_layers=2, bidirectional=True, **numeric_extra)
        assert set(upper) <= {(n, s) for n, s, _ in live_rows}
    else:
        assert live_count("onnx", spec.name, 3, 4, num_layers=2, bidirectional=True) == sum(r.count for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("fw,spec", CHECKED, ids=lambda v: getattr(v, "key", getattr(v, "name", "")))
def test_closed_forms_on_pages_equal_live(fw, spec, keras):
    """The closed forms for L layers (D = 1, 2), at L = 1, 2, equal the live count."""
    if fw.key == "xlstm":  # I = H, heads dividing H, rounded inner width, no bidirectional layer
        pytest.skip("xlstm's sizes are held live by tests/frameworks/test_live_xlstm.py")
    i_sym, h_sym, options = pages._sizes(spec)
    dims = len(options.get("kernel_size", ()))
    numeric_extra = {name: numeric(value, {pages.k: 2}) for name, value in options.items() if name != "kernel_size"}
    symbolic_extra = dict(options)
    if dims:  # one symbolic tap count, the others 1
        numeric_extra["kernel_size"] = (2,) + (1,) * (dims - 1)
        symbolic_extra["kernel_size"] = (pages.k_1,) + (1,) * (dims - 1)
    section = pages.cell_section(fw, spec)
    for total in section["totals"]:
        bi = total["D"] == 2
        closed = frameworks.count(fw.key, spec.name, i_sym, h_sym, num_layers=L, bidirectional=bi, **options)
        assert total["expanded"] == sympy.latex(sympy.expand(closed))
        closed_1d = frameworks.count(fw.key, spec.name, i_sym, h_sym, num_layers=L, bidirectional=bi, **symbolic_extra)
        for layers in (1, 2):
            values = {i_sym: 3, h_sym: 2, L: layers, pages.k_1: 2, pages.k: 2}
            assert closed_1d.xreplace(values) == live_count(
                fw.key, spec.name, 3, 2, keras=keras, num_layers=layers, bidirectional=bi, **numeric_extra
            )


# --------------------------------------------------------------------------- comparison


def _live_row(row, case, keras) -> int:
    key = row["key"]
    sizes = (case.input_size, case.hidden_size)
    options = {"num_layers": case.num_layers, "bidirectional": case.bidirectional}
    if key == "torch":
        return torch_count(case.generic, *sizes, case.num_layers, case.bidirectional)
    if key in ("keras", "keras-reset-before"):
        kwargs = {"reset_after": False} if key == "keras-reset-before" else {}
        return keras_count(keras, case.generic, *sizes, case.num_layers, case.bidirectional, **kwargs)
    return live_count(key, row["spec"], *sizes, keras=keras, **options)


@pytest.mark.slow
@pytest.mark.parametrize("case", pages.CASES, ids=lambda c: c.title)
def test_comparison_rows_equal_live(case, keras):
    rows = pages.comparison_rows(case)
    torch_number = torch_count(case.generic, case.input_size, case.hidden_size, case.num_layers, case.bidirectional)
    for row in rows:
        number = _live_row(row, case, keras)
        assert row["number"] == number, row["key"]
        assert row["number_difference"] == number - torch_number
        assert row["checked"] == (
            row["key"] in ("torch", "keras", "keras-reset-before") or frameworks.FRAMEWORKS[row["key"]].checked
        )
    keys = [r["key"] for r in rows]
    assert keys[0] == "torch" and len(keys) == len(set(keys))


@pytest.mark.slow
@pytest.mark.parametrize("case", pages.CASES, ids=lambda c: c.title)
def test_comparison_closed_forms_equal_live_for_other_sizes(case, keras):
    """Each row's closed form in I, H, L and its bias per layer and direction, at other sizes."""
    for row in pages.comparison_rows(case):
        for i, h, layers in [(3, 2, 1), (2, 3, 2)]:
            other = pages.Case(case.title, case.generic, case.torch_cls, i, h, layers, case.bidirectional, "")
            assert row["closed"].xreplace({I: i, H: h, L: layers}) == _live_row(row, other, keras), row["key"]
        d = 2 if case.bidirectional else 1
        assert sympy.expand(row["closed"].xreplace({L: 1}) - d * row["one"]) == 0


@pytest.mark.parametrize("case", pages.CASES, ids=lambda c: c.title)
def test_comparison_bias_per_layer_and_direction(case, keras):
    """The bias column, live: the count with biases minus the count without, or the size of the
    tensors a framework names as biases; and every cause states the bias the derivation finds."""
    for row in pages.comparison_rows(case):
        key = row["key"]
        i, h = 3, 4
        if key == "torch":
            live_bias = torch_count(case.generic, i, h) - torch_count(case.generic, i, h, bias=False)
        elif key in ("keras", "keras-reset-before"):
            kwargs = {"reset_after": False} if key == "keras-reset-before" else {}
            live_bias = keras_count(keras, case.generic, i, h, **kwargs) - keras_count(
                keras, case.generic, i, h, use_bias=False, **kwargs
            )
        elif key in ("flax.linen", "flax.nnx", "equinox"):
            live_bias = sum(
                int(sympy.prod(s))
                for n, s, _ in live_tensors(key, row["spec"], i, h)
                if n.split("/")[-1].split(".")[-1].startswith("bias")
            )
        elif key == "onnx":
            live_bias = live_count(key, row["spec"], i, h) - live_count(key, row["spec"], i, h, bias=False)
        elif key == "paddle":  # a disabled bias is frozen, not removed: count what still trains
            module = live.paddle_module(row["spec"], i, h, bias=False)
            live_bias = live_count(key, row["spec"], i, h) - sum(
                int(p.numel()) for p in module.parameters() if not p.stop_gradient
            )
        else:  # from source: stated by the convention only
            live_bias = None
        if live_bias is not None:
            assert row["bias"].xreplace({H: h}) == live_bias, key
        claimed = pages.CAUSES.get((case.generic, key))
        if claimed is not None:
            assert row["bias"] == claimed[0] * H, key


def test_comparison_states_the_known_differences():
    """The differences named on the page: LSTM − 4H per layer and direction (Keras, Flax, Equinox,
    TF1), GRU bias 6H / 4H / 3H, CuDNNLSTM vs LSTM, Flax linen vs nnx GRU."""
    lstm = {r["key"]: r for r in pages.comparison_rows(pages.CASES[0])}
    for key in ("keras", "keras2", "tf1", "flax.linen", "flax.nnx", "equinox", "haiku", "mlx"):
        assert sympy.expand(lstm[key]["one"] - lstm["torch"]["one"]) == -4 * H
    for key in ("onnx", "cudnn", "mxnet", "paddle", "tf.keras"):
        assert sympy.expand(lstm[key]["one"] - lstm["torch"]["one"]) == 0
    assert sympy.expand(lstm["tf.keras"]["one"] - lstm["keras"]["one"]) == 4 * H
    gru = {r["key"]: r for r in pages.comparison_rows(pages.CASES[1])}
    biases = {k: sympy.simplify(r["bias"] / H) for k, r in gru.items()}
    assert biases == {
        "torch": 6,
        "keras": 6,
        "keras-reset-before": 3,
        "onnx": 6,
        "cudnn": 6,
        "tf.keras": 6,
        "tf1": 3,
        "flax.linen": 4,
        "flax.nnx": 3,
        "equinox": 4,
        "haiku": 3,
        "mlx": 4,
        "keras2": 6,
        "mxnet": 6,
        "paddle": 6,
    }
    assert sympy.expand(gru["flax.linen"]["one"] - gru["flax.nnx"]["one"]) == H


def test_pages_say_checked_or_from_source(rendered_pages):
    rendered = rendered_pages
    for fw in frameworks.FRAMEWORKS.values():
        text = rendered[f"frameworks/{fw.key.replace('.', '-')}.md"]
        # The record's words (the record itself is held to the installed packages by
        # tests/site/test_verification_record.py, MXNet's in .venv-mxnet included).
        assert record.status(fw) in text
        if not fw.checked:
            assert "from source: " in text and fw.source in text
