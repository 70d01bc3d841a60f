"""Name tables filled by the modules that register into them, each module imported when first asked.

derive's registries — the cells (:data:`derive.engine.registry.CELLS`), the frameworks
(:data:`derive.frameworks.registry.FRAMEWORKS`), the classes users construct
(:data:`derive.engine.constructors.CONSTRUCTORS`), the model types read from a config
(:data:`derive.engine.models.CONFIG_MODELS`), the FLOPs rules of module classes
(:data:`derive.layers.token_flops.RULES`) and the checkpoint readers of block models — are each a
:class:`Registry`: a mapping whose entries are written by the modules that define them, at their
import. :mod:`derive.engine.names` (generated, :func:`build_index`) says which module registers each
name, so a lookup imports that module and nothing else, as transformers' ``_LazyConfigMapping`` and
einops' backends do; ``import derive`` therefore imports no cell, framework, block or family, and
SymPy arrives with the first formula. Iterating a registry (listing every cell, every model type)
imports all of them.

The index is the one answer to "who registers this name": a name it does not hold is not registered
(a lookup of a user's own class imports nothing). ``tests/engine/test_lazy.py`` rebuilds it in a
fresh process and fails, until ``scripts/update-index`` rewrites it, when a module registers a name
the index does not list.

This module imports nothing of :mod:`derive`: the index is read by name.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Hashable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

__all__ = ["Registry", "PACKAGES", "REGISTRIES", "load_everything", "build_index", "recording"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: The packages whose modules register into the tables, walked by :func:`load_everything`.
PACKAGES = (
    "derive.cells",
    "derive.blocks",
    "derive.families",
    "derive.frameworks",
    "derive.layers",
    "derive.read",
    "derive.render",
)

#: The packages whose modules a registry's convention may name (a family's, a block's model type).
CONVENTION_PACKAGES = ("derive.blocks", "derive.families")

#: Every registry, by table name (filled as each is made).
REGISTRIES: dict[str, Registry[Any, Any]] = {}

#: While :func:`build_index` runs: table name -> index key -> the modules that registered it.
_RECORD: dict[str, dict[str, list[str]]] | None = None
#: While :func:`build_index` runs: the registering modules in the order each first registers.
_FIRST: list[str] = []
_LOADED_ALL = False
_LOADING = False


def _registering_module() -> str | None:
    """The ``derive`` module whose import is registering (the nearest module-level frame up the stack)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "<module>":
            name = frame.f_globals.get("__name__", "")
            if name.startswith("derive."):
                return str(name)
        frame = frame.f_back  # type: ignore[assignment]
    return None


class Registry(MutableMapping[K, V], Generic[K, V]):
    """A registry: ``key -> entry``, each entry written by the module that defines it, imported on first use.

    Parameters
    ----------
    name : str
        The table's name in :mod:`derive.engine.names` (``"cells"``, ``"constructors"``).
    index_key : callable, optional
        The index key a lookup of a registry key loads (``"torch:LSTM"`` for the key
        ``("torch", "LSTM")``); default the key itself, which must then be a string.
    index_keys : callable, optional
        ``index_keys(key, entry)``: every index key under which the module registering the entry
        is recorded (a constructor's ``"torch:LSTM"`` and each spelling users write, ``"nn.LSTM"``,
        ``"torch.nn.LSTM"``); default ``(index_key(key),)``.
    order : callable, optional
        ``order(entries) -> entries``: the order iteration gives once everything is loaded (the
        frameworks' display order); default registration order.
    convention : callable, optional
        ``convention(index_key) -> module or None``: the module a name is registered by when the
        index does not list it (a family's ``model_type`` names its module, ``qwen3`` ->
        ``derive.families.qwen3``); :func:`build_index` leaves out of the index what the convention
        finds, so that a new family that follows it needs no index entry.

    Examples
    --------
    >>> from derive.engine.registry import CELLS
    >>> CELLS["LSTM"].title   # imports derive.cells.lstm_cell, and no other cell
    'LSTM'
    """

    def __init__(
        self,
        name: str,
        *,
        index_key: Callable[[K], str] | None = None,
        index_keys: Callable[[K, V], tuple[str, ...]] | None = None,
        order: Callable[[dict[K, V]], dict[K, V]] | None = None,
        convention: Callable[[str], str | None] | None = None,
    ) -> None:
        self.name = name
        self._data: dict[K, V] = {}
        self._index_key: Callable[[K], str] = index_key or (lambda key: key)  # type: ignore[assignment,return-value]
        self._index_keys = index_keys or (lambda key, value: (self._index_key(key),))
        self._order = order
        self.convention = convention
        self._complete = False
        REGISTRIES[name] = self

    # --- loading -------------------------------------------------------------------------------
    def modules_of(self, name: str) -> tuple[str, ...]:
        """The modules that register ``name`` (an index key): the index's, else the convention's.

        Parameters
        ----------
        name : str

        Returns
        -------
        tuple of str
        """
        from . import names as index

        table: dict[str, tuple[str, ...]] = index.TABLES.get(self.name, {})
        listed = table.get(name)
        if listed is not None:
            return listed
        guessed = self.convention(name) if self.convention is not None else None
        return (guessed,) if guessed is not None and _exists(guessed) else ()

    def load(self, name: str) -> None:
        """Import the modules that register index key ``name`` (nothing when none does).

        Parameters
        ----------
        name : str
        """
        for module in self.modules_of(name):
            if module not in sys.modules:
                importlib.import_module(module)

    def load_all(self) -> None:
        """Import every module that registers into any table (then this one is complete).

        The entries are then in one order whatever was asked first: by their module's place in a
        whole load (:data:`derive.engine.names.ORDER`), in registration order within a module, or
        by the registry's own ``order``.
        """
        if self._complete:
            return
        from . import names as index

        table = index.TABLES.get(self.name)
        if table is None or _RECORD is not None:  # no index yet (it is being built): every module
            if _LOADING:  # asked while a whole load runs (a module iterating a table at its import)
                return
            load_everything()
        else:
            for modules in table.values():
                for module in modules:
                    if module not in sys.modules:
                        importlib.import_module(module)
            for module in self._by_convention():  # the modules the convention finds, not listed
                if module not in sys.modules:
                    importlib.import_module(module)

        ordered = dict(sorted(self._data.items(), key=lambda kv: self.rank(kv[0])))
        if self._order is not None:
            ordered = self._order(ordered)
        self._data.clear()
        self._data.update(ordered)
        self._complete = True

    def rank(self, key: K) -> tuple[int, str]:
        """Where ``key``'s entry comes in a whole load: its module's place in :data:`derive.engine.names.ORDER`,
        then the module's name (the modules a convention finds, which the index does not list, come after
        the listed ones, by name). Entries of one module keep their registration order when sorted by it
        (a stable sort).

        Parameters
        ----------
        key : hashable

        Returns
        -------
        (int, str)
        """
        from . import names as index

        rank = _ranks(index.ORDER)
        try:
            modules = self.modules_of(self._index_key(key))
        except (TypeError, ValueError, IndexError):
            modules = ()
        return min(((rank.get(m, len(rank)), m) for m in modules), default=(len(rank), ""))

    def _find(self, key: K) -> None:
        if key in self._data or self._complete:
            return
        try:
            name = self._index_key(key)
        except (TypeError, ValueError, IndexError):
            return
        if isinstance(name, str):
            self.load(name)

    # --- mapping -------------------------------------------------------------------------------
    def __getitem__(self, key: K) -> V:
        self._find(key)
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        try:
            self._find(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable key is in no table
            return False
        return key in self._data

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = value
        if _RECORD is not None:
            module = _registering_module()
            if module is not None:
                if module not in _FIRST:
                    _FIRST.append(module)
                table = _RECORD.setdefault(self.name, {})
                for name in self._index_keys(key, value):
                    listed = table.setdefault(name, [])
                    if module not in listed:
                        listed.append(module)

    def __delitem__(self, key: K) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[K]:
        self.load_all()
        return iter(list(self._data))

    def __len__(self) -> int:
        self.load_all()
        return len(self._data)

    def loaded(self) -> dict[K, V]:
        """The entries registered so far, without importing anything (a snapshot).

        Returns
        -------
        dict
        """
        return dict(self._data)

    def __repr__(self) -> str:
        return f"Registry({self.name!r}, {len(self._data)} loaded{', complete' if self._complete else ''})"

    def _by_convention(self) -> list[str]:
        """Every module of the packages conventions apply to (:data:`CONVENTION_PACKAGES`): the index
        leaves out the names a convention finds, so listing them all takes every such module."""
        if self.convention is None:
            return []
        found = []
        for package in CONVENTION_PACKAGES:
            spec = importlib.util.find_spec(package)
            for info in pkgutil.iter_modules(list(spec.submodule_search_locations or ())) if spec else ():
                module = f"{package}.{info.name}"
                if not info.name.startswith("_"):
                    found.append(module)
        return found


@functools.lru_cache(maxsize=4)
def _ranks(order: tuple[str, ...]) -> dict[str, int]:
    return {module: i for i, module in enumerate(order)}


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def load_everything() -> None:
    """Import every module of :data:`PACKAGES` (each registers its names into the tables)."""
    global _LOADED_ALL, _LOADING
    if _LOADED_ALL or _LOADING:
        return
    _LOADING = True
    try:
        for package in PACKAGES:
            _walk(importlib.import_module(package))
    finally:
        _LOADING = False
    _LOADED_ALL = True


def _walk(package: Any) -> None:
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") and info.name not in ("_base",):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if info.ispkg:
            _walk(module)


class recording:
    """Context: record which module registers each name (used by :func:`build_index` only)."""

    def __enter__(self) -> dict[str, dict[str, list[str]]]:
        global _RECORD
        _RECORD = {}
        return _RECORD

    def __exit__(self, *exc: object) -> None:
        global _RECORD
        _RECORD = None


def build_index() -> tuple[dict[str, dict[str, tuple[str, ...]]], tuple[str, ...]]:
    """Import every registering module, recording who registers what: the tables of :mod:`derive.engine.names`.

    Run it in a fresh process (``scripts/update-index``): a module imported before it runs records
    nothing.

    Returns
    -------
    (dict, tuple of str)
        Table name -> index key -> the modules that register it; and the registering modules in the
        order a whole load first imports them (:data:`derive.engine.names.ORDER`).

    Raises
    ------
    RuntimeError
        A registering module was imported before (its names would go unrecorded).
    """
    already = [m for m in sys.modules if m.startswith(PACKAGES)]
    if already:
        raise RuntimeError(f"build_index needs a fresh process: {sorted(already)[:5]} are imported already")
    _FIRST.clear()
    with recording() as record:
        load_everything()
    tables: dict[str, dict[str, tuple[str, ...]]] = {}
    for table, keys in sorted(record.items()):
        convention = REGISTRIES[table].convention
        tables[table] = {
            k: tuple(v)
            for k, v in sorted(keys.items())
            if not (convention is not None and len(v) == 1 and convention(k) == v[0])
        }
    # the order lists the modules the tables name; a module all of whose names a convention finds is found
    # (and ranked, by name) without an entry, so a new family named as its model type changes no index
    listed = {m for keys in tables.values() for modules in keys.values() for m in modules}
    return tables, tuple(m for m in _FIRST if m in listed)
