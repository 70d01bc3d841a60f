"""The Keras 3 layers the mirror learnt for real model files, held against live Keras 3 (torch backend).

Every expected value is a real ``keras.layers`` object built on ``keras.Input`` in a fresh session:
``count_params()``, ``[(w.path, tuple(w.shape), w.trainable) for w in layer.weights]`` and the
output shape; derive's side is the mirror's ``build(input_shape)`` and the registered constructor
reading the live layer. Every Keras 3 layer without weights is known to derive (never "unknown").
"""

from __future__ import annotations

import os
import tempfile
import warnings

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

from derive.engine.constructors import lookup  # noqa: E402
from derive.frameworks.keras.constructors import KERAS_LAYERS, remake  # noqa: E402
from derive.tree import count, named_parameters  # noqa: E402


def live(text: str, shape):
    """(count_params, weights, output shape(s), layer) of ``text`` built in a fresh Keras session."""
    keras.backend.clear_session(free_memory=False)
    layer = eval(text, dict(vars(kl)))  # the test's own text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if isinstance(shape, dict):  # called with positional tensors (query, value, key)
            out = layer(*[keras.Input(s) for s in shape["args"]])
        elif isinstance(shape, list):
            out = layer([keras.Input(s) for s in shape])
        else:
            out = layer(keras.Input(shape))
    shapes = [tuple(o.shape) for o in out] if isinstance(out, (list, tuple)) else tuple(out.shape)
    return layer.count_params(), [(w.path, tuple(w.shape), w.trainable) for w in layer.weights], shapes, layer


def ours(text: str, shape):
    layer = eval(text, dict(KERAS_LAYERS))  # the test's own text
    given = [tuple(s) for s in shape["args"]] if isinstance(shape, dict) else shape
    module, out = layer.build(given)
    return module, out


def tree(module):
    return count(module), [(n, tuple(p.shape), p.trainable) for n, p in named_parameters(module)]


LAYERS = [
    ("PReLU()", (5, 3)),
    ("PReLU(shared_axes=[1])", (5, 3)),
    ("PReLU(shared_axes=[1, 2])", (4, 4, 3)),
    ("MultiHeadAttention(num_heads=2, key_dim=3)", {"args": [(4, 6), (4, 6)]}),
    ("MultiHeadAttention(2, 3, value_dim=5, output_shape=7)", {"args": [(4, 6), (9, 8), (9, 10)]}),
    ("MultiHeadAttention(2, 3, use_bias=False)", {"args": [(2, 3, 6), (2, 3, 6)]}),
    ("MultiHeadAttention(4, 8, use_gate=True)", {"args": [(5, 16), (7, 12)]}),
    ("Conv1DTranspose(4, 3, strides=2, output_padding=1)", (5, 3)),
    ("Conv1DTranspose(4, 3, strides=2, padding='same', use_bias=False)", (5, 3)),
    ("Conv2DTranspose(4, 3, strides=2, padding='same')", (5, 5, 3)),
    ("Conv2DTranspose(2, (3, 2), strides=(2, 3), dilation_rate=1)", (5, 4, 3)),
    ("Conv3DTranspose(2, 2, strides=(1, 2, 3), data_format='channels_first')", (3, 4, 4, 4)),
    ("SeparableConv1D(5, 3, use_bias=False)", (8, 3)),
    ("SeparableConv1D(5, 3, depth_multiplier=2, padding='same', strides=2)", (8, 3)),
    ("SeparableConv2D(5, 3, depth_multiplier=2)", (8, 8, 3)),
    ("SeparableConv2D(4, (3, 1), data_format='channels_first')", (3, 8, 6)),
    ("DepthwiseConv1D(3)", (8, 3)),
    ("DepthwiseConv2D(3, depth_multiplier=2)", (8, 8, 3)),
    ("DepthwiseConv2D((3, 3), strides=2, padding='same', use_bias=False)", (9, 9, 4)),
    ("GroupNormalization(groups=2)", (5, 4)),
    ("GroupNormalization(groups=-1, center=False)", (6, 6, 4)),
    ("GroupNormalization(groups=3, axis=1)", (6, 4)),
    ("RMSNormalization()", (5, 3)),
    ("UnitNormalization()", (5, 3)),
    ("Normalization()", (5, 3)),
    ("Normalization(axis=None)", (5, 3)),
    ("Normalization(axis=(1, 2))", (4, 5, 3)),
    ("AdditiveAttention()", [(5, 4), (6, 4)]),
    ("AdditiveAttention(use_scale=False)", [(5, 4), (6, 4)]),
    ("Subtract()", [(5, 3), (5, 3)]),
    ("Multiply()", [(5, 3), (1, 3)]),
    ("Average()", [(5, 3), (5, 3), (5, 3)]),
    ("Maximum()", [(5, 3), (5, 3)]),
    ("Minimum()", [(4,), (4,)]),
    ("Dot(axes=1)", [(4,), (4,)]),
    ("Dot(axes=(1, 2))", [(5, 3), (4, 5)]),
    ("Dot(axes=-1, normalize=True)", [(5, 3), (6, 3)]),
    ("MaxPooling2D()", (8, 9, 3)),
    ("MaxPooling2D((3, 2), strides=1, padding='same')", (8, 9, 3)),
    ("AveragePooling2D(2, data_format='channels_first')", (3, 8, 9)),
    ("MaxPooling3D(2)", (4, 6, 8, 2)),
    ("AveragePooling3D((1, 2, 2), padding='same')", (4, 5, 7, 2)),
    ("GlobalMaxPooling2D()", (8, 9, 3)),
    ("GlobalAveragePooling2D(keepdims=True)", (8, 9, 3)),
    ("GlobalAveragePooling2D(data_format='channels_first', keepdims=True)", (3, 8, 9)),
    ("GlobalMaxPooling3D()", (4, 6, 8, 2)),
    ("GlobalAveragePooling1D(data_format='channels_first', keepdims=True)", (3, 10)),
    ("GlobalAveragePooling1D(data_format='channels_first')", (3, 10)),
    ("GlobalMaxPooling1D(keepdims=True)", (3, 10)),
    ("AdaptiveAveragePooling2D(4)", (8, 9, 3)),
    ("AdaptiveMaxPooling1D(3)", (10, 2)),
    ("AdaptiveMaxPooling3D((2, 2, 1), data_format='channels_first')", (2, 4, 6, 8)),
    ("Cropping1D((1, 2))", (10, 3)),
    ("Cropping2D(((1, 2), (0, 3)))", (10, 8, 3)),
    ("Cropping2D(1, data_format='channels_first')", (3, 10, 8)),
    ("Cropping3D((1, 1, 2))", (6, 6, 6, 1)),
    ("ZeroPadding1D(2)", (10, 3)),
    ("ZeroPadding2D(((1, 0), (2, 3)))", (4, 5, 3)),
    ("ZeroPadding3D()", (2, 3, 4, 1)),
    ("UpSampling1D(3)", (10, 3)),
    ("UpSampling2D((2, 3), interpolation='bilinear')", (4, 5, 3)),
    ("UpSampling3D(2)", (2, 3, 4, 1)),
    ("Permute((2, 1))", (10, 3)),
    ("Permute((3, 1, 2))", (4, 5, 6)),
    ("ReLU(max_value=6.0)", (5, 3)),
    ("LeakyReLU(0.2)", (5, 3)),
    ("ELU()", (5, 3)),
    ("Softmax(axis=1)", (5, 3)),
    ("Identity()", (5, 3)),
    ("GaussianNoise(0.1)", (5, 3)),
    ("GaussianDropout(0.2)", (5, 3)),
    ("AlphaDropout(0.2)", (5, 3)),
    ("SpatialDropout2D(0.2)", (4, 5, 3)),
    ("SpatialDropout3D(0.2)", (2, 4, 5, 3)),
    ("ActivityRegularization(l1=0.01)", (5, 3)),
    ("Rescaling(1.0 / 255)", (4, 4, 3)),
    ("RandomFlip('horizontal')", (8, 8, 3)),
    ("RandomRotation(0.1)", (8, 8, 3)),
    ("RandomZoom(0.1)", (8, 8, 3)),
    ("RandomContrast(0.2)", (8, 8, 3)),
    ("RandomTranslation(0.1, 0.1)", (8, 8, 3)),
    ("Resizing(6, 5)", (8, 8, 3)),
    ("CenterCrop(4, 6)", (8, 8, 3)),
    ("RandomCrop(4, 6)", (8, 8, 3)),
    ("Resizing(6, 5, data_format='channels_first')", (3, 8, 8)),
    ("CategoryEncoding(10, output_mode='one_hot')", (1,)),
    ("CategoryEncoding(10)", (3,)),
    ("CategoryEncoding(num_tokens=7, output_mode='count')", (4, 2)),
    ("Discretization(bin_boundaries=[0.0, 1.0])", (3,)),
    ("Discretization(bin_boundaries=[0.0, 1.0], output_mode='one_hot')", (3,)),
    ("Hashing(num_bins=5)", (3,)),
    ("Hashing(num_bins=5, output_mode='multi_hot')", (3,)),
    ("IntegerLookup(vocabulary=[1, 2, 3])", (4,)),
    ("IntegerLookup(vocabulary=[1, 2, 3], output_mode='one_hot')", (4,)),
    ("IntegerLookup(vocabulary=[1, 2, 3], output_mode='multi_hot', num_oov_indices=2)", (4,)),
    ("MelSpectrogram()", (1000,)),
    ("MelSpectrogram(num_mel_bins=64, sequence_stride=256)", (2048,)),
    # the output modes' shapes (keras/src/layers/preprocessing/index_lookup.py, category_encoding.py)
    ("PReLU(shared_axes=[1])", (None, 3)),
    ("IntegerLookup(vocabulary=[1, 2, 3], output_mode='one_hot')", (4, 1)),
    ("IntegerLookup(vocabulary=[1, 2, 3], output_mode='count', pad_to_max_tokens=True, max_tokens=10)", (4,)),
    ("IntegerLookup(vocabulary=[1, 2, 3], mask_token=0, output_mode='multi_hot')", (4,)),
    ("IntegerLookup(output_mode='multi_hot', max_tokens=10)", (4,)),
    ("Hashing(num_bins=5, output_mode='one_hot')", (1,)),
    ("Hashing(num_bins=5, output_mode='count')", (3,)),
    ("HashedCrossing(num_bins=5)", [(1,), (1,)]),
    ("HashedCrossing(num_bins=5, output_mode='one_hot')", [(1,), (1,)]),
    ("CategoryEncoding(10, output_mode='one_hot')", (3, 1)),
    ("CategoryEncoding(10, output_mode='one_hot')", (3, 2)),
    ("Discretization(bin_boundaries=[0.0, 1.0], output_mode='one_hot')", (3, 1)),
    ("Discretization(num_bins=4, output_mode='count')", (3, 2)),
    ("Discretization(bin_boundaries=[0.0], output_mode='multi_hot')", (3,)),
    ("MelSpectrogram(sequence_stride=100)", (None,)),
    ("Normalization(axis=None)", (4, 3)),
    ("Normalization(axis=(1, 2))", (4, 3)),
    ("Normalization(mean=0.0, variance=1.0)", (4, 3)),
    # positional arguments in each class's own order; special tokens leading a vocabulary
    ("CenterCrop(4, 6, 'channels_first')", (3, 8, 8)),
    ("RandomCrop(4, 6, 1, 'channels_first')", (3, 8, 8)),
    ("IntegerLookup(None, 1, None, -1, [1, 2, 3], 'int64', None, False, 'one_hot')", (4, 1)),
    ("IntegerLookup(vocabulary=[-1, 1, 2, 3], output_mode='multi_hot')", (4,)),
    ("IntegerLookup(vocabulary=[0, -1, 7, 8], mask_token=0)", (4,)),
    ("IntegerLookup(vocabulary=[5, 6], num_oov_indices=3, output_mode='count')", (4,)),
]


@pytest.mark.parametrize(("text", "shape"), LAYERS, ids=[t for t, _ in LAYERS])
def test_build_is_keras(text, shape):
    """The module's weights (paths, shapes, trainable), count and output shape as Keras builds them."""
    n, weights, output, layer = live(text, shape)
    module, out = ours(text, shape)
    assert tree(module) == (n, weights)
    assert module.output_shape == output
    constructor = lookup("keras", type(layer).__name__)
    assert constructor is not None and type(layer).__module__ in constructor.module_types
    if not isinstance(shape, dict):
        remade, _ = remake(layer).build(shape)
        assert tree(remade) == (n, weights)


def test_every_keras_layer_without_weights_is_known():
    """Every class of ``keras.layers`` that makes no weight (with its defaults) is known to derive."""
    skip = {"Layer", "Wrapper", "InputSpec", "Input", "Lambda", "Pipeline", "TorchModuleWrapper", "JaxLayer"}
    skip |= {"FlaxLayer", "TFSMLayer", "MaxNumBoundingBoxes", "StringLookup", "TextVectorization", "HashedCrossing"}
    names = {type_.__name__ for type_ in (getattr(kl, n) for n in dir(kl)) if isinstance(type_, type)}
    weightless = {"Add", "Concatenate", "Attention", "Flatten", "Reshape", "RepeatVector", "Dropout", "Masking"}
    for name in sorted(names - skip):
        known = lookup("keras", name) is not None or name in ("InputLayer",)
        if not known:
            assert name in _WITH_WEIGHTS, f"{name} is not known to derive"
    assert all(lookup("keras", n) is not None for n in weightless)


#: Keras 3 classes with weights derive leaves to --partial (not needed by the model files read here).
_WITH_WEIGHTS = {"EinsumDense", "ReversibleEmbedding", "GroupedQueryAttention", "SpectralNormalization"}
_WITH_WEIGHTS |= {"STFTSpectrogram"}


REFUSED_LIKE_KERAS = [
    ("MaxPooling1D(3, padding='bogus')", (10, 3), "Argument `padding` must be either 'valid' or 'same'"),
    ("MaxPooling1D(3, padding='SAME')", (10, 3), "Argument `padding` must be either 'valid' or 'same'"),
    ("AveragePooling2D(2, padding='causal')", (4, 4, 3), "Argument `padding` must be either 'valid' or 'same'"),
    ("MaxPooling1D(4)", (3, 3), "Computed output size would be zero or negative"),
    ("Conv1D(2, 4)", (3, 3), "Computed output size would be zero or negative"),
    ("GroupNormalization(groups=3)", (5, 4), "must be a multiple of the number of channels"),
    ("GroupNormalization(groups=8)", (5, 4), "cannot be more than the number of channels"),
    ("Subtract()", [(5, 3), (5, 3), (5, 3)], "should be called on exactly 2 inputs"),
    ("Multiply()", [(5, 3), (4, 3)], "Inputs have incompatible shapes"),
    ("Dot(axes=1)", [(4,), (5,)], "Incompatible input shapes"),
    ("PReLU()", (None, 3), "alpha of shape"),
    ("Normalization(axis=3)", (4, 3), "All `axis` values must be in the range"),
    ("Normalization(axis=1)", (None, 3), "must have a known shape"),
]


@pytest.mark.parametrize(("text", "shape", "words"), REFUSED_LIKE_KERAS, ids=[t for t, _, _ in REFUSED_LIKE_KERAS])
def test_refused_like_keras(text, shape, words):
    with pytest.raises(ValueError, match=words):
        ours(text, shape)
    with pytest.raises(ValueError):
        live(text, shape)


def test_refused_where_keras_fails():
    """Where Keras' build fails with another error than derive's (or builds what derive does not read)."""
    with pytest.raises(ValueError, match="do not fit an input of rank 3"):
        ours("PReLU(shared_axes=[3])", (5, 3))
    with pytest.raises(IndexError):
        live("PReLU(shared_axes=[3])", (5, 3))
    # Keras reads a 3-D input as one image (its batch axis the height), and a 5-D one as it will
    for text, shape, keras_out in (
        ("Resizing(6, 5)", (8, 3), (6, 5, 3)),
        ("CenterCrop(4, 6)", (8, 3), (4, 6, 3)),
        ("Resizing(6, 5)", (2, 8, 8, 3), (6, 5, 8, 8, 3)),
    ):
        assert live(text, shape)[2] == keras_out
        with pytest.raises(ValueError, match="expects a batch of images"):
            ours(text, shape)
    # a vocabulary Keras refuses
    for text in (
        "IntegerLookup(vocabulary=[0, -1, 7, 8], mask_token=0, output_mode='multi_hot')",
        "IntegerLookup(vocabulary=[1, 2, 2], output_mode='count')",
    ):
        with pytest.raises(ValueError):
            live(text, (4,))
        with pytest.raises(ValueError, match="Keras refuses it"):
            ours(text, (4,))
    with pytest.raises(ValueError, match="the input shape is unknown"):
        ours("PReLU()", (..., 3))
    with pytest.raises(ValueError, match="the input shape is unknown"):
        ours("CategoryEncoding(10)", (..., 3))
    # a mode derive does not read, which Keras builds
    live("IntegerLookup(vocabulary=[1, 2], output_mode='tf_idf', idf_weights=[0.1, 0.2])", (4,))
    with pytest.raises(ValueError, match="output_mode='tf_idf' is not read by derive"):
        ours("IntegerLookup(vocabulary=[1, 2], output_mode='tf_idf', idf_weights=[0.1, 0.2])", (4,))
    # arguments as Keras takes them: too many positional ones refused by both
    with pytest.raises(TypeError):
        kl.CategoryEncoding(10, "one_hot", False, 1)
    with pytest.raises(TypeError, match="takes 3 positional arguments"):
        KERAS_LAYERS["CategoryEncoding"](10, "one_hot", False, 1)


def test_causal_padding_is_for_conv1d_only():
    """Keras refuses ``padding='causal'`` for Conv2D when it is made; Conv1D takes it."""
    with pytest.raises(ValueError, match="padding"):
        KERAS_LAYERS["Conv2D"](3, 2, padding="causal")
    with pytest.raises(ValueError, match="padding"):
        kl.Conv2D(3, 2, padding="causal")
    n, weights, output, _ = live("Conv1D(3, 2, padding='causal')", (6, 2))
    module, _ = ours("Conv1D(3, 2, padding='causal')", (6, 2))
    assert tree(module) == (n, weights) and module.output_shape == output
