"""Keras 3's layers without weights that crop, pad, repeat or reorder axes: ``Cropping1D/2D/3D``,
``ZeroPadding1D/2D/3D``, ``UpSampling1D/2D/3D`` and ``Permute``.

Sources: ``keras/src/layers/reshaping/cropping{1,2,3}d.py``, ``zero_padding{1,2,3}d.py``,
``up_sampling{1,2,3}d.py``, ``permute.py`` (Keras 3.15): an int crops or pads every side of every
spatial axis, a tuple of n ints each axis on both sides, a tuple of n pairs each side; up-sampling
repeats each spatial axis ``size`` times.

>>> [RESAMPLING[n](a).build(s)[1] for n, a, s in [("Cropping1D", (1, 2), (10, 3)), ("ZeroPadding2D", 1, (4, 5, 3))]]
[(7, 3), (6, 7, 3)]
>>> RESAMPLING["UpSampling2D"](2).build((4, 5, 3))[1]
(8, 10, 3)
>>> Permute((2, 1)).build((10, 3))[1]
(3, 10)
"""

from __future__ import annotations

from typing import Any

from ...tree import Module
from .base import snake
from .layer import KerasLayer

__all__ = ["Resampled", "Cropping", "ZeroPadding", "UpSampling", "Permute", "RESAMPLING"]


def _pairs(value: Any, rank: int, name: str) -> tuple[tuple[Any, Any], ...]:
    """Keras' ``normalize_tuple`` of a crop or pad: n (before, after) pairs."""
    if isinstance(value, int) and not isinstance(value, bool):
        return ((value, value),) * rank
    if isinstance(value, (tuple, list)) and rank == 1 and len(value) == 2 and all(isinstance(v, int) for v in value):
        return ((value[0], value[1]),)
    if isinstance(value, (tuple, list)) and len(value) == rank:
        out = []
        for item in value:
            if isinstance(item, int) and not isinstance(item, bool):
                out.append((item, item))
            elif isinstance(item, (tuple, list)) and len(item) == 2:
                out.append((item[0], item[1]))
            else:
                raise ValueError(f"`{name}` should be a tuple of {rank} tuples of 2 ints. Received: {name}={value}")
        return tuple(out)
    raise ValueError(f"`{name}` should have {rank} elements. Received: {name}={value}")


class Resampled(KerasLayer):
    """A layer without weights that changes the spatial sizes (n spatial axes, channels last or first).

    The base of cropping, padding and up-sampling: each kind's constructor takes its sizes,
    ``data_format`` (``"channels_last"`` or ``"channels_first"``) and Keras' layer arguments.
    """

    rank = 1

    def _setup(self, data_format: Any, kwargs: dict[str, Any]) -> None:
        self._keep({})
        self._common(kwargs)
        self.first = data_format == "channels_first"

    def _resize(self, axis: int, size: Any) -> Any:  # pragma: no cover  (each kind defines it)
        raise NotImplementedError

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; each spatial axis resized.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Wrong rank, or a spatial size of zero or less.
        """
        if not input_shape or input_shape[0] is Ellipsis or len(input_shape) != self.rank + 1:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self.rank + 2}, '
                f"found ndim={len(input_shape) + 1}. Full shape received: {(None, *input_shape)}"
            )
        spatial = input_shape[1:] if self.first else input_shape[:-1]
        out = tuple(None if n is None else self._resize(i, n) for i, n in enumerate(spatial))
        for size in out:
            if isinstance(size, int) and size <= 0:
                raise ValueError(
                    f"{self.name}: the spatial sizes of its input {(None, *input_shape)} leave nothing ({out})"
                )
        return self._empty(), ((input_shape[0], *out) if self.first else (*out, input_shape[-1]))


class Cropping(Resampled):
    """``keras.layers.Cropping{1,2,3}D(cropping, data_format=None)``: no weights.

    Parameters
    ----------
    cropping : int, tuple of n ints or of n pairs
    data_format : str or None
    **kwargs
        Keras' layer arguments.
    """

    def __init__(self, cropping: Any = None, data_format: Any = None, **kwargs: Any) -> None:
        self._setup(data_format, kwargs)
        default = (1, 1) if self.rank == 1 else ((0, 0),) * self.rank
        self.pairs = _pairs(default if cropping is None else cropping, self.rank, "cropping")

    def _resize(self, axis: int, size: Any) -> Any:
        return size - self.pairs[axis][0] - self.pairs[axis][1]


class ZeroPadding(Resampled):
    """``keras.layers.ZeroPadding{1,2,3}D(padding, data_format=None)``: no weights.

    Parameters
    ----------
    padding : int, tuple of n ints or of n pairs
    data_format : str or None
    **kwargs
        Keras' layer arguments.
    """

    def __init__(self, padding: Any = None, data_format: Any = None, **kwargs: Any) -> None:
        self._setup(data_format, kwargs)
        self.pairs = _pairs(1 if padding is None else padding, self.rank, "padding")

    def _resize(self, axis: int, size: Any) -> Any:
        return size + self.pairs[axis][0] + self.pairs[axis][1]


class UpSampling(Resampled):
    """``keras.layers.UpSampling{1,2,3}D(size=2, data_format=None, interpolation="nearest")``: no weights.

    Parameters
    ----------
    size : int or tuple of n ints
    data_format : str or None
    interpolation : str
        Ignored.
    **kwargs
        Keras' layer arguments.
    """

    def __init__(self, size: Any = 2, data_format: Any = None, interpolation: Any = "nearest", **kwargs: Any) -> None:
        self._setup(data_format, kwargs)
        self.sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,) * self.rank

    def _resize(self, axis: int, size: Any) -> Any:
        return size * self.sizes[axis]


class Permute(KerasLayer):
    """``keras.layers.Permute(dims)``: no weights; the non-batch axes reordered (``dims`` counts from 1).

    Parameters
    ----------
    dims : tuple of int
        A permutation of 1..n.
    **kwargs
        Keras' layer arguments.

    Raises
    ------
    ValueError
        ``dims`` not a permutation of 1..n (Keras' message).
    """

    default_name = "permute"

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be "
                f"consecutive and start from 1. Received dims={dims}"
            )

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the input's axes in ``dims`` order.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            ``dims`` of another length than the input's rank.
        """
        if len(input_shape) != len(self.dims) or Ellipsis in input_shape:
            raise ValueError(f"{self.name}: dims={self.dims} do not fit an input of shape {(None, *input_shape)}")
        return self._empty(), tuple(input_shape[d - 1] for d in self.dims)


def _kind(base: type, name: str, rank: int) -> type:
    doc = f"``keras.layers.{name}``: no weights (see :class:`{base.__name__}`)."
    return type(name, (base,), {"rank": rank, "default_name": snake(name), "__doc__": doc, "__module__": __name__})


#: Every cropping, padding and up-sampling layer, by Keras' class name.
RESAMPLING: dict[str, type] = {
    f"{kind}{rank}D": _kind(base, f"{kind}{rank}D", rank)
    for kind, base in (("Cropping", Cropping), ("ZeroPadding", ZeroPadding), ("UpSampling", UpSampling))
    for rank in (1, 2, 3)
}
