"""The constructors users write, by framework and class name: what they build in the module tree.

Every framework mirror (:mod:`derive.frameworks`), primitive (:mod:`derive.layers`) and block
(:mod:`derive.blocks`) registers the classes users construct — ``torch.nn.LSTM``,
``keras.layers.Dense``, ``mamba_ssm.Mamba``, ``hk.LSTM`` — with :func:`register`; the command line,
the code reader and the live-object reader find them here with :func:`find` and :func:`lookup`.
This module imports nothing of :mod:`derive` above the engine.

A constructor's ``make`` takes the class's own arguments, bound as the framework binds them
(positional order, defaults, keyword-only), and returns either a :class:`derive.tree.Module` (the
sizes are all known: torch, mamba_ssm) or an object with ``build(input_shape) -> (Module,
output_shape)`` (Keras, Flax, Haiku: the input width is known only when the layer is applied).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .lazy import Registry

__all__ = ["Constructor", "CONSTRUCTORS", "register", "lookup", "find", "frameworks", "family_module"]


@dataclass(frozen=True)
class Constructor:
    """A class users construct, and how derive builds it.

    Attributes
    ----------
    framework : str
        The framework's key (``"torch"``, ``"keras"``, ``"mamba_ssm"``, ``"transformers"``,
        ``"haiku"``, ...).
    name : str
        The class name as written (``"LSTM"``, ``"Mamba"``).
    make : callable
        ``make(*args, **kwargs)``: the class's arguments as the framework takes them ->
        :class:`derive.tree.Module`, or a layer to ``build(input_shape)``; raises TypeError /
        ValueError worded like the framework for arguments it refuses.
    prefixes : tuple of str
        The dotted prefixes it is written with (``("nn.", "torch.nn.")``); ``""`` allows the bare name.
    letters : mapping of str -> str
        Size arguments and the letters of the closed form (``{"in_features": "I", "out_features": "O"}``).
    read : callable or None
        ``read(obj) -> (args, kwargs)``: the arguments that remake a live object of the class
        (read from its attributes or config, never its weights), or None.
    module_types : tuple of str
        The Python module paths of the live classes (``("torch.nn.modules.rnn",)``), matched against
        ``type(obj).__module__`` by the live-object reader.
    deferred : bool
        ``make`` returns a layer that needs its input shape (Keras-style) rather than a Module.
    source : str
        The framework file the signature and tensors are read from.
    asked_prefixes : tuple of str
        Prefixes that name it only where its framework is asked for (``--framework``,
        ``framework=``): Flax linen's ``nn.Sequential``, which on a line of no stated framework is
        PyTorch's.
    """

    framework: str
    name: str
    make: Callable[..., Any]
    prefixes: tuple[str, ...] = ("",)
    letters: Mapping[str, str] = field(default_factory=dict)
    read: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]] | None = None
    module_types: tuple[str, ...] = ()
    deferred: bool = False
    source: str = ""
    asked_prefixes: tuple[str, ...] = ()


def _spellings(key: tuple[str, str], constructor: Constructor) -> tuple[str, ...]:
    """The index keys of a constructor: ``"framework:Name"`` and every way it is written (``"nn.LSTM"``)."""
    written = {prefix + constructor.name for prefix in (*constructor.prefixes, *constructor.asked_prefixes)}
    return (f"{key[0]}:{key[1]}", *sorted(written))


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def family_module(spelling: str) -> str | None:
    """The module a transformers config class is registered by, by convention: ``Qwen3MoeConfig`` ->
    ``derive.families.qwen3_moe`` (the class name less ``Config``, in snake case: its ``model_type``).

    Parameters
    ----------
    spelling : str
        An index key of :data:`CONSTRUCTORS` (``"transformers:Qwen3Config"``, ``"Qwen3Config"``,
        ``"transformers.models.qwen3.Qwen3Config"``).

    Returns
    -------
    str or None
        None for a name that is no config class's.

    Examples
    --------
    >>> family_module("DeepseekV3Config"), family_module("transformers.models.qwen3.Qwen3_5MoeConfig")
    ('derive.families.deepseek_v3', 'derive.families.qwen3_5_moe')
    >>> family_module("SmolLM3Config")
    'derive.families.smollm3'
    >>> family_module("nn.LSTM") is None
    True
    """
    name = spelling.rpartition(":")[2].rpartition(".")[2]
    if spelling.startswith(("transformers:", "transformers.")) or spelling == name:
        if name.endswith("Config") and len(name) > 6:
            snake = _CAMEL.sub("_", name[:-6]).lower()
            if not snake.isidentifier():
                return None
            # the class name lowered whole where its capitals are no word's (SmolLM3Config: smollm3)
            whole = name[:-6].lower()
            if whole != snake.replace("_", "") or _module_exists(f"derive.families.{snake}"):
                return f"derive.families.{snake}"
            return (
                f"derive.families.{whole}" if _module_exists(f"derive.families.{whole}") else f"derive.families.{snake}"
            )
    return None


def _module_exists(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


#: Every registered constructor, by (framework, class name): a framework's (or block's, family's)
#: module is imported when one of its classes is first looked up (:class:`derive.engine.lazy.Registry`,
#: by ``"framework:Name"``; :func:`find` by the spelling written).
CONSTRUCTORS: Registry[tuple[str, str], Constructor] = Registry(
    "constructors", index_key=lambda key: f"{key[0]}:{key[1]}", index_keys=_spellings, convention=family_module
)


def register(constructor: Constructor) -> Constructor:
    """Add ``constructor`` under (framework, name).

    Parameters
    ----------
    constructor : Constructor

    Returns
    -------
    Constructor
        Unchanged.

    Raises
    ------
    ValueError
        The (framework, name) pair is registered already.
    """
    key = (constructor.framework, constructor.name)
    if key in CONSTRUCTORS.loaded():
        raise ValueError(f"constructor {constructor.framework} {constructor.name} is registered already")
    CONSTRUCTORS[key] = constructor
    return constructor


def lookup(framework: str, name: str) -> Constructor | None:
    """The constructor of ``name`` in ``framework``, or None.

    Parameters
    ----------
    framework, name : str

    Returns
    -------
    Constructor or None
    """
    return CONSTRUCTORS.get((framework, name))


def find(dotted: str, framework: str | None = None) -> list[Constructor]:
    """The constructors a dotted name as written may mean (``"nn.LSTM"``, ``"layers.Dense"``).

    Parameters
    ----------
    dotted : str
        The called name as written.
    framework : str, optional
        Only this framework's.

    Returns
    -------
    list of Constructor
        Those whose class name ends ``dotted`` and one of whose prefixes is what precedes it (a
        class name may itself be dotted: MXNet's ``sym.RNN``, written ``mx.sym.RNN``), or one of
        its ``asked_prefixes`` where ``framework`` is given.
    """
    CONSTRUCTORS.load(dotted)
    found = [
        (key, c)
        for key, c in CONSTRUCTORS.loaded().items()
        if dotted.endswith(key[1])
        and (framework is None or key[0] == framework)
        and (
            dotted[: len(dotted) - len(key[1])] in c.prefixes
            or (framework is not None and dotted[: len(dotted) - len(key[1])] in c.asked_prefixes)
        )
    ]
    return [
        c for _, c in sorted(found, key=lambda kc: CONSTRUCTORS.rank(kc[0]))
    ]  # one order, whatever was loaded first


def frameworks() -> list[str]:
    """The framework keys that have constructors, in registration order.

    Returns
    -------
    list of str
    """
    return list(dict.fromkeys(fw for fw, _ in CONSTRUCTORS))
