"""A BiLSTM tagger with a CRF-like transition layer of its own (no keras-contrib)."""

import keras
from keras import layers, ops

NUM_WORDS = 10000
NUM_TAGS = 9
MAX_LEN = 75


class CRFTransitions(layers.Layer):
    """Emission scores plus a learnt tag-transition matrix (the CRF's parameters)."""

    def __init__(self, num_tags, **kwargs):
        super().__init__(**kwargs)
        self.num_tags = num_tags

    def build(self, input_shape):
        self.transitions = self.add_weight(
            shape=(self.num_tags, self.num_tags), initializer="glorot_uniform", name="transitions"
        )
        self.start = self.add_weight(shape=(self.num_tags,), initializer="zeros", name="start_transitions")
        self.end = self.add_weight(shape=(self.num_tags,), initializer="zeros", name="end_transitions")

    def call(self, emissions):
        return emissions + ops.expand_dims(self.start, 0)


def build_tagger(embedding_dim=100, hidden=64, char_features=None):
    words = keras.Input(shape=(MAX_LEN,), name="words")
    x = layers.Embedding(NUM_WORDS + 1, embedding_dim, mask_zero=True)(words)
    inputs = [words]
    if char_features:
        chars = keras.Input(shape=(MAX_LEN, char_features), name="chars")
        inputs.append(chars)
        x = layers.Concatenate()([x, chars])
    x = layers.SpatialDropout1D(0.1)(x)
    x = layers.Bidirectional(layers.LSTM(hidden, return_sequences=True, recurrent_dropout=0.1))(x)
    emissions = layers.TimeDistributed(layers.Dense(NUM_TAGS))(x)
    scores = CRFTransitions(NUM_TAGS)(emissions)
    return keras.Model(inputs, scores)


model = build_tagger(char_features=25)
