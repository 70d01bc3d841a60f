"""A CNN-LSTM video classifier: a small CNN applied to every frame, an LSTM over the frames."""

from keras import layers, models

FRAMES, HEIGHT, WIDTH, CHANNELS = 16, 64, 64, 3
NUM_CLASSES = 10


def frame_block(filters, pool=True):
    block = [
        layers.TimeDistributed(layers.Conv2D(filters, (3, 3), padding="same", activation="relu")),
        layers.TimeDistributed(layers.BatchNormalization()),
    ]
    if pool:
        block.append(layers.TimeDistributed(layers.MaxPooling2D((2, 2))))
    return block


def create_model(filters=(16, 32, 64), lstm_units=128):
    model = models.Sequential()
    model.add(layers.Input(shape=(FRAMES, HEIGHT, WIDTH, CHANNELS)))
    for i, f in enumerate(filters):
        for layer in frame_block(f, pool=i < len(filters) - 1):
            model.add(layer)
    model.add(layers.TimeDistributed(layers.GlobalAveragePooling2D()))
    model.add(layers.LSTM(lstm_units))
    model.add(layers.Dropout(0.5))
    model.add(layers.Dense(NUM_CLASSES, activation="softmax"))
    return model


model = create_model()
