"""The "Whole models" pages against the real frameworks: every count, total, shape and message.

The code each page shows is run here for real (it is our own constant text, not user input):
Keras 3 builds the Keras models, PyTorch builds the modules on the ``meta`` device, and torch
itself produces the error messages the page quotes.
"""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")
keras = pytest.importorskip("keras")
from torch import nn  # noqa: E402

import derive  # noqa: E402
from docs_src.pages import models as page  # noqa: E402
from docs_src.site import number  # noqa: E402

CASES = {m.key: m for m in page.WHOLE_MODELS}


@pytest.fixture(scope="module")
def context():
    return {entry["model"].key: entry for entry in page.whole_models_context()["models"]}


def _with_sizes(code: str, sizes: dict[str, int]) -> str:
    """The page's code with other values on its size lines (``V = 10_000  # ...``)."""
    return re.sub(
        r"^([A-Z]) = [\d_]+(?=  #)", lambda m: f"{m.group(1)} = {sizes[m.group(1)]}", code, flags=re.MULTILINE
    )


def real_keras(code: str):
    namespace = {"keras": keras, "layers": keras.layers}
    exec(code, namespace)  # the page's own code, run by real Keras
    model = namespace["model"]
    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    return model, layers


def real_torch(code: str):
    namespace = {"nn": nn, "torch": torch}
    with torch.device("meta"):
        exec(code, namespace)  # the page's own code, run by real torch
    model = namespace["model"]
    return model, [(name, sum(p.numel() for p in child.parameters())) for name, child in model.named_children()]


def _sizes(model, bump: int = 0) -> dict[str, int]:
    return {name: value + bump for name, value, _ in model.sizes}


@pytest.mark.parametrize("key", list(CASES))
@pytest.mark.parametrize("bump", [0, 3])
def test_keras_counts_and_shapes(key, bump, context):
    model = CASES[key]
    sizes = _sizes(model, bump)
    code = _with_sizes(page.keras_code(model), sizes)
    real, layers = real_keras(code)
    report = derive.explain(code, framework="keras")
    assert [r.params for r in report.rows] == [layer.count_params() for layer in layers]
    assert report.total == real.count_params()
    if isinstance(real, keras.Sequential):
        assert [r.output_shape for r in report.rows] == [tuple(layer.output.shape) for layer in layers]
    symbolic = derive.explain(page.keras_code(model, symbolic=True), framework="keras")
    assert [derive_value(r.params, sizes) for r in symbolic.rows] == [layer.count_params() for layer in layers]
    assert derive_value(symbolic.total, sizes) == real.count_params()
    if bump == 0:  # the numbers printed on the page
        table = context[key]["keras_table"]
        assert [r["params"] for r in table["rows"]] == [number(layer.count_params()) for layer in layers]
        assert table["total"] == number(real.count_params())


@pytest.mark.parametrize("key", list(CASES))
@pytest.mark.parametrize("bump", [0, 3])
def test_torch_counts(key, bump, context):
    model = CASES[key]
    sizes = _sizes(model, bump)
    code = _with_sizes(page.torch_code(model), sizes)
    real, children = real_torch(code)
    total = sum(p.numel() for p in real.parameters())
    report = derive.explain(code, framework="torch")
    assert [(r.name, r.params) for r in report.rows] == children
    assert report.total == total
    symbolic = derive.explain(page.torch_code(model, symbolic=True), framework="torch")
    assert [derive_value(r.params, sizes) for r in symbolic.rows] == [n for _, n in children]
    assert derive_value(symbolic.total, sizes) == total
    if bump == 0:
        table = context[key]["torch_table"]
        assert [(r["name"], r["params"]) for r in table["rows"]] == [(n, number(c)) for n, c in children]
        assert table["total"] == number(total)


def derive_value(expression, sizes: dict[str, int]) -> int:
    """A closed form at the given sizes (symbols matched by name)."""
    if isinstance(expression, int):
        return expression
    return int(expression.subs({s: sizes[s.name] for s in expression.free_symbols}))


def test_torch_output_shapes_of_the_cnn():
    """The one torch table whose shapes change along the way: checked on a real forward pass."""
    model = CASES["cnn-lstm"]
    real, _ = real_torch(page.torch_code(model))
    sizes = _sizes(model)
    x = torch.zeros(2, sizes["F"], sizes["T"], device="meta")
    conv = real.conv(x)
    assert tuple(conv.shape) == (2, sizes["M"], sizes["T"] - 4)
    assert tuple(real.pool(conv).shape) == (2, sizes["M"], (sizes["T"] - 4) // 2)


# --- checkpoints and error messages ---------------------------------------------------------------


def test_state_dict_is_the_taggers(tmp_path):
    code = page.torch_code(CASES["tagger"])
    namespace = {"nn": nn, "torch": torch}
    exec(code, namespace)  # real tensors: torch.save writes them
    model = namespace["model"]
    assert {k: tuple(v.shape) for k, v in model.state_dict().items()} == page.STATE_DICT
    path = tmp_path / "tagger.pt"
    torch.save(model.state_dict(), path)
    report = derive.explain(str(path))
    assert report.total == sum(p.numel() for p in model.parameters())
    shown = page.checkpoints_context()
    assert [(r.name, r.type, number(r.params), r.constructor or "") for r in report.rows] == shown["rows"]
    assert shown["total"] == number(report.total)
    (constructor,) = report.constructors
    rebuilt = eval(constructor, {"nn": nn})  # derive's output, checked by building it in torch
    assert [(n, tuple(p.shape)) for n, p in rebuilt.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in model.lstm.named_parameters()
    ]
    counts = {name: sum(p.numel() for p in child.parameters()) for name, child in model.named_children()}
    assert {r.name: r.params for r in report.rows} == counts


def _net(constructor: str) -> nn.Module:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = eval(constructor, {"nn": nn})  # the page's constant constructors

    with torch.device("meta"):
        return Net()


ARGUMENT = {
    0: "input_size=300, your model 100",
    1: "num_layers=2, your model 1",
    2: "bidirectional=False, your model True",
}


@pytest.mark.parametrize("index", range(len(page.ERRORS)))
def test_error_messages_are_torchs(index):
    case = page.ERRORS[index]
    with pytest.raises(RuntimeError) as caught:
        _net(case.model).load_state_dict(_net(case.checkpoint).state_dict())
    assert str(caught.value) == case.message
    explained = derive.explain_error(case.message)
    assert ARGUMENT[index] in explained
    shown = page.checkpoints_context()["errors"][index]
    assert shown["explained"] == explained
