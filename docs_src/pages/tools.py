"""The "Tools" pages: the example notebook, the command line, the cost model, the calculator, the benchmark."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import sympy

import derive.frameworks.pytorch as dt
from derive.analysis.cost import DTYPE_BYTES, KINDS, cost, step_ops, stored_elements
from derive.engine.symbols import H, I, L, P
from derive.render.latex import latex

from ..calculator import CELLS, LEFT_OUT, evaluate, formulas, javascript
from ..calculator import FRAMEWORKS as CALC_FRAMEWORKS
from ..calculator import blocks as cb
from ..calculator.keras import KERAS_MERGE_MODES
from ..calculator.keras import TITLE as KERAS_TITLE
from ..site import Example, Page, number

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "derive.ipynb"
BENCHMARK = ROOT / "benchmarks" / "results.json"
BENCHMARK_EXPLAIN = ROOT / "benchmarks" / "results_explain.json"
BENCHMARK_CONFIGS = BENCHMARK_EXPLAIN.with_name("results_configs.json")

# --- the notebook ---------------------------------------------------------------------------------

#: The torch constructors the notebook shows (checked against torch by tests/site/test_site_numbers.py).
NOTEBOOK_EXAMPLES = (Example("LSTM", (32, 128, 2), (("bidirectional", True),)),)


def _latex_block(text: str) -> str:
    body = text.strip()
    for left, right in (("$\\displaystyle", "$"), ("$$", "$$"), ("$", "$")):
        if body.startswith(left) and body.endswith(right):
            body = body[len(left) : len(body) - len(right)]
            break
    return "$$\n" + body.strip() + "\n$$"


def _output(output: dict) -> str:
    if output.get("output_type") == "stream":
        return "```text\n" + "".join(output.get("text", "")).rstrip() + "\n```"
    if output.get("output_type") == "error":
        raise ValueError(f"the stored notebook has an error output: {output.get('ename')}: {output.get('evalue')}")
    data = output.get("data", {})
    parts = []
    if "text/latex" in data:
        parts.append(_latex_block("".join(data["text/latex"])))
    if "text/html" in data:
        parts.append("".join(data["text/html"]).strip())
    if not parts and "text/plain" in data:
        parts.append("```text\n" + "".join(data["text/plain"]).rstrip() + "\n```")
    return "\n\n".join(parts)


def notebook_cells(path: Path = NOTEBOOK) -> list[dict]:
    """The stored notebook as page blocks: Markdown cells as they are, code with its stored outputs.

    Returns
    -------
    list of dict
        ``{"kind": "markdown", "text": ...}`` or ``{"kind": "code", "source": ..., "outputs": [...]}``,
        outputs as Markdown (LaTeX as display math, HTML tables as they are, text as text blocks).
    """
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            out.append({"kind": "markdown", "text": source})
        elif cell["cell_type"] == "code":
            out.append({"kind": "code", "source": source, "outputs": [_output(o) for o in cell.get("outputs", [])]})
    return out


# --- the command line -----------------------------------------------------------------------------

#: Command lines shown on the CLI page, with their output rendered at build time.
CLI_RUNS = (
    ["nn.LSTM(32, 128, 2, bidirectional=True)"],
    ["nn.LSTM(32, 128, 2, bidirectional=True)", "--latex"],
    ["nn.GRU(10, 20)", "--cost", "--seq-len", "100", "--batch", "32"],
    ["--keras", "Bidirectional(LSTM(128))", "--input-dim", "28"],
    ["LSTM(I, H, L)", "--latex"],
    ["__import__('os').system('rm -rf ~')"],
    ["LSTM(32, 128, proj_size=128)"],
    ["hk.LSTM(128)", "--input-dim", "32"],
    ["Mamba(d_model=18, d_state=16, d_conv=4, expand=2)"],
    ["nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128), nn.Linear(128, 5))", "--tensors"],
    ["nn.Sequential(nn.LSTM(8, 16), CRF(16))", "--partial"],
    [
        "--explain-error",
        'Error(s) in loading state_dict for LSTM: Unexpected key(s) in state_dict: "weight_ih_l1", '
        '"weight_hh_l1", "bias_ih_l1", "bias_hh_l1".',
    ],
)
CLI_EXAMPLES = (
    Example("LSTM", (32, 128, 2), (("bidirectional", True),)),
    Example("LSTM", (32, 128, 2)),
    Example("GRU", (10, 20)),
    Example("LSTM", (64, 128)),  # the runs of model code and --partial
    Example("LSTM", (8, 16)),
    Example("Embedding", (1000, 64)),
    Example("Linear", (128, 5)),
)


def _quote(arg: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_.=-]+", arg):
        return arg
    return '"' + arg.replace('"', '\\"') + '"'


def cli_run(argv: list[str]) -> dict:
    """Run the CLI in-process; returns the command line, stdout, stderr and exit status."""
    import contextlib

    from derive.cli import main

    out, err = io.StringIO(), io.StringIO()
    out.isatty = lambda: False  # type: ignore[method-assign]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return {
        "command": "derive " + " ".join(_quote(a) for a in argv),
        "stdout": out.getvalue().rstrip(),
        "stderr": err.getvalue().rstrip(),
        "status": status,
    }


# --- the cost model -------------------------------------------------------------------------------

#: Configurations whose cost the cost page shows (matrix products checked against FlopCounterMode).
COST_EXAMPLES = (
    Example("LSTM", (32, 128, 2), (("bidirectional", True),)),
    Example("GRU", (10, 20)),
    Example("RNN", (25, 50, 4), (("bidirectional", True),)),
    Example("LSTM", (40, 512, 3), (("proj_size", 128),)),
)
COST_T, COST_N = 100, 32

_KIND_LABEL = {
    "mac": "multiply-accumulates",
    "add": "additions",
    "mul": "element-wise products",
    "sigmoid": "sigmoid evaluations",
    "tanh": "tanh evaluations",
    "relu": "ReLU evaluations",
}


def cost_context() -> dict:
    """Per-step operation counts of each cell (symbolic), the stored values, and worked examples."""
    cells = []
    for label, stack in (
        ("Elman RNN (tanh)", dt.RNN(I, H)),
        ("Elman RNN (ReLU)", dt.RNN(I, H, nonlinearity="relu")),
        ("LSTM", dt.LSTM(I, H)),
        ("LSTM with projection", dt.LSTM(I, H, proj_size=P)),
        ("GRU", dt.GRU(I, H)),
    ):
        cell = stack.cell(0)
        ops = step_ops(cell)
        cells.append(
            {
                "label": label,
                "ops": [(_KIND_LABEL[k], sympy.latex(ops[k])) for k in KINDS if ops[k] != 0],
                "flops": sympy.latex(sympy.expand(2 * ops["mac"] + sum(ops[k] for k in KINDS[1:]))),
                "stored": sympy.latex(stored_elements(cell)),
                "stored_symbols": ", ".join(f"${latex(lhs)}$" for lhs, _ in cell.equations),
            }
        )
    symbolic = cost(dt.LSTM(I, H, L, bidirectional=True))
    examples = []
    for example in COST_EXAMPLES:
        c = cost(example.build(), COST_T, COST_N)
        examples.append(
            {
                "call": example.call,
                "macs": number(c.macs),
                "matmul_flops": number(c.matmul_flops),
                "flops": number(c.flops),
                "elementwise": number(c.flops - c.matmul_flops),
                "weights": number(c.weight_bytes),
                "activations": number(c.activation_bytes),
                "cache": number(c.cache_bytes),
                "token_flops": number(c.flops_per_token),
            }
        )
    return {
        "cells": cells,
        "symbolic_macs": sympy.latex(sympy.factor(symbolic.macs)),
        "symbolic_flops": sympy.latex(sympy.factor(symbolic.flops)),
        "symbolic_activations": sympy.latex(sympy.factor(symbolic.activation_bytes)),
        "symbolic_cache": sympy.latex(sympy.factor(symbolic.cache_bytes)),
        "symbolic_token_flops": sympy.latex(sympy.factor(symbolic.flops_per_token)),
        "examples": examples,
        "T": COST_T,
        "N": COST_N,
        "dtypes": sorted(DTYPE_BYTES.items(), key=lambda kv: -kv[1]),
    }


# --- the calculator -------------------------------------------------------------------------------

#: The calculator's initial values (shown before any script runs, and checked against torch).
CALC_DEFAULT = {
    "cell": "LSTM",
    "input_size": 32,
    "hidden_size": 128,
    "num_layers": 2,
    "bidirectional": True,
    "bias": True,
    "proj_size": 0,
}
CALC_EXAMPLES = (Example("LSTM", (32, 128, 2), (("bidirectional", True),)),)


def calculator_context() -> dict:
    """The form's options and defaults, the default's numbers, the closed forms and the script."""
    d = CALC_DEFAULT
    shown = evaluate(
        d["cell"], d["input_size"], d["hidden_size"], d["num_layers"], d["bidirectional"], d["bias"], d["proj_size"]
    )
    rows = []
    for key, (layer0, upper) in sorted(formulas().items()):
        cell, bidirectional, bias, projected = key.split("|")
        rows.append(
            {
                "cell": CELLS[cell][2],
                "bidirectional": bidirectional == "1",
                "bias": bias == "1",
                "projected": projected == "1",
                "layer0": sympy.latex(sympy.factor(layer0)),
                "upper": sympy.latex(sympy.factor(upper)),
            }
        )
    return {
        **blocks_context(),
        "cells": [(k, v[2]) for k, v in CELLS.items()],
        "frameworks": [("keras", KERAS_TITLE), *CALC_FRAMEWORKS.items()],
        "merge_modes": [("None" if m is None else m) for m in KERAS_MERGE_MODES],
        "left_out": sorted(LEFT_OUT.items()),
        "default": d,
        "shown": shown,
        "rows": rows,
        "script": javascript(),
        "number": number,
    }


def blocks_context() -> dict:
    """The blocks' form: the blocks, fields and flags, the default block's answer, each block's closed form."""
    defaults = {name: default for name, (_, default) in cb.FIELDS.items()}
    block = cb.BLOCKS[cb.DEFAULT]
    forms = cb.block_formulas()
    rows = []
    for key, b in cb.BLOCKS.items():
        flags = {name: default for name, _, default in b.flags}
        bits = "".join("1" if flags[name] else "0" for name, _, _ in b.flags)
        rows.append(
            {
                "title": b.title,
                "formula": sympy.latex(forms[key][bits]),
                "flags": ", ".join(f"`{arg}={value}`" for _, arg, value in b.flags) or "—",
                "rules": "; ".join(cb.RULES[r] for r in b.rules) or "—",
            }
        )
    return {
        "blocks": [(k, b.title) for k, b in cb.BLOCKS.items()],
        "block_default": cb.DEFAULT,
        "block_fields": [(name, label, default) for name, (label, default) in cb.FIELDS.items()],
        "block_used": {name for name, _ in block.sizes},
        "block_flags": cb.flag_names(),
        "block_flags_used": {name for name, _, _ in block.flags},
        "block_shown": _block_shown(cb.evaluate_block(cb.DEFAULT, {name: defaults[name] for name, _ in block.sizes})),
        "block_rows": rows,
        "letters": ", ".join(f"${v}$ = `{k}`" for k, v in cb.LETTERS.items()),
    }


def _block_shown(shown: dict) -> dict:
    """The default block's answer with its tensor table as the script writes it (before any script runs)."""
    rows = []
    for name, shape, copies, first in shown["rows"]:
        size = 1
        for d in shape:
            size *= d
        dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
        rows.append(
            {
                "name": name,
                "shape": f"({dims})",
                "count": number(size) + (f" × {number(copies)}" if copies != 1 else ""),
                "total": size * copies,
                "first": first,
            }
        )
    return shown | {"rows": rows}


# --- the benchmark --------------------------------------------------------------------------------


#: The constructor the benchmark page names (the 1 GB checkpoint's LSTM; checked by tests/test_site_numbers.py).
BENCHMARK_EXAMPLES = (Example("LSTM", (1024, 2048), (("num_layers", 2), ("bidirectional", True))),)


def benchmark_context() -> dict:
    """The committed benchmark results (benchmarks/results.json, results_explain.json, results_configs.json)."""
    data = json.loads(BENCHMARK.read_text(encoding="utf-8"))
    explain = json.loads(BENCHMARK_EXPLAIN.read_text(encoding="utf-8"))
    configs = json.loads(BENCHMARK_CONFIGS.read_text(encoding="utf-8"))
    return {"b": data, "e": explain, "c": configs}


ORDER = 60
PAGES = [
    Page(
        "tools/notebook.md",
        "Notebook",
        "tools-notebook.md.j2",
        lambda: {"cells": notebook_cells()},
        NOTEBOOK_EXAMPLES,
        "Tools",
    ),
    Page(
        "tools/cli.md",
        "Command line",
        "tools-cli.md.j2",
        lambda: {"runs": [cli_run(a) for a in CLI_RUNS]},
        CLI_EXAMPLES,
        "Tools",
    ),
    Page("tools/cost.md", "Cost: MACs, FLOPs, memory", "tools-cost.md.j2", cost_context, COST_EXAMPLES, "Tools"),
    Page("tools/calculator.md", "Calculator", "tools-calculator.md.j2", calculator_context, CALC_EXAMPLES, "Tools"),
    Page("tools/benchmark.md", "Benchmark", "tools-benchmark.md.j2", benchmark_context, BENCHMARK_EXAMPLES, "Tools"),
]
