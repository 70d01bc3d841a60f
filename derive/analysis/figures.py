"""The figures of a cost, exact: ints for int sizes, SymPy once a size is symbolic; the dtypes' widths.

A cost (:func:`derive.analysis.cost.cost`) is asked at ``seq_len`` T and ``batch`` N: positive ints, or
SymPy integer expressions (the defaults, ``SYMBOLIC_T`` and ``SYMBOLIC_N`` of :mod:`derive.analysis.cost`,
stand for the symbols T and N and make them only when used, so that the answer is a closed form). Its
closed forms are in T, N and the model's own letters (:func:`lettered`).

**No SymPy is imported until a closed form is asked for** (a symbolic size, the default T and N,
:meth:`derive.analysis.cost.Cost.closed_forms`, a stack's equations): with int sizes every figure of a
model is plain integer arithmetic. The helpers here keep to that: :func:`plain`, :func:`times` and
:func:`total` give ints for ints and import SymPy only for a value that already is SymPy (an int
times a SymPy expression is one), and :func:`json_value` writes either for JSON. ``tests/analysis/test_served.py``
(``test_cost_imports_no_sympy``) holds it in a fresh process.

The model's ``dtype`` prices its parameters (:data:`DTYPE_BYTES`: torch's element sizes,
``torch.empty(0, dtype=...).element_size()``, which ``tests/analysis/test_cost.py`` holds them to); a
cache's tensors are priced in the formats of :mod:`derive.analysis.served`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..tree import Module

__all__ = [
    "DTYPE_BYTES",
    "STATE_BYTES",
    "ints",
    "is_sympy",
    "plain",
    "json_value",
    "times",
    "total",
    "lettered",
]

#: Bytes per element of each supported dtype of the weights (``dtype``).
DTYPE_BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}

#: Bytes per entry of the dtypes a cache keeps its tensors in (a counter is int64).
STATE_BYTES = {**DTYPE_BYTES, "int64": 8}


def is_sympy(value: Any) -> bool:
    """Whether ``value`` is a SymPy object, told by its type's module: SymPy is not imported to ask.

    Parameters
    ----------
    value : object
        A figure or a size (an int, None, a SymPy expression).

    Returns
    -------
    bool
        True for any SymPy object (its ``Integer`` among them), False for a Python int or None.
    """
    return type(value).__module__.startswith("sympy")


def ints(*values: Any) -> bool:
    """Whether every value is a Python int (not a bool, not SymPy): a budget is searched at int sizes only.

    Parameters
    ----------
    *values : object
        Sizes (T, N).

    Returns
    -------
    bool
        False where any one is symbolic.
    """
    return all(type(v) is int for v in values)


def plain(value: Any) -> Any:
    """A figure in its plainest form: a SymPy value expanded (an integer one as an int); an int or None
    unchanged.

    Parameters
    ----------
    value : int, sympy.Expr or None

    Returns
    -------
    int, sympy.Expr or None
        The same figure (units unchanged).
    """
    if is_sympy(value):
        import sympy

        value = sympy.expand(value)
        return int(value) if value.is_Integer else value
    return value


def json_value(value: Any) -> Any:
    """A figure as the JSON writes it (the CLI's ``"cost"``): :func:`plain`, then a symbolic one as its string.

    Parameters
    ----------
    value : int, sympy.Expr or None
        A figure.

    Returns
    -------
    int, str or None
        An int or None as it is; a SymPy expression's ``str`` (``"1048576*N*T"``).
    """
    value = plain(value)
    return value if value is None or type(value) is int else str(value)


def times(entries: Any, per: Fraction) -> Any:
    """``entries`` × ``per`` bytes: an int for ints, SymPy for a symbolic count.

    Parameters
    ----------
    entries : int or sympy.Expr
        Units: entries.
    per : fractions.Fraction
        Bytes per entry (a block format's a fraction: q8_0's 17/16).

    Returns
    -------
    int or sympy.Expr
        Units: bytes.
    """
    if type(entries) is int:
        total = entries * per
        assert total.denominator == 1, (entries, per)  # block widths are checked whole
        return int(total)
    if per.denominator == 1:
        return entries * int(per)
    import sympy

    return entries * sympy.Rational(per.numerator, per.denominator)


def total(terms: Any) -> Any:
    """The sum of ``terms`` made :func:`plain`, 0 for none: an int while every term is one.

    Parameters
    ----------
    terms : iterable of int or sympy.Expr
        Figures in one unit (bytes of a cache's states).

    Returns
    -------
    int or sympy.Expr
        In the terms' unit.
    """
    sum_: Any = 0
    for term in terms:
        sum_ = sum_ + term
    return plain(sum_)


def lettered(module: Module) -> tuple[Module, dict[str, Any]]:
    """A model's tree in its own letters — a config's keys, where the model was read from one (its
    :attr:`~derive.tree.Module.formula` recipe rebuilt with letters) — and the letters' values; the tree
    itself and no letters where it has no such recipe.

    Parameters
    ----------
    module : derive.tree.Module

    Returns
    -------
    (derive.tree.Module, dict)
        The tree (symbolic sizes where rebuilt); letter -> value.
    """
    recipe = module.formula
    if recipe is not None:
        made = recipe.build(*recipe.args, **dict(recipe.kwargs))
        if isinstance(made, Module):
            return made, dict(recipe.values)
    return module, {}
