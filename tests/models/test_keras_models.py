"""Keras models pasted as code, counted by derive and by real Keras 3 (torch backend): totals and per layer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402
from keras_specs import make, model, text  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402


def per_layer(m) -> list[int]:
    return [layer.count_params() for layer in m.layers]


# Keras warns when the real model (built below) passes a Masking mask to a layer that drops it.
@pytest.mark.filterwarnings("ignore:Layer '.*' \\(of type .*\\) was passed an input with a mask:UserWarning")
@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model())
def test_sequential_equals_keras(spec):
    embed, steps, features, layers = spec
    if embed:
        first = ("Embedding", (50, features), {})
        inputs, code_inputs = keras.Input((steps,)), f"Input(({steps},))"
        layers = [first] + layers
    else:
        inputs, code_inputs = keras.Input((steps, features)), f"Input(({steps}, {features}))"
    code = "Sequential([" + ", ".join([code_inputs] + [text(s) for s in layers]) + "])"
    report = explain(code)
    real = keras.Sequential([inputs] + [make(s) for s in layers])
    assert report.total == real.count_params()
    assert [r.params for r in report.rows] == per_layer(real)
    assert [r.output_shape for r in report.rows][-1] == tuple(real.output_shape)


# Keras warns when the real model (built below) passes a Masking mask to a layer that drops it.
@pytest.mark.filterwarnings("ignore:Layer '.*' \\(of type .*\\) was passed an input with a mask:UserWarning")
@settings(max_examples=140, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model())
def test_functional_and_add_forms_agree_with_keras(spec):
    _, steps, features, layers = spec
    lines = [f"inputs = keras.Input(shape=({steps}, {features}))", "x = inputs"]
    lines += [f"x = layers.{text(s)}(x)" for s in layers]
    lines.append("model = keras.Model(inputs, x)")
    inputs = keras.Input(shape=(steps, features))
    x = inputs
    for s in layers:
        x = make(s)(x)
    real = keras.Model(inputs, x)
    report = explain("\n".join(lines))
    assert report.total == real.count_params()
    added = ["model = Sequential()", f"model.add(LSTM(3, return_sequences=True, input_shape=({steps}, {features})))"]
    added += [f"model.add({text(s)})" for s in layers]
    real_added = keras.Sequential(
        [keras.Input((steps, features)), kl.LSTM(3, return_sequences=True)] + [make(s) for s in layers]
    )
    assert explain("\n".join(added)).total == real_added.count_params()


def test_issue_examples():
    assert (
        explain("Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])").total
        == keras.Sequential([keras.Input((None,)), kl.Embedding(10000, 128), kl.LSTM(64), kl.Dense(1)]).count_params()
    )
    assert (
        explain("LSTM(64, input_shape=(100, 8))").total
        == keras.Sequential([keras.Input((100, 8)), kl.LSTM(64)]).count_params()
    )
    convlstm = "ConvLSTM2D(16, (3, 3), data_format='channels_first', input_shape=(8, 1, 240, 24))"
    real = keras.Sequential([keras.Input((8, 1, 240, 24)), kl.ConvLSTM2D(16, (3, 3), data_format="channels_first")])
    report = explain(convlstm)
    assert report.total == real.count_params() == 9856
    assert report.rows[0].output_shape == tuple(real.output_shape)
    with pytest.raises(SourceError, match="input_dim=24 contradicts the code"):
        explain(convlstm, input_dim=24)
    assert explain(convlstm, input_dim=1).total == 9856


def test_repeated_names_follow_keras():
    report = explain("Sequential([Input((5, 3)), LSTM(4, return_sequences=True), LSTM(4), Dense(2), Dense(1)])")
    assert [r.name for r in report.rows] == ["lstm", "lstm_1", "dense", "dense_1"]


def test_encoder_decoder_with_states():
    code = """
encoder_inputs = Input(shape=(None, 71))
encoder = LSTM(256, return_state=True)
encoder_outputs, state_h, state_c = encoder(encoder_inputs)
decoder_inputs = Input(shape=(None, 93))
decoder_lstm = LSTM(256, return_sequences=True, return_state=True)
decoder_outputs, _, _ = decoder_lstm(decoder_inputs, initial_state=[state_h, state_c])
decoder_dense = Dense(93, activation="softmax")
decoder_outputs = decoder_dense(decoder_outputs)
model = Model([encoder_inputs, decoder_inputs], decoder_outputs)
encoder_model = Model(encoder_inputs, [state_h, state_c])
"""
    ei = keras.Input((None, 71))
    _, h, c = kl.LSTM(256, return_state=True)(ei)
    di = keras.Input((None, 93))
    out, _, _ = kl.LSTM(256, return_sequences=True, return_state=True)(di, initial_state=[h, c])
    real = keras.Model([ei, di], kl.Dense(93, activation="softmax")(out))
    assert explain(code).total == real.count_params()


def test_unknown_layer_refused_then_partial():
    code = "Sequential([Input((10, 4)), LSTM(8, return_sequences=True), CRF(4), Dense(1)])"
    with pytest.raises(SourceError, match=r"line 1: unknown name 'CRF'; supported: .*LSTM"):
        explain(code)
    report = explain(code, partial=True)
    assert report.rows[0].params == keras.Sequential([keras.Input((10, 4)), kl.LSTM(8)]).count_params()
    assert report.rows[1].params is None


def test_wrong_rank_worded_like_keras():
    with pytest.raises(SourceError, match="expected ndim=3, found ndim=2"):
        explain("Sequential([Input((10,)), LSTM(8)])")
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        keras.Sequential([keras.Input((10,)), kl.LSTM(8)])
