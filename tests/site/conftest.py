"""The site's tests: the built site served on 127.0.0.1 and a headless Chromium to open it
(the browser tests, ``-m browser``)."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from browser_support import ARGS, CHROMIUM, QuietHandler, Visit, require_browser


@pytest.fixture(scope="module")
def site(built_site: Path) -> Path:
    return built_site


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def visit(browser, server):
    opened = []

    def open_page(path: str):
        v = Visit(browser, server)
        opened.append(v)
        v.goto(path)
        return v

    yield open_page
    for v in opened:
        v.close()
