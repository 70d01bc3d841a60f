"""Keras functional configs (``model.get_config()``): read by derive, compared with real Keras 3; broken ones refused."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

from derive.read.configs import keras_functional  # noqa: E402
from derive.read.configs.keras_functional import explain_functional_config  # noqa: E402
from derive.read.source import SourceError  # noqa: E402


def rows(m) -> list[tuple[str, int]]:
    return [(layer.name, layer.count_params()) for layer in m.layers if not isinstance(layer, kl.InputLayer)]


def with_op(steps: int = 4, features: int = 3, units: int = 2):
    """A layer applied to the output of a keras.ops operation (kept in the config, not in model.layers)."""
    keras.backend.clear_session(free_memory=False)  # names as in a fresh session: multiply, lstm, dense
    x = keras.Input((steps, features))
    y = keras.ops.multiply(x, 2.0)
    return keras.Model(x, kl.Dense(units)(kl.LSTM(units, return_sequences=True)(y)))


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 5))
def test_layer_on_an_operation(steps, features, units):
    real = with_op(steps, features, units)
    config = real.get_config()
    report = explain_functional_config(config)
    assert [(r.name, r.params) for r in report.rows] == rows(real)
    assert report.total == real.count_params()
    assert report.rows[-1].output_shape == tuple(real.output.shape)
    # The wrapped form {"class_name": "Functional", "config": ...} reads the same.
    assert explain_functional_config({"class_name": "Functional", "config": config}).total == real.count_params()


def layers_of(config: dict) -> list[dict]:
    return config["layers"]


def lstm_entry(config: dict) -> dict:
    return next(e for e in layers_of(config) if e["class_name"] == "LSTM")


def breaks() -> dict:
    """Broken configs: (change, words of derive's refusal, whether Keras' from_config refuses too)."""

    def no_layers(c):
        c["layers"] = []

    def nameless(c):
        del layers_of(c)[1]["name"]

    def input_without_shape(c):
        del layers_of(c)[0]["config"]["batch_shape"]

    def not_called(c):
        lstm_entry(c)["inbound_nodes"] = []

    def call_without_args(c):
        lstm_entry(c)["inbound_nodes"][0]["args"] = []

    def literal_input(c):
        lstm_entry(c)["inbound_nodes"][0]["args"] = [3]

    def op_without_shape(c):
        del lstm_entry(c)["inbound_nodes"][0]["args"][0]["config"]["shape"]

    def malformed_history(c):
        lstm_entry(c)["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = ["multiply", "0", 0]

    def unknown_producer(c):
        lstm_entry(c)["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = ["nowhere", 0, 0]

    return {
        "no layers": (no_layers, "not a Keras functional config (no layers)", True),
        "a layer without a name": (nameless, "a layer without a name", True),
        "an InputLayer without batch_shape": (input_without_shape, "an InputLayer without batch_shape", True),
        "a layer not called": (not_called, "not called on anything (no inbound_nodes)", False),
        "a call without arguments": (call_without_args, "a call without arguments", True),
        "a literal input": (literal_input, "an input that is not a Keras tensor reference", True),
        "an operation's output without a shape": (
            op_without_shape,
            "input from operation multiply without a shape",
            False,
        ),
        "a malformed keras_history": (malformed_history, "an input that is not a Keras tensor reference", True),
        "an input from no layer": (unknown_producer, "input nowhere[0][0] is not produced before it", True),
    }


BREAKS = breaks()


@pytest.mark.slow
@pytest.mark.parametrize(("change", "words", "keras_refuses"), BREAKS.values(), ids=BREAKS.keys())
def test_broken_config_refused(change, words, keras_refuses):
    config = copy.deepcopy(with_op().get_config())
    change(config)
    with pytest.raises(SourceError, match=re.escape(words)):
        explain_functional_config(config)
    if keras_refuses:
        with pytest.raises(Exception):  # Keras raises KeyError, ValueError, ...
            keras.Model.from_config(config)


def test_not_a_config_and_too_many_layers(monkeypatch):
    for value in (None, [], {"config": {"layers": "x"}}):
        with pytest.raises(SourceError, match="not a Keras functional config"):
            explain_functional_config(value)
    config = with_op().get_config()
    monkeypatch.setattr(keras_functional, "MAX_LAYERS", 2)
    with pytest.raises(SourceError, match="more than 2 layers"):
        explain_functional_config(config)


def test_config_dispatch_and_sequential_refusals():
    from derive.read.configs.keras_functional import explain_keras_config, explain_sequential_config

    with pytest.raises(SourceError, match="not a Keras model config"):
        explain_keras_config([1])
    with pytest.raises(SourceError, match="not subclassed models"):
        explain_keras_config({"class_name": "MyModel", "config": {"layers": []}})
    with pytest.raises(SourceError, match="no layers"):
        explain_sequential_config({"config": {"layers": "x"}})
    only_input = keras.Sequential([keras.Input((3, 2))]).get_config()
    with pytest.raises(SourceError, match="the Sequential config has no layers"):
        explain_keras_config({"class_name": "Sequential", "config": only_input})
    # Arguments the layer refuses, named with the layer (Keras refuses them too).
    config = keras.Sequential([keras.Input((3, 2)), kl.Dense(4, name="head")]).get_config()
    config["layers"][1]["config"]["units"] = -1
    with pytest.raises(SourceError, match="layer head: Dense"):
        explain_keras_config({"class_name": "Sequential", "config": config})
    with pytest.raises(ValueError):
        kl.Dense(-1)
