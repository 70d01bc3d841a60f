"""No source syntax leaks into a built page's visible text (issue 13, item 12).

A Markdown fence inside an indented block, a Sphinx role the API-doc extension missed, an autoref
written where Markdown is not converted, an unrendered Jinja2 tag or admonition marker: each shows
on the page as literal text. The visible text here is everything outside ``<script>``, ``<style>``
and ``<template>`` (code blocks included: a fence inside a code block is a leak too), less the TeX
of ``.arithmatex`` elements, whose typesetting the browser tests check.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

HIDDEN = {"script", "style", "template"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

LEAKS = {
    "Markdown fence": re.compile(r"```|~~~"),
    "Sphinx role": re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`"),
    "reST literal marker": re.compile(r"\w::$", re.MULTILINE),
    "Markdown reference link": re.compile(r"\]\[[A-Za-z_][\w]*(?:\.[\w]+)+\]"),
    "Jinja2 tag": re.compile(r"\{\{ |\{%-? | -?%\}|\{# "),
    "admonition marker": re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+\w", re.MULTILINE),
    "attribute list": re.compile(r"\{:\s*[.#]|\{\s*\.[a-z][\w-]*\s*\}"),
}


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.math = 0  # depth inside an arithmatex element: TeX (checked by KaTeX in the browser tests)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self.hidden += 1
        if self.math:
            self.math += tag not in VOID
        elif "arithmatex" in (dict(attrs).get("class") or "").split():
            self.math = 1

    def handle_endtag(self, tag):
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1
        if self.math and tag not in VOID:
            self.math -= 1

    def handle_data(self, data):
        if not self.hidden and not self.math:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def leaks(text: str) -> list[str]:
    found = []
    for name, pattern in LEAKS.items():
        for m in pattern.finditer(text):
            found.append(f"{name}: …{text[max(0, m.start() - 50) : m.end() + 30]!r}…")
    return found


@pytest.mark.parametrize(
    "html",
    [
        "<p>x</p><pre><code>```pycon\n&gt;&gt;&gt; 1\n```</code></pre>",
        "<p>see :class:`Stack`</p>",
        "<td><code>[`K`][derive.engine.wirings.K]</code></td>",
        "<p>{{ page.title }}</p>",
        "<p>!!! note\n    text</p>",
        "<p>Paste one::</p>",
    ],
)
def test_the_check_catches_each_kind_of_leak(html):
    assert leaks(visible_text(html)), html


def test_the_check_ignores_scripts_and_legitimate_text():
    html = "<script>const s = '```';</script><p>[k][0].weight_ih, a :b, {x}</p><style>a{}</style>"
    assert leaks(visible_text(html)) == []


def test_no_source_syntax_in_any_page(built_site: Path):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20
    problems = []
    for page in pages:
        problems += [f"{page.relative_to(built_site)}: {leak}" for leak in leaks(visible_text(page.read_text("utf-8")))]
    assert not problems, "source syntax shown on the site:\n" + "\n".join(problems)


def test_every_section_listing_says_what_each_page_answers() -> None:
    """Each section's page lists its pages with one line each of what the page answers: a page with an empty
    line (a page added without its line in ``docs_src/pages/sections.py``'s ABOUT) fails here."""
    from docs_src.pages.sections import SECTIONS, section_rows

    for section in SECTIONS:
        rows = section_rows(section)
        assert rows, section
        assert [r["path"] for r in rows if not r["about"].strip()] == [], section
