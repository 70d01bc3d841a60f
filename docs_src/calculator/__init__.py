"""The site's interactive calculator: plain JavaScript generated from the derived counts.

For every configuration the form offers — cell (Elman RNN, LSTM, GRU), bidirectional or not,
bias or not, projection or not — :func:`formulas` takes the derivation's own per-layer counts,
``layer_count(0)`` (layer 0, all directions) and ``layer_count(UPPER)`` (any layer >= 1), as
polynomials in I, H and P, and :func:`javascript` prints each as a JavaScript function over
``BigInt`` (counts exceed 2**53 for large sizes; BigInt keeps them exact). The total is
``layer0 + (L - 1)·upper``, the same closed form as :attr:`derive.engine.stack.Stack.count`. The
script also checks the inputs as :mod:`derive.torch` does, with the same messages. Nothing is
fetched: the script is inlined in the page.

Element ids (for browser tests): ``calc-form``, ``calc-framework``, ``calc-cell``,
``calc-input-size``, ``calc-hidden-size``, ``calc-num-layers``, ``calc-bidirectional``,
``calc-bias``, ``calc-proj-size``; outputs ``calc-total`` (with ``data-value``, the plain
digits), ``calc-layer0``, ``calc-upper``, ``calc-layers`` (one row per layer, up to
:data:`MAX_LISTED` layers), ``calc-call`` (the constructor), ``calc-error`` (the message of a
refused input, empty otherwise).

Other frameworks (issue 12): ``calc-framework`` also offers every key of :data:`FRAMEWORKS`
(those of :data:`derive.frameworks.FRAMEWORKS` but :data:`LEFT_OUT`), and ``calc-cell`` then
lists the framework's own classes. :func:`framework_formulas` takes
:func:`derive.frameworks.stack`'s ``layer_count(0)`` and ``layer_count(UPPER)`` for each class,
bidirectional or not, each ``bias`` the class allows, projected or not; the script holds them
as coefficient tables (``POLYS``, distinct polynomials; ``FW``, per class its allowed biases,
projection rule and formula indices), evaluated in BigInt. ``deriveCount({framework: ...})``
checks as :func:`derive.frameworks.stack` does, with its messages; the form disables ``bias``
where the class allows one value and ``proj_size`` where it has no projection. ConvLSTM classes
are listed but refused (the form has no ``kernel_size``). The ``call`` shown is the
``frameworks.count(...)`` call giving the same total.

The blocks (issue 20): a second form, ``calc-block-form``, offers Mamba, Mamba-2 and whole Mamba and
RWKV-4 language models from their sizes (:mod:`docs_src.calculator.blocks`), evaluated the same
way from their derived closed forms.
"""

from __future__ import annotations

import itertools
import json
from functools import lru_cache

import sympy

from derive import frameworks as fws
from derive.cells import CELLS as CELL_EQUATIONS
from derive.engine import validate
from derive.engine.stack import UPPER
from derive.engine.symbols import H, I, P
from derive.frameworks import keras as dk
from derive.frameworks import pytorch as dt

from . import blocks as cb
from . import keras as ck
from .script import DOM, RUNTIME
from .tables import FRAMEWORKS, LEFT_OUT, framework_formulas, framework_table

__all__ = [
    "CELLS",
    "FRAMEWORKS",
    "LEFT_OUT",
    "cell_modes",
    "formulas",
    "framework_formulas",
    "javascript",
    "evaluate",
    "MAX_LISTED",
]

#: Cells offered: form value -> (derive.torch class, extra keyword arguments, label).
CELLS = {
    "RNN_TANH": ("RNN", {}, "Elman RNN (tanh)"),
    "RNN_RELU": ("RNN", {"nonlinearity": "relu"}, "Elman RNN (ReLU)"),
    "LSTM": ("LSTM", {}, "LSTM"),
    "GRU": ("GRU", {}, "GRU"),
}
#: Layers listed one by one in ``#calc-layers``; more are summarised.
MAX_LISTED = 16


def cell_modes() -> dict[str, dict[str, str]]:
    """The cell (a mode of :data:`derive.cells.CELLS`) each class of the form computes, per framework.

    The form keeps the reader's cell across a switch of framework where the new one has a class of
    that cell; these are derive's own records of it (:attr:`derive.frameworks.CellSpec.mode`, the
    Keras layers' ``mode``).

    Returns
    -------
    dict
        ``"torch"``, ``"keras"`` and each key of :data:`FRAMEWORKS` -> {class (the Cell list's value, in
        its order) -> mode}.
    """
    out = {"torch": {name: name for name in CELLS}, "keras": {cls: getattr(dk, cls).mode for cls in ck.KERAS_CLASSES}}
    for key in FRAMEWORKS:
        out[key] = {spec.name: spec.mode for spec in fws.FRAMEWORKS[key].cells}
    return out


def _key(cell: str, bidirectional: bool, bias: bool, projected: bool) -> str:
    return f"{cell}|{int(bidirectional)}|{int(bias)}|{int(projected)}"


@lru_cache(maxsize=1)
def formulas() -> dict[str, tuple[sympy.Expr, sympy.Expr]]:
    """Per-layer counts of every configuration of the form, derived.

    Returns
    -------
    dict
        ``"LSTM|1|1|0"`` (cell | bidirectional | bias | projected) -> (layer 0 count, count of
        any layer >= 1), polynomials in I, H (and P when projected).
    """
    out = {}
    for cell, bidirectional, bias, projected in itertools.product(CELLS, (False, True), (True, False), (False, True)):
        cls, extra, _ = CELLS[cell]
        if projected and cls != "LSTM":
            continue
        kwargs = dict(extra, bidirectional=bidirectional, bias=bias)
        if projected:
            kwargs["proj_size"] = P
        stack = getattr(dt, cls)(I, H, 2, **kwargs)
        out[_key(cell, bidirectional, bias, projected)] = (
            sympy.expand(stack.layer_count(0)),
            sympy.expand(stack.layer_count(UPPER)),
        )
    return out


def _js_polynomial(expr: sympy.Expr) -> str:
    """A polynomial in I, H, P as a BigInt expression: ``4n*I*H + 4n*H*H``."""
    poly = sympy.Poly(expr, I, H, P)
    terms = []
    for (a, b, d), coeff in poly.terms():
        factors = [f"{int(coeff)}n"] + ["I"] * a + ["H"] * b + ["P"] * d
        terms.append("(" + "*".join(factors) + ")")
    return " + ".join(terms) if terms else "0n"


def javascript(dom: bool = True) -> str:
    """The calculator's script: the derived formulas as BigInt functions, the input checks, the form.

    Parameters
    ----------
    dom : bool
        Include the code that binds the page's form (False: only ``deriveCount``, for node).

    Returns
    -------
    str
        ES5 plus BigInt; defines ``deriveCount(cfg)``, ``deriveBlock(cfg)`` (the blocks of
        :mod:`docs_src.calculator.blocks`) and ``deriveGroup(bigint)`` on ``globalThis``
        (``window`` in a page).
    """
    lines = ["var FORMULAS = {"]
    items = sorted(formulas().items())
    for k, (key, (layer0, upper)) in enumerate(items):
        comma = "," if k < len(items) - 1 else ""
        lines.append(f'    "{key}": [function (I, H, P) {{ return {_js_polynomial(layer0)}; }},')
        lines.append(f"              function (I, H, P) {{ return {_js_polynomial(upper)}; }}]{comma}")
    lines.append("  };")
    cells = {name: {"cls": cls, "extra": extra} for name, (cls, extra, _) in CELLS.items()}
    modes = cell_modes()
    polys, table, ref = framework_table()
    keras = ck.keras_table(ref)
    compact = (",", ":")
    parts = [
        "(function () {",
        '  "use strict";',
        "  // Generated by docs_src.calculator from the derived per-layer counts; do not edit.",
        f"  var CELLS = {json.dumps(cells, sort_keys=True)};",
        f"  var MAX_LISTED = {MAX_LISTED};",
        "  // Other frameworks: distinct polynomials (coefficient, powers of I, H, P; ...), then per",
        "  // framework and class: bias values allowed (default first), projection rule, formulas by",
        '  // "bidirectional|bias|projected|square" -> [layer 0, layer >= 1] (indices into POLYS).',
        f"  var POLYS = {json.dumps(polys, separators=compact)};",
        f"  var FW = {json.dumps(table, separators=compact)};",
        '  // Keras 3: per class, by "bidirectional|use_bias|merge_mode" -> [layer 0, layer >= 1 or -1].',
        f"  var KERAS = {json.dumps(keras, separators=compact)};",
        "  // The cell each class computes (derive.cells' modes), per framework, in the Cell list's order; their titles.",
        f"  var MODES = {json.dumps(modes, separators=compact)};",
        f"  var MODE_TITLES = {json.dumps({m: CELL_EQUATIONS[m].title for f in modes.values() for m in f.values()})};",
        "  " + "\n".join(lines),
        cb.tables_js(),
        cb.names_js(),
        RUNTIME,
        ck.RUNTIME,
        cb.RUNTIME,
        "  globalThis.deriveCount = deriveCount;",
        "  globalThis.deriveBlock = deriveBlock;",
        "  globalThis.deriveGroup = group;",
    ]
    if dom:
        parts += [cb.DOM, DOM]
    parts.append("})();")
    return "\n".join(parts)


def evaluate(
    cell: str,
    input_size: int,
    hidden_size: int,
    num_layers: int,
    bidirectional: bool,
    bias: bool | None,
    proj_size: int = 0,
    framework: str = "torch",
    merge_mode: str | None = "concat",
) -> dict[str, int | str | None]:
    """What the calculator shows, computed with :mod:`derive.torch` or :func:`derive.frameworks.stack`.

    For tests and the page's defaults.

    Parameters
    ----------
    cell : str
        For ``framework="torch"`` a key of :data:`CELLS` (``"RNN_TANH"``, ``"RNN_RELU"``,
        ``"LSTM"``, ``"GRU"``); otherwise one of the framework's classes (``"LSTMCell"`` ...).
    input_size, hidden_size, num_layers : int
        As for ``torch.nn``: I, H (features) and L.
    bidirectional : bool
        Deep bidirectional stack (D = 2).
    bias : bool or None
        Whether each layer and direction has ``bias_ih`` and ``bias_hh`` (other frameworks: the
        class's ``bias``; None for its default).
    proj_size : int, default 0
        P (LSTM only); 0 for no projection.
    framework : str, default "torch"
        ``"torch"``, ``"keras"`` (Keras 3, :func:`docs_src.calculator.keras.evaluate_keras`) or a
        key of :data:`FRAMEWORKS`.
    merge_mode : {"concat", "sum", "mul", "ave", None}, default "concat"
        Keras only: the ``Bidirectional`` wrapper's merge mode.

    Returns
    -------
    dict
        ``total``, ``layer0``, ``upper`` (ints; ``upper`` is None for one layer) and ``call``
        (the constructor for torch; for other frameworks the ``frameworks.count(...)`` call that
        gives the same total).

    Raises
    ------
    ValueError
        ``framework`` not offered; for other frameworks as :func:`derive.frameworks.stack`
        raises (with the same words as the script). For torch:
        ``cell`` is not a key of :data:`CELLS` (the message names the allowed cells); a
        ``proj_size`` < 0, or > 0 for a cell other than the LSTM; or :mod:`derive.torch` refuses a
        size or option.
    TypeError
        ``proj_size`` not an int (``False``, ``None``, ``0.0`` are not 0), ``bias`` or
        ``bidirectional`` not a bool; as :mod:`derive.torch` raises for the other arguments.
    """
    if framework == "keras":
        if proj_size != 0:
            raise ValueError("proj_size must be 0 for keras: its recurrent layers have no projection")
        return ck.evaluate_keras(cell, input_size, hidden_size, num_layers, bidirectional, bias, merge_mode)
    if framework != "torch":
        return _evaluate_other(framework, cell, input_size, hidden_size, num_layers, bidirectional, bias, proj_size)
    if not isinstance(cell, str) or cell not in CELLS:
        raise ValueError(f"cell must be one of {sorted(CELLS)}, got {cell!r}")
    cls, extra, _ = CELLS[cell]
    # proj_size is checked as torch checks it, never mapped to 0: False, None, 0.0 are a TypeError
    proj_size = validate.size("proj_size", proj_size, minimum=0)
    if proj_size != 0 and cls != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    kwargs: dict[str, object] = dict(extra)
    if not validate.flag("bias", bias):
        kwargs["bias"] = False
    if validate.flag("bidirectional", bidirectional):
        kwargs["bidirectional"] = True
    if proj_size != 0:
        kwargs["proj_size"] = proj_size
    stack = getattr(dt, cls)(input_size, hidden_size, num_layers, **kwargs)
    args = [str(input_size), str(hidden_size)] + ([str(num_layers)] if num_layers != 1 else [])
    kw = [f"{k}={v!r}" for k, v in kwargs.items()]
    return {
        "total": int(stack.count),
        "layer0": int(stack.layer_count(0)),
        "upper": int(stack.layer_count(1)) if stack.num_layers > 1 else None,
        "call": f"nn.{cls}({', '.join(args + kw)})",
    }


def _evaluate_other(
    framework: str,
    cell: str,
    input_size: int,
    hidden_size: int,
    num_layers: int,
    bidirectional: bool,
    bias: bool | None,
    proj_size: int,
) -> dict[str, int | str | None]:
    if not isinstance(framework, str) or framework not in FRAMEWORKS:
        raise ValueError(f"framework must be 'torch' or one of {list(FRAMEWORKS)}, got {framework!r}")
    stack = fws.stack(
        framework,
        cell,
        input_size,
        hidden_size,
        num_layers=num_layers,
        bidirectional=bidirectional,
        bias=bias,
        proj_size=proj_size,
    )
    spec = fws.FRAMEWORKS[framework].cell(cell)
    kw = [f"num_layers={num_layers}"] if num_layers != 1 else []
    kw += ["bidirectional=True"] if bidirectional else []
    kw += [f"bias={stack.bias!r}"] if stack.bias != spec.options.get("bias", (True,))[0] else []
    kw += [f"proj_size={proj_size}"] if proj_size else []
    args = [f'"{framework}"', f'"{spec.name}"', str(input_size), str(hidden_size)]
    return {
        "total": int(stack.count),
        "layer0": int(stack.layer_count(0)),
        "upper": int(stack.layer_count(1)) if stack.num_layers > 1 else None,
        "call": f"frameworks.count({', '.join(args + kw)})",
    }
