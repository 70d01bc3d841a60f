"""The site's interactive calculator: plain JavaScript generated from the derived counts.

For every configuration the form offers — cell (Elman RNN, LSTM, GRU), bidirectional or not,
bias or not, projection or not — :func:`formulas` takes the derivation's own per-layer counts,
``layer_count(0)`` (layer 0, all directions) and ``layer_count(UPPER)`` (any layer >= 1), as
polynomials in I, H and P, and :func:`javascript` prints each as a JavaScript function over
``BigInt`` (counts exceed 2**53 for large sizes; BigInt keeps them exact). The total is
``layer0 + (L - 1)·upper``, the same closed form as :attr:`derive.stack.Stack.count`. The
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
"""

from __future__ import annotations

import itertools
import json
from functools import lru_cache

import sympy

from .. import frameworks as fws
from ..engine import validate
from ..engine.stack import UPPER
from ..engine.symbols import H, I, P
from ..frameworks import pytorch as dt
from .calculator_tables import FRAMEWORKS, LEFT_OUT, framework_formulas, framework_table

__all__ = ["CELLS", "FRAMEWORKS", "LEFT_OUT", "formulas", "framework_formulas", "javascript", "evaluate", "MAX_LISTED"]

#: Cells offered: form value -> (derive.torch class, extra keyword arguments, label).
CELLS = {
    "RNN_TANH": ("RNN", {}, "Elman RNN (tanh)"),
    "RNN_RELU": ("RNN", {"nonlinearity": "relu"}, "Elman RNN (ReLU)"),
    "LSTM": ("LSTM", {}, "LSTM"),
    "GRU": ("GRU", {}, "GRU"),
}
#: Layers listed one by one in ``#calc-layers``; more are summarised.
MAX_LISTED = 16


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


_RUNTIME = r"""
  var MESSAGES = {
    type: function (name) { return name + " should be of type int"; },
    positive: function (name) { return name + " must be greater than zero"; },
    proj_negative: "proj_size should be a positive integer or zero to disable projections",
    proj_large: "proj_size has to be smaller than hidden_size",
    proj_cell: "proj_size argument is only supported for LSTM, not RNN or GRU"
  };
  // A size is decimal digits as Python writes an int: an optional "-", no leading zero, no
  // "0x", "1e3", "+", "_" or spaces inside (the fields are text fields, so the script sees what
  // was typed; a number field would turn "0x10" into "010" and read 10).
  function size(name, text, minimum) {
    var s = String(text).trim();
    if (!/^-?(0|[1-9][0-9]*)$/.test(s)) { throw new Error(MESSAGES.type(name)); }
    var v = BigInt(s);
    if (v < BigInt(minimum)) {
      throw new Error(minimum === 0 ? MESSAGES.proj_negative : MESSAGES.positive(name));
    }
    return v;
  }
  function group(v) {
    var s = v.toString(), neg = s.charAt(0) === "-";
    if (neg) { s = s.slice(1); }
    var out = "";
    while (s.length > 3) { out = "," + s.slice(-3) + out; s = s.slice(0, -3); }
    return (neg ? "-" : "") + s + out;
  }
  // cfg: {cell, inputSize, hiddenSize, numLayers, bidirectional, bias, projSize}; sizes as strings or numbers.
  function deriveCount(cfg) {
    if (cfg.framework !== undefined && String(cfg.framework) !== "torch") { return deriveOther(cfg); }
    var cell = String(cfg.cell);
    if (!Object.prototype.hasOwnProperty.call(CELLS, cell)) { throw new Error("unknown cell " + cell); }
    var I = size("input_size", cfg.inputSize, 1);
    var H = size("hidden_size", cfg.hiddenSize, 1);
    var L = size("num_layers", cfg.numLayers, 1);
    var P = size("proj_size", cfg.projSize === undefined ? "0" : cfg.projSize, 0);
    if (P !== 0n && CELLS[cell].cls !== "LSTM") { throw new Error(MESSAGES.proj_cell); }
    if (P !== 0n && P >= H) { throw new Error(MESSAGES.proj_large); }
    var key = cell + "|" + (cfg.bidirectional ? 1 : 0) + "|" + (cfg.bias ? 1 : 0) + "|" + (P !== 0n ? 1 : 0);
    var f = FORMULAS[key];
    var layer0 = f[0](I, H, P), upper = f[1](I, H, P);
    var total = layer0 + (L - 1n) * upper;
    var args = [I.toString(), H.toString()];
    var kw = [];
    if (L !== 1n) { args.push(L.toString()); }
    var extra = CELLS[cell].extra;
    for (var k in extra) { kw.push(k + "=" + JSON.stringify(extra[k]).replace(/"/g, "'")); }
    if (!cfg.bias) { kw.push("bias=False"); }
    if (cfg.bidirectional) { kw.push("bidirectional=True"); }
    if (P !== 0n) { kw.push("proj_size=" + P.toString()); }
    var call = "nn" + "." + CELLS[cell].cls + "(" + args.concat(kw).join(", ") + ")";
    return { total: total, layer0: layer0, upper: upper, layers: L, call: call };
  }
  // A polynomial of POLYS (coefficient, powers of I, H, P; repeated) at I, H, P.
  function poly(k, I, H, P) {
    var t = POLYS[k], s = 0n;
    for (var j = 0; j < t.length; j += 4) {
      s += BigInt(t[j]) * I ** BigInt(t[j + 1]) * H ** BigInt(t[j + 2]) * P ** BigInt(t[j + 3]);
    }
    return s;
  }
  function py(v) { return v ? "True" : "False"; }
  // cfg.framework a key of FW.cells, cfg.cell one of its classes; checks as derive.frameworks.stack does.
  function deriveOther(cfg) {
    var fw = String(cfg.framework), cell = String(cfg.cell);
    if (!Object.prototype.hasOwnProperty.call(FW.cells, fw)) { throw new Error("unknown framework " + fw); }
    if (!Object.prototype.hasOwnProperty.call(FW.cells[fw], cell)) { throw new Error("unknown cell " + cell); }
    var spec = FW.cells[fw][cell], name = fw + " " + cell;
    var I = size("input_size", cfg.inputSize, 1);
    var H = size("hidden_size", cfg.hiddenSize, 1);
    var L = size("num_layers", cfg.numLayers, 1);
    var P = size("proj_size", cfg.projSize === undefined ? "0" : cfg.projSize, 0);
    var bias = cfg.bias === undefined ? spec.bias[0] : !!cfg.bias, bidi = !!cfg.bidirectional;
    if (spec.bias.indexOf(bias) < 0) {
      throw new Error("bias must be one of [" + spec.bias.map(py).join(", ") + "] for " + name + ", got " + py(bias));
    }
    if (P !== 0n && !spec.proj) {
      throw new Error("proj_size must be 0 for " + name + ": it has no projection (projections: " + FW.projections + ")");
    }
    if (P !== 0n && spec.proj === "below" && P >= H) { throw new Error(MESSAGES.proj_large); }
    if (spec.refuse) { throw new Error(spec.refuse); }
    if (P !== 0n && spec.proj === "input" && P !== I) {
      throw new Error("proj_size must be 0 or input_size (" + I + ") for mingru-pytorch: to_out maps the " +
                      "hidden state back to dim, got " + P);
    }
    if (P !== 0n && spec.proj === "input" && bidi && L !== 1n) {
      throw new Error("proj_size must be 0 for a bidirectional mingru-pytorch stack of more than one layer: " +
                      "layers >= 1 read 2*proj_size features and their to_out maps back to that width, got " + P);
    }
    var square = spec.sq && I === (bidi ? 2n : 1n) * H;
    var f = spec.f[(bidi ? 1 : 0) + "|" + (bias ? 1 : 0) + "|" + (P !== 0n ? 1 : 0) + "|" + (square ? 1 : 0)];
    var layer0 = poly(f[0], I, H, P), upper = poly(f[1], I, H, P);
    var kw = [];
    if (L !== 1n) { kw.push("num_layers=" + L); }
    if (bidi) { kw.push("bidirectional=True"); }
    if (bias !== spec.bias[0]) { kw.push("bias=" + py(bias)); }
    if (P !== 0n) { kw.push("proj_size=" + P); }
    var call = "frameworks.count(" + ['"' + fw + '"', '"' + cell + '"', I.toString(), H.toString()].concat(kw).join(", ") + ")";
    return { total: layer0 + (L - 1n) * upper, layer0: layer0, upper: upper, layers: L, call: call };
  }
"""

_DOM = r"""
  function bind() {
    var form = document.getElementById("calc-form");
    if (!form || form.getAttribute("data-bound") === "1") { return; }
    form.setAttribute("data-bound", "1");
    var byId = function (id) { return document.getElementById(id); };
    var cells = byId("calc-cell"), torchCells = cells.innerHTML, shownFw = "torch";
    function fill() {  // the Cell select: the framework's own classes
      var fw = byId("calc-framework").value;
      if (fw === shownFw) { return; }
      shownFw = fw;
      if (fw === "torch") { cells.innerHTML = torchCells; return; }
      cells.innerHTML = "";
      Object.keys(FW.cells[fw]).forEach(function (name) { cells.add(new Option(name, name)); });
    }
    function update() {
      fill();
      var fw = byId("calc-framework").value, cell = cells.value;
      var spec = fw === "torch" ? null : FW.cells[fw][cell];
      var proj = byId("calc-proj-size"), biasBox = byId("calc-bias");
      proj.disabled = spec ? !spec.proj : CELLS[cell].cls !== "LSTM";
      biasBox.disabled = spec ? spec.bias.length < 2 : false;
      var out = [byId("calc-total"), byId("calc-layer0"), byId("calc-upper")];
      var list = byId("calc-layers");
      try {
        var r = deriveCount({
          framework: fw,
          cell: cell,
          inputSize: byId("calc-input-size").value,
          hiddenSize: byId("calc-hidden-size").value,
          numLayers: byId("calc-num-layers").value,
          bidirectional: byId("calc-bidirectional").checked,
          bias: biasBox.disabled ? spec.bias[0] : biasBox.checked,
          projSize: proj.disabled ? "0" : proj.value
        });
        byId("calc-error").textContent = "";
        out[0].textContent = group(r.total);
        out[0].setAttribute("data-value", r.total.toString());
        out[1].textContent = group(r.layer0);
        out[1].setAttribute("data-value", r.layer0.toString());
        out[2].textContent = r.layers > 1n ? group(r.upper) : "(no layer >= 1)";
        out[2].setAttribute("data-value", r.layers > 1n ? r.upper.toString() : "");
        byId("calc-call").textContent = r.call;
        var rows = [];
        var shown = r.layers < BigInt(MAX_LISTED) ? Number(r.layers) : MAX_LISTED;
        for (var k = 0; k < shown; k++) {
          rows.push("<tr><td>" + k + "</td><td>" + group(k === 0 ? r.layer0 : r.upper) + "</td></tr>");
        }
        if (r.layers > BigInt(shown)) {
          rows.push("<tr><td>" + shown + " … " + (r.layers - 1n).toString() + "</td><td>" + group(r.upper) +
                    " each</td></tr>");
        }
        list.innerHTML = rows.join("");
      } catch (e) {
        byId("calc-error").textContent = e.message;
        out.forEach(function (el) { el.textContent = "—"; el.setAttribute("data-value", ""); });
        byId("calc-call").textContent = "";
        list.innerHTML = "";
      }
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
    update();
  }
  var pages = window["document\u0024"];  // Material's page observable (instant navigation), if any
  if (pages && pages.subscribe) {
    pages.subscribe(function () { bind(); });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bind);
  } else {
    bind();
  }
"""


def javascript(dom: bool = True) -> str:
    """The calculator's script: the derived formulas as BigInt functions, the input checks, the form.

    Parameters
    ----------
    dom : bool
        Include the code that binds the page's form (False: only ``deriveCount``, for node).

    Returns
    -------
    str
        ES5 plus BigInt; defines ``deriveCount(cfg)`` and ``group(bigint)`` on ``globalThis``
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
    polys, table = framework_table()
    compact = (",", ":")
    parts = [
        "(function () {",
        '  "use strict";',
        "  // Generated by derive.calculator from the derived per-layer counts; do not edit.",
        f"  var CELLS = {json.dumps(cells, sort_keys=True)};",
        f"  var MAX_LISTED = {MAX_LISTED};",
        "  // Other frameworks: distinct polynomials (coefficient, powers of I, H, P; ...), then per",
        "  // framework and class: bias values allowed (default first), projection rule, formulas by",
        '  // "bidirectional|bias|projected|square" -> [layer 0, layer >= 1] (indices into POLYS).',
        f"  var POLYS = {json.dumps(polys, separators=compact)};",
        f"  var FW = {json.dumps(table, separators=compact)};",
        "  " + "\n".join(lines),
        _RUNTIME,
        "  globalThis.deriveCount = deriveCount;",
        "  globalThis.deriveGroup = group;",
    ]
    if dom:
        parts.append(_DOM)
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
        ``"torch"`` or a key of :data:`FRAMEWORKS`.

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
