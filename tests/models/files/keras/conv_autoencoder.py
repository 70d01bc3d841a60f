"""A convolutional autoencoder for MNIST: encoder and decoder models, the autoencoder chaining them."""

import keras
from keras import layers

latent_dim = 16


def make_encoder(filters=(32, 64)):
    inp = keras.Input(shape=(28, 28, 1))
    x = inp
    for f in filters:
        x = layers.Conv2D(f, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Flatten()(x)
    x = layers.Dense(latent_dim, name="latent")(x)
    return keras.Model(inp, x, name="encoder")


def make_decoder(filters=(64, 32)):
    inp = keras.Input(shape=(latent_dim,))
    x = layers.Dense(7 * 7 * filters[0], activation="relu")(inp)
    x = layers.Reshape((7, 7, filters[0]))(x)
    for f in filters:
        x = layers.Conv2DTranspose(f, 3, activation="relu", strides=2, padding="same")(x)
    x = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(x)
    return keras.Model(inp, x, name="decoder")


encoder = make_encoder()
decoder = make_decoder()
inputs = keras.Input(shape=(28, 28, 1))
model = keras.Model(inputs, decoder(encoder(inputs)), name="autoencoder")
model.compile(optimizer="adam", loss="binary_crossentropy")
