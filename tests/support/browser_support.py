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
  return {
    sources: sources.length,
    rendered: sources.filter(el => el.querySelector('.katex') !== null).length,
    display: document.querySelectorAll('div.arithmatex').length,
    displayRendered: document.querySelectorAll('div.arithmatex .katex-display').length,
    errors: [...document.querySelectorAll('.katex-error')].map(e => e.getAttribute('title') || e.textContent),
    raw: raw,
  };
}"""

MATH_DONE = """() => [...document.querySelectorAll('.arithmatex')].every(
  el => el.querySelector('.katex, .katex-error') !== null)"""


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


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class Visit:
    """One page load: what the page requested, logged and raised."""

    def __init__(self, browser, base: str, width: int = 1280, scheme: str = "light"):
        self.base = urlsplit(base)
        self.context = browser.new_context(
            viewport={"width": width, "height": 900}, color_scheme=scheme, service_workers="block"
        )
        self.context.set_default_timeout(TIMEOUT_MS)
        self.requests: list[str] = []
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.console: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url}: HTTP {r.status}"))
        self.page.on("console", lambda m: m.type == "error" and self.console.append(f"console.error: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))

    def local(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port == self.base.port

    def _route(self, route):
        url = route.request.url
        if self.local(url):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort("blockedbyclient")

    def goto(self, path: str):
        self.page.goto(self.base.geturl() + path, wait_until="load")
        self.page.wait_for_load_state("networkidle")
        return self.page

    def close(self):
        self.context.close()
