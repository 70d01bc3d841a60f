"""Keras 3's layers without weights that reshape: ``Flatten``, ``Reshape``, ``RepeatVector``, and
the stateless ``Dropout``, ``SpatialDropout1D``, ``Masking``, ``Activation``.

Sources: ``keras/src/layers/reshaping/*.py``, ``regularization/*.py``, ``core/masking.py``,
``activations/activation.py`` (Keras 3.15).

>>> Flatten().build((6, 4))[1], RepeatVector(3).build((24,))[1], Reshape((-1, 8)).build((3, 24))[1]
((24,), (3, 24), (9, 8))
"""

from __future__ import annotations

from typing import Any

from ..._sympy import sympy
from ...engine.symbols import as_expr, plain
from ...tree import Formula, Module
from .layer import KerasLayer
from .stateless import STATELESS, Stateless

__all__ = [
    "Stateless",
    "Dropout",
    "SpatialDropout1D",
    "Masking",
    "Activation",
    "Flatten",
    "Reshape",
    "RepeatVector",
]


def _elements(shape: tuple) -> Any:
    """The product of a shape's sizes, expanded (1 for ``()``)."""
    return plain(sympy.expand(sympy.Mul(*shape))) if shape else 1


class _Targeted(KerasLayer):
    """A layer without weights whose output needs its argument (``target_shape``, ``n``)."""

    def recipe(self, input_shape: Any, module: Module) -> Formula | None:
        """None: a table shows no formula for it (as the readers always have).

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        None
        """
        return None


#: ``keras.layers.Dropout(rate, noise_shape=None, seed=None)``: no weights (:mod:`.stateless`).
Dropout = STATELESS["Dropout"]
#: ``keras.layers.SpatialDropout1D(rate, seed=None)``: no weights (:mod:`.stateless`).
SpatialDropout1D = STATELESS["SpatialDropout1D"]
#: ``keras.layers.Masking(mask_value=0.0)``: no weights (:mod:`.stateless`).
Masking = STATELESS["Masking"]
#: ``keras.layers.Activation(activation)``: no weights (:mod:`.stateless`).
Activation = STATELESS["Activation"]


class Flatten(KerasLayer):
    """``keras.layers.Flatten()``: no weights; output (product of the non-batch dimensions,).

    Parameters
    ----------
    data_format : str, optional
        Ignored.
    **kwargs
        Layer arguments.
    """

    default_name = "flatten"

    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (product,) or (None,) when a dimension is unknown.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        if any(d is None or d is Ellipsis for d in input_shape):
            return self._empty(), (None,)
        return self._empty(), (_elements(tuple(input_shape)),)


class Reshape(_Targeted):
    """``keras.layers.Reshape(target_shape)``: no weights; output ``target_shape`` (one -1 inferred).

    Parameters
    ----------
    target_shape : tuple of int
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        The sizes do not match (Keras' "total size of the new array must be unchanged").
    """

    default_name = "reshape"

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.target_shape = tuple(target_shape) if isinstance(target_shape, (tuple, list)) else (target_shape,)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the target shape, its -1 computed when the input's size is known.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            The target shape does not hold the input's elements.
        """
        target = self.target_shape
        known = not any(d is None or d is Ellipsis for d in input_shape)
        if -1 in target:
            rest = _elements(tuple(d for d in target if d != -1))
            if not known:
                return self._empty(), tuple(None if d == -1 else d for d in target)
            total = _elements(tuple(input_shape))
            if isinstance(total, int) and isinstance(rest, int) and total % rest:
                raise ValueError(
                    f"The total size of the tensor must be unchanged. Received: input_shape="
                    f"{tuple(input_shape)}, target_shape={target}"
                )
            return self._empty(), tuple(plain(sympy.expand(as_expr(total) / rest)) if d == -1 else d for d in target)
        if known and sympy.expand(_elements(tuple(input_shape)) - _elements(target)) != 0:
            raise ValueError(
                f"The total size of the tensor must be unchanged. Received: input_shape="
                f"{tuple(input_shape)}, target_shape={target}"
            )
        return self._empty(), target


class RepeatVector(_Targeted):
    """``keras.layers.RepeatVector(n)``: no weights; (F,) -> (n, F).

    Parameters
    ----------
    n : int
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        The input is not 2-D (batch, features) (Keras' message).
    """

    default_name = "repeat_vector"

    def __init__(self, n: Any, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.n = n

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; (n, F).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            The input is not 2-D (batch, features) (Keras' message).
        """
        if len(input_shape) != 1 or input_shape[0] is Ellipsis:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=2, '
                f"found ndim={len(input_shape) + 1}. Full shape received: {(None, *input_shape)}"
            )
        return self._empty(), (self.n, input_shape[0])
