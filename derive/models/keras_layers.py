"""Keras 3 layers that surround recurrent ones, counted like :mod:`derive.keras`'s.

A Keras layer knows its weights only once it sees its input, so each class here has
``build(input_shape) -> (weights, output_shape)``; shapes exclude the batch axis, unknown
dimensions are None and a leading ``...`` means "any leading dimensions". ``count(input_dim)``
is the short form for a layer that reads the last axis. ``count_params()`` counts non-trainable
weights too (BatchNormalization's moving statistics), and so does ``count``.

>>> Dense(1).count(64)
65
>>> Embedding(10000, 128).build((100,))
([('embeddings', (10000, 128))], (100, 128))

Sources: ``keras/src/layers/core/dense.py``, ``embedding.py``, ``convolutional/base_conv.py``,
``normalization/*.py``, ``reshaping/*.py``, ``pooling/*.py``, ``merging/*.py``,
``attention/attention.py``, ``rnn/time_distributed.py`` (Keras 3.15).
"""

from __future__ import annotations

from typing import Any

import sympy

from ..engine.symbols import as_expr, plain
from .base import KERAS_COMMON, Layer, check_kwargs, conv_length, numel, remembered, snake

__all__ = [
    "KerasLayer",
    "Dense",
    "Embedding",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "LayerNormalization",
    "BatchNormalization",
    "Attention",
    "Flatten",
    "Reshape",
    "RepeatVector",
    "TimeDistributed",
    "Concatenate",
    "Add",
    "InputLayer",
    "KERAS_LAYERS",
    "Shape",
]

#: A shape without the batch axis: ints, SymPy expressions, ``None`` (unknown), ``Ellipsis`` (unknown rank).
Shape = tuple
Weights = list[tuple[str, tuple]]


def _last(shape: Shape, layer: str) -> Any:
    if not shape or shape[-1] is Ellipsis:
        raise ValueError(f"{layer}: the last dimension of its input is unknown; give the model's input shape")
    if shape[-1] is None:
        raise ValueError(f"The last dimension of the input to {layer} should be defined. Found None.")
    return shape[-1]


class KerasLayer(Layer):
    """A Keras layer without recurrence (``name`` defaults to the snake-case class name)."""

    default_name = ""
    ALLOWED: frozenset[str] = frozenset()

    def _common(self, kwargs: dict) -> None:
        check_kwargs(type(self).__name__, kwargs, KERAS_COMMON | self.ALLOWED)
        self.name = kwargs.get("name") or self.default_name
        self.kwargs = kwargs

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """The weights (name, shape) and the output shape for an input of ``input_shape``.

        Parameters
        ----------
        input_shape : tuple
            Without the batch axis; None for an unknown dimension; a list of shapes for merging layers.

        Returns
        -------
        tuple of (list of (str, tuple), tuple)

        Raises
        ------
        ValueError
            The input shape does not fit the layer (worded as Keras words it).
        """
        return [], input_shape

    def count(self, input_dim: Any) -> Any:
        """``count_params()`` on an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
        """
        weights, _ = self.build((Ellipsis, input_dim))
        return plain(sympy.expand(sum((numel(s) for _, s in weights), sympy.Integer(0))))

    def formula(self, input_shape: Any) -> tuple[Any, dict[str, Any]]:
        """Closed form in letters (``I`` the input's last dimension) and the letters' values.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple of (sympy.Expr, dict)
        """
        keyed = self._symbolic_key()
        key, values = keyed if keyed is not None else (None, self._symbolic()[1])
        shape = input_shape
        if isinstance(shape, tuple) and shape and isinstance(shape[-1], int) and self.READS_LAST:
            letter = sympy.Symbol("I", integer=True, positive=True)
            values = {"I": shape[-1], **values}
            shape = shape[:-1] + (letter,)

        def compute() -> Any:
            weights, _ = self._symbolic()[0].build(shape)  # type: ignore[attr-defined]
            return sympy.expand(sum((numel(s) for _, s in weights), sympy.Integer(0)))

        return (compute() if key is None else remembered((key, repr(shape)), compute)), values

    READS_LAST = True


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """``kernel`` (I, U) and ``bias`` (U,); output: the input with its last axis U.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        features = _last(input_shape, self.name)
        weights: Weights = [("kernel", (features, self.units))]
        if self.use_bias:
            weights.append(("bias", (self.units,)))
        return weights, input_shape[:-1] + (self.units,)


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """``embeddings`` (V, E); output: the input with a new last axis E.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        return [("embeddings", (self.input_dim, self.output_dim))], tuple(input_shape) + (self.output_dim,)


def _tuple(value: Any, rank: int, name: str) -> tuple:
    if isinstance(value, (tuple, list)):
        if len(value) != rank:
            raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
        return tuple(value)
    return (value,) * rank


class _Conv(KerasLayer):
    """``keras.layers.Conv{1,2,3}D``: ``kernel`` (*k, C / groups, F), ``bias`` (F,)."""

    rank = 1
    SIZES = {"filters": "F"}
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
        }
    )

    def __init__(
        self,
        filters: Any,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        data_format: Any = None,
        dilation_rate: Any = 1,
        groups: Any = 1,
        activation: Any = None,
        use_bias: Any = True,
        **kwargs: Any,
    ) -> None:
        self._keep(locals())
        self._common(kwargs)
        self.filters = self._size("filters", filters)
        self.kernel_size = tuple(self._size("kernel_size", k) for k in _tuple(kernel_size, self.rank, "kernel_size"))
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = padding.lower() if isinstance(padding, str) else padding
        if self.padding not in ("valid", "same", "causal"):
            raise ValueError(
                f"The `padding` argument must be one of 'valid', 'same' (or 'causal' for Conv1D). "
                f"Received: padding={padding}"
            )
        self.data_format = data_format or "channels_last"
        self.groups = self._size("groups", groups)
        self.use_bias = use_bias is not False

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """Kernel and bias; output with the spatial axes convolved.

        Parameters
        ----------
        input_shape : tuple
            (*spatial, C), or (C, *spatial) with ``channels_first``.

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            Wrong rank, unknown channels, or channels not divisible by ``groups``.
        """
        first = self.data_format == "channels_first"
        if input_shape and input_shape[0] is Ellipsis:
            if first:
                raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
            channels, spatial = _last(input_shape, self.name), None
        else:
            if len(input_shape) != self.rank + 1:
                raise ValueError(
                    f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                    f"ndim={self.rank + 2}, found ndim={len(input_shape) + 1}. Full shape received: "
                    f"{(None, *input_shape)}"
                )
            channels = input_shape[0] if first else input_shape[-1]
            spatial = input_shape[1:] if first else input_shape[:-1]
            if channels is None:
                raise ValueError(f"{self.name}: the channel dimension of the inputs should be defined. Found None.")
        if isinstance(channels, int) and isinstance(self.groups, int) and channels % self.groups:
            raise ValueError(
                f"The number of input channels must be evenly divisible by the number of groups. "
                f"Received groups={self.groups}, but the input has {channels} channels."
            )
        per_group = channels // self.groups if isinstance(channels, int) else channels / self.groups
        weights: Weights = [("kernel", (*self.kernel_size, per_group, self.filters))]
        if self.use_bias:
            weights.append(("bias", (self.filters,)))
        if spatial is None:
            return weights, (Ellipsis, self.filters)
        out = tuple(
            conv_length(n, k, s, self.padding, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )
        return weights, ((self.filters, *out) if first else (*out, self.filters))

    def formula(self, input_shape: Any) -> tuple[Any, dict[str, Any]]:
        """Closed form: F(K·C/g + 1) with K the kernel's size; letters' values.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple of (sympy.Expr, dict)
        """
        weights, _ = self.build(input_shape)
        channels = weights[0][1][-2] * self.groups
        k, c, f = sympy.symbols("K C F", integer=True, positive=True)
        expr = f * (k * c / self.groups + (1 if self.use_bias else 0))
        return sympy.expand(expr), {"K": numel(self.kernel_size), "C": plain(channels), "F": self.filters}


class Conv1D(_Conv):
    """``keras.layers.Conv1D(filters, kernel_size, strides=1, padding="valid", ...)``.

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or tuple of 1 int
    strides, padding, data_format, dilation_rate, groups, activation, use_bias, **kwargs
        As Keras; ``padding`` and ``strides`` set the output length.

    Raises
    ------
    TypeError, ValueError
        See :meth:`build`; a size that is not a positive integer.
    """

    rank, default_name = 1, "conv1d"


class Conv2D(_Conv):
    """``keras.layers.Conv2D(filters, kernel_size, ...)``: ``kernel`` (k1, k2, C / groups, F).

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or tuple of 2 ints
    strides, padding, data_format, dilation_rate, groups, activation, use_bias, **kwargs
        As Keras.

    Raises
    ------
    TypeError, ValueError
        See :meth:`build`.
    """

    rank, default_name = 2, "conv2d"


class Conv3D(_Conv):
    """``keras.layers.Conv3D(filters, kernel_size, ...)``: ``kernel`` (k1, k2, k3, C / groups, F).

    Parameters
    ----------
    filters : int or sympy.Expr
        F.
    kernel_size : int or tuple of 3 ints
    strides, padding, data_format, dilation_rate, groups, activation, use_bias, **kwargs
        As Keras.

    Raises
    ------
    TypeError, ValueError
        See :meth:`build`.
    """

    rank, default_name = 3, "conv3d"


class _Normalization(KerasLayer):
    """Weights of the normalised axis' size."""

    WEIGHTS: tuple[str, ...] = ()
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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """One weight per kept statistic, each (C,) with C the size of ``axis``.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        if self.axis == -1:
            size = _last(input_shape, self.name)
        else:
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
        names = [n for n in self.WEIGHTS if (n != "gamma" or self.scale) and (n != "beta" or self.center)]
        return [(n, (size,)) for n in names], input_shape


class LayerNormalization(_Normalization):
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
    WEIGHTS = ("gamma", "beta")

    def __init__(
        self, axis: Any = -1, epsilon: Any = 1e-3, center: Any = True, scale: Any = True, **kwargs: Any
    ) -> None:
        self._keep(locals())
        self._common(kwargs)
        self._axis(axis, center, scale)


class BatchNormalization(_Normalization):
    """``keras.layers.BatchNormalization(axis=-1, ...)``: ``gamma``, ``beta``, ``moving_mean``, ``moving_variance``.

    The moving statistics are non-trainable weights; ``count_params()`` counts them: 4C.

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
    WEIGHTS = ("gamma", "beta", "moving_mean", "moving_variance")

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


class _Stateless(KerasLayer):
    """No weights; the output shape is the input's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._keep({})
        extra = {k: v for k, v in kwargs.items() if k not in self.ARGUMENTS}
        self._common(extra)
        self.args, self.options = args, kwargs

    ARGUMENTS: frozenset[str] = frozenset()

    def _symbolic(self) -> tuple[Layer, dict[str, Any]]:
        return self, {}


def _stateless(name: str, arguments: str, doc: str) -> type[KerasLayer]:
    return type(
        name, (_Stateless,), {"__doc__": doc, "default_name": snake(name), "ARGUMENTS": frozenset(arguments.split())}
    )


Dropout = _stateless("Dropout", "rate noise_shape seed", "``keras.layers.Dropout``: no weights.")
SpatialDropout1D = _stateless("SpatialDropout1D", "rate seed", "``keras.layers.SpatialDropout1D``: no weights.")
Masking = _stateless("Masking", "mask_value", "``keras.layers.Masking``: no weights.")
Activation = _stateless("Activation", "activation", "``keras.layers.Activation``: no weights.")


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """No weights; (product,) or (None,) when a dimension is unknown.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        if any(d is None or d is Ellipsis for d in input_shape):
            return [], (None,)
        return [], (numel(tuple(input_shape)),)


class Reshape(KerasLayer):
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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
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
            rest = numel(tuple(d for d in target if d != -1))
            if not known:
                return [], tuple(None if d == -1 else d for d in target)
            total = numel(tuple(input_shape))
            if isinstance(total, int) and isinstance(rest, int) and total % rest:
                raise ValueError(
                    f"The total size of the tensor must be unchanged. Received: input_shape="
                    f"{tuple(input_shape)}, target_shape={target}"
                )
            return [], tuple(plain(sympy.expand(as_expr(total) / rest)) if d == -1 else d for d in target)
        if known and sympy.expand(numel(tuple(input_shape)) - numel(target)) != 0:
            raise ValueError(
                f"The total size of the tensor must be unchanged. Received: input_shape="
                f"{tuple(input_shape)}, target_shape={target}"
            )
        return [], target


class RepeatVector(KerasLayer):
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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
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
        return [], (self.n, input_shape[0])


class _Pooling1D(KerasLayer):
    """``MaxPooling1D`` / ``AveragePooling1D``: no weights; the time axis pooled."""

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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """No weights; (T_out, C).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        if input_shape and input_shape[0] is Ellipsis:
            return [], input_shape if not self.first else (Ellipsis, None)
        if len(input_shape) != 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, '
                f"found ndim={len(input_shape) + 1}. Full shape received: {(None, *input_shape)}"
            )
        if self.first:
            return [], (input_shape[0], conv_length(input_shape[1], self.pool, self.strides, self.padding))
        return [], (conv_length(input_shape[0], self.pool, self.strides, self.padding), input_shape[1])


class MaxPooling1D(_Pooling1D):
    """``keras.layers.MaxPooling1D(pool_size=2, strides=None, padding="valid")``: no weights.

    Parameters
    ----------
    pool_size, strides, padding, data_format, name, **kwargs
        As Keras.
    """

    default_name = "max_pooling1d"


class AveragePooling1D(_Pooling1D):
    """``keras.layers.AveragePooling1D(pool_size=2, strides=None, padding="valid")``: no weights.

    Parameters
    ----------
    pool_size, strides, padding, data_format, name, **kwargs
        As Keras.
    """

    default_name = "average_pooling1d"


class _GlobalPooling1D(KerasLayer):
    def __init__(self, data_format: Any = None, keepdims: Any = False, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        self.first, self.keepdims = data_format == "channels_first", keepdims is True

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """No weights; (C,).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple
        """
        channels = input_shape[0] if self.first and input_shape[0] is not Ellipsis else input_shape[-1]
        return [], ((1, channels) if self.keepdims else (channels,))


class GlobalAveragePooling1D(_GlobalPooling1D):
    """``keras.layers.GlobalAveragePooling1D()``: no weights; (T, C) -> (C,).

    Parameters
    ----------
    data_format, keepdims, **kwargs
        As Keras.
    """

    default_name = "global_average_pooling1d"


class GlobalMaxPooling1D(_GlobalPooling1D):
    """``keras.layers.GlobalMaxPooling1D()``: no weights; (T, C) -> (C,).

    Parameters
    ----------
    data_format, keepdims, **kwargs
        As Keras.
    """

    default_name = "global_max_pooling1d"


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
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
        return [], tuple(first)


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
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
        return [], input_shape[0]


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

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
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
        weights: Weights = []
        if self.use_scale:
            weights.append(("scale", ()))
        if self.score_mode == "concat":
            weights.append(("concat_score_weight", ()))
        query, value = input_shape[0], input_shape[1]
        return weights, tuple(query[:-1]) + (value[-1],)


class TimeDistributed(KerasLayer):
    """``keras.layers.TimeDistributed(layer)``: the inner layer's weights, applied to every time step.

    Parameters
    ----------
    layer : KerasLayer or a derive.keras recurrent layer wrapper
        The layer applied to each (batch, *rest) slice.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        The input has no time axis (Keras: "expects an input of at least rank 3").
    """

    default_name = "time_distributed"

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        if not hasattr(layer, "build"):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: {layer!r}"
            )
        self.layer = layer

    def build(self, input_shape: Any) -> tuple[Weights, Any]:
        """The inner layer's weights for one step; output (T, *inner output).

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple

        Raises
        ------
        ValueError
            The input has fewer than 3 axes (no time axis) (Keras' message).
        """
        if not input_shape or input_shape[0] is Ellipsis:
            weights, out = self.layer.build(input_shape)
            return weights, out
        if len(input_shape) < 2:
            raise ValueError(
                f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                f"dimensions, received: {(None, *input_shape)}"
            )
        weights, out = self.layer.build(tuple(input_shape[1:]))
        return weights, (input_shape[0], *out)

    def formula(self, input_shape: Any) -> tuple[Any, dict[str, Any]]:
        """The inner layer's closed form.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple of (sympy.Expr, dict)
        """
        inner = tuple(input_shape[1:]) if input_shape and input_shape[0] is not Ellipsis else input_shape
        return self.layer.formula(inner)


#: Every non-recurrent Keras class a model may use, by name.
KERAS_LAYERS: dict[str, Any] = {  # layer classes; their constructors differ
    cls.__name__: cls
    for cls in (
        InputLayer,
        Dense,
        Embedding,
        Conv1D,
        Conv2D,
        Conv3D,
        LayerNormalization,
        BatchNormalization,
        Attention,
        Flatten,
        Reshape,
        RepeatVector,
        TimeDistributed,
        Concatenate,
        Add,
        Dropout,
        SpatialDropout1D,
        Masking,
        Activation,
        MaxPooling1D,
        AveragePooling1D,
        GlobalAveragePooling1D,
        GlobalMaxPooling1D,
    )
}
