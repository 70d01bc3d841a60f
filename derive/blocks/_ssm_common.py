"""What the state-space and linear-attention block modules share: sizes, letters, complex pairs.

Private to :mod:`derive.blocks` (not discovered as a block family): the checks of a size
argument, half a state size, a complex quantity stored as the reference code stores it (a real
tensor with a trailing axis of 2, as ``torch.view_as_real`` makes it) or as one complex tensor,
and the closed form of a block (its builder called again with letters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from ..layers import Spelling
from ..tree import Dim, Formula, Param

__all__ = ["FLAX", "size", "half", "complex_param", "formula", "ratio_of", "times_ratio", "flag"]

#: Flax linen (``flax.linen.Dense``: ``kernel`` (in, out), ``bias``): paths joined by ``/`` as
#: ``flax.traverse_util.flatten_dict(params, sep="/")`` joins them.
FLAX = Spelling("flax", "/", True)


def _symbolic(value: object) -> bool:
    return hasattr(value, "free_symbols")


def size(value: Any, argument: str, *, minimum: int = 1) -> Dim:
    """A size argument as given: an int of at least ``minimum``, or a SymPy expression.

    Parameters
    ----------
    value : int or sympy.Expr
    argument : str
        The argument's name, for the message.
    minimum : int, default 1

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    TypeError
        Not an int (a bool, a float, a string) nor a SymPy expression.
    ValueError
        An int below ``minimum``.

    Examples
    --------
    >>> size(64, "d_state")
    64
    """
    if _symbolic(value):
        return value
    if type(value) is not int:
        raise TypeError(f"{argument} must be an int, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{argument} must be at least {minimum}, got {value}")
    return value


def flag(value: Any, argument: str) -> bool:
    """A boolean option read as Python reads it in an ``if`` (``None`` and ``0`` are false).

    Parameters
    ----------
    value : object
    argument : str

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value that is not a bool, an int or None (a string ``"False"`` is true in Python: refused).
    """
    if value is None or type(value) in (bool, int):
        return bool(value)
    raise TypeError(f"{argument} must be a bool, got {value!r}")


def half(n: Dim) -> Dim:
    """``n // 2`` for an int (as the reference code floors), ``n / 2`` for a letter (N even).

    Parameters
    ----------
    n : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> half(64), half(7)
    (32, 3)
    """
    return n / 2 if _symbolic(n) else n // 2


def complex_param(
    name: str, shape: tuple[Dim, ...], complex_params: bool, *, buffer: bool = False, trainable: bool = True
) -> Param:
    """A complex quantity of ``shape``: stored as a real tensor ``(*shape, 2)`` (the reference
    code's ``torch.view_as_real`` / trailing-2 arrays), or as one complex64 tensor.

    Parameters
    ----------
    name : str
    shape : tuple of int or sympy.Expr
        The complex shape.
    complex_params : bool
        One complex tensor (``numel`` counts each entry once, :attr:`Param.real_scalars` twice).
    buffer, trainable : bool

    Returns
    -------
    derive.tree.Param

    Examples
    --------
    >>> complex_param("C", (4, 8), False).shape, complex_param("C", (4, 8), True).numel
    ((4, 8, 2), 32)
    """
    if complex_params:
        return Param(name, shape, trainable=trainable, buffer=buffer, dtype="complex64", complex=True)
    return Param(name, (*shape, 2), trainable=trainable, buffer=buffer)


def ratio_of(value: Any, argument: str) -> Fraction:
    """An expansion ratio (``expand_k`` 0.5) as an exact fraction of the float given.

    Parameters
    ----------
    value : int or float
    argument : str

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    TypeError
        Not an int or float.
    """
    if type(value) not in (int, float):
        raise TypeError(f"{argument} must be a number, got {value!r}")
    return Fraction(value).limit_denominator(10**6)


def times_ratio(width: Dim, ratio: Any, argument: str) -> Dim:
    """``round(width * ratio)`` as fla computes a key/value width, refused unless whole.

    fla (``fla/layers/gla.py`` 115-118 and the same lines in every layer): ``key_dim =
    round(hidden_size * expand_k)`` with ``assert math.isclose(key_dim, hidden_size * expand_k)``.

    Parameters
    ----------
    width : int or sympy.Expr
    ratio : int or float
    argument : str
        ``"expand_k"``, ...

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        ``width * ratio`` is not an integer (fla's assertion).
    """
    import math

    exact = ratio_of(ratio, argument)
    if _symbolic(width):
        import sympy

        return width * sympy.Rational(exact.numerator, exact.denominator)
    product = width * ratio
    if not math.isclose(product, round(product)):
        raise ValueError(f"`hidden_size * {argument}` must be an integer, got {product}")
    return round(product)


def formula(
    build: Callable[..., Any],
    sizes: Mapping[str, tuple[str, Any]],
    options: Mapping[str, Any],
    positional: tuple[str, ...] = (),
) -> Formula:
    """The closed form of a block: ``build`` called again with a letter for each size.

    Parameters
    ----------
    build : callable
        The block's builder.
    sizes : mapping of str -> (letter, value)
        The size arguments, each with its letter and its value in this block.
    options : mapping
        The other keyword arguments, unchanged.
    positional : tuple of str
        Size arguments passed positionally, in order (the rest by keyword).

    Returns
    -------
    derive.tree.Formula
    """
    from ..engine.symbols import size_symbols

    letters = {arg: size_symbols(letter)[0] for arg, (letter, _) in sizes.items()}
    args = tuple(letters[a] for a in positional)
    kwargs = tuple((a, s) for a, s in letters.items() if a not in positional)
    kwargs += tuple(sorted(options.items()))
    values = tuple((letter, value) for letter, value in sizes.values())
    return Formula(build, args, kwargs, values)
