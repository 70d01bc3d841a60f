"""Golden outputs (torchinfo-style tables): the command line and ``derive.explain``, compared whole.

The numbers in these files are checked against the real frameworks elsewhere (test_site_models,
test_torch_models, test_keras_models, test_checkpoints_errors); here the point is the whole text:
layout, names, shapes, formulas, notes, messages and exit status. See conftest.py for
``DERIVE_UPDATE_GOLDENS=1``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import derive
from derive.cli import main
from docs_src.pages import models as page

ROOT = Path(__file__).resolve().parents[2]

KERAS_CODE = page.keras_code(page.WHOLE_MODELS[0])
TORCH_CODE = page.torch_code(page.WHOLE_MODELS[1])
MESSAGE = page.ERRORS[0].message

#: name -> (arguments, standard input)
CLI = {
    "cli-keras-stdin": (["-"], KERAS_CODE),
    "cli-torch-stdin": (["--torch", "-"], TORCH_CODE),
    "cli-keras-inline": (["Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])"], ""),
    "cli-json": (["nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128, 2))", "--json"], ""),
    "cli-explain-error": (["--explain-error", MESSAGE], ""),
    "cli-partial": (["--partial", "-"], "nn.Sequential(nn.LSTM(8, 16), CRF(16))"),
    "cli-refused": (["-"], "nn.Sequential(__import__('os').system('true'))"),
    "cli-single-constructor": (["nn.LSTM(32, 128, 2, bidirectional=True)"], ""),
    "cli-framework-constructor": (["hk.LSTM(128)", "--input-dim", "32"], ""),
    "cli-tensors": (["--tensors", "paddle.nn.LSTMCell(3, 4, bias_ih_attr=False)"], ""),
}


def _transcript(args: list[str], stdout: str, stderr: str, status: int) -> str:
    shown = " ".join(a if "\n" not in a and len(a) < 100 else "'...'" for a in args)
    out = f"$ derive {shown}\n{stdout}"
    if stderr:
        out += f"--- stderr\n{stderr}"
    return out + f"--- exit status {status}\n"


def _cli(args: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The command line run in this process through :func:`derive.cli.main`, as a terminal 200 columns wide."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return _transcript(args, out.getvalue(), err.getvalue(), status)


def _cli_process(args: list[str], stdin: str) -> str:
    """The same, as a process: ``python -m derive``."""
    env = {**os.environ, "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-m", "derive", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    return _transcript(args, result.stdout, result.stderr, result.returncode)


@pytest.mark.parametrize("name", list(CLI))
def test_cli_output(name, golden, monkeypatch):
    golden(name, _cli(*CLI[name], monkeypatch))


@pytest.mark.parametrize("name", ["cli-keras-stdin", "cli-refused"])
def test_cli_output_as_a_process(name, golden):
    """``python -m derive`` prints what :func:`derive.cli.main` prints in-process (the goldens above), its
    standard input a pipe: an answer and a refusal."""
    golden(name, _cli_process(*CLI[name]))


def _reports() -> dict[str, str]:
    out = {}
    for model in page.WHOLE_MODELS:
        out[f"explain-keras-{model.key}"] = derive.explain(page.keras_code(model), framework="keras").text()
        out[f"explain-torch-{model.key}-symbolic"] = derive.explain(
            page.torch_code(model, symbolic=True), framework="torch"
        ).text()
    out["explain-state-dict"] = page.state_dict_report().text()
    out["explain-partial-state-dict"] = derive.explain({"lstm.weight_hh_l0_reverse": (512, 128)}, partial=True).text()
    out["explain-error"] = "\n\n".join(derive.explain_error(case.message) for case in page.ERRORS) + "\n"
    return out


REPORTS = sorted(_reports())


@pytest.fixture(scope="module")
def reports():
    return _reports()


@pytest.mark.parametrize("name", REPORTS)
def test_explain_report(name, reports, golden):
    golden(name, reports[name])
