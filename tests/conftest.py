"""Shared fixtures: the site built once per test session, the pages rendered once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitebuild import ROOT, build_site

# Subprocess workers, run by another Python (.venv-mxnet's, TensorFlow's process): not importable here.
collect_ignore = ["support/mxnet_worker.py", "support/tf_worker.py"]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the whole session (read-only: tests must not change it)."""
    site_dir = tmp_path_factory.mktemp("built") / "site"
    build_site(site_dir)
    return site_dir


@pytest.fixture(scope="session")
def rendered_pages() -> dict[str, str]:
    """Every page's Markdown, rendered once for the whole session."""
    from docs_src.site import render_pages

    return render_pages(ROOT / "templates")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With ``DERIVE_UPDATE_RECORD=1`` and no failure, write the live cases of this run into the record."""
    if os.environ.get("DERIVE_UPDATE_RECORD") != "1" or exitstatus != 0:
        return
    from live_record import CASES

    if CASES:
        from docs_src import record

        record.write_cases(CASES)
