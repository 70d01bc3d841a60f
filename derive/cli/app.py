"""The ``derive`` command: argparse, instantiating the parsed constructor, printing (see :mod:`derive.cli`)."""

from __future__ import annotations

import argparse
import inspect
import json
import sys

import sympy

from ..analysis import cost as cost_module
from ..engine.symbols import H, I, L, P, plain
from ..frameworks import pytorch as dt
from .parse import EXIT_BAD_INPUT, MAX_INT, InputError, _Call, parse

__all__ = ["main", "describe"]


def _instantiate(call: _Call, keras: bool):
    if keras:
        from ..frameworks import keras as dk

        def make(value):
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


def _torch_formula(call: _Call):
    """The same constructor with its sizes symbolic, and the values they take."""
    cls = getattr(dt, call.name)
    bound = inspect.signature(cls).bind(*call.args, **call.kwargs)
    bound.apply_defaults()
    values = {}
    for name, symbol in _TORCH_SIZES.items():
        if name in bound.arguments:
            value = bound.arguments[name]
            if name == "proj_size" and value == 0:
                continue
            if name == "num_layers" and value == 1 and call.name.endswith("Cell"):
                continue
            bound.arguments[name] = symbol
            values[str(symbol)] = value
    symbolic = cls(*bound.args, **bound.kwargs)
    return symbolic.count, {k: v for k, v in values.items() if not isinstance(v, sympy.Basic)}


def _keras_units(call: _Call, found: list) -> _Call:
    """A copy of ``call`` with every layer's ``units`` (first argument) replaced by H; values in ``found``."""

    def walk(value):
        if isinstance(value, _Call):
            return _keras_units(value, found)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    args = [walk(a) for a in call.args]
    kwargs = {k: walk(v) for k, v in call.kwargs.items()}
    if call.name in ("SimpleRNN", "LSTM", "GRU"):
        if args and isinstance(args[0], int):
            found.append(args[0])
            args[0] = H
        elif isinstance(kwargs.get("units"), int):
            found.append(kwargs["units"])
            kwargs["units"] = H
    return _Call(call.name, args, kwargs)


def _keras_formula(call: _Call, input_dim):
    """The count with the input width as I and, if every layer has the same units, those as H."""
    from ..frameworks import keras as dk

    found: list = []
    symbolic = _keras_units(call, found)
    values = {"I": input_dim}
    if found and len(set(found)) == 1:
        try:
            obj = _instantiate(symbolic, True)
            values["H"] = found[0]
            return dk.count(obj, I), values
        except (TypeError, ValueError):
            pass
    return dk.count(_instantiate(call, True), I), {"I": input_dim}


def describe(text: str, keras: bool = False, input_dim=None) -> dict:
    """Everything the CLI prints, as plain data.

    Parameters
    ----------
    text : str
        The pasted constructor.
    keras : bool
    input_dim : int or None
        Keras only: the last dimension of the layer's input (required with ``keras``).

    Returns
    -------
    dict
        ``framework``, ``call`` (normalized), ``count``, ``tensors`` (name, shape, parameters),
        ``layers`` (per-layer counts, torch with an int ``num_layers``), ``formula``,
        ``formula_latex``, ``values`` (the symbols' values), ``object`` (the derive object).

    Raises
    ------
    InputError
        Refused input, or arguments the adapter refuses (its message).
    """
    from ..render.display import _rows

    call = parse(text, keras)
    try:
        if keras:
            if input_dim is None:
                raise InputError("--input-dim is required with --keras (the features per time step)")
            from ..frameworks import keras as dk

            obj = _instantiate(call, True)
            weights = dk.tensors(obj, input_dim)
            count = dk.count(obj, input_dim)
            rows = [(w.path, tuple(plain(d) for d in w.shape), plain(w.numel)) for w in weights]
            formula, values = _keras_formula(call, input_dim)
            layers = []
        else:
            obj = _instantiate(call, False)
            count = obj.count
            rows = [(n, tuple(plain(d) for d in s), plain(c)) for n, s, c in _rows(obj)[0]]
            formula, values = _torch_formula(call)
            layers = (
                [plain(obj.layer_count(k)) for k in range(obj.num_layers)] if isinstance(obj.num_layers, int) else []
            )
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
        "formula": sympy.expand(formula),
        "values": values,
        "object": obj,
    }


def _jsonable(value):
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else str(value)
    return value


def _latex(info: dict) -> str:
    from ..render.display import latex_number

    count = info["count"]
    formula = sympy.latex(info["formula"])
    values = ", ".join(f"{k} = {v}" for k, v in info["values"].items())
    if isinstance(count, int):
        where = rf" \quad ({values})" if values else ""
        return f"N = {formula} = {latex_number(count)}{where}"
    return f"N = {formula}"


def _print_rich(info: dict, cost_info: dict | None, out) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..render.display import text

    width = None if out.isatty() else 160
    console = Console(file=out, highlight=False, soft_wrap=True, width=width)
    table = Table(title=f"{info['framework']}: {info['call']}", title_justify="left")
    table.add_column("tensor", overflow="fold")
    table.add_column("shape")
    table.add_column("parameters", justify="right")
    for name, shape, numel in info["tensors"]:
        table.add_row(name, text(shape), text(numel))
    table.add_section()
    table.add_row("total", "", text(info["count"]))
    console.print(table)
    if info["layers"]:
        console.print("per layer: " + " + ".join(text(c) for c in info["layers"]) + f" = {text(info['count'])}")
    values = ", ".join(f"{k}={v}" for k, v in info["values"].items())
    console.print(f"formula: N = {info['formula']}" + (f"   ({values})" if values else ""))
    if cost_info:
        console.print(
            f"cost (T={cost_info['seq_len']}, N={cost_info['batch']}, {cost_info['dtype']}): "
            f"MACs {text(cost_info['macs'])}, FLOPs {text(cost_info['flops'])} "
            f"(matrix products {text(cost_info['matmul_flops'])}), weights {text(cost_info['weight_bytes'])} B, "
            f"activations kept for training {text(cost_info['activation_bytes'])} B"
        )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1 or value > MAX_INT:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to {MAX_INT:.0e}, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0, or 2 for refused input).

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, :data:`EXIT_BAD_INPUT` (2) for input or options the tool refuses
        (the reason is one line on stderr).
    """
    from ..models import cli as models_cli

    raw = list(sys.argv[1:] if argv is None else argv)
    if models_cli.wants(raw):
        return models_cli.run(raw)
    parser = _parser()

    def fail(message: str) -> int:
        print(f"derive: error: {' '.join(str(message).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT

    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.input_dim is not None and not args.keras:
        return fail("--input-dim is only for --keras (torch constructors take input_size)")
    if args.cost and args.keras:
        return fail("--cost is only available for torch constructors")
    try:
        info = describe(args.constructor, args.keras, args.input_dim)
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
        ):
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
        print(json.dumps(payload, indent=2))
    elif args.latex:
        print(_latex(info))
    else:
        _print_rich(info, cost_info, sys.stdout)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
