"""Keras code read by derive (never run) against the same code run in real Keras 3 (torch backend).

Each snippet is given to :func:`derive.read.explain` and executed with real Keras; the model
called ``model`` (or the last expression) is the real one. Totals, per-layer names and counts and
output shapes must agree. Refusals name the construct, and Keras refuses the same input.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402
from keras_code_live import PRELUDE, agree, refused_by_keras, run_real  # noqa: E402

from derive.frameworks import keras as kl_layers  # noqa: E402
from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

AGREE = {
    "function body, annotated size, imports": """
\"\"\"A model in a function.\"\"\"
import keras
from keras import layers
def build(units: int = 4):
    global model
    steps: int = 7
    rate, seed = 0.1, 3
    inputs = keras.Input(shape=(steps, 3))
    x = layers.LSTM(units, return_sequences=True)(inputs)
    x = layers.Dense(2)(x)
    model = keras.Model(inputs=inputs, outputs=x)
    model.compile(optimizer="adam")
    return model
build(5)
""",
    "Sequential(layers=None) then add and build": """
model = Sequential(layers=None)
model.add(GRU(6, return_sequences=True))
model.add(Dense(3))
model.build((None, 5, 4))
model.summary()
""",
    "input_dim on a Dense": "model = Sequential([Dense(3, input_dim=4), Dense(2)])",
    "channels_first Conv1D": "model = Sequential([Input((4, 9)), Conv1D(5, 3, data_format='channels_first')])",
    "Conv2D and Conv3D, groups and strides": """
model = Sequential([
    Input((8, 8, 4)), Conv2D(6, (3, 3), strides=2, padding='same', groups=2), Reshape((4, 4, 6, 1)),
    Conv3D(2, 2, use_bias=False),
])
""",
    "Flatten, Reshape with -1, RepeatVector": """
model = Sequential([Input((6, 4)), Flatten(), RepeatVector(3), Reshape((-1, 8)), LSTM(2)])
""",
    "pooling": """
model = Sequential([
    Input((10, 3)), MaxPooling1D(3, strides=2, padding='same'), AveragePooling1D(pool_size=(2,)),
    Conv1D(4, 1), GlobalMaxPooling1D(keepdims=True), GlobalAveragePooling1D(),
])
""",
    "channels_first pooling": """
model = Sequential([
    Input((3, 10)), MaxPooling1D(2, data_format='channels_first'),
    GlobalAveragePooling1D(data_format='channels_first'), Dense(2),
])
""",
    "BatchNormalization on axis 1, LayerNormalization axis as a list": """
model = Sequential([Input((5, 3)), BatchNormalization(axis=1), LayerNormalization(axis=[-1], scale=False)])
""",
    "Attention with scale and concat score": """
q = Input((6, 4))
v = Input((3, 4))
out = Attention(use_scale=True, score_mode='concat')([q, v])
model = Model([q, v], out)
""",
    "Concatenate on axis 1, unpacked outputs, nested Sequential applied": """
a = Input((4, 3))
out, *h = GRU(3, return_sequences=True, return_state=True)(a)
inner = Sequential([Dense(3), Dense(2)])
joined = Concatenate(axis=1)([a, out])
model = Model(a, inner(joined))
""",
    "a layer after a Bidirectional of its kind (named after the wrapped one)": """
model = Sequential([Input((3, 4)), Bidirectional(LSTM(5, return_sequences=True)), LSTM(2), Dense(1)])
""",
    "a Sequential added to a Sequential (named in creation order)": """
model = Sequential()
model.add(Input((3, 4)))
model.add(Sequential([Dense(3), Dense(2)]))
""",
    "a layer variable applied twice (shared)": """
a = Input((5, 2))
b = Input((5, 2))
shared = LSTM(3)
ha = shared(a)
hb = shared(b)
merged = Add()([ha, hb])
model = Model([a, b], Dense(1)(merged))
""",
}


@pytest.mark.parametrize("code", AGREE.values(), ids=AGREE.keys())
def test_code_agrees_with_keras(code):
    agree(code, {"units": 5} if "def build(units" in code else None)


LIST_OUTPUTS = {
    "Bidirectional with return_state: each direction's states its own width": (
        "Bidirectional(LSTM(3, return_state=True))",
        (5, 2),
    ),
    "Bidirectional with merge_mode=None: the two outputs": ("Bidirectional(LSTM(4), merge_mode=None)", (5, 3)),
    "Bidirectional GRU sequences with states": (
        "Bidirectional(GRU(2, return_sequences=True, return_state=True), merge_mode='sum')",
        (5, 3),
    ),
}


@pytest.mark.parametrize(("layer", "shape"), LIST_OUTPUTS.values(), ids=LIST_OUTPUTS.keys())
def test_list_outputs_agree_with_keras(layer, shape):
    """Layers returning lists: every output's shape as Keras gives it."""
    report = explain(f"x = Input({shape})\nouts = {layer}(x)")
    keras.backend.clear_session(free_memory=False)
    outs = eval(layer, dict(PRELUDE))(keras.Input(shape))  # the test's own code
    assert report.rows[0].output_shape == [tuple(o.shape) for o in outs]


def test_time_distributed_on_unknown_rank_and_a_sequence_sequential():
    # TimeDistributed given only --input-dim: the inner layer reads the last axis.
    code = "model = Sequential([TimeDistributed(Dense(3)), Dense(2)])"
    report = explain(code, input_dim=4)
    real = keras.Sequential([keras.Input((7, 4)), kl.TimeDistributed(kl.Dense(3)), kl.Dense(2)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    assert report.total == real.count_params()
    # A bare layer with input_dim: the rows of a one-layer model.
    conv = explain("Conv1D(6, 3)", input_dim=5)
    assert conv.total == keras.Sequential([keras.Input((9, 5)), kl.Conv1D(6, 3)]).count_params()


@example(2, 3, 2, "ConvLSTM1D", "channels_first")
@example(2, 3, 2, "ConvLSTM1D", "channels_last")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 4),
    st.sampled_from(["LSTM", "GRU", "SimpleRNN", "ConvLSTM1D"]),
    st.sampled_from(["channels_first", "channels_last"]),
)
def test_input_dim_for_recurrent_and_conv_layers(units, features, steps, kind, data_format):
    """``input_dim`` alone: derive takes the features per step; Keras built on any length agrees."""
    if kind == "ConvLSTM1D":
        code = f"{kind}({units}, 2, padding='same', data_format={data_format!r})"
        shape = (steps, features, 3) if data_format == "channels_first" else (steps, 3, features)
        real = keras.Sequential([keras.Input(shape), kl.ConvLSTM1D(units, 2, padding="same", data_format=data_format)])
    else:
        code = f"{kind}({units})"
        real = keras.Sequential([keras.Input((steps, features)), getattr(kl, kind)(units)])
    assert explain(code, framework="keras", input_dim=features).total == real.count_params()


def test_partial_counts_known_layers_like_keras():
    """``CRF`` (keras-contrib's, imported) is unknown to derive: with ``partial`` the rest is counted; the
    known layers agree with Keras (the model built with the CRF left out)."""
    code = "from keras_contrib.layers import CRF\n"
    code += "model = Sequential([Input((5, 3)), LSTM(4, return_sequences=True), CRF(9), Dense(2)])"
    with pytest.raises(SourceError, match="line 2: 'CRF' may be a layer, and derive cannot count it.*--partial"):
        explain(code)
    with pytest.raises(SourceError, match="line 1: unknown name 'CRF'; supported: .*--partial"):
        explain("model = Sequential([Input((5, 3)), CRF(9)])")
    report = explain(code, partial=True)
    real = run_real("model = Sequential([Input((5, 3)), LSTM(4, return_sequences=True)])")
    assert report.rows[0].params == real.layers[0].count_params()
    assert [(r.name, r.params, r.note) for r in report.rows[1:]] == [
        ("crf", None, "unknown layer, not counted"),
        ("dense", None, "input unknown (after an unknown layer)"),
    ]
    assert report.partial and any("CRF is not known" in note for note in report.notes)
    wrapped = explain(code.replace("CRF(9)", "TimeDistributed(CRF(9))"), partial=True)
    assert [(r.name, r.type, r.params) for r in wrapped.rows[1:2]] == [
        ("time_distributed", "TimeDistributed(CRF)", None)
    ]


def test_keras2_input_spellings_on_the_first_layer():
    """Keras 2's ``batch_input_shape`` / a wrapped layer's ``input_shape``: Keras 3 built on that shape agrees."""
    report = explain("model = Sequential([SimpleRNN(3, batch_input_shape=(2, 6, 4)), Dense(1)])")
    real = keras.Sequential([keras.Input(batch_shape=(2, 6, 4)), kl.SimpleRNN(3), kl.Dense(1)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    assert report.rows[-1].output_shape == (None, 1)
    report = explain("model = Sequential([Bidirectional(LSTM(3, input_shape=(5, 4))), Dense(2)])")
    real = keras.Sequential([keras.Input((5, 4)), kl.Bidirectional(kl.LSTM(3)), kl.Dense(2)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    assert report.rows[0].output_shape == real.layers[0].output.shape


#: Code that was refused before the reader followed the code: now read, and Keras agrees.
FOLLOWED = {
    "starred arguments": "model = Sequential([Input((4, 3)), Dense(*[2])])",
    "a loop that builds layers": "model = Sequential([Input((4, 3))])\nfor i in range(2):\n    model.add(Dense(3))",
    "a list added to a comprehension": "model = Sequential([Input((5, 4))] + [Dense(3) for _ in range(2)])",
}


@pytest.mark.parametrize("code", FOLLOWED.values(), ids=FOLLOWED.keys())
def test_followed(code):
    agree(code)


def test_a_subclassed_model_never_called_is_refused():
    """Its layers' weights do not exist until it is called on an input (Keras builds none of them)."""
    code = "class Net(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
    code += "        self.dense = layers.Dense(3)\nmodel = Net()"
    with pytest.raises(SourceError, match="line 1: Net is never called on an input in the code"):
        explain(code)
    real = run_real(code)
    assert real.count_params() == 0 and not real.dense.built
    assert (
        explain("class Net(keras.Model):\n    pass\nmodel = Net()").total
        == 0
        == run_real("class Net(keras.Model):\n    pass\nmodel = Net()").count_params()
    )


REFUSED = {
    "TimeDistributed without a layer": (
        "model = Sequential([Input((4, 3)), TimeDistributed(3)])",
        "Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: 3",
    ),
    "Bidirectional of a Dense": (
        "model = Sequential([Input((4, 3)), Bidirectional(Dense(3))])",
        "Bidirectional: layer must be a recurrent layer",
    ),
    "Sequential of a non-list": ("model = Sequential(Dense(3))", "Sequential takes a list of layer constructors"),
    "model.add of a name": (
        "model = Sequential([Input((4, 3))])\nlayer = 3\nmodel.add(layer)",
        "model.add takes a layer constructor",
    ),
    "Model without outputs": ("x = Input((4, 3))\nmodel = Model(inputs=x)", "Model(inputs, outputs) needs both"),
    "a layer applied to a literal": (
        "x = Input((4, 3))\nmodel = Model(x, Dense(2)(3))",
        "the input of dense is not a tensor derive has read",
    ),
    "a kernel of the wrong rank": (
        "model = Sequential([Input((4, 3)), Conv1D(2, (2, 2))])",
        "The `kernel_size` argument must be a tuple of 1 integers",
    ),
    "an unknown padding": (
        "model = Sequential([Input((4, 3)), Conv1D(2, 2, padding='full')])",
        "The `padding` argument must be one of",
    ),
    "an unknown attention score": (
        "q = Input((4, 3))\nmodel = Model(q, Attention(score_mode='x')([q, q]))",
        "Invalid value for argument score_mode",
    ),
    "Input without a shape": ("x = Input()\nmodel = Model(x, Dense(2)(x))", "You must pass a `shape` argument"),
    "Reshape to another size": (
        "model = Sequential([Input((3, 4)), Reshape((5, 2))])",
        "The total size of the tensor must be unchanged",
    ),
    "Reshape with -1 that does not divide": (
        "model = Sequential([Input((3, 4)), Reshape((5, -1))])",
        "The total size of the tensor must be unchanged",
    ),
    "RepeatVector of a sequence": (
        "model = Sequential([Input((3, 4, 5)), RepeatVector(2)])",
        "is incompatible with the layer: expected ndim=2, found ndim=4",
    ),
    "MaxPooling1D of a vector": (
        "model = Sequential([Input((3,)), MaxPooling1D()])",
        "is incompatible with the layer: expected ndim=3, found ndim=2",
    ),
    "TimeDistributed of a vector": (
        "model = Sequential([Input((3,)), TimeDistributed(Dense(2))])",
        "`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions",
    ),
    "Conv1D of a vector": (
        "model = Sequential([Input((3,)), Conv1D(2, 1)])",
        "is incompatible with the layer: expected ndim=3, found ndim=2",
    ),
    "Dense on an unknown last axis": (
        "model = Sequential([Input((3, None)), Dense(2)])",
        "The last dimension of the input to dense should be defined",
    ),
    "BatchNormalization on an unknown axis": (
        "model = Sequential([Input((None, 4)), BatchNormalization(axis=1)])",
        "Axis 1 of input tensor should have a defined dimension",
    ),
    "Concatenate of different ranks": (
        "a = Input((3, 4))\nb = Input((3, 4, 5))\nmodel = Model([a, b], Concatenate()([a, b]))",
        "A `Concatenate` layer requires inputs with matching shapes",
    ),
    "Concatenate of one tensor": (
        "a = Input((3, 4))\nmodel = Model(a, Concatenate()(a))",
        "A `Concatenate` layer should be called on a list",
    ),
    "Attention of one tensor": (
        "a = Input((3, 4))\nmodel = Model(a, Attention()([a]))",
        "Attention layer must be called on a list of inputs",
    ),
}


@pytest.mark.parametrize(("code", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_like_keras(code, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code)
    refused_by_keras(code)


UNKNOWN_SIZES = {
    "Flatten of an unknown length": "model = Sequential([Input((None, 4)), Flatten()])",
    "Reshape with -1 of an unknown length": "model = Sequential([Input((None, 4)), Reshape((-1, 2)), Dense(3)])",
    "layers applied without a Model": "x = Input((4, 3))\ny = LSTM(2)(x)\nmodel = Sequential([Input((2,)), Dense(1)])",
    "a model among other statements": """
if True:
    pass
a = Input((5, 2))
h = GRU(3)(a)
outputs = [Dense(1)(h), Dense(2)(h)]
model = Model(a, [h, outputs])
""",
}


@pytest.mark.parametrize("code", UNKNOWN_SIZES.values(), ids=UNKNOWN_SIZES.keys())
def test_more_code_agrees_with_keras(code):
    agree(code)


def test_loose_layers_and_keras2_lengths():
    """Layers applied to an Input with no Model: their rows; Keras 2's input_length/input_dim on the first layer."""
    report = explain("x = Input((4, 3))\ny = LSTM(2)(x)\nz = Dense(1)(y)")
    real = keras.Sequential([keras.Input((4, 3)), kl.LSTM(2), kl.Dense(1)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    report = explain("model = Sequential([LSTM(3, input_dim=4, input_length=6), Dense(1)])")
    real = keras.Sequential([keras.Input((6, 4)), kl.LSTM(3), kl.Dense(1)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    report = explain("model = Sequential([Embedding(100, 8, input_length=10), GRU(4)])")
    real = keras.Sequential([keras.Input((10,)), kl.Embedding(100, 8), kl.GRU(4)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    assert report.rows[0].output_shape == tuple(real.layers[0].output.shape)
    conv = "model = Sequential([Conv1D(5, 3, data_format='channels_first', input_shape=(4, 9))])"
    real = keras.Sequential([keras.Input((4, 9)), kl.Conv1D(5, 3, data_format="channels_first")])
    assert explain(conv, input_dim=4).total == real.count_params()
    with pytest.raises(SourceError, match="input_dim=9 contradicts the code"):
        explain(conv, input_dim=9)


def test_unknown_rank_input_dim_only():
    """Only ``input_dim``: pooling and time-distributed layers keep an unknown length, counts as Keras' on any length."""
    report = explain("model = Sequential([MaxPooling1D(2), GlobalMaxPooling1D(), Dense(3)])", input_dim=4)
    real = keras.Sequential([keras.Input((8, 4)), kl.MaxPooling1D(2), kl.GlobalMaxPooling1D(), kl.Dense(3)])
    assert [r.params for r in report.rows] == [layer.count_params() for layer in real.layers]
    with pytest.raises(SourceError, match="conv1d: the input shape is unknown; give the model's input shape"):
        explain("Conv1D(2, 3, data_format='channels_first')", framework="keras", input_dim=4)
    with pytest.raises(SourceError, match="batch_normalization: the input shape is unknown"):
        explain("BatchNormalization(axis=1)", framework="keras", input_dim=4)


MORE_REFUSED = {
    "Conv1D on unknown channels": (
        "model = Sequential([Input((5, None)), Conv1D(2, 1)])",
        "conv1d: the channel dimension of the inputs should be defined",
    ),
    "channels not divisible by groups": (
        "model = Sequential([Input((5, 3)), Conv1D(4, 1, groups=2)])",
        "The number of input channels must be evenly divisible by the number of groups",
    ),
    "BatchNormalization on an axis out of range": (
        "model = Sequential([Input((3, 4)), BatchNormalization(axis=5)])",
        "Invalid axis: 5",
    ),
    "Dense on a scalar input": (
        "a = Input(())\nmodel = Model(a, Dense(2)(a))",
        "the last dimension of its input is unknown",
    ),
    "Add of one tensor": ("a = Input((3, 4))\nmodel = Model(a, Add()(a))", "A merge layer should be called on a list"),
    "Model of a name that is not a tensor": (
        "a = Input((3, 4))\nb = 3\nmodel = Model(a, b)",
        "the outputs of Model are not tensors derive has read",
    ),
    "a layer called without an input": (
        "a = Input((3, 4))\nmodel = Model(a, Dense(2)())",
        "cannot read this layer call",
    ),
}


@pytest.mark.parametrize(("code", "words"), MORE_REFUSED.values(), ids=MORE_REFUSED.keys())
def test_more_refused_like_keras(code, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code)
    refused_by_keras(code)


def test_refused_where_keras_is_not_asked():
    """Input sizes the code does not leave open, and code with no model: refused with the reason."""
    with pytest.raises(SourceError, match="input_dim does not apply to a functional model"):
        explain("a = Input((3, 4))\nmodel = Model(a, Dense(2)(a))", input_dim=4)
    with pytest.raises(SourceError, match="the Sequential model has no layers"):
        explain("model = Sequential([])")
    with pytest.raises(SourceError, match="the Sequential model has no layers"):
        explain("model = Sequential([Input((3,))])")
    with pytest.raises(SourceError, match="no Keras model found"):
        explain("units = 3\nx = np.zeros(units)\ny = table[0](units)", framework="keras")
    with pytest.raises(SourceError, match="input_dim=4 does not apply: the model starts with an Embedding"):
        explain("Embedding(100, 8)", framework="keras", input_dim=4)
    with pytest.raises(SourceError, match="input_dim=4 does not apply: the model starts with an Embedding"):
        explain("Embedding(100, 8, input_length=5)", framework="keras", input_dim=4)
    with pytest.raises(SourceError, match="--input-dim is required"):
        explain("model = Sequential([Dense(2)])")
    with pytest.raises(TypeError, match="only one int `axis` is supported"):
        kl_layers.LayerNormalization(axis=(1, 2))
    kl.LayerNormalization(axis=(1, 2))  # Keras takes several axes; derive refuses them
    with pytest.raises(ValueError, match="Please initialize `TimeDistributed` layer with a `keras.layers.Layer`"):
        kl_layers.TimeDistributed(3)
    with pytest.raises(ValueError, match="Please initialize `TimeDistributed` layer with a `keras.layers.Layer`"):
        kl.TimeDistributed(3)


@pytest.mark.parametrize(
    ("code", "input_dim", "built"),
    [
        ("x = LSTM(64, input_shape=(10, 8))", None, lambda: kl.LSTM(64)),
        ("lstm: layers.GRU = layers.GRU(16)", 4, lambda: kl.GRU(16)),
        ("self.rnn = Bidirectional(SimpleRNN(5, input_dim=3))", None, lambda: kl.Bidirectional(kl.SimpleRNN(5))),
    ],
    ids=["assigned", "annotated", "attribute"],
)
def test_a_layer_assigned_where_the_code_makes_no_model(code, input_dim, built):
    """A line copied out of a model's code assigns one layer and makes no model: that layer is the answer,
    its weights as Keras builds them on the same input (before: "no Keras model found")."""
    report = explain(code, framework="keras", input_dim=input_dim)
    keras.backend.clear_session(free_memory=False)
    layer = built()
    layer.build((None, 10, 8) if input_dim is None and "LSTM" in code else (None, 7, input_dim or 3))
    assert report.total == layer.count_params()
    assert [tuple(t["shape"]) for t in report.tensors] == [tuple(w.shape) for w in layer.weights]
