"""Does anything grow with num_layers? Every layer-dependent call at L = 2 ... 10**9 (issue 13, item 8).

    .venv/bin/python benchmarks/bench_scale.py [--output benchmarks/scale.json] [--limit-ms 10]

For each depth L, the best of several timings (after one warm-up call, which derives the
structure's closed form once per process) of: ``count``; ``layer_count`` of the last layer;
``compare`` of the deep bidirectional stack with two independent stacks; ``cost`` with its MACs,
FLOPs and memory; the CLI's ``describe`` (tensors listed with the middle layers elided); the
notebook's HTML table; and ``vectorize`` of the symbolic count at that L. Also ``solve`` for
budgets 1e6 to 1e300 (item 9), and the cold time of
the first ``count`` in a fresh interpreter at L = 10**9 (it derives the closed form). Exits 1 if
a warm call at L = 10**9 takes ``--limit-ms`` or more. Not a test: run by hand, commit the JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import derive.torch as dt  # noqa: E402
from derive import PYTORCH, SIMPLE_CONCAT, H, I, L, Stack, compare, solve  # noqa: E402
from derive.analysis.cost import cost  # noqa: E402
from derive.analysis.vectorize import vectorize  # noqa: E402
from derive.cli import describe  # noqa: E402
from derive.render.display import html_repr  # noqa: E402

DEPTHS = [2, 100, 10_000, 10**6, 10**9]


def best_ms(function, repeats: int = 7) -> float:
    function()  # warm-up: the structure's closed form is derived once per process
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def calls(layers: int) -> dict:
    bi = dt.LSTM(32, 128, layers, bidirectional=True)
    concat = Stack("LSTM", 32, 128, layers, True, 0, PYTORCH, SIMPLE_CONCAT)
    f = vectorize(dt.LSTM(I, H, L, bidirectional=True).count)
    return {
        "count": lambda: dt.LSTM(32, 128, layers, bidirectional=True).count,
        "layer_count(last)": lambda: bi.layer_count(layers - 1),
        "compare": lambda: compare(bi, concat).total,
        "cost": lambda: (lambda c: (c.macs, c.flops, c.activation_bytes))(cost(bi, 100, 32)),
        "cli describe": lambda: describe(f"nn.LSTM(32, 128, {layers}, bidirectional=True)"),
        "html table": lambda: html_repr(bi),
        "vectorize": lambda: f(I=32, H=128, L=layers),
    }


def cold_ms() -> float:
    code = (
        "import time, derive.torch as dt; t = time.perf_counter(); "
        "dt.LSTM(32, 128, 10**9, bidirectional=True).count; print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--limit-ms", type=float, default=10.0)
    args = parser.parse_args(argv)
    table = {name: {} for name in calls(2)}
    for layers in DEPTHS:
        for name, function in calls(layers).items():
            table[name][str(layers)] = round(best_ms(function), 3)
    width = max(map(len, table))
    print(f"{'ms (best of 7)':<{width}}  " + "  ".join(f"{f'L={d:.0e}' if d > 100 else f'L={d}':>9}" for d in DEPTHS))
    for name, row in table.items():
        print(f"{name:<{width}}  " + "  ".join(f"{row[str(d)]:>9.3f}" for d in DEPTHS))
    solving = {}
    for exponent in (6, 100, 213, 300):
        solving[f"1e{exponent}"] = round(
            best_ms(lambda: solve(lambda h: dt.LSTM(32, h, 2, bidirectional=True), 10**exponent)), 3
        )
    print(
        "solve(LSTM(32, h, 2, bidirectional=True), budget), ms: " + ", ".join(f"{k}: {v}" for k, v in solving.items())
    )
    cold = round(cold_ms(), 1)
    print(f"first count in a fresh process at L=1e9 (derives the closed form): {cold} ms")
    slow = {name: row[str(10**9)] for name, row in table.items() if row[str(10**9)] >= args.limit_ms}
    slow.update({f"solve {k}": v for k, v in solving.items() if v >= args.limit_ms})
    if args.output:
        args.output.write_text(
            json.dumps({"ms": table, "solve_ms": solving, "cold_first_count_ms": cold}, indent=2) + "\n"
        )
    if slow:
        print(f"over {args.limit_ms} ms at L=1e9: {slow}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
