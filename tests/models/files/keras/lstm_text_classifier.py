"""Bidirectional LSTM on IMDB (after keras.io/examples/nlp/bidirectional_lstm_imdb)."""

import keras
from keras import layers

MAX_FEATURES = 20000  # only consider the top 20k words
MAXLEN = 200  # only consider the first 200 words of each movie review
EMBEDDING_DIM = 128


def build_model(vocab_size=MAX_FEATURES, embedding_dim=EMBEDDING_DIM, units=(64, 64), dropout=0.2):
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(vocab_size, embedding_dim, mask_zero=True)(inputs)
    for i, n in enumerate(units):
        last = i == len(units) - 1
        x = layers.Bidirectional(layers.LSTM(n, return_sequences=not last))(x)
        x = layers.Dropout(dropout)(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs)


model = build_model()
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.summary()
