"""``torch.nn``'s containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``, ``Module`` itself and ``DataParallel``, over modules already made.

Sources: ``torch/nn/modules/container.py``, ``module.py``, ``torch/nn/parallel/data_parallel.py``.
Children are named as torch names them: ``0``, ``1``, ... or the keys given; ``DataParallel``
holds its module as ``module``. The code reader keeps its own containers (they hold the very
objects the code made, so a module appended twice is one module); these makes serve the command
line and the live-object reader.

>>> from derive.engine.constructors import lookup
>>> seq = lookup("torch", "Sequential").make(lookup("torch", "Linear").make(4, 8), lookup("torch", "ReLU").make())
>>> [(m.name, m.type) for m in seq.children], seq.count
([('0', 'Linear'), ('1', 'ReLU')], 40)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...tree import Module, Param
from ._base import define

__all__: list[str] = []


def _module(value: Any, name: str) -> Module:
    if not isinstance(value, Module):
        raise TypeError(f"{type(value).__name__} is not a Module subclass")
    return value.replace(name=name)


def _pairs(items: Any, what: str) -> list[tuple[Any, Any]]:
    if isinstance(items, Mapping):
        return list(items.items())
    pairs = list(items)
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{what} update sequence element has length {len(pair)}; 2 is required")
    return [tuple(p) for p in pairs]


def Sequential(*args: Any) -> Module:
    """``nn.Sequential(*modules)`` or ``nn.Sequential(OrderedDict(...))``.

    Parameters
    ----------
    *args : derive.tree.Module, or one mapping of str to derive.tree.Module
        The children, named ``0``, ``1``, ... or by the mapping's keys.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A child that is not a module (torch's words).
    """
    if len(args) == 1 and isinstance(args[0], Mapping):
        children = [_module(m, str(k)) for k, m in args[0].items()]
    else:
        children = [_module(m, str(i)) for i, m in enumerate(args)]
    return Module("", "Sequential", children=tuple(children))


def ModuleList(modules: Any = None) -> Module:
    """``nn.ModuleList(iterable)``.

    Parameters
    ----------
    modules : list or tuple of derive.tree.Module, optional
        The children, named ``0``, ``1``, ...

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        ``modules`` not a list or tuple, or an item that is not a module (torch's words).
    """
    if modules is not None and not isinstance(modules, (list, tuple)):
        raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
    return Module("", "ModuleList", children=tuple(_module(m, str(i)) for i, m in enumerate(modules or ())))


def ModuleDict(modules: Any = None) -> Module:
    """``nn.ModuleDict(mapping or pairs)``.

    Parameters
    ----------
    modules : mapping of str to derive.tree.Module, or iterable of (key, module) pairs, optional
        The children, named by their keys.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A value that is not a module (torch's words).
    ValueError
        An element of a sequence that is not a pair (torch's words).
    """
    children = [_module(m, str(k)) for k, m in _pairs(modules or {}, "ModuleDict")]
    return Module("", "ModuleDict", children=tuple(children))


def _parameter(value: Any, name: str) -> Param:
    shape = getattr(value, "shape", None)
    if not isinstance(shape, tuple):
        raise TypeError(f"a parameter needs a tensor with a known shape, got {type(value).__name__}")
    return Param(name, shape)


def ParameterList(values: Any = None) -> Module:
    """``nn.ParameterList(tensors)``: parameters named ``0``, ``1``, ...

    Parameters
    ----------
    values : iterable of tensors, optional
        Anything with a ``shape`` tuple (a ``torch.Tensor``, a ``torch.nn.Parameter``).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A value without a known shape.
    """
    return Module("", "ParameterList", tuple(_parameter(v, str(i)) for i, v in enumerate(values or ())))


def ParameterDict(parameters: Any = None) -> Module:
    """``nn.ParameterDict(mapping or pairs)``.

    Parameters
    ----------
    parameters : mapping of str to tensor, or iterable of (key, tensor) pairs, optional
        Parameters named by their keys; each value has a ``shape`` tuple.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A value without a known shape.
    ValueError
        An element of a sequence that is not a pair (torch's words).
    """
    return Module(
        "", "ParameterDict", tuple(_parameter(v, str(k)) for k, v in _pairs(parameters or {}, "ParameterDict"))
    )


def Module_(*args: Any, **kwargs: Any) -> Module:
    """``nn.Module()``: an empty module, to which code assigns children.

    Parameters
    ----------
    *args, **kwargs
        Ignored.

    Returns
    -------
    derive.tree.Module
    """
    return Module("", "Module")


def DataParallel(module: Any, device_ids: Any = None, output_device: Any = None, dim: Any = 0) -> Module:
    """``nn.DataParallel(module)``: ``module`` as the child ``module`` (state-dict keys ``module.*``).

    Parameters
    ----------
    module : derive.tree.Module
        The module replicated.
    device_ids, output_device : object, optional
        As ``torch.nn.DataParallel``; ignored (they change no tensor).
    dim : int, default 0
        The batch dimension scattered; ignored.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        ``module`` is not a module (torch's words).
    """
    return Module("", "DataParallel", children=(_module(module, "module"),))


define("Sequential", Sequential, source="torch/nn/modules/container.py")
define("ModuleList", ModuleList, source="torch/nn/modules/container.py")
define("ModuleDict", ModuleDict, source="torch/nn/modules/container.py")
define("ParameterList", ParameterList, source="torch/nn/modules/container.py")
define("ParameterDict", ParameterDict, source="torch/nn/modules/container.py")
define("Module", Module_, source="torch/nn/modules/module.py")
define("DataParallel", DataParallel, source="torch/nn/parallel/data_parallel.py")
