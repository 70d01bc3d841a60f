"""Keras 3's pooling layers (no weights), 1-D to 3-D: ``MaxPooling``, ``AveragePooling``, their global
and adaptive forms.

Sources: ``keras/src/layers/pooling/base_pooling.py``, ``base_global_pooling.py``,
``base_adaptive_pooling.py`` and ``keras/src/ops/operation_utils.py``
(``compute_pooling_output_shape``: ``padding`` exactly ``"valid"`` (floor((n - p) / s) + 1, which
must be positive) or ``"same"`` (floor((n - 1) / s) + 1); any other string, ``"SAME"`` too, raises
ValueError when the layer is built) (Keras 3.15). ``data_format="channels_first"`` reads (C, *spatial).

>>> MaxPooling1D(3, strides=2, padding="same").build((10, 3))[1], GlobalMaxPooling1D().build((10, 3))[1]
((5, 3), (3,))
>>> GlobalAveragePooling1D(data_format="channels_first", keepdims=True).build((3, 10))[1]
(3, 1)
"""

from __future__ import annotations

from typing import Any

from ...layers.conv import conv_length
from ...tree import Module
from .layer import KerasLayer

__all__ = [
    "Pooling",
    "Pooling1D",
    "GlobalPooling",
    "GlobalPooling1D",
    "AdaptivePooling",
    "POOLING",
]


def _sizes(value: Any, rank: int, name: str) -> tuple[Any, ...]:
    if isinstance(value, (tuple, list)):
        if len(value) != rank:
            raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
        return tuple(value)
    return (value,) * rank


def _rank_error(name: str, rank: int, input_shape: Any) -> ValueError:
    return ValueError(
        f'Input 0 of layer "{name}" is incompatible with the layer: expected ndim={rank + 2}, '
        f"found ndim={len(input_shape) + 1}. Full shape received: {(None, *input_shape)}"
    )


class Pooling(KerasLayer):
    """``MaxPooling{1,2,3}D`` / ``AveragePooling{1,2,3}D``: no weights; the spatial axes pooled.

    Parameters
    ----------
    pool_size : int or tuple of n ints, default 2
    strides : int, tuple of n ints or None, default None
        None is ``pool_size``.
    padding : str, default "valid"
        ``"valid"`` or ``"same"``, exactly (Keras refuses anything else when the layer is built).
    data_format : str or None, default None
        ``"channels_first"`` for (C, *spatial) inputs; otherwise (*spatial, C).
    name : str or None
    **kwargs
        Keras' layer arguments (``dtype``, ``trainable``, ``input_shape`` ...).

    Raises
    ------
    TypeError
        A keyword Keras' layer does not take, or ``**`` unpacking.
    ValueError
        ``pool_size`` or ``strides`` of another length than the rank.
    """

    rank = 1

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
        self.pool = _sizes(pool_size, self.rank, "pool_size")
        self.strides = _sizes(self.pool if strides is None else strides, self.rank, "strides")
        self.padding = padding
        self.first = data_format == "channels_first"

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the pooled spatial axes, the channels kept.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Wrong rank; ``padding`` not ``"valid"``/``"same"``; an output size of zero or less
            (Keras' messages).
        """
        if self.padding not in ("valid", "same"):
            raise ValueError(f"Argument `padding` must be either 'valid' or 'same'. Received: padding={self.padding}")
        if input_shape and input_shape[0] is Ellipsis:
            return self._empty(), input_shape if not self.first else (Ellipsis, None)
        if len(input_shape) != self.rank + 1:
            raise _rank_error(self.name, self.rank, input_shape)
        spatial = input_shape[1:] if self.first else input_shape[:-1]
        out = tuple(conv_length(n, p, s, self.padding) for n, p, s in zip(spatial, self.pool, self.strides))
        for size in out:
            if isinstance(size, int) and size <= 0:
                raise ValueError(
                    f"Computed output size would be zero or negative. Received: `inputs.shape={(None, *input_shape)}`, "
                    f"`pool_size={self.pool}`, `strides={self.strides}`, `padding={self.padding}`."
                )
        return self._empty(), ((input_shape[0], *out) if self.first else (*out, input_shape[-1]))


#: The 1-D pooling base (``MaxPooling1D``, ``AveragePooling1D``).
Pooling1D = Pooling


class GlobalPooling(KerasLayer):
    """``Global{Average,Max}Pooling{1,2,3}D``: no weights; the spatial axes pooled away.

    Parameters
    ----------
    data_format : str or None, default None
        ``"channels_first"`` for (C, *spatial) inputs; otherwise (*spatial, C).
    keepdims : bool, default False
        Keep the pooled axes, of size 1 (only ``True`` keeps them): (1, ..., C), or (C, 1, ...)
        with ``channels_first``.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``trainable``, ``input_shape`` ...).

    Raises
    ------
    TypeError
        A keyword Keras' layer does not take, or ``**`` unpacking.
    """

    rank = 1

    def __init__(self, data_format: Any = None, keepdims: Any = False, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.first, self.keepdims = data_format == "channels_first", keepdims is True

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (C,), or the input with its spatial axes 1 (``keepdims``).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Wrong rank (Keras' message).
        """
        if input_shape and input_shape[0] is Ellipsis:
            if self.first:
                raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
            return self._empty(), ((Ellipsis, input_shape[-1]) if self.keepdims else (input_shape[-1],))
        if len(input_shape) != self.rank + 1:
            raise _rank_error(self.name, self.rank, input_shape)
        channels = input_shape[0] if self.first else input_shape[-1]
        if not self.keepdims:
            return self._empty(), (channels,)
        ones = (1,) * self.rank
        return self._empty(), ((channels, *ones) if self.first else (*ones, channels))


#: The 1-D global pooling base (``GlobalAveragePooling1D``, ``GlobalMaxPooling1D``).
GlobalPooling1D = GlobalPooling


class AdaptivePooling(KerasLayer):
    """``Adaptive{Average,Max}Pooling{1,2,3}D(output_size)``: no weights; spatial axes of ``output_size``.

    Parameters
    ----------
    output_size : int or tuple of n ints
    data_format : str or None, default None
    **kwargs
        Keras' layer arguments.

    Raises
    ------
    TypeError
        A keyword Keras' layer does not take.
    ValueError
        ``output_size`` of another length than the rank.
    """

    rank = 1

    def __init__(self, output_size: Any, data_format: Any = None, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.output_size = _sizes(output_size, self.rank, "output_size")
        self.first = data_format == "channels_first"

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (*output_size, C).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Wrong rank.
        """
        if not input_shape or input_shape[0] is Ellipsis or len(input_shape) != self.rank + 1:
            raise _rank_error(self.name, self.rank, tuple(d for d in input_shape if d is not Ellipsis))
        channels = input_shape[0] if self.first else input_shape[-1]
        return self._empty(), ((channels, *self.output_size) if self.first else (*self.output_size, channels))


def _kind(base: type, name: str, rank: int) -> type:
    from .base import snake

    doc = f"``keras.layers.{name}``: no weights (see :class:`{base.__name__}`)."
    return type(name, (base,), {"rank": rank, "default_name": snake(name), "__doc__": doc, "__module__": __name__})


#: Every pooling layer, by Keras' class name.
POOLING: dict[str, type] = {}
for _rank in (1, 2, 3):
    for _how in ("Max", "Average"):
        for _base, _pattern in (
            (Pooling, "{how}Pooling{rank}D"),
            (GlobalPooling, "Global{how}Pooling{rank}D"),
            (AdaptivePooling, "Adaptive{how}Pooling{rank}D"),
        ):
            _name = _pattern.format(how=_how, rank=_rank)
            POOLING[_name] = _kind(_base, _name, _rank)

#: ``keras.layers.MaxPooling1D(pool_size=2, strides=None, padding="valid")`` (see :class:`Pooling`).
MaxPooling1D = POOLING["MaxPooling1D"]
#: ``keras.layers.AveragePooling1D(pool_size=2, strides=None, padding="valid")`` (see :class:`Pooling`).
AveragePooling1D = POOLING["AveragePooling1D"]
#: ``keras.layers.GlobalMaxPooling1D(data_format=None, keepdims=False)`` (see :class:`GlobalPooling`).
GlobalMaxPooling1D = POOLING["GlobalMaxPooling1D"]
#: ``keras.layers.GlobalAveragePooling1D(data_format=None, keepdims=False)`` (see :class:`GlobalPooling`).
GlobalAveragePooling1D = POOLING["GlobalAveragePooling1D"]
__all__ += ["MaxPooling1D", "AveragePooling1D", "GlobalMaxPooling1D", "GlobalAveragePooling1D"]
