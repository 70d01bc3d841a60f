"""Arrays made from shapes (``np.zeros``, ``ops.arange``, ``keras.random.normal``) and indexing of
symbolic tensors (``x[:, 0]``, ``x[..., None]``): their shapes, for :mod:`.ops`.
"""

from __future__ import annotations

import ast
from typing import Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Unknown
from .objects import KTensor

__all__ = ["factory", "index"]


def _range(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The shape of ``arange`` / ``linspace`` / ``eye``, or None."""
    if name == "arange":
        given = dict(zip(("start", "stop", "step"), args), **kwargs)
        start, stop, step = given.get("start", 0), given.get("stop"), given.get("step", 1)
        if stop is None:
            start, stop = 0, start
        if all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step)) and step:
            return (len(range(start, stop, step)),)
        return None
    if name == "linspace":
        count = kwargs.get("num", args[2] if len(args) > 2 else 50)
        return (count,) if isinstance(count, int) else None
    rows = kwargs.get("N", args[0] if args else None)
    cols = kwargs.get("M", args[1] if len(args) > 1 else None)
    return (rows, rows if cols is None else cols) if isinstance(rows, int) else None


def factory(name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """An array made from a shape (``zeros``, ``ones``, ``rand``, ``normal(size=)``, ``arange``, ...).

    Parameters
    ----------
    name : str
        The function's name.
    args, kwargs : list, dict
    node : ast.AST

    Returns
    -------
    KTensor or Unknown
        Its shape (the first axis taken as the batch axis where it feeds a layer, as Keras takes it).
    """
    if name in ("arange", "linspace", "eye"):
        made = _range(name, args, kwargs)
        return KTensor(made) if made is not None else Unknown(source_of(node), f"{name} of sizes derive does not know")
    shape = kwargs.get("shape", kwargs.get("size", args[0] if args else None))
    if name in ("rand", "randn") and args:
        shape = tuple(args)
    if name in ("normal", "uniform") and "size" in kwargs:
        shape = kwargs["size"]
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(d is None or isinstance(d, (int, sympy.Expr)) for d in shape):
        return Unknown(source_of(node), "an array of a shape derive does not know", getattr(node, "lineno", 0))
    return KTensor(tuple(shape))


def index(full: tuple[Any, ...], keys: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The shape of ``x[keys]`` for ``x`` of shape ``full`` (ints, slices, None, ``...``), or None.

    Parameters
    ----------
    full : tuple
    keys : tuple

    Returns
    -------
    tuple or None
    """
    if sum(k is Ellipsis for k in keys) > 1:
        return None
    used = sum(1 for k in keys if k is not None and k is not Ellipsis)
    if used > len(full):
        return None
    if Ellipsis in keys:
        at = keys.index(Ellipsis)
        keys = keys[:at] + (slice(None),) * (len(full) - used) + keys[at + 1 :]
    keys = keys + (slice(None),) * (len(full) - sum(1 for k in keys if k is not None))
    out: list[Any] = []
    dims = iter(full)
    for key in keys:
        if key is None:
            out.append(1)
            continue
        size = next(dims)
        if isinstance(key, int):
            continue
        if size is None or not isinstance(size, int):
            out.append(None if size is None or key != slice(None) else size)
        else:
            out.append(len(range(size)[key]))
    return tuple(out)
