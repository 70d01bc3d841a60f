"""Nothing iterates layers: counts, comparisons, cost and listings at num_layers = 10**9 (issue 13, item 8).

Correctness is held against torch at depths it can build on the meta device (12 layers, beyond
the listing's :data:`~derive.render.display.LISTED_LAYERS`); speed at 10**9 layers, where any
per-layer loop would take minutes.
"""

from __future__ import annotations

import time

import pytest
import sympy
from torch import nn

import derive.torch as dt
from derive import PYTORCH, SIMPLE_CONCAT, UNIDIRECTIONAL, L, Stack, compare
from derive.analysis.cost import cost
from derive.cli import describe
from derive.render.display import LISTED_LAYERS, html_repr, tensor_rows

BIG = 10**9


def torch_params(cls: str, *args, **kwargs) -> list[tuple[str, tuple, int]]:
    module = getattr(nn, cls)(*args, device="meta", **kwargs)
    return [(n, tuple(p.shape), p.numel()) for n, p in module.named_parameters()]


def layer_of(name: str) -> int:
    return int(name.split("_l")[1].split("_")[0])


@pytest.mark.parametrize("cls,kwargs", [("LSTM", {"bidirectional": True}), ("GRU", {}), ("LSTM", {"proj_size": 5})])
def test_elided_listing_matches_torch(cls, kwargs):
    layers = LISTED_LAYERS + 4
    expected = torch_params(cls, 7, 9, layers, **kwargs)
    info = describe(f"nn.{cls}(7, 9, {layers}, " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")")
    listed = [row for row in info["tensors"] if row[1] is not None]
    [between] = [row for row in info["tensors"] if row[1] is None]
    kept = [row for row in expected if layer_of(row[0]) in (0, 1, layers - 1)]
    assert listed == kept
    assert between[2] == sum(row[2] for row in expected if 2 <= layer_of(row[0]) <= layers - 2)
    assert info["count"] == sum(row[2] for row in expected)
    summed = info["layer_sum"]
    assert summed["layer0"] + (layers - 1) * summed["each_upper_layer"] == info["count"]
    assert info["layers"] == []


def test_short_stacks_are_listed_whole():
    info = describe(f"nn.LSTM(7, 9, {LISTED_LAYERS}, bidirectional=True)")
    assert [(n, s, c) for n, s, c in info["tensors"]] == torch_params("LSTM", 7, 9, LISTED_LAYERS, bidirectional=True)
    assert info["layer_sum"] is None and sum(info["layers"]) == info["count"]


def test_compare_of_deep_stacks_matches_torch():
    layers = LISTED_LAYERS + 4
    bi = dt.LSTM(7, 9, layers, bidirectional=True)
    uni = Stack("LSTM", 7, 9, layers, True, 0, PYTORCH, UNIDIRECTIONAL)
    d = compare(bi, uni)
    torch_bi = sum(c for _, _, c in torch_params("LSTM", 7, 9, layers, bidirectional=True))
    torch_uni = sum(c for _, _, c in torch_params("LSTM", 7, 9, layers))
    assert d.total == torch_bi - torch_uni
    assert sum((c.each * c.times for c in d.changes), sympy.Integer(0)) == torch_bi - torch_uni


def within(seconds: float, function) -> object:
    """``function()`` (after a warm-up call) in less than ``seconds``: a bound far above the few
    milliseconds these take (benchmarks/bench_scale.py), far below what a loop over 10**9 layers
    would, and safe on a loaded machine."""
    function()  # the structure's closed form is derived once per process
    start = time.perf_counter()
    result = function()
    elapsed = time.perf_counter() - start
    assert elapsed < seconds, f"took {elapsed:.3f} s"
    return result


def test_a_billion_layers_take_no_longer_than_two():
    bi = dt.LSTM(32, 128, BIG, bidirectional=True)
    concat = Stack("LSTM", 32, 128, BIG, True, 0, PYTORCH, SIMPLE_CONCAT)
    expected = dt.LSTM(32, 128, L, bidirectional=True).count.xreplace({L: BIG})
    assert within(0.25, lambda: bi.count) == expected
    assert within(0.25, lambda: bi.layer_count(BIG - 1)) == bi.layer_count(1)
    d = within(0.25, lambda: compare(bi, concat))
    assert d.total == 8 * 128**2 * (BIG - 1)  # the extra H input columns of layers >= 1, both directions
    c = within(0.25, lambda: cost(bi, 100, 32))
    assert c.macs == 100 * 32 * (
        cost(dt.LSTM(32, 128, 1, bidirectional=True), 1, 1).macs + (BIG - 1) * 2 * 4 * 128 * (256 + 128)
    )
    info = within(0.25, lambda: describe(f"nn.LSTM(32, 128, {BIG}, bidirectional=True)"))
    assert len(info["tensors"]) == 3 * 8 + 1 and info["count"] == expected
    html = within(0.25, lambda: html_repr(bi))
    assert "layers 2 to 999,999,998" in html or "layers 2 to 999999998" in html
    rows, note = tensor_rows(bi)
    assert len(rows) == 25 and "left out" in note
