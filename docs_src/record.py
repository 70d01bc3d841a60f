"""The committed verification record (``docs_src/verification.json``): what the tests checked
each framework against. The site says "checked against ..." from this record only, so the built
site is the same on every machine, whatever is installed there."""

from __future__ import annotations

import json
from pathlib import Path

from derive.frameworks.registry import Framework

RECORD = Path(__file__).resolve().parent / "verification.json"


def load() -> dict:
    """The record: ``{"frameworks": {key: {"packages": {distribution: version}}}}``."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def status(framework: Framework) -> str:
    """``"checked against <package> <version> [and ...]"`` from the record, else ``"from source: <files>"``."""
    entry = load()["frameworks"].get(framework.key)
    if not entry:
        return f"from source: {framework.source}"
    return "checked against " + " and ".join(f"{p} {v}" for p, v in sorted(entry["packages"].items()))
