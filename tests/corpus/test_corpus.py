"""The corpus of real questions (``docs_src/corpus/questions.toml``), each answered as its asker would ask.

Every question is put to derive through the interface its asker would reach for first — the command
line (``derive.cli.main(argv)`` in-process, or ``python -m derive`` in a subprocess) or
``derive.explain(...)`` in a notebook — with the input exactly as the asker had it: a constructor
line, model code, a model file, a live object, a checkpoint, an ONNX file, a ``config.json`` or an
error message. The answer is compared with the real framework's, built in the test
(``tests/support/corpus_truth.py``): the total and every tensor's shape (and name where derive
names tensors as that framework does), the arguments a ``load_state_dict`` error differs in, or a
refusal where the framework refuses. Questions derive cannot answer today are ``xfail(strict=True)``
with the reason (issue 26), so that they fail the day they are answered, and are moved.

Questions whose answer needs TensorFlow's or MXNet's worker are ``slow`` (``tests/conftest.py``
marks a case slow by its framework key: :attr:`Question.key`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import corpus_truth
import pytest
from one_answer import ask_cli, check_one_answer, counted, explain_options

import derive
from docs_src.pages import asked

ROOT = Path(__file__).resolve().parents[2]
FORMS = ("constructor", "code", "file", "live", "checkpoint", "onnx", "config", "error")
INTERFACES = ("cli", "subprocess", "explain")
#: Truth kinds whose parameters derive names as the framework does (torch's named_parameters(),
#: transformers', mamba_ssm's): compared by name and shape; the others by shape and total.
NAMED = ("torch", "transformers", "mamba_ssm", "xlstm")


@dataclass(frozen=True)
class Question:
    """One question of the corpus (see the data file's header for the fields)."""

    id: str
    url: str
    title: str
    framework: str
    form: str
    interface: str
    input: str
    truth: dict
    options: tuple[str, ...] = ()
    note: str = ""
    given: dict | None = None
    needs: str = ""
    xfail: str = ""

    @property
    def key(self) -> str:
        """The framework key ``tests/conftest.py`` reads to mark the case slow (a worker's framework)."""
        return self.framework if self.truth["kind"] in corpus_truth.WORKER_KINDS else "corpus"


def load() -> list[Question]:
    return [Question(**{**q, "options": tuple(q.get("options", ()))}) for q in asked.asked()]


QUESTIONS = load()


def _param(q: Question) -> Any:
    # raises=AssertionError: an xfail is derive's answer differing, never a truth that failed to build
    marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=q.xfail)] if q.xfail else []
    return pytest.param(q, id=q.id, marks=marks)


# --------------------------------------------------------------------------- asking derive


@dataclass
class Answer:
    status: int
    total: Any = None
    tensors: list[tuple[str, tuple[int, ...]]] | None = None
    text: str = ""


def _from_json(status: int, out: str, err: str) -> Answer:
    if status != 0:
        return Answer(status, text=err)
    data = json.loads(out)
    return Answer(status, data["total"], counted(data["tensors"]), out)


def ask_subprocess(argv: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "derive", *argv], capture_output=True, text=True, env=env, timeout=300)
    return done.returncode, done.stdout, done.stderr


def the_input(q: Question, truth: corpus_truth.Truth, tmp_path: Path) -> Any:
    """What the asker hands derive: the text, a file written as theirs was, or the live object."""
    if q.form == "live":
        return truth.obj
    if q.form == "file":
        path = tmp_path / "model.py"
        path.write_text(q.input.lstrip("\n"), encoding="utf-8")
        return path
    if q.form == "config":
        path = tmp_path / "config.json"
        path.write_text(q.input, encoding="utf-8")
        return path
    if q.form in ("checkpoint", "onnx"):
        path = corpus_truth.write_torch_file(q.truth, tmp_path, q.input)
        if q.form == "onnx":  # the file holds torch's weights in ONNX's layout: its initializers
            truth.rows = corpus_truth.onnx_rows(path)
            if corpus_truth.total_of(truth.rows) != truth.total:
                raise RuntimeError(f"{path.name}: ONNX holds {truth.rows}, torch {truth.total} parameters")
        return path
    return q.input.strip("\n") if q.form == "error" else q.input.strip()


def ask(q: Question, given: Any) -> Answer:
    """derive's answer through the question's interface."""
    if q.interface == "explain":
        try:
            report = derive.explain(given if not isinstance(given, Path) else str(given), **explain_options(q.options))
        except (ValueError, TypeError, LookupError, OSError, SyntaxError) as error:
            return Answer(2, text=str(error))
        tensors = [(t["name"], tuple(t["shape"])) for t in report.tensors]
        return Answer(0, report.total, tensors, str(report))
    run = ask_subprocess if q.interface == "subprocess" else ask_cli
    if q.form == "error":
        status, out, err = run(["--explain-error", given])
        return Answer(status, text=out + err)
    status, out, err = run([str(given), *q.options, "--json"])
    return _from_json(status, out, err)


# --------------------------------------------------------------------------- the test


def _at(answer: Answer, given: dict) -> Answer:
    """``answer`` with ``given``'s values put in; its total must be in those names, and no other."""
    import sympy

    def value(x: Any) -> Any:  # derive's own output (a formula it printed), never user text
        return sympy.sympify(x) if isinstance(x, str) else x

    total = value(answer.total)
    assert {str(s) for s in getattr(total, "free_symbols", ())} == set(given), answer.total

    def at(x: Any) -> int:  # each name put in by its name (the symbols' assumptions aside)
        expr = sympy.sympify(value(x))
        return int(expr.subs({s: given[str(s)] for s in expr.free_symbols}))

    tensors = None if answer.tensors is None else [(n, tuple(at(d) for d in s)) for n, s in answer.tensors]
    return Answer(answer.status, at(total), tensors, answer.text)


def _listed_at(q: Question, answer: Answer) -> Answer:
    """The tensors of code whose answer in the given names lists none (a number of layers is one of
    them: ``range(num_layers)``): derive asked again with the names assigned their values before the
    code, its total the same as the answer's at those values."""
    written = "".join(f"{name} = {value!r}\n" for name, value in q.given.items()) + q.input.strip()
    again = ask(q, written)
    assert again.status == 0 and again.total == answer.total, (again.total, answer.total, again.text)
    return Answer(answer.status, answer.total, again.tensors, answer.text)


def _check_error(q: Question, truth: corpus_truth.Truth, answer: Answer) -> None:
    if q.truth["kind"] == "torch_error":  # the asker's lines are torch's; derive names what differs
        torch_lines = corpus_truth.error_lines(truth.error)
        for line in corpus_truth.error_lines(q.input):
            assert line in torch_lines, f"torch does not say: {line}"
        assert answer.status == 0, answer.text
        checkpoint, model = (corpus_truth.torch_arguments(s.get_submodule(q.truth["at"])) for s in truth.sides)
        differs = {k: (checkpoint[k], model[k]) for k in checkpoint if checkpoint[k] != model[k]}
        assert differs
        for key, (theirs, ours) in differs.items():
            assert f"{key}={theirs}, your model {ours}" in answer.text, (key, theirs, ours, answer.text)
        return
    if q.truth["kind"] == "transformers_error":  # the config values the two models differ in
        torch_lines = corpus_truth.error_lines(truth.error)
        for line in corpus_truth.error_lines(q.input):
            assert line in torch_lines, f"transformers' model does not say: {line}"
        assert answer.status == 0, answer.text
        checkpoint, model = (c.to_dict() for c in truth.sides)
        differs = {k: (checkpoint[k], model[k]) for k in q.truth["compare"] if checkpoint[k] != model[k]}
        assert differs
        for key, (theirs, ours) in differs.items():
            assert f"{key}={theirs}, your model {ours}" in answer.text, (key, theirs, ours, answer.text)
        return
    want, found, shape = re.search(
        r"expected ndim=(\d+), found ndim=(\d+)\. Full shape received: (\([^)]*\))", truth.error
    ).groups()
    if q.form == "error":  # derive explains Keras's message: the ranks (and the shape) Keras gives
        assert answer.status == 0 and not answer.text.startswith("not recognised"), answer.text
        assert f"ndim={want}" in answer.text and f"ndim={found}" in answer.text, answer.text
        assert "Full shape received" not in q.input or f"ndim={found} {shape}" in answer.text, answer.text
    else:  # Keras refuses the model: so does derive, saying why
        assert answer.status == 2 and answer.text.strip(), answer.text


@pytest.mark.parametrize("q", [_param(q) for q in QUESTIONS])
def test_question(q: Question, tmp_path: Path) -> None:
    truth = corpus_truth.build(q.truth)
    answer = ask(q, the_input(q, truth, tmp_path))
    if truth.error:
        _check_error(q, truth, answer)
        return
    if truth.cited:
        if truth.rows:  # the asker's keys are that block's, as the framework names them
            keys = {k.rpartition(q.truth["prefix"])[2] for k in re.findall(r'"([^"]+)"', q.input)}
            if keys != {name for name, _ in truth.rows}:
                raise RuntimeError(f"the framework's block has {truth.rows}, the question {sorted(keys)}")
        assert answer.status == 0 and re.search(truth.cited, answer.text), answer.text
        return
    assert answer.status == 0, answer.text
    if q.given:  # an answer in the names the input leaves undefined, at the values the question states
        answer = _at(answer, q.given)
        if not answer.tensors and q.form == "code":  # a number of layers among the names: no tensor list
            answer = _listed_at(q, answer)
    assert answer.total == truth.total, f"derive says {answer.total}, {q.framework} {truth.total}"
    page = asked.shown()  # the "Asked and answered" page's number, held against the framework too
    assert page.get(q.id, truth.total) == truth.total, f"the page says {page[q.id]}, {q.framework} {truth.total}"
    if q.truth.get("total_only"):
        return
    assert answer.tensors is not None
    if q.truth["kind"] in NAMED and q.form not in ("onnx", "checkpoint"):
        assert answer.tensors == truth.rows
    else:
        assert sorted(s for _, s in answer.tensors) == sorted(s for _, s in truth.rows)


# --------------------------------------------------------------------------- the corpus itself

#: The packages the test extra pins (pyproject.toml), by distribution name.
PINS = {
    re.split(r"[=<>\[; ]", spec, maxsplit=1)[0].lower()
    for spec in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["test"]
}


def test_every_question_is_well_formed() -> None:
    ids = [q.id for q in QUESTIONS]
    assert len(ids) == len(set(ids))
    for q in QUESTIONS:
        assert re.fullmatch(r"[a-z0-9-]+", q.id) and q.url.startswith("https://"), q.id
        assert q.form in FORMS and q.interface in INTERFACES, q.id
        assert q.truth["kind"] in corpus_truth.BUILDERS, q.id
        assert q.input.strip() and q.title.strip(), q.id
        assert not q.xfail or q.xfail.startswith("issue 26: "), q.id
        assert not q.needs or q.needs in PINS, (q.id, q.needs)  # a package the test environment installs


def test_the_corpus_spans_every_form_and_interface() -> None:
    assert {q.form for q in QUESTIONS} == set(FORMS)
    assert {q.interface for q in QUESTIONS} == set(INTERFACES)


def test_a_long_list_of_keys_says_how_many_it_leaves_out() -> None:
    """A question's 16 missing keys: derive shows six and says how many more (it once cut the list silently)."""
    (q,) = [q for q in QUESTIONS if q.id == "mamba2-keys-missing-in-llama"]
    keys = re.findall(r'"([^"]+)"', q.input)
    status, out, _ = ask_cli(["--explain-error", q.input])
    shown = [k for k in keys if k in out]
    assert status == 0 and len(keys) == 16 and len(shown) == 6
    assert out.rstrip().endswith(f"and {len(keys) - len(shown)} more"), out


# --------------------------------------------------------------------------- one pipeline

#: The forms both the command line and derive.explain take as text (a live object or an error message is
#: one interface's only).
_BOTH = ("constructor", "code", "config")


@pytest.mark.parametrize("q", [pytest.param(q, id=q.id) for q in QUESTIONS if q.form in _BOTH])
def test_the_command_line_and_explain_give_one_answer(q: Question) -> None:
    """The command line's ``--json`` and ``derive.explain(...)``'s report of the same input carry the same
    total, tensors and closed form: both pass one dispatcher (``derive.read.dispatch``) to one reader."""
    check_one_answer(q.input.strip(), q.options)
