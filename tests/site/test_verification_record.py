"""The committed verification record (docs_src/verification.json) states what this test run
verified against: every framework whose packages the suite imports, and every library the blocks
are held against live (``docs_src.record.LIBRARIES``: transformers here, mamba_ssm and
flash-linear-attention in ``.venv-ssm``), at the installed versions; the cited libraries of the
blocks are listed with their files and lines.

Rewrite it after an intended upgrade with ``DERIVE_UPDATE_RECORD=1 ./scripts/test tests/site/test_verification_record.py``.
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
