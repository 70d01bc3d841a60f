"""A ResNet for CIFAR-10 (after the Keras ResNet v1 example): a residual_block helper, stages in loops."""

from keras import Input, Model, layers, regularizers

NUM_CLASSES = 10


def conv_bn(x, filters, kernel_size=3, strides=1, activation=True):
    x = layers.Conv2D(
        filters,
        kernel_size,
        strides=strides,
        padding="same",
        use_bias=False,
        kernel_initializer="he_normal",
        kernel_regularizer=regularizers.l2(1e-4),
    )(x)
    x = layers.BatchNormalization()(x)
    if activation:
        x = layers.Activation("relu")(x)
    return x


def residual_block(x, filters, strides=1):
    shortcut = x
    y = conv_bn(x, filters, strides=strides)
    y = conv_bn(y, filters, activation=False)
    if strides != 1 or x.shape[-1] != filters:
        shortcut = conv_bn(x, filters, kernel_size=1, strides=strides, activation=False)
    return layers.ReLU()(layers.Add()([shortcut, y]))


def resnet(depth=20, input_shape=(32, 32, 3), num_classes=NUM_CLASSES):
    if (depth - 2) % 6 != 0:
        raise ValueError("depth should be 6n+2 (eg 20, 32, 44 in [a])")
    num_res_blocks = (depth - 2) // 6
    inputs = Input(shape=input_shape)
    x = conv_bn(inputs, 16)
    filters = 16
    for stage in range(3):
        for block in range(num_res_blocks):
            x = residual_block(x, filters, strides=2 if stage > 0 and block == 0 else 1)
        filters *= 2
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(num_classes, activation="softmax", kernel_initializer="he_normal")(x)
    return Model(inputs=inputs, outputs=outputs)


model = resnet(depth=20)
