"""Keras 3's activation layer with weights: ``PReLU`` (the others, ``ReLU``, ``LeakyReLU``, ``ELU``,
``Softmax``, have none: :mod:`.stateless`).

Source: ``keras/src/layers/activations/prelu.py`` (Keras 3.15): ``alpha`` of the input's shape
without the batch axis, each axis in ``shared_axes`` (counted from 1) of size 1.

>>> module, _ = PReLU(shared_axes=[1]).build((10, 3))
>>> [(p.name, p.shape) for p in module.params]
[('alpha', (1, 3))]
"""

from __future__ import annotations

from typing import Any

from ...tree import Module, Param
from .layer import KerasLayer

__all__ = ["PReLU"]


class PReLU(KerasLayer):
    """``keras.layers.PReLU(alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None,
    shared_axes=None)``: ``alpha``, one slope per element of the input (shared along ``shared_axes``).

    Parameters
    ----------
    alpha_initializer, alpha_regularizer, alpha_constraint : object
        Ignored.
    shared_axes : int, list of int or None
        Axes (1 = the first after the batch) along which one slope is shared.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        An axis of ``shared_axes`` outside the input; an unknown size in ``alpha``.
    """

    default_name = "p_re_lu"

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common(kwargs)
        if shared_axes is None:
            self.shared_axes: tuple[Any, ...] = ()
        else:
            self.shared_axes = tuple(shared_axes) if isinstance(shared_axes, (list, tuple)) else (shared_axes,)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``alpha`` of the input's shape (shared axes 1); output: the input's shape.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            See the class.
        """
        if not input_shape or Ellipsis in input_shape:
            raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
        shape = list(input_shape)
        for axis in self.shared_axes:
            if not isinstance(axis, int) or not 1 <= axis <= len(shape):
                raise ValueError(
                    f"{self.name}: shared_axes={list(self.shared_axes)} do not fit an input of rank {len(shape) + 1}"
                )
            shape[axis - 1] = 1
        if None in shape:
            raise ValueError(f"{self.name}: alpha of shape {tuple(shape)} has a size the input leaves unknown")
        return Module(self.name, "PReLU", (Param("alpha", tuple(shape)),), sep="/"), input_shape
