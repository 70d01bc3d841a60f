"""The LSTM page's peephole section: every class it lists, held against the real framework.

ONNX's ``LSTM`` with its input ``P`` runs in ONNX Runtime (the weights counted from the model that
runs); TF1's ``LSTMCell(use_peepholes=True)`` is built by TensorFlow in a subprocess
(``tests/support/tf_worker.py``). The page shows each class's count in closed form; substituted,
it must equal the live count, and the tensors it lists must be the live ones that peepholes add.
"""

from __future__ import annotations

import frameworks_live as live
import frameworks_live_extra as extra
import pytest
import sympy

from derive import frameworks
from derive.engine.symbols import H, I
from derive.render.latex import shape_latex
from docs_src.pages.cells import peephole_context

SIZES = [(3, 4), (7, 2)]


def _onnx_count(i: int, h: int, peepholes: bool) -> int:
    rows = [(r.name, r.shape) for r in frameworks.tensors("onnx", "LSTM", i, h, peepholes=peepholes)]
    model = live.onnx_model("LSTM", i, h, rows)
    assert live.onnx_run(model, i)[3] == h
    return live.onnx_weight_count(model)


def test_the_section_lists_every_class_with_peepholes():
    listed = {(c["framework"], c["cls"]) for c in peephole_context()["classes"]}
    expected = {
        (fw.title, spec.name)
        for fw in frameworks.FRAMEWORKS.values()
        for spec in fw.cells
        if True in spec.options.get("peepholes", ())
    }
    assert listed == expected and len(listed) >= 2


@pytest.mark.parametrize("i, h", SIZES)
def test_onnx_row_matches_onnx_runtime(i, h):
    row = next(c for c in peephole_context()["classes"] if c["cls"] == "LSTM" and c["framework"] == "ONNX")
    count = frameworks.count("onnx", "LSTM", I, H, peepholes=True)
    assert row["count"] == sympy.latex(sympy.factor(count))
    assert int(count.subs({I: i, H: h})) == _onnx_count(i, h, True)
    added = _onnx_count(i, h, True) - _onnx_count(i, h, False)
    assert row["tensors"] == [("P", shape_latex((1, 3 * H)))] and added == 3 * h


@pytest.mark.slow
@pytest.mark.parametrize("i, h", SIZES)
def test_tf1_row_matches_tensorflow(i, h):
    row = next(c for c in peephole_context()["classes"] if c["cls"] == "LSTMCell")
    count = frameworks.count("tf1", "LSTMCell", I, H, peepholes=True)
    assert row["count"] == sympy.latex(sympy.factor(count))
    with_p = extra.tf1_tensors("LSTMCell", i, h, peepholes=True)
    without = extra.tf1_tensors("LSTMCell", i, h)
    assert int(count.subs({I: i, H: h})) == sum(int(sympy.prod(s)) for _, s, _ in with_p)
    added = sorted(name for name, _, _ in with_p if name not in {n for n, _, _ in without})
    assert sorted(name for name, _ in row["tensors"]) == added and len(added) == 3


def test_the_peephole_parameters_are_three_vectors_of_h():
    context = peephole_context()
    assert [p["numel"] for p in context["parameters"]] == ["H", "H", "H"]
    assert context["added"] == "3 H"
