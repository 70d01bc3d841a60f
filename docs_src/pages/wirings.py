"""One page per wiring: its diagram (SVG drawn from the wiring), equations, derived counts and differences.

Every formula on these pages is the count of a :class:`~derive.engine.stack.Stack` built with the
wiring, and every difference is :func:`derive.analysis.difference.compare` of two such stacks; the
worked numbers are checked against torch constructions (and Keras 3) in
``tests/engine/test_wirings.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy

import derive.frameworks.keras as dk
from derive.analysis.difference import compare
from derive.engine.stack import UPPER, Stack
from derive.engine.symbols import H, I, L, P, as_expr, size_symbols
from derive.engine.wirings import (
    DEEP_BIDIRECTIONAL,
    KERAS_MERGE_MODES,
    SHARED_INPUT_WEIGHTS,
    SIMPLE_CONCAT,
    UNIDIRECTIONAL,
    K,
    Wiring,
    keras_bidirectional,
    modified_brnn,
)
from derive.frameworks.pytorch import PYTORCH, Convention
from derive.render.diagram import wiring_svg
from derive.render.display import latex_number
from derive.render.latex import shape_latex

from ..site import Example, Page, number
from .common import tensor_rows

__all__ = [
    "tex",
    "WIRING_PAGES",
    "WiringPage",
    "build",
    "wiring_equations",
    "wiring_page_context",
    "overview_context",
    "EXAMPLE_SIZES",
    "O",
]

#: O, the output layer's width.
O = sympy.Symbol("O", integer=True, positive=True)

#: The worked example of every wiring page: I = 32, H = 128, L = 2 (seed 000's sizes), K = O = 10.
EXAMPLE_SIZES = {"input_size": 32, "hidden_size": 128, "num_layers": 2, "classes": 10}

#: Cells shown in the count tables: (mode, proj_size, title, cell page).
CELLS = (
    ("RNN_TANH", 0, "Elman RNN", "../cells/rnn.md"),
    ("LSTM", 0, "LSTM", "../cells/lstm.md"),
    ("GRU", 0, "GRU", "../cells/gru.md"),
    ("LSTM", P, "LSTM with projection", "../cells/lstm-projection.md"),
)


def build(
    wiring: Wiring,
    mode: str = "LSTM",
    input_size=I,
    hidden_size=H,
    num_layers=L,
    *,
    proj_size=0,
    bias: bool = True,
    output_features=0,
    convention=PYTORCH,
) -> Stack:
    """A stack of ``mode`` cells wired by ``wiring`` (PyTorch's tensor names by default).

    Parameters
    ----------
    wiring : Wiring
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
    input_size, hidden_size, num_layers, proj_size : int or sympy.Expr
        I, H, L, P.
    bias : bool
    output_features : int or sympy.Expr
        O of an output layer on top, 0 for none.
    convention : Convention
    """
    return Stack(
        mode, input_size, hidden_size, num_layers, bias, proj_size, convention, wiring, output_features=output_features
    )


@dataclass(frozen=True)
class WiringPage:
    """A wiring page: the wiring, its text and how its worked example is built in torch."""

    slug: str
    title: str
    wiring: Wiring
    summary: str
    source: str
    torch: str
    examples: tuple[Example, ...] = ()
    variants: tuple[Wiring, ...] = field(default=())
    convention: Convention = PYTORCH
    extra: Callable[[], dict] | None = None


def _modified(placement=("states",), posterior="forward", classes=K) -> Wiring:
    return modified_brnn(classes, posterior, placement)


_E = EXAMPLE_SIZES
_UNI_CALL = Example("LSTM", (_E["input_size"], _E["hidden_size"], _E["num_layers"]))
_BI_CALL = Example("LSTM", (_E["input_size"], _E["hidden_size"], _E["num_layers"]), (("bidirectional", True),))
_LABELLED_CALL = Example("LSTM", (_E["input_size"] + _E["classes"], _E["hidden_size"], _E["num_layers"]))


def keras_stack(merge_mode: str = "concat", units=_E["hidden_size"], num_layers: int = _E["num_layers"]) -> list:
    """The Keras page's worked example: ``num_layers`` ``Bidirectional(LSTM(units))`` layers (derive.keras)."""
    return [
        dk.Bidirectional(dk.LSTM(units, return_sequences=k < num_layers - 1), merge_mode=merge_mode)
        for k in range(num_layers)
    ]


H_f, H_b = size_symbols("H_f H_b")


def keras_extra() -> dict:
    """The Keras page's own numbers, from :mod:`derive.keras`: the worked example counted by the Keras
    adapter (the same as the engine's stack), and a backward layer with other units."""
    e = EXAMPLE_SIZES
    asymmetric = dk.Bidirectional(
        dk.LSTM(H_f, return_sequences=True),
        backward_layer=dk.LSTM(H_b, return_sequences=True, go_backwards=True),
        input_dim=I,
    )
    return {
        "adapter_count": int(dk.count(keras_stack(), e["input_size"])),
        "asym_count": sympy.latex(sympy.factor(asymmetric.count)),
        "asym_width": sympy.latex(asymmetric.output_dim(I)),
        "asym_sum": sympy.latex(
            sympy.factor(dk.count(asymmetric.forward_layer, I)) + sympy.factor(dk.count(asymmetric.backward_layer, I)),
            order="none",
        ),
    }


#: The Keras worked example as one would type it.
KERAS_STACK_CALL = (
    f"[layers.Bidirectional(layers.LSTM({_E['hidden_size']}, return_sequences=True)), "
    f"layers.Bidirectional(layers.LSTM({_E['hidden_size']}))]"
)

WIRING_PAGES = (
    WiringPage(
        "unidirectional",
        "Unidirectional",
        UNIDIRECTIONAL,
        "One direction: layer 0 reads the input, every layer above reads the $H_\\text{out}$-wide output of "
        "the layer below.",
        "PyTorch `torch/nn/modules/rnn.py` (`RNNBase.__init__`), `bidirectional=False`.",
        f"`{_UNI_CALL.call}`",
        (_UNI_CALL,),
    ),
    WiringPage(
        "deep-bidirectional",
        "Deep bidirectional (PyTorch)",
        DEEP_BIDIRECTIONAL,
        "Both directions of every layer $k \\ge 1$ read the time-aligned concatenation "
        "$[\\overrightarrow{h}^{(k-1)}_t ; \\overleftarrow{h}^{(k-1)}_t]$ of the layer below: "
        "$2H_\\text{out}$ features, so their input weights are twice as wide as in a unidirectional stack.",
        "A. Graves, N. Jaitly, A. Mohamed, *Hybrid speech recognition with deep bidirectional LSTM*, "
        "ASRU 2013 (arXiv:1303.5778); PyTorch `torch/nn/modules/rnn.py` (`RNNBase.__init__`), "
        "`aten/src/ATen/native/RNN.cpp` (`FullBidirectionalLayer`); cuDNN; TF1 `stack_bidirectional_rnn`.",
        f"`{_BI_CALL.call}`",
        (_BI_CALL,),
    ),
    WiringPage(
        "simple-concat",
        "Simple concat (two stacks)",
        SIMPLE_CONCAT,
        "Two independent stacks, one per direction, joined only at the top: every layer reads only its own "
        "direction below. Exactly twice a unidirectional stack.",
        "AllenNLP `ElmoLstm` (`allennlp/modules/elmo_lstm.py`); TF1 "
        "`tf.compat.v1.nn.bidirectional_dynamic_rnn` over a `MultiRNNCell` (`tensorflow/python/ops/rnn.py`); "
        "asked of PyTorch in pytorch/pytorch#4930.",
        f"two unidirectional stacks, `forward = {_UNI_CALL.call}` and `backward = {_UNI_CALL.call}`, the "
        "backward one run on the time-reversed sequence",
        (_UNI_CALL,),
    ),
    WiringPage(
        "keras-bidirectional",
        "Keras Bidirectional",
        keras_bidirectional("concat"),
        "One `Bidirectional` wrapper per layer. Each holds a forward layer and a backward clone "
        "(`go_backwards=True`); `merge_mode` adds no weight but sets what the next layer reads: `concat` "
        "$2H$ (the deep bidirectional wiring), `sum`, `mul`, `ave` $H$ — and both directions of the next layer "
        "read that merged output.",
        "Keras 3 `keras/src/layers/rnn/bidirectional.py`.",
        "in Keras 3 (`KERAS_BACKEND=torch`), `keras.Sequential` of "
        f"`{KERAS_STACK_CALL}`, on inputs of {_E['input_size']} features",
        (),
        tuple(keras_bidirectional(m) for m in KERAS_MERGE_MODES[1:]),
        dk.KERAS,
        lambda: keras_extra(),
    ),
    WiringPage(
        "shared-input-weights",
        "Shared input weights (Deep Speech 2)",
        SHARED_INPUT_WEIGHTS,
        "The deep bidirectional wiring, with the input-to-hidden weights of each layer shared by its two "
        "directions: one tensor, read by both, counted once. Each direction keeps its recurrent weights and "
        "biases.",
        "D. Amodei et al., *Deep Speech 2*, ICML 2016 (arXiv:1512.02595), as implemented in "
        'PaddlePaddle/models#224 (`share_rnn_weights`: "Share input-hidden weights across bi-directional '
        'RNNs"; the shared projection has no bias there).',
        f"`m = {_BI_CALL.call}` with each reverse input weight replaced by the forward one "
        "(`m.weight_ih_l0_reverse = m.weight_ih_l0`, and likewise for every layer), counted as "
        "`sum(p.numel() for p in m.parameters())`, which lists a shared tensor once",
        (_BI_CALL,),
    ),
    WiringPage(
        "modified-brnn",
        "Modified BRNN (Schuster & Paliwal)",
        _modified(),
        "Schuster and Paliwal's BRNN for *dependent outputs* (Part III of the paper): to estimate the "
        "forward posterior $\\Pr(c_t \\mid c_1, \\dots, c_{t-1}, x_1^T)$ the network also reads the class of the "
        "previous step, $c_{t-1}$, one-hot over $K$ classes. The basic BRNN's two directions stay independent.",
        "M. Schuster, K. K. Paliwal, *Bidirectional recurrent neural networks*, IEEE Trans. Signal Processing "
        "45(11):2673–2681, 1997, Part III.",
        f"a forward `{_LABELLED_CALL.call}` reading $[x_t ; c_{{t-1}}]$ and a backward `{_UNI_CALL.call}`, "
        "the output layer a `torch.nn.Linear` on their concatenation",
        (_LABELLED_CALL, _UNI_CALL),
        (_modified(("states", "output")), _modified(("output",)), _modified(posterior="backward")),
    ),
)

#: Wirings every page is compared with: (title, slug, wiring).
COMPARED = tuple((p.title, p.slug, p.wiring) for p in WIRING_PAGES) + (
    ("Keras Bidirectional, merge_mode='sum'", "keras-bidirectional", keras_bidirectional("sum")),
)

_ARROW = {0: r"\overrightarrow{h}", 1: r"\overleftarrow{h}"}
_PREVIOUS = {0: "t-1", 1: "t+1"}
_SIDE = {0: r"\rightarrow", 1: r"\leftarrow"}
_ROLE_TEX = {
    ("weight", "ih"): r"W_{i\cdot}",
    ("weight", "hh"): r"W_{h\cdot}",
    ("weight", "hr"): r"W_{hr}",
    ("bias", "ih"): r"b_{i\cdot}",
    ("bias", "hh"): r"b_{h\cdot}",
}


def _state(direction, layer, time="t"):
    return f"{_ARROW[direction]}^{{({layer})}}_{{{time}}}"


def _merged(wiring: Wiring, layer: str) -> str:
    """LaTeX of what layer ``layer`` + 1 reads from ``layer`` (both directions merged)."""
    if wiring.num_directions == 1:
        return f"h^{{({layer})}}_t"
    f, b = _state(0, layer), _state(1, layer)
    return {
        "concat": rf"\begin{{bmatrix}} {f} \\ {b} \end{{bmatrix}}",
        "separate": rf"\begin{{bmatrix}} {f} \\ {b} \end{{bmatrix}}",
        "sum": f"{f} + {b}",
        "mul": rf"{f} \odot {b}",
        "ave": rf"\tfrac{{1}}{{2}}\left({f} + {b}\right)",
    }[wiring.merge]


def wiring_equations(wiring: Wiring, output_layer: bool = False) -> str:
    """The wiring's equations in LaTeX (an ``aligned`` block without ``$$``): what each layer and direction
    reads, written from the wiring's fields (directions, merge, shared roles, labels)."""
    rows = []
    labels = wiring.labels
    if wiring.num_directions == 1:
        rows.append(r"h^{(0)}_t &= \operatorname{cell}^{(0)}\left(x_t,\; h^{(0)}_{t-1}\right)")
        rows.append(r"h^{(k)}_t &= \operatorname{cell}^{(k)}\left(h^{(k-1)}_t,\; h^{(k)}_{t-1}\right), \quad k \ge 1")
    else:
        for d in range(2):
            read = "x_t"
            if labels is not None and "states" in labels.placement and labels.direction == d:
                read = rf"\begin{{bmatrix}} x_t \\ {labels.symbol} \end{{bmatrix}}"
            rows.append(
                rf"{_state(d, 0)} &= \operatorname{{cell}}^{{(0)}}_{{{_SIDE[d]}}}"
                rf"\left({read},\; {_state(d, 0, _PREVIOUS[d])}\right)"
            )
        for d in range(2):
            if wiring.merge == "separate":
                read = _state(d, "k-1")
            else:
                read = _merged(wiring, "k-1")
            rows.append(
                rf"{_state(d, 'k')} &= \operatorname{{cell}}^{{(k)}}_{{{_SIDE[d]}}}"
                rf"\left({read},\; {_state(d, 'k', _PREVIOUS[d])}\right), \quad k \ge 1"
            )
        for kind, group in wiring.shared:
            tex = _ROLE_TEX[(kind, group)]
            rows.append(
                rf"\overrightarrow{{{tex}}}^{{(l)}} &= \overleftarrow{{{tex}}}^{{(l)}} \quad"
                r"\text{(one parameter, every layer } l\text{)}"
            )
    top = _merged(wiring, "L-1")
    if output_layer or (labels is not None and "output" in labels.placement):
        if labels is not None and "output" in labels.placement:
            parts = [_state(0, "L-1"), _state(1, "L-1"), labels.symbol]
            top = r"\begin{bmatrix} " + r" \\ ".join(parts) + r" \end{bmatrix}"
        rows.append(rf"y_t &= W_y {top} + b_y")
    else:
        rows.append(rf"\text{{output}}_t &= {top}")
    return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"


def _reads(stack: Stack) -> list[dict]:
    """What each layer and direction reads (LaTeX widths), layer 0 then any layer k >= 1."""
    rows = []
    for label, layer in (("0", 0), ("$k \\ge 1$", UPPER)):
        for d, name in enumerate(stack.wiring.directions):
            rows.append({"layer": label, "direction": name, "width": sympy.latex(stack.layer_input_size(layer, d))})
    if stack.output_features != 0:
        rows.append(
            {
                "layer": "output",
                "direction": "—",
                "width": sympy.latex(stack.wiring.output_layer_input_size(stack.output_size)),
            }
        )
    return rows


def tex(expr) -> str:
    """LaTeX of a count: an integer with thin thousands separators (``65{,}536``), else SymPy's LaTeX."""
    expr = as_expr(expr)
    return latex_number(expr) if expr.is_Integer else sympy.latex(expr)


def change_rows(difference) -> list[dict]:
    """Rows of a difference table: which tensors differ, where, by how much and why."""
    return [
        {
            "tensors": ", ".join(f"`{n}`" for n in dict.fromkeys(c.tensors)),
            "directions": ", ".join(c.directions),
            "layers": c.layers_latex,
            "shape_a": "—" if c.shape_a is None else f"${shape_latex(c.shape_a)}$",
            "shape_b": "—" if c.shape_b is None else f"${shape_latex(c.shape_b)}$",
            "each": tex(sympy.factor(c.each)),
            "times": tex(c.times),
            "amount": tex(c.amount),
            "reason": c.reason,
        }
        for c in difference.changes
    ]


def _counts(wiring: Wiring, convention=PYTORCH) -> list[dict]:
    rows = []
    for mode, proj, title, link in CELLS:
        if proj != 0 and convention is not PYTORCH:
            continue  # a projection is PyTorch's (LSTMP); other conventions have no tensor for W_hr
        stack = build(wiring, mode, proj_size=proj, convention=convention)
        rows.append(
            {
                "cell": title,
                "link": link,
                "count": sympy.latex(sympy.factor(stack.count)),
                "expanded": sympy.latex(stack.count),
            }
        )
    return rows


def _numbers(wiring: Wiring, output_features=0, convention=PYTORCH) -> dict:
    """The worked example (LSTM, I = 32, H = 128, L = 2, K = O = 10): per layer, per direction, total."""
    e = EXAMPLE_SIZES
    w = _with_classes(wiring, e["classes"])
    stack = build(
        w,
        "LSTM",
        e["input_size"],
        e["hidden_size"],
        e["num_layers"],
        output_features=output_features,
        convention=convention,
    )
    layers = []
    for k in range(e["num_layers"]):
        per_direction = {}
        for t in stack.layer_tensors(k):
            per_direction.setdefault(w.directions[t.direction], []).append(t)
        layers.append(
            {
                "layer": k,
                "directions": [
                    (
                        name,
                        number(sum(int(t.numel) for t in ts)),
                        [(t.name, tuple(int(d) for d in t.shape)) for t in ts],
                    )
                    for name, ts in per_direction.items()
                ],
                "count": number(stack.layer_count(k)),
            }
        )
    return {
        "count": stack.count,
        "count_text": number(stack.count),
        "layers": layers,
        "output": [(t.name, tuple(int(d) for d in t.shape)) for t in stack.output_tensors],
        "output_count": number(sum(int(t.numel) for t in stack.output_tensors)),
        "stack": stack,
    }


def _with_classes(wiring: Wiring, classes) -> Wiring:
    """``wiring`` with a numeric K (modified BRNN), unchanged otherwise."""
    if wiring.labels is None:
        return wiring
    return modified_brnn(classes, wiring.labels.posterior, wiring.labels.placement)


def _differences(wiring: Wiring, convention=PYTORCH) -> list[dict]:
    this = build(wiring, convention=convention)
    out = []
    for title, other_slug, other in COMPARED:
        if other == wiring or (convention is not PYTORCH and (other.shared or other.labels)):
            continue  # in another convention: only the wirings its framework builds from its own layers
        d = compare(this, build(other, convention=convention))
        out.append(
            {
                "title": title,
                "link": f"{other_slug}.md",
                "total": sympy.latex(d.total),
                "sum": d.latex(),
                "changes": change_rows(d),
            }
        )
    return out


def wiring_page_context(page: WiringPage) -> dict:
    """Template variables of a wiring page (see ``templates/wiring.md.j2``)."""
    wiring, convention = page.wiring, page.convention
    stack = build(wiring, convention=convention)
    with_output = build(wiring, output_features=O, convention=convention)
    modified = wiring.labels is not None
    classes = K if modified else 0  # a modified BRNN ends in an output layer over its K classes
    variants = []
    for v in page.variants:
        vs = build(v, output_features=classes, convention=convention)
        d = compare(vs, build(wiring, output_features=classes, convention=convention))
        variants.append(
            {
                "name": v.name,
                "svg": wiring_svg(v, ident=f"{page.slug}-{len(variants) + 1}", output_layer=modified),
                "equations": wiring_equations(v, output_layer=modified),
                "reads": _reads(vs),
                "count": sympy.latex(sympy.factor(vs.count)),
                "difference": {"total": sympy.latex(d.total), "changes": change_rows(d)},
            }
        )
    posteriors = None
    if modified:
        forward, backward = (
            build(_modified(wiring.labels.placement, side), output_features=K) for side in ("forward", "backward")
        )
        posteriors = {
            "forward": sympy.latex(sympy.factor(forward.count)),
            "backward": sympy.latex(sympy.factor(backward.count)),
            "both": sympy.latex(sympy.factor(forward.count + backward.count)),
            "moved": change_rows(compare(backward, forward)),
        }
    return {
        "posteriors": posteriors,
        "page": page,
        "svg": wiring_svg(wiring, ident=page.slug, output_layer=modified),
        "equations": wiring_equations(wiring, output_layer=modified),
        "reads": _reads(build(wiring, output_features=O if modified else 0)),
        "tensors": [
            {"label": label, "rows": tensor_rows(stack, layer)}
            for label, layer in (("layer 0", 0), ("layer $k \\ge 1$", UPPER))
        ],
        "counts": _counts(wiring, convention),
        "convention": convention,
        "output": {
            "count": sympy.latex(sympy.factor(with_output.count)),
            "extra": sympy.latex(sympy.factor(with_output.count - stack.count)),
            "width": sympy.latex(wiring.output_layer_input_size(H)),
        },
        "differences": _differences(wiring, convention),
        "variants": variants,
        "extra": page.extra() if page.extra else {},
        "example": _numbers(wiring, EXAMPLE_SIZES["classes"] if modified else 0, convention),
        "example_sizes": EXAMPLE_SIZES,
        "modified": modified,
    }


def overview_context() -> dict:
    """The overview page: every wiring's LSTM count and its difference to PyTorch's deep bidirectional stack."""
    deep = build(DEEP_BIDIRECTIONAL)
    rows = []
    for title, slug, wiring in COMPARED:
        stack = build(wiring)
        e = _numbers(wiring)
        rows.append(
            {
                "title": title,
                "link": f"{slug}.md",
                "count": sympy.latex(sympy.factor(stack.count)),
                "minus_deep": sympy.latex(compare(stack, deep).total),
                "upper": sympy.latex(stack.layer_input_size(UPPER)),
                "example": e["count_text"],
            }
        )
    single = build(UNIDIRECTIONAL, output_features=O)
    out_cell = single.output_cell()
    return {
        "rows": rows,
        "sizes": EXAMPLE_SIZES,
        "output_equation": sympy.latex(out_cell.equations[0][0]) + " = " + _latex_rhs(out_cell),
        "output_tensors": [
            {"name": t.name, "shape": shape_latex(t.shape), "numel": sympy.latex(t.numel)}
            for t in build(DEEP_BIDIRECTIONAL, output_features=O).output_tensors
        ],
    }


def _latex_rhs(cell) -> str:
    from derive.render.latex import latex

    return latex(cell.equations[0][1])


ORDER = 40
PAGES = [Page("wirings/index.md", "Overview", "wirings-overview.md.j2", overview_context, (), "Wirings")] + [
    Page(f"wirings/{p.slug}.md", p.title, "wiring.md.j2", (lambda p=p: wiring_page_context(p)), p.examples, "Wirings")
    for p in WIRING_PAGES
]
