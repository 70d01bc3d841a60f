"""The committed verification record (docs_src/verification.json) states what this test run
verified against: every framework whose packages the suite imports, at the installed versions.

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


def _installed() -> dict:
    out = {}
    for key, framework in FRAMEWORKS.items():
        if not framework.packages:
            continue
        versions = {}
        for package in sorted(framework.packages):
            try:
                versions[package] = _version(package, framework.environment)
            except (importlib.metadata.PackageNotFoundError, subprocess.CalledProcessError):
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


def test_site_status_comes_from_the_record() -> None:
    onnx = FRAMEWORKS["onnx"]
    expected = " and ".join(f"{p} {importlib.metadata.version(p)}" for p in sorted(onnx.packages))
    assert record.status(onnx) == f"checked against {expected}"
    assert record.status(FRAMEWORKS["reference"]).startswith("from source: ")


def test_every_recorded_class_exists_and_was_run() -> None:
    """The record lists, per framework, classes of that framework with a positive number of live cases."""
    for key, entry in record.load()["frameworks"].items():
        if "cells" not in entry:
            continue
        names = {spec.name for spec in FRAMEWORKS[key].cells}
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
