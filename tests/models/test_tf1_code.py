"""TF1 model code (issue 26): which text is TF1 code, and what the reader refuses, naming the line.

The counts and names are held against TensorFlow in ``tests/frameworks/test_live_tf1_code.py``
(slow: TensorFlow runs in its worker); this file needs no framework.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from derive.cli import main
from derive.read import SourceError, detect, explain, explain_code

ASKER = """
def lstm_cell():
    cell = tf.nn.rnn_cell.LSTMCell(num_units=state_size, state_is_tuple=True)
    cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=dropKeepRate)
    return cell
cell = tf.nn.rnn_cell.MultiRNNCell([lstm_cell() for _ in range(num_layers)], state_is_tuple=True)
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "code",
    [
        ASKER,
        "lstm_cell = rnn_cell.BasicLSTMCell(hidden_size, forget_bias=0.0)\ncell = rnn_cell.MultiRNNCell([lstm_cell] * 2)",
        "from tensorflow.contrib import rnn\ncell = rnn.LSTMCell(8)\nout, _ = rnn.static_rnn(cell, xs, dtype=tf.float32)",
        "import tensorflow as tf\nc = tf.nn.rnn_cell.GRUCell(8)\nout, _ = tf.nn.dynamic_rnn(c, x, dtype=tf.float32)",
    ],
)
def test_tf1_code_is_read_as_tf1(code: str) -> None:
    assert detect(code) == "tf1"


@pytest.mark.parametrize(
    "code,framework",
    [
        ("import tensorflow as tf\nm = tf.keras.Sequential([tf.keras.layers.LSTM(8)])\nm.summary()", "keras"),
        ("import torch\nlstm = torch.nn.LSTM(3, 4)\nx = 1", "torch"),
    ],
)
def test_other_code_is_not(code: str, framework: str) -> None:
    assert detect(code) == framework


def test_the_command_line_reads_tf1_code_and_answers_in_the_names_it_leaves_undefined() -> None:
    status, out, err = run(ASKER, "--framework", "tf1", "--input-dim", "27")
    assert status == 0, err
    assert "num_layers" in out and "state_size" in out and "not defined in the code" in out
    status, _, err = run(ASKER, "--framework", "mlx")  # other frameworks: one constructor line at a time
    assert status == 2 and "model code is read for PyTorch, Keras and TF1" in err


def test_one_object_twice_on_inputs_of_a_width_without_a_value_is_shared_on_a_condition() -> None:
    report = explain_code(
        "lstm_cell = rnn_cell.BasicLSTMCell(hidden_size)\ncell = rnn_cell.MultiRNNCell([lstm_cell] * 2)", input_dim=200
    )
    assert [t["name"] for t in report.tensors] == [
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel",
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias",
    ]
    assert any("only where hidden_size = 200" in note for note in report.notes), report.notes


def test_a_constructor_line_is_still_read_as_one() -> None:
    report = explain("tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(48) for _ in range(3)])", input_dim=12)
    assert report.title.startswith("tf1: ")


#: (code, input width, the words of the refusal). Each names its line (the last: no cell at all).
REFUSED = [
    (
        "c = tf.contrib.rnn.LayerNormBasicLSTMCell(8)\ncell = tf.contrib.rnn.MultiRNNCell([c])",
        5,
        "line 1: tf.contrib.rnn.LayerNormBasicLSTMCell is not a TF1 class derive knows",
    ),
    (
        "with tf.variable_scope('enc'):\n    out, _ = tf.nn.dynamic_rnn(rnn_cell.LSTMCell(8), x, dtype=tf.float32)",
        5,
        "line 1: tf.variable_scope renames the variables made under it",
    ),
    (
        "emb = tf.get_variable('embedding', [100, 8])\ncell = rnn_cell.LSTMCell(8)",
        5,
        "line 1: tf.get_variable makes variables beside the cells'",
    ),
    (
        "cell = rnn_cell.LSTMCell(8)\nout, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)\ny = tf.layers.dense(out, 10)",
        5,
        "line 3: tf.layers.dense makes variables beside the cells'",
    ),
    (
        "lstm = tf.contrib.cudnn_rnn.CudnnLSTM(1, 8)\ncell = rnn_cell.LSTMCell(8)",
        5,
        "line 1: tf.contrib.cudnn_rnn.CudnnLSTM makes variables beside the cells'",
    ),
    ("cell = rnn_cell.LSTMCell(8)\nout, st = cell(x, state)", 5, "line 2: cell(x, state) calls a cell directly"),
    (
        "cell = rnn_cell.LSTMCell(8)\ncell = rnn_cell.MultiRNNCell([cell])",
        None,
        "line 2: TF1 cells make their variables when first applied: give the input's features with --input-dim",
    ),
    (
        "cell = rnn_cell.MultiRNNCell([rnn_cell.LSTMCell(n) for n in sizes])\nx = 1",
        5,
        "line 1: rnn_cell.MultiRNNCell: cells: write the list of cells out",
    ),
    (
        "cell = rnn_cell.LSTMCell(config.hidden)\nx = 1",
        5,
        "line 1: hidden_size should be of type int, got: config.hidden",
    ),
    (
        "c = rnn_cell.LSTMCell(8)\ncell = rnn_cell.MultiRNNCell([c] * num_layers)",
        5,
        "derive cannot know whether num_layers is 1",
    ),
    (
        "cell = rnn_cell.MultiRNNCell([rnn_cell.LSTMCell(8) for _ in range(n)], foo=1)\nx = 1",
        5,
        "line 1: rnn_cell.MultiRNNCell: MultiRNNCell.__init__() got an unexpected keyword argument 'foo'",
    ),
    ("import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 5])", 5, "no TF1 cell found"),
    (
        "if use_gru:\n    cell = rnn_cell.GRUCell(8)\nelse:\n    cell = rnn_cell.LSTMCell(8)",
        5,
        "the cell is not known: 'cell' (line 1: it differs between the two ways of line 1",
    ),
]


def test_a_cell_made_under_a_statement_is_the_one_its_name_holds() -> None:
    code = "with tf.device('/cpu:0'):\n    if True:\n        cell = rnn_cell.GRUCell(8)\nother = 1"
    report = explain_code(code, "tf1", 5)
    assert [t["name"] for t in report.tensors] == [
        "rnn/gru_cell/gates/kernel",
        "rnn/gru_cell/gates/bias",
        "rnn/gru_cell/candidate/kernel",
        "rnn/gru_cell/candidate/bias",
    ]
    assert report.title.endswith("(line 3)")


@pytest.mark.parametrize("code,width,words", REFUSED, ids=[r[2][:40] for r in REFUSED])
def test_refused_naming_the_line_and_the_name(code: str, width: int | None, words: str) -> None:
    with pytest.raises(SourceError) as refused:
        explain_code(code, "tf1", width)
    assert words in str(refused.value), str(refused.value)


def test_partial_is_for_torch_and_keras_code() -> None:
    with pytest.raises(SourceError, match="TF1 code is counted whole"):
        explain_code("cell = rnn_cell.LSTMCell(8)\nx = 1", "tf1", 5, partial=True)
