"""One page per cell: its update equations, PyTorch tensors, closed forms and worked examples."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

import derive.frameworks as fx
import derive.frameworks.pytorch as dt
from derive.cells import CELLS, make_cell
from derive.engine.stack import UPPER
from derive.engine.symbols import H, I, L, P, size_symbols
from derive.engine.wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL
from derive.frameworks.pytorch import PYTORCH
from derive.render.latex import equations_latex, latex, shape_latex

from ..site import Example, Page
from .common import example_context, formulas, tensor_rows


@dataclass(frozen=True)
class CellPage:
    """One page per cell: which classes, which symbolic arguments, which examples."""

    path: str
    title: str
    cls: str
    cell_cls: str
    symbolic_kwargs: tuple
    summary: str
    source: str
    examples: tuple[Example, ...]
    peepholes: bool = False


CELL_PAGES = (
    CellPage(
        "cells/rnn.md",
        "Elman RNN",
        "RNN",
        "RNNCell",
        (),
        "The simple recurrent network: one gate block (G = 1), a tanh or ReLU nonlinearity.",
        "J. L. Elman, *Finding structure in time*, Cognitive Science 14(2), 1990; "
        "PyTorch `torch.nn.RNN` (`torch/nn/modules/rnn.py`).",
        (
            Example("RNN", (25, 50, 4), (("bidirectional", True),)),
            Example("RNN", (10, 20)),
            Example("RNN", (10, 20, 2), (("nonlinearity", "relu"), ("bias", False))),
            Example("RNNCell", (10, 20)),
        ),
    ),
    CellPage(
        "cells/lstm.md",
        "LSTM",
        "LSTM",
        "LSTMCell",
        (),
        "Long short-term memory: four gate blocks (G = 4) — input, forget, cell candidate, output.",
        "S. Hochreiter and J. Schmidhuber, *Long short-term memory*, Neural Computation 9(8), 1997; "
        "forget gate: F. Gers, J. Schmidhuber, F. Cummins, Neural Computation 12(10), 2000; "
        "PyTorch `torch.nn.LSTM` (`torch/nn/modules/rnn.py`).",
        (
            Example("LSTM", (32, 128, 2), (("bidirectional", True),)),
            Example("LSTM", (32, 128, 2)),
            Example("LSTM", (20, 50, 3), (("bias", False),)),
            Example("LSTM", (20, 50, 3), (("bias", False), ("bidirectional", True))),
            Example("LSTM", (512, 256, 2), (("bidirectional", True),)),
            Example("LSTMCell", (10, 20)),
        ),
        peepholes=True,
    ),
    CellPage(
        "cells/lstm-projection.md",
        "LSTM with projection (proj_size)",
        "LSTM",
        "LSTMCell",
        (("proj_size", P),),
        "The LSTM with a recurrent projection layer (LSTMP): the output $o_t \\odot \\tanh(c_t)$ is "
        "multiplied by $W_{hr}$, so $h_t$ has $P < H$ features and every weight that reads $h$ is $P$ wide.",
        "H. Sak, A. Senior, F. Beaufays, *Long short-term memory recurrent neural network architectures "
        "for large scale acoustic modeling*, Interspeech 2014 (arXiv:1402.1128); PyTorch `torch.nn.LSTM` "
        "with `proj_size` (`torch/nn/modules/rnn.py`).",
        (
            Example("LSTM", (32, 128, 2), (("bidirectional", True), ("proj_size", 64))),
            Example("LSTM", (10, 20, 1), (("proj_size", 5),)),
            Example("LSTM", (40, 512, 3), (("proj_size", 128),)),
        ),
    ),
    CellPage(
        "cells/gru.md",
        "GRU",
        "GRU",
        "GRUCell",
        (),
        "The gated recurrent unit: three gate blocks (G = 3) — reset, update, candidate — in PyTorch's "
        "form, where the reset gate multiplies the recurrent product *after* its bias.",
        "K. Cho et al., *Learning phrase representations using RNN encoder-decoder for statistical "
        "machine translation*, EMNLP 2014 (arXiv:1406.1078); PyTorch `torch.nn.GRU` "
        "(`torch/nn/modules/rnn.py`).",
        (
            Example("GRU", (32, 128, 2), (("bidirectional", True),)),
            Example("GRU", (10, 20)),
            Example("GRU", (10, 20, 3), (("bias", False),)),
            Example("GRUCell", (10, 20)),
        ),
    ),
)


_GATE_NAMES = {
    ("LSTM", "i"): "input",
    ("LSTM", "f"): "forget",
    ("LSTM", "g"): "cell candidate",
    ("LSTM", "o"): "output",
    ("GRU", "r"): "reset",
    ("GRU", "z"): "update",
    ("GRU", "n"): "candidate",
    ("CONVLSTM", "i"): "input",
    ("CONVLSTM", "f"): "forget",
    ("CONVLSTM", "g"): "cell candidate",
    ("CONVLSTM", "o"): "output",
    ("MGU", "f"): "forget",
    ("MGU", "n"): "candidate",
}


def _parameters_by_gate(cell) -> list[dict]:
    """One row per gate block (and one for the projection): its weights, its biases, their size."""
    rows: dict = {}
    for p in cell.parameters:
        rows.setdefault(p.gate, []).append(p)
    return [
        {
            "gate": "projection" if gate is None else f"{_GATE_NAMES.get((cell.name, gate), '')} ${gate}$".strip(),
            "weights": ", ".join(f"${latex(p.symbol)}$ ${shape_latex(p.shape)}$" for p in held if p.kind == "weight"),
            "biases": ", ".join(f"${latex(p.symbol)}$ ${shape_latex(p.shape)}$" for p in held if p.kind == "bias")
            or "—",
            "numel": sympy.latex(sympy.factor(sympy.Add(*(p.numel for p in held)))),
        }
        for gate, held in rows.items()
    ]


def cell_page_context(page: CellPage) -> dict:
    """Template variables of a cell page: equations, parameter and tensor tables, closed forms, examples."""
    cls = getattr(dt, page.cls)
    sym = dict(page.symbolic_kwargs)
    wirings = []
    for bidirectional, wiring in ((False, UNIDIRECTIONAL), (True, DEEP_BIDIRECTIONAL)):
        stack = cls(I, H, L, bidirectional=bidirectional, **sym)
        wirings.append(
            {
                "name": wiring.name,
                "D": wiring.num_directions,
                "layers": [
                    {
                        "label": label,
                        "input": sympy.latex(stack.layer_input_size(layer)),
                        "rows": tensor_rows(stack, layer),
                        "count": sympy.latex(sympy.factor(stack.layer_count(layer))),
                    }
                    for label, layer in (("layer 0", 0), ("layer $k \\ge 1$", UPPER))
                ],
                "total": formulas(stack),
                "total_no_bias": formulas(cls(I, H, L, bias=False, bidirectional=bidirectional, **sym)),
            }
        )
    first = cls(I, H, L, **sym).cell(0)
    single = getattr(dt, page.cell_cls)(I, H)
    return {
        "page": page,
        "equations": equations_latex(first),
        "parameters": _parameters_by_gate(first),
        "cell_count": sympy.latex(sympy.factor(first.count)),
        "wirings": wirings,
        "cell_class": page.cell_cls,
        "cell_rows": tensor_rows(single, 0),
        "cell_total": sympy.latex(sympy.factor(single.count)),
        "examples": [example_context(e) for e in page.examples],
        "convention": PYTORCH,
        "peepholes": peephole_context() if page.peepholes else None,
    }


def peephole_context() -> dict:
    """The LSTM with peepholes: its equations, the peephole parameters, and every framework class
    that has them, with the tensors they add and the class's count (from derive.frameworks, whose
    counts the tests hold against ONNX Runtime and TensorFlow's ``tf.compat.v1``)."""
    cell = make_cell("LSTM", I, H, peepholes=True)
    plain = make_cell("LSTM", I, H)
    classes = []
    for key, fw in fx.FRAMEWORKS.items():
        for spec in fw.cells:
            if True not in spec.options.get("peepholes", ()):
                continue
            without = {r.name: r.shape for r in fx.tensors(key, spec.name, I, H)}
            rows = fx.tensors(key, spec.name, I, H, peepholes=True)
            classes.append(
                {
                    "framework": fw.title,
                    "path": f"../frameworks/{key.replace('.', '-')}.md",
                    "cls": spec.name,
                    "tensors": [(r.name, shape_latex(r.shape)) for r in rows if without.get(r.name) != r.shape],
                    "count": sympy.latex(sympy.factor(fx.count(key, spec.name, I, H, peepholes=True))),
                }
            )
    return {
        "equations": equations_latex(cell),
        "parameters": _peephole_rows(cell),
        "added": sympy.latex(sympy.factor(cell.count - plain.count)),
        "classes": classes,
    }


def _peephole_rows(cell) -> list[dict]:
    """One row per peephole vector: its gate, symbol and shape."""
    return [
        {
            "gate": f"{_GATE_NAMES.get((cell.name, p.gate), '')} ${p.gate}$".strip(),
            "vector": f"${latex(p.symbol)}$ ${shape_latex(p.shape)}$",
            "numel": sympy.latex(p.numel),
        }
        for p in cell.parameters
        if p.kind == "peephole"
    ]


#: Cells with a page of their own above (PyTorch's classes); every other registered cell gets a
#: page derived from the registry (:func:`generic_page_context`), its prose in templates/cells/.
HAND_WRITTEN = {"RNN_TANH": "cells/rnn.md", "RNN_RELU": "cells/rnn.md", "LSTM": "cells/lstm.md", "GRU": "cells/gru.md"}


def generic_path(mode: str) -> str:
    """``cells/<mode>.md`` for a registered cell without a hand-written page (``cells/mgu.md``)."""
    return f"cells/{mode.lower().replace('_', '-')}.md"


def generic_page_context(mode: str) -> dict:
    """Template variables of a registered cell's page: its equations, parameters, closed form and
    every framework class that implements it, with that class's count (from derive.frameworks,
    whose counts the tests hold against each installed framework)."""
    entry = CELLS[mode]
    cell = make_cell(mode, I, H, **entry.page_options)
    classes = []
    for key, fw in fx.FRAMEWORKS.items():
        for spec in fw.cells:
            if spec.mode != mode:
                continue
            options = {k: v for k, v in entry.page_options.items() if k in spec.options}
            dims = spec.options.get("kernel_size")
            if dims and "kernel_size" in options:  # a class of n spatial dimensions (Haiku's ConvNDLSTM)
                taps = tuple(options["kernel_size"]) + tuple(size_symbols("k_3 k_4"))
                options["kernel_size"] = taps[: dims[0]]
            total = fx.count(key, spec.name, I, H, **options)
            classes.append(
                {
                    "framework": fw.title,
                    "path": f"../frameworks/{key.replace('.', '-')}.md",
                    "cls": spec.name,
                    "count": sympy.latex(sympy.factor(total)),
                }
            )
    return {
        "mode": mode,
        "entry": entry,
        "prose": f"cells/{mode}.md.j2",
        "equations": equations_latex(cell),
        "parameters": _parameters_by_gate(cell),
        "cell_count": sympy.latex(sympy.factor(cell.count)),
        "classes": classes,
    }


ORDER = 10
PAGES = [
    Page(page.path, page.title, "cell.md.j2", (lambda page=page: cell_page_context(page)), page.examples, "Cells")
    for page in CELL_PAGES
] + [
    Page(
        generic_path(mode),
        entry.title,
        "cell-generic.md.j2",
        (lambda mode=mode: generic_page_context(mode)),
        (),
        "Cells",
    )
    for mode, entry in sorted(CELLS.items())
    if mode not in HAND_WRITTEN
]
