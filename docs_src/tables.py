"""Every table of a built page in its own labelled, focusable scroll region (used by ``hook.py``).

A table wider than the text column scrolls sideways inside ``<div class="table-region"
role="region" tabindex="0" aria-label="…">``, so a keyboard user can reach and scroll it and a
screen reader announces what it holds. Names in a table's code wrap at spaces only, and a range of
numbers (``k = 0…23``) never breaks. The label is the heading the table stands under (numbered
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
#: A range of numbers, ``0…23`` (a browser may break a line after the ellipsis).
RANGE = re.compile(r"\d[\d,]*…[\d,]*\d")
TEXT = re.compile(r"(<[^>]+>)")


#: A name longer than this may break after its dots and slashes (``<wbr>``), and only there, where a
#: table is set one block per row on a narrow screen (``extra.css``: ``span.nobr.long``); elsewhere,
#: and always inside each piece, ``span.nobr`` keeps it whole.
LONG_NAME = 24
SEPARATOR = re.compile(r"(?<=[./])(?=[^./])")


def _word(word: str) -> str:
    if len(word) > LONG_NAME:
        pieces = "<wbr>".join(f'<span class="nobr">{piece}</span>' for piece in SEPARATOR.split(word))
        return f'<span class="nobr long">{pieces}</span>'
    return f'<span class="nobr">{word}</span>'


def _unbreakable(match: re.Match) -> str:
    """Plain ``<code>`` of a table with each word in a ``span.nobr``: it wraps at spaces only.

    (A browser may otherwise break ``[<k>][0].weight_ih`` at a bracket or ``h_{t-1}`` at its
    hyphen.) A long name gets a ``<wbr>`` after each dot and slash, used only in a table set
    one block per row."""
    return "<code>" + WORD.sub(lambda w: _word(w.group(0)), match.group(1)) + "</code>"


def _unbroken_ranges(table: str) -> str:
    """``table`` with each range of numbers in its text (not in its tags) in a ``span.nobr``."""
    parts = TEXT.split(table)
    return "".join(
        part if part.startswith("<") else RANGE.sub(lambda m: f'<span class="nobr">{m.group(0)}</span>', part)
        for part in parts
    )


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
        out.append(_unbroken_ranges(CODE.sub(_unbreakable, table.group(0))))
        out.append("</div>")
        last = table.end()
    out.append(content[last:])
    return "".join(out)
