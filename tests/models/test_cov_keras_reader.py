"""The Keras code reader's constructs, each read by derive and run by real Keras 3 (torch backend).

Classes of the code (custom layers with ``build``/``add_weight``, subclassed models, subclasses of
Keras' own layers), Keras' layer API (``get_layer``, ``build``, ``add``, attributes), wrappers of
the code's layers, shared and nested models, forks on unknown conditions: the weights' paths and
shapes, every layer's count and the total must be Keras'. What derive cannot read is refused with
the line and the reason, and the refusals are checked too.
"""

from __future__ import annotations

import re

import pytest

keras = pytest.importorskip("keras")
from keras_code_live import built, same_as_keras  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

SAME = {
    "a custom layer: build with several shapes by name, compute_output_shape, a weight in __init__": """
class Pair(layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.bias = self.add_weight(shape=(units,), initializer="zeros", name="pair_bias")

    def build(self, a_shape, b_shape):
        self.wa = self.add_weight(shape=(a_shape[-1], self.units))
        self.wb = self.add_weight(shape=(b_shape[-1], self.units), trainable=False)

    def call(self, a, b):
        return keras.ops.matmul(a, self.wa) + keras.ops.matmul(b, self.wb) + self.bias

    def compute_output_shape(self, a_shape, b_shape):
        return a_shape[:-1] + (self.units,)

x = Input((5, 3))
y = Input((5, 2))
out = Pair(4, name="pair")(x, y)
model = Model([x, y], Dense(2)(out))
""",
    "a subclass of Keras' own layer (its name from the subclass), and its layers tracked in a dict": """
class Projection(layers.Dense):
    pass

class Heads(keras.Model):
    def __init__(self):
        super().__init__()
        self.heads = {}
        self.heads["a"] = Projection(3)
        self.heads.update({"b": layers.Dense(2)})
        self.heads.setdefault("c", layers.Dense(1))
        self.extra = []
        self.extra.extend([layers.Dense(2)])
        self.extra.insert(0, layers.Dense(3))
        self.extra[1] = layers.Dense(5)

    def call(self, x):
        outs = [self.heads[k](x) for k in ("a", "b", "c")]
        for layer in self.extra:
            x = layer(x)
        return outs + [x]

model = Heads()
model(keras.Input((4,)))
""",
    "TimeDistributed of a Sequential and of a custom layer (built in the wrapper's scope)": """
class Gain(layers.Layer):
    def build(self, input_shape):
        self.g = self.add_weight(shape=(input_shape[-1],), name="g")

    def call(self, x):
        return x * self.g

    def compute_output_shape(self, input_shape):
        return input_shape

frames = Input((6, 8, 8, 1))
cnn = Sequential([layers.Conv2D(4, 3), layers.GlobalAveragePooling2D()])
x = layers.TimeDistributed(cnn)(frames)
x = layers.TimeDistributed(Gain())(x)
model = Model(frames, layers.LSTM(3)(x))
""",
    "a functional model used as a layer, get_layer, layer attributes, methods that change nothing": """
inp = Input((7,))
base = Model(inp, Dense(4, name="feat")(inp), name="base")
a, b = Input((7,)), Input((7,))
joined = layers.concatenate([base(a), base(b)])
model = Model([a, b], Dense(1)(joined))
units = model.get_layer("base").get_layer("feat").units + base.get_layer(index=1).units
model.compile(optimizer="adam")
model.summary()
assert model.built and base.name == "base" and len(model.layers) == 5
model2 = Sequential([Input((units,)), Dense(2)])
""",
    "model.build on a Sequential and on a subclassed model with a build of its own": """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(3)
        self.norm = layers.LayerNormalization()

    def build(self, input_shape):
        self.dense.build(input_shape)
        self.norm.build(input_shape[:-1] + (3,))

    def call(self, x):
        return self.norm(self.dense(x))

model = Net()
model.build((None, 5))
seq = Sequential([Dense(2), Dense(1)])
seq.build((None, 4))
""",
    "add to a built Sequential, Input added, an InputLayer first, a Lambda layer": """
model = Sequential()
model.add(Input((4, 3)))
model.add(LSTM(5, return_sequences=True))
model.add(layers.Lambda(lambda t: t[:, -1, :]))
model.add(Dense(2))
other = Sequential([layers.InputLayer(shape=(3,)), Dense(2)])
""",
    "a loop over an unknown range does not change the layers (a training loop)": """
import os
model = Sequential([Input((3,)), Dense(2)])
for epoch in range(int(os.environ.get("EPOCHS", "3"))):
    history = model.fit
""",
    "an if on an unknown value that builds the same layers either way": """
import os
inputs = Input((6,))
if os.environ.get("WIDE"):
    hidden = Dense(8, activation="relu")(inputs)
else:
    hidden = Dense(8, activation="tanh")(inputs)
model = Model(inputs, Dense(1)(hidden))
""",
    "keras.Variable held by a custom layer; isinstance of Keras' classes": """
class Offset(layers.Layer):
    def build(self, input_shape):
        self.offset = keras.Variable(keras.ops.zeros((input_shape[-1],)), name="offset")

    def call(self, x):
        assert isinstance(x, keras.KerasTensor) or not isinstance(self, keras.Model)
        return x + self.offset

x = Input((4,))
model = Model(x, Offset()(x))
""",
}


@pytest.mark.parametrize("code", SAME.values(), ids=SAME.keys())
def test_same_as_keras(code):
    same_as_keras(code)


REFUSED = {
    "an InputLayer called": (
        "x = Input((3,))\nlayer = layers.InputLayer(shape=(3,))\ny = layer(x)",
        "is an InputLayer",
    ),
    "a layer called on nothing": ("d = Dense(2)\ny = d()", "cannot read this layer call"),
    "a layer called again on another width": (
        "d = Dense(2)\na = d(Input((3,)))\nb = d(Input((4,)))",
        "dense is called on an input of another width than when it was built",
    ),
    "a class without call": (
        "class Empty(layers.Layer):\n    pass\nx = Input((3,))\ny = Empty()(x)",
        "Empty has no call() method derive can read",
    ),
    "a name given positionally to add_weight": (
        "class W(layers.Layer):\n    def build(self, s):\n        self.w = self.add_weight('w', (3,))\n"
        "    def call(self, x):\n        return x\nx = Input((3,))\ny = W()(x)",
        "`name` must be passed as a keyword argument",
    ),
    "a weight of a shape derive does not know": (
        "import os\nclass W(layers.Layer):\n    def build(self, s):\n"
        "        self.w = self.add_weight(shape=(int(os.environ['N']),))\n"
        "    def call(self, x):\n        return x\nx = Input((3,))\ny = W()(x)",
        "the shape of a weight of w is not known",
    ),
    "an unexpected keyword to Layer.__init__": (
        "class W(layers.Layer):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
        "    def call(self, x):\n        return x\nx = Input((3,))\ny = W(units=3)(x)",
        "Unrecognized keyword arguments passed to W: ['units']",
    ),
    "a Sequential handed to a function derive does not read": (
        "from mylib import add_blocks\nmodel = Sequential([Input((3,)), Dense(2)])\nadd_blocks(model)",
        "add_blocks(...) is not read by derive and receives sequential",
    ),
    "a functional model called on another shape": (
        "i = Input((3,))\nm = Model(i, Dense(2)(i))\ny = m(Input((4,)))",
        "is called on inputs of shapes",
    ),
    "a layer name with a slash": (
        "model = Sequential([Input((3,)), Dense(2, name='a/b')])",
        "cannot contain character `/`",
    ),
    "an Input without a shape derive knows": (
        "import os\nx = Input((int(os.environ['N']),))\nmodel = Model(x, Dense(2)(x))",
        "the input shape is not known",
    ),
    "a layer built outside the scope of the layer that holds it": (
        "d = Dense(2)\nd(Input((3,)))\nclass Net(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
        "        self.inner = Sequential([d])\n    def call(self, x):\n        return self.inner(x)\n"
        "model = Net()\nmodel(Input((3,)))",
        "is made under 'dense', outside",
    ),
}


@pytest.mark.parametrize(("code", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_the_reason(code, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code, framework="keras")


def test_partial_unknown_layers_in_a_subclassed_model_and_a_sequential():
    code = """
from keras_crf import CRF
class Tagger(keras.Model):
    def __init__(self):
        super().__init__()
        self.rnn = layers.LSTM(4, return_sequences=True)
        self.crf = CRF(3)

    def call(self, x):
        return self.crf(self.rnn(x))

model = Tagger()
model(Input((5, 2)))
"""
    with pytest.raises(SourceError, match="line 7: 'CRF' may be a layer, and derive cannot count it"):
        explain(code, framework="keras")
    report = explain(code, framework="keras", partial=True)
    real = built("model = Sequential([Input((5, 2)), LSTM(4, return_sequences=True)])")
    assert [(r.name, r.params) for r in report.rows] == [("lstm", real.count_params()), ("crf", None)]
    assert report.partial and report.total == real.count_params()
    seq = explain(
        "from keras_crf import CRF\nmodel = Sequential([Input((4,))])\nmodel.add(CRF(3))",
        framework="keras",
        partial=True,
    )
    assert [(r.name, r.params) for r in seq.rows] == [("crf", None)]
    with pytest.raises(
        SourceError, match=re.escape("model.add takes a layer constructor, not model.add(3) (of type int)")
    ):
        explain("model = Sequential()\nmodel.add(3)", framework="keras")


def test_a_subclassed_model_built_without_a_build_method_builds_no_layer():
    """Keras 3's Model.build() leaves the layers of a subclassed model without build() unbuilt."""
    code = """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(3)

    def call(self, x):
        return self.dense(x)

model = Net()
model.build((None, 5))
"""
    report = explain(code, framework="keras")
    real = built(code)
    assert report.total == real.count_params() == 0 and not real.dense.built
    assert [(r.name, r.params, r.note) for r in report.rows] == [("dense", 0, "never called: no weights yet")]
    assert any("builds none of its layers in Keras 3" in note for note in report.notes)


def test_a_subclassed_model_never_made_is_refused_by_its_arguments():
    with pytest.raises(SourceError, match=r"line 2: Net is never made in the code: its arguments \(units\)"):
        explain(
            "import keras\nclass Net(keras.Model):\n    def __init__(self, units):\n        super().__init__()\n",
            framework="keras",
        )
    with pytest.raises(SourceError, match="line 2: Net is never called on an input"):
        explain(
            "import keras\nclass Net(keras.Model):\n    def __init__(self, units=3):\n        super().__init__()\n"
            "        self.d = keras.layers.Dense(units)\n",
            framework="keras",
        )


def test_loose_layers_without_a_model_and_input_dim_refused_for_them():
    report = explain("x = Input((4, 3))\ny = LSTM(2)(x)\nz = Dense(1)(y)", framework="keras")
    assert report.title == "Keras model" and [r.name for r in report.rows] == ["lstm", "dense"]
    with pytest.raises(SourceError, match="input_dim does not apply"):
        explain("x = Input((4, 3))\ny = LSTM(2)(x)", framework="keras", input_dim=3)
    with pytest.raises(SourceError, match="input_dim does not apply"):
        explain("class N(keras.Model):\n    pass\nmodel = N()", framework="keras", input_dim=3)
