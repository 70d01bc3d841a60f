"""The "Asked and answered" page: real questions from the corpus, answered by derive's command line.

The corpus (``docs_src/corpus/questions.toml``) keeps the questions people asked about the size of a
recurrent model, each with its source and its input as the asker had it. The page shows the ones a
reader can paste as they are — a constructor line, a model's code or a ``config.json``, answered by
derive alone — with the command, the total and every tensor. The answers are derive's, computed here at
build time through the command line (``--json``); ``tests/corpus/test_corpus.py`` holds every answer
the page shows against the real framework (:func:`shown`).
"""

from __future__ import annotations

import io
import json
import shlex
import tempfile
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from functools import cache
from pathlib import Path
from typing import Any

from ..site import Page

__all__ = ["QUESTIONS_FILE", "FORMS", "FRAMEWORKS", "asked", "shown", "answer", "context"]

QUESTIONS_FILE = Path(__file__).resolve().parents[1] / "corpus" / "questions.toml"

#: The input forms a reader pastes as they are (no file written by a framework, no live object).
FORMS = ("constructor", "code", "config")

#: Framework keys of the corpus -> the names the page groups them under, in this order.
FRAMEWORKS = {
    "torch": "PyTorch",
    "keras": "Keras 3",
    "tf.keras": "tf.keras (Keras 2)",
    "keras2": "Keras 2",
    "tf1": "TensorFlow 1",
    "paddle": "PaddlePaddle",
    "flax.linen": "Flax linen",
    "flax.nnx": "Flax NNX",
    "haiku": "Haiku",
    "equinox": "Equinox",
    "mlx": "MLX",
    "mxnet": "MXNet",
    "sru": "SRU",
    "mingru": "minGRU",
    "cudnn": "cuDNN",
    "transformers": "Hugging Face transformers",
    "mamba_ssm": "mamba_ssm",
    "xlstm": "xlstm",
}


def asked() -> list[dict[str, Any]]:
    """The corpus's questions (each a dict as ``questions.toml`` writes it).

    Returns
    -------
    list of dict
    """
    return tomllib.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))["question"]


def _on_page(q: dict[str, Any]) -> bool:
    return (
        q["form"] in FORMS
        and q["interface"] in ("cli", "explain")
        and "xfail" not in q
        and "given" not in q
        and "needs" not in q  # an answer read from a package the site's build does not install
        and q["truth"]["kind"] not in ("torch_error", "keras_error", "transformers_error", "cited", "keys")
    )


def _argv(q: dict[str, Any], path: Path) -> list[str]:
    return [str(path) if q["form"] == "config" else q["input"].strip(), *q.get("options", ()), "--json"]


def answer(q: dict[str, Any]) -> dict[str, Any]:
    """derive's answer to a question, through the command line in this process.

    Parameters
    ----------
    q : dict
        A question of the corpus whose form is one of :data:`FORMS`.

    Returns
    -------
    dict
        ``total`` (parameters, int), ``tensors`` (``[{"name", "shape", "parameters"}]``, each counted
        tensor once) and ``command`` (what the reader types: code saved as ``model.py`` and a
        ``config.json`` are given by their paths).

    Raises
    ------
    RuntimeError
        derive refuses the question (the page never shows a refusal as an answer).
    """
    from derive.cli.app import main

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        if q["form"] == "config":
            path.write_text(q["input"], encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(_argv(q, path))
    if status != 0:
        raise RuntimeError(f"{q['id']}: derive refuses: {err.getvalue().strip()}")
    data = json.loads(out.getvalue())
    tensors = [
        {"name": t["name"], "shape": tuple(t["shape"]), "parameters": t["parameters"]}
        for t in data["tensors"]
        if not t.get("buffer") and not t.get("tied_to")
    ]
    shown_input = {"config": "config.json", "code": "model.py"}.get(q["form"], q["input"].strip())
    command = shlex.join(["derive", shown_input, *q.get("options", ())])
    return {"total": data["total"], "tensors": tensors, "command": command}


@cache
def shown() -> dict[str, int]:
    """The total the page shows for each question on it: question id -> parameters.

    Returns
    -------
    dict of str to int
    """
    return {q["id"]: answer(q)["total"] for q in asked() if _on_page(q)}


def context() -> dict[str, Any]:
    """The template's variables: the questions on the page, grouped by framework.

    Returns
    -------
    dict
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    for q in asked():
        if not _on_page(q) or (q["framework"], q["input"].strip()) in seen:
            continue
        seen.add((q["framework"], q["input"].strip()))
        row = {**q, **answer(q), "input": q["input"].strip()}
        groups.setdefault(FRAMEWORKS.get(q["framework"], q["framework"]), []).append(row)
    order = list(FRAMEWORKS.values())
    ordered = sorted(groups.items(), key=lambda g: order.index(g[0]) if g[0] in order else len(order))
    return {"groups": ordered, "count": sum(len(rows) for _, rows in ordered), "corpus": len(asked())}


ORDER = 6
PAGES = [Page("questions/asked.md", "Asked and answered", "questions-asked.md.j2", context, (), "Questions")]
