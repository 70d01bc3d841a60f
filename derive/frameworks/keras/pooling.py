"""Keras 3's 1-D pooling layers (no weights): ``MaxPooling1D``, ``AveragePooling1D``,
``GlobalMaxPooling1D``, ``GlobalAveragePooling1D``.

Source: ``keras/src/layers/pooling/base_pooling.py``, ``base_global_pooling.py`` (Keras 3.15).

>>> MaxPooling1D(3, strides=2, padding="same").build((10, 3))[1], GlobalMaxPooling1D().build((10, 3))[1]
((5, 3), (3,))
"""

from __future__ import annotations

from typing import Any

from ...layers.conv import conv_length
from ...tree import Module
from .layer import KerasLayer

__all__ = [
    "Pooling1D",
    "MaxPooling1D",
    "AveragePooling1D",
    "GlobalPooling1D",
    "GlobalAveragePooling1D",
    "GlobalMaxPooling1D",
]


class Pooling1D(KerasLayer):
    """``MaxPooling1D`` / ``AveragePooling1D``: no weights; the time axis pooled.

    Parameters
    ----------
    pool_size : int or tuple of 1 int, default 2
        The pooling window (time steps).
    strides : int, tuple of 1 int or None, default None
        The window's step (time steps); None is ``pool_size``.
    padding : str, default "valid"
        ``"valid"`` or ``"same"`` (any case); with ``pool_size`` and ``strides`` it sets the
        output length.
    data_format : str or None, default None
        ``"channels_first"`` for (C, T) inputs; otherwise (T, C).
    name : str or None, default None
        The layer's name (default ``max_pooling1d`` / ``average_pooling1d``).
    **kwargs
        Keras' layer arguments (``dtype``, ``trainable``, ``input_shape`` ...).

    Raises
    ------
    TypeError
        A keyword Keras' layer does not take, or ``**`` unpacking.
    """

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: Any = "valid",
        data_format: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common({**kwargs, "name": name})
        self.name = name or self.default_name
        self.pool = pool_size[0] if isinstance(pool_size, (tuple, list)) else pool_size
        self.strides = (strides[0] if isinstance(strides, (tuple, list)) else strides) or self.pool
        self.padding = padding.lower() if isinstance(padding, str) else padding
        self.first = data_format == "channels_first"

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (T_out, C).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        if input_shape and input_shape[0] is Ellipsis:
            return self._empty(), input_shape if not self.first else (Ellipsis, None)
        if len(input_shape) != 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, '
                f"found ndim={len(input_shape) + 1}. Full shape received: {(None, *input_shape)}"
            )
        if self.first:
            return self._empty(), (input_shape[0], conv_length(input_shape[1], self.pool, self.strides, self.padding))
        return self._empty(), (conv_length(input_shape[0], self.pool, self.strides, self.padding), input_shape[1])


class MaxPooling1D(Pooling1D):
    """``keras.layers.MaxPooling1D(pool_size=2, strides=None, padding="valid")``: no weights.

    Parameters
    ----------
    pool_size, strides, padding, data_format, name, **kwargs
        As Keras.
    """

    default_name = "max_pooling1d"


class AveragePooling1D(Pooling1D):
    """``keras.layers.AveragePooling1D(pool_size=2, strides=None, padding="valid")``: no weights.

    Parameters
    ----------
    pool_size, strides, padding, data_format, name, **kwargs
        As Keras.
    """

    default_name = "average_pooling1d"


class GlobalPooling1D(KerasLayer):
    """``GlobalAveragePooling1D`` / ``GlobalMaxPooling1D``: no weights; the time axis pooled away.

    Parameters
    ----------
    data_format : str or None, default None
        ``"channels_first"`` for (C, T) inputs; otherwise (T, C).
    keepdims : bool, default False
        Keep the pooled time axis, of size 1 (only ``True`` keeps it): (1, C) for (T, C) inputs.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``input_shape`` ...).

    Raises
    ------
    TypeError
        A keyword Keras' layer does not take, or ``**`` unpacking.
    """

    def __init__(self, data_format: Any = None, keepdims: Any = False, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.first, self.keepdims = data_format == "channels_first", keepdims is True

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (C,).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        channels = input_shape[0] if self.first and input_shape[0] is not Ellipsis else input_shape[-1]
        return self._empty(), ((1, channels) if self.keepdims else (channels,))


class GlobalAveragePooling1D(GlobalPooling1D):
    """``keras.layers.GlobalAveragePooling1D()``: no weights; (T, C) -> (C,).

    Parameters
    ----------
    data_format, keepdims, **kwargs
        As Keras.
    """

    default_name = "global_average_pooling1d"


class GlobalMaxPooling1D(GlobalPooling1D):
    """``keras.layers.GlobalMaxPooling1D()``: no weights; (T, C) -> (C,).

    Parameters
    ----------
    data_format, keepdims, **kwargs
        As Keras.
    """

    default_name = "global_max_pooling1d"
