"""A WaveNet-style stack: gated, dilated causal convolutions with residual and skip connections."""

import keras
from keras import layers

HPARAMS = dict(
    quantization_channels=256,
    residual_channels=32,
    dilation_channels=32,
    skip_channels=64,
    dilations=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    stacks=2,
    filter_width=2,
)


def residual_block(x, dilation, hp):
    tanh_out = layers.Conv1D(
        hp["dilation_channels"], hp["filter_width"], dilation_rate=dilation, padding="causal", activation="tanh"
    )(x)
    sigm_out = layers.Conv1D(
        hp["dilation_channels"], hp["filter_width"], dilation_rate=dilation, padding="causal", activation="sigmoid"
    )(x)
    gated = layers.Multiply()([tanh_out, sigm_out])
    skip = layers.Conv1D(hp["skip_channels"], 1)(gated)
    residual = layers.Conv1D(hp["residual_channels"], 1)(gated)
    return layers.Add()([x, residual]), skip


def wavenet(hp=HPARAMS, receptive_length=None):
    inputs = keras.Input(shape=(receptive_length, hp["quantization_channels"]))
    x = layers.Conv1D(hp["residual_channels"], hp["filter_width"], padding="causal")(inputs)
    skips = []
    for _ in range(hp["stacks"]):
        for dilation in hp["dilations"]:
            x, skip = residual_block(x, dilation, hp)
            skips.append(skip)
    out = layers.Add()(skips)
    out = layers.ReLU()(out)
    out = layers.Conv1D(hp["skip_channels"], 1, activation="relu")(out)
    out = layers.Conv1D(hp["quantization_channels"], 1)(out)
    return keras.Model(inputs, layers.Softmax()(out), name="wavenet")


model = wavenet()
