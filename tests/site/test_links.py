"""Every link and anchor of the built site resolves; the web is only ever cited, never loaded.

Each HTML page of a fresh strict build is parsed (``html.parser``) for every
URL it carries (``href``, ``src``, ``srcset``, ``poster``, ``data``, ``action``):

* a relative or root-relative URL must name a file of the built site (a
  directory URL its ``index.html``), and its ``#fragment`` an ``id`` (or
  ``<a name>``) of the target page — ``#frag`` alone is the page itself;
* an external ``http(s)`` URL is allowed only as an ``<a href>`` (citing a
  source), never for a script, stylesheet, font, image or frame;
* any other scheme (``javascript:``, ``file:``, ...) is refused; ``data:`` and
  ``mailto:`` are fine.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

URL_ATTRIBUTES = ("href", "src", "srcset", "poster", "data", "action")


class LinkParser(HTMLParser):
    """Collect ids and (tag, attribute, url, line) of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.urls: list[tuple[str, str, str, int]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name == "srcset":
                for part in value.split(","):
                    if part.strip():
                        self.urls.append((tag, name, part.split()[0], self.getpos()[0]))
            elif name in URL_ATTRIBUTES:
                self.urls.append((tag, name, value.strip(), self.getpos()[0]))

    handle_startendtag = handle_starttag


@pytest.fixture(scope="module")
def parsed(site) -> dict[Path, LinkParser]:
    out = {}
    for page in sorted(site.rglob("*.html")):
        parser = LinkParser()
        parser.feed(page.read_text(encoding="utf-8"))
        parser.close()
        out[page] = parser
    assert len(out) >= 5, "too few pages built"
    return out


def target_of(site: Path, page: Path, path: str) -> Path:
    """The file a URL path in ``page`` names (a directory names its index.html)."""
    path = unquote(path)
    if path.startswith("/"):
        rel = path.lstrip("/")
    else:
        rel = posixpath.join(page.parent.relative_to(site).as_posix(), path)
    rel = posixpath.normpath(rel)
    if rel == ".." or rel.startswith("../"):
        return site.parent / "outside-the-site" / rel
    target = site / rel if rel != "." else site
    return target / "index.html" if target.is_dir() else target


def classify(url: str) -> str:
    parts = urlsplit(url)
    if url.startswith("//") or parts.scheme in ("http", "https"):
        return "external"
    if parts.scheme in ("data", "mailto"):
        return "inert"
    if parts.scheme:
        return "scheme"
    return "local"


def broken_links(site: Path, parsed: dict) -> tuple[list[str], dict]:
    """Unresolvable local URLs and missing anchors, and how many files/anchors were checked."""
    broken = []
    checked = defaultdict(int)
    for page, parser in parsed.items():
        where = page.relative_to(site).as_posix()
        for tag, attr, url, line in parser.urls:
            if classify(url) != "local":
                continue
            parts = urlsplit(url)
            target = page if parts.path == "" else target_of(site, page, parts.path)
            if not target.is_file():
                broken.append(f"{where}:{line}: <{tag} {attr}={url!r}>: no file {target}")
                continue
            checked["files"] += 1
            if parts.fragment:
                if target.suffix != ".html":
                    broken.append(f"{where}:{line}: <{tag} {attr}={url!r}>: fragment on a non-HTML file")
                elif unquote(parts.fragment) not in parsed[target].ids:
                    broken.append(
                        f"{where}:{line}: <{tag} {attr}={url!r}>: no id "
                        f"{unquote(parts.fragment)!r} in {target.relative_to(site)}"
                    )
                else:
                    checked["anchors"] += 1
    return broken, checked


def external_offenders(site: Path, parsed: dict) -> list[str]:
    """External URLs that the browser would load, and URLs of refused schemes."""
    offenders = []
    for page, parser in parsed.items():
        where = page.relative_to(site).as_posix()
        for tag, attr, url, line in parser.urls:
            kind = classify(url)
            if kind == "scheme":
                offenders.append(f"{where}:{line}: <{tag} {attr}={url!r}>: scheme not allowed")
            elif kind == "external" and (tag, attr) != ("a", "href"):
                offenders.append(f"{where}:{line}: <{tag} {attr}={url!r}>: loads from the network")
    return offenders


def test_internal_links_and_anchors_resolve(site, parsed):
    broken, checked = broken_links(site, parsed)
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(broken)
    # Not vacuous: the pages cross-link (navigation, table of contents, API references).
    assert checked["files"] > 100 and checked["anchors"] > 50, dict(checked)


def test_external_urls_only_cite(site, parsed):
    offenders = external_offenders(site, parsed)
    assert not offenders, "\n".join(offenders)


def test_link_checker_catches_broken_links(tmp_path):
    """The checks above can fail: a page with a missing file, a missing anchor and an external script."""
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "index.html").write_text('<h1 id="top">t</h1><a href="a/">a</a><a href="#top">ok</a>')
    (site / "a" / "index.html").write_text(
        '<a href="../missing/">x</a><a href="../#nope">y</a><a href="../index.html#top">z</a>'
        '<script src="https://cdn.example/x.js"></script><a href="https://example.org/paper">cite</a>'
        '<a href="javascript:alert(1)">j</a>'
    )
    pages = {}
    for page in sorted(site.rglob("*.html")):
        parser = LinkParser()
        parser.feed(page.read_text())
        pages[page] = parser
    broken, _ = broken_links(site, pages)
    text = "\n".join(broken)
    assert len(broken) == 2 and "missing" in text and "'nope'" in text, text
    offenders = "\n".join(external_offenders(site, pages))
    assert "cdn.example" in offenders and "javascript:" in offenders, offenders
    assert "example.org/paper" not in offenders
