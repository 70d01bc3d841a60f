"""The CLI's output: user text printed literally, bounded, and clean failures on a bad stdout (issue 13, items 4-6)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest

from derive.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_inprocess(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def run(*args: str, stdout=subprocess.PIPE, env_extra: dict | None = None, shell_suffix: str = ""):
    env = dict(os.environ, KERAS_BACKEND="torch", KERAS_HOME=tempfile.mkdtemp(prefix="keras-home-"))
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "derive", *args], stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, env=env, timeout=120
    )


ESC = "\x1b"


@pytest.mark.parametrize(
    "name",
    [
        "[red]x[/red]",
        "[bold magenta]pwn",
        "[link=http://example.com]click",
        ESC + "[2J" + ESC + "[31mred",
        ESC + "]8;;http://example.com" + ESC + "\\x",
        "a\u202eb",
        "\x07bell\x08",
        ":smiley:",
    ],
)
@pytest.mark.parametrize("fmt", [[], ["--json"], ["--latex"]])
def test_keras_name_is_printed_literally(name, fmt):
    keras = pytest.importorskip("keras")
    try:  # what Keras itself accepts as a name
        keras.layers.LSTM(4, name=name)
    except ValueError:
        expected_refused = True
    else:
        expected_refused = False
    status, out, err = run_inprocess("--keras", f"LSTM(4, name={name!r})", "--input-dim", "3", *fmt)
    text = out + err
    assert ESC not in text and "\x07" not in text and "\x08" not in text and "\u202e" not in text
    if expected_refused:
        assert status == 2 and err.startswith("derive: error: ") and out == ""
        return
    assert status == 0, err
    if not fmt:
        shown = name.encode("unicode_escape").decode("ascii") if not name.isprintable() else name
        assert shown in out, out  # the markup is shown as typed, not interpreted (and not dropped)
    if fmt == ["--json"]:
        import json

        assert any(t["name"].startswith(name) for t in json.loads(out)["tensors"])


def test_rich_markup_in_an_error_is_not_interpreted():
    status, out, err = run_inprocess("nn.RNN(3, 4, nonlinearity='[red]x" + ESC + "[2J')")
    assert status == 2 and out == ""
    assert "[red]x" in err and ESC not in err and err.count("\n") == 1


@pytest.mark.parametrize("option", ["--seq-len", "--batch", "--input-dim"])
def test_a_huge_option_value_is_not_echoed_whole(option):
    value = "9" * 5001
    args = ["--keras", "LSTM(4)"] if option == "--input-dim" else ["nn.GRU(3, 4)", "--cost"]
    status, out, err = run_inprocess(*args, option, value)
    assert status == 2 and out == ""
    assert len(err) < 400 and err.count("\n") == 1 and "characters left out" in err and option in err


def test_unknown_option_with_escapes_is_one_clean_line():
    status, out, err = run_inprocess("nn.GRU(3, 4)", "--bogus", ESC + "[2J")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert ESC not in err and "\\x1b[2J" in err


# --- real processes: a bad stdout (item 5) -----------------------------------------------------


def test_stdout_is_dev_full():
    with open("/dev/full", "w") as full:
        result = run("nn.GRU(3, 4)", stdout=full)
    assert result.returncode == 1
    assert (
        result.stderr.decode().startswith("derive: error: cannot write the output")
        and b"Traceback" not in result.stderr
    )
    assert result.stderr.count(b"\n") == 1


def test_stdout_is_closed():
    code = "import os, runpy, sys; os.close(1); sys.argv = ['derive', 'nn.GRU(3, 4)']; runpy.run_module('derive', run_name='__main__')"
    env = dict(os.environ, KERAS_BACKEND="torch")
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=False,
        stderr=subprocess.PIPE,
        stdout=None,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr and result.stderr.count(b"\n") == 1
    assert result.stderr.startswith(b"derive: error: cannot write the output")


def test_stdout_closed_by_the_shell():
    result = subprocess.run(
        f"{sys.executable} -m derive 'nn.GRU(3, 4)' >&-", shell=True, stderr=subprocess.PIPE, cwd=ROOT, timeout=120
    )
    assert result.returncode == 1 and b"Traceback" not in result.stderr and result.stderr.count(b"\n") == 1


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_closed_pipe_is_quiet(fmt):
    with subprocess.Popen(
        [sys.executable, "-m", "derive", "nn.GRU(3, 4, 3000)", *fmt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    ) as process:
        process.stdout.readline()
        process.stdout.close()  # as `| head -1` does
        err = process.stderr.read()
        process.wait(timeout=120)
    assert err == b"", err
    assert process.returncode in (0, 141)  # 141 when a write met the closed pipe, as coreutils


def test_ascii_locale():
    result = run(
        "nn.LSTM(I, 4, 2)", env_extra={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"}
    )
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr and result.stderr == b""
    assert b"weight_ih_l" in result.stdout
