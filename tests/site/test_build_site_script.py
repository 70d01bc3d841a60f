"""scripts/build-site replaces site/ only with a complete build (issue 13, item 10).

A copy of the checkout (with its own node_modules/katex and node_modules/tablesort) is built with the real script. A build
whose KaTeX is empty, missing or altered, or whose pages fail to render, exits non-zero with the
reason and leaves the previous site/ as it was, byte for byte; a good build replaces it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sitebuild import EPOCH

#: The copy is built once, by one worker (its tests share the module's fixture).
pytestmark = pytest.mark.xdist_group("build_site_script")

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "__pycache__", ".pytest_cache", "*.egg-info")


def _digest(tree: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        h.update(path.relative_to(tree).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _build(repo: Path) -> subprocess.CompletedProcess:
    env = dict(
        os.environ, DERIVE_NO_BOOTSTRAP="1", DERIVE_PYTHON=sys.executable, SOURCE_DATE_EPOCH=EPOCH, SITE_DIR="site"
    )
    # Not measured by coverage (``.ci/run``'s ``--cov`` hands subprocesses COVERAGE_PROCESS_CONFIG): the copy's
    # build imports the copy's ``derive``, whose data would land in the copy and never be combined, and tracing
    # made this build about 3x slower (51 s alone on two cores; 140 s traced in a whole run).
    env.pop("COVERAGE_PROCESS_CONFIG", None)
    env.pop("COVERAGE_PROCESS_START", None)
    return subprocess.run(
        ["bash", "scripts/build-site"], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A copy of the checkout whose site/ holds a good build (which replaced an older site/)."""
    if shutil.which("npm") is None:
        pytest.skip("npm not found")
    if not (ROOT / "node_modules" / "katex" / "dist" / "katex.min.js").is_file():
        pytest.fail("node_modules/katex is missing: run `npm ci` (scripts/test does it)")
    repo = tmp_path_factory.mktemp("checkout") / "derive"
    shutil.copytree(ROOT, repo, ignore=SKIP)
    for package in ("katex", "tablesort"):  # the packages the build copies in (docs_src/hook.py)
        shutil.copytree(ROOT / "node_modules" / package, repo / "node_modules" / package)
    (repo / "site").mkdir()
    (repo / "site" / "stale.html").write_text("an older build")
    proc = _build(repo)
    assert proc.returncode == 0, f"build-site failed:\n{proc.stdout}\n{proc.stderr}"
    assert (repo / "site" / "index.html").stat().st_size > 0
    assert not (repo / "site" / "stale.html").exists(), "the good build did not replace site/"
    return repo


def test_build_is_reproducible(repo, built_site):
    """Two builds of the same sources, dated alike (SOURCE_DATE_EPOCH), are equal byte for byte: the script's
    build of the copy and the session's ``mkdocs build`` of the checkout (before any test here edits the copy)."""

    def tree(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    first, second = tree(built_site), tree(repo / "site")
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"files differ between two builds with the same SOURCE_DATE_EPOCH: {differ}"
    assert {"sitemap.xml", "sitemap.xml.gz", "search/search_index.json", "index.html"} <= set(first)
    assert len(first) > 50  # every page, asset, KaTeX font and the search index are compared


def _fails_and_keeps_site(repo: Path, reason: str) -> None:
    before = _digest(repo / "site")
    proc = _build(repo)
    assert proc.returncode != 0, f"build-site succeeded:\n{proc.stderr}"
    assert reason in proc.stderr, f"the reason ({reason!r}) is not given:\n{proc.stderr[-3000:]}"
    assert _digest(repo / "site") == before, "site/ changed after a failed build"
    assert (repo / "site" / "index.html").stat().st_size > 0
    assert not list(repo.glob(".site-build.*")), "the temporary build was left behind"


@pytest.fixture
def katex_file(repo):
    """Edit a file of the copy's node_modules/katex/dist; it is restored afterwards."""
    saved = {}

    def edit(name: str) -> Path:
        path = repo / "node_modules" / "katex" / "dist" / name
        saved[path] = path.read_bytes()
        return path

    yield edit
    for path, content in saved.items():
        path.write_bytes(content)


def test_empty_katex_script_fails_and_keeps_the_site(repo, katex_file):
    katex_file("katex.min.js").write_bytes(b"")
    _fails_and_keeps_site(repo, "katex.min.js")


def test_missing_katex_stylesheet_fails_and_keeps_the_site(repo, katex_file):
    katex_file("katex.min.css").unlink()
    _fails_and_keeps_site(repo, "katex.min.css")


def test_altered_katex_script_fails_against_the_lock_file(repo, katex_file):
    path = katex_file("contrib/auto-render.min.js")
    path.write_bytes(path.read_bytes() + b"\n/* not the locked file */\n")
    _fails_and_keeps_site(repo, "auto-render.min.js differs from katex")


def test_failing_page_fails_and_keeps_the_site(repo):
    template = repo / "templates" / "install.md.j2"
    saved = template.read_text()
    try:
        template.write_text(saved + "\n{{ no_such_variable }}\n")
        _fails_and_keeps_site(repo, "FAILED: mkdocs build")
    finally:
        template.write_text(saved)


def test_asset_check_reports_an_empty_font(repo, tmp_path):
    """The checker on its own: a served file emptied after the build is reported."""
    site = tmp_path / "site"
    shutil.copytree(repo / "site", site)
    font = sorted((site / "assets" / "katex" / "fonts").glob("*.woff2"))[0]
    font.write_bytes(b"")
    proc = subprocess.run(
        [sys.executable, str(repo / "scripts" / "check_site_assets.py"), str(site)], capture_output=True, text=True
    )
    assert proc.returncode == 1 and f"{font.name} is empty" in proc.stderr, proc.stderr
