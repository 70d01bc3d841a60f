"""A timeseries classifier: Conv1D blocks with GroupNormalization and PReLU, written as a Sequential with add."""

import keras
from keras import layers

N_TIMESTEPS, N_FEATURES, N_CLASSES = 128, 9, 6
FILTERS = [32, 64, 64]

model = keras.Sequential(name="har_cnn")
model.add(keras.Input(shape=(N_TIMESTEPS, N_FEATURES)))
for i, f in enumerate(FILTERS):
    model.add(layers.Conv1D(f, kernel_size=5 if i == 0 else 3, padding="same"))
    model.add(layers.GroupNormalization(groups=8))
    model.add(layers.PReLU(shared_axes=[1]))
    model.add(layers.SpatialDropout1D(0.1))
    if i < len(FILTERS) - 1:
        model.add(layers.MaxPooling1D(2))
model.add(layers.GlobalMaxPooling1D())
model.add(layers.UnitNormalization())
model.add(layers.Dense(N_CLASSES, activation="softmax"))
