"""What a reader meets (issue 27), without a browser: closed forms in a config's names written with
visible products and upright names; the search index's math as plain text; ranges of numbers in
tables never broken; a page with a wide table given the width of its table of contents."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import sympy

from derive.render.latex import names_latex
from docs_src import hook, tables
from docs_src.search_text import plain_math, rewrite_index

H, L, E, V = sympy.symbols("hidden_size num_hidden_layers expand vocab_size", positive=True, integer=True)
MKDOCS_YML = Path(__file__).resolve().parents[2] / "mkdocs.yml"
D, N = sympy.symbols("D N", positive=True, integer=True)


# --- names_latex ---------------------------------------------------------------------------------


def test_names_are_upright_whole_and_multiplied_visibly():
    tex = names_latex(3 * E * H)
    assert tex == r"3 \cdot \mathrm{expand} \cdot \mathrm{hidden\_size}"
    assert "hidden_{size}" not in names_latex(H)


def test_one_letter_symbols_print_as_sympy_prints_them():
    for expr in (4 * D * (D + N + 2), D**2 / 2, sympy.ceiling(D / 16) * N, 3 * D**2 * N + D * N + 1):
        assert names_latex(expr) == sympy.latex(expr)


def test_a_long_sum_in_a_product_keeps_its_plus_signs_at_the_top_level():
    """KaTeX breaks an inline formula only after a top-level + or =: a long sum in \\left( \\right)
    is one unbreakable group, in \\bigl( \\bigr) it is not."""
    per_layer = E * H + 3 * E * H**2 + 2 * E * sympy.ceiling(H / 16) + 3 * E + 1
    tex = names_latex(L * per_layer + H * (V + 1))
    assert r"\Bigl(" in tex and r"\Bigr)" in tex  # the sum holds a fraction: the taller parentheses
    assert r"\left(\mathrm{vocab\_size} + 1\right)" in tex  # a short sum keeps \left( \right)
    assert "\x00" not in tex and "\x01" not in tex
    plain = names_latex(L * (E * H + 3 * E * V + 2 * E * N + 3 * E + 1))
    assert plain.count(r"\bigl(") == 1 and r"\left(" not in plain


def test_names_latex_refuses_text():
    with pytest.raises(TypeError, match="expr must be a SymPy expression"):
        names_latex("hidden_size * 2")  # type: ignore[arg-type]


def test_the_mamba_pages_use_names_latex():
    from docs_src.pages import mamba

    context = mamba.mamba_context()
    assert context["model"].startswith(r"\mathrm{hidden\_size} \cdot \mathrm{num\_hidden\_layers} \cdot \Bigl(")
    assert not re.search(r"\\mathrm\{[^{}]*\} \\mathrm", context["model"])  # no two names run together


# --- the search index ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, plain",
    [
        (r"reads \(2H\) features", "reads 2H features"),
        (r"\(\lceil d_{model}/16 \rceil\) ranks", "⌈ d_model/16 ⌉ ranks"),
        (r"\(\left\lceil{\frac{\mathrm{hidden\_size}}{16}}\right\rceil\)", "⌈hidden_size/16⌉"),
        (r"\(\frac{a + b}{\frac{1}{2}}\)", "(a + b)/(1/2)"),
        (r"\(0 &lt; P &lt; H\)", "0 &lt; P &lt; H"),
        (
            r"\[ \begin{aligned} i_{t} &amp;= \sigma\left(W_{ii} x_{t}\right) \\ h_{t-1} \end{aligned} \]",
            "i_t = σ(W_ii x_t) h_(t-1)",
        ),
        (r"\(\def\arraystretch{1.3}\begin{array}{c|c} a & b \\ \hline \end{array}\)", "a b"),
        (r"\(o_t = W_o\,(\sigma(r_t) \odot \mathrm{wkv}_t)\)", "o_t = W_o (σ(r_t) ⊙ wkv_t)"),
        (r"\(\texttt{time\_decay} \ge 1\)", "time_decay ≥ 1"),
        ("no math, a \\n in code", "no math, a \\n in code"),
    ],
)
def test_plain_math(text, plain):
    assert plain_math(text) == plain


def test_rewrite_index(tmp_path):
    path = tmp_path / "search_index.json"
    docs = [
        {"location": "a/", "title": r"\(H\) units", "text": r"\(4 H \left(H + I + 1\right)\)"},
        {"title": "x", "text": "y"},
    ]
    path.write_text(json.dumps({"config": {}, "docs": docs}), encoding="utf-8")
    assert rewrite_index(path) == 1
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["docs"][0] == {"location": "a/", "title": "H units", "text": "4 H (H + I + 1)"}
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(ValueError, match="not a search index"):
        rewrite_index(path)


def test_hook_rewrites_the_index_after_the_build(tmp_path):
    index = tmp_path / "search" / "search_index.json"
    index.parent.mkdir()
    index.write_text(json.dumps({"docs": [{"title": "t", "text": r"\(2H\)"}]}), encoding="utf-8")
    config = SimpleNamespace(site_dir=str(tmp_path), config_file_path=str(MKDOCS_YML))
    hook.on_post_build(config)
    assert json.loads(index.read_text(encoding="utf-8"))["docs"][0]["text"] == "2H"
    hook.on_post_build(SimpleNamespace(site_dir=str(tmp_path / "none"), config_file_path=str(MKDOCS_YML)))


# --- tables ----------------------------------------------------------------------------------------


def test_a_range_of_numbers_in_a_table_never_breaks():
    html = '<table><tr><td title="0…2">24 blocks, k = 0…23; 1,000…1,999</td><td>0…</td></tr></table>'
    out = tables.wrap_tables(html)
    assert '<span class="nobr">0…23</span>' in out and '<span class="nobr">1,000…1,999</span>' in out
    assert 'title="0…2"' in out and "<td>0…</td>" in out  # attributes and a lone ellipsis untouched


def _table(columns: int, text: str = "1") -> str:
    head = "".join(f"<th>c{k}</th>" for k in range(columns))
    row = f"<td>{text}</td>" * columns
    return f"<table><thead><tr>{head}</tr></thead><tbody><tr>{row}</tr></tbody></table>"


def test_a_page_with_a_wide_table_keeps_its_table_of_contents():
    """The contents stand in the navigation sidebar (``toc.integrate``): no table hides them."""
    narrow, wide = _table(3, "weight_ih_l0"), _table(8, "weight_ih_l0_reverse")
    config = SimpleNamespace(config_file_path=str(MKDOCS_YML))
    for meta, html in [({}, narrow), ({}, wide), ({"hide": ["navigation"]}, wide)]:
        page = SimpleNamespace(meta=dict(meta), title="T")
        out = hook.on_page_content(html, page, config, None)
        assert 'class="table-region"' in out
        assert "toc" not in (page.meta.get("hide") or [])
    features = MKDOCS_YML.read_text()
    assert "- toc.integrate" in features


def test_a_long_name_may_break_after_its_dots_and_slashes_only():
    out = tables.wrap_tables(
        "<table><tr><td><code>weight_ih_l0 model.layers.{k}.temporal_block.linear_x.weight a/b</code></td></tr></table>"
    )
    assert '<span class="nobr">weight_ih_l0</span>' in out and '<span class="nobr">a/b</span>' in out
    pieces = ("model.", "layers.", "{k}.", "temporal_block.", "linear_x.", "weight")
    long = "<wbr>".join(f'<span class="nobr">{p}</span>' for p in pieces)
    assert f'<span class="nobr long">{long}</span>' in out
