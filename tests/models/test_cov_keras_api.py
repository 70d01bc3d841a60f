"""More of the Keras code reader, each construct read by derive and run by real Keras 3 (torch backend):
layers' attributes and methods, outputs as dicts, build on several inputs, the class's own
``compute_output_shape``, tracked lists and dicts losing layers, ``isinstance``, a functional
subclass; and what is refused, with the reason."""

from __future__ import annotations

import re

import pytest

keras = pytest.importorskip("keras")
from keras_code_live import same_as_keras  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

SAME = {
    "outputs as a dict, a layer's methods of the code, its class and attributes": """
class Split(layers.Layer):
    def __init__(self, parts=2, **kwargs):
        super().__init__(**kwargs)
        self.parts = parts

    def width(self, shape):
        return shape[-1] // self.parts

    def call(self, x):
        w = self.width(x.shape)
        self.seen = (self.__class__, x.dtype, self.name)
        return {"left": x[:, :w], "right": x[:, w:]}

x = Input((8,))
halves = Split()(x)
dense = Dense(3)
y = dense(halves["left"])
assert dense.units == 3 and dense.built and dense.output is not None
model = Model(x, {"y": y, "z": Dense(2)(halves["right"])})
""",
    "build of a list input; compute_output_shape where the call is not read; a weight's attributes": """
class Gate(layers.Layer):
    def build(self, shapes):
        a, b = shapes
        self.w = self.add_weight(shape=(a[-1] + b[-1], a[-1]), name="w")

    def call(self, inputs):
        a, b = inputs
        assert self.w.name == "w" and self.w.trainable and len(self.w.shape) == 2
        return keras.ops.matmul(keras.ops.concatenate([a, b], axis=-1), self.w) * keras.ops.erfinv(a)

    def compute_output_shape(self, shapes):
        return shapes[0]

a, b = Input((4,)), Input((3,))
model = Model([a, b], Dense(2)(Gate()([a, b])))
""",
    "layers removed from tracked lists and dicts are not the model's": """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [layers.Dense(4), layers.Dense(4), layers.Dense(4), layers.Dense(4)]
        self.blocks.pop()
        self.blocks.remove(self.blocks[0])
        del self.blocks[0]
        self.spare = [layers.Dense(9)]
        self.spare.clear()
        self.heads = {"a": layers.Dense(2), "b": layers.Dense(3)}
        self.heads.pop("b")

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["a"](x)

model = Net()
model(Input((5,)))
""",
    "a Lambda whose function derive does not follow, with its output_shape": """
x = Input((6, 6, 3))
y = layers.Lambda(lambda t: keras.ops.image.resize(t, (8, 8)), output_shape=(8, 8, 3))(x)
model = Model(x, layers.Conv2D(2, 3)(y))
""",
    "a model of the functional API written as a subclass": """
class Functional(keras.Model):
    def __init__(self, units=3):
        inputs = keras.Input((4,))
        outputs = layers.Dense(units)(layers.Dense(5)(inputs))
        super().__init__(inputs=inputs, outputs=outputs)

model = Functional()
""",
    "isinstance of Keras' classes": """
d = Dense(2)
seq = Sequential([Input((3,)), d])
assert isinstance(d, layers.Layer) and isinstance(d, layers.Dense) and not isinstance(d, layers.LSTM)
assert isinstance(seq, keras.Model) and not isinstance(d, keras.Model) and not isinstance(d, int)
model = seq
""",
}


@pytest.mark.parametrize("code", SAME.values(), ids=SAME.keys())
def test_same_as_keras(code):
    same_as_keras(code)


REFUSED = {
    "a Sequential called on a list": (
        "s = Sequential([Dense(2)])\ny = s([Input((3,)), Input((3,))])",
        "sequential is called on a list: not read",
    ),
    "a Sequential without layers called": ("s = Sequential()\ny = s(Input((3,)))", "sequential has no layers"),
    "a subclass of Keras' Dense that overrides build": (
        "class Big(layers.Dense):\n    def build(self, input_shape):\n        super().build(input_shape)\n"
        "        self.extra = self.add_weight(shape=(3,))\nx = Input((3,))\ny = Big(2)(x)",
        "Big subclasses keras.layers.Dense and overrides build() or call()",
    ),
    "a Bidirectional of a layer of the code": (
        "class Cell(layers.Layer):\n    def call(self, x):\n        return x\nx = Input((3, 2))\n"
        "y = layers.Bidirectional(Cell())(x)",
        "Bidirectional: layer must be a recurrent layer",
    ),
    "a TimeDistributed layer whose output is not known": (
        "from mylib import fancy\nclass Odd(layers.Layer):\n    def call(self, x):\n        return fancy(x)\n"
        "x = Input((3, 2))\ny = layers.TimeDistributed(Odd())(x)",
        "the output of odd inside a wrapper is not known",
    ),
    "a layer of keras.layers derive does not know": (
        "x = Input((3, 2))\ny = layers.EinsumDense('ab,bc->ac', output_shape=4)(x)",
        "unknown name 'layers.EinsumDense'",
    ),
    "the weights of a layer built with a shape derive does not know": (
        "import os\nd = Dense(2)\nd.build(os.environ['SHAPE'])",
        "dense.build(...) of a shape derive does not know",
    ),
    "a tensor item assigned": ("x = Input((3,))\nx[0] = 1", "derive does not read assignments to x[0]"),
}


@pytest.mark.parametrize(("code", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_the_reason(code, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code, framework="keras")


def test_values_derive_does_not_know_stay_unknown_until_they_matter():
    """A layer's unknown attribute, a tensor called, layers added or indexed: unknown values, not
    answers — refused only where a size depends on them."""
    code = "x = Input((3,))\nd = Dense(2)\na = d.nonexistent\nb = x(1)\nc = d + d\ne = d[0]\nf = x.name\n"
    code += "model = Sequential([Input((3,)), Dense(2)])"
    assert explain(code, framework="keras").total == 8
    with pytest.raises(SourceError, match="'d.nonexistent'"):
        explain("d = Dense(2)\nmodel = Sequential([Input((3,)), Dense(d.nonexistent)])", framework="keras")
    with pytest.raises(SourceError, match="the name of a tensor is not read"):
        explain("x = Input((3,))\nmodel = Sequential([Input((3,)), Dense(x.name)])", framework="keras")
