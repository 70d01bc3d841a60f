"""Keras 3's ``LayerNormalization`` and ``BatchNormalization`` (on :mod:`derive.layers.norm`).

Sources: ``keras/src/layers/normalization/layer_normalization.py``, ``batch_normalization.py``
(Keras 3.15): ``gamma`` (``scale``), ``beta`` (``center``) of the size of ``axis``; a
BatchNormalization's ``moving_mean`` and ``moving_variance`` are non-trainable weights, which
``count_params()`` counts.

>>> module, _ = BatchNormalization().build((5, 3))
>>> [(p.name, p.shape, p.trainable) for p in module.params][2:], module.count
([('moving_mean', (3,), False), ('moving_variance', (3,), False)], 12)
"""

from __future__ import annotations

from typing import Any

from ...layers.norm import batch_norm, layer_norm
from ...tree import Module, Param
from .layer import KerasLayer, last_axis

__all__ = ["Normalization", "LayerNormalization", "BatchNormalization", "GroupNormalization", "RMSNormalization"]


class Normalization(KerasLayer):
    """Weights of the normalised axis' size."""

    ALLOWED = frozenset(
        {
            "beta_initializer",
            "gamma_initializer",
            "beta_regularizer",
            "gamma_regularizer",
            "beta_constraint",
            "gamma_constraint",
            "moving_mean_initializer",
            "moving_variance_initializer",
            "renorm",
            "renorm_clipping",
            "renorm_momentum",
            "synchronized",
            "momentum",
            "epsilon",
            "rms_scaling",
        }
    )

    def _axis(self, axis: Any, center: Any, scale: Any) -> None:
        if isinstance(axis, (list, tuple)) and len(axis) == 1:
            axis = axis[0]  # a saved config writes LayerNormalization's axis as a list: [-1]
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"{type(self).__name__}: only one int `axis` is supported, got {axis!r}")
        self.axis, self.center, self.scale = axis, center is not False, scale is not False

    def _size_of_axis(self, input_shape: Any) -> Any:
        """C, the size of ``axis`` (Keras' messages for an unknown or missing axis)."""
        if self.axis == -1:
            return last_axis(input_shape, self.name)
        if input_shape and input_shape[0] is Ellipsis:
            raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
        full = (None, *input_shape)
        if not -len(full) <= self.axis < len(full):
            raise ValueError(f"Invalid axis: {self.axis}")
        size = full[self.axis]
        if size is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the "
                f"layer received an input with shape {full}."
            )
        return size


class LayerNormalization(Normalization):
    """``keras.layers.LayerNormalization(axis=-1, epsilon=1e-3, center=True, scale=True)``: ``gamma``, ``beta`` (C,).

    Parameters
    ----------
    axis : int, default -1
    epsilon : float
        Ignored.
    center, scale : bool, default True
        ``beta`` and ``gamma`` respectively.
    **kwargs
        Initialisers, regularisers, constraints, ignored.

    Raises
    ------
    TypeError
        ``axis`` not one int.
    """

    default_name = "layer_normalization"

    def __init__(
        self, axis: Any = -1, epsilon: Any = 1e-3, center: Any = True, scale: Any = True, **kwargs: Any
    ) -> None:
        self._keep(locals())
        self._common(kwargs)
        self._axis(axis, center, scale)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``gamma`` and ``beta`` of the size of ``axis`` (``rms_scaling=True``: ``gamma`` only,
        as ``LayerNormalization.build`` makes them); output: the input's shape."""
        size = self._size_of_axis(input_shape)
        rms = self.kwargs.get("rms_scaling") is True
        module = layer_norm(
            (size,), weight=self.scale or rms, bias=self.center and not rms, name=self.name, spelling="keras"
        )
        return module, input_shape


class BatchNormalization(Normalization):
    """``keras.layers.BatchNormalization(axis=-1, ...)``: ``gamma``, ``beta``, ``moving_mean``, ``moving_variance``.

    The moving statistics are non-trainable weights; ``count_params()`` counts them: 4C
    (``renorm=True``: three more, ``moving_stddev``, ``renorm_mean``, ``renorm_stddev``: 7C).

    Parameters
    ----------
    axis : int, default -1
    momentum, epsilon
        Ignored.
    center, scale : bool, default True
    **kwargs
        Initialisers, regularisers, constraints, ignored.

    Raises
    ------
    TypeError
        ``axis`` not one int.
    """

    default_name = "batch_normalization"

    def __init__(
        self,
        axis: Any = -1,
        momentum: Any = 0.99,
        epsilon: Any = 1e-3,
        center: Any = True,
        scale: Any = True,
        **kwargs: Any,
    ) -> None:
        self._keep(locals())
        self._common(kwargs)
        self._axis(axis, center, scale)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``gamma``, ``beta`` and the non-trainable ``moving_mean``, ``moving_variance``; output: the input's shape."""
        size = self._size_of_axis(input_shape)
        renorm = self.kwargs.get("renorm") is True
        module = batch_norm(size, center=self.center, scale=self.scale, renorm=renorm, name=self.name, spelling="keras")
        return module, input_shape


class GroupNormalization(Normalization):
    """``keras.layers.GroupNormalization(groups=32, axis=-1, epsilon=1e-3, center=True, scale=True)``.

    ``gamma`` and ``beta`` (C,), C the size of ``axis``, which ``groups`` must divide
    (``keras/src/layers/normalization/group_normalization.py``; ``groups=-1``: one per channel).

    Parameters
    ----------
    groups : int, default 32
    axis : int, default -1
    epsilon : float
        Ignored.
    center, scale : bool, default True
    **kwargs
        Initialisers, regularisers, constraints, ignored.

    Raises
    ------
    TypeError
        ``axis`` not one int.
    """

    default_name = "group_normalization"

    def __init__(
        self,
        groups: Any = 32,
        axis: Any = -1,
        epsilon: Any = 1e-3,
        center: Any = True,
        scale: Any = True,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common(kwargs)
        self._axis(axis, center, scale)
        self.groups = groups

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``gamma``, ``beta`` (C,); output: the input's shape (Keras' messages for groups that do not fit)."""
        size = self._size_of_axis(input_shape)
        groups = size if self.groups == -1 else self.groups
        if isinstance(size, int) and isinstance(groups, int):
            if size < groups:
                raise ValueError(f"Number of groups ({groups}) cannot be more than the number of channels ({size}).")
            if size % groups:
                raise ValueError(f"Number of groups ({groups}) must be a multiple of the number of channels ({size}).")
        module = layer_norm((size,), weight=self.scale, bias=self.center, name=self.name, spelling="keras")
        return module.replace(type="GroupNormalization"), input_shape


class RMSNormalization(Normalization):
    """``keras.layers.RMSNormalization(axis=-1, epsilon=1e-6)``: ``scale`` (C,).

    Source: ``keras/src/layers/normalization/rms_normalization.py`` (Keras 3.15).

    Parameters
    ----------
    axis : int, default -1
    epsilon : float
        Ignored.
    **kwargs
        Layer arguments.

    Raises
    ------
    TypeError
        ``axis`` not one int.
    """

    default_name = "rms_normalization"

    def __init__(self, axis: Any = -1, epsilon: Any = 1e-6, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self._axis(axis, True, True)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``scale`` (C,); output: the input's shape."""
        size = self._size_of_axis(input_shape)
        return Module(self.name, "RMSNormalization", (Param("scale", (size,)),), sep="/"), input_shape
