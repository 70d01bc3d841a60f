"""The reference site builds (strict), works offline, serves KaTeX itself and is reproducible."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from docs_src.site import pages as registry
from docs_src.site import render_pages

ROOT = Path(__file__).resolve().parents[1]
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"


def _last_commit_epoch() -> str:
    """SOURCE_DATE_EPOCH as scripts/build-site sets it: the last commit's time (a fixed date outside git)."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "1700000000"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip().isdigit() else "1700000000"


EPOCH = _last_commit_epoch()

EXTERNAL = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)  # http://, https://, //host
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*['"]?([^'")\s;]+)""", re.IGNORECASE)
# Elements whose src/href the browser fetches by itself when the page loads.
FETCHED = {
    "script": "src",
    "link": "href",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "audio": "src",
    "video": "src",
    "embed": "src",
    "track": "src",
}


def build(site_dir: Path) -> None:
    if not (KATEX_DIST / "katex.min.js").is_file():
        pytest.fail("node_modules/katex is missing: run `npm ci` (scripts/test does it)")
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--clean",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(site_dir),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("site") / "site"
    build(site_dir)
    return site_dir


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return render_pages(ROOT / "templates")


def html_path(src_uri: str) -> str:
    """docs-relative Markdown path -> built HTML path (use_directory_urls)."""
    stem = src_uri[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem + ".html"
    return stem + "/index.html"


class PageParser(HTMLParser):
    """Collect fetched URLs, inline CSS and the TeX source of arithmatex elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fetched: list[tuple[str, str]] = []  # (tag, url)
        self.inline_css: list[str] = []
        self.math: list[tuple[str, str]] = []  # (tag, tex)
        self._math_depth = 0
        self._math_tag = ""
        self._math_text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in FETCHED and attrs.get(FETCHED[tag]):
            self.fetched.append((tag, attrs[FETCHED[tag]]))
        if tag == "img" and attrs.get("srcset"):
            self.fetched += [("img", part.split()[0]) for part in attrs["srcset"].split(",") if part.strip()]
        if attrs.get("style"):
            self.inline_css.append(attrs["style"])
        if tag == "style":
            self._in_style = True
        if self._math_depth:
            self._math_depth += 1
        elif "arithmatex" in (attrs.get("class") or "").split():
            self._math_depth, self._math_tag, self._math_text = 1, tag, []

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False
        if self._math_depth:
            self._math_depth -= 1
            if not self._math_depth:
                self.math.append((self._math_tag, "".join(self._math_text)))

    def handle_data(self, data):
        if self._in_style:
            self.inline_css.append(data)
        if self._math_depth:
            self._math_text.append(data)


def parse(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def css_urls(css: str) -> list[str]:
    return [m.group(2).strip() for m in CSS_URL.finditer(css)] + CSS_IMPORT.findall(css)


def resolve(site: Path, page: Path, url: str) -> Path:
    """Local file a relative or root-relative URL in `page` points to."""
    path = urlsplit(url).path
    if path.startswith("/"):
        return site / path.lstrip("/")
    rel = posixpath.normpath(posixpath.join(page.parent.relative_to(site).as_posix(), path))
    target = site / rel
    return target / "index.html" if target.is_dir() else target  # directory URLs (rel=prev/next)


def test_docs_dir_holds_static_assets_only():
    markdown = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert markdown == [], f"pages are generated by docs_src/hook.py, not written in docs/: {markdown}"


def test_every_generated_page_is_built(site, pages):
    assert set(pages) >= {"index.md", "cells/rnn.md", "cells/lstm.md", "cells/lstm-projection.md", "cells/gru.md"}
    missing = [p for p in pages if not (site / html_path(p)).is_file()]
    assert not missing, f"pages not built: {missing}"


def test_pages_fetch_nothing_external(site):
    offenders = []
    for page in sorted(site.rglob("*.html")):
        parsed = parse(page)
        for tag, url in parsed.fetched:
            if EXTERNAL.match(url):
                offenders.append(f"{page.relative_to(site)}: <{tag}> {url}")
        for css in parsed.inline_css:
            offenders += [f"{page.relative_to(site)}: inline css {u}" for u in css_urls(css) if EXTERNAL.match(u)]
    assert not offenders, "external resources:\n" + "\n".join(offenders)


def test_css_fetches_nothing_external(site):
    offenders = []
    css_files = sorted(site.rglob("*.css"))
    assert css_files
    for css in css_files:
        for url in css_urls(css.read_text(encoding="utf-8")):
            if EXTERNAL.match(url):
                offenders.append(f"{css.relative_to(site)}: {url}")
    assert not offenders, "external url()/@import in CSS:\n" + "\n".join(offenders)


def test_local_scripts_and_stylesheets_exist(site):
    missing = []
    for page in sorted(site.rglob("*.html")):
        for tag, url in parse(page).fetched:
            if url.startswith("data:") or EXTERNAL.match(url):
                continue
            if not resolve(site, page, url).is_file():
                missing.append(f"{page.relative_to(site)}: <{tag}> {url}")
    assert not missing, "broken local references:\n" + "\n".join(missing)


def test_katex_is_served_by_the_site(site, pages):
    katex = site / "assets" / "katex"
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js"):
        assert (katex / name).is_file(), name
        assert (katex / name).read_bytes() == (KATEX_DIST / name).read_bytes(), name
    fonts = [u for u in css_urls((katex / "katex.min.css").read_text(encoding="utf-8")) if not u.startswith("data:")]
    assert any(u.endswith(".woff2") for u in fonts)
    missing = [u for u in fonts if not (katex / urlsplit(u).path).is_file()]
    assert not missing, f"fonts referenced by katex.min.css but not served: {missing}"
    for src_uri in pages:
        page = site / html_path(src_uri)
        loaded = {resolve(site, page, url).relative_to(site).as_posix() for _, url in parse(page).fetched}
        for asset in (
            "assets/katex/katex.min.js",
            "assets/katex/contrib/auto-render.min.js",
            "assets/katex/katex.min.css",
            "javascripts/katex.js",
        ):
            assert asset in loaded, f"{src_uri} does not load {asset}"


def test_every_page_has_math_that_katex_renders(site, pages):
    """Each page carries arithmatex math, and KaTeX (the served version) accepts all of it."""
    items = []
    # The home page and the cell pages are made of formulas; elsewhere (API reference, tools) math is optional.
    required = {p.path for p in registry() if p.path == "index.md" or p.section == "Cells"}
    for src_uri in pages:
        math = parse(site / html_path(src_uri)).math
        assert math or src_uri not in required, f"{src_uri} has no arithmatex math"
        for tag, tex in math:
            tex = tex.strip()
            if tex.startswith("\\(") and tex.endswith("\\)"):
                items.append({"page": src_uri, "tex": tex[2:-2], "display": False})
            elif tex.startswith("\\[") and tex.endswith("\\]"):
                items.append({"page": src_uri, "tex": tex[2:-2], "display": True})
            else:
                pytest.fail(f"{src_uri}: unexpected arithmatex output in <{tag}>: {tex[:80]!r}")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: KaTeX parse check skipped")
    script = """
const katex = require(process.argv[1]);
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const errors = [];
for (const it of items) {
  try { katex.renderToString(it.tex, {displayMode: it.display, throwOnError: true, strict: "ignore"}); }
  catch (e) { errors.push(`${it.page}: ${e.message}`); }
}
process.stdout.write(JSON.stringify(errors));
"""
    proc = subprocess.run(
        [node, "-e", script, str(KATEX_DIST / "katex.js")],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    errors = json.loads(proc.stdout)
    assert not errors, "KaTeX cannot render:\n" + "\n".join(errors)


def test_build_is_reproducible(site, tmp_path):
    again = tmp_path / "site"
    build(again)

    def tree(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    first, second = tree(site), tree(again)
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"files differ between two builds with the same SOURCE_DATE_EPOCH: {differ}"
    assert {"sitemap.xml", "sitemap.xml.gz", "search/search_index.json", "index.html"} <= set(first)
    assert len(first) > 50  # every page, asset, KaTeX font and the search index are compared


def test_build_is_dated_by_source_date_epoch(site):
    """The only dates in the output come from SOURCE_DATE_EPOCH (the gzip header of the sitemap)."""
    import gzip
    import struct

    raw = (site / "sitemap.xml.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    day = int(EPOCH) // 86400 * 86400  # MkDocs dates the sitemap by the day (UTC) of the build date
    assert struct.unpack("<I", raw[4:8])[0] == day, "sitemap.xml.gz not dated by SOURCE_DATE_EPOCH"
    assert gzip.decompress(raw) == (site / "sitemap.xml").read_bytes()


def test_hook_says_to_run_npm_ci_without_katex(tmp_path):
    from mkdocs.exceptions import PluginError

    from docs_src import hook as mkdocs_hook

    with pytest.raises(PluginError, match="npm ci"):
        mkdocs_hook._katex_files(None, tmp_path)
