"""The command-line tool: numbers against torch/Keras, and hostile input refused (run in this process
through ``main``; the installed console script as a real process)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
from torch import nn
from torch_live import torch_count

import derive.torch as dt
from derive.cli import InputError, main, parse

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("derive")


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run(*args, cwd=None):
    """``derive ARGS`` in this process (``main``), in ``cwd``: what a real process prints and returns
    (real processes: the console script below, tests/cli/test_cli_output.py and the goldens)."""
    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = main(list(args))
    finally:
        os.chdir(previous)
    return Result(status, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(
    "call,module",
    [
        ("nn.LSTM(32, 128, 2, bidirectional=True)", lambda: nn.LSTM(32, 128, 2, bidirectional=True)),
        ("torch.nn.GRU(10, 20)", lambda: nn.GRU(10, 20)),
        ("LSTM(10, 20, 1, proj_size=5)", lambda: nn.LSTM(10, 20, 1, proj_size=5)),
        (
            "nn.RNN(25, 50, 4, nonlinearity='relu', bias=False)",
            lambda: nn.RNN(25, 50, 4, nonlinearity="relu", bias=False),
        ),
        ("nn.LSTMCell(10, 20)", lambda: nn.LSTMCell(10, 20)),
    ],
)
def test_json_matches_torch(call, module):
    result = run(call, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    m = module()
    assert data["count"] == torch_count(m)
    assert [(t["name"], tuple(t["shape"]), t["parameters"]) for t in data["tensors"]] == [
        (n, tuple(p.shape), p.numel()) for n, p in m.named_parameters()
    ]
    assert sum(data["layers"]) == data["count"]


def test_text_output_has_table_total_and_formula():
    result = run("nn.LSTM(32, 128, 2, bidirectional=True)")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    expected = torch_count(nn.LSTM(32, 128, 2, bidirectional=True))
    assert f"{expected:,}" in out
    assert "weight_ih_l1_reverse" in out and "(512, 256)" in out
    assert "formula: N = 24*H**2*L - 16*H**2 + 8*H*I + 16*H*L" in out
    assert result.stderr == ""


def test_console_script_installed():
    assert SCRIPT.exists(), "pip install -e . creates the derive console script"
    result = subprocess.run([str(SCRIPT), "nn.GRU(10, 20)", "--json"], capture_output=True, text=True, timeout=120)
    assert json.loads(result.stdout)["count"] == torch_count(nn.GRU(10, 20))


def test_latex_output():
    result = run("nn.LSTM(32, 128, 2, bidirectional=True)", "--latex")
    assert result.returncode == 0
    assert result.stdout.strip().startswith("N = 24 H^{2} L")
    assert f"{torch_count(nn.LSTM(32, 128, 2, bidirectional=True)):,}".replace(",", "{,}") in result.stdout


def test_symbolic_sizes():
    result = run("nn.LSTM(I, H, L)", "--json")
    data = json.loads(result.stdout)
    assert data["count"] == "8*H**2*L - 4*H**2 + 4*H*I + 8*H*L"
    assert any(t["name"] == "weight_ih_l{k}" for t in data["tensors"])


def test_cost_option_matches_the_library():
    from derive.analysis.cost import cost

    result = run("nn.GRU(10, 20, 2)", "--cost", "--seq-len", "7", "--batch", "3", "--json")
    data = json.loads(result.stdout)
    assert data["cost"]["matmul_flops"] == cost(dt.GRU(10, 20, 2), 7, 3).matmul_flops


def test_cost_says_why_flops_are_not_derived(tmp_path):
    """A language model whose FLOPs per token derive leaves underived says why, in the text and the JSON
    (RWKV at a batch of 2: transformers' one-token step broadcasts; measured in
    tests/families/test_families_live.py)."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "rwkv", "vocab_size": 40, "hidden_size": 12, "num_hidden_layers": 3}))
    text = run(str(config), "--cost", "--batch", "2", "--seq-len", "5")
    assert text.returncode == 0, text.stderr
    assert "matmul FLOPs for the token at position T not derived (below)" in text.stdout
    assert "note: FLOPs per token not derived: the FLOPs of RwkvSelfAttention" in text.stdout
    data = json.loads(run(str(config), "--cost", "--batch", "2", "--seq-len", "5", "--json").stdout)["cost"]
    assert data["flops_per_token"] is None and "N x N rows" in data["flops_not_derived"]
    one = json.loads(run(str(config), "--cost", "--batch", "1", "--seq-len", "5", "--json").stdout)["cost"]
    assert type(one["flops_per_token"]) is int and one["flops_not_derived"] is None


def test_keras_bidirectional_matches_keras():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("keras not on the torch backend")
    from keras import layers

    result = run("--keras", "Bidirectional(LSTM(128))", "--input-dim", "28", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    inputs = keras.Input(shape=(None, 28))
    layer = layers.Bidirectional(layers.LSTM(128))
    layer(inputs)
    assert data["count"] == layer.count_params() == 160768
    assert [tuple(t["shape"]) for t in data["tensors"]] == [tuple(w.shape) for w in layer.weights]
    assert data["formula"] == "8*H**2 + 8*H*I + 8*H"


def test_keras_sequential():
    result = run(
        "--keras", "keras.layers.Bidirectional(layers.GRU(16, return_sequences=True))", "--input-dim", "8", "--json"
    )
    assert result.returncode == 0, result.stderr
    from derive import keras as dk

    assert json.loads(result.stdout)["count"] == dk.count(dk.Bidirectional(dk.GRU(16, return_sequences=True)), 8)


@pytest.mark.parametrize(
    "constructor",
    ["RNN(LSTMCell(64))", "layers.Bidirectional(layers.RNN([layers.LSTMCell(8), layers.GRUCell(4)]))"],
)
def test_keras_rnn_of_cells(constructor):
    from derive import keras as dk
    from derive.cli.app import describe

    result = run("--keras", constructor, "--input-dim", "16", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    obj = describe(constructor, keras=True, input_dim=16)["object"]
    assert data["count"] == dk.count(obj, 16)
    assert [t["name"] for t in data["tensors"]] == [w.path for w in dk.tensors(obj, 16)]
    assert (
        data["tensors"][0]["name"].endswith("rnn/lstm_cell/kernel")
        or "stacked_rnn_cells/lstm_cell/" in (data["tensors"][0]["name"])
    )


def test_keras_version_defaults_are_applied_and_stated():
    result = run("--keras", "Bidirectional(GRU(5))", "--input-dim", "4", "--keras-version", "2.2", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["count"] == 300  # 2 x 3H(I + H + 1): reset_after=False
    assert "reset_after=False (Keras 2.2's default; reset_after=True from Keras 2.4" in data["notes"][0]
    assert json.loads(run("--keras", "GRU(5)", "--input-dim", "4", "--json").stdout)["count"] == 165
    cudnn = json.loads(run("--keras", "CuDNNLSTM(5)", "--input-dim", "4", "--json").stdout)
    assert cudnn["count"] == 220 and cudnn["tensors"][-1] == {
        "name": "cu_dnnlstm/bias",
        "shape": [40],
        "parameters": 40,
    }
    assert "Keras 2 layers" in cudnn["notes"][0]


HOSTILE = [
    ('nn.LSTM(__import__("os").system("touch PWNED"), 3)', "not evaluated"),
    ('__import__("os").system("touch PWNED")', "only a call of a class name"),
    ("__import__('os')", "no PyTorch model found"),
    ("open('PWNED', 'w')", "no PyTorch model found"),
    ("os.system('touch PWNED')", "depends on os without a value"),
    ("os.GRU(input_size=1, hidden_size=1)", "unknown prefix 'os.' of GRU: write nn.GRU (torch), layers.GRU (keras)"),
    ("torch.nn.modules.rnn.LSTM(1, 2)", "unknown prefix 'torch.nn.modules.rnn.' of LSTM"),
    ("nn.LSTM.__init__.__globals__", "expected one constructor call"),
    ("nn.LSTM(1, 2).__class__", "expected one constructor call"),
    ('nn.LSTM(__import__("os"), 2)', "input_size should be of type int, got: __import__(...) (not evaluated"),
    ("nn.LSTM(lambda: 3, 2)", "lambdas are not allowed"),
    ("nn.LSTM([x for x in range(9)], 2)", "comprehensions are not allowed"),
    ("nn.LSTM(*[32, 64])", "starred"),
    ("nn.LSTM(**{'input_size': 3})", "keyword unpacking"),
    ("nn.LSTM(f'{1}', 2)", "f-strings"),
    ("nn.LSTM(2**1000, 2)", "BinOp"),
    ("nn.LSTM(10**30, 2)", "BinOp"),
    ("nn.LSTM(99999999999999999999999, 2)", "too large"),
    ("nn.LSTM(32, 128", "syntax error"),
    ("import os", "syntax error"),
    ("nn.LSTM(32, 0)", "hidden_size must be greater than zero"),
    ("nn.LSTM(32, 128, proj_size=200)", "proj_size has to be smaller"),
    ("nn.LSTM(32, 128, bidirectional=1)", "bidirectional should be of type bool"),
    ("nn.LSTM(32.5, 128)", "input_size should be of type int"),
    ("nn.GRU(3, 4, proj_size=2)", "only supported for LSTM"),
    ("Bidirectional(LSTM(3))", "--input-dim is required"),
    ("nn.LSTM('" + "a" * 100 + "', 2)", "string literal longer"),
    ("", "empty constructor"),
    ("nn.LSTM(3, 4); import os", "syntax error"),
    ("nn.LSTM(3, 4 if True else 5)", "IfExp"),
    ("nn.LSTM(b'3', 4)", "literal of type bytes"),
]


# Read as whole models (issue 11), not run: an unknown name stays a symbol, a statement is parsed only.
ANSWERED = [
    ("nn.LSTM(x, 2)", lambda torch, x: torch.nn.LSTM(x, 2)),
    ("nn.Linear(3, 4)", lambda torch, x: torch.nn.Linear(3, 4)),
    ("nn.LSTM(3, 4)\nimport os", lambda torch, x: torch.nn.LSTM(3, 4)),
    ("nn.LSTM((lambda: 3)(), 2)", lambda torch, x: torch.nn.LSTM(3, 2)),  # the code's own lambda, read
]


@pytest.mark.parametrize("text,build", ANSWERED, ids=[a[0][:40] for a in ANSWERED])
def test_model_code_is_read_not_run(text, build, tmp_path):
    torch = pytest.importorskip("torch")
    import sympy

    result = run(text, "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []
    total = sympy.parse_expr(str(json.loads(result.stdout)["total"]), local_dict={"x": sympy.Symbol("x")})
    for x in (1, 7):
        assert total.subs("x", x) == sum(p.numel() for p in build(torch, x).parameters())


@pytest.mark.parametrize("text,message", HOSTILE, ids=[h[0][:40] for h in HOSTILE])
def test_hostile_input_is_refused_and_nothing_runs(text, message, tmp_path):
    result = run(text, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("derive: error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "PWNED").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args,message",
    [
        (["--keras", "Bidirectional(LSTM(3))"], "--input-dim is required"),
        (["--keras", "Bidirectional(Bidirectional(LSTM(3)))", "--input-dim", "3"], "cannot be nested"),
        (["--keras", "Sequential([LSTM(3), Sequential([LSTM(2)])])", "--input-dim", "3"], "cannot be nested"),
        (["--keras", "Bidirectional(LSTM(3), merge_mode='max')", "--input-dim", "3"], "merge_mode"),
        (["--keras", "nn.LSTM(3, 4)", "--input-dim", "3"], "nn.LSTM is not a keras class"),
        (["nn.GRU(3, 4)", "--input-dim", "3"], "torch's GRU takes input_size"),
        (["--keras", "LSTMCell(3)", "--input-dim", "3"], "wrap it in RNN"),
        (["--keras", "GRU(3)", "--input-dim", "3", "--keras-version", "1.2"], "must be one of 2.0, 2.1"),
        (["--keras", "CuDNNLSTM(3)", "--input-dim", "3", "--keras-version", "3"], "do not exist in Keras 3"),
        (["nn.GRU(3, 4)", "--keras-version", "2.2"], "only for Keras constructors"),
        (["--keras", "RNN(LSTM(3))", "--input-dim", "3"], "LSTM is not a cell"),
        (["--keras", "Bidirectional(StackedRNNCells([LSTMCell(3)]))", "--input-dim", "3"], "wrap it in RNN"),
        (["nn.GRU(3, 4)", "--seq-len", "-1"], "positive integer"),
    ],
)
def test_bad_options(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_parse_never_evaluates():
    call = parse("nn.LSTM(I, 128, 2, bidirectional=True)")
    assert call.name == "LSTM" and call.args[1:] == [128, 2] and call.kwargs == {"bidirectional": True}
    with pytest.raises(InputError):
        parse("nn.LSTM(().__class__.__base__.__subclasses__(), 1)")


def test_memory_for_a_config_that_names_no_dtype(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpt-oss-120b's config.json names no dtype: --memory is refused without --dtype, saying why (derive does not
    take float32 for the checkpoint's own dtype); with it, the answer, and the config's max_position_embeddings
    beside a context longer than it."""
    from derive.cli import main
    from derive.families.family import release

    path = tmp_path / "config.json"
    path.write_text(json.dumps(release("openai/gpt-oss-120b").config), encoding="utf-8")
    assert main([str(path), "--memory", "80GB"]) == 2
    assert "the config names no dtype" in capsys.readouterr().err
    assert main([str(path), "--memory", "80GB", "--dtype", "bfloat16", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["cost"]
    assert data["max_position_embeddings"] == 131072 < data["max_seq_len"]
    assert main([str(path), "--memory", "80GB", "--dtype", "bfloat16"]) == 0
    assert "more than the config's max_position_embeddings, 131,072" in capsys.readouterr().out
