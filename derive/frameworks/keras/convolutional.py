"""Keras 3's convolutions ``Conv1D``, ``Conv2D``, ``Conv3D`` (on :func:`derive.layers.conv.conv`).

Source: ``keras/src/layers/convolutional/base_conv.py`` (Keras 3.15): ``kernel`` (*kernel_size,
C / groups, F), ``bias`` (F,).

>>> module, shape = Conv1D(64, 5).build((128, 9))
>>> [(p.name, p.shape) for p in module.params], shape
([('kernel', (5, 9, 64)), ('bias', (64,))], (124, 64))
"""

from __future__ import annotations

from typing import Any

from ..._sympy import sympy
from ...engine.symbols import plain, size_symbols
from ...layers.conv import conv, conv_length
from ...tree import Formula, Module, numel
from .base import KerasFormula
from .layer import KerasLayer, last_axis

__all__ = ["Conv", "Conv1D", "Conv2D", "Conv3D"]


def _closed_form(groups: Any, use_bias: bool) -> Any:
    """F(K·C/groups + 1) in the letters K, C, F (no 1 without bias)."""
    k, c, f = size_symbols("K C F")
    return sympy.expand(f * (k * c / groups + (1 if use_bias else 0)))


def _tuple(value: Any, rank: int, name: str) -> tuple:
    if isinstance(value, (tuple, list)):
        if len(value) != rank:
            raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
        return tuple(value)
    return (value,) * rank


class Conv(KerasLayer):
    """``keras.layers.Conv{1,2,3}D``: ``kernel`` (*k, C / groups, F), ``bias`` (F,).

    Shared by :class:`Conv1D`, :class:`Conv2D` and :class:`Conv3D`, which set the number of
    spatial axes, n (:attr:`rank`). C, the input's channels, is known at :meth:`build`.

    Parameters
    ----------
    filters : int or sympy.Expr
        F, the output channels.
    kernel_size : int, sympy.Expr or tuple of them
        The kernel's spatial size: a tuple of n, or one value used for every spatial axis (as Keras).
    strides : int or tuple of int, default 1
        With ``padding`` and ``dilation_rate``, sets the output's spatial sizes; no weight depends on it.
    padding : str, default "valid"
        ``"valid"``, ``"same"`` or ``"causal"`` (any case).
    data_format : str or None, default None
        ``"channels_last"`` (None) or ``"channels_first"``: where :meth:`build` reads the channels.
    dilation_rate : int or tuple of int, default 1
    groups : int or sympy.Expr, default 1
        g: the kernel is (*k, C / g, F).
    activation : object
        Accepted and ignored: no shape depends on it.
    use_bias : bool, default True
        Whether the layer has a ``bias`` (F,); anything but ``False`` is true.
    **kwargs
        Keras' layer arguments (``name``, ``dtype``, ``input_shape`` ...) and the initialisers,
        regularisers, constraints and LoRA arguments, accepted and ignored.

    Raises
    ------
    TypeError
        ``filters``, an entry of ``kernel_size`` or ``groups`` not an integer nor a SymPy
        expression; a keyword Keras' ``Conv`` does not take, or ``**`` unpacking.
    ValueError
        ``filters``, an entry of ``kernel_size`` or ``groups`` <= 0; ``kernel_size``, ``strides``
        or ``dilation_rate`` a tuple of other than n entries; ``padding`` not ``"valid"``,
        ``"same"`` nor ``"causal"``.
    """

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
        if self.padding not in ("valid", "same", "causal") or (self.padding == "causal" and self.rank != 1):
            raise ValueError(
                f"The `padding` argument must be one of 'valid', 'same' (or 'causal' for Conv1D). "
                f"Received: padding={padding}"
            )
        self.data_format = data_format or "channels_last"
        self.groups = self._size("groups", groups)
        self.use_bias = use_bias is not False

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """Kernel and bias; output with the spatial axes convolved (Keras' messages for a shape
        that does not fit: wrong rank, unknown channels, channels not divisible by ``groups``, an
        output size of zero or less)."""
        first = self.data_format == "channels_first"
        if input_shape and input_shape[0] is Ellipsis:
            if first:
                raise ValueError(f"{self.name}: the input shape is unknown; give the model's input shape")
            channels, spatial = last_axis(input_shape, self.name), None
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
        module, filters = self._weights(channels)
        if spatial is None:
            return module, (Ellipsis, filters)
        out = tuple(self._length(n, i) for i, n in enumerate(spatial))
        for size in out:
            if isinstance(size, int) and size <= 0:
                raise ValueError(
                    f"Computed output size would be zero or negative. Received `inputs shape={(None, *input_shape)}`, "
                    f"`kernel_size={self.kernel_size}`, `strides={self.strides}`, `padding={self.padding}`."
                )
        return module, ((filters, *out) if first else (*out, filters))

    def _weights(self, channels: Any) -> tuple[Module, Any]:
        """The weights for ``channels`` input channels, and the output channels."""
        module = conv(
            channels,
            self.filters,
            self.kernel_size,
            groups=self.groups,
            bias=self.use_bias,
            name=self.name,
            spelling="keras",
        )
        return module, self.filters

    def _length(self, length: Any, axis: int) -> Any:
        """The output size of spatial axis ``axis`` of size ``length``."""
        return conv_length(length, self.kernel_size[axis], self.strides[axis], self.padding, self.dilation_rate[axis])

    def recipe(self, input_shape: Any, module: Module) -> Formula:
        """Closed form F(K·C/g + 1), K the kernel's size, with the letters' values.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module
            The layer built on ``input_shape``.

        Returns
        -------
        derive.tree.Formula
        """
        channels = plain(module.params[0].shape[-2] * self.groups)
        values = (("K", numel(self.kernel_size)), ("C", channels), ("F", self.filters))
        return KerasFormula(_closed_form, (self.groups, self.use_bias), values=values)


class Conv1D(Conv):
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


class Conv2D(Conv):
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


class Conv3D(Conv):
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
