"""A subclassed keras.Model with its layers in a list, sizes from a config with defaults."""

import keras
import numpy as np
from keras import layers


class MLP(keras.Model):
    def __init__(self, hidden_sizes=(256, 128, 64), num_classes=10, dropout=0.3, batch_norm=True, **kwargs):
        super().__init__(**kwargs)
        self.hidden = []
        for size in hidden_sizes:
            self.hidden.append(layers.Dense(size, activation=None))
            if batch_norm:
                self.hidden.append(layers.BatchNormalization())
            self.hidden.append(layers.ReLU())
            if dropout:
                self.hidden.append(layers.Dropout(dropout))
        self.classifier = layers.Dense(num_classes)

    def call(self, inputs, training=False):
        x = inputs
        for layer in self.hidden:
            x = layer(x, training=training) if isinstance(layer, layers.Dropout) else layer(x)
        return self.classifier(x)


config = {"hidden_sizes": [512, 256], "dropout": 0.2}
model = MLP(**config)
model(np.zeros((1, 784), dtype="float32"))
