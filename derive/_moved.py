"""The modules' old import paths (``derive.stack``, ``derive.torch`` ...) still work.

derive was a flat package until 0.2; its modules now live in subpackages. Importing an old
path gives the module at its new path, so ``from derive.stack import Stack`` and ``import
derive.torch as dt`` keep working; new code imports the new paths. An old module that also held a
name now defined on a higher floor (``derive.conventions.PYTORCH``, now
:data:`derive.frameworks.pytorch.PYTORCH`: the engine imports no framework) is an alias module
that finds that name where it lives now (:data:`EXTRAS`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence

#: Old module path -> new module path.
MOVED = {
    "derive.symbols": "derive.engine.symbols",
    "derive.validate": "derive.engine.validate",
    "derive.conventions": "derive.engine.conventions",
    "derive.wirings": "derive.engine.wirings",
    "derive.stack": "derive.engine.stack",
    "derive.readout": "derive.engine.readout",
    "derive.cost": "derive.analysis.cost",
    "derive.solving": "derive.analysis.solving",
    "derive.difference": "derive.analysis.difference",
    "derive.vectorize": "derive.analysis.vectorize",
    "derive.display": "derive.render.display",
    "derive.latex": "derive.render.latex",
    "derive.diagram": "derive.render.diagram",
    "derive.torch": "derive.frameworks.pytorch",
    "derive.keras": "derive.frameworks.keras",
}

#: Names an old module held that now live on a higher floor: old path -> {name: its module now}.
EXTRAS = {"derive.conventions": {"PYTORCH": "derive.frameworks.pytorch"}}


class _Alias(types.ModuleType):
    """An old path whose module is its new module plus :data:`EXTRAS` (found on first use)."""

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self._target = target

    def __getattr__(self, attr: str) -> object:
        home = EXTRAS.get(self.__name__, {}).get(attr)
        if home is not None:
            return getattr(importlib.import_module(home), attr)
        return getattr(self._target, attr)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._target)) | set(EXTRAS.get(self.__name__, {})))


_ALIASES: dict[str, _Alias] = {}


def alias(old: str) -> types.ModuleType:
    """The module an old path gives: its new module, or an alias module for a path of :data:`EXTRAS`.

    Parameters
    ----------
    old : str
        A key of :data:`MOVED`.

    Returns
    -------
    types.ModuleType
    """
    module = importlib.import_module(MOVED[old])
    if old not in EXTRAS:
        return module
    if old not in _ALIASES:
        _ALIASES[old] = _Alias(old, module)
    return _ALIASES[old]


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths of :data:`MOVED`."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """The module at the new path itself (so ``derive.torch is derive.frameworks.pytorch``)."""
        module = alias(spec.name)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: give the module back its own spec (the import system set the old path's)."""
        spec = module.__spec__
        assert spec is not None  # the import system set it before exec_module
        module.__spec__ = self._specs.pop(spec.name, spec)


def install() -> None:
    """Alias the old paths whose new module is imported already; find the others on demand."""
    for old, new in MOVED.items():
        if new in sys.modules:
            sys.modules.setdefault(old, alias(old))
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
