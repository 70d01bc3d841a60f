"""Framework pages: one per framework of :mod:`derive.frameworks`, and a side-by-side comparison.

Every page is computed from the conventions at build time: tensor tables in the framework's own
names with symbolic shapes, closed forms, option variants and worked examples. The worked
examples are :class:`derive.site.Example` values (framework ``"frameworks"``: ``build()`` is
:func:`derive.frameworks.count`), checked in ``tests/site/test_frameworks_site.py`` against the real
package where it installs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

import derive.frameworks as fx
import derive.frameworks.pytorch as dt
from derive.engine.stack import layer_sum
from derive.engine.symbols import H, I, L, P, size_symbols
from derive.render.latex import equations_latex, latex, shape_latex

from .. import record
from ..site import Example, Page, number

#: ConvLSTM symbols: input channels, filters, kernel sizes.
C, F, k_1, k_2, k_3, k = size_symbols("C F k_1 k_2 k_3 k")


def FX(framework: str, cell: str, input_size, hidden_size, **options) -> Example:
    """A worked example: ``derive.frameworks.count(framework, cell, input_size, hidden_size, **options)``."""
    return Example("count", (framework, cell, input_size, hidden_size), tuple(options.items()), "frameworks")


def K_(cls: str, *args, input_shape: tuple = (), **kwargs) -> Example:
    """A Keras example (``layers.<cls>(...)`` on ``keras.Input(input_shape)``), checked by tests/frameworks/test_keras.py."""
    return Example(cls, args, tuple(kwargs.items()), "keras", input_shape)


#: Worked examples per framework: seed 000's stack (32 → 128, 2 layers, bidirectional), the GRU of
#: tensorflow/tensorflow#43960 (4 features, 5 units: 165 vs 150), seed 001's LSTM(256) on 28 features,
#: the LSTMP of pytorch/pytorch#65053-style (40 → 512, P = 128) and each framework's particular options.
EXAMPLES = {
    "onnx": (
        FX("onnx", "LSTM", 32, 128, num_layers=2, bidirectional=True),
        FX("onnx", "GRU", 4, 5),
        FX("onnx", "GRU", 4, 5, reset_after=True),
        FX("onnx", "LSTM", 10, 20, peepholes=True),
        FX("onnx", "LSTM", 10, 20, bias=False),
        FX("onnx", "RNN", 25, 50, num_layers=4, bidirectional=True),
    ),
    "cudnn": (
        FX("cudnn", "CUDNN_LSTM", 32, 128, num_layers=2, bidirectional=True),
        FX("cudnn", "CUDNN_LSTM", 40, 512, num_layers=3, proj_size=128),
        FX("cudnn", "CUDNN_GRU", 4, 5),
        FX("cudnn", "CUDNN_RNN_TANH", 25, 50, num_layers=4, bidirectional=True),
    ),
    "tf.keras": (
        FX("tf.keras", "CuDNNLSTM", 28, 256),
        FX("tf.keras", "CuDNNGRU", 4, 5),
        FX("tf.keras", "CuDNNLSTM", 32, 128, num_layers=2, bidirectional=True),
    ),
    "tf1": (
        FX("tf1", "LSTMCell", 28, 256),
        FX("tf1", "GRUCell", 4, 5),
        FX("tf1", "BasicRNNCell", 25, 50, num_layers=4, bidirectional=True),
        FX("tf1", "LSTMCell", 32, 128, num_layers=2, bidirectional=True),
        FX("tf1", "LSTMCell", 40, 512, proj_size=128, peepholes=True),
    ),
    "flax.linen": (
        FX("flax.linen", "LSTMCell", 28, 256),
        FX("flax.linen", "GRUCell", 4, 5),
        FX("flax.linen", "MGUCell", 4, 5),
        FX("flax.linen", "MGUCell", 4, 5, reset_gate=False),
        FX("flax.linen", "SimpleCell", 10, 20),
        FX("flax.linen", "OptimizedLSTMCell", 32, 128, num_layers=2, bidirectional=True),
        FX("flax.linen", "ConvLSTMCell", 3, 16, kernel_size=(3, 3)),
    ),
    "flax.nnx": (
        FX("flax.nnx", "LSTMCell", 28, 256),
        FX("flax.nnx", "GRUCell", 4, 5),
        FX("flax.nnx", "SimpleCell", 10, 20),
        FX("flax.nnx", "OptimizedLSTMCell", 32, 128, num_layers=2, bidirectional=True),
    ),
    "keras2": (
        FX("keras2", "LSTM", 28, 256),
        FX("keras2", "GRU", 4, 5),
        FX("keras2", "GRU", 4, 5, reset_after=False),
        FX("keras2", "LSTM", 32, 128, num_layers=2, bidirectional=True),
    ),
    "haiku": (
        FX("haiku", "LSTM", 28, 256),
        FX("haiku", "GRU", 4, 5),
        FX("haiku", "VanillaRNN", 10, 20),
        FX("haiku", "VanillaRNN", 10, 20, double_bias=False),
        FX("haiku", "LSTM", 32, 128, num_layers=2, bidirectional=True),
        FX("haiku", "Conv2DLSTM", 3, 16, kernel_size=(3, 3)),
    ),
    "mlx": (
        FX("mlx", "LSTM", 28, 256),
        FX("mlx", "GRU", 4, 5),
        FX("mlx", "RNN", 10, 20, bias=False),
        FX("mlx", "LSTM", 32, 128, num_layers=2, bidirectional=True),
    ),
    "sru": (
        FX("sru", "SRU", 32, 128, num_layers=2),
        FX("sru", "SRU", 256, 128, num_layers=2, bidirectional=True),
        FX("sru", "SRUCell", 128, 128),
    ),
    "xlstm": (
        FX("xlstm", "sLSTMLayer", 8, 8, num_heads=2),
        FX("xlstm", "sLSTMLayer", 128, 128),
        FX("xlstm", "mLSTMLayer", 8, 8, num_heads=2),
        FX("xlstm", "mLSTMLayer", 128, 128, bias=True),
    ),
    "mingru": (
        FX("mingru", "minGRU", 512, 512),
        FX("mingru", "minGRU", 512, 1024, proj_size=512),
        FX("mingru", "minLSTM", 512, 512, num_layers=3),
    ),
    "reference": (
        FX("reference", "minGRU", 32, 128, num_layers=2),
        FX("reference", "IndRNN", 32, 128, num_layers=6),
        FX("reference", "QRNN", 32, 128, window=2),
        FX("reference", "LayerNormLSTM", 32, 128, num_layers=2, bidirectional=True),
    ),
    "equinox": (
        FX("equinox", "LSTMCell", 28, 256),
        FX("equinox", "GRUCell", 4, 5),
        FX("equinox", "GRUCell", 4, 5, bias=False),
        FX("equinox", "LSTMCell", 32, 128, num_layers=2, bidirectional=True),
    ),
    "mxnet": (
        FX("mxnet", "LSTM", 32, 128, num_layers=2, bidirectional=True),
        FX("mxnet", "LSTM", 40, 512, num_layers=3, proj_size=128),
        FX("mxnet", "GRU", 4, 5),
    ),
    "paddle": (
        FX("paddle", "LSTM", 32, 128, num_layers=2, bidirectional=True),
        FX("paddle", "LSTM", 40, 512, num_layers=3, proj_size=128),
        FX("paddle", "GRU", 4, 5),
        FX("paddle", "GRU", 4, 5, bias=False),
        FX("paddle", "LSTMCell", 28, 256, bias=False),
    ),
}


def _sizes(spec: fx.CellSpec) -> tuple:
    """Symbolic (input_size, hidden_size, options) for a class's tables."""
    if spec.generic == "convlstm":
        dims = (spec.options.get("kernel_size") or (2,))[0]
        return C, F, {"kernel_size": (k_1, k_2, k_3)[:dims]}
    if "window" in spec.options:
        return I, H, {"window": k}
    return I, H, {}


def _blocks(tensor) -> str:
    params = tensor.parameters
    if tensor.direction is None:  # every direction in one tensor: show one direction's blocks
        params = tuple(dict.fromkeys(params))
    return ", ".join(latex(p.symbol) for p in params)


def _layer_name(first: str, second: str) -> str:
    """The name of "layer k" from the names of layers 1 and 2 (they differ only in the index).

    Every number that differs becomes ``<k>``; where the index counts layers and directions
    together (Haiku ``lstm_<n>``, MLX ``layers.<n>``: n = 2k + direction) it is written ``<2k>``,
    ``<2k+1>``. Keras 2 names carry it twice (``bidirectional_<k>/forward_lstm_<k>/...``).
    """
    if first == second:
        return first
    a, b = re.split(r"(\d+)", first), re.split(r"(\d+)", second)
    if len(a) != len(b):
        raise ValueError(f"layer names differ in more than an index: {first!r}, {second!r}")
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(x)
            continue
        if not (x.isdigit() and y.isdigit()):
            raise ValueError(f"layer names differ in more than an index: {first!r}, {second!r}")
        step, offset = int(y) - int(x), 2 * int(x) - int(y)
        index = (
            "k"
            if (step, offset) == (1, 0)
            else f"{step}k" + (f"+{offset}" if offset > 0 else f"{offset}" if offset else "")
        )
        out.append(f"<{index}>")
    return "".join(out)


def _rows(stack, layer, names=None) -> list[dict]:
    tensors = stack.layer_tensors(layer)
    names = names or [t.name for t in tensors]
    return [
        {
            "name": n,
            "shape": shape_latex(t.shape),
            "blocks": _blocks(t),
            "numel": sympy.latex(sympy.factor(t.numel)),
            "trainable": t.trainable,
        }
        for n, t in zip(names, tensors)
    ]


def _closed(value) -> dict:
    return {"expanded": sympy.latex(sympy.expand(value)), "factored": sympy.latex(sympy.factor(value))}


def _bias(stack, layer=0) -> sympy.Expr:
    """Bias scalars of one direction of ``layer`` (from the cell's equations)."""
    return sympy.Add(*(p.numel for p in stack.cell(layer).parameters if p.kind == "bias"))


_OPTION_TEXT = {
    "bias": lambda v: f"`bias={v}`",
    "peepholes": lambda v: f"`peepholes={v}`",
    "reset_after": lambda v: f"`reset_after={v}`",
    "reset_gate": lambda v: f"`reset_gate={v}`",
    "double_bias": lambda v: f"`double_bias={v}`",
    "has_skip_term": lambda v: f"`has_skip_term={v}`",
    "pooling": lambda v: f"`pooling={v!r}`",
}


def _variants(fw: fx.Framework, spec: fx.CellSpec) -> list[dict]:
    """The count of one layer and direction for the default and for each other accepted option value."""
    i, h, extra = _sizes(spec)
    out = [("default", {})]
    for option, values in spec.options.items():
        if option == "proj_size":
            if spec.check is None:
                out.append(("`proj_size=P`", {"proj_size": P}))
            else:  # mingru-pytorch: the projection maps back to the input's width
                out.append(("`proj_size=I`", {"proj_size": i}))
        elif option in _OPTION_TEXT:
            out += [(_OPTION_TEXT[option](v), {option: v}) for v in values[1:]]
    rows = []
    for label, options in out:
        stack = fx.stack(fw.key, spec.name, i, h, **extra, **options)
        rows.append(
            {
                "label": label,
                "count": sympy.latex(sympy.factor(stack.count)),
                "trainable": sympy.latex(
                    sympy.factor(fx.count(fw.key, spec.name, i, h, trainable_only=True, **extra, **options))
                ),
            }
        )
    return rows


def _gates(fw: fx.Framework, spec: fx.CellSpec, stack) -> str:
    cell = stack.cell(0)
    order = spec.convention.gate_order.get(cell.name, cell.gates)
    labels = [spec.convention.gate_label(cell.name, g) or g for g in order]
    ours = ", ".join(order)
    theirs = ", ".join(labels)
    if theirs == ours:
        return f"{theirs}"
    return f"{theirs} (the blocks this site calls {ours})"


def cell_section(fw: fx.Framework, spec: fx.CellSpec) -> dict:
    """One class of a framework: equations, tensors of layer 0 and of layer k >= 1, counts, variants."""
    i, h, extra = _sizes(spec)
    single = fx.stack(fw.key, spec.name, i, h, **extra)
    bi = fx.stack(fw.key, spec.name, i, h, num_layers=L, bidirectional=True, **extra)
    names = [_layer_name(a.name, b.name) for a, b in zip(bi.layer_tensors(1), bi.layer_tensors(2))]
    totals = []
    for bidirectional in (False, True):
        total = fx.count(fw.key, spec.name, i, h, num_layers=L, bidirectional=bidirectional, **extra)
        totals.append({"D": 2 if bidirectional else 1, **_closed(total)})
    return {
        "name": spec.name,
        "generic": spec.generic,
        "kind": spec.kind,
        "gates": _gates(fw, spec, single),
        "equations": equations_latex(single.cell(0)),
        "rows": _rows(single, 0),
        "count": sympy.latex(sympy.factor(single.count)),
        "bias": sympy.latex(_bias(single)),
        "upper_input": sympy.latex(bi.layer_input_size(1)),
        "upper_rows": _rows(bi, 1, names),
        "totals": totals,
        "variants": _variants(fw, spec),
        "conv": spec.generic == "convlstm",
    }


def example_context(example: Example) -> dict:
    """A worked example's call, count (and trainable count) and tensor table."""
    framework, cell, i, h = example.args
    options = dict(example.kwargs)
    return {
        "call": f"frameworks.{example.call}",
        "count": number(example.build()),
        "trainable": number(fx.count(framework, cell, i, h, trainable_only=True, **options)),
        "rows": [(r.name, r.shape, number(r.count), r.trainable) for r in fx.tensors(framework, cell, i, h, **options)],
    }


def framework_context(key: str) -> dict:
    """Template variables of one framework's page."""
    fw = fx.FRAMEWORKS[key]
    lstm = next((spec for spec in fw.cells if spec.generic == "lstm"), fw.cells[0])
    return {
        "fw": fw,
        "status": record.status(fw),
        "notebook_cell": lstm.name,
        "frozen": any(spec.convention.frozen_bias for spec in fw.cells),
        "cells": [cell_section(fw, spec) for spec in fw.cells],
        "examples": [example_context(e) for e in EXAMPLES[key]],
    }


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Case:
    """One configuration compared across frameworks: cell, I, H, L, bidirectional, and why it is here."""

    title: str
    generic: str
    torch_cls: str
    input_size: int
    hidden_size: int
    num_layers: int
    bidirectional: bool
    why: str


CASES = (
    Case(
        "LSTM",
        "lstm",
        "LSTM",
        32,
        128,
        2,
        True,
        "a PyTorch forum question, where `nn.LSTM(32, 128, 2, bidirectional=True)` reported 561,152 parameters.",
    ),
    Case(
        "GRU",
        "gru",
        "GRU",
        4,
        5,
        1,
        False,
        "tensorflow/tensorflow#43960: a GRU of 5 units on 4 features counted 165 by one Keras "
        "version and 150 by another (the default of `reset_after` changed).",
    ),
    Case(
        "Elman RNN",
        "rnn",
        "RNN",
        25,
        50,
        4,
        True,
        "a PyTorch forum question on `nn.RNN(25, 50, 4, bidirectional=True)`, whose layers >= 1 read 100 features.",
    ),
)

#: Why a framework's bias differs from PyTorch's two vectors per gate, by (generic cell, framework).
#: The first entry is the claimed bias of one layer and direction in units of H (checked by the tests).
CAUSES = {
    ("lstm", "keras"): (
        4,
        "one bias per gate: input and recurrent bias are only ever added, so one vector holds their sum",
    ),
    ("lstm", "tf1"): (4, "one bias per gate, as Keras: the kernel multiplies [x; h] and one bias is added"),
    ("lstm", "flax.linen"): (4, "one bias per gate, on the hidden-side `Dense` layers (`hi`, `hf`, `hg`, `ho`)"),
    ("lstm", "flax.nnx"): (4, "one bias per gate, on the hidden side, as linen"),
    ("lstm", "equinox"): (4, "one merged `bias` (4H)"),
    ("lstm", "tf.keras"): (8, "cuDNN's two biases in one `bias` (8H): twice `LSTM`'s (keras-team/keras#8860)"),
    ("gru", "keras"): (
        6,
        "`reset_after=True` (the default): the recurrent bias sits inside the reset product, so "
        "Keras keeps a second row of recurrent biases, `bias` (2, 3H)",
    ),
    ("gru", "keras-reset-before"): (
        3,
        "`reset_after=False`: the reset gate multiplies h before the product, every sum has one bias",
    ),
    ("gru", "onnx"): (6, "`B` holds Wb and Rb for all three gates, whatever `linear_before_reset`"),
    ("gru", "tf1"): (3, "reset before the product (`r * state`), one bias per gate, as Keras `reset_after=False`"),
    ("gru", "flax.linen"): (
        4,
        "r and z merge their biases (`ir`, `iz`); the candidate keeps `in` and `hn`, because "
        "the reset gate multiplies W_hn h + b_hn",
    ),
    ("gru", "flax.nnx"): (
        3,
        "reset after the product, but no recurrent bias at all (`dense_h` has none): "
        "the candidate loses b_hn, H fewer than linen",
    ),
    ("gru", "equinox"): (4, "`bias` (3H) on the input side and `bias_n` (H) inside the reset product, as linen"),
    ("gru", "tf.keras"): (6, "cuDNN's two biases in one `bias` (6H)"),
    ("rnn", "keras"): (1, "one bias"),
    ("rnn", "tf1"): (1, "one bias"),
    ("rnn", "flax.linen"): (1, "one bias, on `i`"),
    ("rnn", "flax.nnx"): (1, "one bias, on `dense_i`"),
    ("lstm", "haiku"): (4, "one `hk.Linear` on [x; h] with one bias `linear/b` (4H), TF1's layout"),
    ("gru", "haiku"): (3, "reset before the product (`r * state`), one bias `b` (3H)"),
    ("lstm", "mlx"): (4, "one merged `bias` (4H)"),
    ("gru", "mlx"): (4, "`b` (3H) on the input side and `bhn` (H) inside the reset product, as Equinox"),
    ("rnn", "mlx"): (1, "one `bias`"),
    ("lstm", "keras2"): (4, "one bias per gate, as Keras 3"),
    ("gru", "keras2"): (6, "`reset_after=True`: `bias` (2, 3H), as Keras 3"),
    ("rnn", "keras2"): (1, "one bias"),
}
_SAME = "two biases per gate, as PyTorch (cuDNN's layout)"


def _keras_example(case: Case, **kwargs) -> Example:
    cls = {"lstm": "LSTM", "gru": "GRU", "rnn": "SimpleRNN"}[case.generic]
    if case.num_layers > 1:
        kwargs = {**kwargs, "return_sequences": True}
    layer = K_(cls, case.hidden_size, **kwargs)
    if case.bidirectional:
        layer = K_("Bidirectional", layer)
    shape = (10, case.input_size)
    if case.num_layers == 1:
        return Example(layer.cls, layer.args, layer.kwargs, "keras", shape)
    return K_("Sequential", tuple([layer] * case.num_layers), input_shape=shape)


def keras_examples(case: Case) -> list[tuple[str, Example, dict]]:
    """(row key, Keras example, Keras layer kwargs) of a case: GRU in both ``reset_after`` forms."""
    if case.generic == "gru":
        return [
            ("keras", _keras_example(case), {}),
            ("keras-reset-before", _keras_example(case, reset_after=False), {"reset_after": False}),
        ]
    return [("keras", _keras_example(case), {})]


def _keras_closed(case: Case, kwargs: dict):
    """Keras' count in I, H, L for the case's wiring: from derive.keras with 1 and 2 layers."""
    import derive.frameworks.keras as dk

    cls = getattr(dk, {"lstm": "LSTM", "gru": "GRU", "rnn": "SimpleRNN"}[case.generic])

    def layers(n):
        out = []
        for _ in range(n):
            layer = cls(H, return_sequences=True, **kwargs)
            out.append(dk.Bidirectional(layer) if case.bidirectional else layer)
        return out

    first = dk.count(layers(1), I)
    D = 2 if case.bidirectional else 1
    bias = sympy.Add(*(w.numel for w in dk.tensors(layers(1), I) if w.path.endswith("bias"))) / D
    return layer_sum(first, dk.count(layers(2), I) - first, L), first, sympy.expand(bias)


def torch_example(case: Case) -> Example:
    """The ``torch.nn`` constructor of a case (checked by tests/site/test_site_numbers.py)."""
    kwargs = (("bidirectional", True),) if case.bidirectional else ()
    layers = (case.num_layers,) if case.num_layers != 1 else ()
    return Example(case.torch_cls, (case.input_size, case.hidden_size, *layers), kwargs)


def _keras_count(example: Example, input_size: int) -> int:
    """The count of a Keras example's layers (derive.keras) on ``input_size`` features."""
    import derive.frameworks.keras as dk

    return dk.count(example.build(), input_size)


def comparison_rows(case: Case) -> list[dict]:
    """Every framework's count for ``case``: symbolic (one layer and direction, and L layers), the
    worked number, differences to PyTorch and their cause."""
    D = 2 if case.bidirectional else 1
    values = {I: case.input_size, H: case.hidden_size, L: case.num_layers}
    torch_stack = getattr(dt, case.torch_cls)(I, H, L, bidirectional=case.bidirectional)
    torch_closed = torch_stack.count
    torch_one = getattr(dt, case.torch_cls)(I, H).count
    torch_number = torch_example(case).build().count
    rows = [
        {
            "key": "torch",
            "framework": "PyTorch",
            "cls": f"`{torch_example(case).call}`",
            "checked": True,
            "one": torch_one,
            "bias": _bias(getattr(dt, case.torch_cls)(I, H)),
            "closed": torch_closed,
            "number": torch_number,
        }
    ]
    for key, example, kwargs in keras_examples(case):
        closed, one_layer, bias = _keras_closed(case, kwargs)
        rows.append(
            {
                "key": key,
                "framework": "Keras",
                "cls": f"`{example.call}`",
                "checked": True,
                "one": sympy.expand(one_layer / D),
                "bias": bias,
                "closed": closed,
                "number": _keras_count(example, case.input_size),
                "example": example,
            }
        )
    for fw in fx.FRAMEWORKS.values():
        try:
            spec = fw.cell(case.generic)
        except ValueError:
            continue
        options = {"num_layers": case.num_layers, "bidirectional": case.bidirectional}
        stack = fx.stack(fw.key, spec.name, I, H)
        rows.append(
            {
                "key": fw.key,
                "framework": fw.title,
                "cls": f"`{spec.name}`",
                "checked": fw.checked,
                "one": stack.count,
                "bias": _bias(stack),
                "closed": fx.count(fw.key, spec.name, I, H, num_layers=L, bidirectional=case.bidirectional),
                "number": fx.count(fw.key, spec.name, case.input_size, case.hidden_size, **options),
                "spec": spec.name,
            }
        )
    for row in rows:
        row["difference"] = sympy.factor(sympy.expand(row["closed"] - torch_closed))
        row["number_difference"] = int(row["number"]) - int(torch_number)
        row["cause"] = CAUSES.get((case.generic, row["key"]), (None, _SAME))[1] if row["key"] != "torch" else ""
        assert sympy.expand(row["closed"].xreplace(values) - row["number"]) == 0, row["key"]
    return rows


def comparison_context() -> dict:
    """Template variables of the comparison page."""
    cases = []
    for case in CASES:
        rows = comparison_rows(case)
        cases.append(
            {
                "case": case,
                "D": 2 if case.bidirectional else 1,
                "rows": [
                    {
                        **r,
                        "one": sympy.latex(sympy.factor(r["one"])),
                        "bias": sympy.latex(r["bias"]),
                        "closed": sympy.latex(sympy.factor(r["closed"])),
                        "difference": sympy.latex(r["difference"]),
                        "number": number(r["number"]),
                        "number_difference": f"{r['number_difference']:+,}" if r["number_difference"] else "0",
                    }
                    for r in rows
                ],
            }
        )
    return {
        "cases": cases,
        "frameworks": list(fx.FRAMEWORKS.values()),
        "verified": record.rows(),
        "verified_blocks": record.block_rows(),
        "verified_memory": record.memory_rows(),
    }


COMPARISON_EXAMPLES = tuple(torch_example(c) for c in CASES) + tuple(e for c in CASES for _, e, _ in keras_examples(c))

ORDER = 30
PAGES = [
    Page(
        f"frameworks/{key.replace('.', '-')}.md",
        fw.title,
        "framework.md.j2",
        (lambda key=key: framework_context(key)),
        EXAMPLES[key],
        "Frameworks",
    )
    for key, fw in fx.FRAMEWORKS.items()
] + [
    Page(
        "frameworks/comparison.md",
        "Comparison",
        "framework-comparison.md.j2",
        comparison_context,
        COMPARISON_EXAMPLES,
        "Frameworks",
    ),
]
