"""The command line in-process: whole models, files, stdin, error messages and the failure exits.

Expected counts come from real torch (meta device) and real ``load_state_dict`` messages.
"""

from __future__ import annotations

import io
import json
import sys

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from derive.cli import app, output  # noqa: E402


def meta(factory):
    with torch.device("meta"):
        return factory()


def count(module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_explain_error_from_argument_and_stdin(capsys, monkeypatch):
    with pytest.raises(RuntimeError) as info:
        nn.LSTM(100, 128).load_state_dict(nn.LSTM(300, 128).state_dict())
    assert app.main(["--explain-error", str(info.value)]) == 0
    assert "input_size=300, your model 100" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(str(info.value)))
    assert app.main(["--explain-error", "-"]) == 0
    assert "input_size=300, your model 100" in capsys.readouterr().out
    assert app.main(["--explain-error", "x" * 100_001]) == 2
    assert "longer than 100,000 characters" in capsys.readouterr().err


def test_checkpoint_file_and_stdin_code(tmp_path, capsys, monkeypatch):
    model = nn.Module()
    model.rnn = nn.LSTM(12, 16, 2, bidirectional=True)
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    assert app.main([str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] == count(model)
    assert data["constructors"] == ["nn.LSTM(12, 16, num_layers=2, bidirectional=True)"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("nn.Sequential(nn.Linear(3, 4), nn.GRU(4, 5))"))
    assert app.main(["-", "--json"]) == 0
    expected = meta(lambda: nn.Sequential(nn.Linear(3, 4), nn.GRU(4, 5)))
    assert json.loads(capsys.readouterr().out)["total"] == count(expected)


def test_model_command_line_refusals(capsys):
    cases = {
        ("--partial",): "nothing to read: give a constructor, model code, a FILE, or - for stdin",
        ("--keras", "--torch", "nn.LSTM(3, 4)"): "--keras and --torch exclude each other",
        ("--torch", "--cost", "nn.Sequential(nn.Linear(3, 4))"): "this model keeps no inference cache derive knows",
        ("--partial", "--input-dim", "many", "x"): "expected a positive integer, got 'many'",
        ("--torch", "nn.Sequential(nn.Foo(3))"): "unknown name 'nn.Foo'",
        ("--partial", "nn.LSTM(3, 4)"): "--partial applies to model code",
        ("--explain-error", "x", "nn.LSTM(3, 4)"): "not both",
        ("--explain-error", "x", "--json"): "--json applies to a model or a constructor",
        ("--framework", "mlx", "-"): "model code is read for PyTorch, Keras and TF1",
        ("--framework", "nonesuch", "nn.LSTM(3, 4)"): "--framework must be one of torch, keras",
        ("--framework", "mlx", "--keras", "LSTM(3)"): "--keras and --framework mlx exclude each other",
        ("--keras-version", "2.2", "model.pt"): "no such file: model.pt",
    }
    for argv, message in cases.items():
        assert app.main(list(argv)) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("derive: error:") and message in err, (argv, err)
    # model code whose layers keep a cache (an LSTM's h_n and c_n) is costed, not refused
    assert app.main(["--torch", "--cost", "nn.Sequential(nn.LSTM(3, 4))"]) == 0
    assert "cache 32 B" in capsys.readouterr().out  # h_n and c_n, (1, 1, 4) float32 each
    assert app.main(["--partial", "--help"]) == 0
    out = capsys.readouterr().out
    for kind in ("--explain-error TEXT", "FILE", "CONSTRUCTOR", "CODE", "exit status", "haiku", "--framework"):
        assert kind in out, kind


def test_constructor_refusals(capsys):
    assert app.main(["nn.LSTM(32, 64)", "--cost", "--keras"]) == 2
    assert "nn.LSTM is not a keras class derive reads as a constructor: it is torch" in capsys.readouterr().err
    assert app.main(["LSTM(32)", "--cost", "--keras", "--input-dim", "3"]) == 2
    assert "--cost is derived for one torch RNN/LSTM/GRU constructor" in capsys.readouterr().err
    assert app.main(["nn.LSTM(I, H)", "--cost"]) == 2
    assert "--cost needs numeric sizes" in capsys.readouterr().err
    assert app.main(["--version"]) == 0
    assert capsys.readouterr().out.strip()


def test_failure_exits(monkeypatch, capsys):
    def boom(error):
        def run(argv):
            raise error

        return run

    monkeypatch.setattr(app, "_main", boom(ValueError("bad value")))
    assert app.main([]) == app.EXIT_INTERNAL_ERROR
    assert "internal error (please report): ValueError: bad value" in capsys.readouterr().err
    monkeypatch.setattr(app, "_main", boom(KeyError("k")))
    assert app.main([]) == app.EXIT_INTERNAL_ERROR
    assert "internal error (please report): KeyError" in capsys.readouterr().err
    # A broken pipe on a stdout without a file descriptor: quiet, SIGPIPE's status.
    monkeypatch.setattr(app, "_main", boom(BrokenPipeError()))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert app.main([]) == app.EXIT_BROKEN_PIPE


def test_stderr_gone_or_failing(monkeypatch):
    class Failing(io.StringIO):
        def write(self, text):
            raise OSError("disk full")

    argv = ["nn.LSTM(3, 4)", "--input-dim", "3"]  # refused: --input-dim is for --keras
    monkeypatch.setattr(sys, "stderr", Failing())
    assert app.main(argv) == 2
    monkeypatch.setattr(sys, "stderr", None)
    assert app.main(argv) == 2


def test_stdout_gone(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(OSError, match="stdout is closed"):
        output.write("x")
    assert app.main(["nn.LSTM(3, 4)"]) == app.EXIT_OUTPUT_ERROR
