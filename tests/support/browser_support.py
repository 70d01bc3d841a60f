"""Opening the built site in headless Chromium (Debian's ``/usr/bin/chromium`` driven by the
Playwright library; never ``playwright install``): the browser's options, the page list, the math
probes and :class:`Visit`, one page load (not a test module; the fixtures are in
``tests/site/conftest.py``)."""

from __future__ import annotations

import http.server
import os
from urllib.parse import urlsplit

import pytest
from sitebuild import html_path

from docs_src.site import pages as registry

CHROMIUM = os.environ.get("DERIVE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",  # the tests run as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
    # Nothing leaves the machine: every request but to 127.0.0.1 (which Chromium never sends through a proxy)
    # goes to a proxy that is not there and fails; Visit records it as leaving. Blocking by the browser, not
    # by Playwright's routing, keeps the HTTP cache on (routing turns it off, and every page then loaded the
    # theme's scripts, KaTeX and its fonts anew: a second a page).
    "--proxy-server=http://127.0.0.1:9",
]
TIMEOUT_MS = 20_000

# Every generated page, known before the build from the page registry, plus MkDocs' 404 page.
PAGES = [html_path(page.path) for page in registry()] + ["404.html"]

# Typeset state of the page's math, read in the browser after KaTeX has run.
MATH_STATE = """() => {
  const sources = [...document.querySelectorAll('.arithmatex')];
  const raw = [];
  for (const el of sources) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let text = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.parentElement.closest('.katex')) text += n.textContent;
    }
    if (/\\\\[()\\[\\]]/.test(text)) raw.push(text.trim().slice(0, 80));
  }
  // TeX written outside any formula (no delimiters, so never typeset): "[x_t; h_{t-1}]", "\\odot", "$N$".
  // Not yet on the API reference, whose docstrings (derive/, rendered by mkdocstrings) still hold some
  // (derive.blocks.mamba, derive.blocks.mamba2, derive.frameworks.haiku, derive.frameworks.tf1: issue 35).
  const prose = document.querySelector('.md-content') || document.body;
  const api = location.pathname.includes('/api/');
  const walker = document.createTreeWalker(prose, NodeFilter.SHOW_TEXT);
  for (let n = api ? null : walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest('code, pre, kbd, script, style, .arithmatex, .katex, svg')) continue;
    const m = n.textContent.match(/\\\\[A-Za-z]{2,}\\b|[_^]\\{[^{}\\s]*\\}|\\$[^$\\s][^$]*\\$/);
    if (m) raw.push(n.textContent.trim().slice(Math.max(0, m.index - 30), m.index + 50));
  }
  return {
    sources: sources.length,
    rendered: sources.filter(el => el.querySelector('.katex') !== null).length,
    display: document.querySelectorAll('div.arithmatex').length,
    displayRendered: document.querySelectorAll('div.arithmatex .katex-display').length,
    errors: [...document.querySelectorAll('.katex-error')].map(e => e.getAttribute('title') || e.textContent),
    raw: raw,
  };
}"""

# Whether the page's contents (its headings, Material's toc.integrate: in the navigation sidebar, under the
# page's own entry) are in view at a desktop width: null, or what is wrong. A page of fewer than two sections
# needs none (contents of one entry name nothing to go to; Material's toc.integrate shows none on a section's
# own page, /language-models/, whose one section defines its terms).
CONTENTS = """() => {
  // A page of two sections or more, or of one section and longer than two screens (the released-models
  // table), has its contents in view.
  const headings = document.querySelectorAll('.md-content h2[id]').length;
  const long = document.querySelector('.md-content').getBoundingClientRect().height > 2 * innerHeight;
  if (headings < 2 && !(headings === 1 && long)) return null;
  const toc = document.querySelector('.md-nav--primary .md-nav--secondary');
  const first = toc && toc.querySelector('a.md-nav__link');
  if (!first) return `no table of contents for its ${headings} sections`;
  const r = first.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + Math.min(5, r.width / 2), r.top + r.height / 2);
  if (r.top < 0 || r.bottom > innerHeight || !at || !(at === first || first.contains(at) || at.contains(first)))
    return `its table of contents is out of view (first entry at ${Math.round(r.top)} px in a ${innerHeight} px window)`;
  return null;
}"""

MATH_DONE = """() => [...document.querySelectorAll('.arithmatex')].every(
  el => el.querySelector('.katex, .katex-error') !== null)"""


# --- what a page shows, as lists of sentences (empty: nothing); tests/site/test_browser_site.py ---

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

# What the reader cannot see, as a list of sentences (empty: nothing). `desktop`: tables must not be
# stacked (at 1280 px every table reads as a table).
READING = r"""(desktop) => {
  const problems = [];
  const short = el => (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 50);
  for (const table of document.querySelectorAll('.md-content table:not([class])')) {
    const region = table.closest('.table-region');
    if (!region) continue;  // test_browser_site.py reports it
    const box = region.getBoundingClientRect();
    const head = table.rows[0] ? short(table.rows[0]) : '';
    if (region.scrollWidth > region.clientWidth + 1)
      problems.push(`table "${head}" is ${region.scrollWidth} px wide in ${region.clientWidth} px: it scrolls`);
    if (desktop && region.classList.contains('stacked'))
      problems.push(`table "${head}" is set one block per row at ${window.innerWidth} px`);
    // A box inside the region (the table, a cell) whose content is wider than it: that content is
    // cut off or scrolls on its own, out of the region's reach.
    for (const inner of region.querySelectorAll('.md-typeset__scrollwrap, .md-typeset__table, table, td, th')) {
      if (inner.scrollWidth > inner.clientWidth + 1 && inner.clientWidth > 0)
        problems.push(`table "${head}": ${inner.tagName.toLowerCase()} "${short(inner)}" holds ${inner.scrollWidth} px in ${inner.clientWidth} px: it is cut or scrolls apart`);
    }
    for (const row of table.rows) {
      if (row.parentElement.tagName === 'THEAD' && region.classList.contains('stacked')) continue;
      for (const cell of row.cells) {
        const r = cell.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > box.right + 1 || r.left < box.left - 1)
          problems.push(`table "${head}": cell "${short(cell)}" is outside the view (${Math.round(r.left)}-${Math.round(r.right)} px in ${Math.round(box.left)}-${Math.round(box.right)})`);
      }
    }
  }
  const column = document.querySelector('.md-content__inner').getBoundingClientRect();
  for (const eq of document.querySelectorAll('.md-content div.arithmatex')) {
    if (eq.scrollWidth > eq.clientWidth + 1)
      problems.push(`a display formula is ${eq.scrollWidth} px wide in ${eq.clientWidth} px: ${short(eq.querySelector('annotation') || eq)}`);
  }
  for (const k of document.querySelectorAll('.md-content span.arithmatex .katex')) {
    if (k.closest('.table-region.stacked thead')) continue;  // the header row kept for screen readers, not shown
    const r = k.getBoundingClientRect();
    const limit = (k.closest('.table-region') || document.querySelector('.md-content__inner')).getBoundingClientRect();
    if (r.right > Math.min(limit.right, column.right) + 1)
      problems.push(`an inline formula reaches ${Math.round(r.right)} px, its column ends at ${Math.round(limit.right)}: ${short(k.querySelector('annotation') || k)}`);
  }
  for (const a of document.querySelectorAll('.md-content .katex annotation')) {
    if (/\\mathrm\{[^{}]*\}\s*\\mathrm\{/.test(a.textContent))
      problems.push(`two names run together: ${a.textContent.slice(0, 80)}`);
  }
  return problems;
}"""

# Prose only: code shown verbatim may hold a random seed (torch.manual_seed(SEED)).
SEED = r"""(api) => {
  const prose = document.querySelector('.md-content').cloneNode(true);
  prose.querySelectorAll('pre, code, .katex').forEach(e => e.remove());
  const text = prose.textContent.replace(/\s+/g, ' ');
  const found = text.match(api ? /.{0,30}\bseed (?:question|\d{3})\b.{0,30}/i : /.{0,30}\bseed\b.{0,30}/i);
  return found ? found[0] : null;
}"""

# axe-core's run on the whole document; `contrast` false leaves out its color-contrast rule (the
# slowest by far: seconds on a page of typeset formulas on two cores).
AXE_RUN = """async (contrast) => {
  const result = await axe.run(document, {resultTypes: ['violations'], rules: {'color-contrast': {enabled: contrast}}});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.html.slice(0, 120)),
  }));
}"""


def require_browser():
    """Playwright and Chromium are installed by scripts/bootstrap; in CI their absence is a failure."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "the playwright library is not installed (pip install -e '.[test]')"
    if problem is None and not os.access(CHROMIUM, os.X_OK):
        problem = f"{CHROMIUM} not found (apt-get install chromium; scripts/bootstrap does it as root)"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)


# A stand-in for the browser's Worker: it is made, takes messages and never answers (Visit(search=False)).
NO_WORKER = """window.Worker = class {
  constructor() {}
  postMessage() {}
  addEventListener() {}
  removeEventListener() {}
  terminate() {}
};"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The built site as files, without a log line a request; cacheable for the run (the site does not change
    while it is served)."""

    def end_headers(self):
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()

    def log_message(self, format, *args):
        pass


class Visit:
    """One page load: what the page requested, logged and raised."""

    def __init__(self, browser, base: str, width: int = 1280, scheme: str = "light", search: bool = True):
        """``search=False``: the page's search worker is never started (a stand-in ``Worker`` that does
        nothing), for checks of a page's own layout and text. Material's worker loads and indexes the whole
        site's search index (2.3 MB) on every page load: half of a page's load time on two cores. The
        search itself is held by the tests that search (test_browser.py, test_browser_site.py)."""
        self.base = urlsplit(base)
        self.context = browser.new_context(
            viewport={"width": width, "height": 900}, color_scheme=scheme, service_workers="block"
        )
        if not search:
            self.context.add_init_script(NO_WORKER)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.requests: list[str] = []
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.console: list[str] = []
        self.page = self.context.new_page()
        self.page.on("request", self._request)
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url}: HTTP {r.status}"))
        self.page.on("console", lambda m: m.type == "error" and self.console.append(f"console.error: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))

    def local(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port == self.base.port

    def _request(self, request):
        self.requests.append(request.url)
        if not self.local(request.url):
            self.outside.append(request.url)  # and it fails at the proxy that is not there (ARGS)

    def goto(self, path: str, idle: bool = True):
        """Open ``path``; what the page requested, logged and raised is recorded afresh.

        ``idle``: also wait for the network to be quiet for 500 ms (Playwright's ``networkidle``);
        without, the page is taken as loaded at its ``load`` event.
        """
        if self.page.url != "about:blank":
            # the last page's late requests (its favicon) are cancelled by leaving it, and reported
            # as failed then: leave it before the records start afresh
            self.page.goto("about:blank")
        for record in (self.requests, self.outside, self.failed, self.console):
            record.clear()
        self.page.goto(self.base.geturl() + path, wait_until="load")
        if idle:
            self.page.wait_for_load_state("networkidle")
        return self.page

    def close(self):
        self.context.close()
