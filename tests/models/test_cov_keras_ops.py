"""Operations on symbolic tensors in functional code, read by derive and run by real Keras 3.

Each operation's output feeds a ``Dense`` (whose kernel reads its last axis) and the operations at
the top level take Keras' automatic names (``add``, ``get_item``), which a later ``layers.Add()``
is named after: the weights, the layers' names and counts must be Keras'. An operation derive does
not read makes the layer after it refused, naming it.
"""

from __future__ import annotations

import re

import pytest

keras = pytest.importorskip("keras")
from keras_code_live import same_as_keras  # noqa: E402

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

OPERATIONS = [
    "ops.mean(x, axis=1)",
    "ops.sum(x, axis=-1, keepdims=True)",
    "ops.max(x, axis=(1,), keepdims=False)",
    "ops.concatenate([x, x], axis=-1)",
    "ops.stack([x, x], axis=1)",
    "ops.matmul(x, ops.transpose(x, (0, 2, 1)))",
    "ops.transpose(x, axes=[0, 2, 1])",
    "ops.reshape(x, (-1, 24))",
    "ops.reshape(x, (-1, 3, 8))",
    "ops.expand_dims(x, -1)",
    "ops.squeeze(ops.expand_dims(x, 1), axis=1)",
    "ops.squeeze(x[:, :1])",
    "x[:, 0, :]",
    "x[..., :3]",
    "x[:, None]",
    "x[:, -2:, 1::2]",
    "x * 2.0 + 1 - x / 3",
    "(x ** 2) // 1 % 5",
    "ops.one_hot(ops.cast(x[:, :, 0], 'int32'), 5)",
    "ops.split(x, 2, axis=-1)[0]",
    "keras.activations.gelu(x)",
    "ops.softmax(x, axis=1)",
    "x @ ops.ones((6, 3))",
    "ops.maximum(x, ops.zeros((1, 6)))",
    "ops.where(ops.ones((4, 6)), x, 0.0)",
    "layers.Dense(ops.shape(x)[-1])(x)",
    "layers.Dense(x.shape[-1] * x.ndim)(x)",
    "ops.add(x, keras.random.normal((1, 4, 6)))",
    "ops.take(x, 0, axis=1) if False else ops.mean(x, axis=2, keepdims=True)",
]


@pytest.mark.parametrize("operation", OPERATIONS)
def test_operations_at_the_top_level(operation):
    code = f"from keras import ops\nx = Input((4, 6))\ny = {operation}\nz = Dense(2)(y)\n"
    code += "model = Model(x, layers.Add()([z, Dense(2)(y)]))"
    same_as_keras(code)


def test_operations_inside_a_layer_take_no_name():
    code = """
from keras import ops
class Mix(layers.Layer):
    def build(self, input_shape):
        self.proj = layers.Dense(input_shape[-1] // 2)
        self.scale = self.add_weight(shape=(1, input_shape[-1] // 2), name="scale")

    def call(self, x):
        h = ops.concatenate([x, ops.flip(x, axis=1)], axis=-1)
        h = self.proj(ops.reshape(h, (-1, ops.shape(x)[1], 2 * x.shape[-1]))[:, :, : x.shape[-1]])
        return ops.add(h, self.scale) * ops.sigmoid(h)

x = Input((5, 8))
y = Mix()(x)
model = Model(x, layers.Add()([Dense(3)(y), Dense(3)(y)]))
"""
    same_as_keras(code)


UNREAD = {
    "einsum": ("ops.einsum('bij,bjk->bik', x, ops.transpose(x, (0, 2, 1)))", "ops.einsum"),
    "an unknown axis": ("ops.mean(x, axis=7)", "ops.mean(x, axis=7)"),
    "a reshape to sizes derive does not know": ("ops.reshape(x, (-1, n))", "ops.reshape"),
    "tf.shape": ("layers.Dense(tf.shape(x)[-1])(x)", "tf.shape(x) is computed when the model runs"),
}


@pytest.mark.parametrize(("operation", "words"), UNREAD.values(), ids=UNREAD.keys())
def test_an_operation_derive_does_not_read(operation, words):
    code = "import os\nfrom keras import ops\nimport tensorflow as tf\nn = int(os.environ['N'])\nx = Input((4, 6))\n"
    code += f"y = {operation}\nmodel = Model(x, Dense(2)(y))"
    with pytest.raises(SourceError, match=re.escape(words)):
        explain(code, framework="keras")


def test_arrays_as_inputs_of_a_subclassed_model():
    for array in ("np.zeros((2, 7))", "np.random.rand(2, 7)", "np.ones(shape=(3, 7))", "np.random.normal(size=(2, 7))"):
        code = f"""
import numpy as np
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(3)

    def call(self, x):
        return self.dense(x)

model = Net()
model({array})
"""
        same_as_keras(code)
    arange = "from keras import ops\nx = Input((3,))\ny = x + ops.cast(ops.arange(1, 7, 2), 'float32')\n"
    same_as_keras(arange + "model = Model(x, Dense(ops.linspace(0, 1, 4).shape[0] + ops.eye(2).shape[1])(y))")
