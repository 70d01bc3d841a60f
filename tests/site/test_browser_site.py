"""The built site in a real browser at phone and desktop widths, in both colour schemes (issue 13).

Every page is opened at 1280 px in the light scheme and at 375 px in the dark one, and checked for:

* layout: the page never scrolls sideways; every table stands in its own focusable, labelled
  scroll region (``tabindex=0``, ``role=region``, a unique ``aria-label``) which is the element
  that scrolls; no word of a name in a table is broken across lines; a display equation wider
  than the column scrolls and is focusable; no Markdown fence in the visible text;
* accessibility: axe-core (``node_modules/axe-core``, pinned in ``package-lock.json``, injected
  by the test — the site never serves it) reports no violation on the page, content and theme
  chrome alike. axe runs on every page in the light scheme and on a representative subset in
  the dark one (the full matrix doubles the run time on a 2-core machine; see CHANGELOG).

Search: realistic queries find the page that answers them first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import MATH_DONE, PAGES, TIMEOUT_MS, Visit

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

# Pages axe also checks in the second colour scheme: one of each kind (tables, long equations,
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
CASES = [(path, 1280, "light", True) for path in PAGES] + [
    (path, 375, "dark", path in AXE_BOTH_SCHEMES) for path in PAGES
]

# What is wrong with the page's layout, as a list of sentences (empty: nothing).
LAYOUT = r"""() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1)
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px in a ${window.innerWidth} px window`);
  const labels = new Map();
  for (const table of document.querySelectorAll('.md-content table:not([class])')) {
    const region = table.closest('.table-region');
    const head = table.rows[0] ? table.rows[0].textContent.trim().replace(/\s+/g, ' ').slice(0, 40) : '';
    if (!region) {
      problems.push(`table "${head}" is not in a .table-region`);
    } else {
      const label = region.getAttribute('aria-label') || '';
      if (region.getAttribute('role') !== 'region' || region.tabIndex !== 0 || !label.trim())
        problems.push(`table "${head}": region not focusable or not named`);
      labels.set(label, (labels.get(label) || 0) + 1);
      if (getComputedStyle(region).overflowX !== 'auto')
        problems.push(`table "${head}": its region does not scroll`);
      for (let e = table.parentElement; e !== region; e = e.parentElement)
        if (getComputedStyle(e).overflowX !== 'visible')
          problems.push(`table "${head}": ${e.className} scrolls inside the region`);
    }
    for (const code of table.querySelectorAll('code')) {
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.textContent.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          if (lines.size > 1) problems.push(`"${m[0]}" broken across ${lines.size} lines`);
        }
      }
    }
  }
  for (const [label, n] of labels) if (n > 1) problems.push(`${n} table regions named "${label}"`);
  for (const eq of document.querySelectorAll('.md-content div.arithmatex')) {
    if (eq.scrollWidth <= eq.clientWidth + 1) continue;
    if (getComputedStyle(eq).overflowX !== 'auto' || eq.tabIndex !== 0 || !eq.getAttribute('aria-label'))
      problems.push(`a display equation (${eq.scrollWidth} px in ${eq.clientWidth} px) is clipped or not focusable`);
  }
  if (document.body.innerText.includes('```')) problems.push('a Markdown fence shows as text');
  return problems;
}"""

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.html.slice(0, 120)),
  }));
}"""


@pytest.fixture(scope="module")
def views(browser, server):
    """One browser context per (width, scheme), reused across pages."""
    opened: dict[tuple[int, str], Visit] = {}

    def view(width: int, scheme: str) -> Visit:
        if (width, scheme) not in opened:
            opened[(width, scheme)] = Visit(browser, server, width=width, scheme=scheme)
        return opened[(width, scheme)]

    yield view
    for v in opened.values():
        v.close()


def _open(view: Visit, path: str):
    page = view.goto(path)
    try:
        page.wait_for_function(MATH_DONE, timeout=TIMEOUT_MS)
    except Exception:
        pass  # test_browser.py reports untypeset math; the layout is checked as it stands
    page.evaluate("() => document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(r)))")
    return page


def _axe(page) -> list[dict]:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` (scripts/bootstrap does it)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN)


def _report(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"][:5]) for v in violations
    )


@pytest.mark.parametrize("path, width, scheme, with_axe", CASES, ids=[f"{w}px-{s}-{p}" for p, w, s, _ in CASES])
def test_page_layout_and_accessibility(views, path, width, scheme, with_axe):
    view = views(width, scheme)
    page = _open(view, path)
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default"), (
        "the page is not shown in the requested colour scheme"
    )
    problems = page.evaluate(LAYOUT)
    assert problems == [], f"{path} at {width} px:\n" + "\n".join(problems)
    if with_axe:
        violations = _axe(page)
        assert violations == [], f"axe-core, {path} at {width} px, {scheme}:\n{_report(violations)}"
    assert view.outside == [], view.outside


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
    ("mamba 768", "blocks/mamba/"),  # the nine tensors at mamba-130m's width (issue 27)
]

FIRST_HITS = """() => [...document.querySelectorAll('.md-search-result__list > .md-search-result__item')]
  .map(li => new URL(li.querySelector('a').href).pathname.replace(/^\\//, '').replace(/index\\.html$/, ''))"""


@pytest.fixture(scope="module")
def search_page(views):
    return views(1280, "light")


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
