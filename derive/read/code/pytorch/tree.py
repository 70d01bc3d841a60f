"""The module objects the code built, as torch lists them: the :class:`derive.tree.Module` of a model.

Names follow ``named_parameters()``: a module's own parameters, then its children's, each under
the name it was registered with; a parameter object met again (``decoder.weight =
encoder.weight``, a module registered twice) is a tie to the name it was first listed under,
counted once (torch's ``remove_duplicate``). A constructor's module untouched by the code keeps
its closed form and output shape; one the code changed keeps its tensors only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....tree import Module, Param
from .objects import CONTAINERS, ModObj, ParamObj

__all__ = ["to_tree", "walk_modules", "walk_tensors"]


def to_tree(root: ModObj, name: str = "") -> Module:
    """The tree of ``root`` and everything it holds.

    Parameters
    ----------
    root : ModObj
    name : str
        The root's name ("" for a model).

    Returns
    -------
    derive.tree.Module
    """
    built = _emit(root, name, "", {})
    return built if built is not None else Module(name, root.type)


def _emit(obj: ModObj, name: str, path: str, seen: dict[int, str]) -> Module | None:
    if obj.frozen and obj.origin is not None:
        return obj.origin.replace(name=name)
    params: list[Param] = []
    ties: list[str] = []
    for table, buffer in ((obj.params, False), (obj.buffers, True)):
        for pname, p in table.items():
            if p is None:
                continue
            full = f"{path}.{pname}" if path else pname
            if id(p) in seen:
                params.append(Param(pname, p.shape, p.trainable, buffer, seen[id(p)], p.dtype, p.complex))
                if not buffer:
                    ties.append(f"{pname} is {seen[id(p)]}")
                continue
            seen[id(p)] = full
            params.append(Param(pname, p.shape, p.trainable, buffer, None, p.dtype, p.complex))
    children: list[Module] = []
    for cname, child in obj.children.items():
        if child is None:
            continue
        made = _emit(child, cname, f"{path}.{cname}" if path else cname, seen)
        if made is not None:
            children.append(made)
    if obj.container in CONTAINERS and not params and not children and obj.cls is None:
        return None  # an empty container: no tensor, no row
    note = obj.note or ("tied: " + ", ".join(ties) if ties else "")
    origin = obj.origin
    if origin is not None and not obj.modified and not ties:
        return origin.replace(name=name, params=tuple(params), children=tuple(children), note=note)
    return Module(
        name,
        obj.type,
        tuple(params),
        tuple(children),
        counted=obj.counted,
        note=note,
        row=origin is not None and origin.row and not obj.modified,
        output_shape=origin.output_shape if origin is not None and not obj.modified else None,
    )


def walk_modules(obj: ModObj, prefix: str = "") -> Iterator[tuple[str, ModObj]]:
    """``named_modules()``: each module object once, parents first.

    Parameters
    ----------
    obj : ModObj
    prefix : str

    Yields
    ------
    (str, ModObj)
    """
    seen: set[int] = set()

    def walk(module: ModObj, path: str) -> Iterator[tuple[str, ModObj]]:
        if id(module) in seen:
            return
        seen.add(id(module))
        yield path, module
        for name, child in module.children.items():
            if child is not None:
                yield from walk(child, f"{path}.{name}" if path else name)

    yield from walk(obj, prefix)


def walk_tensors(obj: ModObj, buffers: bool = False, recurse: bool = True) -> Iterator[tuple[str, ParamObj]]:
    """``named_parameters()`` (or ``named_buffers()``): each tensor object once.

    Parameters
    ----------
    obj : ModObj
    buffers : bool
    recurse : bool

    Yields
    ------
    (str, ParamObj)
    """
    seen: set[int] = set()
    modules: Any = walk_modules(obj) if recurse else [("", obj)]
    for path, module in modules:
        for name, p in (module.buffers if buffers else module.params).items():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                yield (f"{path}.{name}" if path else name), p
