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
    if (
        args.kv_dtype is not None
        or args.state_dtype is not None
        or args.memory is not None
        or args.reserve
        or args.tp > 1
        or args.pp > 1
        or args.ep
    ):
        args.cost = True  # a served cache and a budget are questions of --cost
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
        cost_info = _cost(info["object"], args, None)
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
    quantized = _config_data(given)
    try:
        if quantized is not None and quantized[1] is not None:
            # from_config ignores quantization_config: the logical model, its weights stored as it says
            report = explain(quantized[0])
        elif given.kind == "config":
            report = explain(given.value)
        elif given.kind == "file":
            report = explain(Path(given.value), given.framework, args.input_dim, args.partial)
        else:
            report = explain_code(given.value, given.framework, args.input_dim, args.partial)
    except (SourceError, ValueError, TypeError, FileNotFoundError, IsADirectoryError) as error:
        raise InputError(str(error)) from None
    model_cost = _model_cost(args, report, quantized) if args.cost else None
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


def _config_data(given: Input) -> tuple[dict[str, Any], Any] | None:
    """A config's keys without its ``quantization_config``, and that quantization (None: none); None for
    an input that is not a config (or one the reader refuses, as it will)."""
    if given.kind != "config" and not (given.kind == "file" and given.value.endswith(".json")):
        return None
    from ..read import SourceError
    from ..read.configs.pretrained import load

    try:
        _, data = load(given.value)
    except (SourceError, ValueError, TypeError, FileNotFoundError, IsADirectoryError):
        return None
    return {k: v for k, v in data.items() if k != "quantization_config"}, data.get("quantization_config")


def _cost(obj: Any, args: Any, config: tuple[dict[str, Any], Any] | None) -> dict[str, Any]:
    """``derive.cost`` with the command line's options, as a dict (the JSON's ``"cost"``): a config's
    ``quantization_config`` and its ``torch_dtype`` (the default of ``--dtype``) read from ``config``."""
    quantization = config[1] if config is not None else None
    try:
        priced = cost_module.cost(
            obj, args.seq_len, args.batch, args.dtype, kv_dtype=args.kv_dtype, state_dtype=args.state_dtype,
            quantization_config=quantization, memory=args.memory, reserve=args.reserve, tp=args.tp, pp=args.pp,
            ep=args.ep, config=config[0] if config is not None else None,
        ).as_dict()  # fmt: skip
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None
    positions = (config[0].get("text_config") or config[0]).get("max_position_embeddings") if config else None
    if type(positions) is int and priced.get("memory") is not None:
        priced["max_position_embeddings"] = positions  # the positions the model was made for, beside what fits
    return priced


def _model_cost(args: Any, report: Any, quantized: Any = None) -> dict[str, Any]:
    """``derive.cost`` of the language model a report holds, as a dict (the JSON's ``"cost"``)."""
    if report.active is None:
        raise InputError(
            "--cost is derived for one torch RNN/LSTM/GRU constructor or a language model read from its config "
            "(derive.cost); this model keeps no inference cache derive knows"
        )
    return _cost(report, args, quantized)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
