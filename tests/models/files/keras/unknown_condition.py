"""A model whose layers depend on an environment variable: built one way or the other."""

import os

import keras
from keras import layers

USE_ATTENTION = os.environ.get("USE_ATTENTION", "0") == "1"

inputs = keras.Input(shape=(50, 16))
x = layers.LSTM(32, return_sequences=True)(inputs)
if USE_ATTENTION:
    x = layers.MultiHeadAttention(num_heads=2, key_dim=16)(x, x)
x = layers.GlobalAveragePooling1D()(x)
model = keras.Model(inputs, layers.Dense(3)(x))
