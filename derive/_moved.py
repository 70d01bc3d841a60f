"""The modules' old import paths (``derive.stack``, ``derive.torch`` ...) still work.

derive was a flat package until 0.2; its modules now live in subpackages. Importing an old
path gives the module at its new path, so ``from derive.stack import Stack`` and ``import
derive.torch as dt`` keep working; new code imports the new paths.
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
    "derive.calculator": "derive.render.calculator",
    "derive.torch": "derive.frameworks.pytorch",
    "derive.keras": "derive.frameworks.keras",
}


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
        module = importlib.import_module(MOVED[spec.name])
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
            sys.modules.setdefault(old, sys.modules[new])
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
