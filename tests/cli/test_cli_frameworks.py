"""Constructors of every registered framework, pasted as their users write them, against the real package.

Each case is a line as a user writes it. The same text is evaluated in the real package
(``tests/support/cli_frameworks.py``: built, applied once where the weights are made then) and
given to ``derive`` on the command line: names, shapes, trainable flags and the total must be the
package's; where the package refuses the line, derive refuses it (exit status 2, one line).
``STRICTER`` lines are ones the package accepts but derive refuses by design (an option that adds
tensors derive does not model), each with the words of its refusal.

The blocks (:mod:`derive.blocks`) are held the same way: mamba_ssm and flash-linear-attention in
``.venv-ssm``, transformers' configs on the meta device, and the reference code of S4, S5 and the
LRU (no packages) through the transcriptions in ``tests/support/ssm_reference.py``. Frameworks no
test can evaluate here are listed in ``CITED`` with the reason, never skipped in silence; every
block class registered is either a case here or in a cited framework.
"""

from __future__ import annotations

import ast
import io
import json
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import live_record
import pytest
from cli_frameworks import CITED, RUNNERS, UNORDERED, WORKERS

from derive.cli import main
from derive.engine.constructors import CONSTRUCTORS
from docs_src.record import LIBRARIES

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
    ("haiku", "hk.deep_rnn_with_skip_connections([hk.LSTM(8), hk.GRU(4), hk.LSTM(8)])", 3),
    ("haiku", "hk.deep_rnn_with_skip_connections([hk.LSTM(8), jax.nn.relu, hk.LSTM(8)])", 4),
    ("haiku", "hk.deep_rnn_with_skip_connections([])", 4),
    ("mlx", "mlx.nn.LSTM(32, 128)", None),
    ("mlx", "nn.GRU(16, 32, bias=False)", None),
    ("mlx", "mlx.nn.RNN(5, 7)", None),
    ("mlx", "mlx.nn.GRU(5, 7)", None),
    ("mlx", "mlx.nn.LSTM(4)", None),
    ("mlx", "nn.Sequential(nn.GRU(20, 50), nn.GRU(50, 50))", None),
    ("mlx", "mlx.nn.Sequential(mlx.nn.GRU(3, 4, bias=False), mlx.nn.RNN(4, 2), mlx.nn.LSTM(2, 5))", None),
    ("mlx", "nn.Sequential(nn.GRU(4, 8), nn.GRU(9, 8))", None),
    ("mlx", "mlx.nn.Sequential(mlx.nn.LSTM(4, 8), mlx.nn.GRU(8, 8))", None),
    ("mlx", "mlx.nn.Sequential()", None),
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
    (
        "mxnet",
        "rnn.GRU(hidden_size=1, num_layers=2, bidirectional=True, layout='NTC', use_sequence_length=True, input_size=2)",
        None,
    ),
    ("mxnet", "rnn.LSTM(3, num_layers=2, use_sequence_length=True)", 2),
    ("mxnet", "rnn.LSTM(4, use_sequence_length=True, prefix='enc_', input_size=3)", None),
    ("mxnet", "mx.gluon.rnn.RNN(4, use_sequence_length=False, params=None)", 3),
    ("mxnet", "rnn.GRU(4, bogus=1)", 3),
    ("mxnet", "rnn.GRUCell(4, use_sequence_length=True)", 3),
    # cuDNN (no GPU here: cli_frameworks.cudnn_run counts the buffer on torch's layers)
    ("cudnn", "cudnn.BLSTM(512, 512, 1, false, 0)", None),
    ("cudnn", "cudnn.LSTM(32, 64, 2, true, 0.5, true)", None),
    ("cudnn", "cudnn.GRU(10, 20, 3)", None),
    ("cudnn", "cudnn.BGRU(8, 16, 2, false)", None),
    ("cudnn", "cudnn.RNNTanh(5, 7, 2)", None),
    ("cudnn", "cudnn.RNNReLU(5, 7, 1)", None),
    ("cudnn", "cudnn.RNN(3, 4, 2, nil, 0)", None),
    ("cudnn", "tf.contrib.cudnn_rnn.CudnnLSTM(3, 143, direction='bidirectional')", 143),
    ("cudnn", "tf.contrib.cudnn_rnn.CudnnGRU(2, 32, dropout=0.3, name='encoder')", 16),
    ("cudnn", "CudnnRNNTanh(1, 8, input_mode='auto_select')", 8),
    ("cudnn", "CudnnRNNRelu(2, 8, input_mode='auto_select', direction='bidirectional')", 4),
    ("cudnn", "tf.contrib.cudnn_rnn.CudnnLSTM(2, 8, input_mode='skip_input', direction='bidirectional')", 8),
    ("cudnn", "CudnnLSTM(1, 8, input_mode='skip_input')", 4),
    ("cudnn", "CudnnLSTM(1, 8, direction='both')", 4),
    ("cudnn", "CudnnGRU(1, 8, input_mode='linear')", 4),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(128)", 32),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(8, num_proj=4, use_peepholes=True, name='enc')", 3),
    ("tf1", "rnn_cell.GRUCell(6)", 4),
    ("tf1", "rnn_cell.BasicRNNCell(5)", 4),
    ("tf1", "tf.compat.v1.nn.rnn_cell.BasicLSTMCell(5, trainable=False)", 3),
    ("tf1", "tf.compat.v1.nn.rnn_cell.LSTMCell(8, num_unit_shards=2)", 3),
    # the blocks
    ("mamba_ssm", "Mamba(d_model=18, d_state=16, d_conv=4, expand=2)", None),
    ("mamba_ssm", "mamba_ssm.Mamba(64, d_state=8, expand=1.5, dt_rank=5, conv_bias=False, bias=True)", None),
    ("mamba_ssm", "mamba_ssm.modules.mamba_simple.Mamba(25, expand=1.5)", None),
    ("mamba_ssm", "Mamba(18, dt_init='uniform')", None),
    ("mamba_ssm", "mamba_ssm.Mamba2(256, headdim=64)", None),
    ("mamba_ssm", "Mamba2(d_model=64, d_state=16, headdim=16, ngroups=2, D_has_hdim=True, rmsnorm=False)", None),
    ("mamba_ssm", "Mamba2(64, headdim=16, d_ssm=64, bias=True, conv_bias=False)", None),
    ("mamba_ssm", "Mamba2(64, headdim=24)", None),
    # mamba_ssm 1.0's keywords, no MambaConfig (the worker builds 1.0's defaults: mamba_worker.py, lm_1_0)
    ("mamba_ssm", "MambaLMHeadModel(d_model=64, n_layer=2, vocab_size=101)", None),
    (
        "mamba_ssm",
        "MambaLMHeadModel(64, 3, 100, pad_vocab_size_multiple=8, rms_norm=True, ssm_cfg={'d_state': 8})",
        None,
    ),
    (
        "mamba_ssm",
        "mamba_ssm.models.config_mamba.MambaConfig(d_model=64, n_layer=2, vocab_size=100, pad_vocab_size_multiple=8)",
        None,
    ),
    ("fla", "GatedLinearAttention(hidden_size=64, num_heads=2)", None),
    ("fla", "fla.layers.GatedLinearAttention(hidden_size=64, num_heads=4, use_short_conv=True, expand_v=2)", None),
    ("fla", "MultiScaleRetention(hidden_size=64, num_heads=2)", None),
    ("fla", "HGRNAttention(hidden_size=32, expand_ratio=2, use_short_conv=True)", None),
    ("fla", "HGRN2Attention(hidden_size=64, num_heads=2, expand_ratio=16)", None),
    ("fla", "layers.DeltaNet(hidden_size=64, num_heads=2, use_gate=True)", None),
    ("fla", "RWKV6Attention(hidden_size=64, num_heads=2)", None),
    ("fla", "RWKV7Attention(hidden_size=64, head_dim=16)", None),
    ("fla", "fla.layers.RWKV7Attention(hidden_size=64, head_dim=16, layer_idx=0, num_hidden_layers=2)", None),
    ("fla", "RWKV6Config(hidden_size=64, num_hidden_layers=2, vocab_size=10, num_heads=2)", None),
    ("fla", "fla.models.RWKV7Config(hidden_size=64, num_hidden_layers=2, vocab_size=10, head_dim=16)", None),
    ("transformers", "MambaConfig(hidden_size=16, num_hidden_layers=2, vocab_size=10)", None),
    (
        "transformers",
        "transformers.MambaConfig(hidden_size=24, state_size=8, expand=3, num_hidden_layers=1, vocab_size=7, "
        "tie_word_embeddings=False, use_bias=True)",
        None,
    ),
    ("transformers", "FalconMambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=10)", None),
    (
        "transformers",
        "Mamba2Config(hidden_size=64, num_heads=4, head_dim=32, n_groups=2, state_size=16, num_hidden_layers=1, "
        "vocab_size=10)",
        None,
    ),
    ("transformers", "RwkvConfig(hidden_size=16, num_hidden_layers=2, vocab_size=10)", None),
    (
        "transformers",
        "RecurrentGemmaConfig(hidden_size=16, num_attention_heads=2, num_hidden_layers=3, vocab_size=10, "
        "intermediate_size=24)",
        None,
    ),
    ("s4", "S4D(64)", None),
    ("s4", "s4d.S4D(16, d_state=8, lr=0.0)", None),
    ("s4", "S4Block(64)", None),
    ("s4", "s4.S4Block(8, mode='diag', d_state=16, channels=2)", None),
    ("s4", "s4.FFTConv(16, mode='s4d', bidirectional=True)", None),
    (
        "s5",
        "S5SSM(Lambda_re, Lambda_im, V, Vinv, H=8, P=4, C_init='trunc_standard_normal', discretization='zoh', "
        "dt_min=0.001, dt_max=0.1)",
        None,
    ),
    (
        "s5",
        "ssm.S5SSM(Lambda_re, Lambda_im, V, Vinv, 6, 3, 'complex_normal', 'bilinear', 0.001, 0.1, bidirectional=True)",
        None,
    ),
    ("lru", "LRU(16, 8)", None),
    ("lru", "lru.model.LRU(d_hidden=7, d_model=3, r_min=0.9)", None),
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
    counted = [t for t in data["tensors"] if not t.get("buffer") and not t.get("tied_to")]  # as named_parameters()
    rows = [(t["name"], tuple(t["shape"]), t.get("trainable", True)) for t in counted]
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
    if LIBRARIES.get(framework) and LIBRARIES[framework].packages:  # a block library held live
        live_record.checked(framework, _called(text))


IN_PROCESS = [c for c in CASES if c[0] not in WORKERS]
IN_WORKERS = [c for c in CASES if c[0] in WORKERS]


@pytest.mark.slow
@pytest.mark.parametrize("framework,text,input_dim", IN_PROCESS, ids=_ids(IN_PROCESS))
def test_line_as_written_matches_the_package(framework, text, input_dim):
    _check(framework, text, input_dim)


@pytest.mark.slow
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
    """A framework that registers constructors is exercised here against its package, or cited with a reason."""
    registered = {fw for fw, _ in CONSTRUCTORS} - {"torch", "keras"}
    assert registered <= set(RUNNERS) | set(CITED), registered - set(RUNNERS) - set(CITED)
    assert registered - set(CITED) <= {fw for fw, _, _ in CASES}
    assert not set(CITED) & set(RUNNERS)


def _called(text: str) -> str:
    return ast.unparse(ast.parse(text, mode="eval").body.func).rpartition(".")[2]


def test_every_block_class_has_a_case_or_is_cited():
    """Each class the blocks register (:mod:`derive.blocks`) is written in a case, or its framework is cited."""
    blocks = {(c.framework, c.name) for c in CONSTRUCTORS.values() if c.make.__module__.startswith("derive.blocks.")}
    written = {(fw, _called(text)) for fw, text, _ in CASES}
    assert {(fw, n) for fw, n in blocks if fw not in CITED} <= written, blocks - written
    for fw in CITED:  # cited: every class names the file and lines it is read from
        assert all(c.source and any(ch.isdigit() for ch in c.source) for (f, _), c in CONSTRUCTORS.items() if f == fw)


def test_block_lines_show_the_blocks_closed_form():
    """A block's closed form is in its constructor's letters (d, N, K, e for Mamba: d_model is d, since D is
    a tensor of the mixer), never the bare count."""
    status, out, err = run_cli("Mamba(d_model=18, d_state=16, d_conv=4, expand=2)")
    assert status == 0, err
    line = next(x for x in out.splitlines() if x.startswith("formula:"))
    assert line == (
        "formula: params = K*d*e + 3*N*d*e + 3*d**2*e + 2*d*e*ceiling(d/16) + 3*d*e   (d=18, N=16, K=4, e=2)"
    )
    status, out, err = run_cli("mamba_ssm.Mamba2(256, headdim=64)", "--json")
    data = json.loads(out)
    assert data["values"] == {"d": 256, "N": 128, "K": 4, "e": 2, "P": 64, "G": 1}
    status, out, err = run_cli("LRU(16, 8)", "--latex")
    assert out.startswith(r"\text{params} = 4 H N + H + 3 N = 568")


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


def test_a_formula_the_count_does_not_confirm_is_not_shown():
    """The module's own closed form is shown only if, at its values, it gives the count (else the generic one)."""
    import sympy

    from derive.read.line.registered import _own_formula
    from derive.tree import Formula, Module, Param

    d = sympy.Symbol("D", integer=True, positive=True)
    module = Module("", "X", (Param("w", (3,)),), formula=Formula(lambda width: 2 * width, (d,), values=(("D", 3),)))
    assert _own_formula(module, 6) == (2 * d, {"D": 3})
    assert _own_formula(module, 7) is None  # disagrees
    assert _own_formula(module, sympy.Symbol("H") * 2) is None  # symbolic sizes: the generic path
    constant = module.replace(formula=Formula(lambda: 6))
    assert _own_formula(constant, 6) is None  # no letters: nothing to show but the count
    assert _own_formula(module.replace(formula=None), 6) is None
