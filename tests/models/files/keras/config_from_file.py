"""A classifier whose sizes come from a JSON file next to it: derive cannot know them."""

import json

import keras
from keras import layers

with open("config.json") as f:
    cfg = json.load(f)

model = keras.Sequential(
    [
        keras.Input(shape=(None,), dtype="int32"),
        layers.Embedding(cfg["vocab_size"], 64),
        layers.LSTM(64),
        layers.Dense(cfg["num_tags"], activation="softmax"),
    ]
)
