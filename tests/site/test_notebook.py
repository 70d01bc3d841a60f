"""The example notebook runs on this Python's kernel, its stored outputs are what it prints now,
and the numbers it shows hold against torch (in the notebook) and Keras (here)."""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "derive.ipynb"


def _executor():
    spec = importlib.util.spec_from_file_location("execute_notebook", ROOT / "examples" / "execute_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def executed():
    return _executor().execute(NOTEBOOK)


def _shown(nb):
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for o in cell.outputs:
            assert o.output_type != "error", f"{o.get('ename')}: {o.get('evalue')}"
            if o.output_type == "stream":
                if o.name == "stdout":
                    outputs.append(("stream", o.text))
            else:
                outputs.append(tuple(sorted((k, v) for k, v in o.get("data", {}).items())))
        out.append(outputs)
    return out


def test_notebook_runs_and_stored_outputs_are_current(executed):
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert _shown(executed) == _shown(stored), (
        "examples/derive.ipynb's stored outputs differ from a fresh run: "
        "re-run .venv/bin/python examples/execute_notebook.py and commit the notebook"
    )


def test_keras_answer_holds_against_keras(executed):
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("keras not on the torch backend")
    from keras import layers

    cell = next(c for c in executed.cells if c.cell_type == "code" and "dk.Bidirectional" in c.source)
    text = cell.outputs[0]["data"]["text/plain"]
    budget, n, at_n, at_next, exact = re.fullmatch(r"\((\d+), (\d+), (\d+), (\d+), (True|False)\)", text).groups()

    def count(layer):
        layer(keras.Input(shape=(28, 28)))
        return layer.count_params()

    assert int(budget) == count(layers.LSTM(256))
    assert int(at_n) == count(layers.Bidirectional(layers.LSTM(int(n)))) <= int(budget)
    assert int(at_next) == count(layers.Bidirectional(layers.LSTM(int(n) + 1))) > int(budget)
    assert (exact == "True") == (int(at_n) == int(budget))


def test_cost_and_vectorized_outputs_hold_against_torch(executed):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    cells = [c for c in executed.cells if c.cell_type == "code"]
    cost_text = next(c for c in cells if "cost(bilstm" in c.source).outputs[0]["data"]["text/plain"]
    values = dict(re.findall(r"'([^']+)': (\d+)", cost_text))
    module = torch.nn.LSTM(32, 128, 2, bidirectional=True)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        module(torch.randn(100, 32, 32))
    assert 2 * int(values["MACs"]) == counter.get_total_flops()
    assert int(values["weights (bytes)"]) == sum(p.numel() * p.element_size() for p in module.parameters())

    array_text = next(c for c in cells if "vectorize(" in c.source).outputs[0]["data"]["text/plain"]
    shown = [int(v) for v in re.findall(r"\d+", array_text)]
    expected = [
        sum(p.numel() for p in torch.nn.LSTM(32, h, 2, bidirectional=True).parameters()) for h in (64, 128, 256, 512)
    ]
    assert shown == expected


def test_site_page_shows_the_stored_outputs(rendered_pages):
    from docs_src.pages.tools import notebook_cells

    page = rendered_pages["tools/notebook.md"]
    for cell in notebook_cells():
        if cell["kind"] == "code":
            assert cell["source"] in page
            for output in cell["outputs"]:
                assert output in page
