"""Keras functional models, live and saved as ``.keras``: derived layer by layer, checked against Keras."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402
from keras_specs import make, model  # noqa: E402

from derive.read import explain  # noqa: E402


def real_rows(m) -> list[tuple[str, int]]:
    return [(layer.name, layer.count_params()) for layer in m.layers if not isinstance(layer, kl.InputLayer)]


def check(m, tmp_path=None) -> None:
    report = explain(m)
    assert not any("numeric" in r.note for r in report.rows), report.notes
    assert [(r.name, r.params) for r in report.rows] == real_rows(m)
    assert report.total == m.count_params()
    for row, layer in zip(report.rows, [x for x in m.layers if not isinstance(x, kl.InputLayer)], strict=True):
        out = layer.output
        if not isinstance(out, (list, tuple)):
            assert row.output_shape == tuple(out.shape), layer.name
    if tmp_path is not None:
        path = str(tmp_path / "m.keras")
        m.save(path)
        saved = explain(path)
        assert [(r.name, r.params) for r in saved.rows] == real_rows(m)
        assert saved.total == m.count_params()


def seq2seq():
    e, d = keras.Input((None, 7)), keras.Input((None, 5))
    _, h, c = kl.LSTM(16, return_state=True)(e)
    o, _, _ = kl.LSTM(16, return_sequences=True, return_state=True)(d, initial_state=[h, c])
    return keras.Model([e, d], kl.Dense(5, activation="softmax")(o))


def residual():
    x = keras.Input((12, 8))
    y = kl.LSTM(8, return_sequences=True)(x)
    y = kl.Add()([x, y])
    y = kl.LayerNormalization()(y)
    return keras.Model(x, kl.GRU(4)(y))


def two_branches():
    tokens, extra = keras.Input((20,)), keras.Input((3,))
    z = kl.Embedding(100, 8)(tokens)
    z = kl.Bidirectional(kl.LSTM(6))(z)
    z = kl.Concatenate()([z, extra])
    return keras.Model([tokens, extra], kl.Dense(2)(z))


def shared_layer():
    a, b = keras.Input((9, 4)), keras.Input((9, 4))
    rnn = kl.GRU(5)
    return keras.Model([a, b], kl.Dense(1)(kl.Concatenate()([rnn(a), rnn(b)])))


def nested_sequential():
    inner = keras.Sequential([kl.Dense(6), kl.Dense(3)])
    x = keras.Input((10, 4))
    return keras.Model(x, inner(kl.SimpleRNN(5, return_sequences=True)(x)))


def attention():
    q = keras.Input((6, 8))
    h = kl.LSTM(8, return_sequences=True)(q)
    return keras.Model(q, kl.Attention()([h, q]))


def masked():
    """Masking after a layer: Keras puts operations (NotEqual, Any) in the config, not in model.layers."""
    x = keras.Input((4, 3))
    y = kl.Masking()(kl.LSTM(3, return_sequences=True)(x))
    return keras.Model(x, kl.Dense(1)(kl.LSTM(2)(y)))


# Keras' torch backend converting its own tensors in model.save; not our code.
@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")
@pytest.mark.parametrize("build", [seq2seq, residual, two_branches, shared_layer, nested_sequential, attention, masked])
def test_functional_models_derived(build, tmp_path):
    check(build(), tmp_path)


# Keras warns when the real model passes a Masking mask to a layer that drops it.
@pytest.mark.filterwarnings("ignore:Layer '.*' \\(of type .*\\) was passed an input with a mask:UserWarning")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model())
def test_generated_functional_models(spec):
    embed, steps, features, layers = spec
    inputs = keras.Input((steps,)) if embed else keras.Input((steps, features))
    x = kl.Embedding(50, features)(inputs) if embed else inputs
    for s in layers:
        x = make(s)(x)
    check(keras.Model(inputs, x))


def test_unknown_layer_falls_back_to_keras_numbers():
    x = keras.Input((5, 3))
    noise = kl.EinsumDense("abc,cd->abd", output_shape=(5, 3), bias_axes="d")
    m = keras.Model(x, kl.Dense(2)(noise(kl.LSTM(4, return_sequences=True)(x))))
    report = explain(m)
    assert report.total == m.count_params()
    assert [(r.name, r.params) for r in report.rows] == real_rows(m)
    rows = {r.type: r for r in report.rows}
    # EinsumDense (unknown to derive) is counted from its weights; the layers around it are derived.
    assert rows["EinsumDense"].formula is None and rows["Dense"].formula is not None and not report.partial


class Scale(kl.Layer):
    """A custom layer derive does not know: a per-feature gain and a frozen offset."""

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1],), name="gain")
        self.offset = self.add_weight(shape=(3,), name="offset", trainable=False)

    def call(self, x):
        return x * self.gain


# Keras warns when the real model passes a Masking mask to a layer that drops it.
@pytest.mark.filterwarnings("ignore:Layer '.*' \\(of type .*\\) was passed an input with a mask:UserWarning")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model(), st.integers(0, 4))
def test_live_models_with_a_custom_layer_are_counted(spec, where):
    embed, steps, features, layers = spec
    inputs = keras.Input((steps,)) if embed else keras.Input((steps, features))
    x = kl.Embedding(50, features)(inputs) if embed else inputs
    built = [make(s) for s in layers]
    built.insert(min(where, len(built)), Scale())
    for layer in built:
        x = layer(x)
    m = keras.Model(inputs, x)
    report = explain(m)
    assert report.total == m.count_params() and not report.partial
    assert [(r.name, r.params) for r in report.rows] == real_rows(m)
    (scale,) = [r for r in report.rows if r.type == "Scale"]
    assert scale.note == "numeric, not derived" and scale.formula is None
    assert [t["name"].split("/")[-1] for t in report.tensors if t["name"].startswith(scale.name + "/")] == [
        "gain",
        "offset",
    ]
    assert [t.get("trainable", True) for t in report.tensors if t["name"].startswith(scale.name + "/")] == [
        True,
        False,
    ]
    assert all(r.formula is not None for r in report.rows if r.type not in ("Scale",) and r.params)


def test_live_custom_layer_alone_and_not_built():
    layer = Scale()
    report = explain(layer)
    assert report.partial and report.total == 0 and report.to_dict()["partial"] is True
    assert "partial: the total is a lower bound; 1 part not counted" in report.text()
    layer.build((None, 4))
    report = explain(layer)
    assert report.total == layer.count_params() == 7 and not report.partial


# Keras' torch backend converting its own tensors in model.save; not our code.
@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")
def test_keras_file_with_a_custom_layer(tmp_path):
    import zipfile

    m = keras.Sequential(
        [keras.Input((10, 8)), kl.LSTM(16, return_sequences=True), Scale(), kl.Bidirectional(kl.GRU(4)), kl.Dense(2)]
    )
    path = tmp_path / "m.keras"
    m.save(str(path))
    report = explain(str(path))
    assert report.total == m.count_params() and not report.partial
    assert [(r.name, r.params) for r in report.rows] == real_rows(m)
    # Without its weights file the config alone cannot count the custom layer, nor the layers after it.
    bare = tmp_path / "bare.keras"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(bare, "w") as target:
        for name in source.namelist():
            if name != "model.weights.h5":
                target.writestr(name, source.read(name))
    report = explain(str(bare))
    assert report.partial and report.to_dict()["partial"] is True
    assert [r.name for r in report.rows if r.params is None] == [layer.name for layer in m.layers[1:]]
    assert report.total == m.layers[0].count_params() < m.count_params()
    assert "the total is a lower bound" in report.text()
