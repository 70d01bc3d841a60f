"""benchmarks/results_peers.json (``benchmarks/bench_peers.py``, run by hand): well-formed, and its derive figures
are derive's answers today (a change in derive that moves one fails here until the benchmark is run again).

The peers' and transformers' figures are the record of that run (the peers live in ``.venv-peers``, never a
dependency); what is held here is that every derive figure beside them is still derive's, that the truth it is
set against is a meta build's parameter count times two (and derive's count equals it), that the recorded meta
runs at derive's largest context T fit each budget — 24/48/80 GB of 10^9 bytes and 24/48/80 GiB of 2^30, spelled
here — and at T + 1 do not, and that the table the note quotes is made from the rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results_peers.json"
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_peers  # noqa: E402

#: The budgets the issue names (GB: 10^9 bytes, as ``derive --memory 24GB`` reads it) and the GiB (2^30) beside them.
BUDGETS = {
    "24GB": 24_000_000_000,
    "48GB": 48_000_000_000,
    "80GB": 80_000_000_000,
    "24GiB": 24 * 1024**3,
    "48GiB": 48 * 1024**3,
    "80GiB": 80 * 1024**3,
}


@pytest.fixture(scope="module")
def results() -> dict:
    return json.loads(RESULTS.read_text())


def test_results_are_well_formed(results) -> None:
    assert results["contexts"] == list(bench_peers.CONTEXTS) and results["budgets"] == BUDGETS == bench_peers.BUDGETS
    assert results["command"] == ".venv/bin/python benchmarks/bench_peers.py"
    assert {"accelerate", "hf-mem", "transformers", "torch"} <= set(results["peers"])
    assert len(results["rows"]) >= 6 and [r["name"] for r in results["rows"]] == bench_peers.RELEASES
    for row in results["rows"]:
        for figure in ("weights_bf16", "weights_as_released", "cache_32768", "cache_131072"):
            compared = row["compared"][figure]
            assert set(compared) >= {"truth", "derive", "accelerate", "hf_mem", "derive_minus_truth"}
            truth, ours = compared["truth"], compared["derive"]
            if isinstance(truth, int):  # the difference as recorded is the two figures' difference
                assert compared["derive_minus_truth"]["bytes"] == ours - truth
        assert set(row["peers"]) >= {"accelerate", "hf_mem"}
        assert list(row["derive"]["largest_context"]) == list(BUDGETS)
        checks = row["transformers"]["largest_context_check"]
        built = row["transformers"]["weights_as_released"] is not None
        assert list(checks) == (list(BUDGETS) if built else []), row["name"]  # every budget, where a build runs
        for budget, check in checks.items():  # the meta run's weights + cache at T fit, at T + 1 do not
            if isinstance(check, str):
                assert check.startswith("not run"), (row["name"], budget)
                continue
            tokens, at, past = check["tokens"], check["bytes_at_T"], check["bytes_at_T_plus_1"]
            assert tokens == row["derive"]["largest_context"][budget] and check["budget"] == BUDGETS[budget]
            fits = at <= BUDGETS[budget] < past if tokens else past > BUDGETS[budget]
            assert fits and check["holds"] is True, (row["name"], budget, check)
    assert results["table"] == bench_peers.table(results["rows"])


@pytest.mark.parametrize("name", bench_peers.RELEASES)
def test_derive_figures_are_derives_answers_today(results, name) -> None:
    row = next(r for r in results["rows"] if r["name"] == name)
    model_type, config, source = bench_peers.release(name)
    assert (row["model_type"], row["source"]) == (model_type, source)
    assert row["derive"] == json.loads(json.dumps(bench_peers.derived(config)))
    real = row["transformers"]
    assert real["weights_bf16"] == 2 * real["parameters"] == 2 * row["derive"]["parameters"]
