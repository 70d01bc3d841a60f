"""The reference site's pages, rendered from ``templates/`` with our own Jinja2 environment.

Every number and formula on a page is computed here from the derivation, at
build time; the worked examples are listed in :data:`EXAMPLES` so that the test
suite can hold each one against the real framework. The MkDocs hook
(``derive/mkdocs_hook.py``) calls :func:`render_pages` on every build.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import sympy

from . import torch as dt
from .conventions import PYTORCH
from .latex import equations_latex, latex, shape_latex
from .stack import UPPER
from .symbols import H, I, L, P
from .wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL

__all__ = ["Example", "EXAMPLES", "PAGES", "render_pages", "headline"]


@dataclass(frozen=True)
class Example:
    """A worked example: a ``torch.nn`` constructor call, counted by ``derive.torch``.

    Attributes
    ----------
    cls : str
        Class name in both ``torch.nn`` and ``derive.torch``.
    args : tuple
        Positional arguments (ints).
    kwargs : tuple of (str, value)
        Keyword arguments.
    """

    cls: str
    args: tuple
    kwargs: tuple = ()

    @property
    def call(self) -> str:
        """The constructor as one would type it: ``nn.LSTM(32, 128, 2, bidirectional=True)``."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"nn.{self.cls}({', '.join(parts)})"

    def build(self):
        """The ``derive.torch`` object for this call."""
        return getattr(dt, self.cls)(*self.args, **dict(self.kwargs))


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
    layer_kwargs: tuple = field(default=())


CELL_PAGES = (
    CellPage(
        "cells/rnn.md", "Elman RNN", "RNN", "RNNCell", (),
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
        "cells/lstm.md", "LSTM", "LSTM", "LSTMCell", (),
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
    ),
    CellPage(
        "cells/lstm-projection.md", "LSTM with projection", "LSTM", "LSTMCell", (("proj_size", P),),
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
        "cells/gru.md", "GRU", "GRU", "GRUCell", (),
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

#: The home page's configurations: seed 000's two stacks, and the same with one layer.
HEADLINE = (
    Example("LSTM", (32, 128, 2)),
    Example("LSTM", (32, 128, 2), (("bidirectional", True),)),
    Example("LSTM", (32, 128, 1)),
    Example("LSTM", (32, 128, 1), (("bidirectional", True),)),
)

#: Every worked example shown on the site; the tests hold each against torch.
EXAMPLES: tuple[Example, ...] = HEADLINE + tuple(e for page in CELL_PAGES for e in page.examples)

#: Generated pages: path -> title.
PAGES = {"index.md": "Home", **{page.path: page.title for page in CELL_PAGES}}

_DIRECTION = {0: "forward", 1: "reverse"}


def _number(value) -> str:
    return f"{int(value):,}"


def _tensor_rows(stack, layer):
    rows = []
    for t in stack.layer_tensors(layer):
        blocks = r" \\ ".join(latex(p.symbol) for p in t.parameters)
        rows.append({
            "name": t.name.replace(f"_l{UPPER}", "_l{k}"),
            "direction": _DIRECTION[t.direction],
            "shape": shape_latex(t.shape),
            "blocks": blocks if len(t.parameters) == 1 else rf"\begin{{smallmatrix}}{blocks}\end{{smallmatrix}}",
            "numel": sympy.latex(sympy.factor(t.numel)),
        })
    return rows


def _example_context(example: Example) -> dict:
    stack = example.build()
    layers = range(int(stack.num_layers)) if hasattr(stack, "num_layers") else range(1)
    return {
        "call": example.call,
        "count": _number(stack.count),
        "layers": [_number(stack.layer_count(k)) for k in layers],
        "shapes": [(name, shape) for name, shape in stack.shapes.items()],
    }


def _formulas(stack) -> dict:
    return {"expanded": sympy.latex(stack.count), "factored": sympy.latex(stack.factored)}


def _cell_page(page: CellPage) -> dict:
    cls = getattr(dt, page.cls)
    sym = dict(page.symbolic_kwargs)
    wirings = []
    for bidirectional, wiring in ((False, UNIDIRECTIONAL), (True, DEEP_BIDIRECTIONAL)):
        stack = cls(I, H, L, bidirectional=bidirectional, **sym)
        wirings.append({
            "name": wiring.name,
            "D": wiring.num_directions,
            "layers": [
                {
                    "label": label,
                    "input": sympy.latex(stack.layer_input_size(layer)),
                    "rows": _tensor_rows(stack, layer),
                    "count": sympy.latex(sympy.factor(stack.layer_count(layer))),
                }
                for label, layer in (("layer 0", 0), ("layer $k \\ge 1$", UPPER))
            ],
            "total": _formulas(stack),
            "total_no_bias": _formulas(cls(I, H, L, bias=False, bidirectional=bidirectional, **sym)),
        })
    first = cls(I, H, L, **sym).cell(0)
    single = getattr(dt, page.cell_cls)(I, H)
    return {
        "page": page,
        "equations": equations_latex(first),
        "parameters": [
            {"symbol": latex(p.symbol), "shape": shape_latex(p.shape), "numel": sympy.latex(p.numel)}
            for p in first.parameters
        ],
        "cell_count": sympy.latex(sympy.factor(first.count)),
        "wirings": wirings,
        "cell_class": page.cell_cls,
        "cell_rows": _tensor_rows(single, 0),
        "cell_total": sympy.latex(sympy.factor(single.count)),
        "examples": [_example_context(e) for e in page.examples],
        "convention": PYTORCH,
    }


def headline() -> dict:
    """The numbers of the home page's question (seed 000), all computed by the derivation.

    Returns
    -------
    dict
        ``uni``, ``bi`` (counts), ``twice_uni`` (2 × uni), ``extra`` (bi − 2 × uni),
        ``extra_formula`` (bi − 2 × uni with I, H, L symbolic), per-layer counts and the
        layer-1 input widths.
    """
    uni, bi, one_uni, one_bi = (e.build() for e in HEADLINE)
    sym_uni, sym_bi = dt.LSTM(I, H, L), dt.LSTM(I, H, L, bidirectional=True)
    return {
        "uni": uni.count,
        "bi": bi.count,
        "twice_uni": 2 * uni.count,
        "extra": bi.count - 2 * uni.count,
        "extra_formula": sympy.factor(sym_bi.count - 2 * sym_uni.count),
        "uni_layers": [uni.layer_count(k) for k in range(2)],
        "bi_layers": [bi.layer_count(k) for k in range(2)],
        "uni_layer1_input": uni.layer_input_size(1),
        "bi_layer1_input": bi.layer_input_size(1),
        "uni_formula": sym_uni.count,
        "bi_formula": sym_bi.count,
        "uni_factored": sym_uni.factored,
        "bi_factored": sym_bi.factored,
        "one_layer": [one_uni.count, one_bi.count],
        "layer1_tensors": [
            [(t.name, tuple(int(d) for d in t.shape)) for t in stack.layer_tensors(1) if t.direction == 0]
            for stack in (uni, bi)
        ],
        "calls": [e.call for e in HEADLINE],
    }


def _environment(template_dir: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["number"] = _number
    env.filters["tex"] = sympy.latex
    return env


def render_pages(template_dir: Path) -> dict[str, str]:
    """Render every page.

    Parameters
    ----------
    template_dir : pathlib.Path
        The ``templates/`` folder.

    Returns
    -------
    dict of str to str
        Docs-relative path (``"index.md"``, ``"cells/lstm.md"``, ...) -> Markdown.
    """
    env = _environment(Path(template_dir))
    pages = {"index.md": env.get_template("index.md.j2").render(h=headline(), cells=CELL_PAGES)}
    cell = env.get_template("cell.md.j2")
    for page in CELL_PAGES:
        pages[page.path] = cell.render(**_cell_page(page))
    return pages
