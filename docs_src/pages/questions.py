"""The four questions the project started from (``seeds/000``-``003``), each answered by the derivation.

Every number on these pages comes from :mod:`derive.torch`, :mod:`derive.keras`, a
:class:`~derive.engine.stack.Stack` with another wiring, or :func:`derive.analysis.difference.compare`;
``tests/site/test_questions.py`` holds each against torch (and Keras 3).
"""

from __future__ import annotations

from pathlib import Path

import sympy

import derive.frameworks.keras as dk
import derive.frameworks.pytorch as dt
from derive.analysis.difference import compare
from derive.engine.symbols import H, I, L, P
from derive.engine.wirings import DEEP_BIDIRECTIONAL, SIMPLE_CONCAT, UNIDIRECTIONAL, keras_bidirectional, modified_brnn
from derive.render.latex import shape_latex

from ..site import Example, Page
from . import keras as keras_page
from .wirings import build, change_rows

__all__ = ["seed_000", "seed_001", "seed_002", "seed_003", "QUESTION_PAGES", "DECOMPOSITION_TEST", "h0_layout"]

#: The running answer to seed 002, shown verbatim on its page (read at build time).
DECOMPOSITION_TEST = Path(__file__).resolve().parents[2] / "tests" / "engine" / "test_decomposition.py"
#: The helpers it imports (shared with other tests): the stack split into single-layer modules, run by hand.
DECOMPOSITION_HELPERS = Path(__file__).resolve().parents[2] / "tests" / "support" / "torch_split.py"

# ----------------------------------------------------------------------------- seed 000

SEED_000 = (
    Example("LSTM", (32, 128, 2), (("batch_first", True), ("bidirectional", True))),
    Example("LSTM", (32, 128, 2), (("batch_first", True), ("bidirectional", False))),
    Example("LSTM", (32, 128, 1)),
    Example("LSTM", (32, 128, 2)),
    Example("LSTM", (32, 128, 3)),
    Example("LSTM", (20, 50, 3), (("bias", False),)),
    Example("LSTM", (20, 50, 3), (("bias", False), ("bidirectional", True))),
)

#: Classes of the modified BRNN shown for seed 000's sizes (any K gives a different count).
SEED_000_CLASSES = 10


def _cells_difference() -> list[dict]:
    """Deep bidirectional minus simple concat, for every cell: D·G·H·H_out·(L - 1)."""
    rows = []
    for title, mode, proj in (
        ("Elman RNN", "RNN_TANH", 0),
        ("GRU", "GRU", 0),
        ("LSTM", "LSTM", 0),
        ("LSTM with projection", "LSTM", P),
    ):
        d = compare(build(DEEP_BIDIRECTIONAL, mode, proj_size=proj), build(SIMPLE_CONCAT, mode, proj_size=proj))
        rows.append({"cell": title, "mode": mode, "proj_size": proj, "total": d.total})
    return rows


def seed_000() -> dict:
    """Seed 000: 561,152 vs 2 x 215,040 — the deep bidirectional wiring's wider inputs, not the modified BRNN.

    Returns
    -------
    dict
        ``bi``, ``uni``, ``twice``, ``extra`` (ints); ``numeric`` (compare of the two stacks for the
        seed's sizes, with simple concat), ``symbolic`` (the same with I, H, L), per-cell totals,
        the layers-only series (1, 2, 3 layers), the shape listings of the seed's third snippet and
        the modified BRNN for the same sizes.
    """
    bi, uni = SEED_000[0].build(), SEED_000[1].build()
    concat = build(SIMPLE_CONCAT, "LSTM", 32, 128, 2)
    numeric = compare(bi, concat)
    symbolic = compare(dt.LSTM(I, H, L, bidirectional=True), build(SIMPLE_CONCAT))
    layers = [e.build() for e in SEED_000[2:5]]
    k = SEED_000_CLASSES
    modified = build(modified_brnn(k), "LSTM", 32, 128, 2)
    modified_one = build(modified_brnn(k), "LSTM", 32, 128, 1)
    bi_one = dt.LSTM(32, 128, 1, bidirectional=True)
    uni_one = dt.LSTM(32, 128, 1)
    modified_vs_bi = compare(modified, bi)
    sym_modified = build(modified_brnn())
    return {
        "calls": [e.call for e in SEED_000],
        "bi": int(bi.count),
        "uni": int(uni.count),
        "twice": 2 * int(uni.count),
        "extra": int(bi.count) - 2 * int(uni.count),
        "concat": int(concat.count),
        "numeric": {"total": int(numeric.total), "changes": change_rows(numeric)},
        "symbolic": {"total": symbolic.total, "changes": change_rows(symbolic)},
        "cells": _cells_difference(),
        "layer_series": [
            {"call": e.call, "count": int(s.count), "layers": [int(s.layer_count(j)) for j in range(int(s.num_layers))]}
            for e, s in zip(SEED_000[2:5], layers)
        ],
        "layer_inputs": [int(layers[2].layer_input_size(j)) for j in range(3)],
        "shapes": [list(e.build().shapes.items()) for e in SEED_000[5:7]],
        "shape_calls": [e.call for e in SEED_000[5:7]],
        "modified": {
            "classes": k,
            "count": int(modified.count),
            "minus_twice_uni": int(modified.count) - 2 * int(uni.count),
            "minus_bi": int(modified_vs_bi.total),
            "changes": change_rows(modified_vs_bi),
            "one_layer": int(modified_one.count),
            "bi_one": int(bi_one.count),
            "uni_one": int(uni_one.count),
            "formula_minus_twice": sympy.factor(sym_modified.count - 2 * build(UNIDIRECTIONAL).count),
            "formula_bi_minus_twice": sympy.factor(
                dt.LSTM(I, H, L, bidirectional=True).count - 2 * dt.LSTM(I, H, L).count
            ),
        },
    }


# ----------------------------------------------------------------------------- seed 001

#: Seed 001's Keras calls (the Keras page's own examples) and their PyTorch counterparts.
SEED_001 = (keras_page.UNI, keras_page.BI) + tuple(torch for _, torch in keras_page.TORCH_PAIRS[:2])


def seed_001() -> dict:
    """Seed 001: Keras ``LSTM(256)`` vs ``Bidirectional(LSTM(128))`` on 28 features.

    The numbers come from :func:`derive.pages.keras.seed_001` (the Keras adapter); the attribution
    is :func:`~derive.analysis.difference.compare` of the same two layers as stacks in Keras' convention.
    """
    seed = keras_page.seed_001()
    features = keras_page.SEQ[-1]

    def stacks(i, h):
        return (
            build(UNIDIRECTIONAL, "LSTM", i, 2 * h, 1, convention=dk.KERAS),
            build(keras_bidirectional("concat"), "LSTM", i, h, 1, convention=dk.KERAS),
        )

    numeric, symbolic = compare(*stacks(features, 128)), compare(*stacks(I, H))
    both_256 = dk.Bidirectional(dk.LSTM(256), input_dim=features).count
    return {
        "seed": seed,
        "keras_calls": [e.call for e in SEED_001[:2]],
        "torch_calls": [e.call for e in SEED_001[2:]],
        "torch_counts": [int(e.build().count) for e in SEED_001[2:]],
        "engine": [int(s.count) for s in stacks(features, 128)],
        "numeric": {"total": int(numeric.total), "changes": change_rows(numeric)},
        "symbolic": {"total": symbolic.total, "changes": change_rows(symbolic)},
        "same_units": int(both_256),
        "output_widths": [
            int(dk.LSTM(256).output_dim(features)),
            int(dk.Bidirectional(dk.LSTM(128)).output_dim(features)),
        ],
    }


# ----------------------------------------------------------------------------- seed 002

SEED_002 = (
    Example("RNN", (25, 50, 4), (("batch_first", True), ("bidirectional", True))),
    Example("RNN", (25, 50, 1), (("batch_first", True), ("bidirectional", False))),
    Example("RNN", (100, 50, 1), (("batch_first", True), ("bidirectional", False))),
)


def h0_layout(stack) -> list[dict]:
    """Rows of ``h_0``: index -> (layer, direction), in the order torch reads them (layer-major).

    The index of layer ``l``, direction ``d`` is ``l * D + d``: enumerating layers, then the
    wiring's directions, gives exactly that order.
    """
    rows = []
    for layer in range(int(stack.num_layers)):
        for d, name in enumerate(stack.wiring.directions):
            rows.append(
                {
                    "index": len(rows),
                    "layer": layer,
                    "direction": name,
                    "formula": f"{layer} \\cdot {stack.wiring.num_directions} + {d}",
                }
            )
    return rows


def seed_002() -> dict:
    """Seed 002: what layer 2 of ``nn.RNN(25, 50, 4, bidirectional=True)`` reads, and ``h_0``'s layout."""
    stack = SEED_002[0].build()
    layer1 = [t for t in stack.layer_tensors(1) if t.name.startswith("weight_ih")]
    return {
        "calls": [e.call for e in SEED_002],
        "input_widths": [[int(stack.layer_input_size(j, d)) for d in range(2)] for j in range(int(stack.num_layers))],
        "layer1_ih": [(t.name, tuple(int(d) for d in t.shape)) for t in layer1],
        "h0": h0_layout(stack),
        "h0_shape": f"({int(stack.num_layers) * stack.wiring.num_directions}, N, {int(stack.output_size)})",
        "test_source": DECOMPOSITION_TEST.read_text(encoding="utf-8"),
        "test_path": "tests/engine/test_decomposition.py",
        "helpers_source": DECOMPOSITION_HELPERS.read_text(encoding="utf-8"),
        "helpers_path": "tests/support/torch_split.py",
        "symbolic_width": dt.RNN(I, H, L, bidirectional=True).layer_input_size(1),
    }


# ----------------------------------------------------------------------------- seed 003

SEED_003 = (
    Example("LSTM", (512, 256, 2), (("bidirectional", True),)),
    Example("LSTM", (512, 128, 2), (("bidirectional", True),)),
)


def _per_cell(stack) -> list[dict]:
    """Per layer and direction (one "cell" in the question's sense): tensors and count."""
    rows = []
    for layer in range(int(stack.num_layers)):
        by_direction: dict = {}
        for t in stack.layer_tensors(layer):
            by_direction.setdefault(t.direction, []).append(t)
        for d, tensors in by_direction.items():
            rows.append(
                {
                    "layer": layer,
                    "direction": stack.wiring.directions[d],
                    "input": int(stack.layer_input_size(layer, d)),
                    "tensors": [(t.name, tuple(int(x) for x in t.shape), int(t.numel)) for t in tensors],
                    "count": sum(int(t.numel) for t in tensors),
                }
            )
    return rows


def seed_003() -> dict:
    """Seed 003: a 2-layer bidirectional LSTM on 512-d embeddings with 256 units, per layer/direction/cell."""
    readings = []
    for example in SEED_003:
        stack = example.build()
        readings.append(
            {
                "call": example.call,
                "hidden": int(stack.hidden_size),
                "cells": _per_cell(stack),
                "layers": [int(stack.layer_count(j)) for j in range(int(stack.num_layers))],
                "count": int(stack.count),
                "output_width": int(stack.wiring.top_size(stack.output_size)),
            }
        )
    cell = dt.LSTM(I, H, 1).cell(0)
    return {
        "readings": readings,
        "cell_count": sympy.factor(cell.count),
        "cell_parameters": [
            {"symbol": p.symbol.name, "shape": shape_latex(p.shape), "dims": p.shape} for p in cell.parameters
        ],
        "layer_formula": sympy.factor(dt.LSTM(I, H, 1, bidirectional=True).count),
        "upper_formula": sympy.factor(dt.LSTM(I, H, 2, bidirectional=True).layer_count(1)),
        "total_formula": sympy.factor(dt.LSTM(I, H, 2, bidirectional=True).count),
    }


QUESTION_PAGES = (
    Page(
        "questions/bidirectional-more-than-twice.md",
        "Bidirectional LSTM: more than 2 × unidirectional?",
        "question-000.md.j2",
        lambda: {"q": seed_000()},
        SEED_000,
        "Questions",
    ),
    Page(
        "questions/keras-bidirectional-half.md",
        "Keras: why has Bidirectional(LSTM(128)) half of LSTM(256)?",
        "question-001.md.j2",
        lambda: {"q": seed_001()},
        SEED_001,
        "Questions",
    ),
    Page(
        "questions/what-layer-2-sees.md",
        "What does layer 2 of a bidirectional RNN read?",
        "question-002.md.j2",
        lambda: {"q": seed_002()},
        SEED_002,
        "Questions",
    ),
    Page(
        "questions/lstm-units-per-layer.md",
        "LSTM units, cells and layers: who counts what?",
        "question-003.md.j2",
        lambda: {"q": seed_003()},
        SEED_003,
        "Questions",
    ),
)

ORDER = 5
PAGES = list(QUESTION_PAGES)
