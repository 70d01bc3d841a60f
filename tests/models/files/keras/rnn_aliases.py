"""A sentence-pair classifier: the recurrent cell chosen by a flag, layers.ReLU and Concatenate."""

import keras
from keras import layers

USE_LSTM = False
BIDIRECTIONAL = True
VOCAB, EMBED, UNITS = 5000, 64, 48

RNN = layers.LSTM if USE_LSTM else layers.GRU
Wrapper = layers.Bidirectional if BIDIRECTIONAL else (lambda layer: layer)


def encoder(name):
    return keras.Sequential(
        [layers.Embedding(VOCAB, EMBED), Wrapper(RNN(UNITS)), layers.Dense(UNITS), layers.ReLU()],
        name=name,
    )


left = keras.Input(shape=(30,), name="left")
right = keras.Input(shape=(30,), name="right")
shared = encoder("sentence_encoder")
a, b = shared(left), shared(right)
merged = layers.Concatenate()([a, b, layers.Subtract()([a, b]), layers.Multiply()([a, b])])
hidden = layers.Dense(UNITS * 2)(merged)
hidden = layers.LeakyReLU(negative_slope=0.1)(hidden)
model = keras.Model([left, right], layers.Dense(1, activation="sigmoid")(hidden))
