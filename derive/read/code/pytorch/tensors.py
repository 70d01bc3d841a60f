"""Tensors in model code, read to their shapes: ``torch.zeros(...)``, ``nn.Parameter(...)``, ``.view(...)``.

The factories (``zeros``, ``ones``, ``empty``, ``randn``, ``rand``, ``full``, ``randint``,
``tensor``, ``Tensor``/``FloatTensor``, ``arange``, ``linspace``, ``eye``, ``randperm``,
``*_like``) give a :class:`~.objects.TensorVal` of the shape written; element-wise functions
(``torch.log``, ``torch.tril``, ``x * 2``) keep it (two tensors broadcast); ``view``,
``reshape``, ``unsqueeze``, ``squeeze``, ``t``, ``transpose``, ``permute``, ``expand``,
``repeat``, ``flatten`` and indexing reshape it; in-place initialisers (``uniform_``,
``normal_``, ``zero_``, ``fill_``, ``copy_``) and ``nn.init.*`` return the tensor itself. Anything
else is an unknown value.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Builtin, Unknown
from .objects import ParamObj, TensorVal

__all__ = ["create", "tensor_attr", "broadcast", "index", "FACTORIES", "ELEMENTWISE", "shape_of"]

#: ``torch`` functions that make a new tensor (``torch.zeros``, ``torch.tensor``, ``torch.arange``, ...).
FACTORIES: tuple[str, ...] = (
    "zeros",
    "ones",
    "empty",
    "randn",
    "rand",
    "full",
    "randint",
    "tensor",
    "Tensor",
    "FloatTensor",
)
FACTORIES += ("DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "HalfTensor", "arange", "linspace")
FACTORIES += ("logspace", "eye", "randperm", "zeros_like", "ones_like", "empty_like", "randn_like", "rand_like")
FACTORIES += ("full_like", "randint_like", "as_tensor")
#: torch functions that keep their first tensor's shape.
ELEMENTWISE = frozenset(
    [
        "log",
        "exp",
        "sqrt",
        "abs",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "relu",
        "tril",
        "triu",
        "clamp",
        "clip",
        "neg",
        "sign",
        "floor",
        "ceil",
        "round",
        "log1p",
        "expm1",
        "square",
        "rsqrt",
        "reciprocal",
        "erf",
        "erfinv",
        "softmax",
        "log_softmax",
        "clone",
        "detach",
    ]
)
_COMPLEX = ("cfloat", "cdouble", "complex64", "complex128", "chalf", "complex32")
_INPLACE = frozenset(
    [
        "uniform_",
        "normal_",
        "zero_",
        "fill_",
        "copy_",
        "mul_",
        "add_",
        "sub_",
        "div_",
        "clamp_",
        "exp_",
        "log_",
        "bernoulli_",
        "random_",
        "fill_diagonal_",
        "requires_grad_",
        "xavier_uniform_",
        "xavier_normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
        "orthogonal_",
        "trunc_normal_",
        "constant_",
        "ones_",
        "zeros_",
        "eye_",
        "dirac_",
        "sparse_",
        "share_memory_",
        "masked_fill_",
        "index_fill_",
        "scatter_",
        "clamp_min_",
    ]
)
_SAME = frozenset(
    [
        "clone",
        "detach",
        "contiguous",
        "float",
        "double",
        "half",
        "bfloat16",
        "int",
        "long",
        "bool",
        "cpu",
        "cuda",
        "to",
        "type_as",
    ]
)


def _size(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, sympy.Expr)


def _shape_args(args: list[Any]) -> tuple[Any, ...] | None:
    """``zeros(2, 3)`` or ``zeros((2, 3))`` -> (2, 3); None if a size is not known."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = list(args[0])
    if all(_size(a) for a in args):
        return tuple(int(a) if isinstance(a, sympy.Basic) and a.is_Integer else a for a in args)
    return None


def _data_shape(data: Any) -> tuple[Any, ...] | None:
    """The shape of nested lists of numbers (``torch.tensor([[1, 2], [3, 4]])`` -> (2, 2))."""
    if isinstance(data, (int, float, bool, sympy.Basic)):
        return ()
    if isinstance(data, (TensorVal, ParamObj)):
        return data.shape
    if isinstance(data, (list, tuple)):
        if not data:
            return (0,)
        inner = [_data_shape(d) for d in data]
        if any(i is None for i in inner) or any(i != inner[0] for i in inner):
            return None
        return (len(data), *inner[0])  # type: ignore[misc]
    return None


def _dtype(kwargs: dict[str, Any]) -> tuple[str | None, bool]:
    dtype = kwargs.get("dtype")
    name = getattr(dtype, "path", None)
    if name is None:
        return None, False
    short = name.rsplit(".", 1)[-1]
    return short, short in _COMPLEX


def shape_of(value: Any) -> tuple[Any, ...] | None:
    """The shape of a tensor or parameter, or None.

    Parameters
    ----------
    value : object

    Returns
    -------
    tuple or None
    """
    return value.shape if isinstance(value, (TensorVal, ParamObj)) else None


def create(name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``torch.<name>(*args, **kwargs)`` for a tensor factory: its shape, or an unknown value.

    Parameters
    ----------
    name : str
        One of :data:`FACTORIES`.
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    TensorVal or Unknown
    """
    dtype, complex_ = _dtype(kwargs)
    shape: tuple[Any, ...] | None = None
    if name.endswith("_like"):
        shape = shape_of(args[0]) if args else None
    elif name in ("tensor", "as_tensor"):
        shape = _data_shape(args[0]) if args else None
    elif name.endswith("Tensor"):
        shape = _data_shape(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else _shape_args(args)
    elif name == "full":
        shape = _shape_args([args[0]]) if args else None
    elif name == "randint":
        size = kwargs.get("size", args[-1] if args else None)
        shape = _shape_args([size]) if isinstance(size, (list, tuple)) else None
    elif name == "eye":
        n = args[0] if args else kwargs.get("n")
        m = args[1] if len(args) > 1 else kwargs.get("m", n)
        shape = (n, m) if _size(n) and _size(m) else None
    elif name == "randperm":
        shape = (args[0],) if args and _size(args[0]) else None
    elif name == "arange":
        shape = _arange(args, kwargs)
    elif name in ("linspace", "logspace"):
        steps = args[2] if len(args) > 2 else kwargs.get("steps")
        shape = (steps,) if _size(steps) else None
    else:
        shape = _shape_args(args if args else list(kwargs.get("size", ())))
    if shape is None:
        return Unknown(source_of(node), f"the shape of torch.{name}(...) is not known", getattr(node, "lineno", 0))
    return TensorVal(shape, dtype, complex_)


def _arange(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    values = list(args) + [kwargs[k] for k in ("start", "end", "step") if k in kwargs][len(args) :]
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    start, end, step = (
        (0, values[0], 1) if len(values) == 1 else (values[0], values[1], values[2] if len(values) > 2 else 1)
    )
    return (max(0, math.ceil((end - start) / step)),)


def broadcast(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The broadcast of two shapes, or None when they do not broadcast (or it cannot be known).

    Parameters
    ----------
    a, b : tuple

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> broadcast((3, 1), (4,)), broadcast((2,), (3,))
    ((3, 4), None)
    """
    out = []
    for x, y in zip((1,) * (len(b) - len(a)) + tuple(a), (1,) * (len(a) - len(b)) + tuple(b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


def _reshape(shape: tuple[Any, ...], new: tuple[Any, ...]) -> tuple[Any, ...] | None:
    if sum(1 for d in new if d == -1) > 1 or not all(_size(d) for d in new):
        return None
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        total = math.prod(shape)
        if isinstance(total, int) and isinstance(known, int) and known and total % known == 0:
            return tuple(total // known if d == -1 else d for d in new)
        if not isinstance(total, int) or not isinstance(known, int):
            quotient = sympy.simplify(sympy.sympify(total) / known)
            if quotient.is_integer:
                return tuple(quotient if d == -1 else d for d in new)
        return None
    return tuple(new)


def _method(tensor: Any, name: str, node: ast.AST) -> Any:
    shape = tensor.shape

    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], call_node: ast.AST) -> Any:
        unknown = Unknown(source_of(call_node), f"{name}() of a tensor is not read", getattr(call_node, "lineno", 0))
        dims = _shape_args(args) if args else ()
        if name in _INPLACE:
            return tensor
        if name in _SAME:
            return tensor if isinstance(tensor, TensorVal) else TensorVal(shape, tensor.dtype, tensor.complex)
        if name == "size":
            return shape if not args else _at(shape, args[0], unknown)
        if name == "dim":
            return len(shape)
        if name == "numel":
            return math.prod(shape)
        if name in ("view", "reshape") and dims is not None:
            new = _reshape(shape, dims)
            return unknown if new is None else TensorVal(new)
        if name == "unsqueeze" and args and isinstance(args[0], int):
            d = args[0] if args[0] >= 0 else len(shape) + 1 + args[0]
            return TensorVal((*shape[:d], 1, *shape[d:]))
        if name == "squeeze":
            if not args:
                return TensorVal(tuple(d for d in shape if d != 1))
            d = args[0]
            return TensorVal(tuple(s for i, s in enumerate(shape) if not (i == d % len(shape) and s == 1)))
        if name == "t" and len(shape) <= 2:
            return TensorVal(tuple(reversed(shape)))
        if name == "transpose" and len(args) == 2 and all(isinstance(a, int) for a in args):
            swapped = list(shape)
            i, j = args[0] % len(shape), args[1] % len(shape)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            return TensorVal(tuple(swapped))
        if (
            name == "permute"
            and dims is not None
            and sorted(int(d) % len(shape) for d in dims) == list(range(len(shape)))
        ):
            return TensorVal(tuple(shape[int(d) % len(shape)] for d in dims))
        if name == "expand" and dims is not None and len(dims) >= len(shape):
            padded = (None,) * (len(dims) - len(shape)) + tuple(shape)
            return TensorVal(tuple(p if d == -1 else d for p, d in zip(padded, dims)))
        if name == "repeat" and dims is not None and len(dims) >= len(shape):
            padded = (1,) * (len(dims) - len(shape)) + tuple(shape)
            return TensorVal(tuple(p * d for p, d in zip(padded, dims)))
        if name == "flatten" and not args:
            return TensorVal((math.prod(shape),))
        return unknown

    return Builtin(f"Tensor.{name}", call)


def _at(shape: tuple[Any, ...], i: Any, unknown: Unknown) -> Any:
    if isinstance(i, int) and -len(shape) <= i < len(shape):
        return shape[i]
    return unknown


def tensor_attr(tensor: TensorVal | ParamObj, name: str, node: ast.AST) -> Any:
    """An attribute of a tensor or parameter: its shape, ``data``, ``T``, or one of its methods.

    Parameters
    ----------
    tensor : TensorVal or ParamObj
    name : str
    node : ast.AST

    Returns
    -------
    object
    """
    if name == "shape":
        return tuple(tensor.shape)
    if name == "data":
        return tensor
    if name == "ndim":
        return len(tensor.shape)
    if name == "T":
        return TensorVal(tuple(reversed(tensor.shape)))
    if name == "requires_grad":
        return getattr(tensor, "trainable", False)
    if name == "dtype":
        return Unknown(source_of(node), "a dtype", getattr(node, "lineno", 0))
    return _method(tensor, name, node)


def index(tensor: TensorVal | ParamObj, key: Any, node: ast.AST) -> Any:
    """``tensor[key]`` for ints, full slices and ``None``: the shape of the result.

    Parameters
    ----------
    tensor : TensorVal or ParamObj
    key : object
    node : ast.AST

    Returns
    -------
    TensorVal or Unknown
    """
    keys = key if isinstance(key, tuple) else (key,)
    shape = list(tensor.shape)
    out: list[Any] = []
    position = 0
    for k in keys:
        if k is None:
            out.append(1)
        elif isinstance(k, int) and not isinstance(k, bool):
            position += 1
        elif isinstance(k, slice) and k == slice(None):
            out.append(shape[position])
            position += 1
        else:
            return Unknown(source_of(node), "this index of a tensor is not read", getattr(node, "lineno", 0))
        if position > len(shape):
            return Unknown(source_of(node), "too many indices for the tensor", getattr(node, "lineno", 0))
    return TensorVal((*out, *shape[position:]))
