"""``derive.frameworks`` held against the real packages: ONNX, Flax linen and nnx, Equinox, Paddle.

Expected names, shapes and counts are read from live objects built by ``frameworks_live`` (JAX on
CPU, parameters shape-evaluated; Paddle CPU; ONNX graphs checked with ``onnx.checker`` and run
with ``onnx.reference``). Frameworks that do not install here (cuDNN, tf.keras CuDNN layers, TF1,
MXNet) are read from source; for them the tests hold the identities their sources state against
live torch and Keras (cuDNN and MXNet = PyTorch, CuDNNLSTM = one PyTorch layer, TF1 cells =
Keras cells).
"""

from __future__ import annotations

import doctest
import itertools
import os

os.environ.setdefault("KERAS_BACKEND", "torch")

import frameworks_live as live
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch_live import torch_module

from derive import H, I, L, P, frameworks

SMALL = st.integers(1, 7)
JAX_PROPERTY = settings(max_examples=6, deadline=None)
PROPERTY = settings(max_examples=25, deadline=None)


def ours(framework, cell, *args, **kwargs):
    """derive's table as sorted (name, shape, trainable)."""
    return sorted((r.name, r.shape, r.trainable) for r in frameworks.tensors(framework, cell, *args, **kwargs))


def numel(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


# --------------------------------------------------------------------------- Flax linen

LINEN_CELLS = [
    ("SimpleCell", {}),
    ("LSTMCell", {}),
    ("OptimizedLSTMCell", {}),
    ("GRUCell", {}),
    ("MGUCell", {}),
    ("MGUCell", {"reset_gate": False}),
    ("ConvLSTMCell", {"kernel_size": (3,)}),
    ("ConvLSTMCell", {"kernel_size": (3, 2)}),
    ("ConvLSTMCell", {"kernel_size": (2, 2, 1), "bias": False}),
]


@pytest.mark.parametrize("cell,options", LINEN_CELLS, ids=lambda v: str(v))
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, False), (2, True)])
def test_flax_linen_names_and_shapes(cell, options, layers, bidirectional):
    got = live.linen_tensors(cell, 3, 4, num_layers=layers, bidirectional=bidirectional, **options)
    assert sorted(got) == ours("flax.linen", cell, 3, 4, num_layers=layers, bidirectional=bidirectional, **options)
    assert sum(numel(s) for _, s, _ in got) == frameworks.count(
        "flax.linen", cell, 3, 4, num_layers=layers, bidirectional=bidirectional, **options
    )


@JAX_PROPERTY
@given(cell=st.sampled_from(LINEN_CELLS[:6]), i=SMALL, h=SMALL, layers=st.integers(1, 2), bi=st.booleans())
def test_flax_linen_random_sizes(cell, i, h, layers, bi):
    name, options = cell
    got = live.linen_tensors(name, i, h, num_layers=layers, bidirectional=bi, **options)
    assert sorted(got) == ours("flax.linen", name, i, h, num_layers=layers, bidirectional=bi, **options)


def test_flax_linen_symbolic_counts():
    """The closed forms of the single cells, substituted, equal live Flax for several sizes."""
    for (name, options), (i, h) in itertools.product(LINEN_CELLS, [(2, 3), (5, 1), (4, 6)]):
        closed = frameworks.count("flax.linen", name, I, H, **options)
        got = live.linen_tensors(name, i, h, **options)
        assert closed.xreplace({I: i, H: h}) == sum(numel(s) for _, s, _ in got), name


# --------------------------------------------------------------------------- Flax nnx

NNX_CELLS = ["SimpleCell", "LSTMCell", "OptimizedLSTMCell", "GRUCell"]


@pytest.mark.parametrize("cell", NNX_CELLS)
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (3, False), (2, True)])
def test_flax_nnx_names_and_shapes(cell, layers, bidirectional):
    got = live.nnx_tensors(cell, 3, 4, num_layers=layers, bidirectional=bidirectional)
    assert sorted(got) == ours("flax.nnx", cell, 3, 4, num_layers=layers, bidirectional=bidirectional)


@JAX_PROPERTY
@given(cell=st.sampled_from(NNX_CELLS), i=SMALL, h=SMALL)
def test_flax_nnx_random_sizes(cell, i, h):
    got = live.nnx_tensors(cell, i, h)
    assert sorted(got) == ours("flax.nnx", cell, i, h)
    assert frameworks.count("flax.nnx", cell, I, H).xreplace({I: i, H: h}) == sum(numel(s) for _, s, _ in got)


def test_flax_nnx_gru_has_h_fewer_than_linen():
    for i, h in [(3, 4), (7, 2)]:
        linen = sum(numel(s) for _, s, _ in live.linen_tensors("GRUCell", i, h))
        nnx = sum(numel(s) for _, s, _ in live.nnx_tensors("GRUCell", i, h))
        assert linen - nnx == h
    assert frameworks.count("flax.linen", "GRUCell", I, H) - frameworks.count("flax.nnx", "GRUCell", I, H) == H


# --------------------------------------------------------------------------- Equinox


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, False), (2, True)])
def test_equinox_names_and_shapes(cell, bias, layers, bidirectional):
    got = live.equinox_tensors(cell, 3, 5, num_layers=layers, bidirectional=bidirectional, bias=bias)
    assert sorted(got) == ours("equinox", cell, 3, 5, num_layers=layers, bidirectional=bidirectional, bias=bias)


@JAX_PROPERTY
@given(cell=st.sampled_from(["LSTMCell", "GRUCell"]), i=SMALL, h=SMALL, bias=st.booleans())
def test_equinox_random_sizes(cell, i, h, bias):
    got = live.equinox_tensors(cell, i, h, bias=bias)
    assert sorted(got) == ours("equinox", cell, i, h, bias=bias)
    closed = frameworks.count("equinox", cell, I, H, bias=bias)
    assert closed.xreplace({I: i, H: h}) == sum(numel(s) for _, s, _ in got)


# --------------------------------------------------------------------------- Paddle

PADDLE_LAYERS = [("SimpleRNN", {}), ("LSTM", {}), ("LSTM", {"proj_size": 2}), ("GRU", {})]


@pytest.mark.parametrize("cell,options", PADDLE_LAYERS, ids=str)
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (3, False), (2, True)])
def test_paddle_layers(cell, options, layers, bidirectional):
    got = live.paddle_tensors(cell, 3, 5, num_layers=layers, bidirectional=bidirectional, **options)
    assert got == [
        (r.name, r.shape, r.trainable)
        for r in frameworks.tensors("paddle", cell, 3, 5, num_layers=layers, bidirectional=bidirectional, **options)
    ]
    assert live.paddle_count(cell, 3, 5, num_layers=layers, bidirectional=bidirectional, **options) == frameworks.count(
        "paddle", cell, 3, 5, num_layers=layers, bidirectional=bidirectional, **options
    )


@pytest.mark.parametrize("cell,options", PADDLE_LAYERS, ids=str)
def test_paddle_disabled_bias_is_a_frozen_zero_parameter(cell, options):
    got = live.paddle_tensors(cell, 3, 5, bias=False, **options)
    assert got == [
        (r.name, r.shape, r.trainable) for r in frameworks.tensors("paddle", cell, 3, 5, bias=False, **options)
    ]
    module = live.paddle_module(cell, 3, 5, bias=False, **options)
    total = live.paddle_count(cell, 3, 5, bias=False, **options)
    trainable = sum(int(p.numel()) for p in module.parameters() if not p.stop_gradient)
    assert total == frameworks.count("paddle", cell, 3, 5, bias=False, **options)
    assert trainable == frameworks.count("paddle", cell, 3, 5, bias=False, trainable_only=True, **options)
    assert total == live.paddle_count(cell, 3, 5, **options)  # the frozen biases are still parameters
    assert all(float(p.abs().sum()) == 0 for p in module.parameters() if p.stop_gradient)


def test_paddle_disabled_bias_in_a_stack_of_cells():
    """Paddle 3.3 cannot build a SimpleRNN/LSTM/GRU with bias_ih_attr=False and more than one
    cell (``RNNBase.flatten_parameters`` raises IndexError); the same stack built from its cells
    (``RNN(cell)``, ``BiRNN(cell_fw, cell_bw)`` in a ``LayerList``) has the names and counts of
    the convention."""
    paddle = live.paddle
    with pytest.raises(IndexError):
        live.paddle_module("LSTM", 3, 5, num_layers=2, bias=False)
    off = {"bias_ih_attr": False, "bias_hh_attr": False}
    layers = paddle.nn.LayerList(
        [paddle.nn.BiRNN(paddle.nn.LSTMCell(width, 5, **off), paddle.nn.LSTMCell(width, 5, **off)) for width in (3, 10)]
    )
    got = [(k, tuple(v.shape), not v.stop_gradient) for k, v in layers.state_dict().items()]
    rows = frameworks.tensors("paddle", "LSTM", 3, 5, num_layers=2, bidirectional=True, bias=False)
    assert got == [(r.name, r.shape, r.trainable) for r in rows]


def test_paddle_pytorch_style_aliases_are_positional():
    """What the Paddle page says of ``named_parameters()``: the aliases ``weight_ih_l<k>`` ... are
    handed out four per cell, so with ``proj_size`` (five tensors per cell) they drift: layer 1's
    ``weight_ih_l1`` is layer 0's projection ``weight_ho`` (H, P), not a (4H, 2P) input weight."""
    module = live.paddle_module("LSTM", 3, 5, num_layers=2, proj_size=2)
    aliases = dict(module.named_parameters())
    assert tuple(aliases["weight_ih_l0"].shape) == (20, 3)
    assert tuple(aliases["weight_ih_l1"].shape) == (5, 2)
    assert tuple(module.state_dict()["1.cell.weight_ih"].shape) == (20, 2)
    assert ("1.cell.weight_ih", (20, 2), True) in ours("paddle", "LSTM", 3, 5, num_layers=2, proj_size=2)


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_paddle_cells(cell, bias):
    options = {"proj_size": 2} if cell == "LSTMCell" else {}
    got = live.paddle_tensors(cell, 3, 5, bias=bias, **options)
    assert got == [
        (r.name, r.shape, r.trainable) for r in frameworks.tensors("paddle", cell, 3, 5, bias=bias, **options)
    ]


@PROPERTY
@given(cell=st.sampled_from(PADDLE_LAYERS), i=SMALL, h=st.integers(2, 7), layers=st.integers(1, 3), bi=st.booleans())
def test_paddle_random_sizes(cell, i, h, layers, bi):
    name, options = cell
    options = {"proj_size": h - 1} if options else {}
    got = live.paddle_tensors(name, i, h, num_layers=layers, bidirectional=bi, **options)
    assert got == [
        (r.name, r.shape, r.trainable)
        for r in frameworks.tensors("paddle", name, i, h, num_layers=layers, bidirectional=bi, **options)
    ]


# --------------------------------------------------------------------------- ONNX

ONNX_CASES = [
    (op, layers, directions, bias, extra)
    for op in ("RNN", "GRU", "LSTM")
    for layers, directions, bias in itertools.product((1, 2), (1, 2), (True, False))
    for extra in ({}, {"peepholes": True}, {"reset_after": True})
    if not ("peepholes" in extra and op != "LSTM") and not ("reset_after" in extra and op != "GRU")
]


def _onnx_case(op, i, h, layers, directions, bias, extra):
    rows = [
        (r.name, r.shape)
        for r in frameworks.tensors(
            "onnx", op, i, h, num_layers=layers, bidirectional=directions == 2, bias=bias, **extra
        )
    ]
    attributes = {"linear_before_reset": 1} if extra.get("reset_after") else {}
    return rows, live.onnx_model(op, i, h, rows, num_layers=layers, num_directions=directions, attributes=attributes)


@pytest.mark.parametrize("op,layers,directions,bias,extra", ONNX_CASES, ids=str)
def test_onnx_shapes_are_accepted(op, layers, directions, bias, extra):
    """A chain of nodes with our W, R, B, P passes the full checker and runs in onnx.reference and
    ONNX Runtime."""
    rows, model = _onnx_case(op, 3, 5, layers, directions, bias, extra)
    assert live.onnx_run(model, 3) == (live.STEPS, directions, live.BATCH, 5)
    assert live.onnx_weight_count(model) == frameworks.count(
        "onnx", op, 3, 5, num_layers=layers, bidirectional=directions == 2, bias=bias, **extra
    )
    expected = {"W", "R"} | ({"B"} if bias else set()) | ({"P"} if extra.get("peepholes") else set())
    assert {name.split(".")[-1] for name, _ in rows} == expected


@pytest.mark.parametrize(
    "op,extra",
    [("RNN", {}), ("GRU", {}), ("GRU", {"reset_after": True}), ("LSTM", {}), ("LSTM", {"peepholes": True})],
    ids=str,
)
@pytest.mark.parametrize("directions", [1, 2])
def test_onnx_wrong_shapes_are_refused(op, extra, directions):
    """Each input one entry too large on any axis: ONNX Runtime refuses to run the node."""
    rows, model = _onnx_case(op, 3, 5, 1, directions, True, extra)
    assert not live.onnx_refused(model, 3)
    attributes = {"linear_before_reset": 1} if extra.get("reset_after") else {}
    for k, (name, shape) in enumerate(rows):
        for axis in range(len(shape)):
            bad = list(shape)
            bad[axis] += 1
            broken = rows[:k] + [(name, tuple(bad))] + rows[k + 1 :]
            model = live.onnx_model(op, 3, 5, broken, num_directions=directions, attributes=attributes)
            assert live.onnx_refused(model, 3), f"{name} {tuple(bad)} accepted"


@PROPERTY
@given(
    op=st.sampled_from(["RNN", "GRU", "LSTM"]),
    i=SMALL,
    h=SMALL,
    layers=st.integers(1, 3),
    bi=st.booleans(),
    bias=st.booleans(),
    flag=st.booleans(),
)
def test_onnx_random_sizes(op, i, h, layers, bi, bias, flag):
    extra = {"LSTM": {"peepholes": flag}, "GRU": {"reset_after": flag}}.get(op, {})
    rows, model = _onnx_case(op, i, h, layers, 2 if bi else 1, bias, extra)
    assert live.onnx_run(model, i) == (live.STEPS, 2 if bi else 1, live.BATCH, h)


@pytest.mark.parametrize("op,module", [("RNN", "RNN"), ("GRU", "GRU"), ("LSTM", "LSTM")])
def test_onnx_with_b_counts_as_pytorch(op, module):
    """ONNX with B = PyTorch (two biases); without B = PyTorch bias=False; peepholes add 3H."""
    for i, h, layers, bi in [(3, 5, 1, False), (32, 128, 2, True), (7, 2, 3, True)]:
        for bias in (True, False):
            m = getattr(torch.nn, module)(i, h, layers, bias=bias, bidirectional=bi, device="meta")
            assert frameworks.count("onnx", op, i, h, num_layers=layers, bidirectional=bi, bias=bias) == sum(
                p.numel() for p in m.parameters()
            )
    assert frameworks.count("onnx", "LSTM", I, H, peepholes=True) - frameworks.count("onnx", "LSTM", I, H) == 3 * H


# --------------------------------------------------------------------------- from source: identities with live torch / Keras


_torch = torch_module


@pytest.mark.parametrize(
    "framework,cells",
    [
        ("cudnn", {"RNN": "CUDNN_RNN_TANH", "LSTM": "CUDNN_LSTM", "GRU": "CUDNN_GRU"}),
        ("mxnet", {"RNN": "RNN", "LSTM": "LSTM", "GRU": "GRU"}),
    ],
)
@pytest.mark.parametrize(
    "i,h,layers,bi,proj", [(3, 5, 1, False, 0), (32, 128, 2, True, 0), (10, 20, 3, True, 7), (4, 6, 2, False, 5)]
)
def test_cudnn_and_mxnet_hold_pytorchs_tensors(framework, cells, i, h, layers, bi, proj):
    """cuDNN's linear layers and MXNet's i2h/h2h/h2r are PyTorch's tensors, cut or named differently."""
    for generic, cell in cells.items():
        if proj and generic != "LSTM":
            continue
        kwargs = {"proj_size": proj} if proj else {}
        module = _torch(generic, i, h, layers, bidirectional=bi, **kwargs)
        rows = frameworks.tensors(framework, cell, i, h, num_layers=layers, bidirectional=bi, **kwargs)
        assert sum(r.count for r in rows) == sum(p.numel() for p in module.parameters())
        if framework == "mxnet":
            rename = {
                "i2h_weight": "weight_ih",
                "h2h_weight": "weight_hh",
                "i2h_bias": "bias_ih",
                "h2h_bias": "bias_hh",
                "h2r_weight": "weight_hr",
            }
            names = [f"{rename[r.name[3:]]}_l{r.name[1]}{'_reverse' if r.name[0] == 'r' else ''}" for r in rows]
            assert list(zip(names, [r.shape for r in rows])) == [
                (n, tuple(p.shape)) for n, p in module.named_parameters()
            ]
        else:  # cuDNN: PyTorch's weight_ih_l{k} is linear layers 0..G-1 stacked, weight_hh G..2G-1, weight_hr is 8
            torch_shapes = dict((n, tuple(p.shape)) for n, p in module.named_parameters())
            gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[generic]
            for k, d in itertools.product(range(layers), range(2 if bi else 1)):
                prefix = f"l{k}{'_reverse' if d else ''}."
                suffix = f"_l{k}{'_reverse' if d else ''}"
                mine = {r.name[len(prefix) :]: r.shape for r in rows if r.name.startswith(prefix)}
                for side, ids in (("ih", range(gates)), ("hh", range(gates, 2 * gates))):
                    blocks = [mine[f"lin{n}.matrix"] for n in ids]
                    assert (sum(b[0] for b in blocks), blocks[0][1]) == torch_shapes[f"weight_{side}{suffix}"]
                    assert (sum(mine[f"lin{n}.bias"][0] for n in ids),) == torch_shapes[f"bias_{side}{suffix}"]
                if proj:
                    assert mine["lin8.matrix"] == torch_shapes[f"weight_hr{suffix}"]


@pytest.mark.parametrize("generic,cell", [("LSTM", "CuDNNLSTM"), ("GRU", "CuDNNGRU")])
def test_tf_keras_cudnn_layers_count_as_one_pytorch_layer(generic, cell):
    """CuDNNLSTM/GRU: kernel = weight_ih transposed, recurrent_kernel = weight_hh transposed, bias = both."""
    for i, h in [(28, 256), (3, 5)]:
        module = _torch(generic, i, h)
        rows = {r.name.split("/")[-1]: r.shape for r in frameworks.tensors("tf.keras", cell, i, h)}
        assert rows == {
            "kernel": tuple(module.weight_ih_l0.shape[::-1]),
            "recurrent_kernel": tuple(module.weight_hh_l0.shape[::-1]),
            "bias": (module.bias_ih_l0.shape[0] + module.bias_hh_l0.shape[0],),
        }


@pytest.fixture(scope="module")
def keras():
    import keras

    return keras


def _keras_count(keras, layer, i) -> int:
    model = keras.Sequential([keras.Input((4, i)), layer])
    return model.count_params()


@pytest.mark.parametrize(
    "cell,keras_layer",
    [("BasicRNNCell", ("SimpleRNN", {})), ("LSTMCell", ("LSTM", {})), ("GRUCell", ("GRU", {"reset_after": False}))],
)
def test_tf1_cells_count_as_keras_one_bias_cells(keras, cell, keras_layer):
    """TF1's [x; h] kernel holds Keras' kernel and recurrent_kernel; one bias each (Keras GRU
    ``reset_after=False`` is TF1's GRU)."""
    name, kwargs = keras_layer
    for i, h in [(3, 5), (28, 16)]:
        rows = frameworks.tensors("tf1", cell, i, h)
        assert sum(r.count for r in rows) == _keras_count(keras, getattr(keras.layers, name)(h, **kwargs), i)
        kernels = [r.shape for r in rows if r.name.endswith("kernel")]
        assert sum(s[0] for s in kernels) // len(kernels) == i + h


def test_tf1_projection_and_peepholes_against_torch_and_onnx():
    """TF1 LSTMCell(num_proj=P) = torch LSTM(proj_size=P) minus one of its two biases (4H);
    use_peepholes adds 3H, as ONNX's P (checked live above)."""
    for i, h, p in [(3, 5, 2), (40, 64, 16)]:
        torch_count = sum(x.numel() for x in _torch("LSTM", i, h, proj_size=p).parameters())
        assert frameworks.count("tf1", "LSTMCell", i, h, proj_size=p) == torch_count - 4 * h
    tf1 = frameworks.count("tf1", "LSTMCell", I, H, peepholes=True) - frameworks.count("tf1", "LSTMCell", I, H)
    onnx = frameworks.count("onnx", "LSTM", I, H, peepholes=True) - frameworks.count("onnx", "LSTM", I, H)
    assert tf1 == onnx == 3 * H
    shapes = {r.name: r.shape for r in frameworks.tensors("tf1", "LSTMCell", 3, 5, proj_size=2, peepholes=True)}
    assert shapes == {
        "rnn/lstm_cell/kernel": (5, 20),
        "rnn/lstm_cell/bias": (20,),
        "rnn/lstm_cell/w_f_diag": (5,),
        "rnn/lstm_cell/w_i_diag": (5,),
        "rnn/lstm_cell/w_o_diag": (5,),
        "rnn/lstm_cell/projection/kernel": (5, 2),
    }


# --------------------------------------------------------------------------- API and errors


def test_every_cell_counts_symbolically_and_numerically():
    for fw in frameworks.FRAMEWORKS.values():
        for spec in fw.cells:
            if fw.key == "xlstm":  # I = H, heads dividing H, the inner width rounded: test_live_xlstm.py
                continue
            dims = (spec.options.get("kernel_size") or (2,))[0]
            kwargs = {"kernel_size": (3,) * dims} if spec.generic == "convlstm" else {}
            closed = frameworks.count(fw.key, spec.name, I, H, num_layers=L, bidirectional=True, **kwargs)
            for i, h, layers in [(3, 5, 1), (4, 2, 3), (5, 2, 2)]:
                if spec.mode == "SRU" and i == 2 * h:  # I = D·H: no highway matrix, not the closed form's case
                    assert numeric_sru_square(fw.key, spec.name, i, h, layers, closed)
                    continue
                numeric = frameworks.count(fw.key, spec.name, i, h, num_layers=layers, bidirectional=True, **kwargs)
                assert isinstance(numeric, int)
                assert closed.xreplace({I: i, H: h, L: layers}) == numeric
                rows = frameworks.tensors(fw.key, spec.name, i, h, num_layers=layers, bidirectional=True, **kwargs)
                assert sum(r.count for r in rows) == numeric


def numeric_sru_square(framework, cls, i, h, layers, closed) -> bool:
    """SRU with I = D·H has one (H, I) block fewer per direction in layer 0 than the closed form."""
    numeric = frameworks.count(framework, cls, i, h, num_layers=layers, bidirectional=True)
    return closed.xreplace({I: i, H: h, L: layers}) - numeric == 2 * h * i


def test_generic_names_select_the_framework_class():
    assert frameworks.count("flax.linen", "lstm", 3, 5) == frameworks.count("flax.linen", "LSTMCell", 3, 5)
    assert frameworks.FRAMEWORKS["cudnn"].cell("gru").name == "CUDNN_GRU"
    assert sympy.expand(frameworks.count("tf1", "lstm", I, H, proj_size=P) - (4 * H * (I + P + 1) + H * P)) == 0


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: frameworks.count("caffe", "LSTM", 3, 5), "framework must be one of"),
        (lambda: frameworks.count("onnx", "LSTMCell", 3, 5), "cell must be one of ['RNN', 'LSTM', 'GRU']"),
        (lambda: frameworks.count("onnx", "mgu", 3, 5), "cell must be one of"),
        (lambda: frameworks.count("tf1", "LSTMCell", 3, 5, bias=False), "bias must be one of [True] for tf1 LSTMCell"),
        (lambda: frameworks.count("onnx", "GRU", 3, 5, peepholes=True), "peepholes must be one of [False]"),
        (
            lambda: frameworks.count("flax.linen", "GRUCell", 3, 5, reset_after=False),
            "reset_after must be one of [True]",
        ),
        (lambda: frameworks.count("tf1", "GRUCell", 3, 5, reset_after=True), "reset_after must be one of [False]"),
        (lambda: frameworks.count("onnx", "LSTM", 3, 5, proj_size=2), "proj_size must be 0 for onnx LSTM"),
        (lambda: frameworks.count("paddle", "LSTM", 3, 5, proj_size=5), "proj_size has to be smaller than hidden_size"),
        (lambda: frameworks.count("flax.linen", "ConvLSTMCell", 3, 5), "kernel_size is required"),
        (lambda: frameworks.count("flax.linen", "ConvLSTMCell", 3, 5, kernel_size=(1, 2, 3, 4)), "kernel_size must be"),
        (lambda: frameworks.count("equinox", "LSTMCell", 3, 5, kernel_size=(3,)), "kernel_size must be None"),
        (lambda: frameworks.count("onnx", "LSTM", 0, 5), "input_size must be greater than zero"),
        (lambda: frameworks.count("flax.nnx", "GRUCell", 3, 5, reset_gate=False), "reset_gate must be one of [True]"),
    ],
)
def test_bad_input_is_refused_with_a_clear_value_error(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: frameworks.count("onnx", "LSTM", 3.0, 5),
        lambda: frameworks.count("onnx", "LSTM", 3, 5, bidirectional=1),
        lambda: frameworks.count("onnx", "LSTM", 3, 5, num_layers="2"),
        lambda: frameworks.count("onnx", "LSTM", 3, 5, trainable_only="yes"),
    ],
)
def test_bad_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_tensors_needs_an_int_num_layers():
    with pytest.raises(ValueError, match="num_layers is symbolic"):
        frameworks.tensors("onnx", "LSTM", I, H, num_layers=L)


def test_status_names_the_package_or_the_source():
    for fw in frameworks.FRAMEWORKS.values():
        if fw.checked and fw.environment:  # installed in its own environment (.venv-<environment>)
            assert fw.status.startswith("checked against ")
        elif fw.checked:
            assert None not in fw.versions.values(), f"{fw.packages} not installed"
            assert fw.status == "checked against " + " and ".join(f"{p} {v}" for p, v in fw.versions.items())
        else:
            assert fw.status.startswith("from source: ") and fw.source in fw.status


def test_docstring_examples():
    result = doctest.testmod(frameworks, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_symbols_stay_symbolic():
    assert isinstance(frameworks.count("onnx", "GRU", I, H), sympy.Expr)
    assert sympy.expand(frameworks.count("onnx", "GRU", I, H) - 3 * H * (I + H + 2)) == 0
