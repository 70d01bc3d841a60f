"""Imported names found in the constructor registry: ``from mamba_ssm import Mamba`` names ``mamba_ssm.Mamba``.

The code reader imports nothing: ``from fla.layers import GatedLinearAttention`` binds the dotted
path ``fla.layers.GatedLinearAttention`` (a :class:`~.values.Ref`). This module says which
registered class such a path names, generically, from each
:class:`~derive.engine.constructors.Constructor`'s own ``module_types`` (the modules that define
the class: ``mamba_ssm.modules.mamba_simple``) and ``prefixes`` (the packages that export it:
``mamba_ssm.``). A prefix counts only when it lies in the package of one of the class's
``module_types`` (``fla.layers.``, not the bare ``layers.`` a snippet may write after its own
import), so a module of the user's own named ``layers`` is never taken for fla's.

A registered config class (a constructor whose ``make`` builds the model a transformers model type
registered with :func:`derive.blocks.register_config` builds, ``MambaConfig``) makes the models
of its architecture importable from its package too: ``MambaForCausalLM`` and its base model
``MambaModel`` from ``transformers``, ``RWKV7ForCausalLM`` from ``fla``.

An argument derive does not know reaches a registered ``make`` as an :class:`Unread`: a value that
may be stored or passed on (``device=device``), but whose use — a comparison, arithmetic, a truth
test — raises :class:`Touched`, so that the reader refuses, naming it, instead of guessing.

>>> [c.framework for c in registered("mamba_ssm.Mamba")], registered("layers.GatedLinearAttention")
(['mamba_ssm'], [])
>>> config_class("transformers.MambaConfig").model.architecture
'MambaForCausalLM'
>>> model, part = model_class("transformers.models.mamba.modeling_mamba.MambaModel")
>>> model.model_type, part
('mamba', 'base')
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ....engine.constructors import CONSTRUCTORS, Constructor
from ....tree import Module

if TYPE_CHECKING:
    from ....blocks import ConfigModel

__all__ = [
    "registered",
    "ConfigClass",
    "config_class",
    "config_classes",
    "model_class",
    "base_model_name",
    "Unread",
    "Touched",
    "unread_in",
    "auto_class",
    "imports_registered",
    "class_name",
]

#: Frameworks whose classes the torch code reader reads as its own (``torch.nn``), not through imports.
_NATIVE = frozenset({"torch"})


def _package(path: str) -> str:
    return path.split(".", 1)[0]


def homes(constructor: Constructor) -> frozenset[str]:
    """The module paths an import of ``constructor``'s class may name: its ``module_types`` and the
    prefixes (without their dot) rooted in the same packages.

    Parameters
    ----------
    constructor : Constructor

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> from derive.engine.constructors import lookup
    >>> sorted(homes(lookup("fla", "GatedLinearAttention")))
    ['fla', 'fla.layers', 'fla.layers.gla']
    """
    roots = {_package(m) for m in constructor.module_types}
    rooted = {p[:-1] for p in constructor.prefixes if p.endswith(".") and _package(p) in roots}
    return frozenset(constructor.module_types) | frozenset(rooted)


def _blocks() -> ModuleType:
    """:mod:`derive.blocks`, imported when an import is first resolved (it registers the blocks)."""
    return importlib.import_module("derive.blocks")


def registered(path: str) -> list[Constructor]:
    """The registered classes (of frameworks other than torch) an imported dotted path names.

    Parameters
    ----------
    path : str
        The full path as imported (``"mamba_ssm.modules.mamba2.Mamba2"``).

    Returns
    -------
    list of Constructor
        Usually one; empty when no registered class lives at ``path``.
    """
    module, _, name = path.rpartition(".")
    _blocks()
    return [
        c
        for (framework, cls), c in CONSTRUCTORS.items()
        if cls == name and framework not in _NATIVE and not c.deferred and module in homes(c)
    ]


@dataclass(frozen=True)
class ConfigClass:
    """A registered config class and the model type it configures.

    Attributes
    ----------
    constructor : Constructor
        The config class (``MambaConfig``); its ``make(**kwargs)`` builds the model.
    model : derive.blocks.ConfigModel
        The model type (``architecture`` ``"MambaForCausalLM"``, ``build(config)``).
    """

    constructor: Constructor
    model: ConfigModel

    @property
    def packages(self) -> frozenset[str]:
        """The top-level packages the config class is imported from (``{"transformers"}``)."""
        return frozenset(_package(h) for h in homes(self.constructor))


_CONFIGS: dict[int, list[ConfigClass]] = {}


def config_classes() -> list[ConfigClass]:
    """Every registered config class: a constructor whose ``make()`` (all defaults) builds a
    registered model type's architecture.

    Returns
    -------
    list of ConfigClass
    """
    models = _blocks().CONFIG_MODELS
    key = len(CONSTRUCTORS) + len(models)
    if key not in _CONFIGS:
        by_architecture = {m.architecture: m for m in models.values()}
        found = []
        for c in CONSTRUCTORS.values():
            if c.framework in _NATIVE or c.deferred or not c.name.endswith("Config") or not homes(c):
                continue
            try:
                made = c.make()
            except (TypeError, ValueError):
                continue
            if isinstance(made, Module) and made.type in by_architecture and made.type != c.name:
                found.append(ConfigClass(c, by_architecture[made.type]))
        _CONFIGS.clear()
        _CONFIGS[key] = found
    return _CONFIGS[key]


def config_class(path: str) -> ConfigClass | None:
    """The registered config class an imported path names (``transformers.MambaConfig``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    ConfigClass or None
    """
    found = registered(path)
    return next((c for c in config_classes() if c.constructor in found), None)


def base_model_name(architecture: str) -> str | None:
    """The base model's class of a causal LM (``MambaForCausalLM`` -> ``MambaModel``), or None.

    Parameters
    ----------
    architecture : str

    Returns
    -------
    str or None
    """
    return architecture.removesuffix("ForCausalLM") + "Model" if architecture.endswith("ForCausalLM") else None


def model_class(path: str) -> tuple[ConfigModel, str] | None:
    """The registered model an imported path names, and which part: ``"model"`` (the architecture,
    ``MambaForCausalLM``) or ``"base"`` (``MambaModel``), or None.

    A model class is found by its name in the packages its config class is imported from
    (``transformers.MambaForCausalLM``, ``transformers.models.mamba.modeling_mamba.MambaModel``).

    Parameters
    ----------
    path : str

    Returns
    -------
    (ConfigModel, str) or None
    """
    name = path.rpartition(".")[2]
    for config in config_classes():
        if _package(path) not in config.packages:
            continue
        if name == config.model.architecture:
            return config.model, "model"
        if name == base_model_name(config.model.architecture):
            return config.model, "base"
    return None


#: transformers' Auto classes: what each builds from a config (the model, its base model, the config).
_AUTO = {"AutoModelForCausalLM": "model", "AutoModel": "base", "AutoConfig": "config"}


def auto_class(path: str) -> str | None:
    """``"model"``, ``"base"`` or ``"config"`` for transformers' ``AutoModelForCausalLM``, ``AutoModel``
    and ``AutoConfig`` (at any path in the package), else None.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None
    """
    return _AUTO.get(path.rpartition(".")[2]) if _package(path) == "transformers" else None


def imports_registered(path: str) -> bool:
    """Whether a called path is a registered class, a model class, or one of their construction methods
    (``AutoModelForCausalLM.from_config``).

    Parameters
    ----------
    path : str

    Returns
    -------
    bool
    """
    owner = path.rpartition(".")[0]
    return bool(registered(path) or model_class(path) or auto_class(owner) or model_class(owner))


def class_name(path: str) -> str | None:
    """The class name of a registered class or model class a path names (for ``isinstance``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None
    """
    return path.rpartition(".")[2] if registered(path) or model_class(path) else None


class Touched(BaseException):
    """A registered ``make`` used the value of an :class:`Unread` argument (a BaseException, so that
    no ``except Exception`` of a builder takes it for its own error).

    Parameters
    ----------
    unread : Unread
    """

    def __init__(self, unread: Unread) -> None:
        super().__init__(unread.shown)
        self.unread = unread


class Unread:
    """An argument derive does not know, handed to a registered ``make``: storing or passing it on is
    fine; using its value raises :class:`Touched`.

    Parameters
    ----------
    value : object
        What the code gave (an :class:`~.values.Unknown`, a package's name, one of the code's objects).
    shown : str
        How messages show it.

    Examples
    --------
    >>> lr = Unread(None, "args.lr")
    >>> lr
    args.lr
    >>> try:
    ...     lr == 0.0
    ... except Touched as touched:
    ...     print("used:", touched.unread.shown)
    used: args.lr
    """

    __slots__ = ("value", "shown")

    def __init__(self, value: Any, shown: str) -> None:
        self.value = value
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown

    def _touch(self, *args: Any, **kwargs: Any) -> Any:
        raise Touched(self)

    __str__ = __format__ = __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _touch
    __hash__ = __int__ = __float__ = __index__ = __len__ = __iter__ = __contains__ = __getitem__ = _touch
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _touch
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _touch


def unread_in(module: Module) -> Iterator[Unread]:
    """The :class:`Unread` values a built module holds in a shape or a repeat (a size it took as is).

    Parameters
    ----------
    module : derive.tree.Module

    Yields
    ------
    Unread
    """
    if isinstance(module.repeat, Unread):
        yield module.repeat
    for p in module.params:
        yield from (d for d in p.shape if isinstance(d, Unread))
    for child in module.children:
        yield from unread_in(child)
