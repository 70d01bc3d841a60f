"""Every page of the built site in a real browser, at 1280 px (light scheme) and 375 px (dark), each
opened once per width and checked for everything a reader meets (issues 13 and 27):

* rendering: every formula typeset by KaTeX (as many rendered as ``.arithmatex`` sources, display
  math in display mode, no raw TeX inside a formula or in the prose outside one, no ``.katex-error``), a title, no console error or uncaught
  exception, no failed request and none leaving 127.0.0.1 (the site serves everything itself);
* layout: the page never scrolls sideways; every table stands in its own focusable, labelled
  scroll region (``tabindex=0``, ``role=region``, a unique ``aria-label``) which is the element
  that scrolls; no word of a name in a table is broken across lines (a long name in a table set
  one block per row breaks after its dots and slashes only, each piece whole); a display equation
  wider than the column scrolls and is focusable; no Markdown fence in the visible text;
* reading: every cell of every table inside its region, read without scrolling sideways (at
  1280 px a table is a table, ``docs_src/tables.py``; narrower, a table that does not fit is set
  one block per row, ``docs/javascripts/tables.js``) and none of its cells cut inside it; no
  typeset formula wider than its box at either width (``docs/javascripts/katex.js`` breaks a long
  one after its + and = signs, an aligned block a row at a time, and sets a row that still does
  not fit smaller), none running two names together; no "seed" (the project's word for its first questions) in
  the prose, outside the API reference where ``seed`` is a Keras argument;
* contents: at 1280 px, a page with sections (or one section longer than two screens) has its table of contents in view (``toc.integrate``: in the
  navigation sidebar, whatever its tables);
* accessibility: axe-core (``node_modules/axe-core``, pinned in ``package-lock.json``, injected
  by the test — the site never serves it) reports no violation on the page, content and theme
  chrome alike. axe runs on every page in the light scheme, and with all its rules on a
  representative subset (one page of each kind) in both schemes. On the other pages its
  color-contrast rule is left out: it is by far the slowest (seconds per page of typeset formulas
  on two cores), and contrast is the stylesheet's, the same for each kind of element on every page.

One visit per page and width holds all of these (three visits each cost a third of the suite's
time on two cores). Search: realistic queries find the page that answers them first.

Run these tests alone with ``./scripts/test -m browser``; skip them with ``-m "not browser"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import (
    AXE_RUN,
    CONTENTS,
    LAYOUT,
    MATH_DONE,
    MATH_STATE,
    PAGES,
    READING,
    SEED,
    TIMEOUT_MS,
    Visit,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

# Pages axe checks with all its rules (color-contrast too) in both colour schemes: one of each kind (tables, long equations,
# code, API reference, notebook output, calculator form, question, 404).
AXE_BOTH_SCHEMES = {
    "index.html",
    "cells/lstm/index.html",
    "wirings/deep-bidirectional/index.html",
    "frameworks/comparison/index.html",
    "frameworks/keras/index.html",
    "questions/bidirectional-more-than-twice/index.html",
    "tools/calculator/index.html",
    "tools/notebook/index.html",
    "api/frameworks/index.html",
    "404.html",
}

# (page, width, scheme, axe: None (not run), "all" (every rule) or "all but contrast")
CASES = [(path, 1280, "light", "all" if path in AXE_BOTH_SCHEMES else "all but contrast") for path in PAGES] + [
    (path, 375, "dark", "all" if path in AXE_BOTH_SCHEMES else None) for path in PAGES
]


@pytest.fixture(scope="module")
def views(browser, server):
    """One browser context per (width, scheme), reused across pages; the pages' search is not started (the
    search tests below open their own)."""
    opened: dict[tuple[int, str], Visit] = {}

    def view(width: int, scheme: str) -> Visit:
        if (width, scheme) not in opened:
            opened[(width, scheme)] = Visit(browser, server, width=width, scheme=scheme, search=False)
        return opened[(width, scheme)]

    yield view
    for v in opened.values():
        v.close()


def _open(view: Visit, path: str, idle: bool = True):
    """``path`` loaded, its math typeset (or given up on: MATH_STATE reports it) and its fonts ready."""
    page = view.goto(path, idle=idle)
    try:
        page.wait_for_function(MATH_DONE, timeout=TIMEOUT_MS)
    except Exception:
        pass  # test_page_as_the_reader_sees_it reports untypeset math; the layout is checked as it stands
    page.evaluate("() => document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(r)))")
    return page


def _axe(page, contrast: bool = True) -> list[dict]:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` (scripts/bootstrap does it)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN, contrast)


def _report(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"][:5]) for v in violations
    )


def _math(page) -> list[str]:
    math = page.evaluate(MATH_STATE)
    problems = [f"KaTeX error: {e}" for e in math["errors"]]
    if math["rendered"] != math["sources"]:
        problems.append(f"{math['sources'] - math['rendered']} of {math['sources']} formulas not typeset")
    if math["displayRendered"] != math["display"]:
        problems.append("display math not typeset in display mode")
    problems += [f"raw TeX left on the page: {raw}" for raw in math["raw"]]
    return problems


@pytest.mark.parametrize("path, width, scheme, axe", CASES, ids=[f"{w}px-{s}-{p}" for p, w, s, _ in CASES])
def test_page_as_the_reader_sees_it(views, path, width, scheme, axe):
    view = views(width, scheme)
    page = _open(view, path, idle=False)
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default"), (
        "the page is not shown in the requested colour scheme"
    )
    problems = _math(page)
    if page.locator("h1").count() < 1:
        problems.append("no title")
    problems += [f"a request leaves 127.0.0.1: {url}" for url in view.outside]
    problems += [f"not a local request: {url}" for url in view.requests if not view.local(url)]
    problems += [f"failed request: {failed}" for failed in view.failed]
    problems += view.console
    problems += page.evaluate(LAYOUT)
    problems += page.evaluate(READING, width >= 1280)
    if width == 1280:
        contents = page.evaluate(CONTENTS)
        if contents:
            problems.append(contents)
        seed = page.evaluate(SEED, path.startswith("api/"))
        if seed is not None:
            problems.append(f"the reader meets the project's word 'seed': {seed!r}")
    assert problems == [], f"{path} at {width} px:\n" + "\n".join(problems)
    if axe:
        violations = _axe(page, contrast=axe == "all")
        assert violations == [], f"axe-core, {path} at {width} px, {scheme}:\n{_report(violations)}"


def test_math_pages_really_have_math(views):
    """Guard against a vacuous pass: the cell pages carry many formulas, all typeset."""
    page = _open(views(1280, "light"), "cells/lstm/index.html")
    math = page.evaluate(MATH_STATE)
    assert math["sources"] >= 20 and math["display"] >= 1
    assert page.locator(".katex-html").count() >= math["sources"]
    assert _math(page) == []


def test_the_checks_can_fail(views):
    """A table outside a region, a name broken mid-word, an image without text: each is reported."""
    page = _open(views(375, "light"), "cells/lstm/index.html")
    page.evaluate(
        """() => document.querySelector('.md-content h1').insertAdjacentHTML('afterend',
        '<div style="width: 120px"><table><tr><th>tensor</th></tr><tr><td><code style="word-break: break-all">' +
        'weight_ih_l0_reverse_weight_ih_l0_reverse_weight_ih_l0_reverse_weight_ih_l0_reverse</code></td></tr></table></div>' +
        '<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></p>')"""
    )
    problems = page.evaluate(LAYOUT)
    assert any("not in a .table-region" in p for p in problems), problems
    assert any("broken across" in p for p in problems), problems
    ids = {v["id"] for v in _axe(page)}
    assert "image-alt" in ids, ids


def test_raw_tex_in_the_prose_is_reported(views):
    """TeX written without delimiters (never typeset) is caught outside formulas; code is not TeX."""
    page = _open(views(1280, "light"), "frameworks/haiku/index.html")
    assert _math(page) == []
    page.evaluate(
        """() => document.querySelector('.md-content h1').insertAdjacentHTML('afterend',
        '<p>One Linear on [x_t; h_{t-1}], a gate \\\\odot h.</p><p><code>h_{t-1}</code></p>')"""
    )
    raw = [p for p in _math(page) if p.startswith("raw TeX")]
    assert len(raw) == 1 and "h_{t-1}" in raw[0], raw


@pytest.mark.parametrize(
    "path, entries",
    [
        ("cells/lstm/index.html", 5),
        ("frameworks/keras/index.html", 9),
        ("models/whole-models/index.html", 6),
        ("language-models/released/index.html", 1),
    ],
)
def test_contents_in_view_and_checked(views, path, entries):
    """Pages with wide tables (the LSTM, Keras and whole-model pages, issue 35; the released-models table, one
    section ten screens long) keep their contents in view at 1280 px (``toc.integrate``: in the navigation
    sidebar; each table scrolls in its own region); a page whose contents are gone is reported."""
    page = _open(views(1280, "light"), path)
    assert page.evaluate(CONTENTS) is None
    assert page.locator(".md-nav--primary .md-nav--secondary a.md-nav__link").count() >= entries
    page.evaluate("() => document.querySelector('.md-nav--primary .md-nav--secondary').remove()")
    assert "no table of contents" in page.evaluate(CONTENTS)


SORTED = """(k) => {
  const table = document.querySelector('.md-content .sortable table');
  const th = table.tHead.rows[0].cells[k];
  return {order: th.getAttribute('aria-sort'),
          values: [...table.tBodies[0].rows].map(r => (r.cells[k].querySelector('.cell-value') || r.cells[k]).textContent.replace(/,/g, '').trim())};
}"""


def test_released_models_table_sorts(views):
    """The released-models table sorts by any column (tablesort, served by the site): a click on "total" sorts the
    counts as numbers, a second click reverses them; Enter on "model" sorts the names."""
    page = _open(views(1280, "light"), "language-models/released/index.html")
    head = page.locator(".md-content .sortable table thead th")
    assert head.nth(2).inner_text().strip() == "total"
    before = page.evaluate(SORTED, 2)["values"]
    assert len(before) >= 40
    head.nth(2).click()
    first = page.evaluate(SORTED, 2)
    head.nth(2).click()
    second = page.evaluate(SORTED, 2)
    for shown in (first, second):
        counts = [int(v) for v in shown["values"]]
        assert counts == sorted(counts, reverse=shown["order"] == "descending"), shown["order"]
        assert sorted(counts) == sorted(int(v) for v in before)
    assert {first["order"], second["order"]} == {"ascending", "descending"}
    head.nth(0).focus()
    page.keyboard.press("Enter")
    names = page.evaluate(SORTED, 0)
    assert names["order"] in ("ascending", "descending")
    key = [n.lower() for n in names["values"]]
    assert key == sorted(key, reverse=names["order"] == "descending")


def test_home_answers_on_the_first_screen(views):
    """At 375 px the home page's first answer (the bidirectional LSTM's count) starts within the first screen,
    and its table links every part of the site a reader asks about."""
    page = _open(views(375, "dark"), "index.html")
    top = page.evaluate("() => document.querySelector('.md-content .flagship').getBoundingClientRect().top")
    height = page.evaluate("() => innerHeight")
    assert 0 < top < height, (top, height)
    assert "561,152" in page.locator(".md-content .flagship").inner_text()
    links = page.evaluate(
        "() => [...document.querySelector('.md-content .table-region').querySelectorAll('a')]"
        ".map(a => new URL(a.href).pathname)"
    )
    for section in (
        "cells/",
        "blocks/",
        "language-models/",
        "language-models/memory/",
        "tools/calculator/",
        "tools/cli/",
    ):
        assert any(link.endswith("/" + section) for link in links), (section, links)


def test_checkpoint_diagnoses_wrap(views):
    for width, scheme in ((1280, "light"), (375, "dark")):
        page = _open(views(width, scheme), "models/checkpoints/index.html")
        blocks = page.evaluate(
            """() => [...document.querySelectorAll('.md-content .diagnosis pre > code')].map(c => ({
                wide: c.scrollWidth > c.clientWidth + 1, lines: Math.round(c.scrollHeight / parseFloat(getComputedStyle(c).lineHeight)),
                text: c.textContent.slice(0, 60)}))"""
        )
        assert len(blocks) >= 4, blocks
        assert [b for b in blocks if b["wide"]] == [], f"at {width} px a diagnosis is cut: {blocks}"
        if width == 375:
            assert any(b["lines"] > 2 for b in blocks), "no diagnosis wraps at 375 px"


def test_the_reading_checks_can_fail(views):
    """A wide table in its region, a stacked one whose cell is still too wide, a formula that cannot break,
    names run together: each is reported."""
    page = _open(views(1280, "light"), "cells/lstm/index.html")
    page.evaluate(
        r"""() => {
          const h1 = document.querySelector('.md-content h1');
          const table = (name, count) => '<table><thead><tr><th>name</th><th>count</th></tr></thead>' +
            '<tbody><tr><td><span style="white-space: nowrap">' + (name + ' ').repeat(80) + '</span></td><td>' + count + '</td></tr></tbody></table>';
          h1.insertAdjacentHTML('afterend',
            '<div class="table-region" role="region" tabindex="0" aria-label="t1"><div class="md-typeset__scrollwrap"><div class="md-typeset__table">' +
            table('weight_ih_l0', '42') + '</div></div></div>' +
            '<div class="table-region stacked" role="region" tabindex="0" aria-label="t2">' + table('bias_hh_l0', '7') + '</div>' +
            '<div class="arithmatex" id="wide-eq"></div><p><span class="arithmatex" id="names"></span></p>');
          katex.render('\\begin{aligned} N &= ' + 'H + '.repeat(150) + '1 \\end{aligned}', document.getElementById('wide-eq'), {displayMode: true});
          katex.render('\\mathrm{hidden\\_size} \\mathrm{expand}', document.getElementById('names'));
        }"""
    )
    problems = "\n".join(page.evaluate(READING, True))
    assert "it scrolls" in problems and '"42" is outside the view' in problems, problems
    assert (
        "one block per row" in problems
        and 'td "bias_hh_l0 bias_hh_l0' in problems
        and "it is cut or scrolls apart" in problems
    )
    assert "a display formula is" in problems and "two names run together" in problems
    page.evaluate("() => document.querySelector('.md-content').insertAdjacentText('beforeend', 'seed 001')")
    assert "seed 001" in page.evaluate(SEED, True)


# --- search (Material's, offline): the page that answers comes first ------------------------------

# (query a reader types, the page that answers it: its URL path, "" for the home page)
SEARCHES = [
    ("proj_size", "cells/lstm-projection/"),
    ("561152", ""),  # the home page's headline count, nn.LSTM(32, 128, 2, bidirectional=True)
    ("bidirectional", "wirings/deep-bidirectional/"),
    ("FLOPs", "tools/cost/"),
    ("ConvLSTM2D", "frameworks/keras/"),
    ("install", "install/"),
    ("pip install derive-rnn", "install/"),
    ("calculator", "tools/calculator/"),
    ("GRU", "cells/gru/"),
    ("command line", "tools/cli/"),
    ("Keras Bidirectional", "wirings/keras-bidirectional/"),
    ("merge_mode", "wirings/keras-bidirectional/"),
    ("peephole", "cells/lstm/"),
    ("weight_ih_l0", "cells/lstm/"),
    ("LSTM parameters", "cells/lstm/"),
    ("cuDNN", "frameworks/cudnn/"),
    ("mamba 768", "blocks/mamba/"),  # the tensors at mamba-130m's width (issue 27)
    # issue 35: the questions a reader types about language models and memory
    ("kv cache", "language-models/memory/"),
    ("context length", "language-models/memory/"),
    ("fits 24 GB", "language-models/memory/"),
    ("GiB", "language-models/memory/"),
    ("memory", "language-models/memory/"),
    ("active parameters", "language-models/"),  # defines the term every family page uses
    ("Qwen3 KV cache", "language-models/qwen3-next/"),  # Qwen3-Next's and Qwen3.5's KV bytes per token
    ("Qwen3-Next", "language-models/qwen3-next/"),
    ("Jamba", "language-models/jamba/"),
    ("Mamba state size", "blocks/mamba/"),  # the state per sequence of state-spaces/mamba's five sizes
    ("mamba2-130m", "blocks/mamba2/"),
    ("RWKV state", "blocks/rwkv/"),
    ("RecurrentGemma state", "blocks/griffin/"),
    ("Griffin", "blocks/griffin/"),
    ("bidirectional LSTM parameters", "questions/bidirectional-more-than-twice/"),
    ("gpt-oss-20b", "language-models/released/"),  # a released model's name: its row
    # a released model's name: its row on the page of its family (its numbers, and a cache at 256K tokens)
    ("Qwen3-8B KV cache", "language-models/released/"),  # qwen3 has no family page: the released-models row
    ("Jamba 256K", "language-models/jamba/"),
    ("Llama-3.1-405B", "language-models/transformers/"),
]

FIRST_HITS = """() => [...document.querySelectorAll('.md-search-result__list > .md-search-result__item')]
  .map(li => new URL(li.querySelector('a').href).pathname.replace(/^\\//, '').replace(/index\\.html$/, ''))"""


@pytest.fixture(scope="module")
def search_page(browser, server):
    view = Visit(browser, server, width=1280, scheme="light")
    yield view
    view.close()


def _search(view: Visit, query: str) -> list[str]:
    page = view.goto("index.html")
    box = page.locator("input.md-search__input")
    box.click()
    # One query, the whole one: Material searches on each keyup (distinct values only), so the text is
    # filled (no keyup) and one key is pressed. Typed key by key, each prefix was a query of its own and
    # a slow machine could read an earlier prefix's answer (CI once did, for "pip install derive-rnn").
    box.fill(query)
    box.press("End")
    page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=TIMEOUT_MS)
    return page.evaluate(FIRST_HITS)


@pytest.mark.parametrize("query, answer", SEARCHES, ids=[q for q, _ in SEARCHES])
def test_search_finds_the_answer_first(search_page, query, answer):
    hits = _search(search_page, query)
    assert hits, f"search {query!r}: no result"
    assert hits[0] == answer, f"search {query!r}: first hit {hits[0]!r}, expected {answer!r}; hits {hits[:5]}"
    assert search_page.outside == [], search_page.outside
