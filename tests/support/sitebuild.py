"""Building the site in tests: ``mkdocs build --strict --clean`` dated by the last commit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The build date of every test build: the last commit's (as scripts/build-site sets it).
EPOCH = (
    subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    or "1700000000"
)


def build_site(site_dir: Path) -> None:
    """``mkdocs build --strict --clean`` into ``site_dir``, dated by :data:`EPOCH`; fails the test on error."""
    if not (ROOT / "node_modules" / "katex" / "dist" / "katex.min.js").is_file():
        pytest.fail("node_modules/katex is missing: run `npm ci` (scripts/test does it)")
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH, NO_MKDOCS_2_WARNING="1")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean"]
    command += ["-f", str(ROOT / "mkdocs.yml"), "-d", str(site_dir)]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}"


def html_path(src_uri: str) -> str:
    """docs-relative Markdown path -> built HTML path (use_directory_urls)."""
    stem = src_uri[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem + ".html"
    return stem + "/index.html"
