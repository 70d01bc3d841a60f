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

from derive.cli import app  # noqa: E402
from derive.models import cli as models_cli  # noqa: E402


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
        ("--partial",): "give model code, a file, or - for stdin",
        ("--keras", "--torch", "nn.LSTM(3, 4)"): "--keras and --torch exclude each other",
        ("--torch", "--latex", "nn.LSTM(3, 4)"): "--latex applies to one recurrent constructor",
        ("--partial", "--input-dim", "many", "x"): "invalid int value: 'many'",
        ("--torch", "nn.Sequential(nn.Foo(3))"): "unknown name 'nn.Foo'",
    }
    for argv, message in cases.items():
        assert app.main(list(argv)) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("derive: error:") and message in err, (argv, err)
    assert app.main(["--partial", "--help"]) == 0
    assert "Whole models, checkpoints" in capsys.readouterr().out


def test_supports_only_model_options():
    assert models_cli.supports(["--torch", "--json", "nn.LSTM(3, 4)"])
    assert not models_cli.supports(["--cost", "nn.LSTM(3, 4)"])
    assert not models_cli.supports(["--input-dim", "many"])


def test_constructor_refusals(capsys):
    assert app.main(["nn.LSTM(32, 64)", "--cost", "--keras"]) == 2
    assert "--cost is only available for torch" in capsys.readouterr().err
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
        app._write("x")
    assert app.main(["nn.LSTM(3, 4)"]) == app.EXIT_OUTPUT_ERROR
