"""``derive.frameworks`` "tf1" held against TensorFlow 2.21's ``tf.compat.v1.nn.rnn_cell``.

TensorFlow runs in a subprocess (``tests/support/tf_worker.py``); the cells are built in graphs under the
documented compositions (``dynamic_rnn``, ``MultiRNNCell``, the scopes of
``stack_bidirectional_dynamic_rnn``, ``bidirectional_dynamic_rnn``) and their global variables
— names as TensorFlow prints them, shapes, order — compared with ``derive.frameworks.tensors``.
"""

from __future__ import annotations

import importlib.util
import math

import pytest

if importlib.util.find_spec("tensorflow") is None:  # never imported here: TF runs in tests/support/tf_worker.py
    pytest.skip("tensorflow is not installed", allow_module_level=True)
import frameworks_live_extra as extra
import live_record
from hypothesis import given, settings
from hypothesis import strategies as st

from derive import frameworks

PROPERTY = settings(max_examples=15, deadline=None)
CLASSES = ["BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell"]


def check(cls: str, i: int, h: int, **kwargs) -> None:
    got = [(name, shape) for name, shape, _ in extra.tf1_tensors(cls, i, h, **kwargs)]
    assert [(r.name, r.shape) for r in frameworks.tensors("tf1", cls, i, h, **kwargs)] == got
    assert frameworks.count("tf1", cls, i, h, **kwargs) == sum(math.prod(s) for _, s in got)
    live_record.checked("tf1", cls)


def test_the_recorded_names() -> None:
    assert extra.tf1_tensors("LSTMCell", 4, 5) == [
        ("rnn/lstm_cell/kernel", (9, 20), True),
        ("rnn/lstm_cell/bias", (20,), True),
    ]
    assert [n for n, _, _ in extra.tf1_tensors("GRUCell", 4, 5, num_layers=2)] == [
        f"rnn/multi_rnn_cell/cell_{k}/gru_cell/{part}/{kind}"
        for k in (0, 1)
        for part in ("gates", "candidate")
        for kind in ("kernel", "bias")
    ]
    names = [n for n, _, _ in extra.tf1_tensors("BasicRNNCell", 4, 5, bidirectional=True)]
    assert names[0] == "stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/basic_rnn_cell/kernel"
    for cls in CLASSES:
        check(cls, 4, 5)


@PROPERTY
@given(
    cls=st.sampled_from(CLASSES),
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    peepholes=st.booleans(),
    proj=st.integers(0, 6),
)
def test_random_cells_and_stacks(cls, i, h, layers, bi, peepholes, proj) -> None:
    options = {"peepholes": peepholes, "proj_size": proj} if cls == "LSTMCell" else {}
    check(cls, i, h, num_layers=layers, bidirectional=bi, **options)


def test_sharded_kernels_are_the_partitioned_variables() -> None:
    """``num_unit_shards``/``num_proj_shards``: TF's ``fixed_size_partitioner`` row blocks ``kernel/part_<k>``."""
    assert [n for n, _, _ in extra.tf1_tensors("LSTMCell", 5, 4, num_unit_shards=4)][:4] == [
        f"rnn/lstm_cell/kernel/part_{k}" for k in range(4)
    ]
    check("LSTMCell", 5, 4, num_unit_shards=20)  # more shards than rows: one part per row
    check("LSTMCell", 5, 7, num_unit_shards=1)  # one part, still a partitioned variable


@PROPERTY
@given(
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 2),
    bi=st.booleans(),
    peepholes=st.booleans(),
    proj=st.integers(0, 6),
    unit_shards=st.integers(1, 7),
    proj_shards=st.integers(1, 7),
)
def test_random_sharded_lstm_cells(i, h, layers, bi, peepholes, proj, unit_shards, proj_shards) -> None:
    options = {"peepholes": peepholes, "proj_size": proj, "num_unit_shards": unit_shards}
    if proj:
        options["num_proj_shards"] = proj_shards
    check("LSTMCell", i, h, num_layers=layers, bidirectional=bi, **options)


def test_shards_are_refused_where_tf1_has_none() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_unit_shards'"):
        frameworks.tensors("tf1", "GRUCell", 3, 4, num_unit_shards=2)
    with pytest.raises(ValueError, match="num_unit_shards must be greater than zero"):
        frameworks.tensors("tf1", "LSTMCell", 3, 4, num_unit_shards=0)
    from derive import H

    with pytest.raises(ValueError, match="num_unit_shards needs int sizes"):
        frameworks.tensors("tf1", "LSTMCell", 3, H, num_unit_shards=2)
    assert frameworks.count("tf1", "LSTMCell", 3, H, num_unit_shards=2) == frameworks.count("tf1", "LSTMCell", 3, H)


@settings(max_examples=8, deadline=None)
@given(
    layers=st.lists(st.tuples(st.sampled_from(CLASSES), st.integers(1, 8)), min_size=2, max_size=4),
    i=st.integers(1, 8),
)
def test_multi_rnn_cell_of_mixed_sizes_and_classes(layers, i) -> None:
    """A ``MultiRNNCell`` of mixed cells: each cell k as ``frameworks.tensors`` gives it for the
    width of the cell below, under the scope ``rnn/multi_rnn_cell/cell_<k>/``."""
    got = extra.tf_request({"kind": "tf1", "cells": [[c, h, {}] for c, h in layers], "input_size": i})
    expected, width = [], i
    for k, (cls, h) in enumerate(layers):
        for row in frameworks.tensors("tf1", cls, width, h):
            expected.append([row.name.replace("rnn/", f"rnn/multi_rnn_cell/cell_{k}/", 1), list(row.shape)])
        width = h
    assert got == expected


def test_bidirectional_dynamic_rnn_over_two_stacks_is_twice_one_stack() -> None:
    """``bidirectional_dynamic_rnn`` over two ``MultiRNNCell``: two independent stacks (the simple
    concat wiring), scopes ``bidirectional_rnn/fw/`` and ``bidirectional_rnn/bw/``."""
    cells = [["LSTMCell", 5, {}], ["LSTMCell", 5, {}]]
    got = extra.tf_request({"kind": "tf1", "cells": cells, "input_size": 3, "bidirectional": True, "wiring": "simple"})
    one = frameworks.tensors("tf1", "LSTMCell", 3, 5, num_layers=2)
    expected = [
        [r.name.replace("rnn/", f"bidirectional_rnn/{d}/", 1), list(r.shape)] for d in ("fw", "bw") for r in one
    ]
    assert got == expected
