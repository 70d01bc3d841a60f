"""A MobileNet-style network from a block table: depthwise separable convolutions, ReLU6, width multiplier."""

from keras import Sequential, layers

ALPHA = 0.5
# (filters, stride) of each depthwise separable block
BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 2 + [(1024, 2)]


def depthwise_block(filters, strides, alpha=ALPHA):
    filters = int(filters * alpha)
    return [
        layers.DepthwiseConv2D((3, 3), strides=strides, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(6.0),
        layers.Conv2D(filters, (1, 1), padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(6.0),
    ]


def mobilenet(input_shape=(96, 96, 3), classes=5, dropout=1e-3):
    stem = [
        layers.Input(shape=input_shape),
        layers.Rescaling(1.0 / 127.5, offset=-1),
        layers.Conv2D(int(32 * ALPHA), 3, strides=2, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(6.0),
    ]
    body = [layer for filters, stride in BLOCKS for layer in depthwise_block(filters, stride)]
    head = [
        layers.GlobalAveragePooling2D(keepdims=True),
        layers.Dropout(dropout),
        layers.Conv2D(classes, (1, 1), padding="same"),
        layers.Reshape((classes,)),
        layers.Activation("softmax"),
    ]
    return Sequential(stem + body + head, name="mobilenet_050")


model = mobilenet()
