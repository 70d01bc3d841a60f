"""What the command line prints: tables, JSON and LaTeX, user text always literal, and the streams.

Everything printed that came from the user (a constructor, a Keras ``name``, a path) is printed
literally: rich markup off, control characters escaped, long text elided.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from typing import Any, NoReturn, TextIO

from .._sympy import sympy
from ..read.report import Report

__all__ = [
    "literal",
    "stderr_line",
    "write",
    "constructor_text",
    "constructor_json",
    "constructor_latex",
    "count_name",
    "tensors_text",
    "report_json",
    "report_latex",
    "report_tensors",
]


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


def stderr_line(message: str) -> None:
    """One line on stderr, ``derive: `` first, control characters escaped and long text elided;
    silent if stderr is gone.

    Parameters
    ----------
    message : str
    """
    line = f"derive: {literal(' '.join(str(message).split()), 600)}\n"
    stream = sys.stderr
    if stream is None:
        return
    try:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write(line.encode(encoding, "backslashreplace").decode(encoding))
        stream.flush()
    except (OSError, ValueError, LookupError):
        pass


def output_is_gone() -> None:
    """After a broken pipe: point stdout at /dev/null so that Python's exit flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def escape_unencodable(stream: object) -> None:
    """Let a stream whose encoding lacks a character (an ASCII locale) write it as an escape.

    Parameters
    ----------
    stream : text stream
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            reconfigure(errors="backslashreplace")


def write(text: str) -> None:
    """Print ``text`` and a newline to stdout; characters its encoding lacks as escapes.

    Parameters
    ----------
    text : str

    Raises
    ------
    OSError
        stdout is closed, full or failing.
    """
    out = sys.stdout
    if out is None:
        raise OSError(errno.EBADF, "stdout is closed")
    encoding = getattr(out, "encoding", None) or "utf-8"
    out.write((text + "\n").encode(encoding, "backslashreplace").decode(encoding))


def _jsonable(value: object) -> object:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else str(value)
    if hasattr(value, "latex") and hasattr(value, "terms"):  # a kept form (derive.engine.closed_forms.ClosedForm)
        return str(value)
    return value


def _latex(formula: object) -> str:
    """A formula's LaTeX: a kept form's own (no SymPy), else ``sympy.latex``."""
    kept = getattr(formula, "latex", None)
    return kept if isinstance(kept, str) else sympy.latex(formula)


def _console(out: TextIO) -> Any:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> NoReturn:  # rich would raise SystemExit(1); main() ends quietly with 141
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    width = None if out.isatty() else 160
    return _Console(
        file=out, highlight=False, soft_wrap=True, width=width, markup=False, emoji=False, color_system=None
    )


def _mark(mark: dict[str, Any]) -> str:
    if mark.get("buffer"):
        return "buffer, not counted"
    if mark.get("tied_to"):
        return f"tied to {mark['tied_to']}, counted there"
    return "frozen (trainable=False), counted" if mark.get("trainable") is False else ""


def _table(title: str, rows: list[tuple[Any, ...]], marks: list[dict[str, Any]], total: Any) -> Any:
    from rich.table import Table
    from rich.text import Text

    from ..render.display import text

    def plain(value: object) -> Text:
        """User text and numbers as rich Text: never parsed as markup, control characters escaped."""
        return Text(literal(value, None))

    notes = [_mark(m) for m in marks] + [""] * (len(rows) - len(marks))
    table = Table(title=plain(title) if title else None, title_justify="left")
    table.add_column("tensor", overflow="fold")
    table.add_column("shape")
    table.add_column("parameters", justify="right")
    if any(notes):
        table.add_column("note")
    for (name, shape, numel), note in zip(rows, notes):
        cells = [plain(name), plain("" if shape is None else text(tuple(shape))), plain(text(numel))]
        table.add_row(*cells, *([plain(note)] if any(notes) else []))
    table.add_section()
    table.add_row("total", "", plain(text(total)), *([""] if any(notes) else []))
    return table


def constructor_text(info: dict[str, Any], cost_info: dict[str, Any] | None, out: TextIO) -> None:
    """The tensors' table, the total, the per-layer sum, the closed form and the notes of a constructor.

    Parameters
    ----------
    info : dict
        From :func:`derive.cli.describe`.
    cost_info : dict or None
        :meth:`derive.analysis.cost.Cost.as_dict`.
    out : text stream
    """
    from rich.text import Text

    from ..render.display import text

    console = _console(out)
    marks = info.get("marks", [])
    console.print(_table(f"{info['framework']}: {info['call']}", info["tensors"], marks, info["count"]))

    def say(line: str) -> None:
        console.print(Text(literal(line, None)))

    if info.get("layers"):
        say("per layer: " + " + ".join(text(c) for c in info["layers"]) + f" = {text(info['count'])}")
    elif info.get("layer_sum"):
        summed = info["layer_sum"]
        say(
            f"per layer: {text(summed['layer0'])} + ({text(summed['num_layers'])} - 1) x "
            f"{text(summed['each_upper_layer'])} = {text(info['count'])}"
        )
    values = ", ".join(f"{k}={v}" for k, v in info["values"].items())
    say(f"formula: {count_name(info['formula'])} = {info['formula']}" + (f"   ({values})" if values else ""))
    for note in info.get("notes", ()):
        say(f"note: {note}")
    if cost_info:
        say(
            f"cost (T={cost_info['seq_len']}, N={cost_info['batch']}, {cost_info['dtype']}): "
            f"MACs {text(cost_info['macs'])}, FLOPs {text(cost_info['flops'])} "
            f"(matrix products {text(cost_info['matmul_flops'])}), weights {text(cost_info['weight_bytes'])} B, "
            f"activations kept for training {text(cost_info['activation_bytes'])} B"
        )
        if cost_info.get("cache_bytes") is not None:
            say(
                f"inference: cache {text(cost_info['cache_bytes'])} B (its states, constant in T; KV "
                f"{text(cost_info['kv_bytes_per_token'])} B per token); {text(cost_info['flops_per_token'])} "
                f"matmul FLOPs per token"
            )
        for line in served_lines(cost_info):
            say(line)


def tensors_text(title: str, rows: list[dict[str, Any]], total: Any, out: TextIO) -> None:
    """Only the table of tensors: name, shape, parameters, and a note for frozen ones, buffers and ties.

    Parameters
    ----------
    title : str
    rows : list of dict
        ``{"name", "shape", "parameters"}`` and the marks of :func:`derive.read.line.registered.tensor_rows`.
    total : int or sympy.Expr
    out : text stream
    """
    triples = [(r["name"], r["shape"], r["parameters"]) for r in rows]
    marks = [{k: v for k, v in r.items() if k not in ("name", "shape", "parameters")} for r in rows]
    _console(out).print(_table(title, triples, marks, total))


def constructor_json(info: dict[str, Any], cost_info: dict[str, Any] | None) -> str:
    """A constructor as JSON: ``total``, ``active`` (a layer or block is dense: its total), ``tensors``
    (``name``, ``shape``, ``parameters``, marks), the closed form and its values, the notes (and
    ``cost``).

    Parameters
    ----------
    info : dict
        From :func:`derive.cli.describe`.
    cost_info : dict or None

    Returns
    -------
    str
        Indented JSON; control characters as ``\\u`` escapes.
    """
    skip = {"object", "module", "marks", "partial", "layers", "layer_sum"}
    payload: dict[str, Any] = {}
    for key, value in info.items():
        if key not in skip:
            payload[key] = _jsonable(value)
        if key == "count":
            payload["total"] = payload["count"]
        if key == "tensors" and "layers" in info:
            payload["layers"] = _jsonable(info["layers"])
            payload["layer_sum"] = _jsonable(info["layer_sum"])
    marks = info.get("marks") or [{}] * len(info["tensors"])
    payload["tensors"] = [
        {"name": n, "shape": _jsonable(s), "parameters": _jsonable(c), **m}
        for (n, s, c), m in zip(info["tensors"], marks)
    ]
    payload["partial"] = bool(info.get("partial"))
    payload["formula_latex"] = _latex(info["formula"])
    payload["active"] = payload["total"]  # one layer or block, dense: a token uses every parameter
    if cost_info:
        payload["cost"] = cost_info
    return json.dumps(payload, indent=2)


def constructor_latex(info: dict[str, Any]) -> str:
    """``N = <closed form> = <count> \\quad (values)`` for a constructor.

    Parameters
    ----------
    info : dict

    Returns
    -------
    str
    """
    from ..render.display import latex_number

    count = info["count"]
    formula = _latex(info["formula"])
    values = ", ".join(f"{k} = {v}" for k, v in info["values"].items())
    name = count_name(info["formula"]).replace("params", r"\text{params}")
    if isinstance(count, int):
        where = rf" \quad ({values})" if values else ""
        return f"{name} = {formula} = {latex_number(count)}{where}"
    return f"{name} = {formula}"


def count_name(formula: object) -> str:
    """The name the count goes by in a printed formula: ``N``, or ``params`` where ``N`` is one of
    the formula's letters (Mamba's ``d_state``, S4's state size).

    Parameters
    ----------
    formula : sympy.Expr or int

    Returns
    -------
    str

    Examples
    --------
    >>> import sympy
    >>> count_name(sympy.Symbol("H") * 4), count_name(sympy.Symbol("N") * 4)
    ('N', 'params')
    """
    kept = getattr(formula, "letters", None)  # a kept form (derive.engine.closed_forms.ClosedForm): its names
    names = kept if kept is not None else {s.name for s in getattr(formula, "free_symbols", set())}
    return "params" if "N" in names else "N"


def report_json(report: Report, cost_info: dict[str, Any] | None = None) -> str:
    """A whole model's report as JSON (:meth:`derive.read.Report.to_dict`: ``total``, ``layers``,
    ``tensors``, ``partial``, ``active`` for a language model, ...), with ``"cost"`` when asked.

    Parameters
    ----------
    report : derive.read.Report
    cost_info : dict, optional
        :meth:`derive.analysis.cost.Cost.as_dict`.

    Returns
    -------
    str
    """
    data = report.to_dict()
    if cost_info is not None:
        data["cost"] = cost_info
    return json.dumps(data, indent=2)


def model_cost_text(cost_info: dict[str, Any], out: TextIO) -> None:
    """The cost lines under a language model's table.

    Parameters
    ----------
    cost_info : dict
        :meth:`derive.analysis.cost.Cost.as_dict`.
    out : text stream
    """

    def text(value: Any) -> str:
        return "not derived" if value is None else f"{value:,}" if isinstance(value, int) else str(value)

    out.write(
        f"cost (T={cost_info['seq_len']} tokens, batch {cost_info['batch']}, {cost_info['dtype']}): "
        f"cache {text(cost_info['cache_bytes'])} B, of which state {text(cost_info['state_bytes'])} B "
        f"(constant in T); KV {text(cost_info['kv_bytes_per_token'])} B per token; "
        + (
            "matmul FLOPs for the token at position T not derived (below); "
            if cost_info["flops_per_token"] is None
            else f"{text(cost_info['flops_per_token'])} matmul FLOPs for the token at position T; "
        )
        + f"weights {text(cost_info['weight_bytes'])} B\n"
    )
    if cost_info.get("flops_not_derived"):
        out.write(f"note: FLOPs per token not derived: {cost_info['flops_not_derived']}\n")
    for line in served_lines(cost_info):
        out.write(literal(line, None) + "\n")


def served_lines(cost_info: dict[str, Any]) -> list[str]:
    """The lines of the weights as stored, the cache as served and by kind of layer, and the memory section,
    each only where it says something (a quantization, a served format, two kinds of layer, a budget).

    Parameters
    ----------
    cost_info : dict
        :meth:`derive.analysis.cost.Cost.as_dict`.

    Returns
    -------
    list of str
    """
    from ..analysis.fit import said

    def n(value: Any) -> str:
        return f"{value:,}" if isinstance(value, int) else str(value)

    lines = []
    if cost_info.get("quant_method"):
        parts = ", ".join(f"{d} {n(b)} B" for d, b in (cost_info.get("weights_by_dtype") or {}).items())
        lines.append(
            f"weights as stored ({cost_info['quant_method']}): {n(cost_info['weights_bytes'])} B ({parts}); "
            f"{n(cost_info['weight_bytes'])} B at {cost_info['dtype']}"
        )
        if cost_info.get("weights_bound"):
            lines.append(f"note: an upper bound: {cost_info['weights_bound']}")
    if cost_info.get("kv_dtype") or cost_info.get("state_dtype"):
        lines.append(
            f"cache as served: keys and values {cost_info.get('kv_dtype') or 'as transformers holds them'}, "
            f"states {cost_info.get('state_dtype') or 'as transformers holds them'}"
        )
    kinds = cost_info.get("cache_kinds") or {}
    if len(kinds) > 1 or cost_info.get("kv_dtype") or cost_info.get("state_dtype"):
        shown = []
        for kind, entry in kinds.items():
            held = [f"KV {n(entry['kv_bytes'])} B"] if entry["kv_bytes"] else []
            held += [f"state {n(entry['state_bytes'])} B"] if entry["state_bytes"] else []
            shown.append(f"{kind} x{n(entry['layers'])}: {', '.join(held) or '0 B'}")
        lines.append("cache by kind of layer: " + "; ".join(shown))
    stages = cost_info.get("stages")
    if stages:
        lines += _share_lines(cost_info, stages, n)
        return lines
    if cost_info.get("memory") is not None:
        lines.append(
            f"memory: budget {said(cost_info['memory'])}"
            + (f" less reserve {n(cost_info['reserve'])} B" if cost_info.get("reserve") else "")
            + f"; weights as stored {n(cost_info['weights_bytes'])} B"
        )
        fits = cost_info.get("fits")
        if fits is not None:
            need = cost_info["weights_bytes"] + cost_info["cache_bytes"]
            lines.append(
                f"  at T={cost_info['seq_len']}, batch {cost_info['batch']}: weights + cache {n(need)} B — "
                + ("fits" if fits else "does not fit")
            )
        if cost_info["weights_bytes"] > cost_info["budget"]:
            lines.append(
                f"  the weights alone ({n(cost_info['weights_bytes'])} B) exceed the budget "
                f"({n(cost_info['budget'])} B): no context fits"
            )
        elif cost_info.get("fits_any_length"):
            lines.append(f"  largest context at batch {cost_info['batch']}: any length (the cache stops growing)")
        elif cost_info.get("max_seq_len") is not None:
            positions = cost_info.get("max_position_embeddings")
            beyond = (
                f" (more than the config's max_position_embeddings, {n(positions)}: the positions the model is made for)"
                if positions is not None and cost_info["max_seq_len"] > positions
                else ""
            )
            lines.append(
                f"  largest context at batch {cost_info['batch']}: {n(cost_info['max_seq_len'])} tokens{beyond}"
            )
        if cost_info.get("max_batch") is not None:
            lines.append(f"  largest batch at T={cost_info['seq_len']}: {n(cost_info['max_batch'])} sequences")
        lines.append(f"  counted: {cost_info['counted']}; not counted: {cost_info['not_counted']}")
    return lines


def _share_lines(cost_info: dict[str, Any], stages: list[dict[str, Any]], n: Any) -> list[str]:
    """The lines of one device's share under --tp / --pp, stage by stage, with the budget per device."""
    from ..analysis.fit import said

    tp, pp = cost_info["tp"], cost_info["pp"]
    how = [f"vocabulary padded to {n(cost_info['vocab_padded'])}"] if cost_info.get("vocab_padded") else []
    if cost_info.get("kv_heads_per_rank") is not None:
        how.append(
            f"{cost_info['kv_heads_per_rank']} KV head(s) a device"
            + (f", each on {cost_info['kv_head_replicas']} devices" if cost_info["kv_head_replicas"] > 1 else "")
        )
    lines = [f"one device's share (tp={tp}, pp={pp}, as vLLM shards it: {'; '.join(how) or 'no attention'})"]
    for e in stages:
        lines.append(
            f"  stage {e['stage']} (layers {e['layers'][0]}-{e['layers'][1] - 1}): weights {n(e['weights_bytes'])} B, "
            f"cache {n(e['cache_bytes'])} B (KV {n(e['kv_bytes_per_token'])} B per token, state "
            f"{n(e['state_bytes'])} B)"
        )
    if cost_info.get("memory") is None:
        return lines
    lines.append(
        f"memory per device: budget {said(cost_info['memory'])}"
        + (f" less reserve {n(cost_info['reserve'])} B" if cost_info.get("reserve") else "")
    )
    for e in stages:
        answer = (
            "the weights alone exceed the budget"
            if e["weights_bytes"] > cost_info["budget"]
            else "any length fits"
            if e["fits_any_length"]
            else f"largest context {n(e['max_seq_len'])} tokens"
            if e["max_seq_len"] is not None
            else ""
        )
        fits = (
            "" if e["fits"] is None else (" fits" if e["fits"] else " does not fit") + f" at T={cost_info['seq_len']}"
        )
        batch = "" if e["max_batch"] is None else f"; largest batch {n(e['max_batch'])}"
        lines.append(f"  stage {e['stage']}:{fits}; {answer}{batch}".replace(":;", ":"))
    if cost_info.get("max_seq_len") is not None:
        lines.append(
            f"  largest context on every device at batch {cost_info['batch']}: {n(cost_info['max_seq_len'])} tokens"
        )
    elif cost_info.get("fits_any_length"):
        lines.append(f"  largest context on every device at batch {cost_info['batch']}: any length")
    if cost_info.get("max_batch") is not None:
        lines.append(
            f"  largest batch on every device at T={cost_info['seq_len']}: {n(cost_info['max_batch'])} sequences"
        )
    lines.append(f"  counted: {cost_info['counted']}; not counted: {cost_info['not_counted']}")
    return lines


def report_latex(report: Report) -> str:
    """``N = <per-layer terms> = <total>`` for a whole model.

    Parameters
    ----------
    report : derive.read.Report

    Returns
    -------
    str
    """
    return report._repr_latex_().strip("$")


def report_tensors(report: Report) -> list[dict[str, Any]]:
    """The tensors of a report: from its module tree (buffers and ties marked) or its rows.

    Parameters
    ----------
    report : derive.read.Report

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        A part repeated a symbolic number of times (its tensors are not listed one by one).
    """
    if report.module is not None:
        from ..read.line.registered import tensor_rows

        return tensor_rows(report.module)
    return report.tensors
