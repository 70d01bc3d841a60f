"""The committed verification record (docs_src/verification.json) states what this test run
verified against: every framework whose packages the suite imports, at the installed versions.

Rewrite it after an intended upgrade with ``DERIVE_UPDATE_RECORD=1 ./scripts/test tests/site/test_verification_record.py``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os

import pytest

from derive.frameworks import FRAMEWORKS
from docs_src import record


def _installed() -> dict:
    out = {}
    for key, framework in FRAMEWORKS.items():
        if not framework.packages:
            continue
        versions = {}
        for package in framework.packages:
            try:
                versions[package] = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                pytest.fail(f"{package} (for {key}) is not installed: the test environment must have it")
        out[key] = {"packages": versions}
    return out


def test_record_matches_the_installed_frameworks() -> None:
    installed = _installed()
    data = record.load()
    if os.environ.get("DERIVE_UPDATE_RECORD") == "1":
        data["frameworks"] = dict(sorted(installed.items()))
        record.RECORD.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    assert data["frameworks"] == installed, (
        "docs_src/verification.json is out of date: run DERIVE_UPDATE_RECORD=1 ./scripts/test "
        "tests/site/test_verification_record.py"
    )


def test_site_status_comes_from_the_record() -> None:
    onnx = FRAMEWORKS["onnx"]
    expected = " and ".join(f"{p} {importlib.metadata.version(p)}" for p in sorted(onnx.packages))
    assert record.status(onnx) == f"checked against {expected}"
    assert record.status(FRAMEWORKS["mxnet"]).startswith("from source: ")
