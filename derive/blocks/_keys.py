"""Reading a model config's keys: defaults, checks that name the key, and the closed form's letters.

A config reaches a block builder as a mapping of its keys (``config.json`` read, a dict, or a
``PretrainedConfig``'s ``to_dict()``). A key that is absent or ``null`` takes the config class's
default; a value derive cannot use (a string where a size belongs, a negative width) is refused with
a ValueError naming the key. Sizes may be SymPy expressions (the closed form is the builder called
again with letters in place of the sizes: :func:`formula`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import Any

from ..tree import Dim, Formula, Letter, Module, letters_to_symbols

__all__ = [
    "value",
    "size",
    "flag",
    "number",
    "formula",
    "recipe",
    "symbol",
    "is_int",
    "Letter",
    "letters_to_symbols",
    "config_constructor",
]


def is_int(x: object) -> bool:
    """Whether ``x`` is a plain int (not a bool, not a SymPy expression)."""
    return type(x) is int


def value(config: Mapping[str, Any], key: str, default: Any) -> Any:
    """``config[key]``, or ``default`` when the key is absent or ``None`` (``null`` in JSON).

    Parameters
    ----------
    config : mapping
    key : str
    default : object

    Returns
    -------
    object
    """
    got = config.get(key)
    return default if got is None else got


def _symbolic(x: object) -> bool:
    """Whether ``x`` is a SymPy expression with symbols (a size of a closed form; a SymPy integer is a number)."""
    return bool(getattr(x, "free_symbols", None))


def size(config: Mapping[str, Any], key: str, default: Any, *, minimum: int = 1) -> Dim:
    """A size key: an int of at least ``minimum``, or a SymPy expression (a letter of the closed form).

    Parameters
    ----------
    config : mapping
    key : str
    default : int or sympy.Expr
        Used when the key is absent or ``None``.
    minimum : int, default 1

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Not an integer (a float, a string, a bool), or below ``minimum``; the message names the key.

    Examples
    --------
    >>> size({"hidden_size": 768}, "hidden_size", 4096), size({}, "hidden_size", 4096)
    (768, 4096)
    """
    got = value(config, key, default)
    if getattr(got, "is_Integer", False):
        got = int(got)
    elif getattr(got, "is_number", False):  # a SymPy Rational or Float
        raise ValueError(f"config key {key!r} must be an integer size, got {got}")
    if _symbolic(got):
        if getattr(got, "is_integer", None) is False:
            raise ValueError(f"config key {key!r} must be an integer size, got {got}")
        return got
    if isinstance(got, bool) or not isinstance(got, numbers.Integral):
        raise ValueError(f"config key {key!r} must be an integer, got {type(got).__name__} {got!r:.60}")
    if got < minimum:
        raise ValueError(f"config key {key!r} must be at least {minimum}, got {got}")
    return int(got)


def flag(config: Mapping[str, Any], key: str, default: bool) -> bool:
    """A boolean key (``tie_word_embeddings``, ``attention_bias``).

    Parameters
    ----------
    config : mapping
    key : str
    default : bool

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        Not a bool; the message names the key.
    """
    got = value(config, key, default)
    if not isinstance(got, bool):
        raise ValueError(f"config key {key!r} must be true or false, got {type(got).__name__} {got!r:.60}")
    return got


def number(config: Mapping[str, Any], key: str, default: float) -> float:
    """A positive real key (``hidden_ratio``, ``expand_k``).

    Parameters
    ----------
    config : mapping
    key : str
    default : float

    Returns
    -------
    float or int

    Raises
    ------
    ValueError
        Not a positive finite number; the message names the key.
    """
    got = value(config, key, default)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not 0 < got < float("inf"):
        raise ValueError(f"config key {key!r} must be a positive number, got {got!r:.60}")
    return got


def symbol(letter: str) -> Any:
    """The positive-integer SymPy symbol ``letter`` (SymPy imported here, only for closed forms).

    Parameters
    ----------
    letter : str

    Returns
    -------
    sympy.Symbol
    """
    import sympy

    return sympy.Symbol(letter, integer=True, positive=True)


def _hashable(x: Any) -> Any:
    """Lists as tuples (so that equal recipes share one cached closed form); a dict stays as it is."""
    return tuple(x) if isinstance(x, list) else x


def _rebuild(build: Callable[[Mapping[str, Any]], Module], pairs: tuple[tuple[str, Any], ...]) -> Module:
    config = {}
    for key, raw in pairs:
        got = letters_to_symbols(raw)
        config[key] = list(got) if isinstance(got, tuple) else got
    return build(config)


def formula(
    build: Callable[[Mapping[str, Any]], Module], config: Mapping[str, Any], letters: Mapping[str, str]
) -> Formula:
    """The closed form of ``build(config)``: each size key of ``letters`` given an int in ``config``
    becomes its letter; the others keep their value (absent keys keep their defaults, which may be
    expressions of the letters, as ``intermediate_size = 4·hidden_size``).

    Parameters
    ----------
    build : callable
        ``build(config) -> Module``.
    config : mapping
        The config as given.
    letters : mapping of str -> str
        Config key -> letter (``{"hidden_size": "D"}``).

    Returns
    -------
    derive.tree.Formula
    """
    pairs = []
    values = []
    for key, raw in config.items():
        if key in letters and is_int(raw) and raw > 0:  # a letter is a positive integer
            pairs.append((key, Letter(letters[key])))
            values.append((letters[key], raw))
        else:
            pairs.append((key, _hashable(raw)))
    return Formula(_rebuild, args=(build, tuple(pairs)), values=tuple(values))


def _call(build: Callable[..., Module], pairs: tuple[tuple[str, Any], ...]) -> Module:
    return build(**{key: letters_to_symbols(raw) for key, raw in pairs})


def recipe(
    build: Callable[..., Module], sizes: Mapping[str, Any], letters: Mapping[str, str], **options: Any
) -> Formula:
    """The closed form of ``build(**sizes, **options)``, each size named in ``letters`` as its letter.

    Parameters
    ----------
    build : callable
        A block builder taking keyword arguments.
    sizes : mapping of str -> int or sympy.Expr
        The size arguments and their values.
    letters : mapping of str -> str
        Argument -> letter.
    **options
        The other (hashable) arguments, passed unchanged.

    Returns
    -------
    derive.tree.Formula
    """
    pairs: list[tuple[str, Any]] = []
    values: list[tuple[str, Any]] = []
    for key, raw in sizes.items():
        if key in letters and not (is_int(raw) and raw < 1):  # a letter is a positive integer
            pairs.append((key, Letter(letters[key])))
            values.append((letters[key], raw))
        else:
            pairs.append((key, raw))
    pairs += sorted(options.items())
    return Formula(_call, args=(build, tuple(pairs)), values=tuple(values))


def config_constructor(name: str, build: Callable[[Mapping[str, Any]], Module]) -> Callable[..., Module]:
    """A config class as users write it (``RwkvConfig(hidden_size=768, ...)``): keyword arguments
    only, the model ``from_config`` builds.

    Parameters
    ----------
    name : str
        The class name, for the message.
    build : callable
        ``build(config) -> Module``.

    Returns
    -------
    callable
        ``make(**kwargs) -> Module``; positional arguments raise TypeError.
    """

    def make(*args: Any, **kwargs: Any) -> Module:
        if args:
            raise TypeError(f"{name} accepts only keyword arguments")
        return build(kwargs)

    make.__doc__ = f"``{name}(**kwargs)``: the model its ``from_config`` builds."
    return make
