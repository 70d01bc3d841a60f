"""The site as a reader meets it (issue 27), in headless Chromium (``-m browser``): every section
address is a page listing its pages; the home page's first screen says where to go; the calculator's
form and answer are in the first screen; switching the framework keeps the reader's cell (or says why
not); the block form lists every tensor. Counts are held against the real frameworks, computed here."""

from __future__ import annotations

import math
from urllib.parse import urljoin

import pytest
from browser_support import TIMEOUT_MS, Visit
from sitebuild import html_path

from docs_src.pages.sections import SECTIONS
from docs_src.site import pages as registry

pytestmark = pytest.mark.browser

CALCULATOR = html_path("tools/calculator.md")
#: Every section of the navigation with pages of its own, and its address.
ADDRESSES = {name: path.removesuffix("index.md") for name, (path, _) in SECTIONS.items()} | {"Wirings": "wirings/"}


def _visible(page, selector: str) -> list[str]:
    """The text of the elements matching ``selector`` whose box lies in the first screen (no scrolling)."""
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].filter(el => {
             const r = el.getBoundingClientRect();
             return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
           }).map(el => el.textContent.trim())""",
        selector,
    )


@pytest.mark.parametrize("section", sorted(ADDRESSES))
def test_every_section_address_is_a_page_listing_its_pages(browser, server, section) -> None:
    v = Visit(browser, server)
    try:
        response = v.page.goto(server + ADDRESSES[section], wait_until="load")
        assert response is not None and response.status == 200
        assert v.page.locator(".md-content h1").first.inner_text().strip().rstrip("¶").strip() in (section, "Overview")
        links = {
            urljoin(v.page.url, a)
            for a in v.page.eval_on_selector_all(".md-content a[href]", "els => els.map(a => a.getAttribute('href'))")
        }
        own = [p for p in registry() if p.section == section and not p.path.endswith("/index.md")]
        assert own
        for p in own:
            assert server + html_path(p.path).removesuffix("index.html") in links, (section, p.path)
        assert v.outside == [] and v.console == [] and v.failed == [], (v.outside, v.console, v.failed)
    finally:
        v.close()


def test_home_first_screen_says_what_and_where(visit) -> None:
    v = visit("index.html")
    seen = " ".join(_visible(v.page, ".md-content p, .md-content td"))
    for word in ("parameters", "Mamba", "RWKV", "Keras", "Questions", "Recurrent layers", "Blocks", "Language models",
                 "Memory", "Frameworks", "Wirings", "Whole models", "Calculator", "Command line"):  # fmt: skip
        assert word in seen, word
    # the sidebar: one entry per section, Blocks, Frameworks and Tools in view, the API reference folded
    nav = _visible(v.page, ".md-sidebar--primary .md-nav__link")
    for section in ("Blocks", "Frameworks", "Tools", "API reference"):
        assert any(text.startswith(section) for text in nav), (section, nav)
    assert v.page.evaluate("document.querySelector('.md-sidebar--primary .md-nav').scrollHeight") < 900


def test_home_lists_every_cell_page(visit, server) -> None:
    v = visit("index.html")
    links = set(v.page.eval_on_selector_all("#the-cells ~ * a[href]", "els => els.map(a => a.href)"))
    cells = [p.path for p in registry() if p.section == "Cells" and not p.path.endswith("/index.md")]
    assert len(cells) >= 13
    assert {server + html_path(p).removesuffix("index.html") for p in cells} <= links


@pytest.mark.parametrize("width", [1280, 375])
def test_calculator_form_and_answer_in_the_first_screen(browser, server, width) -> None:
    v = Visit(browser, server, width=width)
    try:
        v.goto(CALCULATOR)
        form = v.page.locator("#calc-form").bounding_box()
        total = v.page.locator("#calc-total").bounding_box()
        assert form is not None and total is not None
        assert form["y"] < 400, form
        if width == 1280:
            assert total["y"] + total["height"] <= 900, total  # "Total parameters" without scrolling
    finally:
        v.close()


def _real(framework: str, cell: str, i: int, h: int, layers: int, bidirectional: bool) -> int:
    """The real framework's count of what the calculator shows (the Keras and torch objects built here)."""
    if framework == "torch":
        import torch

        cls, extra = {"RNN_TANH": ("RNN", {}), "RNN_RELU": ("RNN", {"nonlinearity": "relu"})}.get(cell, (cell, {}))
        module = getattr(torch.nn, cls)(i, h, layers, bidirectional=bidirectional, device="meta", **extra)
        return sum(p.numel() for p in module.parameters())
    if framework == "keras":
        import keras

        def layer():
            inner = getattr(keras.layers, cell)(h, return_sequences=True)
            return keras.layers.Bidirectional(inner) if bidirectional else inner

        model = keras.Sequential([keras.Input((3, i))] + [layer() for _ in range(layers)])
        return model.count_params()
    import live_registry

    return live_registry.count(framework, cell, i, h, num_layers=layers, bidirectional=bidirectional)


#: (framework and cell the reader had, framework chosen, the cell then shown, whether a notice says why)
SWITCHES = [
    ("torch", "LSTM", "flax.linen", "LSTMCell", False),
    ("torch", "LSTM", "keras", "LSTM", False),
    ("torch", "GRU", "equinox", "GRUCell", False),
    ("keras", "SimpleRNN", "torch", "RNN_TANH", False),
    ("torch", "RNN_RELU", "onnx", "RNN", True),
    ("flax.linen", "MGUCell", "torch", "RNN_TANH", True),
]


@pytest.mark.parametrize("before, cell, after, shown, notice", SWITCHES, ids=lambda x: str(x))
def test_framework_switch_keeps_the_cell_or_says_why(visit, before, cell, after, shown, notice) -> None:
    page = visit(CALCULATOR).page
    if before != "torch":
        page.select_option("#calc-framework", before)
        page.dispatch_event("#calc-form", "change")
    page.select_option("#calc-cell", cell)
    page.dispatch_event("#calc-form", "change")
    page.select_option("#calc-framework", after)
    page.dispatch_event("#calc-form", "change")
    assert page.locator("#calc-cell").input_value() == shown
    said = page.locator("#calc-notice").inner_text().strip()
    if notice:
        assert said.startswith(page.locator("#calc-framework option:checked").inner_text().strip() + " has no "), said
        assert f"the cell is now {shown}" in said, said
    else:
        assert said == ""
    expected = _real(after, shown, 32, 128, 2, True)  # the form's sizes: nn.LSTM(32, 128, 2, bidirectional=True)
    page.wait_for_function(
        "(n) => document.querySelector('#calc-total').dataset.value === n", arg=str(expected), timeout=TIMEOUT_MS
    )
    if notice:  # choosing a cell by hand clears the notice
        page.select_option("#calc-cell", shown)
        page.dispatch_event("#calc-cell", "change")
        assert page.locator("#calc-notice").inner_text().strip() == ""


def _rows(page) -> list[tuple[str, tuple[int, ...], int, int, int]]:
    """The block form's tensor table: name, shape, count, copies and the first copy's index."""
    out = []
    for first, (name, shape, count) in page.eval_on_selector_all(
        "#calc-block-tensors tr",
        "rows => rows.map(r => [Number(r.dataset.first), [...r.cells].map(c => c.textContent)])",
    ):
        each, _, copies = count.partition(" × ")
        dims = tuple(int(d) for d in shape.strip("()").split(",") if d.strip())
        out.append((name, dims, int(each.replace(",", "")), int(copies.replace(",", "") or 1), first))
    return out


@pytest.mark.parametrize(
    "block, sizes, model_type, config, prefix",
    [
        ("mamba_lm", {}, "mamba", {"vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 24}, ""),
        ("mamba", {"d_model": "768"}, "mamba", {"vocab_size": 16, "hidden_size": 768, "num_hidden_layers": 1},
         "backbone.layers.0.mixer."),
        ("rwkv_lm", {"d_model": "64", "n_layer": "3", "vocab_size": "100"}, "rwkv",
         {"vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 3}, ""),
    ],
    ids=["mamba-130m", "mamba-mixer-768", "rwkv-4"],
)  # fmt: skip
def test_block_form_gives_every_tensor(visit, block, sizes, model_type, config, prefix) -> None:
    import hf_live

    page = visit(CALCULATOR).page
    page.select_option("#calc-block", block)
    for name, value in sizes.items():
        page.fill(f"#calc-block-{name}", value)
    page.dispatch_event("#calc-block-form", "change")
    model = hf_live.build(model_type, config)
    real = {name.removeprefix(prefix): shape for name, shape in hf_live.tensors(model) if name.startswith(prefix)}
    total = sum(math.prod(shape) for shape in real.values())
    page.wait_for_function(
        "(n) => document.querySelector('#calc-block-total').dataset.value === n", arg=str(total), timeout=TIMEOUT_MS
    )
    shown = {}
    for name, shape, count, copies, first in _rows(page):
        assert count == math.prod(shape)
        if "{k}" in name:  # a repeated layer: its copies, from the index the row names
            shown |= {name.replace("{k}", str(k)): shape for k in range(first, first + copies)}
        else:
            assert copies == 1
            shown[name] = shape
    assert shown == real
