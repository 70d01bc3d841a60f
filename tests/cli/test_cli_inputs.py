"""One decision about the input, every output for every input (in-process).

Counts are torch's (meta device) where a number is checked; the other cases check which reader
the input reached, what each option prints for it and the exit status.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from derive.cli import describe, main  # noqa: E402
from derive.cli.inputs import classify  # noqa: E402
from derive.engine import constructors  # noqa: E402
from derive.read.line.parse import InputError  # noqa: E402

CODE = "nn.Sequential(nn.Embedding(100, 8), nn.LSTM(8, 16, 2))"
PARTIAL = "nn.Sequential(nn.LSTM(8, 16), CRF(16))"


def run(*argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def count(module) -> int:
    return sum(p.numel() for p in module.parameters())


def meta(factory):
    with torch.device("meta"):
        return factory()


@pytest.mark.parametrize(
    "text,framework,expected",
    [
        ("nn.LSTM(32, 128)", None, ("constructor", "torch")),
        ("LSTM(32, 128)", None, ("constructor", "torch")),
        ("Bidirectional(LSTM(128))", None, ("constructor", "keras")),
        ("layers.LSTM(128)", None, ("constructor", "keras")),
        ("nn.LSTM(32, 128)", "paddle", ("constructor", "paddle")),
        ("nn.SimpleCell(4)", None, ("constructor", "flax.linen")),
        ("rnn.LSTM(4)", None, ("constructor", "mxnet")),
        ("nn.LSTM(x, 2)", None, ("code", None)),
        ("nn.LSTM(x, 2)", "torch", ("code", "torch")),
        ("Sequential([Embedding(10, 4), LSTM(8)])", None, ("code", None)),
        ("Sequential([Embedding(10, 4), LSTM(8)])", "keras", ("code", "keras")),
        ("nn.Sequential(nn.LSTM(3, 4))", "torch", ("code", "torch")),
        ("nn.LSTM(__import__('os'), 2)", None, ("code", None)),
        ("nn.LSTM(lambda: 3, 2)", None, ("constructor", "torch")),
        ("Net()", None, ("code", None)),
    ],
)
def test_classify(text, framework, expected):
    assert classify(text, framework) == expected


@pytest.mark.parametrize(
    "text,framework,words",
    [
        ("hk.LSTM(128)", "mlx", "hk.LSTM is not a class of mlx that derive knows (its classes: mlx.nn.GRU"),
        ("nn.GRU(3, 4)", "keras", "nn.GRU is not a keras class derive reads as a constructor: it is torch"),
        ("LSTM(3)", "flax.nnx", "is not a class of flax.nnx"),
        ("nn.LSTM.weight", None, "expected one constructor call"),
        ("(lambda: 1)()", None, "only a call of a class name"),
    ],
)
def test_classify_refuses(text, framework, words):
    with pytest.raises(InputError, match=None) as info:
        classify(text, framework)
    assert words in str(info.value)


def test_two_other_frameworks_alike_are_refused_naming_the_option(monkeypatch):
    twin = constructors.Constructor("sru", "LSTM", lambda *args, **kwargs: None, prefixes=("hk.",))
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("sru", "LSTM"), twin)
    with pytest.raises(InputError, match="hk.LSTM is a class of haiku, sru: say which with --framework haiku or"):
        classify("hk.LSTM(3)", None)
    assert classify("hk.LSTM(3)", "sru") == ("constructor", "sru")
    # a twin whose class does not take the arguments: the one that does is chosen
    monkeypatch.setitem(
        constructors.CONSTRUCTORS, ("sru", "LSTM"), constructors.Constructor("sru", "LSTM", lambda: None, ("hk.",))
    )
    assert classify("hk.LSTM(3)", None) == ("constructor", "haiku")


def test_code_json_latex_tensors_and_text():
    expected = count(meta(lambda: nn.Sequential(nn.Embedding(100, 8), nn.LSTM(8, 16, 2))))
    status, out, _ = run(CODE, "--json")
    data = json.loads(out)
    assert status == 0 and data["total"] == expected and data["partial"] is False
    assert [t["name"] for t in data["tensors"]][:2] == ["0.weight", "1.weight_ih_l0"]
    status, out, _ = run(CODE, "--latex")
    assert status == 0 and out.strip() == f"N = 800 + {expected - 800:,} = {expected:,}".replace(",", "{,}")
    status, out, _ = run(CODE, "--tensors")
    assert status == 0 and "1.weight_hh_l1" in out and f"{expected:,}" in out and "layer" not in out
    status, out, _ = run(CODE)
    assert status == 0 and "Embedding" in out and f"{expected:,}" in out


def test_partial_code_exits_3_in_every_output(monkeypatch):
    for options in ([], ["--json"], ["--latex"], ["--tensors"]):
        status, out, err = run("--partial", "-", *options, stdin=PARTIAL, monkeypatch=monkeypatch)
        assert status == 3 and err == "" and out, options
    status, out, _ = run("--partial", "-", "--json", stdin=PARTIAL, monkeypatch=monkeypatch)
    assert json.loads(out)["partial"] is True


def test_stdin_is_code_and_is_bounded(monkeypatch):
    status, out, _ = run("-", "--json", stdin="nn.LSTM(3, 4)", monkeypatch=monkeypatch)
    assert status == 0 and json.loads(out)["total"] == count(nn.LSTM(3, 4, device="meta"))
    from derive.read.dispatch import MAX_TEXT  # the one limit of model code, on stdin or pasted

    status, _, err = run("-", stdin="x" * (MAX_TEXT + 1), monkeypatch=monkeypatch)
    assert status == 2 and f"longer than {MAX_TEXT:,} characters" in err
    monkeypatch.setattr(sys, "stdin", None)
    status, _, err = run("-")
    assert status == 2 and "there is no stdin" in err


def test_files(tmp_path, monkeypatch):
    code = tmp_path / "model.py"
    code.write_text(CODE + "\n", encoding="utf-8")
    status, out, _ = run(str(code), "--json")
    assert status == 0 and json.loads(out)["total"] == count(
        meta(lambda: nn.Sequential(nn.Embedding(100, 8), nn.LSTM(8, 16, 2)))
    )
    status, _, err = run(str(tmp_path / "missing.pt"))
    assert status == 2 and "no such file" in err
    status, _, err = run(str(code), "--input-dim", "3")
    assert status == 2 and "input_dim is for Keras" in err
    status, _, err = run(str(tmp_path / "w.safetensors"), "--input-dim", "3")
    assert status == 2 and "no such file" in err
    seen = []

    def explain(path, framework=None, input_dim=None, partial=False):
        seen.append((path, framework))
        raise FileNotFoundError("stub")

    import derive.read

    monkeypatch.setattr(derive.read, "explain", explain)
    config = tmp_path / "config.json"
    config.write_text("{}", encoding="utf-8")
    status, _, err = run(str(config))
    assert seen == [(Path(config), None)] and status == 2 and "stub" in err
    status, _, err = run(str(config), "--input-dim", "4")
    assert status == 2 and "a checkpoint's or a config's shapes give the input width" in err


def test_registered_constructor_outputs():
    status, out, _ = run("mlx.nn.GRU(16, 32)", "--latex")
    assert status == 0 and out.strip() == r"N = 3 H^{2} + 3 H I + 4 H = 4{,}736 \quad (I = 16, H = 32)"
    status, out, _ = run("paddle.nn.LSTMCell(3, 4, bias_ih_attr=False)", "--json")
    data = json.loads(out)
    assert (
        status == 0
        and data["total"] == 144
        and data["tensors"][2]
        == {
            "name": "bias_ih",
            "shape": [16],
            "parameters": 16,
            "trainable": False,
        }
    )
    status, out, _ = run("paddle.nn.LSTMCell(3, 4, bias_ih_attr=False)")
    assert status == 0 and "frozen (trainable=False), counted" in out and "formula: N = 4*H**2 + 4*H*I + 8*H" in out
    status, _, err = run("mlx.nn.LSTM(3, 4)", "--cost")
    assert status == 2 and "--cost is derived for one torch RNN/LSTM/GRU constructor" in err


def test_registered_constructor_refusals():
    cases = {
        ("hk.LSTM(8)",): "hk.LSTM makes its weights when first applied: give the input width with --input-dim",
        ("mlx.nn.LSTM(3, 4)", "--input-dim", "5"): "mlx.nn.LSTM takes it as an argument",
        ("xlstm.sLSTMLayerConfig(embedding_dim=8)",): "is not a layer (it configures one)",
        ("hk.LSTM(cfg.hidden)", "--input-dim", "3"): "should be of type int, got: cfg.hidden (not evaluated",
        ("hk.LSTM(8, name=3)", "--input-dim", "3"): "name should be a non-empty str or None",
        ("mlx.nn.LSTM(3, 4, *a)",): "starred arguments",
        ("mlx.nn.LSTM(3, 4, **a)",): "keyword unpacking",
        ("mlx.nn.LSTM(3, 4, bias=True, bias=False)",): "keyword argument repeated: bias",
        ("mlx.nn.LSTM(10**16, 4)",): "not evaluated",
        ("mlx.nn.LSTM(99999999999999999, 4)",): "integer literal too large",
        ("mlx.nn.LSTM('" + "a" * 70 + "', 4)",): "string literal longer than 64",
        ("mlx.nn.LSTM(b'3', 4)",): "literal of type bytes",
        ("mlx.nn.LSTM([3] * 2, 4)",): "not evaluated",
        ("xlstm.sLSTMLayer(" * 6 + "1" + ")" * 6,): "too deeply",
        ("xlstm.sLSTMLayer(xlstm.mLSTMLayerConfig(embedding_dim=4))",): "sLSTMLayer takes a sLSTMLayerConfig",
        ("xlstm.mLSTMLayer(xlstm.mLSTMLayerConfig())",): "embedding_dim must be given",
        ("mx.gluon.rnn.LSTM(4, prefix=3)", "--input-dim", "3"): "prefix should be a str or None",
        ("mx.gluon.rnn.LSTM(4, foo=3)", "--input-dim", "3"): "unexpected keyword argument 'foo'",
        ("paddle.nn.LSTM(3, 4, weight_ih_attr=paddle.ParamAttr(trainable=t))",): "cannot tell whether the tensor",
        ("tf.compat.v1.nn.rnn_cell.GRUCell(4, foo=1)", "--input-dim", "3"): "Keyword argument not understood",
        ("tf.compat.v1.nn.rnn_cell.GRUCell(4, trainable=1)", "--input-dim", "3"): "trainable should be of type bool",
        ("tf.compat.v1.nn.rnn_cell.GRUCell(4, name='')", "--input-dim", "3"): "name should be a non-empty str",
        ("minGRU(8, expansion_factor='x')",): "expansion_factor should be a number",
        ("minGRU(H, expansion_factor=1.5)",): "needs an int dim",
        ("nnx.LSTMCell(3, 4, rngs=r, bogus=1)",): "unexpected keyword argument 'bogus'",
        ("hk.Conv2DLSTM((6,), 8, 3)", "--input-dim", "3"): "input_shape must be the 2 spatial dimensions",
        ("hk.Conv2DLSTM((6, 6), 8, (3,))", "--input-dim", "3"): "kernel_shape must be an int or 2 ints",
        ("sru.SRUCell(3, 4, layer_norm=True)",): "layer_norm=True is not supported by derive",
        (
            "xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32))",
        ): "positional arguments",
        ("xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(8, hidden_size=3))",): "multiple values for argument 'hidden_size'",
        ("xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(bogus=3))",): "unexpected keyword argument 'bogus'",
        ("xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(embedding_dim=8, num_gates=3))",): "num_gates=3 is not supported",
        (
            "xlstm.mLSTMLayer(xlstm.mLSTMLayerConfig(embedding_dim=8, _proj_up_dim=3))",
        ): "_proj_up_dim=3 is not supported",
    }
    for argv, words in cases.items():
        status, out, err = run(*argv)
        assert status == 2 and out == "" and words in err, (argv, err)


def test_ignored_arguments_are_named_and_symbols_give_a_formula():
    status, out, _ = run("eqx.nn.LSTMCell(I, H, key=jax.random.key(0))", "--json")
    data = json.loads(out)
    assert status == 0 and data["total"] == "4*H**2 + 4*H*I + 4*H"
    assert data["notes"] == ["not evaluated (no tensor's shape depends on it): key=jax.random.key(0)"]
    # a positional argument is named by the parameter it is given to (Lua's false is a name to Python)
    status, out, _ = run("cudnn.BLSTM(512,512,1,false,0)", "--json")
    assert status == 0 and json.loads(out)["notes"] == [
        "not evaluated (no tensor's shape depends on it): batchFirst=false"
    ]
    status, out, _ = run("paddle.nn.GRU(I, H, L)", "--json")
    data = json.loads(out)
    assert status == 0 and data["total"] == "6*H**2*L - 3*H**2 + 3*H*I + 6*H*L" and data["tensors"] == []
    assert "tensors not listed" in data["notes"][0]
    status, out, _ = run("paddle.nn.GRU(I, H, L)", "--tensors")
    assert status == 0 and "6*H**2*L" in out


def test_describe_takes_any_framework():
    info = describe("nn.GRU(3, 4)", framework="mlx")
    assert info["framework"] == "mlx" and info["count"] == 3 * 4 * (3 + 4) + 4 * 4
    info = describe("Bidirectional(LSTM(4))", input_dim=3)
    assert info["framework"] == "keras"
    with pytest.raises(InputError, match="--keras and --framework mlx exclude each other"):
        describe("LSTM(3)", keras=True, framework="mlx")
    with pytest.raises(InputError, match="unknown name 'x'"):
        describe("nn.LSTM(x, 2)")
    with pytest.raises(InputError, match="expected one constructor call"):
        describe("nn.LSTM")
    twin = constructors.Constructor("keras", "Dense", lambda units: None, prefixes=("layers.",))
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(constructors.CONSTRUCTORS, ("keras", "Dense"), twin)
        with pytest.raises(InputError, match="--keras-version applies to Keras' recurrent layers"):
            describe("layers.Dense(3)", keras=True, keras_version="2.2")


def test_a_constructor_over_several_lines_is_read_as_on_one():
    """``nn.LSTM(\\n    32,\\n    128,\\n)`` as pasted: the constructor, not model code (issue 26)."""
    text = "nn.LSTM(\n    32,\n    128,\n    num_layers=2,\n)"
    status, out, _ = run(text, "--json")
    data = json.loads(out)
    want = meta(lambda: nn.LSTM(32, 128, num_layers=2))
    assert status == 0 and data["total"] == count(want)
    assert [(t["name"], tuple(t["shape"])) for t in data["tensors"]] == [
        (n, tuple(p.shape)) for n, p in want.named_parameters()
    ]
    status, out, _ = run(text)
    assert status == 0 and out.splitlines()[0] == "torch: LSTM(32, 128, num_layers=2)"
    # a registered class over several lines, with its framework asked for: the one line's answer
    wrapped = run("nn.LSTM(\n    3,\n    5,\n)", "--framework", "mlx", "--json")
    assert wrapped[0] == 0 and wrapped == run("nn.LSTM(3, 5)", "--framework", "mlx", "--json")


@pytest.mark.parametrize(
    "text,words",
    [
        # a call and then a statement: model code, whose reader does not know the class
        ("Mamba(\n    d_model=18,\n)\nx = 1", "line 1: unknown name 'Mamba'"),
        # one call over several lines whose keyword the class does not take: named
        ("Mamba(\n    d_model=18,\n    d_stat=16,\n)", "unexpected keyword argument 'd_stat'"),
    ],
)
def test_several_lines_that_are_not_one_constructor_are_refused(text, words):
    status, _, err = run(text)
    assert status == 2 and words in err, err


def test_registered_constructor_with_an_undefined_size_name(capsys) -> None:  # type: ignore[no-untyped-def]
    """``hk.LSTM(hidden)`` pasted alone: counted in terms of ``hidden`` (as a torch line is), said in a note;
    at hidden = 8 on 3 features, Haiku's LSTM: one (3 + 8) x 4·8 matrix and a 4·8 bias."""
    import json

    import sympy

    assert main(["hk.LSTM(hidden)", "--input-dim", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sympy.sympify(data["total"]).subs("hidden", 8) == (3 + 8) * 32 + 32
    assert any("in terms of it: hidden" in note for note in data["notes"])


@pytest.mark.parametrize(
    ("line", "argv", "built"),
    [
        ("lstm = nn.LSTM(10, 20)", (), lambda: nn.LSTM(10, 20)),
        (
            "self.lstm = nn.LSTM(10, 20, 2, batch_first=True)  # the encoder",
            (),
            lambda: nn.LSTM(10, 20, 2, batch_first=True),
        ),
        ("self.rnn: nn.GRU = nn.GRU(3, 4, bidirectional=True)", (), lambda: nn.GRU(3, 4, bidirectional=True)),
        (
            "model = nn.Sequential(nn.Embedding(100, 8), nn.LSTM(8, 16, 2))",
            (),
            lambda: nn.Sequential(nn.Embedding(100, 8), nn.LSTM(8, 16, 2)),
        ),
        ("self.lstm = LSTM(64, input_shape=(10, 8))", ("--keras",), None),
    ],
    ids=["name", "self-attribute", "annotated", "model-code", "keras"],
)
def test_a_line_copied_out_of_code_reads_its_call(line, argv, built):
    """A line as it stands in a model's code (``self.lstm = nn.LSTM(...)``): the command line reads the
    assigned call as it reads the call alone — before, a syntax error; ``derive.explain`` reads such a line as
    model code, to the same count. Counts are torch's and Keras'."""
    import derive

    status, out, err = run(line, *argv, "--json")
    assert status == 0, err
    if built is None:
        keras = pytest.importorskip("keras")
        layer = keras.layers.LSTM(64)
        layer.build((None, 10, 8))
        expected = layer.count_params()
    else:
        expected = count(built())
        assert derive.explain(line).total == expected
    assert json.loads(out)["total"] == expected


def test_other_statements_on_one_line_are_still_refused():
    """A line that assigns no call, or several targets, stays a syntax error naming the column."""
    for line in ("x = 5", "a = b = nn.GRU(3, 4)"):
        status, _, err = run(line)
        assert status == 2 and "syntax error" in err
