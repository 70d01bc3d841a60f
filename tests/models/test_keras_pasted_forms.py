"""Keras code as askers paste it (issue 26): ``model.add(...)`` lines without their ``Sequential()``
line, and Keras 1's ``Model(input=..., output=...)``. Each is checked against the model real Keras 3
(torch backend) builds from the same lines completed or respelled; each near miss is refused."""

from __future__ import annotations

import re

import pytest

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402


def weights(m) -> list[tuple[str, tuple[int, ...]]]:
    return [(w.path, tuple(w.shape)) for w in m.weights]


def tensors(report) -> list[tuple[str, tuple[int, ...]]]:
    return [(t["name"], tuple(t["shape"])) for t in report.tensors]


ADDS = "model.add(SimpleRNN(10, input_shape=(3, 1)))\nmodel.add(Dense(1, activation='linear'))"


@pytest.mark.filterwarnings("ignore:Do not pass an `input_shape`:UserWarning")
@pytest.mark.parametrize("code", [ADDS, "from keras.layers import SimpleRNN, Dense\n\n" + ADDS])
def test_add_lines_without_their_sequential_line(code):
    keras.backend.clear_session()  # Keras' names, as a fresh session gives them
    real = keras.Sequential()
    real.add(kl.SimpleRNN(10, input_shape=(3, 1)))
    real.add(kl.Dense(1, activation="linear"))
    report = explain(code, framework="keras")
    assert report.total == real.count_params() and tensors(report) == weights(real)
    line = code.splitlines().index(ADDS.splitlines()[0]) + 1
    assert f"line {line}: model.add(...) on a model the code never makes" in " ".join(report.notes)


@pytest.mark.parametrize(
    "code",
    [
        "model = make()\nmodel.add(SimpleRNN(10, input_shape=(3, 1)))",  # model is made, by code not read
        "net.add(SimpleRNN(10, input_shape=(3, 1)))\nmodel.add(Dense(1))",  # two names: which is the model?
        "def f(model):\n    return model\nmodel.add(SimpleRNN(10, input_shape=(3, 1)))",  # model bound (a parameter)
    ],
)
def test_add_lines_on_a_name_the_code_binds_or_several_names_are_not_completed(code):
    with pytest.raises(SourceError) as refused:
        explain(code, framework="keras")
    assert "never makes" not in str(refused.value)


KERAS1 = """
inputs = Input(shape=(3, 1))
lstm = LSTM(2)(inputs)
model = Model(input=inputs, output=lstm)
"""


def test_keras1_model_keywords_are_read_as_keras2_read_them():
    inputs = keras.Input(shape=(3, 1))
    real = keras.Model(inputs=inputs, outputs=kl.LSTM(2)(inputs))
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Model"):
        keras.Model(input=inputs, output=real.outputs)  # Keras 3 refuses the old spelling
    report = explain(KERAS1)
    assert report.total == real.count_params() and [r.params for r in report.rows] == [32]
    assert sorted(s for _, s in tensors(report)) == sorted(s for _, s in weights(real))
    assert "line 4: Model(input=, output=) is Keras 1's spelling of inputs=, outputs=" in " ".join(report.notes)


def test_keras1_model_keywords_in_a_subclassed_model():
    code = """
class Net(keras.Model):
    def __init__(self):
        inputs = keras.Input(shape=(3, 1))
        super().__init__(input=inputs, output=keras.layers.LSTM(2)(inputs))

model = Net()
"""
    inputs = keras.Input(shape=(3, 1))
    assert explain(code).total == keras.Model(inputs, kl.LSTM(2)(inputs)).count_params()


@pytest.mark.parametrize(
    "model,words",
    [
        (
            "Model(input=inputs, inputs=inputs, output=lstm)",
            "both the Keras 1 keyword input= and the Keras 2 keyword inputs=",
        ),
        ("Model(input=inputs)", "Model(inputs, outputs) needs both"),
    ],
)
def test_keras1_model_keywords_refused_where_keras2_refused(model, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(KERAS1.replace("Model(input=inputs, output=lstm)", model))


#: Layers pasted as the list a ``Sequential([...])`` takes, without it (bare names, ``layers.``, ``keras.layers.``).
LISTS = [
    "[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]",
    "[layers.GRU(16, return_sequences=True), layers.SimpleRNN(8)]",
    "[keras.layers.LSTM(32, return_sequences=True), keras.layers.Bidirectional(keras.layers.GRU(8)), Dense(1)]",
    "[\n    Bidirectional(LSTM(64, return_sequences=True)),\n    LSTM(32),\n]",
]


@pytest.mark.parametrize("text", LISTS)
def test_a_pasted_list_of_layers_is_the_sequential_of_them(text):
    """``keras.Sequential([keras.Input((None, 16)), *layers])``, as Keras 3 builds it: its count_params() and
    every weight's path and shape."""
    keras.backend.clear_session()  # Keras' names, as a fresh session gives them
    scope = {n: getattr(kl, n) for n in dir(kl) if n[:1].isupper()}
    scope.update(keras=keras, layers=kl)
    real = keras.Sequential([keras.Input((None, 16)), *eval(text, scope)])  # test text, trusted
    report = explain(text, input_dim=16)
    assert report.total == real.count_params() and tensors(report) == weights(real)
    assert "the pasted list of layers read as Sequential([...]) of them" in " ".join(report.notes)


@pytest.mark.parametrize(
    "text,options,words",
    [
        (LISTS[0], {}, "--input-dim is required"),
        ("[LSTM(32, 64), LSTM(16)]", {"input_dim": 4}, "item 0, LSTM(...), is a torch constructor"),
        ("[LSTM(32)]", {"framework": "torch"}, "a pasted list of layers is read as the keras.Sequential of them"),
        ("[LSTM(64), 3]", {"input_dim": 4}, "item 1 of the pasted list is not a layer's constructor"),
        ("[nn.Linear(3, 4)]", {}, "item 0, nn.Linear(...), is a torch constructor"),
        ("[Net(3)]", {}, "its names are no Keras layers derive knows: say it is Keras code with --keras"),
    ],
)
def test_a_pasted_list_keras_cannot_build_or_not_keras_is_refused(text, options, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(text, **options)
