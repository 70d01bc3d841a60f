"""Every ``torch.nn`` class without parameters, with torch's signature: activations, pooling,
dropout, padding, reshaping, upsampling, distances, local response norms and losses.

Each is known as a module with no tensors (never "unknown"); arguments are bound as torch binds
them (a wrong keyword is a TypeError) and the dropouts check ``p`` as torch does. A loss given a
class ``weight`` (or ``pos_weight``) tensor keeps it as a buffer. Signatures: torch 2.13, files
under ``torch/nn/modules/``.

>>> from derive.engine.constructors import lookup
>>> pool = lookup("torch", "MaxPool2d").make(2)
>>> pool.count, pool.output_shape
(0, ('N', 'C', 'H_out', 'W_out'))
"""

from __future__ import annotations

import inspect
from typing import Any

from ...tree import Module
from ..stateless import stateless
from ._base import REQUIRED, bind, define, is_number, signature

__all__ = ["STATELESS"]

_R = REQUIRED
_REDUCE = (("size_average", None), ("reduce", None), ("reduction", "mean"))
_SPATIAL = {1: ("L_out",), 2: ("H_out", "W_out"), 3: ("D_out", "H_out", "W_out")}


def _by_rank(pattern: str, *spec: Any) -> dict[str, tuple[Any, ...]]:
    return {pattern.format(n=n): spec for n in (1, 2, 3)}


#: class -> (file under torch/nn/modules, signature spec)
STATELESS: dict[str, tuple[Any, ...]] = {
    # activation.py
    **dict.fromkeys(("ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish"), ("activation", ("inplace", False))),
    **dict.fromkeys(("Sigmoid", "Tanh", "LogSigmoid", "Softsign", "Tanhshrink", "Softmax2d"), ("activation", "*args", "**kwargs")),
    **dict.fromkeys(("Softmax", "LogSoftmax", "Softmin"), ("activation", ("dim", None))),
    "ELU": ("activation", ("alpha", 1.0), ("inplace", False)),
    "CELU": ("activation", ("alpha", 1.0), ("inplace", False)),
    "GELU": ("activation", ("approximate", "none")),
    "GLU": ("activation", ("dim", -1)),
    "Hardshrink": ("activation", ("lambd", 0.5)),
    "Softshrink": ("activation", ("lambd", 0.5)),
    "Hardtanh": ("activation", ("min_val", -1.0), ("max_val", 1.0), ("inplace", False), ("min_value", None), ("max_value", None)),
    "LeakyReLU": ("activation", ("negative_slope", 0.01), ("inplace", False)),
    "RReLU": ("activation", ("lower", 0.125), ("upper", 1.0 / 3), ("inplace", False)),
    "Softplus": ("activation", ("beta", 1.0), ("threshold", 20.0)),
    "Threshold": ("activation", "threshold", "value", ("inplace", False)),
    # dropout.py
    **dict.fromkeys(("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"), ("dropout", ("p", 0.5), ("inplace", False))),
    # pooling.py
    **_by_rank("MaxPool{n}d", "pooling", "kernel_size", ("stride", None), ("padding", 0), ("dilation", 1), ("return_indices", False), ("ceil_mode", False)),
    "AvgPool1d": ("pooling", "kernel_size", ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True)),
    **{f"AvgPool{n}d": ("pooling", "kernel_size", ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True), ("divisor_override", None)) for n in (2, 3)},
    **_by_rank("AdaptiveAvgPool{n}d", "pooling", "output_size"),
    **_by_rank("AdaptiveMaxPool{n}d", "pooling", "output_size", ("return_indices", False)),
    **_by_rank("LPPool{n}d", "pooling", "norm_type", "kernel_size", ("stride", None), ("ceil_mode", False)),
    **_by_rank("MaxUnpool{n}d", "pooling", "kernel_size", ("stride", None), ("padding", 0)),
    **{f"FractionalMaxPool{n}d": ("pooling", "kernel_size", ("output_size", None), ("output_ratio", None), ("return_indices", False), ("_random_samples", None)) for n in (2, 3)},
    # padding.py
    **_by_rank("ZeroPad{n}d", "padding", "padding"),
    **_by_rank("ReflectionPad{n}d", "padding", "padding"),
    **_by_rank("ReplicationPad{n}d", "padding", "padding"),
    **_by_rank("CircularPad{n}d", "padding", "padding"),
    **_by_rank("ConstantPad{n}d", "padding", "padding", "value"),
    # flatten.py, fold.py, pixelshuffle.py, channelshuffle.py, upsampling.py, distance.py
    "Flatten": ("flatten", ("start_dim", 1), ("end_dim", -1)),
    "Unflatten": ("flatten", "dim", "unflattened_size"),
    "Fold": ("fold", "output_size", "kernel_size", ("dilation", 1), ("padding", 0), ("stride", 1)),
    "Unfold": ("fold", "kernel_size", ("dilation", 1), ("padding", 0), ("stride", 1)),
    "PixelShuffle": ("pixelshuffle", "upscale_factor"),
    "PixelUnshuffle": ("pixelshuffle", "downscale_factor"),
    "ChannelShuffle": ("channelshuffle", "groups"),
    "Upsample": ("upsampling", ("size", None), ("scale_factor", None), ("mode", "nearest"), ("align_corners", None), ("recompute_scale_factor", None)),
    "UpsamplingNearest2d": ("upsampling", ("size", None), ("scale_factor", None)),
    "UpsamplingBilinear2d": ("upsampling", ("size", None), ("scale_factor", None)),
    "CosineSimilarity": ("distance", ("dim", 1), ("eps", 1e-8)),
    "PairwiseDistance": ("distance", ("p", 2.0), ("eps", 1e-6), ("keepdim", False)),
    # normalization.py: no tensors
    "LocalResponseNorm": ("normalization", "size", ("alpha", 1e-4), ("beta", 0.75), ("k", 1.0)),
    "CrossMapLRN2d": ("normalization", "size", ("alpha", 1e-4), ("beta", 0.75), ("k", 1)),
    # loss.py
    "L1Loss": ("loss", *_REDUCE),
    "MSELoss": ("loss", *_REDUCE),
    "KLDivLoss": ("loss", *_REDUCE, ("log_target", False)),
    "BCELoss": ("loss", ("weight", None), *_REDUCE),
    "BCEWithLogitsLoss": ("loss", ("weight", None), *_REDUCE, ("pos_weight", None)),
    "NLLLoss": ("loss", ("weight", None), ("size_average", None), ("ignore_index", -100), ("reduce", None), ("reduction", "mean")),
    "NLLLoss2d": ("loss", ("weight", None), ("size_average", None), ("ignore_index", -100), ("reduce", None), ("reduction", "mean")),
    "CrossEntropyLoss": ("loss", ("weight", None), ("size_average", None), ("ignore_index", -100), ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)),
    "PoissonNLLLoss": ("loss", ("log_input", True), ("full", False), ("size_average", None), ("eps", 1e-8), ("reduce", None), ("reduction", "mean")),
    "GaussianNLLLoss": ("loss", ("*full", False), ("*eps", 1e-6), ("*reduction", "mean")),
    "HingeEmbeddingLoss": ("loss", ("margin", 1.0), *_REDUCE),
    "MultiLabelMarginLoss": ("loss", *_REDUCE),
    "SmoothL1Loss": ("loss", *_REDUCE, ("beta", 1.0)),
    "HuberLoss": ("loss", ("reduction", "mean"), ("delta", 1.0)),
    "SoftMarginLoss": ("loss", *_REDUCE),
    "MultiLabelSoftMarginLoss": ("loss", ("weight", None), *_REDUCE),
    "CosineEmbeddingLoss": ("loss", ("margin", 0.0), *_REDUCE),
    "MarginRankingLoss": ("loss", ("margin", 0.0), *_REDUCE),
    "MultiMarginLoss": ("loss", ("p", 1), ("margin", 1.0), ("weight", None), *_REDUCE),
    "TripletMarginLoss": ("loss", ("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False), *_REDUCE),
    "TripletMarginWithDistanceLoss": ("loss", ("*distance_function", None), ("*margin", 1.0), ("*swap", False), ("*reduction", "mean")),
    "CTCLoss": ("loss", ("blank", 0), ("reduction", "mean"), ("zero_infinity", False)),
}  # fmt: skip


def _output_shape(name: str) -> tuple[Any, ...] | None:
    for family in ("MaxPool", "AvgPool", "LPPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "FractionalMaxPool"):
        if name.startswith(family) and name[-2:-1].isdigit():
            return ("N", "C", *_SPATIAL[int(name[-2])])
    return None


def _make(name: str, sig: inspect.Signature) -> Any:
    shape = _output_shape(name)

    def make(*args: Any, **kwargs: Any) -> Module:
        bound = bind(name, sig, args, kwargs)
        p = bound.arguments.get("p")
        if "Dropout" in name and is_number(p) and not 0 <= float(p) <= 1:  # type: ignore[arg-type]
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        buffers = []
        for key in ("weight", "pos_weight"):
            shape_ = getattr(bound.arguments.get(key), "shape", None)
            if isinstance(shape_, tuple):
                buffers.append((key, shape_))
        return stateless(name, output_shape=shape, buffers=tuple(buffers))

    make.__signature__ = sig  # type: ignore[attr-defined]
    make.__doc__ = f"``nn.{name}``: no parameters."
    return make


def _reader(sig: inspect.Signature) -> Any:
    names = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    def read(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {n: getattr(m, n) for n in names if n in _READABLE and hasattr(m, n)}

    return read


# Attributes that are the constructor's argument as given (a loss's ``weight`` is a tensor, not read).
_READABLE = frozenset(
    {"p", "inplace", "dim", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "output_size"}
    | {"negative_slope", "alpha", "approximate", "lambd", "beta", "threshold", "value", "start_dim", "end_dim"}
    | {"upscale_factor", "downscale_factor", "groups", "size", "scale_factor", "mode", "eps", "norm_type"}
    | {"unflattened_size", "lower", "upper", "margin", "blank"}
)

for _name, (_file, *_spec) in STATELESS.items():
    _sig = signature(*_spec)
    define(_name, _make(_name, _sig), source=f"torch/nn/modules/{_file}.py", read=_reader(_sig))
