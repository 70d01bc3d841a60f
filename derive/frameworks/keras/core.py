"""Keras 3's core layers: ``Input`` / ``InputLayer``, ``Dense``, ``Embedding`` (on :mod:`derive.layers`).

Sources: ``keras/src/layers/core/input_layer.py``, ``dense.py``, ``embedding.py`` (Keras 3.15).

>>> Dense(1, input_dim=64).count
65
>>> module, shape = Embedding(10000, 128).build((100,))
>>> [(p.name, p.shape) for p in module.params], shape
([('embeddings', (10000, 128))], (100, 128))
"""

from __future__ import annotations

from typing import Any

from ...layers.embedding import embedding
from ...layers.linear import linear
from ...tree import Module
from .layer import KerasLayer, last_axis

__all__ = ["InputLayer", "Dense", "Embedding"]


class InputLayer(KerasLayer):
    """``keras.Input(shape)`` / ``keras.layers.InputLayer``: no weights; the model's input.

    Parameters
    ----------
    shape : tuple, optional
        Without the batch axis.
    batch_size, dtype, sparse, ragged, name : Any, optional
        Ignored.
    batch_shape : tuple, optional
        With the batch axis (its first entry is dropped).
    **kwargs
        ``input_shape`` / ``batch_input_shape`` (Keras 2 spellings); ``tensor``, ``optional``,
        ``input_tensor`` ignored.

    Raises
    ------
    ValueError
        No shape given.
    """

    default_name = "input_layer"
    ALLOWED = frozenset({"tensor", "sparse", "ragged", "optional", "input_tensor", "shape", "batch_shape"})

    def __init__(
        self,
        shape: Any = None,
        batch_size: Any = None,
        dtype: Any = None,
        sparse: Any = None,
        ragged: Any = None,
        batch_shape: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        self._common({**kwargs, "name": name})
        self._keep({"shape": shape})
        shape = shape if shape is not None else kwargs.get("input_shape")
        with_batch = batch_shape or kwargs.get("batch_input_shape")
        if shape is None and with_batch is not None:
            shape = tuple(with_batch[1:])
        if shape is None:
            raise ValueError("You must pass a `shape` argument.")
        self.shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


class Dense(KerasLayer):
    """``keras.layers.Dense(units, activation=None, use_bias=True, ...)``: ``kernel`` (I, U), ``bias`` (U,).

    Applied to the last axis: an input (T, I) gives (T, U).

    Parameters
    ----------
    units : int or sympy.Expr
        U.
    activation : str or None
        Ignored.
    use_bias : bool, default True
    **kwargs
        Keras' initialisers, regularisers, constraints and layer arguments, ignored.

    Raises
    ------
    TypeError, ValueError
        ``units`` not a positive integer; an unknown keyword.
    """

    default_name = "dense"
    SIZES = {"units": "U"}
    ALLOWED = frozenset(
        {
            "kernel_initializer",
            "bias_initializer",
            "kernel_regularizer",
            "bias_regularizer",
            "activity_regularizer",
            "kernel_constraint",
            "bias_constraint",
            "lora_rank",
            "lora_alpha",
            "quantization_config",
        }
    )

    def __init__(self, units: Any, activation: Any = None, use_bias: Any = True, **kwargs: Any) -> None:
        self._keep(locals())
        self._common(kwargs)
        self.units = self._size("units", units)
        self.use_bias = use_bias is not False

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``kernel`` (I, U) and ``bias`` (U,); output: the input with its last axis U."""
        features = last_axis(input_shape, self.name)
        module = linear(features, self.units, self.use_bias, name=self.name, spelling="keras")
        return module, input_shape[:-1] + (self.units,)


class Embedding(KerasLayer):
    """``keras.layers.Embedding(input_dim, output_dim, ..., mask_zero=False)``: ``embeddings`` (V, E).

    ``mask_zero`` does not change the weights: index 0 still has a row (so V counts it).

    Parameters
    ----------
    input_dim : int or sympy.Expr
        V, the vocabulary size.
    output_dim : int or sympy.Expr
        E.
    **kwargs
        ``mask_zero``, initialisers, ``input_length`` (Keras 2: the sequence length), ignored.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer.
    """

    default_name = "embedding"
    SIZES = {"input_dim": "V", "output_dim": "E"}
    READS_LAST = False
    ALLOWED = frozenset(
        {
            "embeddings_initializer",
            "embeddings_regularizer",
            "embeddings_constraint",
            "mask_zero",
            "weights",
            "lora_rank",
            "lora_alpha",
            "quantization_config",
            "activity_regularizer",
        }
    )

    def __init__(self, input_dim: Any, output_dim: Any, **kwargs: Any) -> None:
        self._keep(locals())
        self._common(kwargs)
        self.input_dim = self._size("input_dim", input_dim)
        self.output_dim = self._size("output_dim", output_dim)

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """``embeddings`` (V, E); output: the input with a new last axis E."""
        module = embedding(self.input_dim, self.output_dim, name=self.name, spelling="keras")
        return module, tuple(input_shape) + (self.output_dim,)
