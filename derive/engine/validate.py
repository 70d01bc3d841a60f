"""Argument checks shared by the framework adapters.

Each check refuses bad input with the exception type the framework itself
raises for it, and a message that names the argument and what is allowed.
"""

from __future__ import annotations

import keyword
import math
import numbers
from typing import Any, cast

from .._sympy import sympy
from .symbols import Size

__all__ = ["size", "flag", "probability", "choice", "shown"]


def size(name: str, value: Any, *, minimum: int = 1) -> Size:
    """Check a size argument; return it as an int or a SymPy expression.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : int or sympy.Expr
        A Python or NumPy integer (not a bool), or a SymPy expression that may be a
        positive integer (a symbol with unknown assumptions is accepted). A size written as a
        bare name that the pasted line or file never defines (``LSTMCell(num_units=state_size)``:
        what derive read but did not evaluate, its ``unread_source`` an identifier) is that name
        as a positive-integer symbol: the count comes in terms of it, as for a torch line.
    minimum : int
        Smallest allowed value (1 for sizes, 0 for ``proj_size``).

    Raises
    ------
    TypeError
        ``value`` is not an integer (floats, bools, strings, NaN ...), as torch does.
    ValueError
        ``value`` is below ``minimum`` (for a SymPy expression: provably so).
    """
    if isinstance(value, sympy.Basic):
        if (
            not isinstance(value, sympy.Expr)
            or value.is_integer is False
            or value.has(sympy.Float, sympy.nan, sympy.oo, -sympy.oo, sympy.zoo)
        ):
            raise TypeError(f"{name} should be an integer or a SymPy integer expression, got: {shown(value)}")
        if value.is_Integer:
            value = int(value)
        else:
            # provably below the minimum, decided by assumptions: comparing a symbol with a number
            # (value < minimum) would make SymPy import its relational machinery (~25 ms)
            if _below(value, minimum):
                raise ValueError(_too_small(name, minimum))
            return value
    unread = getattr(value, "unread_source", None)
    if isinstance(unread, str) and unread.isidentifier() and not keyword.iskeyword(unread):
        return sympy.Symbol(unread, integer=True, positive=True)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        got = type(value).__name__
        if isinstance(value, float) and math.isnan(value):
            got = "float (nan)"
        elif isinstance(unread := getattr(value, "unread_source", None), str):  # code derive does not evaluate
            got = f"{unread} (not evaluated: derive reads literals, names and size arithmetic only)"
        raise TypeError(f"{name} should be of type int, got: {got}")
    value = int(value)
    if value < minimum:
        raise ValueError(_too_small(name, minimum))
    return value


def _below(value: sympy.Expr, minimum: int) -> bool:
    """Whether ``value`` is provably below ``minimum``, by its assumptions alone (negative for 0,
    at most 0 for a positive minimum): no comparison, which would load SymPy's relational machinery."""
    if minimum > 0:
        return value.is_nonpositive is True
    return minimum == 0 and value.is_negative is True


def _too_small(name: str, minimum: int) -> str:
    if minimum == 0 and name == "proj_size":
        return f"{name} should be a positive integer or zero to disable projections"
    if minimum == 0:
        return f"{name} must be >= 0"
    return f"{name} must be greater than zero"


def positive_number(name: str, value: Any) -> float | int | sympy.Expr:
    """Check a positive real argument (xlstm's ``proj_factor``): an int, a finite float or a SymPy
    expression that may be positive.

    Parameters
    ----------
    name : str
    value : int, float or sympy.Expr

    Returns
    -------
    int, float or sympy.Expr
        ``value`` unchanged (a SymPy integer or rational as itself).

    Raises
    ------
    TypeError
        Not a number (a bool, a string ...).
    ValueError
        Not finite, or not positive (for a SymPy expression: provably so).

    Examples
    --------
    >>> positive_number("proj_factor", 2.0)
    2.0
    """
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr) or value.is_extended_real is False or value.has(sympy.nan, sympy.zoo):
            raise TypeError(f"{name} must be a positive number or a SymPy expression, got {shown(value)}")
        if value.is_positive is False or value.is_finite is False:
            raise ValueError(f"{name} must be a positive finite number, got {shown(value)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)):
        raise TypeError(f"{name} must be a positive number, got {type(value).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def flag(name: str, value: Any) -> bool:
    """Check a boolean argument.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : object
        What the caller passed.

    Returns
    -------
    bool
        ``value``.

    Raises
    ------
    TypeError
        ``value`` is not a ``bool`` (torch refuses ``bias=1`` the same way).
    """
    if not isinstance(value, bool):
        raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    return value


def probability(name: str, value: Any) -> float:
    """Check a probability such as ``dropout``: a real number in [0, 1], not a bool.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : object
        What the caller passed.

    Returns
    -------
    float
        ``value`` as a float.

    As in torch (``RNNBase.__init__`` converts with ``float()`` first), a value that
    ``float()`` cannot take at all (None, a list) is a TypeError; everything else
    that is not a real number in [0, 1] is a ValueError.

    Raises
    ------
    TypeError
        ``value`` is not a number or a string (None, a list, any other object: it is not converted).
    ValueError
        Outside [0, 1], NaN, a bool, a string.
    """
    if not isinstance(value, (numbers.Number, str, bytes, bytearray)):
        # float() would run the object's own __float__: refused without converting it
        raise TypeError(f"{name} should be a number in range [0, 1], got: {type(value).__name__}")
    try:
        float(cast(Any, value))
    except TypeError:
        raise TypeError(f"{name} should be a number in range [0, 1], got: {type(value).__name__}") from None
    except ValueError:
        pass
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= cast(float, value) <= 1:
        raise ValueError(
            f"{name} should be a number in range [0, 1] representing the probability of an element "
            f"being zeroed, got: {shown(value)}"
        )
    return float(value)


def choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """Check that ``value`` is one of ``allowed``.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : object
        What the caller passed.
    allowed : tuple of str
        The accepted strings, named in the message.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        Not one of ``allowed``.
    """
    if not isinstance(value, str) or value not in allowed:
        options = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"Unknown {name} {shown(value)}. Select from {options}.")
    return value


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` for an error message, bounded: a message never echoes a huge value whole.

    An int of more than 60 digits is described by its size (its digits are not even computed:
    Python refuses ``str()`` of ints beyond 4,300 digits); a longer repr keeps its first and last
    characters. Control characters are escaped by ``repr`` itself.

    Parameters
    ----------
    value : object
        What the caller passed.
    limit : int, default 80
        Most characters of the repr shown.

    Returns
    -------
    str
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        digits = int(value.bit_length() * 0.30102999566398) + 1
        return f"{'-' if value < 0 else ''}<an int of about {digits:,} digits>"
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    if len(text) > limit:
        keep = max(limit // 2 - 10, 4)
        text = f"{text[:keep]}...({len(text) - 2 * keep:,} characters)...{text[-keep:]}"
    return text
