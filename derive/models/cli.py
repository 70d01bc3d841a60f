"""The command line for whole models, checkpoints and error messages (called by :mod:`derive.cli.app`).

``derive CODE|PATH|-`` with ``--keras``/``--torch``, ``--input-dim``, ``--partial``, ``--json``;
``derive --explain-error TEXT``. Exit status 2 with one line on stderr for refused input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from . import explain_code
from .errors import explain_error
from .source import SourceError, clean

__all__ = ["wants", "supports", "run"]

_FLAGS = ("--explain-error", "--partial", "--torch")
_KERAS_INPUT = ("input_shape", "batch_input_shape", "input_dim=", "data_format", "Input(", "Model(", "input_length")


def wants(argv: list[str]) -> bool:
    """Whether the arguments ask for a model, a file, stdin or an error message (not one constructor).

    Parameters
    ----------
    argv : list of str

    Returns
    -------
    bool
    """
    if any(a in _FLAGS or a.startswith("--explain-error=") for a in argv):
        return True
    texts = [a for a in argv if not a.startswith("--")]
    return any(
        t == "-" or "\n" in t or os.path.isfile(t) or ("--keras" in argv and any(k in t for k in _KERAS_INPUT))
        for t in texts
    )


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line on stderr (``derive: error: ...``) instead of the usage."""

    def error(self, message: str) -> NoReturn:
        raise SourceError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="derive", description="Whole models, checkpoints and error messages.")
    parser.add_argument("source", nargs="?", help="model code, a file (.py, .pt, .safetensors, .keras, .onnx) or -")
    parser.add_argument("--keras", action="store_true")
    parser.add_argument("--torch", action="store_true")
    parser.add_argument("--input-dim", type=int)
    parser.add_argument("--partial", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--explain-error", metavar="TEXT")
    return parser


def supports(argv: list[str]) -> bool:
    """Whether every option in ``argv`` is one the model command line takes (not ``--latex``, ``--cost``, ...).

    Parameters
    ----------
    argv : list of str

    Returns
    -------
    bool
    """
    try:
        _, extra = _parser().parse_known_args(argv)
    except SourceError:
        return False
    return not extra


def run(argv: list[str]) -> int:
    """Run the model CLI.

    Parameters
    ----------
    argv : list of str

    Returns
    -------
    int
        0, or 2 for refused input.
    """

    def fail(message: str) -> int:
        print(f"derive: error: {clean(' '.join(str(message).split()), 400)}", file=sys.stderr)
        return 2

    try:
        args, extra = _parser().parse_known_args(argv)
        if extra:
            raise SourceError(
                f"{clean(extra[0], 60)} applies to one recurrent constructor, not to whole models, files or error messages"
            )
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    except SourceError as error:
        return fail(str(error))

    if args.explain_error is not None:
        text = sys.stdin.read(200_000) if args.explain_error == "-" else args.explain_error
        try:
            print(explain_error(text))
        except (TypeError, ValueError) as error:
            return fail(str(error))
        return 0
    if args.source is None:
        return fail("give model code, a file, or - for stdin")
    if args.keras and args.torch:
        return fail("--keras and --torch exclude each other")
    framework = "keras" if args.keras else "torch" if args.torch else None
    try:
        if args.source == "-":
            report = explain_code(sys.stdin.read(300_000), framework, args.input_dim, args.partial)
        elif os.path.isfile(args.source):
            from . import explain

            report = explain(args.source, framework, args.input_dim, args.partial)
        else:
            report = explain_code(args.source, framework, args.input_dim, args.partial)
    except (SourceError, ValueError, TypeError, FileNotFoundError) as error:
        return fail(str(error))
    except RecursionError:
        return fail("input nested too deeply")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        sys.stdout.write(report.text(width=160 if not sys.stdout.isatty() else 120))
    return 0
