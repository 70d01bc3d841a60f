"""The Keras 3 page: convention, tensors in Keras' names, Bidirectional merge modes, seed 001."""

from __future__ import annotations

import sympy

import derive.frameworks.keras as dk
import derive.frameworks.pytorch as dt
from derive.engine.symbols import H, I, size_symbols
from derive.render.latex import equations_latex, latex, shape_latex

from ..site import Example, Page, number
from .common import side_by_side

#: Symbols of this page besides I and H: a second layer's units, ConvLSTM filters, channels and kernel.
H_2, H_b, F, C, K, k_1, k_2 = size_symbols("H_2 H_b F C K k_1 k_2")


def K_(cls: str, *args, input_shape: tuple = (), **kwargs) -> Example:
    """A Keras example: ``layers.<cls>(*args, **kwargs)`` applied to ``keras.Input(input_shape)``."""
    return Example(cls, args, tuple(kwargs.items()), "keras", input_shape)


SEQ = (28, 28)  # seed 001: 28 time steps of 28 features
UNI = K_("LSTM", 256, input_shape=SEQ)
BI = K_("Bidirectional", K_("LSTM", 128), input_shape=SEQ)
MERGE_STACKS = tuple(
    K_(
        "Sequential",
        (K_("Bidirectional", K_("LSTM", 64, return_sequences=True), merge_mode=mode), K_("LSTM", 32)),
        input_shape=SEQ,
    )
    for mode in ("concat", "sum", "mul", "ave")
)
KERAS_EXAMPLES = (
    UNI,
    BI,
    K_("SimpleRNN", 32, input_shape=(10, 8)),
    K_("GRU", 64, input_shape=(20, 16)),
    K_("GRU", 64, reset_after=False, input_shape=(20, 16)),
    K_("LSTM", 50, use_bias=False, input_shape=(20, 10)),
    K_("Bidirectional", K_("LSTM", 128), merge_mode=None, input_shape=SEQ),
    K_(
        "Bidirectional",
        K_("LSTM", 64, return_sequences=True),
        backward_layer=K_("GRU", 32, return_sequences=True, go_backwards=True),
        input_shape=SEQ,
    ),
    *MERGE_STACKS,
    K_("RNN", K_("LSTMCell", 64), input_shape=(20, 16)),
    K_("RNN", (K_("LSTMCell", 64), K_("GRUCell", 32)), input_shape=(20, 16)),
    K_("Bidirectional", K_("RNN", K_("GRUCell", 32)), input_shape=(20, 16)),
    K_("ConvLSTM1D", 8, 5, input_shape=(10, 40, 2)),
    K_("ConvLSTM2D", 16, (3, 3), padding="same", input_shape=(10, 32, 32, 3)),
    K_("ConvLSTM3D", 4, (3, 3, 3), input_shape=(5, 8, 8, 8, 1)),
)
#: PyTorch counterparts of Keras examples: (Keras example, torch example), same cell, sizes, directions.
TORCH_PAIRS = (
    (UNI, Example("LSTM", (28, 256))),
    (BI, Example("LSTM", (28, 128), (("bidirectional", True),))),
    (KERAS_EXAMPLES[2], Example("RNN", (8, 32))),
    (KERAS_EXAMPLES[3], Example("GRU", (16, 64))),
)


def _count(example: Example):
    return dk.count(example.build(), example.input_shape[-1])


def _tensors(example: Example):
    return example.build().tensors(example.input_shape[-1])


def _blocks(weight: dk.Weight) -> str:
    """The blocks a Keras weight stacks, left to right (a (2, G·H) bias: one row per group)."""

    def one(p):
        if p.kind == "bias":
            return rf"{latex(p.symbol)}^\top"
        return rf"\widehat{{{latex(p.symbol)}}}" if p.kernel_size else rf"{latex(p.symbol)}^\top"

    params = weight.parameters
    rows = weight.shape[0] if params[0].kind == "bias" and len(weight.shape) == 2 else 1
    per_row = len(params) // rows
    return side_by_side([[one(p) for p in params[k : k + per_row]] for k in range(0, len(params), per_row)])


def _collected(expr) -> str:
    """A count factored, with the factor's inner sum collected in the kernel size K (ConvLSTM)."""
    factored = sympy.factor(expr)
    if K in factored.free_symbols:
        factored = sympy.Mul(*(sympy.collect(f, K) if f.is_Add else f for f in sympy.Mul.make_args(factored)))
    return sympy.latex(factored)


def _layer_section(title: str, layer, input_dim, torch=None, note: str = "") -> dict:
    cell = layer.cell(input_dim)
    count = dk.count(layer, input_dim)
    section = {
        "title": title,
        "call": repr(layer),
        "equations": equations_latex(cell),
        "rows": [
            {
                "name": w.name,
                "shape": shape_latex(w.shape),
                "blocks": _blocks(w),
                "numel": sympy.latex(sympy.factor(w.numel)),
            }
            for w in layer.tensors(input_dim)
        ],
        "expanded": sympy.latex(count),
        "factored": _collected(count),
        "note": note,
        "torch": None,
        "general": None,
    }
    if torch is not None:
        section["torch"] = {
            "call": torch,
            "difference": sympy.latex(sympy.factor(getattr(dt, torch)(I, H).count - count)),
        }
    return section


def _conv_general() -> str:
    """The ConvLSTM count with K kernel taps, derived from ``ConvLSTM1D(F, K)``; only K = k_1 k_2 ... enters."""
    general = dk.ConvLSTM1D(F, K, input_dim=C).count
    two_d = dk.ConvLSTM2D(F, (k_1, k_2), input_dim=C).count
    assert sympy.expand(two_d.subs(k_1, K / k_2) - general) == 0
    return _collected(general)


def cell_sections() -> list[dict]:
    """One section per Keras layer kind, derived with symbolic sizes."""
    sections = [
        _layer_section(
            "SimpleRNN",
            dk.SimpleRNN(H),
            I,
            "RNN",
            "The equation is written with tanh; `activation` does not change the weights.",
        ),
        _layer_section(
            "LSTM", dk.LSTM(H), I, "LSTM", "Keras calls the candidate block `c`; it is PyTorch's `g` (same equation)."
        ),
        _layer_section(
            "GRU, reset_after=True (default)",
            dk.GRU(H),
            I,
            "GRU",
            "The equations are PyTorch's (same cell); Keras stacks the blocks z, r, h, its `h` being "
            "the candidate $n_t$. The reset gate multiplies the recurrent product and its bias, so the "
            "recurrent biases cannot be merged into the input ones: `bias` has two rows, input and "
            "recurrent.",
        ),
        _layer_section(
            "GRU, reset_after=False",
            dk.GRU(H, reset_after=False),
            I,
            None,
            "The reset gate multiplies the state before the product (Cho et al. 2014): every bias "
            "is added in a sum with another, so one bias per gate remains. This is not the cell "
            "PyTorch computes.",
        ),
        _layer_section(
            "ConvLSTM2D",
            dk.ConvLSTM2D(F, (k_1, k_2)),
            C,
            None,
            "Written for one output position: $\\mathcal{X}_t$ is the input patch under the kernel, "
            "unfolded to a $k_1 k_2 C$ column (im2col), and $\\mathcal{H}_{t-1}$ the patch of the "
            "previous hidden state ($k_1 k_2 F$). Each $W$ is $(F, k_1 k_2 C)$ or $(F, k_1 k_2 F)$; "
            "$\\widehat{W}$ is the same numbers reshaped to the kernel $(k_1, k_2, C, F)$ or "
            "$(k_1, k_2, F, F)$. Strides, padding and dilation move the patches, not the weights.",
        ),
    ]
    sections[-1]["general"] = _conv_general()
    return sections


def _named(tensors, name: str) -> list:
    return [w for w in tensors if w.name == name]


def seed_001() -> dict:
    """Seed 001: ``LSTM(256)`` vs ``Bidirectional(LSTM(128))`` on 28 features, all numbers derived.

    Returns
    -------
    dict
        ``uni``, ``bi`` (counts), ``uni_by_name``/``bi_by_name`` (parameters per Keras weight name,
        both directions added), ``difference``, the symbolic ``LSTM(2H)`` and ``Bidirectional(LSTM(H))``
        counts and their difference, per-name symbolic sums, ``ratio`` (exact) and the torch counts.
    """

    def by_name(tensors) -> dict:
        out: dict = {}
        for w in tensors:
            out[w.name] = out.get(w.name, 0) + w.numel
        return out

    uni, bi = _tensors(UNI), _tensors(BI)
    sym_uni, sym_bi = dk.LSTM(2 * H, input_dim=I).tensors(), dk.Bidirectional(dk.LSTM(H), input_dim=I).tensors()
    n_uni, n_bi = _count(UNI), _count(BI)
    sym_by_uni, sym_by_bi = by_name(sym_uni), by_name(sym_bi)
    return {
        "uni": n_uni,
        "bi": n_bi,
        "uni_by_name": {k: int(v) for k, v in by_name(uni).items()},
        "bi_by_name": {k: int(v) for k, v in by_name(bi).items()},
        "difference": n_uni - n_bi,
        "calls": (UNI.call, BI.call),
        "sym_uni": sympy.expand(dk.LSTM(2 * H, input_dim=I).count),
        "sym_bi": sympy.expand(dk.Bidirectional(dk.LSTM(H), input_dim=I).count),
        "sym_uni_factored": sympy.factor(dk.LSTM(2 * H, input_dim=I).count),
        "sym_bi_factored": sympy.factor(dk.Bidirectional(dk.LSTM(H), input_dim=I).count),
        "sym_difference": sympy.factor(
            dk.LSTM(2 * H, input_dim=I).count - dk.Bidirectional(dk.LSTM(H), input_dim=I).count
        ),
        "names": [
            {"name": name, "uni": sympy.factor(sym_by_uni[name]), "bi": sympy.factor(sym_by_bi[name])}
            for name in sym_by_uni
        ],
        "ratio": sympy.Rational(n_bi, n_uni),
        "ratio_formula": sympy.factor(dk.Bidirectional(dk.LSTM(H), input_dim=I).count)
        / sympy.factor(dk.LSTM(2 * H, input_dim=I).count),
        "lstm_formula": sympy.expand(dk.LSTM(H, input_dim=I).count),
        "ratio_limit": sympy.limit(
            sympy.factor(dk.Bidirectional(dk.LSTM(H), input_dim=I).count)
            / sympy.factor(dk.LSTM(2 * H, input_dim=I).count),
            H,
            sympy.oo,
        ),
        "recurrent": {
            "uni_shape": shape_latex(_named(sym_uni, "recurrent_kernel")[0].shape),
            "bi_shape": shape_latex(_named(sym_bi, "recurrent_kernel")[0].shape),
            "uni": sympy.latex(sym_by_uni["recurrent_kernel"]),
            "bi": sympy.latex(sym_by_bi["recurrent_kernel"]),
            "at_128": int((sym_by_bi["recurrent_kernel"]).subs(H, 128)),
        },
        "torch_uni": TORCH_PAIRS[0][1].build().count,
        "torch_bi": TORCH_PAIRS[1][1].build().count,
    }


def merge_modes() -> list[dict]:
    """What each merge mode hands the next layer, with the derived count of a two-layer stack."""
    out = []
    for mode in ("concat", "sum", "mul", "ave", None):
        first = dk.Bidirectional(dk.LSTM(H, return_sequences=True), merge_mode=mode)
        row = {"mode": repr(mode), "width": first.output_dim(I)}
        if mode is None:
            row["width"] = "two outputs, " + ", ".join(f"${sympy.latex(w)}$" for w in row["width"])
            row["count"] = None
        else:
            second = dk.LSTM(H_2, input_dim=row["width"]).count
            assert sympy.expand(dk.count(first, I) + second - dk.count([first, dk.LSTM(H_2)], I)) == 0
            row["width"] = f"${sympy.latex(row['width'])}$"
            row["count"] = f"{sympy.latex(sympy.factor(dk.count(first, I)))} + {sympy.latex(sympy.factor(second))}"
        out.append(row)
    return out


def keras_context() -> dict:
    """Template variables of ``frameworks/keras.md``."""
    asym = dk.Bidirectional(
        dk.LSTM(H, return_sequences=True),
        backward_layer=dk.GRU(H_b, return_sequences=True, go_backwards=True),
        input_dim=I,
    )
    assert sympy.expand(dk.count(asym.forward_layer, I) + dk.count(asym.backward_layer, I) - asym.count) == 0
    return {
        "convention": dk.KERAS,
        "sections": cell_sections(),
        "seed": seed_001(),
        "merge": merge_modes(),
        "asym_width": sympy.latex(asym.output_dim(I)),
        "asym_count": " + ".join(
            sympy.latex(sympy.factor(dk.count(layer, I))) for layer in (asym.forward_layer, asym.backward_layer)
        ),
        "bi_formula": sympy.latex(sympy.factor(dk.Bidirectional(dk.LSTM(H), input_dim=I).count)),
        "examples": [
            {
                "call": e.call,
                "input": f"keras.Input({e.input_shape})",
                "count": number(_count(e)),
                "weights": [(w.path, w.shape) for w in _tensors(e)],
            }
            for e in KERAS_EXAMPLES
        ],
        "pairs": [
            {
                "keras": k.call,
                "input": k.input_shape[-1],
                "torch": t.call,
                "n_keras": number(_count(k)),
                "n_torch": number(t.build().count),
                "difference": number(t.build().count - _count(k)),
            }
            for k, t in TORCH_PAIRS
        ],
    }


ORDER = 20
PAGES = [
    Page(
        "frameworks/keras.md",
        "Keras",
        "keras.md.j2",
        keras_context,
        KERAS_EXAMPLES + tuple(t for _, t in TORCH_PAIRS),
        "Frameworks",
    ),
]
