"""Keras 3's layers without weights whose output has the input's shape: known as such, never "unknown".

Dropout and noise (``Dropout``, ``SpatialDropout1D/2D/3D``, ``GaussianNoise``, ``GaussianDropout``,
``AlphaDropout``), activations (``Activation``, ``ReLU``, ``LeakyReLU``, ``ELU``, ``Softmax``),
``Masking``, ``Identity``, ``ActivityRegularization``, ``UnitNormalization``, ``Rescaling`` and the
image augmentations (``RandomFlip``, ``RandomRotation``, ..., ``AugMix``, ``MixUp``). Each takes
Keras' arguments, in Keras' order (a keyword Keras' layer does not take raises TypeError, as
Keras does); none has a weight. Sources: ``keras/src/layers/regularization/*.py``,
``activations/*.py``, ``core/identity.py``, ``core/masking.py``,
``normalization/unit_normalization.py``, ``preprocessing/image_preprocessing/*.py`` (Keras 3.15).

>>> STATELESS["LeakyReLU"](0.2).build((5, 3))[1], STATELESS["Dropout"](0.5).build((7,))[0].count
((5, 3), 0)
"""

from __future__ import annotations

from typing import Any

from ...tree import Module
from .base import snake
from .layer import KerasLayer

__all__ = ["Stateless", "stateless_layer", "STATELESS"]


class Stateless(KerasLayer):
    """No weights; the output shape is the input's.

    Parameters
    ----------
    *args
        Keras' positional arguments (in :attr:`ARGUMENTS` order).
    **kwargs
        Keras' keyword arguments and layer arguments.

    Raises
    ------
    TypeError
        More positional arguments than Keras' layer takes, or a keyword it does not take.
    """

    #: The layer's own arguments, in Keras' order.
    ARGUMENTS: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._keep({})
        if len(args) > len(self.ARGUMENTS):
            raise TypeError(
                f"{type(self).__name__} takes {len(self.ARGUMENTS)} positional arguments but {len(args)} were given"
            )
        self.options = {**dict(zip(self.ARGUMENTS, args)), **kwargs}
        self._common({k: v for k, v in kwargs.items() if k not in self.ARGUMENTS})

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the input's shape (a list of shapes: the first)."""
        out = input_shape[0] if isinstance(input_shape, list) else input_shape
        return self._empty(), out


def stateless_layer(name: str, arguments: str, doc: str = "") -> type[Stateless]:
    """A :class:`Stateless` class named ``name`` taking ``arguments`` (space-separated, Keras' order).

    Parameters
    ----------
    name : str
        Keras' class name.
    arguments : str
    doc : str

    Returns
    -------
    type
    """
    text = doc or f"``keras.layers.{name}({', '.join(arguments.split())})``: no weights, the input's shape."
    return type(
        name,
        (Stateless,),
        {"__doc__": text, "default_name": snake(name), "ARGUMENTS": tuple(arguments.split()), "__module__": __name__},
    )


_IMAGE = "value_range seed data_format"
#: Keras' class name -> its own arguments, in order (a layer without weights, the input's shape).
_TABLE = {
    "Dropout": "rate noise_shape seed",
    "SpatialDropout1D": "rate seed",
    "SpatialDropout2D": "rate data_format seed",
    "SpatialDropout3D": "rate data_format seed",
    "GaussianNoise": "stddev seed",
    "GaussianDropout": "rate seed",
    "AlphaDropout": "rate noise_shape seed",
    "ActivityRegularization": "l1 l2",
    "Masking": "mask_value",
    "Activation": "activation",
    "Identity": "",
    "ReLU": "max_value negative_slope threshold",
    "LeakyReLU": "negative_slope alpha",
    "ELU": "alpha",
    "Softmax": "axis",
    "Rescaling": "scale offset",
    "UnitNormalization": "axis",
    "RandomFlip": "mode seed data_format",
    "RandomRotation": "factor fill_mode interpolation seed fill_value data_format",
    "RandomZoom": "height_factor width_factor fill_mode interpolation seed fill_value data_format",
    "RandomContrast": "factor value_range seed",
    "RandomBrightness": "factor value_range seed",
    "RandomTranslation": "height_factor width_factor fill_mode interpolation seed fill_value data_format",
    "AugMix": "value_range num_chains chain_depth factor alpha all_ops interpolation seed data_format",
    "RandAugment": "value_range num_ops factor interpolation seed data_format",
    "MixUp": "alpha data_format seed",
    "CutMix": "factor seed data_format",
    "Solarization": "addition_factor threshold_factor value_range seed",
    "AutoContrast": "value_range",
    "Equalization": "value_range bins data_format",
    "RandomGrayscale": "factor data_format seed",
    "RandomHue": "factor value_range data_format seed",
    "RandomSaturation": "factor value_range data_format seed",
    "RandomSharpness": "factor value_range data_format seed",
    "RandomShear": "x_factor y_factor interpolation fill_mode fill_value data_format seed",
    "RandomPerspective": "factor scale interpolation fill_value seed data_format",
    "RandomPosterization": "factor value_range data_format seed",
    "RandomInvert": "factor value_range seed data_format",
    "RandomGaussianBlur": "factor kernel_size sigma value_range data_format seed",
    "RandomErasing": "factor scale fill_value value_range seed data_format",
    "RandomElasticTransform": "factor scale interpolation fill_mode fill_value value_range seed data_format",
    "RandomColorJitter": f"value_range brightness_factor contrast_factor saturation_factor hue_factor {_IMAGE}",
    "RandomColorDegeneration": "factor value_range data_format seed",
    "ContrastLimitedAdaptiveHistogramEqualization": "value_range clip_limit tile_grid_size data_format",
}
#: Every :class:`Stateless` layer, by Keras' class name.
STATELESS: dict[str, type[Stateless]] = {name: stateless_layer(name, args) for name, args in _TABLE.items()}
