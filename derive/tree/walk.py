"""Walking the tree: dotted names as the frameworks give them (``named_parameters()``, Keras weight
paths), repeated modules expanded copy by copy, the parts not counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from .nodes import Module, Param, _is_int, _plain

__all__ = ["MAX_LISTED", "named_modules", "named_parameters", "named_buffers", "uncounted"]

#: Most copies of a repeated module that a listing expands one by one; more (10**9 layers) are
#: refused with ValueError by the listings, while :func:`derive.tree.count` works for any number.
MAX_LISTED = 10_000


def uncounted(module: Module, prefix: str = "") -> list[tuple[str, Module]]:
    """The parts of ``module`` derive could not count, with their dotted paths.

    Parameters
    ----------
    module : Module
    prefix : str
        The path of ``module`` itself.

    Returns
    -------
    list of (str, Module)
    """
    return [(path, m) for path, m in named_modules(module, prefix, expand=False) if not m.counted]


def _join(prefix: str, sep: str, name: str) -> str:
    if not prefix:
        return name
    if not name:
        return prefix
    return f"{prefix}{sep}{name}"


def _copies(module: Module, expand: bool) -> list[int | None]:
    """The indices to expand ``module``'s copies to ([None] for a single module)."""
    if module.repeat == 1 and "{k}" not in module.name:
        return [None]
    if not expand:
        return [None]
    repeat = _plain(module.repeat)
    if not _is_int(repeat):
        raise ValueError(
            f"{module.type} {module.name!r} stands for {repeat} copies (a symbolic number): tensors are listed "
            "one by one only for int sizes; the count is exact for any"
        )
    if repeat > MAX_LISTED:
        raise ValueError(
            f"{module.type} {module.name!r} repeats {repeat:,} times, too many to list tensor by tensor (at most "
            f"{MAX_LISTED:,}); the count works for any number"
        )
    return list(range(module.start, module.start + repeat))


def _fill(name: str, k: int | None) -> str:
    return name if k is None else name.replace("{k}", str(k))


def named_modules(module: Module, prefix: str = "", *, expand: bool = True) -> Iterator[tuple[str, Module]]:
    """Every module with its dotted path, parents first (``named_modules()`` order).

    Parameters
    ----------
    module : Module
    prefix : str
        The path of ``module``'s parent ("" for the root).
    expand : bool, default True
        List each copy of a repeated module under its own index (raises for a symbolic or huge
        ``repeat``); False lists a repeated module once, its name unfilled.

    Yields
    ------
    (str, Module)
        The module's full path and the module (a repeated one with ``repeat`` 1 per copy).

    Raises
    ------
    ValueError
        ``expand`` and a repeat that is symbolic or more than :data:`MAX_LISTED`.
    """
    yield from _walk(module, prefix, ".", expand)


def _walk(module: Module, prefix: str, sep: str, expand: bool) -> Iterator[tuple[str, Module]]:
    for k in _copies(module, expand):
        path = _join(prefix, sep, _fill(module.name, k))
        copy = module if k is None else _one_copy(module, k)
        yield path, copy
        for child in module.children:
            yield from _walk(child, path, module.sep, expand)


def _one_copy(module: Module, k: int) -> Module:
    return replace(
        module,
        name=_fill(module.name, k),
        params=tuple(replace(p, name=_fill(p.name, k)) for p in module.params),
        repeat=1,
        start=0,
    )


def _tensors(module: Module, prefix: str, sep: str) -> Iterator[tuple[str, Param]]:
    for k in _copies(module, True):
        path = _join(prefix, sep, _fill(module.name, k))
        if not module.counted:
            continue
        for p in module.params:
            yield _join(path, module.sep, _fill(p.name, k)), p if k is None else replace(p, name=_fill(p.name, k))
        for child in module.children:
            yield from _tensors(child, path, module.sep)


def named_parameters(
    module: Module, prefix: str = "", *, ties: bool = False, buffers: bool = False
) -> Iterator[tuple[str, Param]]:
    """Every parameter with its full name, as ``model.named_parameters()`` (torch) or the weight
    paths (Keras) give them: tied tensors once, buffers left out.

    Parameters
    ----------
    module : Module
    prefix : str
        The path of ``module``'s parent ("" for the root).
    ties : bool, default False
        Also list the tied names (as ``state_dict()`` does), each with its :attr:`Param.tied_to`.
    buffers : bool, default False
        Also list buffers (as ``state_dict()`` does).

    Yields
    ------
    (str, Param)

    Raises
    ------
    ValueError
        A repeated module whose copies cannot be listed (see :func:`named_modules`).
    """
    for name, p in _tensors(module, prefix, "."):
        if (p.buffer and not buffers) or (p.tied_to is not None and not ties):
            continue
        yield name, p


def named_buffers(module: Module, prefix: str = "") -> Iterator[tuple[str, Param]]:
    """Every buffer with its full name (``model.named_buffers()``).

    Parameters
    ----------
    module : Module
    prefix : str

    Yields
    ------
    (str, Param)
    """
    for name, p in _tensors(module, prefix, "."):
        if p.buffer:
            yield name, p
