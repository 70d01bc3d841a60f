"""Keras 3's merging layers ``Concatenate``, ``Add`` and the dot-product ``Attention``.

Sources: ``keras/src/layers/merging/concatenate.py``, ``add.py``, ``attention/attention.py``
(Keras 3.15): ``Attention`` has a scalar ``scale`` with ``use_scale=True`` and a scalar
``concat_score_weight`` with ``score_mode="concat"``.

>>> Concatenate().build([(5, 3), (5, 4)])[1], Attention(use_scale=True).build([(6, 4), (3, 4)])[0].count
((5, 7), 1)
"""

from __future__ import annotations

from typing import Any

import sympy

from ...engine.symbols import plain
from ...tree import Module, Param
from .layer import KerasLayer

__all__ = ["Concatenate", "Add", "Attention"]


class Concatenate(KerasLayer):
    """``keras.layers.Concatenate(axis=-1)``: no weights; the inputs joined along ``axis``.

    Parameters
    ----------
    axis : int, default -1
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        Fewer than two inputs or mismatched shapes.
    """

    default_name = "concatenate"

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.axis = axis

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the axis summed.

        Parameters
        ----------
        input_shape : list of tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Not a list of inputs, or their shapes differ off the concatenation axis.
        """
        if not isinstance(input_shape, list) or len(input_shape) < 2:
            raise ValueError("A `Concatenate` layer should be called on a list of at least 1 input.")
        axis = self.axis
        ranks = {len(s) for s in input_shape}
        if len(ranks) != 1 or not isinstance(axis, int):
            raise ValueError(
                f"A `Concatenate` layer requires inputs with matching shapes except for the concat "
                f"axis. Received: input_shape={input_shape}"
            )
        rank = ranks.pop()
        position = axis - 1 if axis > 0 else rank + axis
        sizes = [s[position] for s in input_shape]
        joined = None if any(d is None for d in sizes) else plain(sympy.expand(sum(sizes)))
        first = list(input_shape[0])
        first[position] = joined
        return self._empty(), tuple(first)


class Add(KerasLayer):
    """``keras.layers.Add()``: no weights; element-wise sum of equal shapes.

    Parameters
    ----------
    **kwargs
        Layer arguments.
    """

    default_name = "add"

    def __init__(self, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the first input's shape.

        Parameters
        ----------
        input_shape : list of tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Called on fewer than two inputs (Keras' message).
        """
        if not isinstance(input_shape, list) or len(input_shape) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 inputs.")
        return self._empty(), input_shape[0]


class Attention(KerasLayer):
    """``keras.layers.Attention(use_scale=False, score_mode="dot")``: ``scale`` () and/or ``concat_score_weight`` ().

    Parameters
    ----------
    use_scale : bool, default False
        Adds a scalar ``scale``.
    score_mode : {"dot", "concat"}, default "dot"
        ``"concat"`` adds a scalar ``concat_score_weight``.
    dropout, seed, **kwargs
        Ignored.

    Raises
    ------
    ValueError
        Unknown ``score_mode`` (Keras' message).
    """

    default_name = "attention"

    def __init__(
        self, use_scale: Any = False, score_mode: Any = "dot", dropout: Any = 0.0, seed: Any = None, **kwargs: Any
    ) -> None:
        self._keep({})
        self._common(kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. "
                f"Received: score_mode={score_mode}"
            )
        self.use_scale, self.score_mode = use_scale is True, score_mode

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """Scalars; output: the query's shape with the value's last axis.

        Parameters
        ----------
        input_shape : list of tuple
            [query, value] or [query, value, key].

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Not called on ``[query, value]`` or ``[query, value, key]`` (Keras' message).
        """
        if not isinstance(input_shape, list) or len(input_shape) not in (2, 3):
            raise ValueError(
                "Attention layer must be called on a list of inputs, namely [query, value] or [query, value, key]."
            )
        params: tuple[Param, ...] = ()
        if self.use_scale:
            params += (Param("scale", ()),)
        if self.score_mode == "concat":
            params += (Param("concat_score_weight", ()),)
        query, value = input_shape[0], input_shape[1]
        return Module(self.name, "Attention", params, sep="/"), tuple(query[:-1]) + (value[-1],)
