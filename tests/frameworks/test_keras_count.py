"""``.count``, the one spelling of the count, on derive.keras' layers, held against live Keras 3 (torch backend).

A layer of the mirror learns its input as a Keras layer does (``input_dim``, ``input_shape``,
``batch_input_shape``); then ``.count`` is the ``count_params()`` of the same Keras layer built on
``keras.Input(shape)`` — every expected number here is Keras' own. Without the input, ``.count``
is no number: each numeric use raises TypeError (Keras' ``count_params()`` on a layer not built
raises too), and calling it, the old spelling, warns and counts. ``Report.count`` is
``Report.total``.
"""

from __future__ import annotations

import os
import re
import tempfile
import warnings
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
import sympy

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

import derive  # noqa: E402
import derive.keras as dk  # noqa: E402
from derive import H, I  # noqa: E402
from derive.frameworks.keras.recurrent_base import Recurrent  # noqa: E402

assert keras.backend.backend() == "torch"


def keras_count(make, shape: tuple) -> int:
    """``count_params()`` of the Keras layer ``make()`` built by applying it to ``keras.Input(shape)``."""
    layer = make()
    layer(keras.Input(shape))
    return layer.count_params()


#: (id, derive.keras layer made with the input keywords, the same Keras layer, the input's shape
#: without the batch axis, the features the weights read).
CASES = [
    ("SimpleRNN", lambda **k: dk.SimpleRNN(7, **k), lambda: kl.SimpleRNN(7), (5, 3), 3),
    ("LSTM", lambda **k: dk.LSTM(128, **k), lambda: kl.LSTM(128), (10, 28), 28),
    ("LSTM no bias", lambda **k: dk.LSTM(5, use_bias=False, **k), lambda: kl.LSTM(5, use_bias=False), (4, 9), 9),
    ("GRU", lambda **k: dk.GRU(6, **k), lambda: kl.GRU(6), (5, 4), 4),
    (
        "GRU reset before",
        lambda **k: dk.GRU(6, reset_after=False, **k),
        lambda: kl.GRU(6, reset_after=False),
        (5, 4),
        4,
    ),
    *[
        (
            f"Bidirectional {mode}",
            lambda mode=mode, **k: dk.Bidirectional(dk.LSTM(128), merge_mode=mode, **k),
            lambda mode=mode: kl.Bidirectional(kl.LSTM(128), merge_mode=mode),
            (10, 28),
            28,
        )
        for mode in ("concat", "sum", "mul", "ave", None)
    ],
    (
        "Bidirectional GRU backward",
        lambda **k: dk.Bidirectional(dk.LSTM(4), backward_layer=dk.GRU(3, go_backwards=True), **k),
        lambda: kl.Bidirectional(kl.LSTM(4), backward_layer=kl.GRU(3, go_backwards=True)),
        (6, 5),
        5,
    ),
    (
        "ConvLSTM2D",
        lambda **k: dk.ConvLSTM2D(3, 2, **k),
        lambda: kl.ConvLSTM2D(3, 2),
        (2, 5, 5, 4),
        4,
    ),
    (
        "ConvLSTM2D channels_first",
        lambda **k: dk.ConvLSTM2D(3, (2, 3), data_format="channels_first", **k),
        lambda: kl.ConvLSTM2D(3, (2, 3), data_format="channels_first"),
        (2, 4, 6, 6),
        4,
    ),
    ("ConvLSTM1D", lambda **k: dk.ConvLSTM1D(2, 3, **k), lambda: kl.ConvLSTM1D(2, 3), (3, 7, 5), 5),
    ("RNN(LSTMCell)", lambda **k: dk.RNN(dk.LSTMCell(5), **k), lambda: kl.RNN(kl.LSTMCell(5)), (3, 4), 4),
    (
        "RNN(stacked cells)",
        lambda **k: dk.RNN([dk.LSTMCell(5), dk.GRUCell(6), dk.SimpleRNNCell(2)], **k),
        lambda: kl.RNN([kl.LSTMCell(5), kl.GRUCell(6), kl.SimpleRNNCell(2)]),
        (3, 4),
        4,
    ),
    ("Dense", lambda **k: dk.Dense(10, **k), lambda: kl.Dense(10), (256,), 256),
    ("Dense on a sequence", lambda **k: dk.Dense(4, **k), lambda: kl.Dense(4), (7, 9), 9),
    ("Conv1D", lambda **k: dk.Conv1D(8, 3, **k), lambda: kl.Conv1D(8, 3), (20, 6), 6),
    ("LayerNormalization", lambda **k: dk.LayerNormalization(**k), lambda: kl.LayerNormalization(), (5, 12), 12),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize(("name", "ours", "theirs", "shape", "features"), CASES, ids=IDS)
@pytest.mark.parametrize("keyword", ["input_dim", "input_shape", "batch_input_shape"])
def test_count_is_keras_count_params(name, ours, theirs, shape, features, keyword) -> None:
    """``.count`` of the layer given its input through each keyword = Keras' ``count_params()``, an int."""
    value = {"input_dim": features, "input_shape": shape, "batch_input_shape": (None, *shape)}[keyword]
    layer = ours(**{keyword: value})  # input_dim: the features (a ConvLSTM's channels, wherever they are)
    expected = keras_count(theirs, shape)
    assert layer.count == expected
    assert type(layer.count) is int
    if isinstance(layer, Recurrent):  # the function, on the layer without its input: the same number
        assert dk.count(ours(), features) == expected


@pytest.mark.parametrize(
    ("make", "theirs", "features"),
    [
        (lambda **k: dk.LSTMCell(5, **k), lambda: kl.RNN(kl.LSTMCell(5)), 4),
        (lambda **k: dk.GRUCell(6, **k), lambda: kl.RNN(kl.GRUCell(6)), 3),
        (lambda **k: dk.GRUCell(6, reset_after=False, **k), lambda: kl.RNN(kl.GRUCell(6, reset_after=False)), 3),
        (lambda **k: dk.SimpleRNNCell(2, **k), lambda: kl.RNN(kl.SimpleRNNCell(2)), 7),
    ],
)
def test_a_cell_given_its_input_counts_its_rnn(make, theirs, features) -> None:
    """A cell's ``.count`` (``input_dim``, ``input_shape=(features,)``, ``batch_input_shape``) = Keras'
    ``RNN(cell).count_params()`` on that many features."""
    expected = keras_count(theirs, (3, features))
    for given in ({"input_dim": features}, {"input_shape": (features,)}, {"batch_input_shape": (None, features)}):
        cell = make(**given)
        assert cell.count == expected and type(cell.count) is int


def test_seed_question_numbers() -> None:
    """The issue's numbers: ``LSTM(128)`` and ``Bidirectional(LSTM(128))`` on 28 features, as Keras counts them."""
    assert keras_count(lambda: kl.LSTM(128), (28, 28)) == 80384 == dk.LSTM(128, input_dim=28).count
    assert keras_count(lambda: kl.Bidirectional(kl.LSTM(128)), (28, 28)) == 160768
    assert dk.Bidirectional(dk.LSTM(128), input_dim=28).count == 160768
    assert dk.Bidirectional(dk.LSTM(128, input_dim=28)).count == 160768  # the wrapped layer's, as Keras 2 read it


def test_sequential_reads_the_first_layers_input() -> None:
    """``Sequential([...]).count``: the first layer's input is the model's, as Keras' Sequential reads it."""
    model = keras.Sequential([keras.Input((10, 28)), kl.LSTM(64, return_sequences=True), kl.LSTM(32)])
    ours = dk.Sequential([dk.LSTM(64, input_dim=28, return_sequences=True), dk.LSTM(32)])
    assert ours.count == model.count_params() and type(ours.count) is int
    assert dk.count(ours) == dk.count([dk.LSTM(64, return_sequences=True), dk.LSTM(32)], 28) == model.count_params()
    assert dk.Sequential([dk.LSTM(64, return_sequences=True), dk.LSTM(32)]).module(28).children[1].name == "lstm"
    # Keras 3 reads input_shape on the first layer (with a warning) and builds the Sequential on it
    with pytest.warns(UserWarning, match="input_shape"):
        first = kl.LSTM(64, input_shape=(10, 28), return_sequences=True)
    live = keras.Sequential([first, kl.LSTM(32)])
    assert (
        live.count_params()
        == dk.Sequential([dk.LSTM(64, input_shape=(10, 28), return_sequences=True), dk.LSTM(32)]).count
    )


def test_symbolic_input_dim_is_the_closed_form() -> None:
    """``input_dim`` a SymPy symbol: ``.count`` is the closed form, equal to Keras' count at every size tried."""
    assert dk.LSTM(H, input_dim=I).count == 4 * H**2 + 4 * H * I + 4 * H
    bi = dk.Bidirectional(dk.GRU(H), input_dim=I).count
    for i, h in ((3, 4), (28, 16)):
        assert bi.subs({I: i, H: h}) == keras_count(lambda h=h: kl.Bidirectional(kl.GRU(h)), (5, i))


def test_layers_whose_weights_do_not_read_the_input_have_their_count() -> None:
    """An ``Embedding``, a layer without weights: ``.count`` needs no input (Keras: built at once, or built on any)."""
    assert dk.Embedding(1000, 64).count == keras_count(lambda: kl.Embedding(1000, 64), (12,)) == 64000
    assert dk.KERAS_LAYERS["Dropout"](0.5).count == kl.Dropout(0.5).count_params() == 0
    assert dk.KERAS_LAYERS["Flatten"]().count == keras_count(kl.Flatten, (3, 4)) == 0


# --- without the input: no number -----------------------------------------------------------------

UNGIVEN = [
    dk.LSTM(128),
    dk.Bidirectional(dk.LSTM(128)),
    dk.ConvLSTM2D(3, 2),
    dk.LSTMCell(5),
    dk.RNN(dk.GRUCell(4)),
    dk.Sequential([dk.LSTM(64, return_sequences=True), dk.LSTM(32)]),
    dk.Dense(10),
    dk.Conv2D(8, 3),
]
REFUSED = {
    "==": lambda x: x == 80384,
    "!=": lambda x: x != 80384,
    "<": lambda x: x < 1,
    "+": lambda x: x + 1,
    "radd": lambda x: 1 + x,
    "sum": lambda x: sum([x]),
    "*": lambda x: 2 * x,
    "int": int,
    "float": float,
    "bool": bool,
    "if": lambda x: 1 if x else 0,
    "format ,": lambda x: format(x, ","),
    "f-string ,": lambda x: f"{x:,}",
    "hash": hash,
    "set": lambda x: {x},
    "round": round,
    "sympify": sympy.sympify,
    "sympy.expand": sympy.expand,
}


def test_keras_refuses_to_count_a_layer_not_built() -> None:
    """What the refusal cites: Keras' ``count_params()`` on a layer not yet built raises (keras/src/layers/layer.py)."""
    with pytest.raises(ValueError, match="isn't built"):
        kl.LSTM(128).count_params()


@pytest.mark.parametrize("layer", UNGIVEN, ids=lambda x: repr(x))
@pytest.mark.parametrize("use", list(REFUSED), ids=list(REFUSED))
def test_every_numeric_use_is_refused(layer, use) -> None:
    with pytest.raises(TypeError, match=r"not given its input.*count_params\(\).*input_dim"):
        REFUSED[use](layer.count)


@pytest.mark.parametrize("layer", UNGIVEN, ids=lambda x: repr(x))
def test_the_repr_says_why(layer) -> None:
    """A notebook shows the reason (and how to give the input), not a bound method."""
    shown = repr(layer.count)
    assert shown.startswith(f"<{layer!r}.count: the layer was not given its input")
    assert "keras/src/layers/layer.py" in shown and "input_dim=" in shown and "derive.keras.count(layer" in shown
    assert format(layer.count, "") == str(layer.count) == shown
    assert "bound method" not in shown


# --- the old spelling: layer.count(input_dim) --------------------------------------------------------


@pytest.mark.parametrize(
    ("layer", "theirs", "shape", "spelled"),
    [
        (dk.LSTM(128), lambda: kl.LSTM(128), (28, 28), "LSTM(128, input_dim=28).count"),
        (
            dk.Bidirectional(dk.LSTM(128)),
            lambda: kl.Bidirectional(kl.LSTM(128)),
            (28, 28),
            "Bidirectional(LSTM(128), input_dim=28).count",
        ),
        (dk.LSTMCell(5), lambda: kl.RNN(kl.LSTMCell(5)), (3, 28), "LSTMCell(5, input_dim=28).count"),
        (dk.Dense(1), lambda: kl.Dense(1), (28,), "input_dim=28).count"),
    ],
)
def test_the_deprecated_call_warns_and_counts(layer, theirs, shape, spelled) -> None:
    with pytest.warns(DeprecationWarning, match=re.escape(spelled)) as caught:
        value = layer.count(28)
    assert value == keras_count(theirs, shape) and type(value) is int
    assert "derive.keras.count(layer, 28)" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the caller's line


def test_the_deprecated_call_on_a_sequential() -> None:
    model = keras.Sequential([keras.Input((10, 28)), kl.LSTM(64, return_sequences=True), kl.LSTM(32)])
    with pytest.warns(DeprecationWarning, match=re.escape("Sequential([LSTM(64, input_dim=28), LSTM(32)]).count")):
        assert dk.Sequential([dk.LSTM(64, return_sequences=True), dk.LSTM(32)]).count(28) == model.count_params()


def test_the_deprecated_call_with_a_symbol() -> None:
    with pytest.warns(DeprecationWarning):
        assert dk.LSTM(H).count(I) == dk.LSTM(H, input_dim=I).count


# --- inputs that disagree ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: dk.LSTM(4, input_dim=3, input_shape=(10, 5)), r"input_dim=3 and input_shape=\(10, 5\) disagree"),
        (
            lambda: dk.LSTM(4, input_shape=(10, 3), batch_input_shape=(None, 9, 3)),
            r"input_shape=\(10, 3\) and batch_input_shape=\(None, 9, 3\) disagree",
        ),
        (lambda: dk.Dense(4, input_dim=3, input_shape=(5,)), r"input_dim=3 and input_shape=\(5,\) disagree"),
        (
            lambda: dk.Bidirectional(dk.LSTM(4, input_dim=2), input_dim=3),
            r"Bidirectional's input_dim=3 and the wrapped LSTM's input_dim=2 disagree",
        ),
        (
            lambda: dk.Bidirectional(dk.LSTM(4, input_dim=3), backward_layer=dk.GRU(4, go_backwards=True, input_dim=5)),
            r"the wrapped LSTM's input_dim=3 and the backward GRU's input_dim=5 disagree",
        ),
        (lambda: dk.LSTM(4, input_shape=(5,)), r"expected ndim=3, found ndim=2"),
        (lambda: dk.LSTM(4, input_shape=(10, None)), "unknown"),
        (
            lambda: dk.LSTM(4, input_dim=3).module(5),
            r"input_dim=5 disagrees with the input it was given \(input_dim=3\)",
        ),
        (lambda: dk.count(dk.LSTM(4, input_dim=3), 5), r"input_dim=5 disagrees"),
    ],
)
def test_conflicting_inputs_are_refused(make, words) -> None:
    with pytest.raises(ValueError, match=words):
        make()


def test_the_keras_page_notebook_block_runs_as_shown() -> None:
    """The Keras page's "Use it in a notebook" code (templates/keras.md.j2) runs without a warning, and
    its numbers are Keras' own."""
    text = (Path(__file__).parents[2] / "templates" / "keras.md.j2").read_text(encoding="utf-8")
    block = text.split("## Use it in a notebook", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]
    scope: dict = {}
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for line in lines:
            if line.startswith(("import ", "from ")):
                exec(line, scope)
            else:
                values.append(eval(line, scope))
    assert values[0] == keras_count(lambda: kl.Bidirectional(kl.LSTM(128)), (28, 28))
    assert values[1] == keras_count(lambda: kl.LSTM(256), (28, 28)) == values[5]
    assert values[2] == 4 * H**2 + 4 * H * I + 4 * H
    stack = keras.Sequential([keras.Input((28, 28)), kl.Bidirectional(kl.LSTM(64, return_sequences=True)), kl.LSTM(32)])
    assert values[4] == stack.count_params()


# --- Report.count ------------------------------------------------------------------------------------------


def test_report_count_is_report_total() -> None:
    """``derive.explain(...).count`` = ``.total`` = the framework's own count: a torch module, a config, Keras code."""
    import hf_live
    import torch

    module = torch.nn.LSTM(10, 20, 2, bidirectional=True)
    report = derive.explain(module)
    assert report.count == report.total == sum(p.numel() for p in module.parameters())
    assert type(report.count) is int

    config = {"n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100, "n_positions": 32}
    report = derive.explain({"model_type": "gpt2", **config})
    assert report.count == report.total == hf_live.total(hf_live.build("gpt2", config))

    code = "model = keras.Sequential([keras.Input((10, 28)), keras.layers.Bidirectional(keras.layers.LSTM(128))])"
    report = derive.explain(code)
    assert report.count == report.total == keras_count(lambda: kl.Bidirectional(kl.LSTM(128)), (10, 28))
    assert report.to_dict()["total"] == report.count
