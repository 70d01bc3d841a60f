"""The calculator's Keras 3 part: stacks of ``keras.layers`` recurrent layers, in ``Bidirectional`` or not.

A Keras stack of ``num_layers`` layers is what one writes in a ``Sequential``: each layer
``SimpleRNN``/``LSTM``/``GRU(units, use_bias=..., return_sequences=True)``, wrapped in
``Bidirectional(layer, merge_mode=...)`` when bidirectional; layer 0 reads ``input_size`` features,
every layer above reads what the wrapper hands on (``2·units`` for ``concat``, ``units`` for
``sum``, ``mul``, ``ave``; ``merge_mode=None`` returns two outputs, which no layer can read, so
only one such layer is allowed). The per-layer counts are those of :mod:`derive.keras` over
symbolic sizes (layer 0 at ``I``, any layer >= 1 at the merged width), which the tests hold against
Keras 3; the script evaluates them as coefficient tables in BigInt, like the other frameworks'.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import sympy

from derive.engine import validate
from derive.engine.symbols import H, I
from derive.frameworks import keras as dk

__all__ = ["KERAS_CLASSES", "KERAS_MERGE_MODES", "TITLE", "keras_formulas", "keras_table", "evaluate_keras"]

#: The Keras 3 classes offered (ConvLSTM*D need a kernel_size the form does not have; RNN(cell) and
#: StackedRNNCells hold the same cells as these).
KERAS_CLASSES = ("SimpleRNN", "LSTM", "GRU")
#: The wrapper's merge modes, as the form offers them (Keras' default first).
KERAS_MERGE_MODES: tuple[str | None, ...] = ("concat", "sum", "mul", "ave", None)
#: The framework's title in the calculator.
TITLE = "Keras 3 (keras.layers)"


def _layer(cls: str, units: Any, bias: bool, bidirectional: bool, merge_mode: str | None) -> Any:
    kwargs: dict[str, Any] = {"return_sequences": True}
    if not bias:
        kwargs["use_bias"] = False
    layer = getattr(dk, cls)(units, **kwargs)
    return dk.Bidirectional(layer, merge_mode=merge_mode) if bidirectional else layer


def _key(cls: str, bidirectional: bool, bias: bool, merge_mode: str | None) -> str:
    return f"{cls}|{int(bidirectional)}|{int(bias)}|{merge_mode if bidirectional else ''}"


@lru_cache(maxsize=1)
def keras_formulas() -> dict[str, tuple[sympy.Expr, sympy.Expr | None]]:
    """Per-layer counts of every Keras configuration the form offers, derived with :mod:`derive.keras`.

    Returns
    -------
    dict
        ``"LSTM|1|1|sum"`` (class | bidirectional | use_bias | merge_mode, empty when not
        bidirectional) -> (layer 0 count at I features, count of any layer >= 1 at the merged
        width, or None where no layer can follow: ``merge_mode=None``), polynomials in I and H.
    """
    out: dict[str, tuple[sympy.Expr, sympy.Expr | None]] = {}
    for cls, bias, bidirectional in itertools.product(KERAS_CLASSES, (True, False), (False, True)):
        for merge_mode in KERAS_MERGE_MODES if bidirectional else ("concat",):
            layer = _layer(cls, H, bias, bidirectional, merge_mode)
            width = layer.output_dim(I)
            upper = None if isinstance(width, list) else sympy.expand(dk.count(layer, width))
            out[_key(cls, bidirectional, bias, merge_mode)] = (sympy.expand(dk.count(layer, I)), upper)
    return out


def keras_table(ref: Callable[[sympy.Expr], int]) -> dict[str, dict[str, Any]]:
    """The script's table for Keras: per class, by configuration, [layer 0, layer >= 1] polynomial indices.

    Parameters
    ----------
    ref : callable
        Gives a polynomial's index in the script's shared table of polynomials.

    Returns
    -------
    dict
        class -> ``{"f": {"bidirectional|use_bias|merge_mode": [k0, k1 or -1]}}``.
    """
    table: dict[str, dict[str, Any]] = {cls: {"f": {}} for cls in KERAS_CLASSES}
    for name, (layer0, upper) in keras_formulas().items():
        cls, rest = name.split("|", 1)
        table[cls]["f"][rest] = [ref(layer0), -1 if upper is None else ref(upper)]
    return table


def _layer_call(cls: str, units: int, bias: bool, bidirectional: bool, merge_mode: str | None, last: bool) -> str:
    args = [str(units)] + ([] if bias else ["use_bias=False"]) + ([] if last else ["return_sequences=True"])
    call = f"layers.{cls}({', '.join(args)})"
    if not bidirectional:
        return call
    return f"layers.Bidirectional({call}{'' if merge_mode == 'concat' else f', merge_mode={merge_mode!r}'})"


def call_of(
    cls: str, input_size: int, units: int, num_layers: int, bidirectional: bool, bias: bool, merge_mode: str | None
) -> str:
    """The Keras code whose ``count_params()`` is the calculator's total.

    Parameters
    ----------
    cls : str
    input_size, units, num_layers : int
    bidirectional, bias : bool
    merge_mode : str or None

    Returns
    -------
    str
    """
    head = f"keras.Sequential([keras.Input((None, {input_size}))"
    if num_layers == 1:
        return f"{head}, {_layer_call(cls, units, bias, bidirectional, merge_mode, True)}]).count_params()"
    layer = _layer_call(cls, units, bias, bidirectional, merge_mode, False)
    return f"{head}] + [{layer} for _ in range({num_layers})]).count_params()"


def evaluate_keras(
    cls: str,
    input_size: int,
    units: int,
    num_layers: int,
    bidirectional: bool,
    bias: bool | None,
    merge_mode: str | None = "concat",
) -> dict[str, int | str | None]:
    """What the calculator shows for a Keras 3 stack, computed with :mod:`derive.keras`.

    Parameters
    ----------
    cls : {"SimpleRNN", "LSTM", "GRU"}
    input_size : int
        Features of the input (Keras: the last axis, ``input_dim`` of the first layer).
    units : int
        Each layer's ``units`` (H).
    num_layers : int
        Layers stacked in the ``Sequential``.
    bidirectional : bool
        Each layer in ``Bidirectional(layer, merge_mode=merge_mode)``.
    bias : bool or None
        ``use_bias`` (None: True, Keras' default).
    merge_mode : {"concat", "sum", "mul", "ave", None}, default "concat"

    Returns
    -------
    dict
        ``total``, ``layer0``, ``upper`` (ints; ``upper`` None for one layer), ``call`` (the Keras
        code whose ``count_params()`` is the total).

    Raises
    ------
    ValueError
        An unknown class or merge mode; a size <= 0; ``merge_mode=None`` below another layer
        (in :mod:`derive.keras`'s words).
    TypeError
        A size that is not an int; a flag that is not a bool.
    """
    if cls not in KERAS_CLASSES:
        raise ValueError(f"cell must be one of {list(KERAS_CLASSES)} for keras, got {cls!r}")
    if merge_mode not in KERAS_MERGE_MODES:
        raise ValueError(f"merge_mode must be one of {list(KERAS_MERGE_MODES)}, got {merge_mode!r}")
    bias = True if bias is None else validate.flag("bias", bias)
    bidirectional = validate.flag("bidirectional", bidirectional)
    num_layers = validate.size("num_layers", num_layers)
    layers = [_layer(cls, units, bias, bidirectional, merge_mode) for _ in range(min(num_layers, 2))]
    total_two = int(dk.count(layers, input_size))  # checks units, input_dim and that the layers can feed
    layer0 = int(dk.count(layers[0], input_size))
    upper = total_two - layer0 if num_layers > 1 else None
    return {
        "total": layer0 + (num_layers - 1) * (upper or 0),
        "layer0": layer0,
        "upper": upper,
        "call": call_of(cls, input_size, units, num_layers, bidirectional, bias, merge_mode),
    }


#: The script's Keras branch: checks as :func:`evaluate_keras` does, with the same words.
RUNTIME = r"""
  function deriveKeras(cfg) {
    var cell = String(cfg.cell);
    if (!Object.prototype.hasOwnProperty.call(KERAS, cell)) { throw new Error("unknown cell " + cell); }
    var mm = cfg.mergeMode === undefined ? "concat" : cfg.mergeMode;
    mm = mm === null || mm === "None" ? null : String(mm);
    if (["concat", "sum", "mul", "ave", null].indexOf(mm) < 0) { throw new Error("unknown merge_mode " + mm); }
    var L = size("num_layers", cfg.numLayers, 1);
    var H = size("units", cfg.hiddenSize, 1);
    var I = size("input_dim", cfg.inputSize, 1);
    var bias = cfg.bias === undefined ? true : !!cfg.bias, bidi = !!cfg.bidirectional;
    var f = KERAS[cell].f[(bidi ? 1 : 0) + "|" + (bias ? 1 : 0) + "|" + (bidi ? (mm === null ? "None" : mm) : "")];
    if (L > 1n && f[1] < 0) {
      throw new Error("bidirectional has merge_mode=None: it returns a list of two outputs, which cannot feed " +
                      "bidirectional (Keras: 'expects 1 input(s), but it received 2 input tensors')");
    }
    var layer0 = poly(f[0], I, H, 0n), upper = L > 1n ? poly(f[1], I, H, 0n) : 0n;
    function one(last) {
      var a = [H.toString()];
      if (!bias) { a.push("use_bias=False"); }
      if (!last) { a.push("return_sequences=True"); }
      var c = "layers." + cell + "(" + a.join(", ") + ")";
      if (!bidi) { return c; }
      return "layers.Bidirectional(" + c + (mm === "concat" ? "" : ", merge_mode=" + (mm === null ? "None" : "'" + mm + "'")) + ")";
    }
    var head = "keras.Sequential([keras.Input((None, " + I + "))";
    var call = L === 1n ? head + ", " + one(true) + "]).count_params()"
                        : head + "] + [" + one(false) + " for _ in range(" + L + ")]).count_params()";
    return { total: layer0 + (L - 1n) * upper, layer0: layer0, upper: upper, layers: L, call: call };
  }
"""
