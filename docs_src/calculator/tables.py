"""The calculator's tables for the frameworks besides PyTorch, derived (used by :mod:`docs_src.calculator`).

For every class of :data:`FRAMEWORKS` and every option the form offers for it, the per-layer
counts of :func:`derive.frameworks.stack` (layer 0 and any layer >= 1) as polynomials in I, H and
P, written as compact coefficient tables the page's script evaluates with BigInt.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache

import sympy

from derive import frameworks as fws
from derive.cells import CELLS as CELL_EQUATIONS
from derive.engine.stack import UPPER
from derive.engine.symbols import H, I, P

__all__ = ["FRAMEWORKS", "LEFT_OUT", "framework_formulas", "framework_table"]

#: Frameworks of :data:`derive.frameworks.FRAMEWORKS` the form does not offer, with the reason.
LEFT_OUT = {
    "xlstm": "its counts depend on options the form does not have (num_heads must divide the "
    "embedding, mLSTMLayer rounds its inner width up to a multiple of 64)",
}
#: Frameworks offered besides PyTorch (``"torch"``): key -> title, in :data:`derive.frameworks.FRAMEWORKS` order.
FRAMEWORKS = {key: fw.title for key, fw in fws.FRAMEWORKS.items() if key not in LEFT_OUT}


def _proj_rule(spec: fws.CellSpec) -> str:
    """How a class takes ``proj_size``: "" (no projection), "below" (< H), "input" (0 or I), "any"."""
    if "proj_size" not in spec.options:
        return ""
    if spec.check is not None:  # mingru-pytorch: to_out maps back to the input's width
        return "input"
    return "below" if spec.proj_below_hidden else "any"


def _square(spec: fws.CellSpec) -> bool:
    """Whether layer 0's structure depends on I == D·H (SRU: no projection of a square input)."""
    return "num_directions" in CELL_EQUATIONS[spec.mode].options


@lru_cache(maxsize=1)
def framework_formulas() -> dict[str, tuple[sympy.Expr, sympy.Expr]]:
    """Per-layer counts of every configuration the form offers for :data:`FRAMEWORKS`, derived.

    Each is :func:`derive.frameworks.stack`'s ``layer_count(0)`` and ``layer_count(UPPER)`` of a
    two-layer stack over symbolic sizes; the class's other options at their defaults.

    Returns
    -------
    dict
        ``"onnx|LSTM|1|1|0|0"`` (framework | class | bidirectional | bias | projected | square) ->
        (layer 0 count, count of any layer >= 1), polynomials in I, H (and P when projected). A
        projection that must equal I (mingru-pytorch) is derived with P = I; "square" (SRU only)
        is the case I = D·H, derived with that input size. ConvLSTM classes have none (the form
        has no ``kernel_size``).
    """
    out = {}
    for key in FRAMEWORKS:
        fw = fws.FRAMEWORKS[key]
        for spec in fw.cells:
            if "kernel_size" in spec.options:
                continue
            rule = _proj_rule(spec)
            for bidirectional, bias, projected, square in itertools.product(
                (False, True),
                spec.options.get("bias", (True,)),
                (False, True) if rule else (False,),
                (False, True) if _square(spec) else (False,),
            ):
                proj = (I if rule == "input" else P) if projected else 0
                width = (2 if bidirectional else 1) * H if square else I
                # mingru-pytorch's projection has no bidirectional stack above one layer (refused, as
                # derive.frameworks.stack refuses it): layer 0 alone is derived.
                one_layer = bool(proj) and rule == "input" and bidirectional
                stack = fws.stack(
                    key,
                    spec.name,
                    width,
                    H,
                    num_layers=1 if one_layer else 2,
                    bidirectional=bidirectional,
                    bias=bias,
                    proj_size=proj,
                )
                name = f"{key}|{spec.name}|{int(bidirectional)}|{int(bias)}|{int(projected)}|{int(square)}"
                upper = sympy.Integer(0) if one_layer else sympy.expand(stack.layer_count(UPPER))
                out[name] = (sympy.expand(stack.layer_count(0)), upper)
    return out


def _terms(expr: sympy.Expr) -> list[int]:
    """A polynomial in I, H, P as a flat coefficient table: coefficient, power of I, of H, of P, ..."""
    out: list[int] = []
    for (a, b, d), coeff in sorted(sympy.Poly(expr, I, H, P).terms()):
        out += [int(coeff), a, b, d]
    return out


def framework_table() -> tuple[list[list[int]], dict, Callable[[sympy.Expr], int]]:
    """The script's tables: distinct polynomials, and per framework and class its options and formulas.

    Returns
    -------
    tuple
        The polynomials (coefficient tables), the per-framework table, and the function that adds a
        further polynomial to the first and gives its index (for Keras 3's table).
    """
    polys: list[list[int]] = []
    index: dict[tuple[int, ...], int] = {}

    def ref(expr: sympy.Expr) -> int:
        t = tuple(_terms(expr))
        if t not in index:
            index[t] = len(polys)
            polys.append(list(t))
        return index[t]

    table: dict[str, dict] = {}
    forms = framework_formulas()
    have = [f"{f.key} {s.name}" for f in fws.FRAMEWORKS.values() for s in f.cells if "proj_size" in s.options]
    for key in FRAMEWORKS:
        cells = {}
        for spec in fws.FRAMEWORKS[key].cells:
            entry: dict[str, object] = {"bias": list(spec.options.get("bias", (True,))), "proj": _proj_rule(spec)}
            if _square(spec):
                entry["sq"] = 1
            if "kernel_size" in spec.options:
                entry["refuse"] = f"kernel_size is required for {key} {spec.name}: a tuple of 1 to 3 sizes"
            f = {}
            for name, (layer0, upper) in forms.items():
                fk, cls, rest = name.split("|", 2)
                if fk == key and cls == spec.name:
                    f[rest] = [ref(layer0), ref(upper)]
            entry["f"] = f
            cells[spec.name] = entry
        table[key] = cells
    return polys, {"cells": table, "projections": ", ".join(have)}, ref
