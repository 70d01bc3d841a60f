"""The ``derive`` command: one parser, one decision about the input, one answer (see :mod:`derive.cli`)."""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import Any

from ..analysis import cost as cost_module
from ..read.line.describe import describe
from ..read.line.parse import InputError
from . import output
from .inputs import Input, decide
from .options import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    EXIT_OUTPUT_ERROR,
    EXIT_PARTIAL,
    UsageError,
    parser,
)

__all__ = [
    "main",
    "describe",
    "EXIT_OK",
    "EXIT_BAD_INPUT",
    "EXIT_PARTIAL",
    "EXIT_OUTPUT_ERROR",
    "EXIT_INTERNAL_ERROR",
    "EXIT_BROKEN_PIPE",
]

#: Input options, and the inputs they apply to.
_ONLY = {
    "keras_version": "Keras constructors (--keras)",
    "partial": "model code (a constructor or a checkpoint is counted whole)",
}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Everything printed that came from the user (the constructor, a Keras ``name``, an option's
    value) is printed literally: rich markup off, control characters escaped, long text elided.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        :data:`EXIT_OK` (0) for an exact answer; :data:`EXIT_PARTIAL` (3) for an answer whose
        total is partial (some part not counted); :data:`EXIT_BAD_INPUT` (2) for input or options
        refused (the reason is one line on stderr); :data:`EXIT_OUTPUT_ERROR` (1) when stdout is
        closed, full or fails (one line on stderr); :data:`EXIT_BROKEN_PIPE` (141), quietly, when
        the reader of stdout has gone (``| head -1``); :data:`EXIT_INTERNAL_ERROR` (70) for a
        bug (one line).
    """
    try:
        status = _main(argv)
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        output.output_is_gone()
        return EXIT_BROKEN_PIPE
    except (OSError, ValueError) as error:  # ValueError: I/O operation on closed file
        if isinstance(error, ValueError) and "closed file" not in str(error):
            output.stderr_line(f"internal error (please report): ValueError: {error}")
            return EXIT_INTERNAL_ERROR
        reason = getattr(error, "strerror", None) or str(error)
        output.stderr_line(f"error: cannot write the output to stdout: {reason}")
        return EXIT_OUTPUT_ERROR
    except Exception as error:
        output.stderr_line(f"internal error (please report): {type(error).__name__}: {error}")
        return EXIT_INTERNAL_ERROR


def _fail(message: str) -> int:
    output.stderr_line(f"error: {message}")
    return EXIT_BAD_INPUT


def _main(argv: list[str] | None) -> int:
    if sys.stdout is None:
        raise OSError(errno.EBADF, "stdout is closed")
    output.escape_unencodable(sys.stdout)
    try:
        args = parser().parse_args(argv)
    except SystemExit as exit_:  # --help, --version (printed by argparse)
        return int(exit_.code or 0)
    except UsageError as error:
        return _fail(f"{error} (see derive --help)")
    try:
        given = decide(args)
        _check_options(args, given)
        if given.kind == "error":
            return _explain_error(given.value)
        if given.kind == "constructor":
            return _constructor(args, given)
        return _model(args, given)
    except InputError as error:
        return _fail(str(error))
    except RecursionError:
        return _fail("input nested too deeply")


def _check_options(args: Any, given: Input) -> None:
    """Refuse an option that does not apply to the input, saying where it applies."""
    wanted = [o for o in ("json", "latex", "tensors", "cost") if getattr(args, o)]
    if given.kind == "error" and wanted:
        raise InputError(f"--{wanted[0]} applies to a model or a constructor; an error message is explained in words")
    if args.cost and given.kind == "constructor" and given.framework != "torch":
        raise InputError(
            "--cost is derived for one torch RNN/LSTM/GRU constructor or a language model's config "
            "(derive.cost), not for a Keras constructor"
        )
    if args.keras_version is not None and not (given.kind == "constructor" and given.framework == "keras"):
        raise InputError(f"--keras-version is only for {_ONLY['keras_version']}")
    if args.partial and given.kind not in ("code", "file"):
        raise InputError(f"--partial applies to {_ONLY['partial']}")


def _explain_error(text: str) -> int:
    from ..read.errors.messages import explain_error

    try:
        output.write(explain_error(text))
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None
    return EXIT_OK


def _constructor(args: Any, given: Input) -> int:
    info = describe(given.value, False, args.input_dim, args.keras_version, given.framework)
    cost_info = None
    if args.cost:
        if not isinstance(info["count"], int):
            raise InputError("--cost needs numeric sizes")
        cost_info = cost_module.cost(info["object"], args.seq_len, args.batch, args.dtype).as_dict()
    if args.json:
        output.write(output.constructor_json(info, cost_info))
    elif args.latex:
        output.write(output.literal(output.constructor_latex(info), None))
    elif args.tensors:
        marks = info.get("marks") or [{}] * len(info["tensors"])
        rows = [{"name": n, "shape": s, "parameters": c, **m} for (n, s, c), m in zip(info["tensors"], marks)]
        output.tensors_text(f"{info['framework']}: {info['call']}", rows, info["count"], sys.stdout)
    else:
        output.constructor_text(info, cost_info, sys.stdout)
    return EXIT_PARTIAL if info.get("partial") else EXIT_OK


def _model(args: Any, given: Input) -> int:
    from ..read import SourceError, explain, explain_code

    if args.input_dim is not None and (
        given.kind == "config" or (given.kind == "file" and not given.value.endswith((".py", ".txt")))
    ):
        raise InputError("--input-dim is for Keras code; a checkpoint's or a config's shapes give the input width")
    try:
        if given.kind == "config":
            report = explain(given.value)
        elif given.kind == "file":
            report = explain(Path(given.value), given.framework, args.input_dim, args.partial)
        else:
            report = explain_code(given.value, given.framework, args.input_dim, args.partial)
    except (SourceError, ValueError, TypeError, FileNotFoundError, IsADirectoryError) as error:
        raise InputError(str(error)) from None
    model_cost = _model_cost(args, report) if args.cost else None
    if args.json:
        output.write(output.report_json(report, model_cost))
    elif args.latex:
        output.write(output.literal(output.report_latex(report), None))
    elif args.tensors:
        try:
            rows = output.report_tensors(report)
        except ValueError as error:
            raise InputError(f"--tensors: {error}") from None
        output.tensors_text(report.title, rows, report.total, sys.stdout)
    else:
        sys.stdout.write(report.text(width=160 if not sys.stdout.isatty() else 120))
        if model_cost is not None:
            output.model_cost_text(model_cost, sys.stdout)
    return EXIT_PARTIAL if report.partial else EXIT_OK


def _model_cost(args: Any, report: Any) -> dict[str, Any]:
    """``derive.cost`` of the language model a report holds, as a dict (the JSON's ``"cost"``)."""
    if report.active is None:
        raise InputError(
            "--cost is derived for one torch RNN/LSTM/GRU constructor or a language model read from its config "
            "(derive.cost); this model keeps no inference cache derive knows"
        )
    return cost_module.cost(report, args.seq_len, args.batch, args.dtype).as_dict()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
