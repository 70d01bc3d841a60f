"""The built site, opened page by page in a real browser (headless Chromium).

The site is built once into a temporary folder, served on 127.0.0.1 by a
``http.server`` thread, and every page is loaded in Debian's Chromium
(``/usr/bin/chromium``, installed by ``scripts/bootstrap``), driven by the
Playwright library. No browser is downloaded: Playwright only drives that
executable (never run ``playwright install``).

Every built page is among those ``test_browser_site.py`` opens (it checks each for typeset math,
errors, requests, layout, reading and accessibility). Search works offline; the calculator
answers as the frameworks do.

Run these tests alone with ``./scripts/test -m browser``; skip them with ``-m "not browser"``.
"""

from __future__ import annotations

import pytest
from browser_support import PAGES, TIMEOUT_MS
from sitebuild import html_path

from docs_src.site import pages as registry

pytestmark = pytest.mark.browser


def test_every_built_page_is_visited(site):
    built = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert built == sorted(PAGES), "HTML pages not covered by the browser tests (or not built)"


def test_a_request_leaving_the_machine_fails_and_is_reported(visit):
    """The checks of "nothing leaves 127.0.0.1" can fail: a request to a name or an address elsewhere is
    recorded as leaving, and it does not reach anything (the browser's dead proxy, browser_support.ARGS)."""
    v = visit("index.html")
    for url in ("http://example.com/katex.css", "http://192.0.2.1/font.woff2"):
        answer = v.page.evaluate("url => fetch(url).then(() => 'reached', () => 'failed')", url)
        assert answer == "failed", url
        assert url in v.outside, (url, v.outside)
    assert v.page.evaluate("() => fetch('sitemap.xml').then(r => r.status)") == 200


@pytest.mark.parametrize(
    "query, expected",
    [
        ("proj_size", "cells/lstm-projection/"),
        ("bidirectional", "wirings/deep-bidirectional/"),
    ],
)
def test_search_works_offline(visit, query, expected):
    v = visit("index.html")
    page = v.page
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)  # one query, the whole one (Material searches on keyup)
    box.press("End")
    results = page.locator(".md-search-result__item a.md-search-result__link")
    results.first.wait_for(state="visible", timeout=TIMEOUT_MS)
    hrefs = [results.nth(k).get_attribute("href") for k in range(results.count())]
    assert any(expected in (h or "") for h in hrefs), f"search {query!r}: {hrefs}"
    meta = page.locator(".md-search-result__meta").inner_text()
    assert "matching" in meta.lower() or meta.strip()[0].isdigit(), meta
    assert v.outside == [] and v.console == [] and v.failed == [], (v.outside, v.console, v.failed)


def test_search_finds_nothing_for_nonsense(visit):
    """The search box answers "no match" rather than results for every query."""
    v = visit("index.html")
    box = v.page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("qwxzvbnm", delay=20)
    meta = v.page.locator(".md-search-result__meta")
    v.page.wait_for_function(
        "() => /no matching/i.test(document.querySelector('.md-search-result__meta').textContent)", timeout=TIMEOUT_MS
    )
    assert v.page.locator(".md-search-result__item").count() == 0, meta.inner_text()


# --- the calculator (tools/calculator.md, issue 5): it answers, and its answers are torch's --------

CALCULATOR = next((p.path for p in registry() if p.path.endswith("calculator.md")), None)

CALCULATOR_CASES = [
    # (cell option, torch class, input_size, hidden_size, num_layers, proj_size, bidirectional, bias)
    ("LSTM", "LSTM", 32, 128, 2, 0, True, True),
    ("LSTM", "LSTM", 40, 512, 3, 128, False, True),
    ("GRU", "GRU", 10, 20, 3, 0, True, False),
    ("RNN_RELU", "RNN", 25, 50, 4, 0, True, True),
    ("RNN_TANH", "RNN", 7, 9, 1, 0, False, True),
]


def _torch_count(cls, input_size, hidden_size, num_layers, proj_size, bidirectional, bias, **extra) -> int:
    import torch

    kwargs = dict(num_layers=num_layers, bidirectional=bidirectional, bias=bias, device="meta", **extra)
    if proj_size:
        kwargs["proj_size"] = proj_size
    module = getattr(torch.nn, cls)(input_size, hidden_size, **kwargs)
    return sum(p.numel() for p in module.parameters())


def _fill(page, cell, input_size, hidden_size, num_layers, proj_size, bidirectional, bias):
    page.select_option("#calc-cell", cell)
    for field, value in (
        ("input-size", input_size),
        ("hidden-size", hidden_size),
        ("num-layers", num_layers),
        ("proj-size", proj_size),
    ):
        if field == "proj-size" and not page.is_enabled("#calc-proj-size"):
            assert value == 0, "the page offers no proj_size for this cell"
            continue  # the page disables proj_size for cells without projection
        page.fill(f"#calc-{field}", str(value))
    page.set_checked("#calc-bidirectional", bidirectional)
    page.set_checked("#calc-bias", bias)
    page.dispatch_event("#calc-form", "change")


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
@pytest.mark.parametrize("case", CALCULATOR_CASES, ids=lambda c: f"{c[1]}{c[2:]}")
def test_calculator_answers_as_torch(visit, case):
    cell, cls, *sizes = case
    v = visit(html_path(CALCULATOR))
    page = v.page
    _fill(page, cell, *sizes)
    extra = {"nonlinearity": "relu"} if cell == "RNN_RELU" else {}
    expected = _torch_count(cls, *sizes, **extra)
    total = page.locator("#calc-total")
    page.wait_for_function(
        "(n) => document.querySelector('#calc-total').dataset.value === n", arg=str(expected), timeout=TIMEOUT_MS
    )
    assert total.get_attribute("data-value") == str(expected)
    assert total.inner_text().replace(",", "").replace("\u202f", "").strip() == str(expected)
    assert page.locator("#calc-error").inner_text().strip() == ""
    assert cls in page.locator("#calc-call").inner_text()
    assert v.outside == [] and v.console == [] and v.failed == [], (v.outside, v.console, v.failed)


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
def test_calculator_fields_look_like_fields(visit):
    """Every size field has a visible box: a border of at least 1px in a colour unlike the page's."""
    page = visit(html_path(CALCULATOR)).page
    for field in ("input-size", "hidden-size", "num-layers", "proj-size"):
        style = page.evaluate(
            """(id) => { const s = getComputedStyle(document.getElementById(id));
                         return [s.borderTopStyle, s.borderTopWidth, s.borderTopColor, s.backgroundColor]; }""",
            f"calc-{field}",
        )
        border_style, width, color, background = style
        assert border_style == "solid" and float(width.removesuffix("px")) >= 1, (field, style)
        assert color != background, (field, style)


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
def test_calculator_refuses_bad_sizes_and_stays_exact_for_huge_ones(visit):
    v = visit(html_path(CALCULATOR))
    page = v.page
    _fill(page, "LSTM", 32, 0, 2, 0, False, True)
    page.wait_for_function("() => document.querySelector('#calc-error').textContent.trim() !== ''", timeout=TIMEOUT_MS)
    assert "hidden_size" in page.locator("#calc-error").inner_text()
    assert page.locator("#calc-total").get_attribute("data-value") == ""
    # 10**20 is beyond a double's exact range: the page must still be exact (BigInt).
    huge = 10**20
    _fill(page, "GRU", huge, huge, 3, 0, True, True)
    import derive.torch as dt

    expected = int(dt.GRU(huge, huge, 3, bidirectional=True).count)
    page.wait_for_function(
        "(n) => document.querySelector('#calc-total').dataset.value === n", arg=str(expected), timeout=TIMEOUT_MS
    )
    assert page.locator("#calc-error").inner_text().strip() == ""
    assert v.console == [] and v.outside == [], (v.console, v.outside)


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
@pytest.mark.parametrize("typed", ["0x10", "010", "1e1", "16.0"])
def test_calculator_reads_what_is_typed_not_a_number_fields_guess(visit, typed):
    """Issue 13: a number field turned "0x10" into "010" and the page read 10; text fields refuse it."""
    v = visit(html_path(CALCULATOR))
    page = v.page
    _fill(page, "LSTM", 32, 128, 2, 0, False, True)
    page.fill("#calc-input-size", typed)
    page.dispatch_event("#calc-form", "change")
    page.wait_for_function("() => document.querySelector('#calc-error').textContent.trim() !== ''", timeout=TIMEOUT_MS)
    assert page.locator("#calc-error").inner_text().strip() == "input_size should be of type int"
    assert page.locator("#calc-total").get_attribute("data-value") == ""


# --- issue 12: the other frameworks' classes in the page, BigInt-exact, refusals in the library's words

OTHER_CASES = [
    # (framework, class, input_size, hidden_size, num_layers, proj_size, bidirectional, bias)
    ("onnx", "GRU", 10, 20, 3, 0, True, False),
    ("keras2", "LSTM", 32, 128, 2, 0, True, True),
    ("paddle", "LSTM", 40, 512, 3, 128, False, True),
    ("haiku", "VanillaRNN", 7, 9, 1, 0, False, True),
    ("sru", "SRU", 64, 32, 3, 0, True, True),  # square input: I = D·H
    ("mingru", "minLSTM", 16, 48, 2, 16, False, True),
    ("reference", "QRNN", 10**20, 10**20, 4, 0, True, False),  # beyond a double
]


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
@pytest.mark.parametrize("case", OTHER_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_calculator_other_frameworks_as_python(visit, case):
    from docs_src.calculator import evaluate

    framework, cls, i, h, layers, proj, bidirectional, bias = case
    v = visit(html_path(CALCULATOR))
    page = v.page
    page.select_option("#calc-framework", framework)
    page.dispatch_event("#calc-form", "change")
    _fill(page, cls, i, h, layers, proj, bidirectional, bias)
    expected = evaluate(cls, i, h, layers, bidirectional, bias, proj, framework=framework)
    page.wait_for_function(
        "(n) => document.querySelector('#calc-total').dataset.value === n",
        arg=str(expected["total"]),
        timeout=TIMEOUT_MS,
    )
    assert page.locator("#calc-error").inner_text().strip() == ""
    assert page.locator("#calc-call").inner_text().strip() == expected["call"]
    assert v.outside == [] and v.console == [] and v.failed == [], (v.outside, v.console, v.failed)


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
def test_calculator_keras_bidirectional_lstm_128(visit):
    """The seed question in Keras 3: Bidirectional(LSTM(128)) on 28 features, then merge_mode='sum' over 2 layers."""
    from docs_src.calculator import evaluate

    v = visit(html_path(CALCULATOR))
    page = v.page
    page.select_option("#calc-framework", "keras")
    page.dispatch_event("#calc-form", "change")
    assert page.locator("#calc-cell").input_value() == "LSTM"
    assert not page.is_enabled("#calc-proj-size")
    page.set_checked("#calc-bidirectional", False)
    page.dispatch_event("#calc-form", "change")
    assert not page.is_enabled("#calc-merge-mode")
    _fill(page, "LSTM", 28, 128, 1, 0, True, True)
    assert page.is_enabled("#calc-merge-mode")
    page.wait_for_function("() => document.querySelector('#calc-total').dataset.value === '160768'", timeout=TIMEOUT_MS)
    page.select_option("#calc-merge-mode", "sum")
    page.fill("#calc-num-layers", "2")
    page.dispatch_event("#calc-form", "change")
    expected = evaluate("LSTM", 28, 128, 2, True, True, framework="keras", merge_mode="sum")
    page.wait_for_function(
        "(n) => document.querySelector('#calc-total').dataset.value === n",
        arg=str(expected["total"]),
        timeout=TIMEOUT_MS,
    )
    assert page.locator("#calc-call").inner_text().strip() == expected["call"]
    assert v.console == [] and v.outside == [], (v.console, v.outside)


@pytest.mark.skipif(CALCULATOR is None, reason="no calculator page in derive/pages (issue 5)")
def test_calculator_other_frameworks_disable_and_refuse(visit):
    from docs_src.calculator import evaluate

    v = visit(html_path(CALCULATOR))
    page = v.page
    page.select_option("#calc-framework", "tf1")
    page.dispatch_event("#calc-form", "change")
    page.select_option("#calc-cell", "GRUCell")
    page.dispatch_event("#calc-form", "change")
    assert not page.is_enabled("#calc-bias") and not page.is_enabled("#calc-proj-size")
    page.select_option("#calc-framework", "flax.linen")
    page.dispatch_event("#calc-form", "change")
    page.select_option("#calc-cell", "ConvLSTMCell")
    page.dispatch_event("#calc-form", "change")
    with pytest.raises(ValueError) as refused:
        evaluate("ConvLSTMCell", 8, 16, 1, False, True, 0, framework="flax.linen")
    page.wait_for_function("() => document.querySelector('#calc-error').textContent.trim() !== ''", timeout=TIMEOUT_MS)
    assert page.locator("#calc-error").inner_text().strip() == str(refused.value)
    assert page.locator("#calc-total").get_attribute("data-value") == ""
    page.select_option("#calc-framework", "mingru")
    page.dispatch_event("#calc-form", "change")
    _fill(page, "minGRU", 8, 16, 2, 5, False, True)
    with pytest.raises(ValueError) as refused:
        evaluate("minGRU", 8, 16, 2, False, True, 5, framework="mingru")
    page.wait_for_function(
        "(m) => document.querySelector('#calc-error').textContent.trim() === m",
        arg=str(refused.value),
        timeout=TIMEOUT_MS,
    )
    page.select_option("#calc-framework", "torch")  # back to PyTorch: its cells again
    page.dispatch_event("#calc-form", "change")
    assert page.locator("#calc-cell option").all_inner_texts()[0].startswith("Elman")
    assert v.console == [] and v.outside == [], (v.console, v.outside)
