"""The home page: why a 2-layer bidirectional LSTM has more than twice the parameters (seed 000)."""

from __future__ import annotations

from pathlib import Path

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
    page registry and derive's registries). Each row links to the pages that answer what it says.

    Returns
    -------
    list of dict
        ``title``, ``path`` (docs-relative) and ``about``.
    """
    from .sections import section_rows

    def names(section: str, first: int = 4) -> str:  # "fla: GLA, RetNet" -> "fla (GLA, RetNet)"
        rows = section_rows(section)
        titles = [r["title"].split(" (")[0].split(":")[0] for r in rows]
        return ", ".join(titles[:first]) + (", …" if len(titles) > first else "")

    frameworks = [r["title"] for r in section_rows("Frameworks")]
    return [
        {
            "title": "Recurrent layers",
            "path": "cells/index.md",
            "about": f"{len(cell_rows())} cells ("
            + ", ".join(r["title"].split(" (")[0] for r in cell_rows()[:4])
            + ", …): equations, tensors, closed forms, every framework's class",
        },
        {"title": "Blocks", "path": "blocks/index.md", "about": names("Blocks", 5) + ": one layer's tensors"},
        {
            "title": "Language models",
            "path": "language-models/index.md",
            "about": names("Language models", 3) + " from their `config.json`: total and active parameters, "
            "KV cache per token, state per sequence",
        },
        {
            "title": "Memory",
            "path": "language-models/memory.md",
            "about": "the KV cache and state of one sequence against context length, and the weights",
        },
        {
            "title": "Frameworks",
            "path": "frameworks/index.md",
            "about": ", ".join(frameworks[:4]) + f", … ({len(frameworks)} pages): each one's classes, names and "
            "layout (PyTorch's `torch.nn` classes are on every cell's page)",
        },
        {"title": "Wirings", "path": "wirings/index.md", "about": "how bidirectional and stacked layers connect"},
        {
            "title": "Whole models",
            "path": "models/index.md",
            "about": "a model's code, a checkpoint (`.pt`, `.safetensors`, `.keras`), an error message",
        },
        {"title": "Questions", "path": "questions/index.md", "about": "the counts people ask about, answered"},
        {"title": "Calculator", "path": "tools/calculator.md", "about": "type the sizes, read the count and tensors"},
        {
            "title": "Command line",
            "path": "tools/cli.md",
            "about": "`derive` on a layer, a model file, a checkpoint or a `config.json`",
        },
    ]


#: How the install page names each of ``pyproject.toml``'s dependencies.
DISPLAY = {"sympy": "SymPy", "jinja2": "Jinja2", "numpy": "NumPy", "rich": "Rich", "safetensors": "safetensors"}


def dependencies() -> list[str]:
    """The package's dependencies, as ``pyproject.toml`` lists them, in the install page's words.

    Returns
    -------
    list of str

    Raises
    ------
    KeyError
        A dependency the install page has no name for (:data:`DISPLAY`): name it there.
    """
    import re
    import tomllib

    listed = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    return [DISPLAY[re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].lower()] for d in listed["dependencies"]]


ORDER = 0
PAGES = [
    Page(
        "index.md", "Home", "index.md.j2", lambda: {"h": headline(), "cells": cell_rows(), "where": where()}, HEADLINE
    ),
    Page("install.md", "Install", "install.md.j2", lambda: {"dependencies": dependencies()}),
]
