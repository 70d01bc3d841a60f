"""Next-frame video prediction with ConvLSTM (after keras.io/examples/vision/conv_lstm), one layer bidirectional."""

import keras
from keras import layers

FRAMES, ROWS, COLS, CHANNELS = 19, 64, 64, 1

inp = layers.Input(shape=(None, ROWS, COLS, CHANNELS))
x = layers.Bidirectional(
    layers.ConvLSTM2D(filters=32, kernel_size=(5, 5), padding="same", return_sequences=True, activation="relu"),
    merge_mode="sum",
)(inp)
x = layers.BatchNormalization()(x)
x = layers.ConvLSTM2D(filters=64, kernel_size=(3, 3), padding="same", return_sequences=True, activation="relu")(x)
x = layers.BatchNormalization()(x)
x = layers.ConvLSTM2D(filters=64, kernel_size=(1, 1), padding="same", return_sequences=True, activation="relu")(x)
x = layers.Conv3D(filters=1, kernel_size=(3, 3, 3), activation="sigmoid", padding="same")(x)

model = keras.models.Model(inp, x)
model.compile(loss=keras.losses.binary_crossentropy, optimizer=keras.optimizers.Adam())
