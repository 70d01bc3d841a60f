"""Operations on symbolic tensors: their output shapes, as ``keras.ops`` computes them.

Arithmetic broadcasts (NumPy's rule; an unknown size, None, matches any), element-wise
functions (``keras.ops``, ``keras.activations``, ``tf.nn``, ``tf.math``, the backend ``K``) keep
the shape, reductions drop or keep their axes, ``matmul``, ``concatenate``, ``stack``,
``reshape``, ``transpose``, ``expand_dims``, ``squeeze``, ``split``, indexing and ``x.shape`` are
read; any other operation on a tensor gives a tensor of unknown shape, which only matters if a
layer's weights then depend on it. At the top level of functional code each operation is a node of
the graph, named as Keras names it (``add``, ``get_item``: the names layers are counted against).
Arrays made from shapes (``np.zeros``, ``tf.ones``, ``keras.random.normal``) are tensors too.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Unknown
from .arrays import factory, index
from .objects import KNode, KOp, KTensor, KWeight

if TYPE_CHECKING:
    from ..python.core import Core
    from .semantics import KerasSemantics

__all__ = ["binop", "call_op", "subscript", "full_of", "is_tensor", "OPERATORS"]

#: Python's operators on tensors and the ``keras.ops`` operation (its name) each becomes.
OPERATORS = {
    ast.Add: "add",
    ast.Sub: "subtract",
    ast.Mult: "multiply",
    ast.Div: "true_divide",
    ast.FloorDiv: "floor_divide",
    ast.Mod: "mod",
    ast.Pow: "power",
    ast.MatMult: "matmul",
}
_UNARY_NAMES = (
    "relu relu6 sigmoid tanh gelu silu swish elu selu softplus softsign leaky_relu hard_sigmoid hard_silu "
    "hard_swish mish exp log log1p sqrt rsqrt square abs negative sign sin cos erf floor ceil round cast "
    "stop_gradient convert_to_tensor identity dropout l2_normalize normalize ones_like zeros_like clip "
    "clip_by_value softmax log_softmax linear exponential tanh_shrink celu sparse_plus squareplus "
    "reciprocal logical_not isnan isfinite nan_to_num real imag conj flip roll sort cumsum cumprod tril "
    "triu log_sigmoid sparsemax hard_tanh hard_shrink soft_shrink threshold"
)
_UNARY = frozenset(_UNARY_NAMES.split())
_BINARY_NAMES = "add subtract multiply divide true_divide maximum minimum power where mod floor_divide"
_BINARY = frozenset(_BINARY_NAMES.split())
_REDUCE = frozenset(["mean", "sum", "max", "min", "prod", "std", "var", "logsumexp", "any", "all", "argmax", "argmin"])
_TF = {
    "reduce_mean": "mean",
    "reduce_sum": "sum",
    "reduce_max": "max",
    "reduce_min": "min",
    "reduce_prod": "prod",
    "reduce_std": "std",
    "reduce_logsumexp": "logsumexp",
    "concat": "concatenate",
    "permute_dimensions": "transpose",
    "clip_by_value": "clip",
    "math.truediv": "true_divide",
}
#: ``keras.backend``'s constants (``keras/src/backend/config.py`` defaults).
_CONSTANTS = {"epsilon": 1e-7, "floatx": "float32", "image_data_format": "channels_last", "backend": "torch"}
_FACTORIES = frozenset(
    ["zeros", "ones", "empty", "full", "rand", "randn", "random", "normal", "uniform", "truncated_normal"]
)


def is_tensor(value: Any) -> bool:
    """A symbolic tensor or a weight.

    Parameters
    ----------
    value : object

    Returns
    -------
    bool
    """
    return isinstance(value, (KTensor, KWeight))


def full_of(value: Any) -> tuple[Any, ...] | None:
    """The full shape of an operand: a tensor's (batch axis first), a weight's, () for a number.

    Parameters
    ----------
    value : object

    Returns
    -------
    tuple or None
    """
    if isinstance(value, KTensor):
        return value.full
    if isinstance(value, KWeight):
        return value.shape
    if isinstance(value, (int, float, sympy.Expr)) and not isinstance(value, bool):
        return ()
    return None


def _broadcast(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...] | None:
    out = []
    for x, y in zip(((1,) * (len(b) - len(a)) + a)[::-1], ((1,) * (len(a) - len(b)) + b)[::-1]):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            return None
    return tuple(reversed(out))


def _axis(axis: Any, rank: int) -> int | None:
    if isinstance(axis, int) and not isinstance(axis, bool) and -rank <= axis < rank:
        return axis % rank
    return None


def _product(sizes: tuple[Any, ...]) -> Any:
    total: Any = 1
    for size in sizes:
        if size is None:
            return None
        total = total * size
    return sympy.expand(total) if isinstance(total, sympy.Basic) else total


def _reshape(full: tuple[Any, ...], target: Any) -> tuple[Any, ...] | None:
    if not isinstance(target, (tuple, list)) or not all(isinstance(d, int) or d is None for d in target):
        return None
    known = _product(tuple(d for d in target if d not in (-1, None)))
    total = _product(full)
    if -1 in target:
        rest = None if total is None or known in (None, 0) else total // known
        return tuple(rest if d == -1 else d for d in target)
    return tuple(target)


def _shapes(values: list[Any]) -> list[tuple[Any, ...]] | None:
    shapes = [full_of(v) for v in values]
    return None if any(s is None for s in shapes) else [s for s in shapes if s is not None]


def _reduced(first: tuple[Any, ...], args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    keep = kwargs.get("keepdims", kwargs.get("keep_dims", args[2] if len(args) > 2 else False)) is True
    axes = tuple(range(len(first))) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    picked = [_axis(a, len(first)) for a in axes]
    if None in picked:
        return None
    return tuple((1 if keep else None) if i in picked else d for i, d in enumerate(first) if keep or i not in picked)


def _joined(name: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    items = args[0] if args else kwargs.get("xs", kwargs.get("values", kwargs.get("tensors")))
    shapes = _shapes(list(items)) if isinstance(items, (list, tuple)) and items else None
    if shapes is None or len({len(s) for s in shapes}) != 1:
        return None
    default = -1 if kwargs.get("_backend") else 0
    axis = _axis(kwargs.get("axis", args[1] if len(args) > 1 else default), len(shapes[0]) + (name == "stack"))
    if axis is None:
        return None
    if name == "stack":
        return (*shapes[0][:axis], len(shapes), *shapes[0][axis:])
    sizes = [s[axis] for s in shapes]
    joined = None if any(s is None for s in sizes) else sum(sizes)
    return (*shapes[0][:axis], joined, *shapes[0][axis + 1 :])


def _moved(name: str, first: tuple[Any, ...], args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """Operations that move, add or drop axes."""
    second = args[1] if len(args) > 1 else None
    if name == "matmul":
        other = full_of(second)
        if other is None or len(first) < 1 or len(other) < 2:
            return None
        batch = _broadcast(first[:-2], other[:-2])
        return None if batch is None else (*batch, *first[-2:-1], other[-1])
    if name == "reshape":
        return _reshape(first, kwargs.get("newshape", kwargs.get("shape", second)))
    if name == "transpose":
        axes = kwargs.get("axes", kwargs.get("perm", kwargs.get("pattern", second)))
        if axes is None:
            return tuple(reversed(first))
        if not isinstance(axes, (tuple, list)) or sorted(_axis(a, len(first)) or 0 for a in axes) != list(
            range(len(first))
        ):
            return None
        return tuple(first[a] for a in axes)
    if name == "expand_dims":
        at = _axis(kwargs.get("axis", -1 if second is None else second), len(first) + 1)
        return None if at is None else (*first[:at], 1, *first[at:])
    if name == "squeeze":
        axis = kwargs.get("axis", second)
        if axis is None:
            return tuple(d for d in first if d != 1)
        picked = _axis(axis, len(first))
        return None if picked is None else first[:picked] + first[picked + 1 :]
    if name == "one_hot":
        depth = kwargs.get("num_classes", kwargs.get("depth", second))
        return None if not isinstance(depth, int) else (*first, depth)
    return None


def _shape_result(name: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """The output shape of operation ``name``; None when derive does not read it."""
    if name in ("concatenate", "stack"):
        return _joined(name, args, kwargs)
    first = full_of(args[0]) if args else None
    if name in _UNARY:
        return first
    if name in _BINARY:
        shapes = _shapes(list(args[: 3 if name == "where" else 2]))
        if shapes is None or len(shapes) < 2:
            return None
        out: tuple[Any, ...] | None = shapes[0]
        for shape in shapes[1:]:
            out = None if out is None else _broadcast(out, shape)
        return out
    if first is None:
        return None
    if name in _REDUCE:
        return _reduced(first, args, kwargs)
    return _moved(name, first, args, kwargs)


def _why(operands: list[Any], node: ast.AST) -> str:
    """Why an operation's shape is not known: an operand's unknown shape first (the first cause)."""
    for value in operands:
        if isinstance(value, KTensor) and value.full is None and value.why:
            return value.why
    return f"derive does not read the shape of {source_of(node, 60)}"


def _named(path: str) -> str:
    """The operation a function's path names (``tf.reduce_mean`` -> ``mean``, ``K.concatenate`` -> ``concatenate``)."""
    name = path.rsplit(".", 1)[-1]
    two = ".".join(path.rsplit(".", 2)[-2:])
    return _TF.get(two, _TF.get(name, name))


def _node(core: Core[KerasSemantics], name: str, operands: list[Any]) -> KNode | None:
    """A node of the graph for an operation at the top level (it takes Keras' automatic name)."""
    if core.semantics.depth:
        return None
    from .construct import session

    inputs = [v for v in operands if isinstance(v, KTensor)]
    return KNode(KOp(session(core).auto_name(name)), inputs)


def call_op(core: Core[KerasSemantics], path: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """A function on tensors (or that makes one); NotImplemented when no tensor is involved and it
    makes none (the caller decides).

    Parameters
    ----------
    core : Interpreter
    path : str
        The function's dotted path (``keras.ops.concatenate``, ``tensorflow.nn.relu``).
    args, kwargs : list, dict
    node : ast.AST

    Returns
    -------
    object
    """
    name = _named(path)
    if name in _CONSTANTS and not args and "backend" in path:
        return _CONSTANTS[name]
    operands = [*args, *kwargs.values()]
    flat = [v for a in operands for v in (a if isinstance(a, (list, tuple)) else [a])]
    if name in ("shape", "int_shape") and args and is_tensor(args[0]):
        if "tensorflow" in path and not path.endswith("int_shape"):
            return Unknown(source_of(node), "tf.shape(x) is computed when the model runs", getattr(node, "lineno", 0))
        return full_of(args[0])
    if not any(is_tensor(v) for v in flat):
        if name in _FACTORIES or name in ("arange", "eye", "linspace", "normal", "uniform"):
            return factory(name, args, kwargs, node)
        return NotImplemented
    shape = _shape_result(name, args, {**kwargs, "_backend": "backend" in path})
    if name == "split" and args and isinstance(full_of(args[0]), tuple):
        return _split(core, args, kwargs, node)
    why = "" if shape is not None else _why(flat, node)
    return KTensor(shape, _node(core, name, flat), why=why)


def _split(core: Core[KerasSemantics], args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    full = full_of(args[0])
    assert full is not None
    parts = kwargs.get("indices_or_sections", kwargs.get("num_or_size_splits", args[1] if len(args) > 1 else None))
    axis = _axis(kwargs.get("axis", args[2] if len(args) > 2 else 0), len(full))
    if not isinstance(parts, int) or axis is None or not isinstance(full[axis], int) or full[axis] % parts:
        return Unknown(source_of(node), "a split derive does not read", getattr(node, "lineno", 0))
    made = _node(core, "split", [args[0]])
    piece = (*full[:axis], full[axis] // parts, *full[axis + 1 :])
    return [KTensor(piece, made, i) for i in range(parts)]


def binop(core: Core[KerasSemantics], op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
    """``left op right`` with a tensor on either side.

    Parameters
    ----------
    core : Interpreter
    op : ast.operator
    left, right : object
    node : ast.AST

    Returns
    -------
    KTensor or Unknown
    """
    name = OPERATORS.get(type(op))
    if name is None:
        return Unknown(source_of(node), "this operator on tensors is not read", getattr(node, "lineno", 0))
    shape = _shape_result(name, [left, right], {})
    why = "" if shape is not None else _why([left, right], node)
    return KTensor(shape, _node(core, name, [left, right]), why=why)


def subscript(core: Core[KerasSemantics], value: Any, key: Any, node: ast.AST) -> Any:
    """``tensor[key]`` (ints, slices, ``None``, ``...``): the indexed shape.

    Parameters
    ----------
    core : Interpreter
    value : KTensor or KWeight
    key : object
    node : ast.AST

    Returns
    -------
    KTensor
    """
    full = full_of(value)
    keys = key if isinstance(key, tuple) else (key,)
    shape: tuple[Any, ...] | None = None
    if full is not None and all(isinstance(k, (int, slice)) or k is None or k is Ellipsis for k in keys):
        shape = index(full, keys)
    why = "" if shape is not None else _why([value], node)
    return KTensor(shape, _node(core, "get_item", [value]), why=why)
