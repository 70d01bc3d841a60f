"""``torch.nn``'s convolutions: ``Conv{1,2,3}d`` and ``ConvTranspose{1,2,3}d`` with torch's checks.

Source: ``torch/nn/modules/conv.py`` (``_ConvNd.__init__``: groups, divisibility, padding strings,
padding modes; ``_ConvTransposeNd``: zeros padding only), torch 2.13. ``kernel_size``, ``stride``,
``padding``, ``dilation`` are normalised as torch's ``_single``/``_pair``/``_triple`` do (an int
repeated, a sequence kept as given) and kept in the module's ``config`` as torch's attributes.

>>> from derive.engine.constructors import lookup
>>> conv = lookup("torch", "Conv2d").make(3, 64, 3)
>>> [(p.name, p.shape) for p in conv.params], conv.config["kernel_size"]
([('weight', (64, 3, 3, 3)), ('bias', (64,))], (3, 3))
"""

from __future__ import annotations

from typing import Any

from ...engine import validate
from ...tree import Module
from ..conv import conv
from ._base import define, refusing, signature, unread

__all__: list[str] = []

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_SPATIAL = {1: ("L_out",), 2: ("H_out", "W_out"), 3: ("D_out", "H_out", "W_out")}


def ntuple(value: Any, n: int) -> tuple[Any, ...]:
    """torch's ``_ntuple``: an iterable kept as a tuple, anything else repeated ``n`` times.

    Parameters
    ----------
    value : Any
    n : int

    Returns
    -------
    tuple

    Examples
    --------
    >>> ntuple(3, 2), ntuple([1, 2], 2)
    ((3, 3), (1, 2))
    """
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _groups(groups: Any) -> Any:
    if isinstance(groups, bool) or (type(groups) is not int and not hasattr(groups, "free_symbols")):
        raise TypeError(f"groups should be of type int, got: {type(groups).__name__}")
    if type(groups) is int and groups <= 0:
        raise ValueError("groups must be a positive integer")
    return groups


def _checks(in_channels: Any, out_channels: Any, groups: Any, padding: Any, stride: tuple, padding_mode: Any) -> None:
    if type(groups) is int:
        if type(in_channels) is int and in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if type(out_channels) is int and out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        valid = {"same", "valid"}
        if padding not in valid:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid}")
        if padding == "same" and any(s != 1 for s in stride if not unread(s)):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if isinstance(padding_mode, str) and padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")


def _conv(
    n: int,
    transposed: bool,
    in_channels: Any,
    out_channels: Any,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    output_padding: Any,
    groups: Any,
    bias: Any,
    padding_mode: Any,
) -> Module:
    name = f"ConvTranspose{n}d" if transposed else f"Conv{n}d"
    if transposed and isinstance(padding_mode, str) and padding_mode != "zeros":
        raise ValueError(f'Only "zeros" padding mode is supported for {name}')
    c = validate.size("in_channels", in_channels)
    f = validate.size("out_channels", out_channels)
    kernel = tuple(validate.size("kernel_size", k) for k in ntuple(kernel_size, n))
    groups = _groups(groups)
    strides = ntuple(stride, n)
    if not isinstance(padding, str):
        padding = ntuple(padding, n)
    _checks(c, f, groups, padding, strides, padding_mode)
    module = conv(c, f, kernel, groups=groups, bias=validate.flag("bias", bias), transposed=transposed, type=name)
    config = {
        "in_channels": c,
        "out_channels": f,
        "kernel_size": kernel,
        "stride": strides,
        "padding": padding,
        "dilation": ntuple(dilation, n),
        "output_padding": ntuple(output_padding, n),
        "groups": groups,
        "transposed": transposed,
    }
    return module.replace(output_shape=("N", f, *_SPATIAL[n]), config=config)


def _convolution(n: int) -> Any:
    def make(
        in_channels: Any,
        out_channels: Any,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: Any = 1,
        bias: Any = True,
        padding_mode: Any = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> Module:
        return _conv(
            n, False, in_channels, out_channels, kernel_size, stride, padding, dilation, 0, groups, bias, padding_mode
        )

    make.__doc__ = f"``nn.Conv{n}d``: ``weight`` (out_channels, in_channels / groups, *kernel_size), ``bias``."
    return make


def _transposed(n: int) -> Any:
    def make(
        in_channels: Any,
        out_channels: Any,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: Any = 1,
        bias: Any = True,
        dilation: Any = 1,
        padding_mode: Any = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> Module:
        return _conv(
            n,
            True,
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            output_padding,
            groups,
            bias,
            padding_mode,
        )

    make.__doc__ = f"``nn.ConvTranspose{n}d``: ``weight`` (in_channels, out_channels / groups, *kernel_size)."
    return make


def _lazy(name: str) -> Any:
    transposed = "Transpose" in name
    spec: list[Any] = ["out_channels", "kernel_size", ("stride", 1), ("padding", 0)]
    spec += (
        [("output_padding", 0), ("groups", 1), ("bias", True), ("dilation", 1)]
        if transposed
        else [("dilation", 1), ("groups", 1), ("bias", True)]
    )
    spec += [("padding_mode", "zeros"), ("device", None), ("dtype", None)]
    why = (
        f"{name} takes in_channels from its first input, which code does not show; "
        f"write nn.{name.removeprefix('Lazy')}(in_channels, ...)"
    )
    return refusing(name, signature(*spec), why)


def _read(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    kwargs = {
        "stride": m.stride,
        "padding": m.padding,
        "dilation": m.dilation,
        "groups": m.groups,
        "bias": m.bias is not None,
        "padding_mode": m.padding_mode,
    }
    if m.transposed:
        kwargs["output_padding"] = m.output_padding
    return (m.in_channels, m.out_channels, m.kernel_size), kwargs


_LETTERS = {"in_channels": "C", "out_channels": "F", "kernel_size": "K"}
for _n in (1, 2, 3):
    define(f"Conv{_n}d", _convolution(_n), source="torch/nn/modules/conv.py", letters=_LETTERS, read=_read)
    define(f"ConvTranspose{_n}d", _transposed(_n), source="torch/nn/modules/conv.py", letters=_LETTERS, read=_read)
    define(f"LazyConv{_n}d", _lazy(f"LazyConv{_n}d"), source="torch/nn/modules/conv.py")
    define(f"LazyConvTranspose{_n}d", _lazy(f"LazyConvTranspose{_n}d"), source="torch/nn/modules/conv.py")
