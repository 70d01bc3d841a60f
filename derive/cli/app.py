"""The ``derive`` command: argparse, instantiating the parsed constructor, printing (see :mod:`derive.cli`)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from typing import Any, NoReturn, TextIO

import sympy

from ..analysis import cost as cost_module
from ..engine.symbols import H, I, L, P, Size, as_expr, plain
from ..frameworks import pytorch as dt
from .parse import EXIT_BAD_INPUT, MAX_INT, SYMBOLS, InputError, _Call, parse

__all__ = ["main", "describe"]


def _instantiate(call: _Call, keras: bool) -> Any:  # an object of the class named in the call
    if keras:
        from ..frameworks import keras as dk

        def make(value: Any) -> Any:
            if isinstance(value, _Call):
                return _instantiate(value, True)
            if isinstance(value, list):
                return [make(v) for v in value]
            return value

        cls = getattr(dk, call.name)
        return cls(*[make(a) for a in call.args], **{k: make(v) for k, v in call.kwargs.items()})
    return getattr(dt, call.name)(*call.args, **call.kwargs)


#: torch argument names replaced by symbols for the formula.
_TORCH_SIZES = {"input_size": I, "hidden_size": H, "num_layers": L, "proj_size": P}


def _user_symbols(value: object) -> set[sympy.Symbol]:
    """The size symbols written anywhere in a parsed constructor (nested calls and lists included)."""
    if isinstance(value, _Call):
        found: set[sympy.Symbol] = set()
        for item in [*value.args, *value.kwargs.values()]:
            found |= _user_symbols(item)
        return found
    if isinstance(value, (list, tuple)):
        return set().union(*(_user_symbols(v) for v in value)) if value else set()
    if isinstance(value, sympy.Basic):
        return set(value.free_symbols)
    return set()


def _by_symbol(values: dict[str, int]) -> dict[sympy.Symbol, int]:
    """``{"I": 32}`` as ``{I: 32}``: names are looked up, never parsed (``"I"`` to SymPy is sqrt(-1))."""
    return {SYMBOLS[name]: value for name, value in values.items()}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _torch_formula(call: _Call, count: sympy.Expr) -> tuple[sympy.Expr, dict[str, int]]:
    """The count with the literal int sizes generalized to I, H, L, P, and the values they take.

    A size is generalized only to a symbol the user did not write: a formula shown for the user's
    symbols is in exactly those symbols (``nn.LSTM(32, I)`` has hidden size I, so its 32 stays 32).
    """
    used = _user_symbols(call)
    where = dt.torch_arguments(call.name, tuple(call.args), call.kwargs)
    args, kwargs = list(call.args), dict(call.kwargs)
    values: dict[str, int] = {}
    for name, symbol in _TORCH_SIZES.items():
        if symbol in used:
            continue
        if name not in where:
            if name == "num_layers" and not call.name.endswith("Cell") and len(args) <= 2:
                kwargs[name] = symbol  # the default 1, shown as L = 1
                values[str(symbol)] = 1
            continue
        _, key = where[name]
        value = args[key] if isinstance(key, int) else kwargs[key]
        if not _is_int(value) or (name == "proj_size" and value == 0):
            continue
        if isinstance(key, int):
            args[key] = symbol
        else:
            kwargs[key] = symbol
        values[str(symbol)] = value
    if not values:
        return count, {}
    try:
        symbolic = getattr(dt, call.name)(*args, **kwargs).count
    except (TypeError, ValueError):  # a check the symbols cannot pass: show the count as given
        return count, {}
    if sympy.expand(symbolic.subs(_by_symbol(values)) - count) != 0:  # never show a formula that disagrees
        return count, {}
    return symbolic, values


def _keras_units(call: _Call, found: list[int]) -> _Call:
    """A copy of ``call`` with every layer's ``units`` (first argument) replaced by H; values in ``found``."""

    def walk(value: Any) -> Any:
        if isinstance(value, _Call):
            return _keras_units(value, found)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    args = [walk(a) for a in call.args]
    kwargs = {k: walk(v) for k, v in call.kwargs.items()}
    if call.name in ("SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell", "CuDNNLSTM", "CuDNNGRU"):
        if args and _is_int(args[0]):
            found.append(args[0])
            args[0] = H
        elif _is_int(kwargs.get("units")):
            found.append(kwargs["units"])
            kwargs["units"] = H
    return _Call(call.name, args, kwargs)


def _keras_formula(call: _Call, input_dim: int, count: sympy.Expr) -> tuple[sympy.Expr, dict[str, int]]:
    """The count with the input width as I and, if every layer has the same int units, those as H.

    As for torch, only symbols the user did not write are introduced.
    """
    from ..frameworks import keras as dk

    used = _user_symbols(call)
    width = input_dim if I in used else I
    values = {} if I in used else {"I": input_dim}
    candidates: list[tuple[_Call, dict[str, int]]] = []
    if H not in used:
        found: list[int] = []
        symbolic = _keras_units(call, found)
        if found and len(set(found)) == 1:
            candidates.append((symbolic, {**values, "H": found[0]}))
    candidates.append((call, values))
    for candidate, shown in candidates:
        try:
            formula = dk.count(_instantiate(candidate, True), width)
        except (TypeError, ValueError):
            continue
        if sympy.expand(as_expr(formula).subs(_by_symbol(shown)) - count) == 0:
            return formula, shown
    return count, {}


def _with_defaults(call: _Call, defaults: dict[str, dict[str, object]]) -> _Call:
    """A copy of ``call`` with ``defaults[class]`` added where the constructor leaves them out."""

    def walk(value: Any) -> Any:
        if isinstance(value, _Call):
            return _with_defaults(value, defaults)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    kwargs = {k: walk(v) for k, v in call.kwargs.items()}
    for argument, value in defaults.get(call.name, {}).items():
        kwargs.setdefault(argument, value)
    return _Call(call.name, [walk(a) for a in call.args], kwargs)


def _names(call: _Call) -> set[str]:
    """Every class named in ``call``, nested calls included."""
    found = {call.name}
    for value in [*call.args, *call.kwargs.values()]:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, _Call):
                found |= _names(item)
    return found


def _keras_version(call: _Call, version: str | None) -> tuple[_Call, list[str]]:
    """``call`` with the defaults of Keras ``version`` applied, and the notes to print."""
    from ..frameworks import keras as dk

    notes = []
    old = sorted(_names(call) & set(dk.KERAS2_ONLY))
    if version is None:
        if old:
            notes.append(
                f"{', '.join(old)}: Keras 2 layers (keras 2.0.9-2.3, TF 1 tf.keras, TF 2 tf.compat.v1.keras.layers), "
                "not in Keras 3; weights named as Keras 2 names them"
            )
        return call, notes
    try:
        defaults, notes = dk.version_defaults(version)
    except ValueError as error:
        raise InputError(f"--keras-version: {error}") from None
    if old and version == "3":
        raise InputError(f"{', '.join(old)} do not exist in Keras 3 (its LSTM and GRU call cuDNN themselves)")
    return _with_defaults(call, defaults), notes


def describe(
    text: str, keras: bool = False, input_dim: Size | None = None, keras_version: str | None = None
) -> dict[str, Any]:
    """Everything the CLI prints, as plain data.

    Parameters
    ----------
    text : str
        The pasted constructor.
    keras : bool
    input_dim : int or None
        Keras only: the last dimension of the layer's input (required with ``keras``).
    keras_version : str or None
        Keras only: apply the constructor defaults of that Keras version (one of
        :data:`derive.keras.KERAS_VERSIONS`, e.g. ``"2.2"``: GRU ``reset_after=False``); None for
        Keras 3's.

    Returns
    -------
    dict
        ``framework``, ``call`` (normalized), ``count``, ``tensors`` (name, shape, parameters),
        ``layers`` (per-layer counts, torch with an int ``num_layers`` up to
        :data:`derive.render.display.LISTED_LAYERS`), ``layer_sum`` (beyond that: ``num_layers``,
        ``layer0``, ``each_upper_layer``; else None), ``formula``,
        ``formula_latex``, ``values`` (the symbols' values), ``notes`` (the version defaults
        applied and where they changed; Keras 2 layers), ``object`` (the derive object).

    Raises
    ------
    InputError
        Refused input, or arguments the adapter refuses (its message).
    """
    from ..render.display import _rows, elided_layers

    rows: list[tuple[str, tuple[Any, ...] | None, Any]]
    layers: list[Any] = []
    layer_sum: dict[str, Any] | None = None
    call = parse(text, keras)
    notes: list[str] = []
    if keras_version is not None and not keras:
        raise InputError("--keras-version is only for --keras")
    if keras:
        call, notes = _keras_version(call, keras_version)
    try:
        if keras:
            if input_dim is None:
                raise InputError("--input-dim is required with --keras (the features per time step)")
            from ..frameworks import keras as dk

            obj = _instantiate(call, True)
            weights = dk.tensors(obj, input_dim)
            count = dk.count(obj, input_dim)
            rows = [(w.path, tuple(plain(d) for d in w.shape), plain(w.numel)) for w in weights]
            formula, values = _keras_formula(call, input_dim, count)
        else:
            obj = _instantiate(call, False)
            count = obj.count
            rows = [(n, None if s is None else tuple(plain(d) for d in s), plain(c)) for n, s, c in _rows(obj)[0]]
            formula, values = _torch_formula(call, count)
            if isinstance(plain(obj.num_layers), int):
                if elided_layers(obj) is None:
                    layers = [plain(obj.layer_count(k)) for k in range(obj.num_layers)]
                else:  # the layer sum in closed form: nothing iterates layers
                    layer_sum = {
                        "num_layers": plain(obj.num_layers),
                        "layer0": plain(obj.layer_count(0)),
                        "each_upper_layer": plain(obj.layer_count(1)),
                    }
    except InputError:
        raise
    except (TypeError, ValueError) as error:
        raise InputError(f"{call.name}: {error}") from None
    return {
        "framework": "keras" if keras else "torch",
        "call": repr(obj),
        "count": plain(count),
        "tensors": rows,
        "layers": layers,
        "layer_sum": layer_sum,
        "formula": sympy.expand(formula),
        "values": values,
        "notes": notes,
        "object": obj,
    }


def _jsonable(value: object) -> object:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else str(value)
    return value


def _latex(info: dict[str, Any]) -> str:
    from ..render.display import latex_number

    count = info["count"]
    formula = sympy.latex(info["formula"])
    values = ", ".join(f"{k} = {v}" for k, v in info["values"].items())
    if isinstance(count, int):
        where = rf" \quad ({values})" if values else ""
        return f"N = {formula} = {latex_number(count)}{where}"
    return f"N = {formula}"


def literal(value: object, limit: int | None = 300) -> str:
    """``value`` as text to print literally: control characters escaped, long text elided.

    Escape sequences (``\\x1b[2J``), bidirectional overrides (``\\u202e``) and other characters
    that are not printable are written as their Python escapes, so a terminal never interprets
    them; markup such as ``[red]`` is only ever printed with markup off. Text longer than
    ``limit`` keeps its first and last characters and says how many were left out.

    Parameters
    ----------
    value : object
        Anything; ``str(value)`` is shown.
    limit : int or None, default 300
        Most characters shown (None: no limit).

    Returns
    -------
    str
    """
    text = str(value)
    if limit is not None and len(text) > limit:
        keep = max(limit // 3, 4)
        text = f"{text[:keep]}...[{len(text) - 2 * keep:,} characters left out]...{text[-keep:]}"
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _print_rich(info: dict[str, Any], cost_info: dict[str, Any] | None, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..render.display import text

    def plain(value: object) -> Text:
        """User text and numbers as rich Text: never parsed as markup, control characters escaped."""
        return Text(literal(value, None))

    width = None if out.isatty() else 160

    class _Console(Console):
        def on_broken_pipe(self) -> NoReturn:  # rich would raise SystemExit(1); main() ends quietly with 141
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    console = _Console(
        file=out, highlight=False, soft_wrap=True, width=width, markup=False, emoji=False, color_system=None
    )
    table = Table(title=plain(f"{info['framework']}: {info['call']}"), title_justify="left")
    table.add_column("tensor", overflow="fold")
    table.add_column("shape")
    table.add_column("parameters", justify="right")
    for name, shape, numel in info["tensors"]:
        table.add_row(plain(name), plain("" if shape is None else text(shape)), plain(text(numel)))
    table.add_section()
    table.add_row("total", "", plain(text(info["count"])))
    console.print(table)
    if info["layers"]:
        console.print(plain("per layer: " + " + ".join(text(c) for c in info["layers"]) + f" = {text(info['count'])}"))
    elif info.get("layer_sum"):
        summed = info["layer_sum"]
        console.print(
            plain(
                f"per layer: {text(summed['layer0'])} + ({text(summed['num_layers'])} - 1) x "
                f"{text(summed['each_upper_layer'])} = {text(info['count'])}"
            )
        )
    values = ", ".join(f"{k}={v}" for k, v in info["values"].items())
    console.print(plain(f"formula: N = {info['formula']}" + (f"   ({values})" if values else "")))
    for note in info.get("notes", ()):
        console.print(plain(f"note: {note}"))
    if cost_info:
        console.print(
            plain(
                f"cost (T={cost_info['seq_len']}, N={cost_info['batch']}, {cost_info['dtype']}): "
                f"MACs {text(cost_info['macs'])}, FLOPs {text(cost_info['flops'])} "
                f"(matrix products {text(cost_info['matmul_flops'])}), weights {text(cost_info['weight_bytes'])} B, "
                f"activations kept for training {text(cost_info['activation_bytes'])} B"
            )
        )


def _positive_int(text: str) -> int:
    shown = literal(repr(text), 40)  # a 5,001-digit option is not echoed whole
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown}") from None
    if value < 1 or value > MAX_INT:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to {MAX_INT:.0e}, got {shown}")
    return value


class _UsageError(Exception):
    """argparse's complaint, raised instead of printed so that main() prints it like every error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="derive",
        description="Exact parameter count, tensors and formula of a recurrent layer, from its constructor "
        "(read, never evaluated).",
        epilog='examples: derive "nn.LSTM(32, 128, 2, bidirectional=True)"; '
        'derive --keras "Bidirectional(LSTM(128))" --input-dim 28',
    )
    parser.add_argument(
        "constructor", help='e.g. "nn.LSTM(32, 128, 2, bidirectional=True)"; symbols I, H, L, P allowed'
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"derive {__version__} (distribution derive-rnn)")
    parser.add_argument("--keras", action="store_true", help="a Keras 3 layer (keras.layers) instead of torch.nn")
    parser.add_argument("--input-dim", type=_positive_int, help="Keras: features per time step of the input")
    parser.add_argument(
        "--keras-version",
        metavar="VERSION",
        help="Keras: that version's constructor defaults, e.g. 2.2 (GRU reset_after=False before 2.4); default 3",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON for machines")
    output.add_argument("--latex", action="store_true", help="print the count as LaTeX for papers")
    parser.add_argument("--cost", action="store_true", help="torch: also MACs, FLOPs and memory (see derive.cost)")
    parser.add_argument("--seq-len", type=_positive_int, default=1, help="time steps T for --cost (default 1)")
    parser.add_argument("--batch", type=_positive_int, default=1, help="batch size N for --cost (default 1)")
    parser.add_argument(
        "--dtype",
        default="float32",
        choices=sorted(cost_module.DTYPE_BYTES),
        help="element type for --cost (default float32)",
    )
    return parser


#: Exit status when the output cannot be written (stdout closed, full, or an I/O error).
EXIT_OUTPUT_ERROR = 1
#: Exit status when the reader of the output went away (``derive ... | head -1``): that of a
#: process killed by SIGPIPE, as coreutils' tools end, and nothing is printed.
EXIT_BROKEN_PIPE = 128 + 13
#: Exit status of a bug (an exception derive did not expect); one line on stderr, no traceback.
EXIT_INTERNAL_ERROR = 70


def _stderr_line(message: str) -> None:
    """One line on stderr, control characters escaped and long text elided; silent if stderr is gone."""
    line = f"derive: {literal(' '.join(str(message).split()))}\n"
    stream = sys.stderr
    if stream is None:
        return
    try:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write(line.encode(encoding, "backslashreplace").decode(encoding))
        stream.flush()
    except (OSError, ValueError, LookupError):
        pass


def _output_is_gone() -> None:
    """After a broken pipe: point stdout at /dev/null so that Python's exit flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status.

    Everything printed that came from the user (the constructor, a Keras ``name``, an option's
    value) is printed literally: rich markup off, control characters escaped, long text elided.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success; :data:`EXIT_BAD_INPUT` (2) for input or options the tool refuses (the
        reason is one line on stderr); :data:`EXIT_OUTPUT_ERROR` (1) when stdout is closed, full
        or fails (one line on stderr); :data:`EXIT_BROKEN_PIPE` (141), quietly, when the reader of
        stdout has gone (``| head -1``); :data:`EXIT_INTERNAL_ERROR` (70) for a bug (one line).
    """
    try:
        status = _main(argv)
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        _output_is_gone()
        return EXIT_BROKEN_PIPE
    except (OSError, ValueError) as error:  # ValueError: I/O operation on closed file
        if isinstance(error, ValueError) and "closed file" not in str(error):
            _stderr_line(f"internal error (please report): ValueError: {error}")
            return EXIT_INTERNAL_ERROR
        reason = getattr(error, "strerror", None) or str(error)
        _stderr_line(f"error: cannot write the output to stdout: {reason}")
        return EXIT_OUTPUT_ERROR
    except Exception as error:
        _stderr_line(f"internal error (please report): {type(error).__name__}: {error}")
        return EXIT_INTERNAL_ERROR


def _write(text: str) -> None:
    """Print ``text`` to stdout; characters the stream's encoding lacks are written as escapes."""
    out = sys.stdout
    if out is None:
        raise OSError(errno.EBADF, "stdout is closed")
    encoding = getattr(out, "encoding", None) or "utf-8"
    out.write((text + "\n").encode(encoding, "backslashreplace").decode(encoding))


def _main(argv: list[str] | None) -> int:
    from ..models import cli as models_cli

    raw = list(sys.argv[1:] if argv is None else argv)
    if models_cli.wants(raw):
        return models_cli.run(raw)
    parser = _parser()

    def fail(message: str) -> int:
        _stderr_line(f"error: {message}")
        return EXIT_BAD_INPUT

    if sys.stdout is None:
        raise OSError(errno.EBADF, "stdout is closed")
    _escape_unencodable(sys.stdout)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version (printed by argparse)
        return int(exit_.code or 0)
    except _UsageError as error:
        return fail(f"{error} (see derive --help)")
    if args.input_dim is not None and not args.keras:
        return fail("--input-dim is only for --keras (torch constructors take input_size)")
    if args.cost and args.keras:
        return fail("--cost is only available for torch constructors")
    try:
        info = describe(args.constructor, args.keras, args.input_dim, args.keras_version)
        cost_info = None
        if args.cost:
            if not isinstance(info["count"], int):
                raise InputError("--cost needs numeric sizes")
            cost_info = cost_module.cost(info["object"], args.seq_len, args.batch, args.dtype).as_dict()
    except InputError as error:
        if (
            "unknown name" in str(error)
            or "--input-dim is required" in str(error)
            or "call is allowed only" in str(error)
        ) and models_cli.supports(raw):
            return models_cli.run(raw)
        return fail(str(error))
    except RecursionError:
        return fail("constructor nested too deeply")
    if args.json:
        payload = {k: _jsonable(v) for k, v in info.items() if k != "object"}
        payload["tensors"] = [
            {"name": n, "shape": _jsonable(s), "parameters": _jsonable(c)} for n, s, c in info["tensors"]
        ]
        payload["formula_latex"] = sympy.latex(info["formula"])
        if cost_info:
            payload["cost"] = cost_info
        _write(json.dumps(payload, indent=2))  # ensure_ascii: control characters are \u escapes
    elif args.latex:
        _write(literal(_latex(info), None))
    else:
        _print_rich(info, cost_info, sys.stdout)
    return 0


def _escape_unencodable(stream: object) -> None:
    """Let a stream whose encoding lacks a character (an ASCII locale) write it as an escape."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            reconfigure(errors="backslashreplace")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
