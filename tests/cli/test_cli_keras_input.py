"""Keras constructor lines that give their own input (``input_shape=``, ``input_dim=``,
``batch_input_shape=``, ``input_length=``): the count is Keras 3's ``count_params()`` of the same
layer built on that input shape (Keras 3 on the torch backend, a private KERAS_HOME)."""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
from contextlib import redirect_stderr, redirect_stdout

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest

from derive.cli import main

keras = pytest.importorskip("keras")
from keras import layers as L  # noqa: E402


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def keras_count(shape: tuple, *made) -> int:
    """Keras 3's count of the layers ``made`` (in sequence) built on an input of ``shape`` (no batch axis)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = keras.Sequential([keras.Input(shape=shape), *made])
    return model.count_params()


#: (line as written, the same layer(s) without their input arguments, the input shape they give)
CASES = [
    ("LSTM(64, input_shape=(10, 8))", lambda: [L.LSTM(64)], (10, 8)),
    ("layers.GRU(16, input_dim=4)", lambda: [L.GRU(16)], (None, 4)),
    ("keras.layers.SimpleRNN(5, batch_input_shape=(None, 10, 8))", lambda: [L.SimpleRNN(5)], (10, 8)),
    ("LSTM(32, input_dim=8, input_length=10)", lambda: [L.LSTM(32)], (10, 8)),
    ("layers.GRU(16, batch_size=4, input_shape=(7, 3))", lambda: [L.GRU(16)], (7, 3)),
    ("tf.keras.layers.LSTM(64, input_shape=(10, 8), return_sequences=True)", lambda: [L.LSTM(64)], (10, 8)),
    ("ConvLSTM1D(4, 3, input_shape=(5, 12, 3))", lambda: [L.ConvLSTM1D(4, 3)], (5, 12, 3)),
    (
        "ConvLSTM1D(4, 3, input_shape=(5, 3, 12), data_format='channels_first')",
        lambda: [L.ConvLSTM1D(4, 3, data_format="channels_first")],
        (5, 3, 12),
    ),
    ("ConvLSTM2D(4, (3, 3), input_shape=(5, 16, 16, 3))", lambda: [L.ConvLSTM2D(4, (3, 3))], (5, 16, 16, 3)),
    (
        "ConvLSTM2D(4, 3, input_shape=(5, 3, 16, 16), data_format='channels_first')",
        lambda: [L.ConvLSTM2D(4, 3, data_format="channels_first")],
        (5, 3, 16, 16),
    ),
    ("ConvLSTM3D(2, 3, input_shape=(4, 6, 6, 6, 2))", lambda: [L.ConvLSTM3D(2, 3)], (4, 6, 6, 6, 2)),
    (
        "ConvLSTM3D(2, 3, batch_input_shape=(None, 4, 5, 6, 6, 6), data_format='channels_first')",
        lambda: [L.ConvLSTM3D(2, 3, data_format="channels_first")],
        (4, 5, 6, 6, 6),
    ),
    ("Bidirectional(LSTM(64, input_shape=(10, 8)))", lambda: [L.Bidirectional(L.LSTM(64))], (10, 8)),
    ("Bidirectional(GRU(16), input_shape=(None, 8))", lambda: [L.Bidirectional(L.GRU(16))], (None, 8)),
    (
        "layers.Bidirectional(layers.LSTM(8, return_sequences=True), merge_mode='sum', input_shape=(None, 5))",
        lambda: [L.Bidirectional(L.LSTM(8, return_sequences=True), merge_mode="sum")],
        (None, 5),
    ),
    ("RNN(LSTMCell(8), input_shape=(None, 3))", lambda: [L.RNN(L.LSTMCell(8))], (None, 3)),
    (
        "Sequential([LSTM(64, input_shape=(10, 8), return_sequences=True), LSTM(32)])",
        lambda: [L.LSTM(64, return_sequences=True), L.LSTM(32)],
        (10, 8),
    ),
    (
        "keras.Sequential([Bidirectional(LSTM(8, return_sequences=True), input_shape=(None, 5)), GRU(4)])",
        lambda: [L.Bidirectional(L.LSTM(8, return_sequences=True)), L.GRU(4)],
        (None, 5),
    ),
    (
        "Sequential([GRU(6, input_dim=3, return_sequences=True), GRU(2, input_dim=99)])",
        lambda: [L.GRU(6, return_sequences=True), L.GRU(2)],
        (None, 3),
    ),
]


@pytest.mark.parametrize("line,made,shape", CASES, ids=[c[0][:60] for c in CASES])
def test_the_layers_own_input_gives_its_width(line, made, shape):
    status, out, err = run("--keras", line, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["count"] == keras_count(shape, *made())


@pytest.mark.parametrize("line", ["LSTM(64, input_shape=(10, 8))", "Bidirectional(GRU(16), input_shape=(None, 8))"])
def test_keras_builds_the_same_line_itself(line):
    """Where Keras 3 accepts the line as written (with its warning), its own Sequential is built on it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = keras.Sequential([eval(line, {"LSTM": L.LSTM, "GRU": L.GRU, "Bidirectional": L.Bidirectional})])
    assert model.built
    status, out, err = run("--keras", line, "--json")
    assert json.loads(out)["count"] == model.count_params()


def test_keras_2_spellings_and_the_wrapped_input_are_noted():
    for line, words in (
        ("LSTM(64, batch_input_shape=(None, 10, 8))", "batch_input_shape: Keras 2's spelling"),
        ("LSTM(64, input_dim=8, input_length=10)", "input_length: Keras 2's spelling"),
        ("Bidirectional(LSTM(64, input_shape=(10, 8)))", "Keras 3 reads it only from the wrapper"),
        ("GRU(16, input_dim=4)", "Keras 3 reads it as input_shape=(4,)"),
    ):
        status, out, err = run("--keras", line)
        assert status == 0 and words in out, (out, err)
    for keyword in ("batch_input_shape", "input_length"):  # Keras 3 refuses them, as the note says
        with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
            L.LSTM(64, **{keyword: (None, 10, 8) if keyword == "batch_input_shape" else 10})
    with warnings.catch_warnings(), pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        warnings.simplefilter("ignore")
        keras.Sequential([L.GRU(16, input_dim=4)])
    with warnings.catch_warnings():  # Keras 3 builds the wrapper's input shape, not the wrapped layer's
        warnings.simplefilter("ignore")
        assert not keras.Sequential([L.Bidirectional(L.LSTM(64, input_shape=(10, 8)))]).built


@pytest.mark.parametrize(
    "argv,words",
    [
        (["LSTM(64, input_shape=(8,))"], "expected ndim=3, found ndim=2"),
        (["LSTM(64, input_shape=(10, 8))", "--input-dim", "9"], "--input-dim 9 and the layer's own input shape (8)"),
        (["LSTM(64, input_shape=(10, 8), input_dim=9)"], "disagree"),
        (["LSTM(64, input_length=10)"], "gives no input shape"),
        (["LSTM(64)"], "or write the layer's input_shape=(steps, features)"),
    ],
)
def test_refused_with_the_reason(argv, words):
    status, out, err = run("--keras", *argv)
    assert status == 2 and words in err, err


def test_the_same_input_given_twice_is_answered():
    status, out, err = run("--keras", "LSTM(64, input_shape=(10, 8))", "--input-dim", "8", "--json")
    assert status == 0 and json.loads(out)["count"] == 18688, err
