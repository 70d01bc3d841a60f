"""The committed verification record (``docs_src/verification.json``): what the tests checked
each framework against. The site says "checked against ..." from this record only, so the built
site is the same on every machine, whatever is installed there."""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import subprocess
from collections.abc import Mapping
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


def package_version(package: str, environment: str = "") -> str:
    """The installed version of ``package``: in this environment, or in ``.venv-<environment>`` of
    the checkout (MXNet's, see :attr:`derive.frameworks.registry.Framework.environment`).

    Raises
    ------
    importlib.metadata.PackageNotFoundError, subprocess.CalledProcessError
        Not installed there.
    """
    if not environment:
        return importlib.metadata.version(package)
    python = RECORD.parents[1] / f".venv-{environment}" / "bin" / "python"
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def write_cases(cases: Mapping[tuple[str, str], int], today: str | None = None) -> None:
    """Write the live cases of a test run into the record (``DERIVE_UPDATE_RECORD=1``).

    For each framework with cases: its installed package versions, each class with the number
    of cases compared in the run (classes not exercised by the run keep their earlier entry), the
    total, and the date of the run (UTC).

    Parameters
    ----------
    cases : mapping of (framework key, class name) -> int
        From ``tests/support/live_record.py``.
    today : str or None
        ISO date; None for today's (UTC).
    """
    from derive.frameworks import FRAMEWORKS

    data = load()
    today = today or datetime.datetime.now(datetime.UTC).date().isoformat()
    for key in sorted({k for k, _ in cases}):
        framework = FRAMEWORKS[key]
        entry = data["frameworks"].setdefault(key, {})
        entry["packages"] = {p: package_version(p, framework.environment) for p in sorted(framework.packages)}
        cells = dict(entry.get("cells", {}))
        cells.update({cell: n for (k, cell), n in cases.items() if k == key})
        entry["cells"] = dict(sorted(cells.items()))
        entry["cases"] = sum(entry["cells"].values())
        entry["date"] = today
    data["frameworks"] = dict(sorted(data["frameworks"].items()))
    RECORD.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def rows() -> list[dict]:
    """The site's "verified against" table: one row per framework, from the record only.

    Returns
    -------
    list of dict
        ``framework``, ``title``, ``status`` (``"live"`` or ``"cited"``), ``packages`` (text),
        ``cells`` (``{class: cases}``), ``cases``, ``date``; a cited framework's ``packages`` is
        its source files (with lines) instead.
    """
    from derive.frameworks import FRAMEWORKS

    data = load()["frameworks"]
    out = []
    for key, fw in FRAMEWORKS.items():
        entry = data.get(key)
        if entry:
            packages = ", ".join(f"{p} {v}" for p, v in sorted(entry["packages"].items()))
            out.append(
                {
                    "framework": key,
                    "title": fw.title,
                    "status": "live",
                    "packages": packages,
                    "cells": entry.get("cells", {}),
                    "cases": entry.get("cases", 0),
                    "date": entry.get("date", ""),
                }
            )
        else:
            out.append(
                {
                    "framework": key,
                    "title": fw.title,
                    "status": "cited",
                    "packages": fw.source,
                    "cells": {},
                    "cases": 0,
                    "date": "",
                }
            )
    return out
