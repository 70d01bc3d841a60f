"""The committed verification record (docs_src/verification.json) states what this test run
verified against: every framework whose packages the suite imports, and every library the blocks
are held against live (``docs_src.record.LIBRARIES``: transformers here, mamba_ssm and
flash-linear-attention in ``.venv-ssm``), at the installed versions; the cited libraries of the
blocks are listed with their files and lines. The memory questions (``docs_src.record.MEMORY``) are
recorded kind by kind: each method's cases, the quantizer it was compared with, the versions (the
quantizers' in ``.venv-quant``), or the files and lines it is cited from.

Rewrite the packages after an intended upgrade with ``DERIVE_UPDATE_RECORD=1 ./scripts/test
tests/site/test_verification_record.py``, and the cases with a run of every live test that feeds them, in one
process, deselecting none (``tests/conftest.py`` writes nothing otherwise): the frameworks with
``DERIVE_UPDATE_RECORD=1 ./scripts/test tests/frameworks``; the blocks' libraries and the memory questions
(transformers' classes are counted by the families', the blocks', the command line's and the memory questions'
tests alike) with ``DERIVE_UPDATE_RECORD=1 ./scripts/test tests/families tests/blocks tests/cli/test_cli_frameworks.py
tests/analysis/test_stored.py tests/analysis/test_served.py tests/analysis/test_fit_windows.py
tests/analysis/test_parallel.py``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
from pathlib import Path

import pytest

from derive.frameworks import FRAMEWORKS
from docs_src import record

ROOT = Path(__file__).resolve().parents[2]


def _installed(registry=FRAMEWORKS) -> dict:
    out = {}
    for key, framework in registry.items():
        if not framework.packages:
            continue
        versions = {}
        for package in sorted(framework.packages):
            try:
                versions[package] = _version(package, framework.environment)
            except (importlib.metadata.PackageNotFoundError, subprocess.CalledProcessError, FileNotFoundError):
                where = f".venv-{framework.environment}" if framework.environment else "the test environment"
                pytest.fail(f"{package} (for {key}) is not installed in {where}: scripts/bootstrap --test installs it")
        out[key] = {"packages": versions}
    return out


def _version(package: str, environment: str) -> str:
    return record.package_version(package, environment)


def test_record_matches_the_installed_frameworks() -> None:
    installed = _installed()
    data = record.load()
    if os.environ.get("DERIVE_UPDATE_RECORD") == "1":
        for key, entry in installed.items():
            data["frameworks"].setdefault(key, {}).update(entry)
        data["frameworks"] = {k: v for k, v in sorted(data["frameworks"].items()) if k in installed}
        record.RECORD.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    packages = {key: {"packages": entry["packages"]} for key, entry in data["frameworks"].items()}
    assert packages == installed, (
        "docs_src/verification.json is out of date: run DERIVE_UPDATE_RECORD=1 ./scripts/test "
        "tests/site/test_verification_record.py"
    )


def test_record_matches_the_installed_block_libraries() -> None:
    """Each live library of the blocks is recorded at the version installed in its own environment."""
    installed = _installed(record.LIBRARIES)
    assert set(installed) == {"transformers", "mamba_ssm", "fla"}
    blocks = record.load().get("blocks", {})
    if os.environ.get("DERIVE_UPDATE_RECORD") == "1":
        data = record.load()
        for key, entry in installed.items():
            data.setdefault("blocks", {}).setdefault(key, {}).update(entry)
        data["blocks"] = {k: v for k, v in sorted(data["blocks"].items()) if k in installed}
        record.RECORD.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        blocks = data["blocks"]
    assert {key: {"packages": entry["packages"]} for key, entry in blocks.items()} == installed, (
        "docs_src/verification.json is out of date: run the live block tests with DERIVE_UPDATE_RECORD=1"
    )


def test_the_blocks_are_recorded_under_their_library() -> None:
    """A live block test's case goes to its library; a key that is no live library is refused."""
    assert record.verified("mamba_ssm")[0] == "blocks" and record.verified("haiku")[0] == "frameworks"
    for key in ("s4", "recurrentgemma", "no such library"):  # cited, or unknown: nothing live to record
        with pytest.raises(KeyError):
            record.verified(key)
    assert record.status(record.LIBRARIES["s4"]).startswith("from source: state-spaces/s4 models/s4/s4d.py 11-88")
    assert record.status(record.LIBRARIES["mamba_ssm"]) == "checked against mamba-ssm " + _version("mamba-ssm", "ssm")


def test_write_cases_puts_blocks_apart(tmp_path, monkeypatch) -> None:
    """write_cases: a framework's cases under "frameworks", a block library's under "blocks", versions
    from the library's own environment, earlier classes kept."""
    path = tmp_path / "verification.json"
    path.write_text(json.dumps({"frameworks": {}, "blocks": {"fla": {"cells": {"DeltaNet": 2}}}}), encoding="utf-8")
    monkeypatch.setattr(record, "RECORD", path)
    seen = []
    monkeypatch.setattr(record, "package_version", lambda p, env: seen.append((p, env)) or "1.0")
    record.write_cases(
        {("fla", "RWKV7Attention"): 3, ("haiku", "LSTM"): 1, ("transformers", "MambaForCausalLM"): 4}, "2000-01-01"
    )
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["blocks"]["fla"] == {
        "packages": {"fla-core": "1.0", "flash-linear-attention": "1.0"},
        "cells": {"DeltaNet": 2, "RWKV7Attention": 3},
        "cases": 5,
        "date": "2000-01-01",
    }
    assert data["blocks"]["transformers"]["cells"] == {"MambaForCausalLM": 4}
    assert data["frameworks"]["haiku"]["cells"] == {"LSTM": 1}
    assert ("flash-linear-attention", "ssm") in seen and ("transformers", "") in seen
    with pytest.raises(KeyError):
        record.write_cases({("s5", "S5SSM"): 1})


def test_site_status_comes_from_the_record() -> None:
    onnx = FRAMEWORKS["onnx"]
    expected = " and ".join(f"{p} {importlib.metadata.version(p)}" for p in sorted(onnx.packages))
    assert record.status(onnx) == f"checked against {expected}"
    assert record.status(FRAMEWORKS["reference"]).startswith("from source: ")


def test_every_recorded_class_exists_and_was_run() -> None:
    """The record lists, per framework, classes of that framework (its cells and registered classes) with a
    positive number of live cases."""
    data = record.load()
    from derive.engine.constructors import CONSTRUCTORS

    def classes(key: str) -> set[str]:  # its cells, and the other classes it registers (MXNet's sym.RNN)
        return {spec.name for spec in FRAMEWORKS[key].cells} | {name for fw, name in CONSTRUCTORS if fw == key}

    known = [(key, classes(key), e) for key, e in data["frameworks"].items()]
    known += [(key, record.LIBRARIES[key].classes(), e) for key, e in data.get("blocks", {}).items()]
    for key, names, entry in known:
        if "cells" not in entry:
            continue
        assert set(entry["cells"]) <= names, (key, set(entry["cells"]) - names)
        assert all(n > 0 for n in entry["cells"].values())
        assert entry["cases"] == sum(entry["cells"].values())
        assert entry["date"]


def test_the_verified_table_is_rendered_from_the_record_only() -> None:
    rows = {row["framework"]: row for row in record.rows()}
    assert set(rows) == set(FRAMEWORKS)
    data = record.load()["frameworks"]
    for key, row in rows.items():
        assert (row["status"] == "live") == (key in data)
        if row["status"] == "cited":
            assert row["packages"] == FRAMEWORKS[key].source


def test_the_blocks_table_lists_every_library() -> None:
    """One row per library: the live ones with versions and cases from the record, the cited ones with
    files and lines (``from source``), none left out."""
    rows = {row["framework"]: row for row in record.block_rows()}
    assert list(rows) == list(record.LIBRARIES)
    for key, row in rows.items():
        library = record.LIBRARIES[key]
        if library.packages:
            assert row["status"] == "live" and row["cases"] > 0 and row["cells"], key
            assert all(p in row["packages"] for p in library.packages)
        else:
            assert row["status"] == "cited" and row["packages"] == library.source
            assert any(ch.isdigit() for ch in library.source), key  # file and lines
    assert {"s4", "s5", "lru", "rwkv_blinkdl", "recurrentgemma"} == {
        k for k, r in rows.items() if r["status"] == "cited"
    }


# --- the memory questions ------------------------------------------------------------------------------------------


def test_record_matches_the_installed_memory_packages() -> None:
    """Each live method of a memory kind names the versions installed where it runs (the quantizers'
    ``.venv-quant``, else the test environment)."""
    for kind, entry in record.load()["memory"].items():
        for key, held in entry["methods"].items():
            if "cited" in held:
                continue
            method = record.memory_method(kind, key)
            installed = {}
            for package in sorted(method.packages):
                try:
                    installed[package] = _version(package, method.environment)
                except (importlib.metadata.PackageNotFoundError, subprocess.CalledProcessError, FileNotFoundError):
                    where = f".venv-{method.environment}" if method.environment else "the test environment"
                    pytest.fail(f"{package} (for {kind}/{key}) is not installed in {where}: scripts/bootstrap --test")
            assert held["packages"] == installed, (
                f"docs_src/verification.json's memory/{kind}/{key} is out of date: rerun its live tests with "
                "DERIVE_UPDATE_RECORD=1 (this module's docstring)"
            )


def test_every_memory_kind_was_exercised() -> None:
    """The record's "memory" holds every kind of MEMORY, each with live cases: its methods are the kind's, each
    live one with cases (a stored one naming the quantizer it was compared with), each cited one with the
    registry's source (files and lines); the kind's cases at least any method's and at most their sum (a served
    case holds two methods)."""
    memory = record.load()["memory"]
    assert list(memory) == list(record.MEMORY)
    for kind, entry in memory.items():
        assert entry["date"] and entry["cases"] > 0, kind
        live = {key: held for key, held in entry["methods"].items() if "cited" not in held}
        assert live, kind
        for key, held in entry["methods"].items():
            method = record.memory_method(kind, key)
            if "cited" in held:
                assert held == {"cited": method.source} and any(ch.isdigit() for ch in method.source), (kind, key)
            else:
                assert 0 < held["cases"] <= entry["cases"], (kind, key)
                assert set(held["packages"]) == set(method.packages), (kind, key)
                if kind == "stored":
                    assert held["against"], key
        assert max(h["cases"] for h in live.values()) <= entry["cases"] <= sum(h["cases"] for h in live.values())
        cited = {m.key for m in record.MEMORY[kind].methods if m.source} - set(live)
        assert cited <= set(entry["methods"]), (kind, cited)  # a method that did not run is said to be cited


def test_write_run_counts_the_memory_kinds_apart(tmp_path, monkeypatch) -> None:
    """write_run: a memory kind with cases written whole (its earlier methods gone), one without kept; each method's
    cases, the classes named and the versions reported (else read in its environment); the methods no case ran
    cited where they have a source; unknown kinds and methods, disagreeing versions refused."""
    path = tmp_path / "verification.json"
    earlier = {"fits": {"cases": 1, "date": "1999-01-01", "methods": {"any-length": {"cases": 1}}},
               "stored": {"cases": 9, "date": "1999-01-01", "methods": {"fp8": {"cases": 9}}}}  # fmt: skip
    path.write_text(json.dumps({"frameworks": {}, "blocks": {}, "memory": earlier}), encoding="utf-8")
    monkeypatch.setattr(record, "RECORD", path)
    monkeypatch.setattr(record, "package_version", lambda p, env: f"{p}@{env or 'here'}")
    reported = (("bitsandbytes", "0.1"), ("torch", "2.0"), ("transformers", "5.0"))
    record.write_run(
        {},
        [
            record.MemoryCase("stored", ("bnb-4bit",), "Bnb4BitHfQuantizer", reported),
            record.MemoryCase("stored", ("bnb-4bit",), "Bnb4BitHfQuantizer", reported),
            record.MemoryCase("stored", ("mxfp4",), "convert_moe_packed_tensors"),
            record.MemoryCase("served", ("kv-ggml", "state-float8")),
            record.MemoryCase("served", ("kv-ggml",)),
        ],
        "2000-01-01",
    )
    memory = json.loads(path.read_text(encoding="utf-8"))["memory"]
    assert list(memory) == ["stored", "served", "fits"] and memory["fits"] == earlier["fits"]
    stored = memory["stored"]
    assert (stored["cases"], stored["date"]) == (3, "2000-01-01")
    assert stored["methods"]["bnb-4bit"] == {
        "cases": 2,
        "against": ["Bnb4BitHfQuantizer"],
        "packages": {"bitsandbytes": "0.1", "torch": "2.0", "transformers": "5.0"},
    }
    assert stored["methods"]["mxfp4"]["packages"] == {"torch": "torch@here", "transformers": "transformers@here"}
    assert stored["methods"]["gptq"] == {"cited": record.memory_method("stored", "gptq").source}
    assert set(stored["methods"]) == {"bnb-4bit", "mxfp4", "gptq", "awq"}  # fp8 ran in no case of this run
    served = memory["served"]
    assert served["cases"] == 2 and {k: m["cases"] for k, m in served["methods"].items()} == {
        "kv-ggml": 2,
        "state-float8": 1,
    }
    with pytest.raises(KeyError, match="hqq"):
        record.write_run({}, [record.MemoryCase("stored", ("hqq",))])
    with pytest.raises(KeyError, match="weights"):
        record.write_run({}, [record.MemoryCase("weights", ("fp8",))])
    other = (("bitsandbytes", "0.2"), ("torch", "2.0"), ("transformers", "5.0"))
    with pytest.raises(ValueError, match="different versions"):
        record.write_run({}, [record.MemoryCase("stored", ("bnb-8bit",), None, v) for v in (reported, other)])
    with pytest.raises(ValueError, match="not its packages"):
        record.write_run({("haiku", "LSTM"): 1}, [record.MemoryCase("stored", ("fp8",), None, reported)])
    assert "haiku" not in json.loads(path.read_text(encoding="utf-8"))["frameworks"]  # nothing written


def test_checked_memory_refuses_what_the_record_has_no_place_for() -> None:
    """live_record.checked_memory names a kind and its methods, refused at once when the record has none."""
    import live_record

    before = list(live_record.MEMORY)
    with pytest.raises(KeyError, match="no method of the memory kind 'stored'"):
        live_record.checked_memory("stored", "hqq")
    with pytest.raises(KeyError, match="no memory kind"):
        live_record.checked_memory("cost", "fp8")
    with pytest.raises(ValueError, match="no method"):
        live_record.checked_memory("served")
    assert before == live_record.MEMORY


def test_served_methods_are_format_families() -> None:
    assert [record.served_method("kv", f) for f in (None, "bfloat16", "float8_e5m2", "int8", "q4_1", "iq4_nl")] == [
        "kv-as-held", "kv-float", "kv-float8", "kv-int8", "kv-ggml", "kv-ggml"]  # fmt: skip
    assert record.served_method("state", "float32") == "state-float"
    with pytest.raises(ValueError):
        record.served_method("state", "q3_k")
    with pytest.raises(ValueError):
        record.served_method("cache", None)
    methods = {m.key for m in record.MEMORY["served"].methods}
    assert {f"{part}-{family}" for part in ("kv", "state") for family in record.SERVED_FAMILIES} == methods


def test_the_memory_table_is_rendered_from_the_record_only() -> None:
    """One entry per kind, in MEMORY's order, its methods the record's: live with versions and cases, cited with
    the source."""
    memory = record.load()["memory"]
    rows = record.memory_rows()
    assert [r["kind"] for r in rows] == list(record.MEMORY)
    for row in rows:
        entry = memory[row["kind"]]
        assert (row["cases"], row["date"]) == (entry["cases"], entry["date"])
        assert [m["method"] for m in row["methods"]] == list(entry["methods"])
        for m in row["methods"]:
            held = entry["methods"][m["method"]]
            if m["status"] == "cited":
                assert m["packages"] == held["cited"] and m["cases"] == 0
            else:
                assert m["cases"] == held["cases"] > 0
                assert all(f"{p} {v}" in m["packages"] for p, v in held["packages"].items())


def test_the_record_is_written_only_from_a_whole_run(request, tmp_path, monkeypatch) -> None:
    """tests/conftest.py's end-of-run hook: with DERIVE_UPDATE_RECORD=1, a run that deselected tests (or ran in
    pytest-xdist workers) writes nothing and fails saying so; a whole run writes its cases."""
    import sys
    from collections import Counter
    from types import SimpleNamespace

    import live_record

    hook = next(p for p in request.config.pluginmanager.get_plugins()
                if getattr(p, "__file__", None) and Path(p.__file__) == ROOT / "tests" / "conftest.py")  # fmt: skip
    path = tmp_path / "verification.json"
    path.write_text(json.dumps({"frameworks": {}, "blocks": {}}), encoding="utf-8")
    monkeypatch.setattr(record, "RECORD", path)
    monkeypatch.setattr(record, "package_version", lambda p, env: "1.0")
    monkeypatch.setenv("DERIVE_UPDATE_RECORD", "1")
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setitem(sys.modules, "frameworks_live_extra", None)  # no subprocess workers of this run stopped
    monkeypatch.setattr(live_record, "CASES", Counter())
    monkeypatch.setattr(live_record, "MEMORY", [record.MemoryCase("share", ("tp2",))])

    def finish(deselected: list[str], xdist: bool = False) -> SimpleNamespace:
        monkeypatch.setattr(hook, "_DESELECTED", deselected)
        plugins = SimpleNamespace(hasplugin=lambda name: xdist and name == "dsession", get_plugin=lambda name: None)
        session = SimpleNamespace(config=SimpleNamespace(pluginmanager=plugins), exitstatus=0)
        hook.pytest_sessionfinish(session, 0)
        return session

    assert finish(["tests/analysis/test_parallel.py::test_x"]).exitstatus == pytest.ExitCode.TESTS_FAILED
    assert finish([], xdist=True).exitstatus == pytest.ExitCode.TESTS_FAILED
    assert "memory" not in json.loads(path.read_text(encoding="utf-8"))
    assert finish([]).exitstatus == 0
    assert json.loads(path.read_text(encoding="utf-8"))["memory"]["share"]["methods"]["tp2"]["cases"] == 1


def test_the_comparison_page_shows_the_memory_table(rendered_pages) -> None:
    """The verification page's table of the memory questions: each kind's cases and date, each method's row."""
    text = rendered_pages["frameworks/comparison.md"]
    for row in record.memory_rows():
        assert f"| **{row['title']}** |" in text and f"| **{row['cases']}** | {row['date']} |" in text, row["kind"]
        for m in row["methods"]:
            assert f"| | {m['title']} | {m['status']} |" in text, (row["kind"], m["method"])
