"""Keras 3's ``MultiHeadAttention``: four ``EinsumDense`` projections (``query``, ``key``, ``value``,
``attention_output``), and ``gate`` with ``use_gate``.

Source: ``keras/src/layers/attention/multi_head_attention.py`` (Keras 3.15): ``query/kernel``
(E_q, heads, key_dim) and ``query/bias`` (heads, key_dim); ``key`` from the key's (or value's)
last axis E_k; ``value/kernel`` (E_v, heads, value_dim); ``attention_output/kernel`` (heads,
value_dim, *O) and ``bias`` (*O,), O the ``output_shape`` (default E_q). Building it makes a
``Softmax`` and a ``Dropout`` that take Keras' automatic names (``softmax``, ``dropout``), which
shifts the names of those the code makes afterwards (:attr:`MultiHeadAttention.BUILD_NAMES`).

>>> module, out = MultiHeadAttention(num_heads=2, key_dim=3).build([(4, 6), (4, 6)])
>>> module.count, out
(168, (4, 6))
"""

from __future__ import annotations

from typing import Any

from ...tree import Module, Param
from .layer import KerasLayer

__all__ = ["MultiHeadAttention"]


def _projection(name: str, kernel: tuple[Any, ...], bias: tuple[Any, ...] | None) -> Module:
    params = (Param("kernel", kernel),) + (() if bias is None else (Param("bias", bias),))
    return Module(name, "EinsumDense", params, sep="/")


class MultiHeadAttention(KerasLayer):
    """``keras.layers.MultiHeadAttention(num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
    output_shape=None, attention_axes=None, ..., use_gate=False, seed=None)``, called as
    ``layer(query, value, key=None)``.

    Parameters
    ----------
    num_heads, key_dim : int or sympy.Expr
    value_dim : int, sympy.Expr or None
        Default ``key_dim``.
    dropout : float
        Ignored.
    use_bias : bool, default True
    output_shape : int, tuple of int or None
        The last axes of the output (default the query's last axis).
    attention_axes : object
        Ignored (the projections read the last axis whatever the axes attended over).
    use_gate : bool, default False
        Adds ``gate``, a projection of the query like ``value``'s.
    **kwargs
        Initialisers, regularisers, constraints, ``flash_attention``, ``sliding_window``, ``seed``,
        layer arguments.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; value and key shapes that differ but for the last
        axis (Keras' message).
    """

    default_name = "multi_head_attention"
    #: The call's arguments the layer is built on, in order.
    CALL_ARGS = ("query", "value", "key")
    #: Layers its build makes with automatic names (``_build_attention``).
    BUILD_NAMES = ("softmax", "dropout")
    ALLOWED = frozenset(
        [
            "kernel_initializer",
            "bias_initializer",
            "kernel_regularizer",
            "bias_regularizer",
            "activity_regularizer",
            "kernel_constraint",
            "bias_constraint",
            "sliding_window",
            "flash_attention",
            "seed",
        ]
    )

    def __init__(
        self,
        num_heads: Any,
        key_dim: Any,
        value_dim: Any = None,
        dropout: Any = 0.0,
        use_bias: Any = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        use_gate: Any = False,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common(kwargs)
        self.num_heads = self._size("num_heads", num_heads)
        self.key_dim = self._size("key_dim", key_dim)
        self.value_dim = self.key_dim if value_dim is None else self._size("value_dim", value_dim)
        self.use_bias, self.use_gate = use_bias is not False, use_gate is True
        if output_shape is None:
            self.output_dims: tuple[Any, ...] | None = None
        else:
            dims = tuple(output_shape) if isinstance(output_shape, (tuple, list)) else (output_shape,)
            self.output_dims = tuple(self._size("output_shape", d) for d in dims)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """The four (five) projections; output: the query's shape with the output dims last.

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
            See the class.
        """
        if not isinstance(input_shape, list) or len(input_shape) not in (2, 3):
            raise ValueError(f"{self.name} is called as layer(query, value, key=None); got {input_shape!r}")
        query, value = tuple(input_shape[0]), tuple(input_shape[1])
        key = tuple(input_shape[2]) if len(input_shape) == 3 else value
        if Ellipsis in (*query, *value, *key) or None in (query[-1:] + value[-1:] + key[-1:]):
            raise ValueError(f"{self.name}: the last axes of its query, value and key must be known")
        if value[:-1] != key[:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={(None, *value)} and key_shape={(None, *key)}"
            )
        heads = self.num_heads
        out = self.output_dims or (query[-1],)
        bias = self.use_bias
        children = [
            _projection("query", (query[-1], heads, self.key_dim), (heads, self.key_dim) if bias else None),
            _projection("key", (key[-1], heads, self.key_dim), (heads, self.key_dim) if bias else None),
        ]
        if self.use_gate:
            children.append(
                _projection("gate", (query[-1], heads, self.value_dim), (heads, self.value_dim) if bias else None)
            )
        children.append(
            _projection("value", (value[-1], heads, self.value_dim), (heads, self.value_dim) if bias else None)
        )
        children.append(_projection("attention_output", (heads, self.value_dim, *out), out if bias else None))
        module = Module(self.name, "MultiHeadAttention", children=tuple(children), sep="/", row=True)
        return module, query[:-1] + tuple(out)
