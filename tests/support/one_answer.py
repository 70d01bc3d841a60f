"""One input asked of the command line (``--json``) and of ``derive.explain(...)``: one answer (not a test module).

Both pass one dispatcher (``derive.read.dispatch``) to one reader, so the total, the tensors (as
``named_parameters()`` counts them: no buffer, no tie) and the closed form of the two answers must be
the same; where one refuses, so must the other. Used by the corpus of questions
(``tests/corpus/test_corpus.py``) and by the pasted forms of ``tests/cli/test_cli_lines_as_written.py``.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import derive
from derive.cli import main

__all__ = ["explain_options", "ask_cli", "counted", "check_one_answer"]


def explain_options(options: tuple[str, ...]) -> dict[str, Any]:
    """The keyword arguments of ``derive.explain`` the command line's options say."""
    kwargs: dict[str, Any] = {}
    args = iter(options)
    for option in args:
        if option == "--keras":
            kwargs["framework"] = "keras"
        elif option == "--framework":
            kwargs["framework"] = next(args)
        elif option == "--input-dim":
            kwargs["input_dim"] = int(next(args))
        else:
            raise AssertionError(f"no explain() argument for {option}")
    return kwargs


def ask_cli(argv: list[str]) -> tuple[int, str, str]:
    """``derive.cli.main(argv)`` in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def counted(tensors: list[dict]) -> list[tuple[str, tuple]]:
    """The (name, shape) of the tensors counted as parameters (no buffer, no tie)."""
    return [(t["name"], tuple(t["shape"])) for t in tensors if not t.get("buffer") and not t.get("tied_to")]


def check_one_answer(text: str, options: tuple[str, ...]) -> dict[str, Any] | None:
    """Assert that the command line's ``--json`` and ``derive.explain(text, ...)`` give one answer.

    ``--keras-version``, the command line's own option, is not passed to ``derive.explain``: with it,
    only that the command line answers is checked.

    Returns
    -------
    dict or None
        The command line's JSON, or None where both refuse (or ``--keras-version`` is given).
    """
    status, out, err = ask_cli([text, *options, "--json"])
    own = list(options)
    if "--keras-version" in own:  # the command line's own option (with its value)
        del own[own.index("--keras-version") : own.index("--keras-version") + 2]
    try:
        report = derive.explain(text, **explain_options(tuple(own)))
    except (ValueError, TypeError, LookupError, OSError, SyntaxError) as error:
        assert status != 0, f"the command line answers, derive.explain refuses: {error}"
        return None
    if "--keras-version" in options:  # an option of the command line's only: compare the refusal-free part
        assert status == 0, err
        return None
    assert status in (0, 3), err
    cli, ours = json.loads(out), report.to_dict()
    assert cli["total"] == ours["total"]
    assert counted(cli["tensors"]) == counted(ours["tensors"])
    assert cli.get("formula") == ours.get("formula"), (cli.get("formula"), ours.get("formula"))
    return cli
