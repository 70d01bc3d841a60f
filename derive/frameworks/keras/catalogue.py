"""The Keras 3 layers the mirror knows besides the recurrent ones and the core set: where each lives.

Each name maps to its Keras 3 module under ``keras.src.layers`` (``type(layer).__module__``, read
by the live-object reader); :mod:`.constructors` registers them all under the framework
``"keras"``. The classes are in :mod:`.stateless`, :mod:`.activations`, :mod:`.normalization`,
:mod:`.merging`, :mod:`.attention`, :mod:`.preprocessing`, :mod:`.conv_variants`,
:mod:`.pooling` and :mod:`.resampling`.

>>> MODULES["MultiHeadAttention"]
'attention.multi_head_attention'
"""

from __future__ import annotations

from typing import Any

from .activations import PReLU
from .attention import MultiHeadAttention
from .conv_variants import VARIANTS
from .merging import AdditiveAttention, Average, Dot, Maximum, Minimum, Multiply, Subtract
from .normalization import GroupNormalization, RMSNormalization
from .pooling import POOLING
from .preprocessing import PREPROCESSING, Normalization
from .resampling import RESAMPLING, Permute
from .stateless import STATELESS

__all__ = ["MODULES", "CATALOGUE"]

#: Keras' class name -> its module under ``keras.src.layers`` (Keras 3.15).
MODULES = {
    "SpatialDropout2D": "regularization.spatial_dropout",
    "SpatialDropout3D": "regularization.spatial_dropout",
    "GaussianNoise": "regularization.gaussian_noise",
    "GaussianDropout": "regularization.gaussian_dropout",
    "AlphaDropout": "regularization.alpha_dropout",
    "ActivityRegularization": "regularization.activity_regularization",
    "Identity": "core.identity",
    "ReLU": "activations.relu",
    "LeakyReLU": "activations.leaky_relu",
    "ELU": "activations.elu",
    "Softmax": "activations.softmax",
    "Rescaling": "preprocessing.rescaling",
    "UnitNormalization": "normalization.unit_normalization",
    "RandomFlip": "preprocessing.image_preprocessing.random_flip",
    "RandomRotation": "preprocessing.image_preprocessing.random_rotation",
    "RandomZoom": "preprocessing.image_preprocessing.random_zoom",
    "RandomContrast": "preprocessing.image_preprocessing.random_contrast",
    "RandomBrightness": "preprocessing.image_preprocessing.random_brightness",
    "RandomTranslation": "preprocessing.image_preprocessing.random_translation",
    "AugMix": "preprocessing.image_preprocessing.aug_mix",
    "RandAugment": "preprocessing.image_preprocessing.rand_augment",
    "MixUp": "preprocessing.image_preprocessing.mix_up",
    "CutMix": "preprocessing.image_preprocessing.cut_mix",
    "Solarization": "preprocessing.image_preprocessing.solarization",
    "AutoContrast": "preprocessing.image_preprocessing.auto_contrast",
    "Equalization": "preprocessing.image_preprocessing.equalization",
    "RandomGrayscale": "preprocessing.image_preprocessing.random_grayscale",
    "RandomHue": "preprocessing.image_preprocessing.random_hue",
    "RandomSaturation": "preprocessing.image_preprocessing.random_saturation",
    "RandomSharpness": "preprocessing.image_preprocessing.random_sharpness",
    "RandomShear": "preprocessing.image_preprocessing.random_shear",
    "RandomPerspective": "preprocessing.image_preprocessing.random_perspective",
    "RandomPosterization": "preprocessing.image_preprocessing.random_posterization",
    "RandomInvert": "preprocessing.image_preprocessing.random_invert",
    "RandomGaussianBlur": "preprocessing.image_preprocessing.random_gaussian_blur",
    "RandomErasing": "preprocessing.image_preprocessing.random_erasing",
    "RandomElasticTransform": "preprocessing.image_preprocessing.random_elastic_transform",
    "RandomColorJitter": "preprocessing.image_preprocessing.random_color_jitter",
    "RandomColorDegeneration": "preprocessing.image_preprocessing.random_color_degeneration",
    "ContrastLimitedAdaptiveHistogramEqualization": "preprocessing.image_preprocessing.clahe",
    "PReLU": "activations.prelu",
    "GroupNormalization": "normalization.group_normalization",
    "RMSNormalization": "normalization.rms_normalization",
    "Permute": "reshaping.permute",
    "Subtract": "merging.subtract",
    "Multiply": "merging.multiply",
    "Average": "merging.average",
    "Maximum": "merging.maximum",
    "Minimum": "merging.minimum",
    "Dot": "merging.dot",
    "AdditiveAttention": "attention.additive_attention",
    "MultiHeadAttention": "attention.multi_head_attention",
    "Normalization": "preprocessing.normalization",
    "StringLookup": "preprocessing.string_lookup",
    "IntegerLookup": "preprocessing.integer_lookup",
    "TextVectorization": "preprocessing.text_vectorization",
    "Hashing": "preprocessing.hashing",
    "HashedCrossing": "preprocessing.hashed_crossing",
    "CategoryEncoding": "preprocessing.category_encoding",
    "Discretization": "preprocessing.discretization",
    "Resizing": "preprocessing.image_preprocessing.resizing",
    "CenterCrop": "preprocessing.image_preprocessing.center_crop",
    "RandomCrop": "preprocessing.image_preprocessing.random_crop",
    "MelSpectrogram": "preprocessing.mel_spectrogram",
    "Conv1DTranspose": "convolutional.conv1d_transpose",
    "Conv2DTranspose": "convolutional.conv2d_transpose",
    "Conv3DTranspose": "convolutional.conv3d_transpose",
    "DepthwiseConv1D": "convolutional.depthwise_conv1d",
    "DepthwiseConv2D": "convolutional.depthwise_conv2d",
    "SeparableConv1D": "convolutional.separable_conv1d",
    "SeparableConv2D": "convolutional.separable_conv2d",
    "MaxPooling2D": "pooling.max_pooling2d",
    "MaxPooling3D": "pooling.max_pooling3d",
    "AveragePooling2D": "pooling.average_pooling2d",
    "AveragePooling3D": "pooling.average_pooling3d",
    "GlobalMaxPooling2D": "pooling.global_max_pooling2d",
    "GlobalMaxPooling3D": "pooling.global_max_pooling3d",
    "GlobalAveragePooling2D": "pooling.global_average_pooling2d",
    "GlobalAveragePooling3D": "pooling.global_average_pooling3d",
    "AdaptiveMaxPooling1D": "pooling.adaptive_max_pooling1d",
    "AdaptiveMaxPooling2D": "pooling.adaptive_max_pooling2d",
    "AdaptiveMaxPooling3D": "pooling.adaptive_max_pooling3d",
    "AdaptiveAveragePooling1D": "pooling.adaptive_average_pooling1d",
    "AdaptiveAveragePooling2D": "pooling.adaptive_average_pooling2d",
    "AdaptiveAveragePooling3D": "pooling.adaptive_average_pooling3d",
    "Cropping1D": "reshaping.cropping1d",
    "Cropping2D": "reshaping.cropping2d",
    "Cropping3D": "reshaping.cropping3d",
    "ZeroPadding1D": "reshaping.zero_padding1d",
    "ZeroPadding2D": "reshaping.zero_padding2d",
    "ZeroPadding3D": "reshaping.zero_padding3d",
    "UpSampling1D": "reshaping.up_sampling1d",
    "UpSampling2D": "reshaping.up_sampling2d",
    "UpSampling3D": "reshaping.up_sampling3d",
}
_CLASSES: dict[str, Any] = {
    **STATELESS,
    **POOLING,
    **RESAMPLING,
    **VARIANTS,
    **PREPROCESSING,
    "PReLU": PReLU,
    "GroupNormalization": GroupNormalization,
    "RMSNormalization": RMSNormalization,
    "Normalization": Normalization,
    "Permute": Permute,
    "Subtract": Subtract,
    "Multiply": Multiply,
    "Average": Average,
    "Maximum": Maximum,
    "Minimum": Minimum,
    "Dot": Dot,
    "AdditiveAttention": AdditiveAttention,
    "MultiHeadAttention": MultiHeadAttention,
}
#: Keras' class name -> the mirror's class, for every name of :data:`MODULES`.
CATALOGUE: dict[str, Any] = {name: _CLASSES[name] for name in MODULES}
