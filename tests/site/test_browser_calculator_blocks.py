"""The calculator's blocks form in a real browser (headless Chromium, ``-m browser``): the block's
fields enabled, its flags at their defaults, and the total the Python library gives (itself held
against mamba_ssm and transformers in ``tests/site/test_calculator_blocks.py``)."""

from __future__ import annotations

import pytest
from browser_support import TIMEOUT_MS
from sitebuild import html_path

from docs_src.calculator.blocks import BLOCKS, FIELDS, evaluate_block

pytestmark = pytest.mark.browser

PAGE = html_path("tools/calculator.md")

CASES = [
    ("mamba", {"d_model": 18, "d_state": 16, "d_conv": 4, "expand": 2}, {}),
    ("mamba", {"d_model": 25, "d_state": 8, "d_conv": 3, "expand": 1.5}, {"bias": True, "conv_bias": False}),
    ("mamba2", {"d_model": 256, "d_state": 128, "d_conv": 4, "expand": 2, "headdim": 64, "ngroups": 1}, {}),
    ("mamba2", {"d_model": 96, "d_state": 16, "d_conv": 4, "expand": 2, "headdim": 48, "ngroups": 2},
     {"rmsnorm": False, "D_has_hdim": True}),
    ("mamba_lm", {"vocab_size": 50280, "d_model": 2560, "d_state": 16, "d_conv": 4, "expand": 2, "n_layer": 64}, {}),
    ("rwkv_lm", {"vocab_size": 50277, "d_model": 768, "n_layer": 12}, {"tie_word_embeddings": True}),
]  # fmt: skip


def _wait_total(page, expected: str) -> None:
    page.wait_for_function(
        "(n) => document.querySelector('#calc-block-total').dataset.value === n", arg=expected, timeout=TIMEOUT_MS
    )


@pytest.mark.parametrize("block,values,flags", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_calculator_blocks_answer_as_the_library(visit, block, values, flags) -> None:
    v = visit(PAGE)
    page = v.page
    page.select_option("#calc-block", block)
    page.dispatch_event("#calc-block-form", "change")
    used = {name for name, _ in BLOCKS[block].sizes}
    for name in FIELDS:
        assert page.is_enabled(f"#calc-block-{name}") == (name in used), name
    for name, _, default in BLOCKS[block].flags:
        assert page.is_checked(f"#calc-block-{name}") == default, name  # the block's defaults
    for name, value in values.items():
        page.fill(f"#calc-block-{name}", str(value))
    for name, value in flags.items():
        page.set_checked(f"#calc-block-{name}", value)
    page.dispatch_event("#calc-block-form", "change")
    expected = evaluate_block(block, values, flags)
    _wait_total(page, str(expected["total"]))
    total = page.locator("#calc-block-total").inner_text()
    assert total.replace(",", "").strip() == str(expected["total"])
    assert page.locator("#calc-block-call").inner_text().strip() == expected["call"]
    assert page.locator("#calc-block-error").inner_text().strip() == ""
    assert v.outside == [] and v.console == [] and v.failed == [], (v.outside, v.console, v.failed)


def test_calculator_blocks_start_at_mamba_130m_and_refuse_in_the_library_words(visit) -> None:
    page = visit(PAGE).page
    _wait_total(page, "129135360")
    page.select_option("#calc-block", "mamba2")
    page.fill("#calc-block-headdim", "100")
    page.dispatch_event("#calc-block-form", "change")
    page.wait_for_function(
        "() => document.querySelector('#calc-block-error').textContent.trim() !== ''", timeout=TIMEOUT_MS
    )
    assert page.locator("#calc-block-error").inner_text().strip() == (
        "d_ssm (1536) must be a multiple of headdim (100): mamba_ssm asserts it"
    )
    assert page.locator("#calc-block-total").get_attribute("data-value") == ""


def test_calculator_block_fields_look_like_fields(visit) -> None:
    """Every field of the blocks' form has a visible box, enabled or not."""
    page = visit(PAGE).page
    for name in FIELDS:
        style = page.evaluate(
            """(id) => { const s = getComputedStyle(document.getElementById(id));
                         return [s.borderTopStyle, s.borderTopWidth, s.borderTopColor, s.backgroundColor]; }""",
            f"calc-block-{name}",
        )
        border_style, width, color, background = style
        assert border_style == "solid" and float(width.removesuffix("px")) >= 1, (name, style)
        assert color != background, (name, style)
