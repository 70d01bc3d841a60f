"""The Tools pages: every number they show, held against torch / Keras."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

import docs_src.site as site
from docs_src.pages import tools

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pages(rendered_pages):
    return rendered_pages


def torch_module(example):
    return getattr(nn, example.cls)(*example.args, **dict(example.kwargs))


def torch_flops(module, seq_len, batch):
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        module(torch.randn(seq_len, batch, module.input_size))
    return counter.get_total_flops()


def grouped(n: int) -> str:
    return f"{n:,}"


def test_tools_pages_are_in_the_navigation():
    entries = [e for e in site.nav() if "Tools" in e]
    assert entries
    paths = [next(iter(item.values())) for item in entries[0]["Tools"]]
    assert paths == [
        "tools/index.md",
        "tools/notebook.md",
        "tools/cli.md",
        "tools/cost.md",
        "tools/calculator.md",
        "tools/benchmark.md",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("example", tools.COST_EXAMPLES, ids=lambda e: e.call)
def test_cost_page_rows_match_torch(example, pages):
    module = torch_module(example)
    context = tools.cost_context()
    row = next(r for r in context["examples"] if r["call"] == example.call)
    assert row["matmul_flops"] == grouped(torch_flops(module, tools.COST_T, tools.COST_N))
    assert row["weights"] == grouped(sum(p.numel() * p.element_size() for p in module.parameters()))
    assert row["token_flops"] == grouped(torch_flops(module, 1, tools.COST_N) // tools.COST_N)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
        _, states = module(torch.randn(tools.COST_T, tools.COST_N, module.input_size))
    states = states if isinstance(states, tuple) else (states,)
    assert row["cache"] == grouped(sum(s.numel() * s.element_size() for s in states))
    line = next(line for line in pages["tools/cost.md"].splitlines() if line.startswith(f"| `{example.call}`"))
    assert f"| {row['matmul_flops']} |" in line and f"| {row['weights']} |" in line
    assert line.endswith(f"| {row['cache']} | {row['token_flops']} |")


def test_cli_page_outputs_match_torch_and_keras(pages):
    page = pages["tools/cli.md"]
    runs = {r["command"]: r for r in (tools.cli_run(a) for a in tools.CLI_RUNS)}
    for run in runs.values():
        assert run["command"] in page
        assert (run["stdout"] or run["stderr"]) in page

    bi = runs['derive "nn.LSTM(32, 128, 2, bidirectional=True)"']
    assert bi["status"] == 0
    assert grouped(sum(p.numel() for p in nn.LSTM(32, 128, 2, bidirectional=True).parameters())) in bi["stdout"]
    for name, p in nn.LSTM(32, 128, 2, bidirectional=True).named_parameters():
        assert re.search(rf"{name}\s+│ \({', '.join(map(str, p.shape))},?\)\s+│\s+{grouped(p.numel())} │", bi["stdout"])

    gru = runs['derive "nn.GRU(10, 20)" --cost --seq-len 100 --batch 32']
    flops = torch_flops(nn.GRU(10, 20), 100, 32)
    assert f"(matrix products {grouped(flops)})" in gru["stdout"]

    keras_run = runs['derive --keras "Bidirectional(LSTM(128))" --input-dim 28']
    keras = pytest.importorskip("keras")
    if keras.backend.backend() == "torch":
        layer = keras.layers.Bidirectional(keras.layers.LSTM(128))
        layer(keras.Input(shape=(28, 28)))
        assert grouped(layer.count_params()) in keras_run["stdout"]

    hostile = runs["""derive "__import__('os').system('rm -rf ~')\""""]
    assert hostile["status"] == 2 and hostile["stdout"] == "" and hostile["stderr"].startswith("derive: error:")

    mamba = runs['derive "Mamba(d_model=18, d_state=16, d_conv=4, expand=2)"']
    assert mamba["status"] == 0 and "4,068" in mamba["stdout"]  # state-spaces/mamba#817, held live in tests/blocks

    model = nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128), nn.Linear(128, 5))
    tensors = runs['derive "nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128), nn.Linear(128, 5))" --tensors']
    assert tensors["status"] == 0 and grouped(sum(p.numel() for p in model.parameters())) in tensors["stdout"]
    for name, p in model.named_parameters():
        assert re.search(
            rf"{re.escape(name)}\s+│ \({', '.join(map(str, p.shape))},?\)\s+│\s+{grouped(p.numel())} │",
            tensors["stdout"],
        )

    partial = runs['derive "nn.Sequential(nn.LSTM(8, 16), CRF(16))" --partial']
    lstm = sum(p.numel() for p in nn.LSTM(8, 16).parameters())
    assert partial["status"] == 3 and grouped(lstm) in partial["stdout"] and "lower bound" in partial["stdout"]

    error = next(r for c, r in runs.items() if c.startswith("derive --explain-error"))
    assert error["status"] == 0 and "num_layers" in error["stdout"]

    haiku = runs['derive "hk.LSTM(128)" --input-dim 32']
    assert haiku["status"] == 0 and grouped(4 * 128 * (32 + 128 + 1)) in haiku["stdout"]  # held live: tests/cli


def test_calculator_page_defaults_match_torch(pages):
    page = pages["tools/calculator.md"]
    d = tools.CALC_DEFAULT
    module = nn.LSTM(d["input_size"], d["hidden_size"], d["num_layers"], bidirectional=d["bidirectional"])
    total = sum(p.numel() for p in module.parameters())
    assert f'id="calc-total" data-value="{total}">{grouped(total)}<' in page
    layer0 = sum(p.numel() for n, p in module.named_parameters() if "_l0" in n)
    assert f'id="calc-layer0" data-value="{layer0}"' in page


def test_benchmark_page_reads_the_committed_results(pages):
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    page = pages["tools/benchmark.md"]
    assert data["date"] in page and data["command"] in page
    assert max(r["parameters"] for r in data["rows"]) > 10**9
    for row in data["rows"]:
        module = nn.LSTM(row["input_size"], row["hidden_size"], row["num_layers"], bidirectional=True, device="meta")
        assert row["parameters"] == sum(p.numel() for p in module.parameters())
        assert f"| `{row['label']}` | {grouped(row['parameters'])} |" in page
    for target in data["targets"]:
        assert target["measured"] in page


def test_benchmark_page_shows_the_explain_results(pages):
    data = json.loads((ROOT / "benchmarks" / "results_explain.json").read_text())
    page = pages["tools/benchmark.md"]
    assert data["date"] in page and data["command"] in page
    big = data["big_checkpoint"]
    assert big["file_bytes"] >= 10**9 and big["constructors"][0] in page
    with torch_meta():
        lstm = nn.LSTM(1024, 2048, num_layers=2, bidirectional=True)
    assert big["constructors"] == ["nn.LSTM(1024, 2048, num_layers=2, bidirectional=True)"]
    assert big["parameters"] == sum(p.numel() for p in lstm.parameters()) + 100_000 * 1024 + 4000 * 4096 + 4000
    for row in data["thousand_layers"]:
        assert f"| {row['label']} | {grouped(row['parameters'])} |" in page
    for row in data["side_by_side"]:
        assert f"| {row['model']} |" in page
        assert f"{row['torchinfo_over_derive']:.2f}" in page
    for target in data["targets"]:
        assert f"| {target['label']} | {target['measured']} | {target['target']} |" in page
        bound = target["target"]
        if bound.startswith("<="):
            assert target["met"] == (float(target["measured"]) <= float(bound.removeprefix("<=")))
        else:
            assert target["met"] == (float(target["measured"]) < float(bound.lstrip("< ")))


def torch_meta():
    import torch

    return torch.device("meta")


@pytest.mark.slow
def test_parallel_rendering_is_the_same_as_in_process(monkeypatch, pages):
    monkeypatch.setenv("DERIVE_RENDER_WORKERS", "1")
    serial = site.render_pages(ROOT / "templates")
    assert list(serial) == list(pages) and serial == pages


def test_benchmark_page_shows_the_config_results(pages):
    """The config benchmark's committed numbers, each on the page, and the same totals as transformers'."""
    import json

    page = pages["tools/benchmark.md"]
    results = json.loads(tools.BENCHMARK_CONFIGS.read_text(encoding="utf-8"))
    assert results["rows"]
    for row in results["rows"]:
        assert f"| `{row['config']}` | {row['parameters']:,} |" in page
        assert f"{row['ratio']:,.0f}" in page
        if "cache_bytes" in row:  # the language models: the cache after cache_tokens tokens, bf16
            assert f"| `{row['config']}` | {row['cache_bytes']:,} |" in page
    assert sum("cache_bytes" in row for row in results["rows"]) >= 8
    mamba = next(r for r in results["rows"] if r["config"].startswith("mamba-2.8b"))
    assert (
        mamba["parameters"] == 2_768_345_600
    )  # as the maintainer quotes it (state-spaces/mamba#48), held live in tests/blocks
