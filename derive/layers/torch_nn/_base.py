"""How a ``torch.nn`` class is registered: its signature, its closed form, its registry entry.

Each family module of :mod:`derive.layers.torch_nn` writes a class as a function with torch's own
signature and checks (a "raw" make returning a :class:`derive.tree.Module`) and registers it with
:func:`define`. The registered ``make`` adds what every constructor gives: the arguments it was
made with (``config``, torch's defaults filled in) and a lazy :class:`derive.tree.Formula` — the
same call with each size argument written as an int replaced by its letter (``Linear(256, 10)``:
``I*O + O`` with ``I=256, O=10``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..._sympy import sympy
from ...engine.constructors import Constructor, lookup, register
from ...tree import Formula, Letter, Module

__all__ = ["define", "signature", "bind", "refusing", "REQUIRED", "PREFIXES", "Rebuild", "is_number", "unread"]

#: How torch classes are written: ``LSTM``, ``nn.LSTM``, ``torch.nn.LSTM``.
PREFIXES = ("", "nn.", "torch.nn.")
#: A parameter without a default, in :func:`signature`.
REQUIRED = inspect.Parameter.empty
_P = inspect.Parameter


def signature(*specs: tuple[str, Any] | str) -> inspect.Signature:
    """An :class:`inspect.Signature` from ``("name", default)`` pairs.

    ``"name"`` alone is required; ``"*args"`` / ``"**kwargs"`` are the catch-alls; a name
    written ``"*name"`` is keyword-only.

    Parameters
    ----------
    *specs : str or (str, default)

    Returns
    -------
    inspect.Signature

    Examples
    --------
    >>> str(signature("kernel_size", ("stride", None), ("*bias", True)))
    '(kernel_size, stride=None, *, bias=True)'
    """
    params = []
    for spec in specs:
        name, default = (spec, REQUIRED) if isinstance(spec, str) else spec
        kind: Any = _P.POSITIONAL_OR_KEYWORD
        if name.startswith("**"):
            name, kind = name[2:], _P.VAR_KEYWORD
        elif name.startswith("*") and isinstance(spec, str) and name[1:] in ("args",):
            name, kind = name[1:], _P.VAR_POSITIONAL
        elif name.startswith("*"):
            name, kind = name[1:], _P.KEYWORD_ONLY
        params.append(_P(name, kind, default=default))
    return inspect.Signature(params)


def bind(name: str, sig: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
    """``sig.bind(*args, **kwargs)``, refused in CPython's words for ``<name>.__init__()``.

    Parameters
    ----------
    name : str
        The class name.
    sig : inspect.Signature
    args : tuple
    kwargs : dict

    Returns
    -------
    inspect.BoundArguments

    Raises
    ------
    TypeError
        Too many positional arguments, a missing or unexpected keyword (``self`` counted, as
        CPython counts it).
    """
    try:
        return sig.bind(*args, **kwargs)
    except TypeError as error:
        positional = [p for p in sig.parameters.values() if p.kind == _P.POSITIONAL_OR_KEYWORD]
        if "too many positional" in str(error):
            most = len(positional) + 1
            least = sum(1 for p in positional if p.default is REQUIRED) + 1
            took = (
                f"{most} positional argument{'s' if most > 1 else ''}"
                if least == most
                else f"from {least} to {most} positional arguments"
            )
            raise TypeError(f"{name}.__init__() takes {took} but {len(args) + 1} were given") from None
        raise TypeError(f"{name}.__init__() {error}") from None


def refusing(name: str, sig: inspect.Signature, why: str) -> Callable[..., Module]:
    """A make with torch's signature ``sig`` that binds its arguments, then refuses with ``why``.

    Parameters
    ----------
    name : str
    sig : inspect.Signature
    why : str
        The ValueError's message (a lazy module's inferred size, ...).

    Returns
    -------
    callable
    """

    def make(*args: Any, **kwargs: Any) -> Module:
        bind(name, sig, args, kwargs)
        raise ValueError(why)

    make.__signature__ = sig  # type: ignore[attr-defined]
    make.__doc__ = f"``nn.{name}``: refused ({why.split(';')[0]})."
    return make


def is_number(value: Any) -> bool:
    """Whether ``value`` is a plain int or float (not a bool, not an unread expression)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def unread(value: Any) -> bool:
    """Whether ``value`` is something derive did not evaluate (it has an ``unread_source``)."""
    return isinstance(getattr(value, "unread_source", None), str)


@dataclass(frozen=True)
class Rebuild:
    """A raw make called with letters for the closed form; with the original call if letters fail.

    Attributes
    ----------
    raw : callable
    args : tuple
        The original positional arguments.
    kwargs : tuple of (str, value)
        The original keyword arguments.
    """

    raw: Callable[..., Module]
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def cache_key(self) -> str | None:
        """The raw make's stable name (``"torch.nn.LSTM"``), by which its closed forms are kept
        (:mod:`derive.engine.closed_forms`); None for a make that names none."""
        key = getattr(self.raw, "cache_key", None)
        return key if isinstance(key, str) else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The module made with letters (or, where torch's checks refuse letters, with the numbers).

        Parameters
        ----------
        *args, **kwargs
            The call with letters.

        Returns
        -------
        derive.tree.Module
        """
        try:
            return self.raw(*args, **kwargs)
        except (TypeError, ValueError):
            return self.raw(*self.args, **dict(self.kwargs))


Slots = Callable[[tuple[Any, ...], dict[str, Any]], Mapping[str, tuple[str, Any]]]


@functools.lru_cache(maxsize=1024)
def _signature(raw: Callable[..., Module]) -> inspect.Signature:
    """The raw make's signature, read once (a 1,000-layer model calls the same make 1,000 times)."""
    return inspect.signature(raw)


def _slots(raw: Callable[..., Module], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """Argument name -> ("arg", index) or ("kw", key), from the raw make's signature."""
    names = [
        p.name for p in _signature(raw).parameters.values() if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
    ]
    where: dict[str, tuple[str, Any]] = {n: ("arg", k) for k, n in enumerate(names[: len(args)])}
    for key in kwargs:
        where.setdefault(key, ("kw", key))
    return where


def formula(
    raw: Callable[..., Module],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    letters: Mapping[str, str],
    fixed: Mapping[str, Any],
    slots: Slots | None = None,
) -> Formula:
    """The lazy closed form of ``raw(*args, **kwargs)``: each int size given replaced by its letter.

    The one letter rule of torch's constructors (the command line, the code reader, live objects and
    checkpoints show the same formula): an int size becomes its letter unless it has its
    ``fixed`` value (``num_layers=1``: ``nn.LSTM(10, 20)`` is ``4*H**2 + 4*H*I + 8*H``) or the call
    already uses that letter (``nn.LSTM(32, I)``: its 32 stays 32).

    Parameters
    ----------
    raw : callable
    args : tuple
    kwargs : dict
    letters : mapping of str -> str
        Size argument -> letter, in the order the values are shown.
    fixed : mapping of str -> value
        Arguments that stay numbers at this value (``num_layers=1``, ``proj_size=0``).
    slots : callable, optional
        Where each argument sits in the call (torch's ``LSTM(*args, **kwargs)`` binds its own way).

    Returns
    -------
    derive.tree.Formula
    """
    where = (slots or (lambda a, k: _slots(raw, a, k)))(args, kwargs)
    new_args, new_kwargs = list(args), dict(kwargs)
    used = {str(s) for v in (*args, *kwargs.values()) if isinstance(v, sympy.Basic) for s in v.free_symbols}
    values: list[tuple[str, Any]] = []
    for argument, letter in letters.items():
        if argument not in where:
            continue
        kind, slot = where[argument]
        value = new_args[slot] if kind == "arg" else new_kwargs[slot]
        symbol = Letter(letter)
        if type(value) is not int or fixed.get(argument, object()) == value or letter in used:
            continue
        if kind == "arg":
            new_args[slot] = symbol
        else:
            new_kwargs[slot] = symbol
        values.append((letter, value))
    return Formula(
        Rebuild(raw, tuple(args), tuple(kwargs.items())),
        tuple(new_args),
        tuple(new_kwargs.items()),
        tuple(values),
    )


def _config(raw: Callable[..., Module], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        bound = _signature(raw).bind(*args, **kwargs)
    except TypeError:  # a catch-all signature bound by the make itself
        return {}
    bound.apply_defaults()
    catch_all = {p.name for p in bound.signature.parameters.values() if p.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)}
    return {k: v for k, v in bound.arguments.items() if k not in catch_all}


def define(
    name: str,
    raw: Callable[..., Module],
    *,
    source: str,
    letters: Mapping[str, str] | None = None,
    read: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
    fixed: Mapping[str, Any] | None = None,
    slots: Slots | None = None,
    module_type: str | None = None,
) -> Constructor:
    """Register ``torch.nn.<name>`` (unless a constructor of that name is registered already).

    Parameters
    ----------
    name : str
        The class name.
    raw : callable
        Torch's signature and checks -> :class:`derive.tree.Module` (its ``config`` may hold
        torch's normalised attributes, e.g. ``kernel_size`` as a tuple).
    source : str
        The torch file, e.g. ``"torch/nn/modules/linear.py"``.
    letters : mapping, optional
        Size argument -> letter of the closed form.
    read : callable, optional
        Live module -> (args, kwargs) that remake it.
    fixed : mapping, optional
        See :func:`formula`.
    slots : callable, optional
        See :func:`formula`.
    module_type : str, optional
        ``type(m).__module__`` of the live class (default from ``source``).

    Returns
    -------
    derive.engine.constructors.Constructor
    """
    letters = MappingProxyType(dict(letters or {}))
    fixed = dict(fixed or {})

    made: dict[Any, Module] = {}

    def make(*args: Any, **kwargs: Any) -> Module:
        key = _call_key(args, kwargs)
        if key is not None and key in made:  # the same call again (a tree is immutable): the same module
            return made[key]
        module = raw(*args, **kwargs)
        config = {**_config(raw, args, kwargs), **module.config}
        result = module.replace(
            formula=formula(raw, args, kwargs, letters, fixed, slots), config=MappingProxyType(config)
        )
        if key is not None:
            if len(made) >= 4096:
                made.clear()
            made[key] = result
        return result

    make.__name__ = name
    make.__qualname__ = f"{name}.__init__"
    make.__doc__ = raw.__doc__
    make.__signature__ = inspect.signature(raw)  # type: ignore[attr-defined]
    known = lookup("torch", name)
    if known is not None:
        return known
    module = module_type or source.removesuffix(".py").replace("/", ".")
    return register(Constructor("torch", name, make, PREFIXES, letters, read, (module,), source=source))


def _call_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A key naming a call by its arguments and their types (None when one is unhashable)."""
    key = (tuple((type(a), a) for a in args), tuple(sorted((k, type(v), v) for k, v in kwargs.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key
