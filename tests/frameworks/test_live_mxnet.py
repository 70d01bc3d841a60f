"""``derive.frameworks`` "mxnet" held against MXNet 1.9.1 Gluon, in its own environment.

MXNet 1.9.1 needs numpy < 1.24, so it runs in ``.venv-mxnet`` (``scripts/bootstrap --test``) as a
subprocess, ``tests/support/mxnet_worker.py``: the fused layers ``rnn.RNN``/``LSTM``/``GRU`` and the cells
``RNNCell``/``LSTMCell``/``GRUCell`` in ``SequentialRNNCell`` and ``BidirectionalCell`` stacks, run
once; names (``collect_params()``, the block's counter prefix removed), shapes and order against
``derive.frameworks.tensors``.
"""

from __future__ import annotations

import math

import frameworks_live_extra as extra
import live_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive import frameworks

if extra.mxnet_python() is None:
    pytest.skip(".venv-mxnet is missing (scripts/bootstrap --test makes it)", allow_module_level=True)

PROPERTY = settings(max_examples=20, deadline=None)
CLASSES = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def check(cls: str, i: int, h: int, **kwargs) -> None:
    got = [(name, shape) for name, shape, _ in extra.mxnet_tensors(cls, i, h, **kwargs)]
    assert [(r.name, r.shape) for r in frameworks.tensors("mxnet", cls, i, h, **kwargs)] == got
    assert frameworks.count("mxnet", cls, i, h, **kwargs) == sum(math.prod(s) for _, s in got)
    live_record.checked("mxnet", cls)


def test_the_recorded_names() -> None:
    assert extra.mxnet_tensors("GRUCell", 3, 5) == [
        ("i2h_weight", (15, 3), True),
        ("h2h_weight", (15, 5), True),
        ("i2h_bias", (15,), True),
        ("h2h_bias", (15,), True),
    ]
    names = [n for n, _, _ in extra.mxnet_tensors("LSTM", 3, 5, num_layers=2, bidirectional=True)]
    assert names[:5] == ["l0_i2h_weight", "l0_h2h_weight", "l0_i2h_bias", "l0_h2h_bias", "r0_i2h_weight"]
    for cls in CLASSES:
        check(cls, 3, 5)


@PROPERTY
@given(
    cls=st.sampled_from(CLASSES),
    i=st.integers(1, 9),
    h=st.integers(2, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    proj=st.integers(0, 8),
)
def test_random_layers_cells_and_stacks(cls, i, h, layers, bi, proj) -> None:
    proj = proj % h if cls == "LSTM" else 0  # MXNet requires projection_size < hidden_size
    check(cls, i, h, num_layers=layers, bidirectional=bi, proj_size=proj)


@settings(max_examples=10, deadline=None)
@given(
    mode=st.sampled_from(["lstm", "gru", "rnn_relu", "rnn_tanh"]),
    written=st.sampled_from(["mx.sym.RNN", "mx.symbol.RNN"]),
    i=st.integers(1, 9),
    h=st.integers(2, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    proj=st.integers(0, 8),
)
def test_the_symbol_apis_fused_rnn(mode, written, i, h, layers, bi, proj) -> None:
    """``mx.sym.RNN``: one flat ``<name>_parameters`` variable, its length as MXNet's infer_shape gives it."""
    import derive

    proj = proj % h if mode == "lstm" else 0
    extra_args = f", projection_size={proj}" if proj else ""
    line = f"{written}(data=data, state_size={h}, num_layers={layers}, mode='{mode}', bidirectional={bi}, name='rnn'{extra_args})"
    real_line = line.replace("data=data", "data=mx.sym.Variable('data')")
    got = extra.worker_request("mxnet", extra.mxnet_python(), {"text": real_line, "input_size": i})
    report = derive.explain(line, framework="mxnet", input_dim=i)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [(n, tuple(s)) for n, s, _ in got]
    assert report.total == sum(math.prod(s) for _, s, _ in got)
    live_record.checked("mxnet", "sym.RNN")


def _installed(relative: str):
    from pathlib import Path

    root = Path(extra.mxnet_python()).parents[1]
    return next(root.glob(f"lib/python*/site-packages/mxnet/{relative}"))


def _init(tree, cls: str):
    import ast

    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls)
    init = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    args = init.args.args[1:]
    defaults = [None] * (len(args) - len(init.args.defaults)) + init.args.defaults
    return {a.arg: (None if d is None else ast.literal_eval(d)) for a, d in zip(args, defaults)}, init.args.kwarg


def test_every_keyword_the_fused_layers_take_is_taken() -> None:
    """``rnn.RNN``/``LSTM``/``GRU`` as the installed MXNet 1.9.1 writes them (rnn_layer.py, read with ast):
    every parameter of their ``__init__``, with its default, and what their ``**kwargs`` reaches —
    ``_RNNLayer``'s ``use_sequence_length`` and ``Block``'s ``prefix``/``params``; anything else refused
    as ``HybridBlock.__init__`` refuses it."""
    import ast
    import inspect

    from derive.engine.constructors import lookup
    from derive.frameworks import mxnet

    layers = ast.parse(_installed("gluon/rnn/rnn_layer.py").read_text())
    base, _ = _init(layers, "_RNNLayer")
    blocks = ast.parse(_installed("gluon/block.py").read_text())
    block, _ = _init(blocks, "Block")
    passed_on = [k for k in base if k not in _init(layers, "GRU")[0] and base[k] is not None]
    assert passed_on == ["use_sequence_length"]
    assert set(mxnet._LAYER_KEYWORDS) == {*passed_on, *block}
    for cls in ("RNN", "LSTM", "GRU"):
        theirs, kwargs = _init(layers, cls)
        assert kwargs is not None
        ours = inspect.signature(lookup("mxnet", cls).make).parameters
        assert {
            k: ours[k].default if ours[k].default is not inspect.Parameter.empty else None for k in theirs
        } == theirs
        # each keyword passed on to Block changes no tensor: MXNet's own layer, built without it
        plain = sum(math.prod(s) for _, s, _ in extra.mxnet_tensors(cls, 3, 4))
        for keyword in mxnet._LAYER_KEYWORDS:
            value = {"use_sequence_length": "True", "prefix": "'enc_'", "params": "None"}[keyword]
            assert frameworks_count_line(f"rnn.{cls}(4, input_size=3, {keyword}={value})") == plain
        with pytest.raises(Exception, match=r"HybridBlock.__init__\(\) got an unexpected keyword argument 'bogus'"):
            frameworks_count_line(f"rnn.{cls}(4, input_size=3, bogus=1)")


def frameworks_count_line(text: str) -> int:
    import derive

    return derive.explain(text, framework="mxnet").total
