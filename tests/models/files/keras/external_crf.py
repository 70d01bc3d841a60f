"""A BiLSTM-CRF tagger with the CRF layer of a package (keras-contrib style): derive cannot count it."""

import keras
from keras import layers
from keras_crf import CRF  # a package derive does not read (not installed here)

NUM_TAGS = 9

inputs = keras.Input(shape=(40,))
x = layers.Embedding(5000, 100)(inputs)
x = layers.Bidirectional(layers.LSTM(50, return_sequences=True))(x)
x = layers.TimeDistributed(layers.Dense(50, activation="relu"))(x)
crf = CRF(NUM_TAGS)
outputs = crf(x)
model = keras.Model(inputs, outputs)
