"""Constructor lines of every documented framework as their users write them, against the real framework.

Each line is pasted as it stands in tutorials and questions — the framework's usual import alias
(``tf`` for ``tensorflow.compat.v1``, ``rnn`` for TF 1's ``tensorflow.contrib.rnn`` or MXNet's
``gluon.rnn``, ``nn`` for ``mlx.nn``, ``hk``), bare names from ``from ... import``, the input
shape on the layer (Keras 2 and 3) — with only the options its user must add (``--input-dim``
where the line does not give the input width; ``--framework`` where the same text is another
framework's first). The same text is evaluated in the real package (a TF 1 cell under
``dynamic_rnn``, a Keras layer built on its input; ``tests/support/cli_frameworks.py``,
``tf_worker.py``, ``mxnet_worker.py``): derive's total and tensors must be the package's.
``REFUSED`` holds the lines derive refuses, each with the words of its reason and of what to do.
"""

from __future__ import annotations

import io
import json
import math
import os
import tempfile
import types
import warnings
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
from cli_frameworks import RUNNERS, UNORDERED
from one_answer import check_one_answer

from derive.cli import main


@dataclass(frozen=True)
class Line:
    """One line as written: the runner of the real framework, the text, the options its user gives,
    the input width (or, for Keras, the input shape without the batch axis) the real object is
    applied to, and the text run in the real framework where the line cannot run as it stands."""

    runner: str
    text: str
    options: tuple[str, ...] = ()
    width: int | tuple | None = None
    real: str | None = None

    @property
    def key(self) -> str:
        """The framework (tests/conftest.py marks the lines of a subprocess worker's framework slow)."""
        return self.runner

    @property
    def id(self) -> str:
        return f"{self.runner}:{self.text[:70]}"


def _in(width: int) -> tuple[str, ...]:
    return ("--input-dim", str(width))


#: Models pasted whole as their users write them: a list of Keras layers (the ``Sequential`` of them, on
#: ``--input-dim`` features), Haiku's stacks of cores, ``mlx.nn.Sequential`` of MLX's layers.
PASTED = [
    Line("keras", "[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]", _in(16), (None, 16)),
    Line("keras", "[keras.layers.LSTM(32, return_sequences=True), layers.GRU(8)]", _in(16), (None, 16)),
    Line(
        "keras",
        "[\n    layers.Bidirectional(layers.GRU(16, return_sequences=True)),\n    layers.SimpleRNN(4),\n]",
        _in(5),
        (None, 5),
    ),
    Line("haiku", "hk.deep_rnn_with_skip_connections([hk.LSTM(32), hk.LSTM(32)])", _in(16), 16),
    Line(
        "haiku", "hk.deep_rnn_with_skip_connections([hk.GRU(8), hk.VanillaRNN(4), hk.LSTM(6, name='top')])", _in(5), 5
    ),
    Line("haiku", "hk.DeepRNN([hk.LSTM(32), hk.LSTM(64)])", _in(16), 16),
    Line("mlx", "nn.Sequential(nn.GRU(20, 50), nn.GRU(50, 50))", ("--framework", "mlx")),
    Line("mlx", "mlx.nn.Sequential(mlx.nn.RNN(8, 16, bias=False), mlx.nn.LSTM(16, 4))"),
]

LINES = [
    *PASTED,
    # PyTorch
    Line("torch", "nn.LSTM(32, 128, 2, bidirectional=True)"),
    Line("torch", "torch.nn.GRU(input_size=10, hidden_size=20, num_layers=2, batch_first=True)"),
    Line("torch", "nn.LSTM(10, 20, proj_size=5)"),
    Line("torch", "nn.RNN(25, 50, nonlinearity='relu')"),
    Line("torch", "nn.LSTMCell(16, 32)"),
    Line("torch", "LSTM(64, 128, batch_first=True, dropout=0.2, num_layers=3)"),
    Line("torch", "nn.GRUCell(8, 4, bias=False)"),
    Line(
        "torch",
        "nn.LSTM(input_size=300, hidden_size=256, num_layers=2, dropout=0.5, bidirectional=True, batch_first=True)",
    ),
    # Keras 3 (and tf.keras in TensorFlow 2.16+, which is Keras 3)
    Line("keras", "LSTM(64, input_shape=(10, 8))", (), (10, 8)),
    Line("keras", "GRU(16, input_dim=4)", (), (None, 4)),
    Line("keras", "layers.GRU(16, input_dim=4)", (), (None, 4)),
    Line("keras", "keras.layers.LSTM(128, return_sequences=True)", _in(32), (None, 32)),
    Line("keras", "LSTM(64)", _in(12), (None, 12)),
    Line("keras", "LSTM(units=50, return_sequences=True, input_shape=(60, 1))", (), (60, 1)),
    Line("keras", "Bidirectional(LSTM(64, return_sequences=True), input_shape=(100, 300))", (), (100, 300)),
    Line("keras", "layers.Bidirectional(layers.GRU(32))", _in(16), (None, 16)),
    Line("keras", "Bidirectional(LSTM(64, input_shape=(10, 8)))", (), (10, 8)),
    Line("keras", "SimpleRNN(32, input_shape=(None, 1))", (), (None, 1)),
    Line("keras", "GRU(16, reset_after=False, input_shape=(5, 3))", (), (5, 3)),
    Line(
        "keras",
        "keras.layers.ConvLSTM2D(filters=16, kernel_size=(3, 3), padding='same', return_sequences=True, "
        "input_shape=(10, 40, 40, 1))",
        (),
        (10, 40, 40, 1),
    ),
    Line("keras", "ConvLSTM1D(8, 3, input_shape=(5, 20, 2))", (), (5, 20, 2)),
    Line(
        "keras",
        "ConvLSTM2D(4, 3, data_format='channels_first', input_shape=(5, 3, 16, 16))",
        (),
        (5, 3, 16, 16),
    ),
    Line("keras", "ConvLSTM3D(4, 3, input_shape=(4, 8, 8, 8, 2))", (), (4, 8, 8, 8, 2)),
    Line("keras", "RNN(LSTMCell(32), input_shape=(None, 8))", (), (None, 8)),
    Line("keras", "layers.RNN(layers.StackedRNNCells([layers.LSTMCell(16), layers.LSTMCell(16)]))", _in(8), (None, 8)),
    Line("keras", "tf.keras.layers.LSTM(64, input_shape=(10, 8))", (), (10, 8)),
    Line(
        "keras",
        "tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(20, return_sequences=True), input_shape=(5, 10))",
        (),
        (5, 10),
    ),
    Line(
        "keras",
        "keras.Sequential([keras.layers.LSTM(32, return_sequences=True, input_shape=(20, 4)), keras.layers.LSTM(16)])",
        (),
        (20, 4),
    ),
    Line(
        "keras",
        "Sequential([LSTM(50, return_sequences=True, input_shape=(60, 1)), LSTM(50)])",
        (),
        (60, 1),
    ),
    # tf.keras 2 (TensorFlow 2.0-2.15, tf-keras), TF 2's tf.compat.v1.keras, Keras 2's CuDNN layers
    Line("keras2", "tf.keras.layers.LSTM(64, input_shape=(10, 8))", (), 8),
    Line("keras2", "tf.keras.layers.GRU(48)", _in(12), 12),
    Line("keras2", "tf.compat.v1.keras.layers.GRU(48)", _in(12), 12),
    Line("keras2", "tf.compat.v1.keras.layers.LSTM(48)", _in(12), 12),
    Line("keras2", "tf.compat.v1.keras.layers.CuDNNLSTM(64)", _in(12), 12),
    Line("keras2", "tf.compat.v1.keras.layers.CuDNNGRU(64, return_sequences=True)", _in(12), 12),
    Line("keras2", "CuDNNGRU(32)", _in(6), 6),
    Line("keras2", "layers.LSTM(64, batch_input_shape=(None, 10, 8))", (), 8),
    Line("keras2", "LSTM(32, input_dim=8, input_length=10)", (), 8),
    Line("keras2", "tf.keras.layers.Bidirectional(tf.keras.layers.GRU(8, return_sequences=True))", _in(4), 4),
    Line("keras2", "tf.compat.v1.keras.layers.Bidirectional(tf.compat.v1.keras.layers.GRU(8))", _in(4), 4),
    Line("keras2", "keras.layers.SimpleRNN(16, input_shape=(None, 3))", (), 3),
    # TF 1 (tf.compat.v1.nn, tf.nn with ``import tensorflow.compat.v1 as tf``, tf.contrib.rnn as rnn)
    Line("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(128)", _in(32), 32),
    Line("tf1", "tf.nn.rnn_cell.LSTMCell(48)", _in(12), 12),
    Line("tf1", "LSTMCell(48)", ("--framework", "tf1", *_in(12)), 12),
    Line(
        "tf1",
        "tf.compat.v1.nn.dynamic_rnn(tf.compat.v1.nn.rnn_cell.LSTMCell(48), inputs, dtype=tf.float32)",
        _in(12),
        12,
    ),
    Line(
        "tf1",
        "tf.compat.v1.nn.dynamic_rnn(LSTMCell(48))",
        _in(12),
        12,
        real="tf.compat.v1.nn.dynamic_rnn(LSTMCell(48), inputs, dtype=tf.float32)",
    ),
    Line("tf1", "tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(64), x, dtype=tf.float32)", _in(12), 12),
    Line("tf1", "dynamic_rnn(LSTMCell(48), inputs, dtype=tf.float32)", _in(12), 12),
    Line("tf1", "tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(48) for _ in range(3)])", _in(12), 12),
    Line(
        "tf1",
        "tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(64), "
        "tf.nn.rnn_cell.BasicLSTMCell(64)]), inputs, dtype=tf.float32)",
        _in(28),
        28,
    ),
    Line("tf1", "tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(48), output_keep_prob=0.8)", _in(12), 12),
    Line(
        "tf1",
        "tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(32), "
        "output_keep_prob=0.5) for _ in range(2)])",
        _in(12),
        12,
    ),
    Line(
        "tf1",
        "tf.compat.v1.nn.static_rnn(tf.compat.v1.nn.rnn_cell.BasicLSTMCell(32), inputs, dtype=tf.float32)",
        _in(28),
        28,
    ),
    Line("tf1", "rnn.static_rnn(rnn.BasicLSTMCell(32, forget_bias=1.0), x, dtype=tf.float32)", _in(28), 28),
    Line("tf1", "rnn.MultiRNNCell([rnn.BasicLSTMCell(32), rnn.BasicLSTMCell(32)])", _in(28), 28),
    Line(
        "tf1",
        "tf.compat.v1.nn.bidirectional_dynamic_rnn(LSTMCell(64), LSTMCell(64), inputs, dtype=tf.float32)",
        _in(12),
        12,
    ),
    Line(
        "tf1",
        "tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(16), tf.nn.rnn_cell.GRUCell(16), x, "
        "dtype=tf.float32, scope='encoder')",
        _in(12),
        12,
    ),
    Line(
        "tf1",
        "tf.compat.v1.nn.static_bidirectional_rnn(tf.compat.v1.nn.rnn_cell.LSTMCell(8), "
        "tf.compat.v1.nn.rnn_cell.LSTMCell(8), inputs, dtype=tf.float32)",
        _in(5),
        5,
    ),
    Line(
        "tf1",
        "tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(8) for _ in range(2)]), "
        "tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(8) for _ in range(2)]), x, dtype=tf.float32)",
        _in(5),
        5,
    ),
    Line("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(64, use_peepholes=True, num_proj=32)", _in(16), 16),
    Line("tf1", "tf.nn.rnn_cell.BasicRNNCell(10)", _in(4), 4),
    Line("tf1", "tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.LSTMCell(16))", _in(16), 16),
    Line(
        "tf1",
        "tf.contrib.rnn.LSTMCell(100)",
        _in(20),
        20,
        real="tf.compat.v1.nn.rnn_cell.LSTMCell(100)",  # TF 1.15's tf.contrib.rnn re-exports rnn_cell_impl's
    ),
    # Haiku
    Line("haiku", "hk.LSTM(128)", _in(32), 32),
    Line("haiku", "hk.GRU(256)", _in(64), 64),
    Line("haiku", "hk.VanillaRNN(64)", _in(16), 16),
    Line("haiku", "hk.LSTM(hidden_size=128, name='encoder')", _in(32), 32),
    Line("haiku", "haiku.GRU(16)", _in(8), 8),
    Line("haiku", "hk.DeepRNN([hk.LSTM(128), jax.nn.relu, hk.LSTM(64)])", _in(32), 32),
    Line("haiku", "hk.DeepRNN([hk.GRU(64), hk.GRU(64), hk.VanillaRNN(8, name='out')])", _in(16), 16),
    Line("haiku", "hk.Conv2DLSTM(input_shape=(8, 8), output_channels=16, kernel_shape=3)", _in(4), 4),
    # MLX (``import mlx.nn as nn``: nn.LSTM is torch's first, --framework mlx says which)
    Line("mlx", "nn.LSTM(32, 128)", ("--framework", "mlx")),
    Line("mlx", "mlx.nn.GRU(16, 32)"),
    Line("mlx", "mlx.nn.RNN(8, 16, bias=False)"),
    Line("mlx", "nn.GRU(input_size=16, hidden_size=32)", ("--framework", "mlx")),
    Line("mlx", "mlx.nn.LSTM(64, 64)"),
    # MXNet Gluon (``from mxnet.gluon import rnn``)
    Line("mxnet", "mx.gluon.rnn.LSTM(128)", _in(32), 32),
    Line("mxnet", "gluon.rnn.GRU(64, num_layers=2, bidirectional=True, input_size=32)"),
    Line("mxnet", "rnn.LSTM(100, num_layers=2, layout='NTC', input_size=50)"),
    Line("mxnet", "mx.gluon.rnn.LSTMCell(64, input_size=32)"),
    Line("mxnet", "rnn.GRUCell(32)", ("--framework", "mxnet", *_in(16)), 16),
    Line("mxnet", "mxnet.gluon.rnn.RNN(32, activation='relu', input_size=8)"),
    Line("mxnet", "rnn.GRU(64, num_layers=2, layout='NTC', input_size=32, use_sequence_length=True)"),
    # cuDNN: torch7's cudnn.torch (a Lua line) and TF 1's tf.contrib.cudnn_rnn (no GPU here: the
    # buffer is counted on torch's layers of the same sizes, cli_frameworks.cudnn_run)
    Line("cudnn", "cudnn.BLSTM(512,512,1,false,0)"),
    Line("cudnn", "cudnn.LSTM(128, 256, 2)"),
    Line("cudnn", "tf.contrib.cudnn_rnn.CudnnLSTM(3, 143, direction='bidirectional')", _in(143), 143),
    Line("cudnn", "tf.contrib.cudnn_rnn.CudnnGRU(num_layers=2, num_units=128)", _in(64), 64),
    # Flax linen / nnx, Equinox, Paddle
    Line("flax.linen", "nn.LSTMCell(features=128)", _in(32), 32),
    Line("flax.linen", "nn.GRUCell(features=16)", _in(8), 8),
    Line("flax.linen", "flax.linen.OptimizedLSTMCell(64)", _in(16), 16),
    Line("flax.nnx", "nnx.LSTMCell(8, 16, rngs=nnx.Rngs(0))"),
    Line("flax.nnx", "nnx.GRUCell(in_features=4, hidden_features=6, rngs=nnx.Rngs(0))"),
    Line("equinox", "eqx.nn.LSTMCell(32, 128, key=jax.random.key(0))"),
    Line("equinox", "eqx.nn.GRUCell(input_size=4, hidden_size=6, key=jax.random.PRNGKey(0))"),
    Line("paddle", "paddle.nn.LSTM(32, 128)"),
    Line("paddle", "paddle.nn.GRU(16, 32, num_layers=2, direction='bidirect')"),
    # sru, minGRU, xlstm
    Line("sru", "SRU(8, 8, num_layers=3, bidirectional=True)"),
    Line("mingru", "minGRU(8, expansion_factor=1.5)"),
    Line("xlstm", "sLSTMLayer(sLSTMLayerConfig(embedding_dim=16, num_heads=4, backend='vanilla'))"),
]

#: Lines derive refuses: (line, options, the words of the reason and of what to do).
REFUSED = [
    ("rnn.LSTMCell(12)", _in(5), "rnn.LSTMCell is a class of mxnet, tf1: say which with --framework mxnet or"),
    ("LSTMCell(48)", _in(5), "LSTMCell is a class of keras, tf1: say which with --framework keras or --framework tf1"),
    ("LSTM(64, input_shape=(8,))", (), "expected ndim=3, found ndim=2"),
    ("hk.DeepRNN([hk.LSTM(128), hk.Linear(10)])", _in(5), "hk.Linear(10) is not a Haiku core derive knows"),
    ("hk.DeepRNN([])", _in(5), "layers must be a non-empty list of cores and functions"),
    (
        "hk.deep_rnn_with_skip_connections([hk.LSTM(8), jax.nn.relu, hk.LSTM(8)])",
        _in(4),
        "skip_connections requires for all layers to be `hk.RNNCore`s: jax.nn.relu is a function",
    ),
    (
        "hk.deep_rnn_with_skip_connections([hk.LSTM(32), hk.LSTM(32)])",
        (),
        "makes its weights when first applied: give the input width with --input-dim",
    ),
    ("[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]", (), "--input-dim is required"),
    ("[LSTM(32, 64), LSTM(16)]", _in(4), "item 0, LSTM(...), is a torch constructor"),
    ("[LSTM(32)]", ("--torch", *_in(4)), "a pasted list of layers is read as the keras.Sequential of them"),
    ("[]", _in(4), "the pasted list is empty"),
    (
        "nn.Sequential(nn.GRU(20, 50), nn.GRU(40, 50))",
        ("--framework", "mlx"),
        "layer 1 (GRU) has input_size=40, but layer 0 (GRU) outputs hidden_size=50 features: the sizes do not chain",
    ),
    ("nn.Sequential(nn.LSTM(20, 50), nn.GRU(50, 50))", ("--framework", "mlx"), "returns the pair (hidden, cell)"),
    ("tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(48), x, scope=vs)", _in(5), "scope: give the variable scope's name"),
    (
        "tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(n) for n in sizes])",
        _in(5),
        "cells: write the list of cells out",
    ),
    ("tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.LSTMCell(16))", _in(8), "must equal the output's 16"),
    (
        "Bidirectional(tf.compat.v1.keras.layers.GRU(8), backward_layer=GRU(8, go_backwards=True))",
        _in(3),
        "tf.compat.v1.keras.layers.GRU (reset_after=False) and Keras 3's GRU (reset_after=True) in one line",
    ),
]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _torch(text: str) -> list[tuple[str, tuple]]:
    import torch
    from torch import nn

    with torch.device("meta"):
        module = eval(text, {"nn": nn, "torch": torch, **{c: getattr(nn, c) for c in ("LSTM", "GRU", "RNN")}})
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


def _keras(text: str, shape: tuple) -> list[tuple[str, tuple]]:
    import keras

    scope = {n: getattr(keras.layers, n) for n in dir(keras.layers) if n[:1].isupper()}
    scope.update(keras=keras, layers=keras.layers, Sequential=keras.Sequential)
    scope["tf"] = types.SimpleNamespace(keras=keras)  # TensorFlow 2.16+: tf.keras is Keras 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = eval(text, scope)
        if isinstance(made, list):  # a list of layers: the Sequential of them, on that input
            made = keras.Sequential([keras.Input(shape), *made])
        if isinstance(made, keras.Sequential):
            assert made.built
            weights = made.weights
        else:
            made(keras.Input(shape))
            weights = made.weights
    return [(w.path, tuple(w.shape)) for w in weights]


def _keras2(text: str, width: int) -> list[tuple[str, tuple]]:
    from frameworks_live_extra import tf_request

    return [(n, tuple(s)) for n, s, _ in tf_request({"kind": "keras2_line", "text": text, "input_size": width})]


def _tf1(text: str, width: int) -> list[tuple[str, tuple]]:
    from frameworks_live_extra import tf_request

    compat = "tf.nn." in text or "tf.contrib." in text  # ``import tensorflow.compat.v1 as tf``
    request = {"kind": "tf1_line", "text": text, "input_size": width, "compat": compat}
    return [(n, tuple(s)) for n, s, _ in tf_request(request)]


def real_tensors(line: Line) -> list[tuple[str, tuple]]:
    """``[(name, shape)]`` of the object the line makes in its real framework."""
    text = line.real or line.text
    if line.runner == "torch":
        return _torch(text)
    if line.runner == "keras":
        return _keras(text, line.width)
    if line.runner == "keras2":
        return _keras2(text, line.width)
    if line.runner == "tf1":
        return _tf1(text, line.width)
    return [(n, tuple(s)) for n, s, _ in RUNNERS[line.runner](text, line.width)]


def derive_tensors(line: Line) -> tuple[int, list[tuple[str, tuple]], str]:
    status, out, err = run(line.text, *line.options, "--json")
    if status != 0:
        return status, [], err
    data = json.loads(out)
    counted = [t for t in data["tensors"] if not t.get("buffer") and not t.get("tied_to")]
    assert data["total"] == sum(t["parameters"] for t in data["tensors"])
    return status, [(t["name"], tuple(t["shape"])) for t in counted], err


def _total(rows: list[tuple[str, tuple]]) -> int:
    return sum(math.prod(shape) for _, shape in rows)


#: Runners whose names derive gives as the framework prints them, in its order.
NAMED = ("torch", "tf1", "keras2", "haiku", "mlx", "mxnet", "paddle", "sru", "mingru", "xlstm", "equinox")


def answered_exactly(line: Line) -> tuple[bool, str]:
    """Whether derive answers the line with the real framework's total and tensors (and why not)."""
    real = real_tensors(line)
    status, ours, err = derive_tensors(line)
    if status != 0:
        return False, err.strip()
    if _total(ours) != _total(real):
        return False, f"total {_total(ours)} != {_total(real)}"
    if line.runner in NAMED and line.runner not in UNORDERED:
        return ours == real, f"{ours} != {real}"
    return sorted(s for _, s in ours) == sorted(s for _, s in real), f"{ours} != {real}"


@pytest.mark.slow
@pytest.mark.parametrize("line", LINES, ids=[line.id for line in LINES])
def test_line_as_its_users_write_it(line):
    ok, why = answered_exactly(line)
    assert ok, why


def test_the_table_covers_every_framework_the_lines_are_documented_for():
    runners = {line.runner for line in LINES}
    assert {"torch", "keras", "keras2", "tf1", "haiku", "mlx", "mxnet"} <= runners
    assert len(LINES) >= 80


@pytest.mark.parametrize("line", PASTED, ids=[line.id for line in PASTED])
def test_a_model_pasted_whole_gives_one_answer_on_the_command_line_and_in_explain(line):
    """The command line's ``--json`` and ``derive.explain(text, ...)`` of a pasted list or container:
    one dispatcher, one reader, one total, the same tensors and closed form."""
    assert check_one_answer(line.text, line.options) is not None


@pytest.mark.slow
def test_a_list_of_keras_2_cudnn_layers():
    """``[CuDNNLSTM(...), CuDNNGRU(...)]``: Keras 2's layers (TensorFlow's worker), the Sequential of them on
    16 features: its total and shapes. (The code reader names a Sequential's weights as Keras 3 does,
    ``sequential/cu_dnnlstm/kernel``; Keras 2 names them ``cu_dnnlstm/kernel``: not compared.)"""
    line = Line("keras2", "[CuDNNLSTM(32, return_sequences=True), CuDNNGRU(8)]", _in(16), 16)
    real = real_tensors(line)
    status, ours, err = derive_tensors(line)
    assert status == 0, err
    assert _total(ours) == _total(real) and [s for _, s in ours] == [s for _, s in real]


@pytest.mark.parametrize("text,options,words", REFUSED, ids=[r[0][:60] for r in REFUSED])
def test_refused_with_the_reason_and_what_to_do(text, options, words):
    status, out, err = run(text, *options)
    assert status == 2 and out == "" and err.startswith("derive: error: ") and words in err, err
