"""Parameters in model code: ``nn.Parameter(...)`` and the reparametrisations ``weight_norm``, ``spectral_norm``.

Sources: ``torch/nn/parameter.py``; ``torch/nn/utils/weight_norm.py`` (``weight`` becomes
``weight_g`` of ones but along ``dim``, and ``weight_v``, both parameters, registered after the
others) and ``spectral_norm.py`` (``weight`` becomes ``weight_orig``; buffers ``weight_u`` (h,) and
``weight_v`` (numel / h,), h the size along ``dim``: 1 for transposed convolutions, else 0).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ..python.frame import source_of
from ..python.values import Unknown
from .objects import ModObj, ParamObj, TensorVal

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["parameter", "normalised"]


def parameter(core: Core, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``nn.Parameter(data, requires_grad=True)``: a new parameter object of ``data``'s shape.

    Parameters
    ----------
    core : Interpreter
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    ParamObj or Unknown
    """
    data = args[0] if args else kwargs.get("data", TensorVal((0,)))
    trainable = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
    if isinstance(data, (TensorVal, ParamObj)):
        return ParamObj(tuple(data.shape), trainable is not False, False, data.dtype, data.complex)
    why = data.why if isinstance(data, Unknown) else f"{source_of(node)} is not a tensor derive can read"
    return Unknown(source_of(node), why, getattr(node, "lineno", 0), "parameter")


def normalised(core: Core, path: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``weight_norm(module, name="weight", dim=0)`` / ``spectral_norm(module, ...)``, in place.

    Sources: ``torch/nn/utils/weight_norm.py`` (``weight`` -> ``weight_g``, ``weight_v``) and
    ``spectral_norm.py`` (``weight`` -> ``weight_orig``; buffers ``weight_u``, ``weight_v``).

    Parameters
    ----------
    core : Interpreter
    path : str
    args : list
    kwargs : dict
    node : ast.AST

    Returns
    -------
    ModObj

    Raises
    ------
    Refused
        Not a module with that parameter (or a frozen one), or a ``dim`` derive does not know.
    """
    module = args[0] if args else kwargs.get("module")
    name = args[1] if len(args) > 1 else kwargs.get("name", "weight")
    if not isinstance(module, ModObj) or module.frozen or not isinstance(name, str) or name not in module.params:
        raise core.refuse(
            node, f"{source_of(node.func if isinstance(node, ast.Call) else node)} of a module derive cannot read"
        )
    weight = module.params[name]
    assert weight is not None
    shape = weight.shape
    module.remove(name)
    module.touched()
    if path.endswith("weight_norm"):
        dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
        if dim is None:
            g_shape: tuple[Any, ...] = ()
        elif isinstance(dim, int):
            d = dim % len(shape)
            g_shape = tuple(s if i == d else 1 for i, s in enumerate(shape))
        else:
            raise core.refuse(node, "weight_norm with a dim derive does not know")
        module.params[f"{name}_g"] = ParamObj(g_shape)
        module.params[f"{name}_v"] = ParamObj(shape)
        return module
    dim = kwargs.get("dim", args[4] if len(args) > 4 else None)
    if dim is None:
        dim = 1 if module.type.startswith("ConvTranspose") else 0
    height = shape[dim]
    module.params[f"{name}_orig"] = ParamObj(shape)
    module.buffers[f"{name}_u"] = ParamObj((height,), buffer=True)
    width = sympy.Mul(*shape) / height
    module.buffers[f"{name}_v"] = ParamObj((int(width) if getattr(width, "is_Integer", False) else width,), buffer=True)
    return module
