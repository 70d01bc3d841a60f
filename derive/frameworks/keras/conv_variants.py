"""Keras 3's other convolutions: transposed (``Conv{1,2,3}DTranspose``), depthwise
(``DepthwiseConv{1,2}D``) and separable (``SeparableConv{1,2}D``).

Sources: ``keras/src/layers/convolutional/base_conv_transpose.py`` (``kernel`` (*k, F, C),
``bias`` (F,); output size (n - 1)·s + k' + output_padding with k' = (k - 1)·d + 1, output_padding
max(k', s) - k' by default (``"valid"``), n·s (``"same"``): ``keras/src/backend/common/backend_utils.py``),
``base_depthwise_conv.py`` (``kernel`` (*k, C, D), ``bias`` (C·D,)) and ``base_separable_conv.py``
(``depthwise_kernel`` (*k, C, D), ``pointwise_kernel`` (1, ..., C·D, F), ``bias`` (F,)) (Keras 3.15).

>>> module, shape = VARIANTS["Conv2DTranspose"](4, 3, strides=2, padding="same").build((5, 5, 3))
>>> [(p.name, p.shape) for p in module.params], shape
([('kernel', (3, 3, 4, 3)), ('bias', (4,))], (10, 10, 4))
>>> VARIANTS["SeparableConv1D"](5, 3, depth_multiplier=2).build((8, 3))[0].count
53
"""

from __future__ import annotations

from typing import Any

from ..._sympy import sympy
from ...engine.symbols import size_symbols
from ...layers.conv import conv, conv_length
from ...tree import Formula, Module, Param, numel
from .base import KerasFormula
from .convolutional import Conv, _tuple

__all__ = ["ConvTranspose", "DepthwiseConv", "SeparableConv", "VARIANTS"]

_ALLOWED = frozenset(
    [
        "kernel_initializer",
        "bias_initializer",
        "kernel_regularizer",
        "bias_regularizer",
        "activity_regularizer",
        "kernel_constraint",
        "bias_constraint",
        "depthwise_initializer",
        "pointwise_initializer",
        "depthwise_regularizer",
        "pointwise_regularizer",
        "depthwise_constraint",
        "pointwise_constraint",
        "lora_rank",
        "lora_alpha",
    ]
)


def _transposed_form(use_bias: bool) -> Any:
    k, c, f = size_symbols("K C F")
    return sympy.expand(k * c * f + (f if use_bias else 0))


def _depthwise_form(use_bias: bool) -> Any:
    k, c, d = size_symbols("K C D")
    return sympy.expand(k * c * d + (c * d if use_bias else 0))


def _separable_form(use_bias: bool) -> Any:
    k, c, d, f = size_symbols("K C D F")
    return sympy.expand(k * c * d + c * d * f + (f if use_bias else 0))


class _Variant(Conv):
    """Shared set-up: Keras' arguments kept, padding checked (no ``"causal"``), groups 1."""

    ALLOWED = _ALLOWED

    def _setup(self, kernel_size: Any, strides: Any, padding: Any, data_format: Any, dilation_rate: Any) -> None:
        self.kernel_size = tuple(self._size("kernel_size", k) for k in _tuple(kernel_size, self.rank, "kernel_size"))
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = padding.lower() if isinstance(padding, str) else padding
        if self.padding not in ("valid", "same"):
            raise ValueError(
                f"The `padding` argument must be a list/tuple or one of {{'same', 'valid'}}. Received: {padding}"
            )
        self.data_format = data_format or "channels_last"
        self.groups = 1


class ConvTranspose(_Variant):
    """``keras.layers.Conv{1,2,3}DTranspose(filters, kernel_size, strides=1, padding="valid", output_padding=None, ...)``.

    Parameters
    ----------
    filters : int or sympy.Expr
    kernel_size : int or tuple of n ints
    strides, padding, output_padding, data_format, dilation_rate, activation, use_bias, **kwargs
        As Keras (Conv3DTranspose takes ``data_format`` before ``output_padding``, as Keras does).

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; ``padding`` not ``"valid"``/``"same"``.
    """

    def __init__(
        self,
        filters: Any,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        output_padding: Any = None,
        data_format: Any = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: Any = True,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common(kwargs)
        self.filters = self._size("filters", filters)
        self._setup(kernel_size, strides, padding, data_format, dilation_rate)
        self.output_padding = None if output_padding is None else _tuple(output_padding, self.rank, "output_padding")
        self.use_bias = use_bias is not False

    def _weights(self, channels: Any) -> tuple[Module, Any]:
        module = conv(
            channels,
            self.filters,
            self.kernel_size,
            bias=self.use_bias,
            transposed=True,
            name=self.name,
            spelling="keras",
        )
        return module, self.filters

    def _length(self, length: Any, axis: int) -> Any:
        kernel = (self.kernel_size[axis] - 1) * self.dilation_rate[axis] + 1
        stride = self.strides[axis]
        extra = None if self.output_padding is None else self.output_padding[axis]
        if self.padding == "valid":
            extra = max(kernel, stride) - kernel if extra is None else extra
            return (length - 1) * stride + kernel + extra
        return length * stride if extra is None else (length - 1) * stride + kernel % 2 + extra

    def recipe(self, input_shape: Any, module: Module) -> Formula:
        """Closed form K·C·F + F, K the kernel's size.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        derive.tree.Formula
        """
        values = (("K", numel(self.kernel_size)), ("C", module.params[0].shape[-1]), ("F", self.filters))
        return KerasFormula(_transposed_form, (self.use_bias,), values=values)


class DepthwiseConv(_Variant):
    """``keras.layers.DepthwiseConv{1,2}D(kernel_size, strides=1, padding="valid", depth_multiplier=1, ...)``.

    Parameters
    ----------
    kernel_size : int or tuple of n ints
    strides, padding : as Keras
    depth_multiplier : int or sympy.Expr, default 1
        D: each input channel gives D output channels.
    data_format, dilation_rate, activation, use_bias, **kwargs
        As Keras.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; ``padding`` not ``"valid"``/``"same"``.
    """

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        depth_multiplier: Any = 1,
        data_format: Any = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: Any = True,
        **kwargs: Any,
    ) -> None:
        self._keep({})
        self._common(kwargs)
        self.depth_multiplier = self._size("depth_multiplier", depth_multiplier)
        self._setup(kernel_size, strides, padding, data_format, dilation_rate)
        self.use_bias = use_bias is not False

    def _weights(self, channels: Any) -> tuple[Module, Any]:
        out = channels * self.depth_multiplier
        params: tuple[Param, ...] = (Param("kernel", (*self.kernel_size, channels, self.depth_multiplier)),)
        if self.use_bias:
            params += (Param("bias", (out,)),)
        return Module(self.name, type(self).__name__, params, sep="/"), out

    def _length(self, length: Any, axis: int) -> Any:
        return conv_length(length, self.kernel_size[axis], self.strides[axis], self.padding, self.dilation_rate[axis])

    def recipe(self, input_shape: Any, module: Module) -> Formula:
        """Closed form K·C·D + C·D, K the kernel's size.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        derive.tree.Formula
        """
        values = (("K", numel(self.kernel_size)), ("C", module.params[0].shape[-2]), ("D", self.depth_multiplier))
        return KerasFormula(_depthwise_form, (self.use_bias,), values=values)


class SeparableConv(DepthwiseConv):
    """``keras.layers.SeparableConv{1,2}D(filters, kernel_size, ..., depth_multiplier=1, ...)``.

    Parameters
    ----------
    filters : int or sympy.Expr
    kernel_size : int or tuple of n ints
    strides, padding, data_format, dilation_rate, depth_multiplier, activation, use_bias, **kwargs
        As Keras.

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive integer; ``padding`` not ``"valid"``/``"same"``.
    """

    def __init__(
        self,
        filters: Any,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        data_format: Any = None,
        dilation_rate: Any = 1,
        depth_multiplier: Any = 1,
        activation: Any = None,
        use_bias: Any = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate, activation, use_bias, **kwargs
        )
        self.filters = self._size("filters", filters)

    def _weights(self, channels: Any) -> tuple[Module, Any]:
        inner = channels * self.depth_multiplier
        params: tuple[Param, ...] = (
            Param("depthwise_kernel", (*self.kernel_size, channels, self.depth_multiplier)),
            Param("pointwise_kernel", ((1,) * self.rank + (inner, self.filters))),
        )
        if self.use_bias:
            params += (Param("bias", (self.filters,)),)
        return Module(self.name, type(self).__name__, params, sep="/"), self.filters

    def recipe(self, input_shape: Any, module: Module) -> Formula:
        """Closed form K·C·D + C·D·F + F, K the kernel's size.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        derive.tree.Formula
        """
        values = (
            ("K", numel(self.kernel_size)),
            ("C", module.params[0].shape[-2]),
            ("D", self.depth_multiplier),
            ("F", self.filters),
        )
        return KerasFormula(_separable_form, (self.use_bias,), values=values)


def _kind(base: type, name: str, rank: int) -> type:
    from .base import snake

    doc = f"``keras.layers.{name}`` (see :class:`{base.__name__}`)."
    return type(name, (base,), {"rank": rank, "default_name": snake(name), "__doc__": doc, "__module__": __name__})


class _Conv3DTranspose(ConvTranspose):
    """``Conv3DTranspose``: ``data_format`` before ``output_padding`` in Keras' order."""

    rank = 3

    def __init__(
        self,
        filters: Any,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        data_format: Any = None,
        output_padding: Any = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: Any = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides,
            padding,
            output_padding,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            **kwargs,
        )


#: Every transposed, depthwise and separable convolution, by Keras' class name.
VARIANTS: dict[str, type] = {
    "Conv1DTranspose": _kind(ConvTranspose, "Conv1DTranspose", 1),
    "Conv2DTranspose": _kind(ConvTranspose, "Conv2DTranspose", 2),
    "Conv3DTranspose": _kind(_Conv3DTranspose, "Conv3DTranspose", 3),
    "DepthwiseConv1D": _kind(DepthwiseConv, "DepthwiseConv1D", 1),
    "DepthwiseConv2D": _kind(DepthwiseConv, "DepthwiseConv2D", 2),
    "SeparableConv1D": _kind(SeparableConv, "SeparableConv1D", 1),
    "SeparableConv2D": _kind(SeparableConv, "SeparableConv2D", 2),
}
