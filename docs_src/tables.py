"""Every table of a built page in its own labelled, focusable scroll region (used by ``hook.py``).

A table wider than the text column scrolls sideways inside ``<div class="table-region"
role="region" tabindex="0" aria-label="…">``, so a keyboard user can reach and scroll it and a
screen reader announces what it holds. Names in a table's code wrap at spaces only. The label is the heading the table stands under (numbered
when a heading has several tables, so that no two regions of a page share a name). Material still
wraps the table in its own ``.md-typeset__scrollwrap`` when the page loads; ``extra.css`` makes
that inner wrapper a plain box so that the region is the one that scrolls.
"""

from __future__ import annotations

import html
import re

HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.DOTALL)
TABLE = re.compile(r"<table>(.*?)</table>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")
PERMALINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.DOTALL)
CODE = re.compile(r"<code>([^<]*)</code>")
WORD = re.compile(r"\S+")


def _unbreakable(match: re.Match) -> str:
    """Plain ``<code>`` of a table with each word in a ``span.nobr``: it wraps at spaces only.

    (A browser may otherwise break ``[<k>][0].weight_ih`` at a bracket or ``h_{t-1}`` at its
    hyphen.)"""
    return "<code>" + WORD.sub(lambda w: f'<span class="nobr">{w.group(0)}</span>', match.group(1)) + "</code>"


def _text(fragment: str) -> str:
    return " ".join(html.unescape(TAG.sub("", PERMALINK.sub("", fragment))).split())


def wrap_tables(content: str, page_title: str = "") -> str:
    """``content`` with each ``<table>`` in a ``div.table-region`` labelled by its heading."""
    headings = [(m.start(), _text(m.group(2))) for m in HEADING.finditer(content)]
    tables = list(TABLE.finditer(content))
    under: list[str] = []
    for table in tables:
        above = [text for start, text in headings if start < table.start()]
        under.append(above[-1] if above else page_title or "Table")
    out, last = [], 0
    for k, table in enumerate(tables):
        name = under[k]
        if under.count(name) > 1:
            name = f"{name}, table {under[: k + 1].count(name)} of {under.count(name)}"
        out.append(content[last : table.start()])
        out.append(f'<div class="table-region" role="region" tabindex="0" aria-label="{html.escape(name)}">')
        out.append(CODE.sub(_unbreakable, table.group(0)))
        out.append("</div>")
        last = table.end()
    out.append(content[last:])
    return "".join(out)
