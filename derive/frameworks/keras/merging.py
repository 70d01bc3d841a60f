"""Keras 3's merging layers ``Concatenate``, ``Add`` and the dot-product ``Attention``.

Sources: ``keras/src/layers/merging/concatenate.py``, ``add.py``, ``attention/attention.py``
(Keras 3.15): ``Attention`` has a scalar ``scale`` with ``use_scale=True`` and a scalar
``concat_score_weight`` with ``score_mode="concat"``.

>>> Concatenate().build([(5, 3), (5, 4)])[1], Attention(use_scale=True).build([(6, 4), (3, 4)])[0].count
((5, 7), 1)
"""

from __future__ import annotations

from typing import Any

from ..._sympy import sympy
from ...engine.symbols import plain
from ...tree import Module, Param
from .layer import KerasLayer

__all__ = [
    "Concatenate",
    "Merge",
    "Add",
    "Subtract",
    "Multiply",
    "Average",
    "Maximum",
    "Minimum",
    "Dot",
    "Attention",
    "AdditiveAttention",
]


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


class Merge(KerasLayer):
    """A merging layer without weights (``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
    ``Minimum``): the inputs combined element-wise, their shapes broadcast
    (``keras/src/layers/merging/base_merge.py``).

    Parameters
    ----------
    **kwargs
        Layer arguments.
    """

    #: Exactly this many inputs (``Subtract``: 2), or None for two or more.
    INPUTS: int | None = None

    def __init__(self, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; the inputs' shapes broadcast.

        Parameters
        ----------
        input_shape : list of tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Not a list of inputs, the wrong number, or shapes that do not broadcast (Keras' messages).
        """
        if not isinstance(input_shape, list) or len(input_shape) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 inputs.")
        if self.INPUTS is not None and len(input_shape) != self.INPUTS:
            raise ValueError(
                f"A `{type(self).__name__}` layer should be called on exactly {self.INPUTS} inputs. "
                f"Received: input_shape={input_shape}"
            )
        out = tuple(input_shape[0])
        for shape in input_shape[1:]:
            out = _broadcast(out, tuple(shape))
        return self._empty(), out


def _broadcast(a: tuple, b: tuple) -> tuple:
    """``_compute_elemwise_op_output_shape`` of Keras' merging layers."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return a
    out = list(a[: len(a) - len(b)])
    for i, j in zip(a[len(a) - len(b) :], b):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1:
            out.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(f"Inputs have incompatible shapes. Received shapes {a} and {b}")
        else:
            out.append(i)
    return tuple(out)


def _merge(name: str, inputs: int | None = None) -> type[Merge]:
    from .base import snake

    doc = f"``keras.layers.{name}()``: no weights; the inputs combined element-wise (see :class:`Merge`)."
    return type(name, (Merge,), {"default_name": snake(name), "INPUTS": inputs, "__doc__": doc, "__module__": __name__})


#: ``keras.layers.Add()``: no weights; element-wise sum (see :class:`Merge`).
Add = _merge("Add")
#: ``keras.layers.Subtract()``: no weights; the first input minus the second (exactly two).
Subtract = _merge("Subtract", 2)
#: ``keras.layers.Multiply()``: no weights; element-wise product.
Multiply = _merge("Multiply")
#: ``keras.layers.Average()``: no weights; element-wise mean.
Average = _merge("Average")
#: ``keras.layers.Maximum()``: no weights; element-wise maximum.
Maximum = _merge("Maximum")
#: ``keras.layers.Minimum()``: no weights; element-wise minimum.
Minimum = _merge("Minimum")


class Dot(KerasLayer):
    """``keras.layers.Dot(axes, normalize=False)``: no weights; the dot product of two inputs along ``axes``.

    Parameters
    ----------
    axes : int or tuple of 2 ints
        Axes counted with the batch axis (as Keras).
    normalize : bool
        Ignored.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        Not two inputs, or sizes along ``axes`` that differ (Keras' messages).
    """

    default_name = "dot"

    def __init__(self, axes: Any, normalize: Any = False, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.axes = axes

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """No weights; Keras' ``Dot.compute_output_shape`` (shapes with the batch axis, dropped after).

        Parameters
        ----------
        input_shape : list of tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            See the class.
        """
        if not isinstance(input_shape, list) or len(input_shape) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: input_shape={input_shape}"
            )
        first, second = [None, *input_shape[0]], [None, *input_shape[1]]
        if isinstance(self.axes, int):
            axes = [self.axes % len(first), self.axes % len(second)] if self.axes < 0 else [self.axes] * 2
        else:
            axes = [a % len(s) for a, s in zip(self.axes, (first, second))]
        if first[axes[0]] is not None and second[axes[1]] is not None and first[axes[0]] != second[axes[1]]:
            raise ValueError(
                f"Incompatible input shapes: axis values {first[axes[0]]} (at axis {axes[0]}) != "
                f"{second[axes[1]]} (at axis {axes[1]}). Full input shapes: {tuple(first)}, {tuple(second)}"
            )
        first.pop(axes[0])
        second.pop(axes[1])
        second.pop(0)
        out = first + second
        if len(out) == 1:
            out += [1]
        return self._empty(), tuple(out[1:])


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


class AdditiveAttention(KerasLayer):
    """``keras.layers.AdditiveAttention(use_scale=True, dropout=0.0)``: ``scale`` (dim,) with ``use_scale``.

    Source: ``keras/src/layers/attention/additive_attention.py`` (Keras 3.15): dim is the query's last axis.

    Parameters
    ----------
    use_scale : bool, default True
    dropout : float
        Ignored.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        Not called on ``[query, value]`` or ``[query, value, key]``.
    """

    default_name = "additive_attention"

    def __init__(self, use_scale: Any = True, dropout: Any = 0.0, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.use_scale = use_scale is not False

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``scale`` (dim,); output: the query's shape with the value's last axis.

        Parameters
        ----------
        input_shape : list of tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            See the class.
        """
        if not isinstance(input_shape, list) or len(input_shape) not in (2, 3):
            raise ValueError(
                "Attention layer must be called on a list of inputs, namely [query, value] or [query, value, key]."
            )
        query, value = input_shape[0], input_shape[1]
        params = (Param("scale", (query[-1],)),) if self.use_scale else ()
        return Module(self.name, "AdditiveAttention", params, sep="/"), tuple(query[:-1]) + (value[-1],)
