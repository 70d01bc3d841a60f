"""Constructors of every registered framework, pasted as their users write them, against the real package.

Each case is a line as a user writes it. The same text is evaluated in the real package
(``tests/support/cli_frameworks.py``: built, applied once where the weights are made then) and
given to ``derive`` on the command line: names, shapes, trainable flags and the total must be the
package's; where the package refuses the line, derive refuses it (exit status 2, one line).
``STRICTER`` lines are ones the package accepts but derive refuses by design (an option that adds
tensors derive does not model), each with the words of its refusal.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
from cli_frameworks import RUNNERS, UNORDERED, WORKERS

from derive.cli import main
from derive.engine.constructors import CONSTRUCTORS

#: (framework, line as written, --input-dim or None)
CASES = [
    ("haiku", "hk.LSTM(128)", 32),
    ("haiku", "hk.GRU(16, name='encoder')", 8),
    ("haiku", "haiku.VanillaRNN(12, double_bias=False)", 5),
    ("haiku", "hk.VanillaRNN(3)", 2),
    ("haiku", "hk.Conv2DLSTM((6, 6), 8, 3)", 4),
    ("haiku", "hk.Conv1DLSTM(input_shape=(7,), output_channels=5, kernel_shape=(2,))", 3),
    ("haiku", "hk.Conv3DLSTM((4, 4, 4), 2, kernel_shape=1)", 3),
    ("haiku", "hk.LSTM()", 4),
    ("haiku", "hk.LSTM(8, bias=False)", 4),
    ("mlx", "mlx.nn.LSTM(32, 128)", None),
    ("mlx", "nn.GRU(16, 32, bias=False)", None),
    ("mlx", "mlx.nn.RNN(5, 7)", None),
    ("mlx", "mlx.nn.GRU(5, 7)", None),
    ("mlx", "mlx.nn.LSTM(4)", None),
    ("flax.linen", "flax.linen.OptimizedLSTMCell(128)", 32),
    ("flax.linen", "nn.GRUCell(features=16)", 8),
    ("flax.linen", "nn.MGUCell(6, reset_gate=False)", 5),
    ("flax.linen", "nn.MGUCell(6)", 5),
    ("flax.linen", "nn.SimpleCell(4)", 3),
    ("flax.linen", "nn.ConvLSTMCell(6, kernel_size=(3, 3))", 2),
    ("flax.linen", "nn.ConvLSTMCell(6, (3,), use_bias=False)", 2),
    ("flax.linen", "nn.LSTMCell(8, kernel_init=nn.initializers.orthogonal())", 4),
    ("flax.linen", "linen.LSTMCell(8, units=3)", 4),
    ("flax.nnx", "nnx.LSTMCell(8, 16, rngs=nnx.Rngs(0))", None),
    ("flax.nnx", "flax.nnx.GRUCell(4, 6, rngs=nnx.Rngs(1))", None),
    ("flax.nnx", "nnx.SimpleCell(3, 5, rngs=nnx.Rngs(0), residual=False)", None),
    ("flax.nnx", "nnx.OptimizedLSTMCell(3, 5, rngs=nnx.Rngs(0))", None),
    ("flax.nnx", "nnx.GRUCell(4, 6)", None),
    ("equinox", "eqx.nn.LSTMCell(32, 128, key=jax.random.key(0))", None),
    ("equinox", "eqx.nn.GRUCell(4, 6, use_bias=False, key=jax.random.key(0))", None),
    ("equinox", "equinox.nn.GRUCell(4, 6, key=jax.random.key(1))", None),
    ("equinox", "eqx.nn.GRUCell(4, 6)", None),
    ("paddle", "paddle.nn.LSTM(32, 128)", None),
    ("paddle", "paddle.nn.GRU(16, 32, 2, direction='bidirect')", None),
    ("paddle", "paddle.nn.LSTM(8, 16, proj_size=4)", None),
    ("paddle", "paddle.nn.LSTMCell(3, 4, bias_ih_attr=False)", None),
    ("paddle", "nn.SimpleRNN(3, 4, activation='relu', weight_hh_attr=paddle.ParamAttr(trainable=False))", None),
    ("paddle", "paddle.nn.SimpleRNNCell(3, 4)", None),
    ("paddle", "paddle.nn.GRUCell(3, 4, bias_hh_attr=False)", None),
    ("paddle", "paddle.nn.LSTM(3, 4, 2, bias_ih_attr=False, bias_hh_attr=False)", None),
    ("paddle", "paddle.nn.GRU(3, 4, 2, direction='bidirectional', weight_ih_attr=False)", None),
    ("paddle", "paddle.nn.GRU(3, 4, 2, bias_hh_attr=False)", None),
    ("paddle", "paddle.nn.SimpleRNN(3, 4, 3, bias_hh_attr=False)", None),
    ("paddle", "paddle.nn.LSTM(3, 4, direction='bidirect', bias_ih_attr=False)", None),
    ("paddle", "paddle.nn.LSTM(3, 4, 2, direction='bidirect', bias_ih_attr=False, proj_size=2)", None),
    ("paddle", "paddle.nn.LSTM(3, 4, direction='sideways')", None),
    ("paddle", "paddle.nn.LSTM(3, 4, proj_size=4)", None),
    ("paddle", "paddle.nn.SimpleRNN(3, 4, activation='sigmoid')", None),
    ("sru", "sru.SRU(4, 6)", None),
    ("sru", "SRU(8, 8, num_layers=3, bidirectional=True)", None),
    ("sru", "sru.SRUCell(4, 6, has_skip_term=False)", None),
    ("sru", "sru.SRU(4, 6, use_tanh=True, rescale=True, highway_bias=-2.0)", None),
    ("mingru", "minGRU(8)", None),
    ("mingru", "minGRU(8, expansion_factor=1.5)", None),
    ("mingru", "minLSTM(6, expansion_factor=2.0, proj_out=False)", None),
    ("mingru", "minGRU_pytorch.minGRU(5, 3.0)", None),
    ("xlstm", "sLSTMLayer(sLSTMLayerConfig(embedding_dim=16, num_heads=4, backend='vanilla'))", None),
    (
        "xlstm",
        "xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(embedding_dim=8, num_heads=2, conv1d_kernel_size=0, backend='vanilla'))",
        None,
    ),
    ("xlstm", "xlstm.mLSTMLayer(xlstm.mLSTMLayerConfig(embedding_dim=16, num_heads=4, context_length=2))", None),
    ("xlstm", "mLSTMLayer(mLSTMLayerConfig(embedding_dim=16, num_heads=2, bias=True, context_length=2))", None),
    ("mxnet", "mx.gluon.rnn.LSTM(128)", 32),
    ("mxnet", "rnn.GRU(16, num_layers=2, bidirectional=True, input_size=8)", None),
    ("mxnet", "mx.gluon.rnn.LSTM(16, projection_size=8)", 4),
    ("mxnet", "mxnet.gluon.rnn.RNN(6, activation='tanh')", 3),
    ("mxnet", "rnn.LSTMCell(12)", 5),
    ("mxnet", "rnn.RNNCell(4, prefix='l0_')", 3),
    ("mxnet", "gluon.rnn.GRUCell(4, input_size=3)", None),
    ("mxnet", "rnn.LSTM(4, layout='CNT')", 3),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(128)", 32),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(8, num_proj=4, use_peepholes=True, name='enc')", 3),
    ("tf1", "rnn_cell.GRUCell(6)", 4),
    ("tf1", "rnn_cell.BasicRNNCell(5)", 4),
    ("tf1", "tf.compat.v1.nn.rnn_cell.BasicLSTMCell(5, trainable=False)", 3),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(8, num_unit_shards=2)", 3),
]

#: Lines the package accepts and derive refuses by design, with the words of the refusal.
STRICTER = {
    "sru": [("sru.SRU(4, 6, projection_size=2)", "projection_size=2 is not supported by derive")],
    "haiku": [("hk.LSTM(0)", "hidden_size must be greater than zero")],
}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def derive_rows(framework: str, text: str, input_dim: int | None) -> tuple[int, list, str]:
    argv = [text, "--framework", framework, "--json"] + (["--input-dim", str(input_dim)] if input_dim else [])
    status, out, err = run_cli(*argv)
    if status != 0:
        assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("derive: error: "), err
        return status, [], err
    data = json.loads(out)
    rows = [(t["name"], tuple(t["shape"]), t.get("trainable", True)) for t in data["tensors"]]
    assert data["total"] == sum(t["parameters"] for t in data["tensors"]) and data["partial"] is False
    return status, rows, err


def _ids(cases):
    return [f"{fw}:{text[:48]}" for fw, text, _ in cases]


def _check(framework: str, text: str, input_dim: int | None) -> None:
    try:
        real = RUNNERS[framework](text, input_dim)
    except Exception as error:  # the package refuses the line: so must derive
        status, _, err = derive_rows(framework, text, input_dim)
        assert status == 2, f"derive answered a line {framework} refuses ({type(error).__name__}: {error})"
        return
    status, ours, err = derive_rows(framework, text, input_dim)
    assert status == 0, err
    if framework in UNORDERED:
        ours, real = sorted(ours), sorted(real)
    assert ours == real


IN_PROCESS = [c for c in CASES if c[0] not in WORKERS]
IN_WORKERS = [c for c in CASES if c[0] in WORKERS]


@pytest.mark.parametrize("framework,text,input_dim", IN_PROCESS, ids=_ids(IN_PROCESS))
def test_line_as_written_matches_the_package(framework, text, input_dim):
    _check(framework, text, input_dim)


@pytest.mark.parametrize("framework,text,input_dim", IN_WORKERS, ids=_ids(IN_WORKERS))
def test_line_as_written_matches_the_package_in_its_worker(framework, text, input_dim):
    _check(framework, text, input_dim)


@pytest.mark.parametrize(
    "framework,text,words", [(fw, t, w) for fw, cases in STRICTER.items() for t, w in cases], ids=lambda v: str(v)[:40]
)
def test_stricter_by_design(framework, text, words):
    RUNNERS[framework](text, 4)  # the package accepts it
    status, _, err = derive_rows(framework, text, 4 if framework == "haiku" else None)
    assert status == 2 and words in err, err


def test_every_registered_framework_has_cases():
    """A framework that registers constructors is exercised here against its package."""
    registered = {fw for fw, _ in CONSTRUCTORS} - {"torch", "keras"}
    assert registered <= set(RUNNERS), registered - set(RUNNERS)
    assert registered <= {fw for fw, _, _ in CASES}


@pytest.mark.parametrize(
    "text,framework",
    [
        ("hk.LSTM(128)", "haiku"),
        ("mlx.nn.LSTM(32, 128)", "mlx"),
        ("flax.linen.OptimizedLSTMCell(128)", "flax.linen"),
        ("paddle.nn.LSTM(32, 128)", "paddle"),
        ("mx.gluon.rnn.LSTM(128)", "mxnet"),
        ("tf.compat.v1.nn.rnn_cell.LSTMCell(128)", "tf1"),
    ],
)
def test_the_prefix_says_the_framework(text, framework):
    """Written with the framework's own prefix, a line needs no --framework."""
    status, out, err = (
        run_cli(text, "--json", "--input-dim", "32") if framework not in ("mlx", "paddle") else run_cli(text, "--json")
    )
    assert status == 0, err
    assert json.loads(out)["framework"] == framework


def test_torch_wins_where_names_are_shared_and_the_option_chooses():
    status, out, _ = run_cli("nn.LSTM(32, 128)", "--json")
    assert json.loads(out)["framework"] == "torch" and json.loads(out)["tensors"][0]["name"] == "weight_ih_l0"
    for framework, first in (("mlx", "Wx"), ("paddle", "weight_ih")):
        status, out, err = run_cli("nn.LSTM(32, 128)", "--json", "--framework", framework)
        assert status == 0, err
        assert json.loads(out)["tensors"][0]["name"].endswith(first)
