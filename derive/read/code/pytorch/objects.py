"""The torch objects the code reader builds: modules, parameters and tensors, as the code holds them.

A :class:`ModObj` is one ``nn.Module`` object: its parameters, buffers and children in
registration order (``_parameters``, ``_buffers``, ``_modules``) and its plain attributes. A module
made by a registered constructor (``nn.Linear(...)``) keeps the :class:`derive.tree.Module` it
was made from (``origin``: formula, output shape, torch's attributes) and holds a
:class:`ParamObj` per tensor, so that ``decoder.weight = encoder.weight`` shares one object,
counted once. A :class:`TensorVal` is a plain tensor (``torch.zeros(3, 4)``): a shape.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ....tree import Module
from ..python.values import Class

__all__ = ["ModObj", "ParamObj", "TensorVal", "adopt", "CONTAINERS", "fill"]

#: torch's container classes, read natively (they hold the code's own module objects).
CONTAINERS = ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict")


@dataclass(frozen=True)
class TensorVal:
    """A tensor that is not a parameter: its shape (and dtype where written).

    Attributes
    ----------
    shape : tuple of int or sympy.Expr
    dtype : str or None
    complex : bool
    """

    shape: tuple[Any, ...]
    dtype: str | None = None
    complex: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> TensorVal:
        return self


@dataclass(eq=False)
class ParamObj:
    """One ``nn.Parameter`` (or a buffer): an object, so that sharing it is a tie.

    Attributes
    ----------
    shape : tuple of int or sympy.Expr
    trainable : bool
        ``requires_grad`` (a frozen parameter is still counted).
    buffer : bool
    dtype : str or None
    complex : bool
    """

    shape: tuple[Any, ...]
    trainable: bool = True
    buffer: bool = False
    dtype: str | None = None
    complex: bool = False


@dataclass(eq=False)
class ModObj:
    """One ``nn.Module`` object while the code builds it.

    Attributes
    ----------
    type : str
        Its class name (the code's class, or torch's).
    cls : Class or None
        The code's class (methods, class attributes).
    params, buffers : dict of str -> ParamObj or None
    children : dict of str -> ModObj or None
    attrs : dict
        Plain attributes (``self.hidden_size``).
    origin : derive.tree.Module or None
        What a registered constructor made (its formula, output shape, attributes).
    frozen : bool
        A constructor's module kept whole (a symbolic number of layers: no tensor to reach).
    modified : bool
        A tensor or child of a constructor's module was changed (its formula no longer applies).
    counted : bool
        False for a module derive does not know (``--partial``).
    note : str
    container : str
        ``"ModuleList"``, ``"Sequential"``, ... for torch's containers (and their subclasses).
    """

    type: str
    cls: Class | None = None
    params: dict[str, ParamObj | None] = field(default_factory=dict)
    buffers: dict[str, ParamObj | None] = field(default_factory=dict)
    children: dict[str, ModObj | None] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    origin: Module | None = None
    frozen: bool = False
    modified: bool = False
    counted: bool = True
    note: str = ""
    container: str = ""

    def __deepcopy__(self, memo: dict[int, Any]) -> ModObj:
        new = ModObj(self.type, self.cls, origin=self.origin, frozen=self.frozen, modified=self.modified)
        memo[id(self)] = new
        new.counted, new.note, new.container = self.counted, self.note, self.container
        for name in ("params", "buffers", "children", "attrs"):
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    def remove(self, name: str, keep: dict[str, Any] | None = None) -> None:
        """Forget ``name`` everywhere but in ``keep`` (torch's ``__setattr__`` does so before registering
        it there: a name registered again keeps its place).

        Parameters
        ----------
        name : str
        keep : dict, optional
            The table the name is registered in next.
        """
        for table in (self.params, self.buffers, self.children, self.attrs):
            if table is not keep:
                table.pop(name, None)

    def touched(self) -> None:
        """Mark a constructor's module as changed by the code."""
        if self.origin is not None:
            self.modified = True


def fill(name: str, k: int) -> str:
    """``name`` with the copy index ``{k}`` filled in.

    Parameters
    ----------
    name : str
    k : int

    Returns
    -------
    str
    """
    return name.replace("{k}", str(k))


def _expandable(module: Module) -> bool:
    """Every repeat an int and every child named (a recurrent layer's symbolic group is not)."""
    return all(type(c.repeat) is int and c.name != "" and _expandable(c) for c in module.children)


def adopt(module: Module, name_k: int | None = None) -> ModObj:
    """A module object for what a constructor made: a parameter object per tensor, children expanded.

    Parameters
    ----------
    module : derive.tree.Module
        With ``repeat`` 1 (or a copy index given).
    name_k : int, optional
        The copy index, for tensors named with ``{k}``.

    Returns
    -------
    ModObj
    """
    if not _expandable(module):
        return ModObj(module.type, origin=module, frozen=True)
    obj = ModObj(module.type, origin=module)
    for p in module.params:
        name = p.name if name_k is None else fill(p.name, name_k)
        made = ParamObj(p.shape, p.trainable, p.buffer, p.dtype, p.complex)
        (obj.buffers if p.buffer else obj.params)[name] = made
    for child in module.children:
        if child.repeat == 1 and "{k}" not in child.name:
            obj.children[child.name] = adopt(child)
            continue
        for k in range(child.start, child.start + int(child.repeat)):
            copy_ = child.replace(name=fill(child.name, k), repeat=1, start=0)
            obj.children[copy_.name] = adopt(copy_, k)
    return obj
