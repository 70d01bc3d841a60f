"""Every number and formula the site shows, held against the real torch.nn modules.

The site's pages take their worked examples from ``docs_src.site.examples("torch")`` and the
home page's numbers from ``derive.headline()``; both are checked here against
live torch, never against a copy of the formula.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
import sympy
from torch import nn

import derive.torch as dt
import docs_src.site as site
from derive import H, I, L, P
from docs_src.pages.cells import CELL_PAGES, cell_page_context
from docs_src.pages.home import headline
from docs_src.pages.models import WHOLE_MODELS, torch_code


def torch_module(example) -> nn.Module:
    return getattr(nn, example.cls)(*example.args, **dict(example.kwargs))


def torch_layer_counts(module: nn.Module) -> list[int]:
    per_layer = Counter()
    for name, p in module.named_parameters():
        match = re.search(r"_l(\d+)", name)
        per_layer[int(match.group(1)) if match else 0] += p.numel()
    return [per_layer[k] for k in sorted(per_layer)]


def torch_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("example", site.examples("torch"), ids=lambda e: e.call)
def test_worked_example_matches_torch(example):
    module = torch_module(example)
    ours = example.build()
    assert ours.count == torch_count(module)
    shapes = ours.shapes if isinstance(ours.shapes, dict) else ours.shapes()  # a layer beside the RNNs: a method
    assert list(shapes.items()) == [(n, tuple(p.shape)) for n, p in module.named_parameters()]
    if not hasattr(ours, "layer_count"):  # nn.Linear, nn.Embedding: no layers to sum
        return
    layers = range(int(ours.num_layers))
    assert [ours.layer_count(k) for k in layers] == torch_layer_counts(module)


def test_every_example_is_rendered_and_checked(rendered_pages):
    pages = rendered_pages
    # the "Asked and answered" page shows the corpus's questions as their askers wrote them: each of its
    # numbers is held against the framework by tests/corpus/test_corpus.py
    # — and Flax linen's pages, where ``nn.`` is ``flax.linen`` (their lines are held against Flax in
    # tests/site/test_frameworks_site.py and tests/frameworks/test_live_flax_rnn.py)
    shown = "\n".join(
        text for path, text in pages.items() if path != "questions/asked.md" and not path.startswith("frameworks/flax")
    )
    for example in site.examples("torch"):
        assert example.call in shown, f"{example.call} is in EXAMPLES but on no page"
    # and every constructor call on a page is one of the checked examples — except inside a test file
    # shown verbatim (a fenced block opening with "# file: tests/..."), which runs in this suite itself
    shown = re.sub(r"```python\n# file: tests/[^\n]+\n.*?\n```", "", shown, flags=re.S)
    # — and except the whole models' code, which tests/models/test_site_models.py runs in real torch as shown
    for model in WHOLE_MODELS:
        assert torch_code(model) in shown, f"{model.key}: the torch code is on no page"
        shown = shown.replace(torch_code(model), "")
    calls = set(re.findall(r"nn\.[A-Za-z]+\([^()]*\)", shown))
    checked = {e.call for e in site.examples("torch")}
    assert calls <= checked, f"unchecked constructor calls on the site: {calls - checked}"


def test_headline_numbers_match_torch():
    h = headline()
    uni = torch_count(nn.LSTM(32, 128, 2, batch_first=True))
    bi = torch_count(nn.LSTM(32, 128, 2, batch_first=True, bidirectional=True))
    assert (h["uni"], h["bi"]) == (uni, bi) == (215040, 561152)  # seed 000, as reported with torchinfo
    assert h["twice_uni"] == 2 * uni
    assert h["extra"] == bi - 2 * uni
    assert h["uni_layers"] == torch_layer_counts(nn.LSTM(32, 128, 2))
    assert h["bi_layers"] == torch_layer_counts(nn.LSTM(32, 128, 2, bidirectional=True))
    bi_module = nn.LSTM(32, 128, 2, bidirectional=True)
    assert h["bi_layer1_input"] == bi_module.weight_ih_l1.shape[1]
    assert h["uni_layer1_input"] == nn.LSTM(32, 128, 2).weight_ih_l1.shape[1]
    assert h["one_layer"] == [torch_count(nn.LSTM(32, 128, 1)), torch_count(nn.LSTM(32, 128, 1, bidirectional=True))]
    assert h["one_layer"][1] == 2 * h["one_layer"][0]
    for stack_tensors, module in zip(h["layer1_tensors"], (nn.LSTM(32, 128, 2), bi_module)):
        expected = [(n, tuple(p.shape)) for n, p in module.named_parameters() if n.endswith("_l1")]
        assert stack_tensors == expected


@pytest.mark.parametrize("layers", range(1, 7))
@pytest.mark.parametrize("sizes", [(32, 128), (7, 3), (1, 1), (100, 17)])
def test_headline_formulas_match_torch(layers, sizes):
    i, hidden = sizes
    h = headline()
    values = {I: i, H: hidden, L: layers}
    uni = torch_count(nn.LSTM(i, hidden, layers, device="meta"))
    bi = torch_count(nn.LSTM(i, hidden, layers, bidirectional=True, device="meta"))
    assert h["uni_formula"].xreplace(values) == uni
    assert h["bi_formula"].xreplace(values) == bi
    assert h["uni_factored"].xreplace(values) == uni
    assert h["bi_factored"].xreplace(values) == bi
    assert h["extra_formula"].xreplace(values) == bi - 2 * uni


@pytest.mark.parametrize("page", CELL_PAGES, ids=lambda p: p.path)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_page_closed_forms_match_torch(page, bidirectional, bias):
    """The closed forms printed on each cell page, substituted, equal torch for L = 1..4."""
    context = cell_page_context(page)
    wiring = context["wirings"][int(bidirectional)]
    shown = wiring["total" if bias else "total_no_bias"]
    kwargs = dict(page.symbolic_kwargs)
    for layers in range(1, 5):
        for i, hidden, proj in [(5, 9, 4), (32, 128, 64), (1, 2, 1)]:
            values = {I: i, H: hidden, L: layers, P: proj}
            torch_kwargs = {"proj_size": proj} if "proj_size" in kwargs else {}
            module = getattr(nn, page.cls)(
                i, hidden, layers, bias=bias, bidirectional=bidirectional, device="meta", **torch_kwargs
            )
            stack = getattr(dt, page.cls)(I, H, L, bias=bias, bidirectional=bidirectional, **kwargs)
            assert stack.count.xreplace(values) == torch_count(module)
            assert stack.factored.xreplace(values) == torch_count(module)
            assert shown["expanded"] == sympy.latex(stack.count)
            assert shown["factored"] == sympy.latex(stack.factored)


@pytest.mark.parametrize("page", CELL_PAGES, ids=lambda p: p.path)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_cell_page_tensor_tables_match_torch(page, bidirectional):
    """The symbolic tensor tables (layer 0 and layer k >= 1) substituted equal torch's shapes."""
    from derive.engine.stack import UPPER
    from derive.render.latex import shape_latex

    kwargs = dict(page.symbolic_kwargs)
    stack = getattr(dt, page.cls)(I, H, L, bidirectional=bidirectional, **kwargs)
    context = cell_page_context(page)
    layers = context["wirings"][int(bidirectional)]["layers"]
    i, hidden, proj, num_layers = 11, 24, 7, 4
    values = {I: i, H: hidden, P: proj}
    torch_kwargs = {"proj_size": proj} if "proj_size" in kwargs else {}
    module = getattr(nn, page.cls)(i, hidden, num_layers, bidirectional=bidirectional, device="meta", **torch_kwargs)
    expected = dict((n, tuple(p.shape)) for n, p in module.named_parameters())
    for shown, layer in zip(layers, (0, UPPER)):
        tensors = stack.layer_tensors(layer)
        assert [r["shape"] for r in shown["rows"]] == [shape_latex(t.shape) for t in tensors]
        for k in [0] if layer == 0 else range(1, num_layers):
            for t, row in zip(tensors, shown["rows"]):
                name = row["name"].replace("{k}", str(k))
                assert tuple(int(sympy.sympify(d).xreplace({**values, UPPER: k})) for d in t.shape) == expected[name]
