"""derive.keras held against live Keras 3 (torch backend): counts, weight paths and shapes, errors.

Every expected value is computed here from a real ``keras.layers`` object built on a
``keras.Input``: ``count_params()`` and ``[(w.path, tuple(w.shape)) for w in weights]``.
Keras appends a session counter to repeated automatic names (``lstm_1``, ``sequential_2``);
paths are compared with those counters removed, except in the tests of explicit and default
names, which compare them exactly.
"""

from __future__ import annotations

import inspect
import os
import re
import tempfile

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

keras = pytest.importorskip("keras")
from keras import layers as kl  # noqa: E402

import derive.keras as dk  # noqa: E402
import derive.torch as dt  # noqa: E402
import docs_src.site as site  # noqa: E402
from derive import H, I, size_symbols  # noqa: E402
from derive.cells import conv_lstm  # noqa: E402
from docs_src.site import Example  # noqa: E402

assert keras.backend.backend() == "torch"

SLOW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COUNTER = re.compile(r"_\d+(?=/|$)")


def K(cls, *args, input_shape=(), **kwargs) -> Example:
    return Example(cls, args, tuple(kwargs.items()), "keras", input_shape)


def to_keras(value):
    """The real Keras object of an example (nested examples first)."""
    if isinstance(value, Example):
        args = [to_keras(a) for a in value.args]
        kwargs = {k: to_keras(v) for k, v in value.kwargs}
        if value.cls == "Sequential":
            return keras.Sequential(*args, **kwargs)
        return getattr(kl, value.cls)(*args, **kwargs)
    if isinstance(value, tuple) and value and all(isinstance(v, Example) for v in value):
        return [to_keras(v) for v in value]
    return value


def weights(ws, strip=True) -> list[tuple[str, tuple]]:
    return [(COUNTER.sub("", w.path) if strip else w.path, tuple(int(d) for d in w.shape)) for w in ws]


def live(specs, input_shape):
    """Build the Keras layers of ``specs`` (one example, or a list applied in sequence) on
    ``keras.Input(input_shape)``; return (count_params, weights)."""
    if isinstance(specs, Example) and specs.cls == "Sequential":
        model = to_keras(specs)
        model.build((None, *input_shape))
        return model.count_params(), model.weights
    built = [to_keras(s) for s in (specs if isinstance(specs, list) else [specs])]
    x = keras.Input(input_shape)
    for layer in built:
        x = layer(x)
    return sum(layer.count_params() for layer in built), [w for layer in built for w in layer.weights]


def ours(specs, input_dim):
    """derive.keras count and weights of the same specs."""
    if isinstance(specs, Example) and specs.cls == "Sequential":
        model = specs.build()
        return dk.count(model, input_dim), model.tensors(input_dim)
    objs = [s.build() for s in specs] if isinstance(specs, list) else specs.build()
    return dk.count(objs, input_dim), dk.tensors(objs, input_dim)


def assert_same(specs, input_shape):
    n, ws = live(specs, input_shape)
    count, tensors = ours(specs, input_shape[-1])
    assert count == n
    assert weights(tensors) == weights(ws)


# --- seed 001 ---------------------------------------------------------------------------------


def test_seed_001_counts_live():
    inp = keras.Input((28, 28))
    uni = keras.Model(inp, kl.LSTM(256)(inp)).count_params()
    bi = keras.Model(inp, kl.Bidirectional(kl.LSTM(128))(inp)).count_params()
    assert (uni, bi) == (291840, 160768)  # as reported in seed 001 (tf.keras summary)
    assert dk.count(dk.LSTM(256), 28) == uni
    assert dk.count(dk.Bidirectional(dk.LSTM(128)), 28) == bi


# --- single layers ------------------------------------------------------------------------------

RNN_LAYERS = [
    K("SimpleRNN", 7),
    K("SimpleRNN", 7, use_bias=False),
    K("SimpleRNN", 1, activation="relu"),
    K("LSTM", 5),
    K("LSTM", 5, use_bias=False),
    K("LSTM", 33, unit_forget_bias=False),
    K("GRU", 6),
    K("GRU", 6, use_bias=False),
    K("GRU", 6, reset_after=False),
    K("GRU", 6, reset_after=False, use_bias=False),
    K("GRU", 1, reset_after=True),
]


@pytest.mark.parametrize("spec", RNN_LAYERS, ids=lambda e: e.call)
@pytest.mark.parametrize("input_dim", [1, 11])
def test_recurrent_layer(spec, input_dim):
    assert_same(spec, (3, input_dim))


def test_gru_bias_layouts():
    """reset_after=True: bias (2, 3H) = input row then recurrent row; False: (3H,); gates z, r, h."""
    tensors = dk.GRU(4).tensors(3)
    bias = tensors[-1]
    assert bias.shape == (2, 12)
    assert [str(p.symbol) for p in bias.parameters] == ["b_{iz}", "b_{ir}", "b_{in}", "b_{hz}", "b_{hr}", "b_{hn}"]
    assert [str(p.symbol) for p in tensors[0].parameters] == ["W_{iz}", "W_{ir}", "W_{in}"]
    assert dk.GRU(4, reset_after=False).tensors(3)[-1].shape == (12,)


def test_gate_order_matches_keras_computation():
    """Keras' GRU splits kernel columns as z, r, h (gru.py: x_z, x_r, x_h = split(matrix_x, 3)): a GRU whose
    update-gate block of the kernel is driven to +inf keeps h_{t-1} = 0, one with the reset-gate block does not."""
    x = np.ones((1, 1, 2), "float32")
    for block, stays_zero in ((0, True), (1, False)):
        layer = kl.GRU(3, use_bias=False)
        layer.build((None, 1, 2))
        kernel = np.zeros((2, 9), "float32")
        kernel[:, block * 3 : (block + 1) * 3] = 50.0
        kernel[:, 6:] = 1.0
        layer.set_weights([kernel, np.zeros((3, 9), "float32")])
        out = np.asarray(layer(x).detach().cpu())
        assert np.allclose(out, 0.0) == stays_zero
    assert dk.KERAS.gate_order["GRU"] == ("z", "r", "n")


# --- Bidirectional ------------------------------------------------------------------------------


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
@pytest.mark.parametrize(
    "inner", [K("LSTM", 4), K("GRU", 3, reset_after=False), K("SimpleRNN", 2, use_bias=False)], ids=lambda e: e.call
)
def test_bidirectional_merge_modes(inner, merge_mode):
    spec = K("Bidirectional", inner, merge_mode=merge_mode)
    assert_same(spec, (3, 5))
    x = np.zeros((2, 3, 5), "float32")
    out = to_keras(spec)(x)
    ours_width = spec.build().output_dim(5)
    if merge_mode is None:
        assert [int(o.shape[-1]) for o in out] == ours_width
    else:
        assert int(out.shape[-1]) == ours_width


@pytest.mark.parametrize("merge_mode", ["concat", None])
def test_backward_layer_with_other_units(merge_mode):
    backward = K("GRU", 7, go_backwards=True, return_sequences=True, reset_after=False, name="back")
    spec = K(
        "Bidirectional",
        K("LSTM", 10, return_sequences=True, name="fwd"),
        merge_mode=merge_mode,
        backward_layer=backward,
        name="bi",
    )
    n, ws = live(spec, (3, 5))
    assert dk.count(spec.build(), 5) == n
    assert weights(dk.tensors(spec.build(), 5), strip=False) == weights(ws, strip=False)
    # the tensor Keras really produces is H_f + H_b wide (concat) ...
    out = to_keras(spec)(np.zeros((2, 3, 5), "float32"))
    widths = [int(o.shape[-1]) for o in out] if merge_mode is None else int(out.shape[-1])
    assert spec.build().output_dim(5) == widths


def test_asymmetric_concat_feeds_its_real_width():
    """The next layer reads H_f + H_b: built eagerly on real data, Keras agrees with derive."""
    bi = kl.Bidirectional(
        kl.LSTM(10, return_sequences=True), backward_layer=kl.LSTM(7, go_backwards=True, return_sequences=True)
    )
    nxt = kl.GRU(4)
    nxt(bi(np.zeros((2, 3, 5), "float32")))
    ours_ = dk.count(
        [
            dk.Bidirectional(
                dk.LSTM(10, return_sequences=True), backward_layer=dk.LSTM(7, go_backwards=True, return_sequences=True)
            ),
            dk.GRU(4),
        ],
        5,
    )
    assert ours_ == bi.count_params() + nxt.count_params()
    assert tuple(nxt.weights[0].shape) == (17, 12)


def test_keras_symbolic_shape_of_asymmetric_concat():
    """What the page says of Keras 3.15 (keras-team/keras#23688): the symbolic output shape of concat is
    2·H_f, not H_f + H_b. If this fails, Keras fixed it: update the note on frameworks/keras.md."""
    inp = keras.Input((3, 5))
    out = kl.Bidirectional(
        kl.LSTM(10, return_sequences=True), backward_layer=kl.LSTM(7, go_backwards=True, return_sequences=True)
    )(inp)
    assert out.shape[-1] == 20


def test_reversed_roles_are_accepted():
    """Keras accepts a forward layer with go_backwards=True and a backward layer without."""
    spec = K("Bidirectional", K("LSTM", 3, go_backwards=True, name="a"), backward_layer=K("LSTM", 2, name="b"))
    assert_same(spec, (2, 4))


@pytest.mark.slow
def test_default_names_are_keras_names():
    keras.backend.clear_session(free_memory=False)
    for make in (
        lambda m: m.Bidirectional(m.LSTM(128)),
        lambda m: m.ConvLSTM2D(2, 3),
        lambda m: m.SimpleRNN(2),
        lambda m: m.GRU(2),
        lambda m: m.ConvLSTM1D(1, 2),
        lambda m: m.ConvLSTM3D(1, 1),
    ):
        keras.backend.clear_session(free_memory=False)
        layer = make(kl)
        shape = (
            (2, 28)
            if isinstance(layer, (kl.Bidirectional, kl.SimpleRNN, kl.GRU))
            else (2,) + (3,) * layer.cell.rank + (4,)
        )
        layer(keras.Input(shape))
        assert weights(dk.tensors(make(dk), shape[-1]), strip=False) == weights(layer.weights, strip=False)


def test_forward_backward_prefixes():
    for name in ("forward_x", "backward_x", "x"):
        k = kl.Bidirectional(kl.LSTM(3, name=name))
        d = dk.Bidirectional(dk.LSTM(3, name=name))
        assert (d.forward_layer.name, d.backward_layer.name) == (k.forward_layer.name, k.backward_layer.name)


# --- ConvLSTM -----------------------------------------------------------------------------------

CONV = [
    K("ConvLSTM1D", 4, 3),
    K("ConvLSTM1D", 2, 1, use_bias=False),
    K("ConvLSTM1D", 3, 5, padding="same"),
    K("ConvLSTM2D", 4, (3, 2)),
    K("ConvLSTM2D", 1, 1),
    K("ConvLSTM2D", 5, (1, 3), use_bias=False),
    K("ConvLSTM3D", 2, (2, 1, 3)),
    K("ConvLSTM3D", 3, 2, use_bias=False),
]


@pytest.mark.parametrize("spec", CONV, ids=lambda e: e.call)
@pytest.mark.parametrize("channels", [1, 6])
def test_conv_lstm(spec, channels):
    built = spec.build()
    spatial = tuple(k + 1 for k in built.kernel_size)
    assert_same(spec, (2, *spatial, channels))


def test_conv_lstm_formula_matches_keras():
    """4F(K(C + F) + 1) with K = prod(kernel_size): the symbolic count, evaluated, equals Keras'."""
    C, F, k1, k2, k3 = size_symbols("C F k_1 k_2 k_3")
    formula = dk.ConvLSTM3D(F, (k1, k2, k3), input_dim=C).count
    for f, ks, c in ((3, (2, 1, 3), 2), (1, (1, 1, 1), 1), (4, (3, 3, 2), 5)):
        n, _ = live(K("ConvLSTM3D", f, ks), (2, *(k + 1 for k in ks), c))
        assert formula.subs({F: f, C: c, k1: ks[0], k2: ks[1], k3: ks[2]}) == n
    cell = conv_lstm(C, F, (k1, k2), "input")
    assert [p.kernel_size for p in cell.parameters if p.kind == "weight"] == [(k1, k2)] * 8


@SLOW
@given(
    rank=st.integers(1, 3),
    filters=st.integers(1, 6),
    channels=st.integers(1, 5),
    use_bias=st.booleans(),
    kernel=st.lists(st.integers(1, 3), min_size=3, max_size=3),
    stacked=st.booleans(),
)
def test_conv_lstm_property(rank, filters, channels, use_bias, kernel, stacked):
    cls = f"ConvLSTM{rank}D"
    ks = tuple(kernel[:rank])
    specs = [K(cls, filters, ks, use_bias=use_bias, padding="same", return_sequences=stacked)]
    if stacked:
        specs.append(K(cls, filters + 1, ks[::-1]))
    assert_same(specs, (2, *(3,) * rank, channels))


# --- stacks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "specs",
    [
        [K("LSTM", 8, return_sequences=True), K("LSTM", 4)],
        [
            K("Bidirectional", K("LSTM", 6, return_sequences=True)),
            K("GRU", 5, return_sequences=True),
            K("SimpleRNN", 3),
        ],
        [
            K("Bidirectional", K("GRU", 6, return_sequences=True), merge_mode="sum"),
            K("Bidirectional", K("LSTM", 2), merge_mode="ave"),
        ],
        [K("ConvLSTM2D", 3, 2, return_sequences=True, padding="same"), K("ConvLSTM2D", 2, (1, 3))],
    ],
    ids=lambda s: " > ".join(e.call for e in s),
)
def test_sequential_stack(specs):
    rank = 3 if specs[0].cls.startswith("ConvLSTM") else 1
    shape = (2, 4, 4, 3) if rank == 3 else (2, 9)
    model = K("Sequential", tuple(specs), name="model")
    n, ws = live(model, shape)
    ours_ = model.build()
    assert dk.count(ours_, shape[-1]) == n == dk.count([s.build() for s in specs], shape[-1])
    assert weights(ours_.tensors(shape[-1])) == weights(ws)
    assert all(w.path.startswith("model/") for w in ws)


def rnn_layer(draw, return_sequences):
    cls = draw(st.sampled_from(["SimpleRNN", "LSTM", "GRU"]))
    kwargs = {"use_bias": draw(st.booleans()), "return_sequences": return_sequences}
    if cls == "GRU":
        kwargs["reset_after"] = draw(st.booleans())
    return K(cls, draw(st.integers(1, 40)), **kwargs)


@st.composite
def stacks(draw):
    depth = draw(st.integers(1, 3))
    specs = []
    for k in range(depth):
        last = k == depth - 1
        layer = rnn_layer(draw, not last)
        if draw(st.booleans()):
            modes = ["concat", "sum", "mul", "ave"] + ([None] if last else [])
            layer = K("Bidirectional", layer, merge_mode=draw(st.sampled_from(modes)))
        specs.append(layer)
    return specs


@pytest.mark.slow
@SLOW
@given(specs=stacks(), input_dim=st.integers(1, 40))
def test_random_stacks(specs, input_dim):
    assert_same(K("Sequential", tuple(specs)), (2, input_dim))


@pytest.mark.slow
@SLOW
@given(
    units=st.integers(1, 50),
    input_dim=st.integers(1, 50),
    cls=st.sampled_from(["SimpleRNN", "LSTM", "GRU"]),
    reset_after=st.booleans(),
    bidirectional=st.booleans(),
)
def test_symbolic_count_evaluates_to_keras(units, input_dim, cls, reset_after, bidirectional):
    extra = {"reset_after": reset_after} if cls == "GRU" else {}
    spec = K(cls, units, **extra)
    symbolic = getattr(dk, cls)(H, **extra)
    if bidirectional:
        spec, symbolic = K("Bidirectional", spec), dk.Bidirectional(symbolic)
    n, _ = live(spec, (2, input_dim))
    assert dk.count(symbolic, I).subs({H: units, I: input_dim}) == n


# --- RNN(cell), StackedRNNCells -----------------------------------------------------------------

CELL_LAYERS = [
    K("RNN", K("SimpleRNNCell", 7)),
    K("RNN", K("LSTMCell", 5, use_bias=False)),
    K("RNN", K("GRUCell", 6)),
    K("RNN", K("GRUCell", 6, reset_after=False)),
    K("RNN", (K("LSTMCell", 5), K("GRUCell", 6), K("SimpleRNNCell", 2))),
    K("RNN", K("StackedRNNCells", (K("LSTMCell", 3), K("LSTMCell", 4)))),
    K("Bidirectional", K("RNN", (K("LSTMCell", 5), K("LSTMCell", 6)))),
    K("Bidirectional", K("RNN", K("GRUCell", 3)), merge_mode="sum"),
]


@pytest.mark.parametrize("spec", CELL_LAYERS, ids=lambda e: e.call)
def test_rnn_of_cells(spec):
    assert_same(spec, (3, 4))


@pytest.mark.slow
def test_rnn_of_cells_exact_paths_in_a_fresh_session():
    """Unstripped: the cells of a stack named in creation order, lstm_cell, gru_cell, lstm_cell_1."""
    for make in (
        lambda m: m.RNN([m.LSTMCell(5), m.GRUCell(6), m.LSTMCell(2)]),
        lambda m: m.Bidirectional(m.RNN([m.LSTMCell(5), m.LSTMCell(6)])),
        lambda m: m.RNN(m.StackedRNNCells([m.SimpleRNNCell(2), m.SimpleRNNCell(3, name="top")])),
        lambda m: m.RNN(m.LSTMCell(4)),
    ):
        keras.backend.clear_session(free_memory=False)
        layer = make(kl)
        layer(keras.Input((3, 4)))
        assert weights(dk.tensors(make(dk), 4), strip=False) == weights(layer.weights, strip=False)
        assert dk.count(make(dk), 4) == layer.count_params()
    assert [w.path for w in dk.tensors(dk.RNN(dk.LSTMCell(4)), 3)] == [
        "rnn/lstm_cell/kernel",
        "rnn/lstm_cell/recurrent_kernel",
        "rnn/lstm_cell/bias",
    ]


def cell_spec(draw):
    cls = draw(st.sampled_from(["SimpleRNNCell", "LSTMCell", "GRUCell"]))
    kwargs = {"use_bias": draw(st.booleans())}
    if cls == "GRUCell":
        kwargs["reset_after"] = draw(st.booleans())
    return K(cls, draw(st.integers(1, 12)), **kwargs)


@st.composite
def cell_stacks(draw):
    depth = draw(st.integers(1, 3))
    specs = []
    for k in range(depth):
        cells = tuple(cell_spec(draw) for _ in range(draw(st.integers(1, 3))))
        layer = K("RNN", cells[0] if len(cells) == 1 else cells, return_sequences=k < depth - 1)
        if draw(st.booleans()):
            layer = K("Bidirectional", layer, merge_mode=draw(st.sampled_from(["concat", "ave"])))
        specs.append(layer)
    return specs


@SLOW
@given(specs=cell_stacks(), input_dim=st.integers(1, 12))
def test_random_rnn_of_cells_in_sequential(specs, input_dim):
    assert_same(K("Sequential", tuple(specs)), (2, input_dim))


def test_rnn_of_cells_symbolic():
    assert dk.count(dk.RNN(dk.LSTMCell(H)), I) == dk.count(dk.LSTM(H), I)
    assert dk.count(dk.RNN([dk.GRUCell(H), dk.GRUCell(H)]), I) == dk.count(
        [dk.GRU(H, return_sequences=True), dk.GRU(H)], I
    )


def test_rnn_of_cells_errors():
    with pytest.raises(ValueError, match="should have a `call` method"):
        dk.RNN(dk.LSTM(4))
    with pytest.raises(ValueError, match="All cells must have a `call` method"):
        dk.StackedRNNCells([dk.LSTM(3)])
    with pytest.raises(ValueError, match="non-empty"):
        dk.RNN([])
    with pytest.raises(TypeError, match="unexpected keyword"):
        dk.SimpleRNNCell(3, implementation=1)
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        kl.SimpleRNNCell(3, implementation=1)
    dk.LSTMCell(3, implementation=1), dk.GRUCell(3, implementation=1), dk.RNN(dk.LSTMCell(3), name="r")
    with pytest.raises(TypeError, match="units"):
        dk.LSTMCell(2.5)
    with pytest.raises(TypeError, match="layers"):
        dk.count(dk.LSTMCell(3), 4)  # a cell is not a layer: wrap it in RNN


# --- Keras vs PyTorch ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["SimpleRNN", "LSTM", "GRU"])
def test_difference_to_torch(cls):
    """Keras = PyTorch − G·H per layer and direction (one bias instead of two); GRU reset_after=True: equal."""
    torch_cls = {"SimpleRNN": "RNN"}.get(cls, cls)
    for units, input_dim in ((256, 28), (3, 5)):
        n, _ = live(K(cls, units), (2, input_dim))
        nb, _ = live(K("Bidirectional", K(cls, units)), (2, input_dim))
        torch_uni = dt.__dict__[torch_cls](input_dim, units).count
        torch_bi = dt.__dict__[torch_cls](input_dim, units, bidirectional=True).count
        gates = {"SimpleRNN": 1, "LSTM": 4, "GRU": 0}[cls]
        assert torch_uni - n == gates * units and torch_bi - nb == 2 * gates * units


# --- signatures and errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls",
    [
        "SimpleRNN",
        "LSTM",
        "GRU",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "Bidirectional",
        "RNN",
        "SimpleRNNCell",
        "LSTMCell",
        "GRUCell",
        "StackedRNNCells",
    ],
)
def test_signature_is_keras(cls):
    def params(c):
        return [(p.name, p.kind, p.default) for p in inspect.signature(c).parameters.values()]

    assert params(getattr(dk, cls)) == params(getattr(kl, cls))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.LSTM(4, foo=1),
        lambda m: m.Bidirectional(m.LSTM(4), bar=2),
        lambda m: m.ConvLSTM2D(4, 3, implementation=2),
    ],
)
def test_unknown_keyword(make):
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        make(kl)
    with pytest.raises(TypeError, match="unexpected keyword"):
        make(dk)


def test_accepted_layer_keywords():
    for make in (
        lambda m: m.LSTM(4, name="a", dtype="float32", trainable=False, implementation=1, zero_output_for_mask=True),
        lambda m: m.ConvLSTM1D(2, 3, unroll=False, autocast=False),
        lambda m: m.Bidirectional(m.GRU(2), name="b", activity_regularizer=None),
    ):
        make(kl)
        make(dk)


@pytest.mark.parametrize("bad", [2.5, True, "4", None, sympy.Rational(1, 2), float("nan")])
def test_units_type(bad):
    for make in (lambda: dk.LSTM(bad), lambda: dk.GRU(bad), lambda: dk.SimpleRNN(bad), lambda: dk.ConvLSTM2D(bad, 3)):
        with pytest.raises(TypeError, match="units|filters"):
            make()


@pytest.mark.parametrize("bad", [0, -3])
def test_units_value(bad):
    with pytest.raises(ValueError, match="units"):
        kl.LSTM(bad)
    with pytest.raises(ValueError, match="units"):
        dk.LSTM(bad)
    with pytest.raises(ValueError, match="filters"):
        dk.ConvLSTM1D(bad, 3)
    with pytest.raises(ValueError, match="input_dim"):
        dk.count(dk.LSTM(3), bad)


def test_kernel_size_errors():
    with pytest.raises(ValueError, match="kernel_size"):
        kl.ConvLSTM2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="kernel_size"):
        dk.ConvLSTM2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="kernel_size"):
        dk.ConvLSTM2D(2, (3, 0))
    with pytest.raises(TypeError, match="kernel_size"):
        dk.ConvLSTM1D(2, 1.5)
    with pytest.raises(ValueError, match="padding"):
        dk.ConvLSTM1D(2, 3, padding="full")


def test_merge_mode_errors():
    with pytest.raises(ValueError, match="merge"):
        kl.Bidirectional(kl.LSTM(3), merge_mode="max")
    with pytest.raises(ValueError, match=r"merge_mode.*'sum', 'mul', 'ave', 'concat' or None"):
        dk.Bidirectional(dk.LSTM(3), merge_mode="max")
    with pytest.raises(ValueError, match="merge_mode='sum'.*equal units"):
        dk.Bidirectional(dk.LSTM(3), merge_mode="sum", backward_layer=dk.LSTM(4, go_backwards=True))
    # Keras accepts it, and fails on data: the two outputs cannot be added
    bad = kl.Bidirectional(kl.LSTM(3), merge_mode="sum", backward_layer=kl.LSTM(4, go_backwards=True))
    with pytest.raises(Exception):
        bad(np.zeros((1, 2, 5), "float32"))


def test_bidirectional_consistency_errors():
    for mk in (
        lambda m: m.Bidirectional(m.LSTM(3), backward_layer=m.LSTM(3)),
        lambda m: m.Bidirectional(m.LSTM(3, go_backwards=True)),
        lambda m: m.Bidirectional(m.LSTM(3), backward_layer=m.LSTM(3, go_backwards=True, return_sequences=True)),
    ):
        with pytest.raises(ValueError):
            mk(kl)
        with pytest.raises(ValueError, match="go_backwards|return_sequences"):
            mk(dk)
    with pytest.raises(ValueError, match="layer"):
        dk.Bidirectional("LSTM")


def test_feeding_errors_match_keras():
    """Layers that Keras refuses to chain, derive refuses too."""
    cases = [
        ([K("LSTM", 3), K("LSTM", 2)], "ndim=3.*ndim=2.*return_sequences"),
        ([K("Bidirectional", K("LSTM", 3, return_sequences=True), merge_mode=None), K("LSTM", 2)], "merge_mode=None"),
        ([K("LSTM", 3, return_sequences=True, return_state=True), K("LSTM", 2)], "return_state"),
        ([K("ConvLSTM1D", 3, 2, return_sequences=True), K("LSTM", 2)], "ndim=3.*ndim=4"),
    ]
    for specs, message in cases:
        with pytest.raises(Exception):
            live(specs, (2, 4, 5) if specs[0].cls == "ConvLSTM1D" else (2, 5))
        with pytest.raises(ValueError, match=message):
            dk.count([s.build() for s in specs], 5)
    with pytest.raises(TypeError, match="layers"):
        dk.count("LSTM", 3)


def test_docstring_examples():
    import doctest

    assert doctest.testmod(dk).failed == 0


# --- the site -----------------------------------------------------------------------------------


@pytest.mark.parametrize("example", site.examples("keras"), ids=lambda e: e.call)
def test_site_example_matches_keras(example):
    assert example.input_shape, "a Keras example needs input_shape"
    assert_same(example, example.input_shape)


def test_every_keras_example_is_rendered_and_checked():
    from pathlib import Path

    from docs_src.pages.keras import PAGES

    # render this page alone, so that another page's template cannot hide what this one shows
    spec = PAGES[0]
    page = (
        site._environment(Path(__file__).resolve().parents[2] / "templates")
        .get_template(spec.template)
        .render(**spec.context())
    )
    checked = [e for e in spec.examples if e.framework == "keras"]
    assert checked, "the Keras page lists no example"

    def nested(e):
        yield e.call
        for a in list(e.args) + [v for _, v in e.kwargs]:
            for x in a if isinstance(a, tuple) else (a,):
                if isinstance(x, Example):
                    yield from nested(x)

    calls = {c for e in checked for c in nested(e)} | {f"keras.Input({e.input_shape})" for e in checked}
    for e in checked:
        assert e.call in page
        assert f"keras.Input({e.input_shape})" in page

    def concrete(call):  # every size a number: no symbol (H, H_2, layer, m) left once names are removed
        rest = re.sub(r"(?:layers|keras)\.[A-Za-z0-9]+\(|\w+=|'[^']*'|\"[^\"]*\"|True|False|None", "", call)
        return not re.search(r"[A-Za-z]", rest)

    shown = {c for c in re.findall(r"`((?:layers|keras)\.[A-Za-z0-9]+\(.*?\))`", page) if concrete(c)}
    assert shown, "no concrete Keras call found on the page"
    assert shown <= calls, f"unchecked Keras calls on the page: {shown - calls}"


def test_page_headline_numbers_live():
    """The numbers of the seed-001 answer, against live Keras and torch."""
    from torch import nn

    from docs_src.pages.keras import seed_001

    s = seed_001()
    inp = keras.Input((28, 28))
    uni, bi = kl.LSTM(256), kl.Bidirectional(kl.LSTM(128))
    uni(inp), bi(inp)

    def by_name(layer):
        out = {}
        for w in layer.weights:
            out[w.name] = out.get(w.name, 0) + int(np.prod(w.shape))
        return out

    assert (s["uni"], s["bi"]) == (uni.count_params(), bi.count_params())
    assert s["uni_by_name"] == by_name(uni) and s["bi_by_name"] == by_name(bi)
    assert s["difference"] == uni.count_params() - bi.count_params()
    torch_uni = sum(p.numel() for p in nn.LSTM(28, 256).parameters())
    torch_bi = sum(p.numel() for p in nn.LSTM(28, 128, bidirectional=True).parameters())
    assert (s["torch_uni"], s["torch_bi"]) == (torch_uni, torch_bi)
