"""An IMDB sentiment model in the style of the keras.io example: the builder reads module globals
that the main guard sets, then the script builds, compiles and summarises the model."""

import keras
from keras import layers


def build_model():
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(MAX_FEATURES, EMBEDDING_DIM)(inputs)
    x = layers.Bidirectional(layers.LSTM(UNITS, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(UNITS))(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs)


if __name__ == "__main__":
    MAX_FEATURES = 20000
    EMBEDDING_DIM = 128
    UNITS = 64
    model = build_model()
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    model.summary()
