"""Installed packages read like the user's own code: their source found on disk, never imported.

A class or function the code imports from a package derive has no rules for (``from torchcrf
import CRF``) is looked up where Python would import it from, and its module is read by the same
reader as the user's file: its ``class`` and ``def`` statements bind, its imports bind names, its
``if __name__ == "__main__":`` block is skipped. Nothing is imported or executed: the module's file
is found by :class:`importlib.machinery.PathFinder` (a top-level package's spec is found on
``sys.path`` and a submodule's in its package's directory, with no package's ``__init__`` run),
and only a ``.py`` source outside Python's standard library is read. A package that is not
installed, or not as source (a compiled extension), stays what it was: a name derive cannot count,
refused with the reason (or not counted under ``--partial``).

Limits: :data:`MAX_MODULES` modules per reading, each within :data:`derive.read.source.MAX_TEXT`
characters; a name re-exported (``from .crf import CRF`` in ``__init__.py``) is followed at most
:data:`MAX_HOPS` times.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...source import MAX_TEXT, SourceError, parse_module
from .frame import Frame
from .values import Class, Function, Ref, Refused, UserRaise

if TYPE_CHECKING:
    from .core import Core

__all__ = [
    "MAX_MODULES",
    "MAX_HOPS",
    "beside",
    "own_package",
    "locate",
    "package_value",
    "from_package",
    "unread",
    "absolute",
]

#: Modules of installed packages read for one model at most.
MAX_MODULES = 24
#: Re-exports followed for one name at most.
MAX_HOPS = 8

#: Where the file being read is found from (Python puts a script's own directory first on ``sys.path``):
#: its directory, and when that directory is a package (it holds ``__init__.py``), the package's dotted
#: name and the directory above its top-level package — so ``from blocks import Gate`` beside it,
#: ``from .blocks import Gate`` and ``from mypkg.blocks import Gate`` inside a package are read like a
#: package's modules.
_BESIDE: ContextVar[tuple[str, str, str] | None] = ContextVar("beside", default=None)


def own_package(path: str) -> tuple[str, str]:
    """The package a ``.py`` file belongs to and the directory its top-level package lies in.

    The directories above the file that hold an ``__init__.py`` make its package, as Python names a
    module it imports from a package (``mypkg/models/rnn.py`` is ``mypkg.models.rnn`` when ``mypkg``
    and ``mypkg/models`` hold one).

    Parameters
    ----------
    path : str
        The ``.py`` file being read.

    Returns
    -------
    tuple of (str, str)
        The dotted package (``""`` when the file's directory is not a package) and the directory to
        search for it (the file's own directory when it has none).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "mypkg" / "models").mkdir(parents=True)
    >>> for d in ("mypkg", "mypkg/models"):
    ...     _ = (root / d / "__init__.py").write_text("")
    >>> package, top = own_package(str(root / "mypkg" / "models" / "rnn.py"))
    >>> package, top == str(root.resolve())
    ('mypkg.models', True)
    """
    directory = Path(path).resolve().parent
    parts: list[str] = []
    top = directory
    while (top / "__init__.py").is_file() and top.name.isidentifier() and top.parent != top:
        parts.insert(0, top.name)
        top = top.parent
    return ".".join(parts), str(top)


@contextmanager
def beside(path: str) -> Iterator[None]:
    """Within the block, modules beside the file ``path`` (and of its own package) are found first, as when
    Python runs it; its relative imports resolve against its package (:func:`own_package`).

    Parameters
    ----------
    path : str
        The ``.py`` file being read.

    Yields
    ------
    None
    """
    package, top = own_package(path)
    token = _BESIDE.set((os.path.dirname(os.path.abspath(path)), top, package))
    try:
        yield
    finally:
        _BESIDE.reset(token)


def locate(module: str) -> Path | None:
    """The ``.py`` file Python would import ``module`` from, found without importing anything (beside the
    file being read first: :func:`beside`).

    Parameters
    ----------
    module : str
        A dotted module name (``"torchcrf"``, ``"keras_self_attention.seq_self_attention"``).

    Returns
    -------
    pathlib.Path or None
        None when it is not installed, is a compiled extension or a namespace package, or lies in
        Python's standard library.

    Examples
    --------
    >>> locate("derive_has_no_such_package") is None
    True
    """
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts) or parts[0] in sys.stdlib_module_names:
        return None
    try:
        here = _BESIDE.get()
        first = list(dict.fromkeys(here[:2])) if here else []
        spec = PathFinder.find_spec(parts[0], first + sys.path)
        for k in range(1, len(parts)):
            if spec is None or not spec.submodule_search_locations:
                return None
            spec = PathFinder.find_spec(".".join(parts[: k + 1]), list(spec.submodule_search_locations))
    except (ImportError, OSError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin).resolve()


def unread(path: str) -> str:
    """Why a package's name could not be read (:func:`package_value` gave None): the words of the refusal.

    Parameters
    ----------
    path : str
        The dotted name the code calls (``"torchcrf.CRF"``).

    Returns
    -------
    str

    Examples
    --------
    >>> unread("crf_not_here.layers.CRF")
    'imported from crf_not_here.layers, which is not installed here as Python source (install it and derive reads its code, never running it)'
    """
    module, _, name = path.rpartition(".")
    module = module or path
    if module.startswith("."):
        return (
            f"imported from {module}, a relative import derive resolves only in a file of a package (a directory "
            f"with __init__.py) named by its path, within its top-level package: give derive that file"
        )
    if locate(module.split(".")[0]) is None:
        return (
            f"imported from {module}, which is not installed here as Python source "
            f"(install it and derive reads its code, never running it)"
        )
    return f"imported from {module}, whose source derive reads but finds no class or function {name} in"


def _module_frame(core: Core, module: str) -> Frame | None:
    """The globals of ``module`` read by ``core`` (cached on it), or None when it cannot be read."""
    cache: dict[str, Frame | None] = core.packages
    if module in cache:
        return cache[module]
    cache[module] = None  # a module importing itself back reads as not found
    if len(cache) > MAX_MODULES:
        raise core.refuse(None, f"more than {MAX_MODULES} modules of installed packages to read")
    path = locate(module)
    if path is None:
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if len(text) > MAX_TEXT:
        return None
    try:
        tree = parse_module(text)
    except SourceError:
        return None
    is_package = path.name == "__init__.py"
    frame = Frame({"__name__": module, "__package__": module if is_package else module.rpartition(".")[0]})
    saved = core.frame, core.module_frame, core.stack, core.line
    core.frame = core.module_frame = frame
    core.stack = [frame]
    try:
        core.read_body(tree.body, script=False)
    finally:
        core.frame, core.module_frame, core.stack, core.line = saved
    cache[module] = frame
    core.note(f"{module} read from its source ({path.name} of {module.split('.')[0]}), never imported")
    return frame


def package_value(core: Core, path: str) -> Any:
    """The class or function ``path`` names, read from its installed package's source, or None.

    Parameters
    ----------
    core : Interpreter
        The reader of the user's code (the package's module is read by it, with its semantics).
    path : str
        A dotted name the code calls (``"torchcrf.CRF"``).

    Returns
    -------
    Class, Function or None
    """
    for _ in range(MAX_HOPS):
        parts = path.split(".")
        found: Any = None
        for k in range(len(parts) - 1, 0, -1):
            frame = _module_frame(core, ".".join(parts[:k]))
            if frame is None:
                continue
            value: Any = frame
            for attr in parts[k:]:
                value = value.names.get(attr) if isinstance(value, Frame) else None
            found = value
            break
        if isinstance(found, Ref) and found.path != path:
            path = found.path  # a re-export: follow it
            continue
        return found if isinstance(found, (Class, Function)) else None
    return None


def from_package(
    core: Core, path: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> tuple[Any, str | None]:
    """Call ``path`` as its installed package's source defines it: ``(value, None)``, or ``(None, why)``
    when derive cannot (the package is not installed as source, the name is not a class or function
    there, or its code goes where the reader does not: the refusal, named).

    Parameters
    ----------
    core : Core
    path : str
        The dotted name called (``"torchcrf.CRF"``).
    args : list
    kwargs : dict
    node : ast.AST
        The call.

    Returns
    -------
    tuple
        The call's value and None, or None and the words of the refusal.
    """
    found = package_value(core, path)
    if found is None:
        return None, unread(path)
    partial, core.partial = core.partial, False  # a package's layer is read whole, or not counted whole
    try:
        return core.call(found, args, kwargs, node), None
    except (Refused, UserRaise) as stopped:
        module = path.rpartition(".")[0] or path
        return None, f"imported from {module}, whose source derive reads but cannot follow ({stopped})"
    finally:
        core.partial = partial


def absolute(frame: Frame, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` names, relative imports resolved against the module being read.

    Parameters
    ----------
    frame : Frame
        The frame the import runs in (its outermost frame holds the module's ``__package__``).
    node : ast.ImportFrom

    Returns
    -------
    str
        ``"pkg.sub"`` for ``from .sub import x`` in ``pkg`` (the user's own file's package when it lies in
        one, :func:`own_package`); the dotted text as written where the module has no package (pasted
        code, or a file whose directory holds no ``__init__.py``).
    """
    written = "." * node.level + (node.module or "")
    if not node.level:
        return written
    root = frame
    while root.parent is not None:
        root = root.parent
    package = root.names.get("__package__")
    if "__package__" not in root.names:  # the user's own file: its package, if it lies in one
        here = _BESIDE.get()
        package = here[2] if here else None
    if not isinstance(package, str) or not package:
        return written
    try:
        return importlib.util.resolve_name(written, package)
    except ImportError:  # beyond the top-level package: as written, refused where it is called
        return written
