"""TF1 model code as its users write it (issue 26), held against TensorFlow 2.21's ``tf.compat.v1``.

Each case is code over several lines — cells made in functions, stacked in ``MultiRNNCell``,
wrapped, applied by ``dynamic_rnn`` and the others — read by ``derive`` on the command line and run
as it stands in TensorFlow (``tests/support/tf_worker.py``, kind ``tf1_program``: ``tf`` is
``tensorflow.compat.v1``, ``rnn`` TF 1's ``tensorflow.contrib.rnn``, ``x``/``inputs`` a placeholder):
the variables' names, shapes and order must be TensorFlow's. What TensorFlow refuses, derive refuses
in the same words. One cell object used twice shares its variables in TensorFlow — counted once.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import pytest

if importlib.util.find_spec("tensorflow") is None:  # never imported here: TF runs in tests/support/tf_worker.py
    pytest.skip("tensorflow is not installed", allow_module_level=True)
import sympy
from frameworks_live_extra import tf_request

from derive.cli import main

_ASKER = """
def lstm_cell():
    cell = tf.nn.rnn_cell.LSTMCell(num_units=state_size, state_is_tuple=True)
    cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=dropKeepRate)
    return cell
cell = tf.nn.rnn_cell.MultiRNNCell([lstm_cell() for _ in range(num_layers)], state_is_tuple=True)
"""

_PTB = """
hidden_size = 200
num_layers = 2
keep_prob = 0.5


def lstm_cell():
    return tf.contrib.rnn.BasicLSTMCell(hidden_size, forget_bias=0.0, state_is_tuple=True,
                                        reuse=tf.get_variable_scope().reuse)


def attn_cell():
    return tf.contrib.rnn.DropoutWrapper(lstm_cell(), output_keep_prob=keep_prob)


cell = tf.contrib.rnn.MultiRNNCell([attn_cell() for _ in range(num_layers)], state_is_tuple=True)
initial_state = cell.zero_state(2, tf.float32)
outputs, state = tf.nn.dynamic_rnn(cell, inputs, initial_state=initial_state)
"""

#: (id, code derive reads, input width, the code TensorFlow runs where it differs: imports left out).
CASES = [
    (  # ptb_word_lm.py of TF 1's models, as it was (tf.contrib.rnn is TF 1's; rnn here)
        "ptb-helpers",
        "import tensorflow as tf\n" + _PTB + 'if __name__ == "__main__":\n    print(outputs)\n',
        200,
        _PTB.replace("tf.contrib.rnn.", "rnn."),
    ),
    ("asker-two-layers", "state_size = 70\ndropKeepRate = 0.5\nnum_layers = 2\n" + _ASKER, 27, None),
    (
        "one-object-twice",
        "lstm_cell = rnn_cell.BasicLSTMCell(200, forget_bias=0.0)\ncell = rnn_cell.MultiRNNCell([lstm_cell] * 2)",
        200,
        None,
    ),
    (
        "bidirectional-stack-and-projection",
        "cells = [tf.nn.rnn_cell.GRUCell(n) for n in (8, 4)]\nfw = tf.nn.rnn_cell.MultiRNNCell(cells)\n"
        "bw = rnn.LSTMCell(6, num_proj=3)\n(a, b), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32)",
        5,
        None,
    ),
    (
        "bidirectional-one-object",
        "c = rnn_cell.LSTMCell(8)\noutputs, states = tf.nn.bidirectional_dynamic_rnn(c, c, x, dtype=tf.float32)",
        5,
        None,
    ),
    (
        "nested-stack-shared-backward",
        "inner = rnn_cell.MultiRNNCell([rnn_cell.LSTMCell(4, num_proj=2), rnn_cell.GRUCell(3)])\n"
        "outer = tf.nn.bidirectional_dynamic_rnn(rnn_cell.MultiRNNCell([inner, rnn_cell.BasicLSTMCell(2)]), inner, x, "
        "dtype=tf.float32)",
        5,
        None,
    ),
    (
        "two-scopes-one-cell",
        "c = rnn_cell.LSTMCell(8)\na = tf.nn.dynamic_rnn(c, x, dtype=tf.float32, scope='one')\n"
        "b = tf.nn.dynamic_rnn(c, x, dtype=tf.float32, scope='two')",
        5,
        None,
    ),
    (
        "two-scopes-two-cells",
        "a = tf.nn.dynamic_rnn(rnn_cell.GRUCell(8), x, dtype=tf.float32, scope='enc')\n"
        "b = tf.nn.dynamic_rnn(rnn_cell.LSTMCell(3), x, dtype=tf.float32, scope='dec')",
        5,
        None,
    ),
    (
        "residual-object-twice",
        "c = rnn_cell.ResidualWrapper(rnn_cell.LSTMCell(5))\ncell = rnn_cell.MultiRNNCell([c, c])",
        5,
        None,
    ),
    (
        "wrappers-of-one-cell",
        "c = rnn_cell.LSTMCell(5)\ncell = rnn_cell.MultiRNNCell([rnn_cell.ResidualWrapper(c), rnn_cell.DropoutWrapper(c), "
        "rnn_cell.DeviceWrapper(c, '/cpu:0')])",
        5,
        None,
    ),
    (
        "static-rnn-of-a-helper",
        "def make():\n    return rnn_cell.DropoutWrapper(rnn_cell.GRUCell(7), output_keep_prob=0.5)\n"
        "outputs, state = tf.nn.static_rnn(rnn_cell.MultiRNNCell([make() for _ in range(3)]), inputs, dtype=tf.float32)",
        12,
        None,
    ),
    (
        "imports-and-a-loop",
        "import tensorflow.compat.v1 as tf\nfrom tensorflow.contrib import rnn\nlayers = []\nfor size in (16, 8):\n"
        "    layers.append(rnn.BasicLSTMCell(size, forget_bias=1.0))\n"
        "outputs, _ = tf.nn.dynamic_rnn(rnn.MultiRNNCell(layers), x, dtype=tf.float32)",
        10,
        "layers = []\nfor size in (16, 8):\n    layers.append(rnn.BasicLSTMCell(size, forget_bias=1.0))\n"
        "outputs, _ = tf.nn.dynamic_rnn(rnn.MultiRNNCell(layers), x, dtype=tf.float32)",
    ),
]

#: (id, code, input width, TensorFlow's words, which derive's refusal holds too).
REFUSED_BY_BOTH = [
    (
        "one-object-other-widths",
        "lstm_cell = rnn_cell.BasicLSTMCell(200)\ncell = rnn_cell.MultiRNNCell([lstm_cell] * 2)",
        100,
        "Dimensions must be equal",
    ),
    (
        "one-scope-twice",
        "a = tf.nn.dynamic_rnn(rnn_cell.LSTMCell(8), x, dtype=tf.float32)\n"
        "b = tf.nn.dynamic_rnn(rnn_cell.LSTMCell(8), x, dtype=tf.float32)",
        5,
        "Variable rnn/lstm_cell/kernel already exists, disallowed",
    ),
    (
        "residual-of-another-width",
        "c = rnn_cell.ResidualWrapper(rnn_cell.GRUCell(4))\ncell = rnn_cell.MultiRNNCell([c])",
        6,
        None,
    ),
]


def tensorflow(code: str, width: int) -> list[tuple[str, tuple]]:
    return [(n, tuple(s)) for n, s, _ in tf_request({"kind": "tf1_program", "code": code, "input_size": width})]


def derive(code: str, width: int, *options: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([code, "--input-dim", str(width), "--json", *options])
    return status, (json.loads(out.getvalue()) if status == 0 else {}), err.getvalue()


def listed(data: dict) -> list[tuple[str, tuple]]:
    return [(t["name"], tuple(t["shape"])) for t in data["tensors"]]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_code_as_written_is_tensorflows_graph(case) -> None:
    _, code, width, real = case
    expected = tensorflow(real or code, width)
    status, data, err = derive(code, width)
    assert status == 0, err
    assert listed(data) == expected
    assert data["total"] == sum(math.prod(s) for _, s in expected)


@pytest.mark.parametrize("case", REFUSED_BY_BOTH, ids=[c[0] for c in REFUSED_BY_BOTH])
def test_what_tensorflow_refuses_derive_refuses(case) -> None:
    _, code, width, words = case
    with pytest.raises(RuntimeError) as refused:
        tensorflow(code, width)
    status, _, err = derive(code, width)
    assert status == 2 and err.startswith("derive: error: line "), err
    assert words is None or (words in str(refused.value) and words in err), (str(refused.value), err)


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_a_number_of_layers_without_a_value_is_a_formula_in_it(layers: int) -> None:
    """The asker's code as written: state_size and num_layers undefined; the count in them is
    TensorFlow's at each value (its tensors, at those values, in ``tests/corpus``)."""
    status, data, err = derive(_ASKER, 27, "--framework", "tf1")
    assert status == 0, err
    total = sympy.sympify(data["total"])
    assert {str(s) for s in total.free_symbols} == {"state_size", "num_layers"}
    values = {s: {"state_size": 70, "num_layers": layers}[str(s)] for s in total.free_symbols}
    expected = tensorflow(f"state_size = 70\ndropKeepRate = 0.5\nnum_layers = {layers}\n" + _ASKER, 27)
    assert int(total.subs(values)) == sum(math.prod(s) for _, s in expected)


@pytest.mark.parametrize("layers", [1, 2, 4])
def test_one_object_a_number_of_times_is_one_set_of_variables(layers: int) -> None:
    code = "c = rnn_cell.GRUCell(6)\ncell = rnn_cell.MultiRNNCell([c] * num_layers)"
    status, data, err = derive(code, 6)
    assert status == 0, err
    expected = tensorflow(f"num_layers = {layers}\n" + code, 6)
    assert listed(data) == expected and data["total"] == sum(math.prod(s) for _, s in expected)
