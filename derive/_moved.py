"""The modules' old import paths (``derive.stack``, ``derive.models.report`` ...) still work, with a warning.

derive was a flat package until 0.2; its modules now live in subpackages, and since 0.3 the readers
of whole models are grouped by the way in (``derive.models`` -> :mod:`derive.read`). Importing an
old path gives the module at its new path and a :class:`DeprecationWarning` naming the new path
and the release that removes the old one (:data:`REMOVED_IN`). Two short paths are kept for good,
without a warning, because users type them: ``import derive.torch as dt`` and ``derive.keras``
(:data:`KEPT`). An old module that also held a name now defined on a higher floor
(``derive.conventions.PYTORCH``, now :data:`derive.frameworks.pytorch.PYTORCH`: the engine imports
no framework) is an alias module that finds that name where it lives now (:data:`EXTRAS`); so is
an old package (``derive.models``), so that importing its old submodules never touches the new
package's attributes.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
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
    # 0.3: the readers of whole models grouped by the way in (derive.models -> derive.read)
    "derive.models": "derive.read",
    "derive.models.report": "derive.read.report",
    "derive.models.row": "derive.read.row",
    "derive.models.source": "derive.read.source",
    "derive.models.pasted": "derive.read.pasted",
    "derive.models.torch_recurrent": "derive.read.torch_recurrent",
    "derive.models.constructor_line": "derive.read.code.constructor_line",
    "derive.models.torch_code": "derive.read.code.pytorch.reader",
    "derive.models.torch_layers": "derive.read.code.pytorch.layers",
    "derive.models.keras_code": "derive.read.code.keras.reader",
    "derive.models.code": "derive.read.code.python",
    "derive.models.configs": "derive.read.configs.pretrained",
    "derive.models.keras_config": "derive.read.configs.keras_config",
    "derive.models.keras_functional": "derive.read.configs.keras_functional",
    "derive.models.keras_nodes": "derive.read.configs.keras_nodes",
    "derive.models.keras_program": "derive.read.configs.keras_program",
    "derive.models.objects": "derive.read.live.objects",
    "derive.models.live_torch": "derive.read.live.pytorch",
    "derive.models.live_keras": "derive.read.live.keras",
    "derive.models.live_blocks": "derive.read.live.blocks",
    "derive.models.checkpoints": "derive.read.files.checkpoints",
    "derive.models.safetensors_format": "derive.read.files.safetensors_format",
    "derive.models.onnx_format": "derive.read.files.onnx_format",
    "derive.models.state_dict": "derive.read.files.state_dict",
    "derive.models.infer": "derive.read.files.infer",
    "derive.models.block_infer": "derive.read.files.block_infer",
    "derive.models.block_shapes": "derive.read.files.block_shapes",
    "derive.models.errors": "derive.read.errors.messages",
    "derive.models.block_errors": "derive.read.errors.blocks",
    "derive.models.block_architecture": "derive.read.errors.architecture",
    "derive.models.code.attributes": "derive.read.code.python.attributes",
    "derive.models.code.builtins": "derive.read.code.python.builtins",
    "derive.models.code.calls": "derive.read.code.python.calls",
    "derive.models.code.core": "derive.read.code.python.core",
    "derive.models.code.expressions": "derive.read.code.python.expressions",
    "derive.models.code.flow": "derive.read.code.python.flow",
    "derive.models.code.frame": "derive.read.code.python.frame",
    "derive.models.code.imported": "derive.read.code.python.imported",
    "derive.models.code.interpreter": "derive.read.code.python.interpreter",
    "derive.models.code.keras_apply": "derive.read.code.keras.apply",
    "derive.models.code.keras_arrays": "derive.read.code.keras.arrays",
    "derive.models.code.keras_construct": "derive.read.code.keras.construct",
    "derive.models.code.keras_graph": "derive.read.code.keras.graph",
    "derive.models.code.keras_inner": "derive.read.code.keras.inner",
    "derive.models.code.keras_layer_api": "derive.read.code.keras.layer_api",
    "derive.models.code.keras_merge": "derive.read.code.keras.merge",
    "derive.models.code.keras_models": "derive.read.code.keras.models",
    "derive.models.code.keras_objects": "derive.read.code.keras.objects",
    "derive.models.code.keras_ops": "derive.read.code.keras.ops",
    "derive.models.code.keras_semantics": "derive.read.code.keras.semantics",
    "derive.models.code.keras_tree": "derive.read.code.keras.tree",
    "derive.models.code.methods": "derive.read.code.python.methods",
    "derive.models.code.operators": "derive.read.code.python.operators",
    "derive.models.code.semantics": "derive.read.code.python.semantics",
    "derive.models.code.statements": "derive.read.code.python.statements",
    "derive.models.code.stdlib": "derive.read.code.python.stdlib",
    "derive.models.code.torch_containers": "derive.read.code.pytorch.containers",
    "derive.models.code.torch_merge": "derive.read.code.pytorch.merge",
    "derive.models.code.torch_modules": "derive.read.code.pytorch.modules",
    "derive.models.code.torch_names": "derive.read.code.pytorch.names",
    "derive.models.code.torch_objects": "derive.read.code.pytorch.objects",
    "derive.models.code.torch_params": "derive.read.code.pytorch.params",
    "derive.models.code.torch_registered": "derive.read.code.pytorch.registered",
    "derive.models.code.torch_semantics": "derive.read.code.pytorch.semantics",
    "derive.models.code.torch_tensors": "derive.read.code.pytorch.tensors",
    "derive.models.code.torch_tree": "derive.read.code.pytorch.tree",
    "derive.models.code.values": "derive.read.code.python.values",
}

#: Old paths kept for good, without a warning: the short paths users type.
KEPT = frozenset({"derive.torch", "derive.keras"})

#: The release that removes the other old paths.
REMOVED_IN = "0.4.0"

#: Old packages: always alias modules (their new package's attributes are never written through them).
PACKAGES = frozenset(old for old in MOVED if any(other.startswith(old + ".") for other in MOVED))

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
    if old not in EXTRAS and old not in PACKAGES:
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
        warn(spec.name, stacklevel=2)
        module = alias(spec.name)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: give the module back its own spec (the import system set the old path's)."""
        spec = module.__spec__
        assert spec is not None  # the import system set it before exec_module
        module.__spec__ = self._specs.pop(spec.name, spec)


def warn(old: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` (a key of :data:`MOVED`) is an old path, unless it is kept (:data:`KEPT`).

    Parameters
    ----------
    old : str
        The old module path.
    stacklevel : int
        Passed to :func:`warnings.warn`.

    Warns
    -----
    DeprecationWarning
        Naming the new path and :data:`REMOVED_IN`.
    """
    if old in KEPT:
        return
    warnings.warn(
        f"{old} is an old path: import {MOVED[old]} (the old path is removed in derive {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def install() -> None:
    """Alias the old paths whose new module is imported already; find the others on demand."""
    for old in KEPT:
        if MOVED[old] in sys.modules:
            sys.modules.setdefault(old, alias(old))
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        # First: an old package path (``derive.models.code``) is its new package, whose directory
        # holds modules under new names only; the path finder must not load them twice under old ones.
        sys.meta_path.insert(0, _Finder())
