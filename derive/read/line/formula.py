"""The closed form the command line shows for a torch or Keras constructor, in the user's own symbols.

Literal int sizes are generalized to ``I``, ``H``, ``L``, ``P`` by the letter rule of torch's
registered constructors (the one :func:`derive.explain` shows), only where the user did not write
that symbol, and a formula is shown only if, at the values shown, it equals the count.
"""

from __future__ import annotations

from typing import Any

from ..._sympy import sympy
from ...engine.closed_forms import ClosedForm, table_form
from ...engine.constructors import lookup
from ...frameworks import pytorch as dt
from .parse import SYMBOLS, _Call

__all__ = ["torch_formula", "keras_formula", "user_symbols", "instantiate"]


def instantiate(call: _Call, keras: bool) -> Any:
    """An object of the class named in ``call`` (``derive.torch``'s, or ``derive.keras``' with ``keras``).

    Parameters
    ----------
    call : derive.read.line.parse._Call
    keras : bool

    Returns
    -------
    object

    Raises
    ------
    TypeError, ValueError
        The adapter's refusal of the arguments.
    """
    if keras:
        from ...frameworks import keras as dk

        def make(value: Any) -> Any:
            if isinstance(value, _Call):
                return instantiate(value, True)
            if isinstance(value, list):
                return [make(v) for v in value]
            return value

        cls = getattr(dk, call.name)
        return cls(*[make(a) for a in call.args], **{k: make(v) for k, v in call.kwargs.items()})
    return getattr(dt, call.name)(*call.args, **call.kwargs)


def user_symbols(value: object) -> set[sympy.Symbol]:
    """The size symbols written anywhere in a parsed constructor (nested calls and lists included).

    Parameters
    ----------
    value : derive.read.line.parse._Call, list, tuple or value

    Returns
    -------
    set of sympy.Symbol
    """
    if isinstance(value, _Call):
        found: set[sympy.Symbol] = set()
        for item in [*value.args, *value.kwargs.values()]:
            found |= user_symbols(item)
        return found
    if isinstance(value, (list, tuple)):
        return set().union(*(user_symbols(v) for v in value)) if value else set()
    if isinstance(value, sympy.Basic):
        return set(value.free_symbols)
    return set()


def _by_symbol(values: dict[str, int]) -> dict[sympy.Symbol, int]:
    """``{"I": 32}`` as ``{I: 32}``: names are looked up, never parsed (``"I"`` to SymPy is sqrt(-1))."""
    return {SYMBOLS[name]: value for name, value in values.items()}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def torch_formula(call: _Call, count: sympy.Expr) -> tuple[sympy.Expr | ClosedForm, dict[str, int]]:
    """The count with the literal int sizes as I, H, L, P, and the values they take.

    The letters are those of torch's registered constructor (:func:`derive.engine.constructors.lookup`),
    the one rule every reader shows (``num_layers=1`` and ``proj_size=0`` stay numbers; a letter the
    user wrote is not introduced: ``nn.LSTM(32, I)`` has hidden size I, so its 32 stays 32).

    Parameters
    ----------
    call : derive.read.line.parse._Call
    count : sympy.Expr
        The count of the call as written.

    Returns
    -------
    (sympy.Expr or derive.engine.closed_forms.ClosedForm, dict)
        The formula and the values of its letters (the count and {} when none applies): the kept form
        (:func:`derive.engine.closed_forms.table_form`, no SymPy) where the table holds the line's recipe.
    """
    constructor = lookup("torch", call.name)
    if constructor is None:
        return count, {}
    try:
        formula = constructor.make(*call.args, **call.kwargs).formula
        values = dict(formula.values) if formula is not None else {}
        if formula is None or not values:
            return count, {}
        kept = table_form(formula) if type(count) is int else None
        if kept is not None:  # never show a formula that disagrees
            return (kept, values) if kept.at(values) == count else (count, {})
        symbolic = formula.expr
    except (TypeError, ValueError):  # a check the letters cannot pass: show the count as given
        return count, {}
    if sympy.expand(symbolic.subs(_by_symbol(values)) - count) != 0:  # never show a formula that disagrees
        return count, {}
    return symbolic, values


def _keras_units(call: _Call, found: list[int]) -> _Call:
    """A copy of ``call`` with every layer's ``units`` (first argument) replaced by H; values in ``found``."""

    def walk(value: Any) -> Any:
        if isinstance(value, _Call):
            return _keras_units(value, found)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    from ...engine.symbols import H

    args = [walk(a) for a in call.args]
    kwargs = {k: walk(v) for k, v in call.kwargs.items()}
    if call.name in ("SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell", "CuDNNLSTM", "CuDNNGRU"):
        if args and _is_int(args[0]):
            found.append(args[0])
            args[0] = H
        elif _is_int(kwargs.get("units")):
            found.append(kwargs["units"])
            kwargs["units"] = H
    return _Call(call.name, args, kwargs)


def keras_formula(call: _Call, input_dim: int, count: sympy.Expr) -> tuple[sympy.Expr, dict[str, int]]:
    """The count with the input width as I and, if every layer has the same int units, those as H.

    As for torch, only symbols the user did not write are introduced.

    Parameters
    ----------
    call : derive.read.line.parse._Call
    input_dim : int
    count : sympy.Expr

    Returns
    -------
    (sympy.Expr, dict)
    """
    from ...engine.symbols import H, I, as_expr
    from ...frameworks import keras as dk

    used = user_symbols(call)
    width = input_dim if I in used else I
    values = {} if I in used else {"I": input_dim}
    candidates: list[tuple[_Call, dict[str, int]]] = []
    if H not in used:
        found: list[int] = []
        symbolic = _keras_units(call, found)
        if found and len(set(found)) == 1:
            candidates.append((symbolic, {**values, "H": found[0]}))
    candidates.append((call, values))
    for candidate, shown in candidates:
        try:
            formula = dk.count(instantiate(candidate, True), width)
        except (TypeError, ValueError):
            continue
        if sympy.expand(as_expr(formula).subs(_by_symbol(shown)) - count) == 0:
            return formula, shown
    return count, {}
