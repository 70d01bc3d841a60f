"""Keras code with conditions derive cannot know: both ways read, kept where they agree, refused where
the layers differ — checked against real Keras 3 where the code builds one model either way."""

from __future__ import annotations

import re

import pytest

keras = pytest.importorskip("keras")
from keras_code_live import same_as_keras  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

AGREE = {
    "a custom layer whose weights are the same either way": """
import os
class Scale(layers.Layer):
    def build(self, input_shape):
        if os.environ.get("ONES"):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
        else:
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="zeros", name="w")

    def call(self, x):
        y = keras.ops.relu(x) if os.environ.get("RELU") else keras.ops.tanh(x)
        return y * self.w

x = Input((3,))
model = Model(x, Scale()(x))
""",
    "a subclassed model appending the same layer either way": """
import os
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = []
        if os.environ.get("GELU"):
            self.blocks.append(layers.Dense(4, activation="gelu"))
        else:
            self.blocks.append(layers.Dense(4, activation="relu"))
        self.heads = {"out": layers.Dense(1)}

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["out"](x)

model = Net()
model(Input((5,)))
""",
    "a try around an optional import that only picks an activation": """
try:
    import tensorflow_addons as tfa
    activation = "gelu"
except ImportError:
    activation = "relu"
model = Sequential([Input((4,)), Dense(3, activation=activation)])
""",
    "a while on an unknown value that builds nothing": """
import os
model = Sequential([Input((4,)), Dense(3)])
while os.environ.get("WAIT"):
    pass
""",
}


@pytest.mark.parametrize("code", AGREE.values(), ids=AGREE.keys())
def test_both_ways_agree(code):
    same_as_keras(code)


REFUSED = {
    "a recurrent layer chosen by an unknown flag": (
        "import os\nRNN = layers.LSTM if os.environ.get('LSTM') else layers.GRU\nx = Input((5, 3))\n"
        "model = Model(x, RNN(8)(x))",
        "line 4: 'RNN(8)' may be a layer, and derive cannot count it (line 2: it differs between the two ways",
    ),
    "a layer added one way only": (
        "import os\nmodel = Sequential([Input((4,)), Dense(3)])\nif os.environ.get('DEEP'):\n    model.add(Dense(3))",
        "line 3: the modules and parameters built depend on `os.environ.get('DEEP')`",
    ),
    "weights of other shapes either way": (
        "import os\nclass W(layers.Layer):\n    def build(self, s):\n        if os.environ.get('BIG'):\n"
        "            self.w = self.add_weight(shape=(8,), name='w')\n        else:\n"
        "            self.w = self.add_weight(shape=(4,), name='w')\n    def call(self, x):\n        return x\n"
        "x = Input((3,))\nmodel = Model(x, W()(x))",
        "line 4: the modules and parameters built depend on `os.environ.get('BIG')`",
    ),
}


@pytest.mark.parametrize(("code", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_where_the_layers_differ(code, words):
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code, framework="keras")
