"""Keras code as askers paste it (issue 26): ``model.add(...)`` lines without their ``Sequential()``
line. Each is checked against the model real Keras 3
(torch backend) builds from the same lines completed or respelled; each near miss is refused."""

from __future__ import annotations

import pytest

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

from derive.models import explain  # noqa: E402
from derive.models.source import SourceError  # noqa: E402


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
