"""The home page: why a 2-layer bidirectional LSTM has more than twice the parameters (seed 000)."""

from __future__ import annotations

import sympy

import derive.frameworks.pytorch as dt
from derive.engine.symbols import H, I, L

from ..site import Example, Page
from .sections import cell_rows

#: The home page's configurations: seed 000's two stacks, and the same with one layer.
HEADLINE = (
    Example("LSTM", (32, 128, 2)),
    Example("LSTM", (32, 128, 2), (("bidirectional", True),)),
    Example("LSTM", (32, 128, 1)),
    Example("LSTM", (32, 128, 1), (("bidirectional", True),)),
)


def headline() -> dict:
    """The numbers of the home page's question (seed 000), all computed by the derivation.

    Returns
    -------
    dict
        ``uni``, ``bi`` (counts), ``twice_uni`` (2 × uni), ``extra`` (bi − 2 × uni),
        ``extra_formula`` (bi − 2 × uni with I, H, L symbolic), per-layer counts and the
        layer-1 input widths.
    """
    uni, bi, one_uni, one_bi = (e.build() for e in HEADLINE)
    sym_uni, sym_bi = dt.LSTM(I, H, L), dt.LSTM(I, H, L, bidirectional=True)
    return {
        "uni": uni.count,
        "bi": bi.count,
        "twice_uni": 2 * uni.count,
        "extra": bi.count - 2 * uni.count,
        "extra_formula": sympy.factor(sym_bi.count - 2 * sym_uni.count),
        "uni_layers": [uni.layer_count(k) for k in range(2)],
        "bi_layers": [bi.layer_count(k) for k in range(2)],
        "uni_layer1_input": uni.layer_input_size(1),
        "bi_layer1_input": bi.layer_input_size(1),
        "uni_formula": sym_uni.count,
        "bi_formula": sym_bi.count,
        "uni_factored": sym_uni.factored,
        "bi_factored": sym_bi.factored,
        "one_layer": [one_uni.count, one_bi.count],
        "layer1_tensors": [
            [(t.name, tuple(int(d) for d in t.shape)) for t in stack.layer_tensors(1) if t.direction == 0]
            for stack in (uni, bi)
        ],
        "calls": [e.call for e in HEADLINE],
    }


def where() -> list[dict]:
    """The home page's first screen: each section and tool, with what it holds (its pages' names, from the
    page registry and derive's registries).

    Returns
    -------
    list of dict
        ``title``, ``path`` (docs-relative) and ``about``.
    """
    from .sections import section_rows

    def names(section: str) -> str:  # "fla: GLA, RetNet" -> "fla (GLA, RetNet)"
        return ", ".join(r["title"] + ")" if ": " in r["title"] else r["title"] for r in section_rows(section)).replace(
            ": ", " ("
        )

    frameworks = ["PyTorch (`torch.nn`)"] + [r["title"] for r in section_rows("Frameworks")]
    return [
        {"title": "Questions", "path": "questions/index.md", "about": "the counts people ask about, answered"},
        {
            "title": "Cells",
            "path": "cells/index.md",
            "about": f"{len(cell_rows())} cell pages: "
            + ", ".join(r["title"].split(" (")[0] for r in cell_rows()[:4])
            + ", … — equations, tensors, closed forms",
        },
        {"title": "Blocks", "path": "blocks/index.md", "about": names("Blocks")},
        {
            "title": "Frameworks",
            "path": "frameworks/index.md",
            "about": ", ".join(frameworks[:4]) + ", …"
            f" ({len(frameworks) - 1} pages): each one's classes, names and layout",
        },
        {"title": "Whole models", "path": "models/index.md", "about": "a model's code, a checkpoint, a `config.json`"},
        {
            "title": "Calculator",
            "path": "tools/calculator.md",
            "about": "type the sizes, read the count and the tensors",
        },
        {"title": "Command line", "path": "tools/cli.md", "about": "`derive` on a layer, a model file or a checkpoint"},
    ]


ORDER = 0
PAGES = [
    Page(
        "index.md", "Home", "index.md.j2", lambda: {"h": headline(), "cells": cell_rows(), "where": where()}, HEADLINE
    ),
    Page("install.md", "Install", "install.md.j2", dict),
]
