"""How fast and how lean is ``derive.explain``? Measured, in one run, beside what one would otherwise use.

    .venv/bin/python benchmarks/bench_explain.py [--quick] [--output benchmarks/results_explain.json]

(a) A ~1 GB ``.safetensors`` checkpoint (a bidirectional LSTM tagger, float32, written to a
    temporary directory and deleted afterwards) read by ``derive.explain(path)`` in a fresh
    subprocess: wall time of the first call (imports included) and of later calls, and peak
    resident memory (``VmHWM``) after ``import derive`` and after the reads.
    Targets: < 0.2 s, < 100 MB.
(b) A 1,000-layer model explained: as PyTorch code, as a live ``nn.Module`` (``meta`` device),
    as a state dict, as Keras code; 1,000 ``Linear``/``Dense`` layers and 1,000 ``LSTM`` layers.
    Target: < 50 ms.
(c) Side by side on the same models (the six of the site's "Whole models" page):
    ``derive.explain(live module).total`` against ``torchinfo.summary(module, verbose=0)`` (no
    input: the per-module parameter table, which is what derive gives) — warm (best of several
    calls in this process) and cold: the first call in a fresh process, imports done (``import
    torch, torchinfo, derive`` and the model built, not timed; derive's registries then import what
    the call needs, which is timed), best of 3 processes per tool, each tool in its own processes, a
    full garbage collection before the timed call (torch's import leaves one due, ~40 ms here, that
    the first allocating call pays, whichever tool it is); also the tool's import and first call
    timed together (``import torchinfo`` + ``summary`` against ``import derive`` + ``explain``); and,
    in other processes, the first derive call with its live reader imported beforehand, so that a
    hook can time the part spent deriving the recurrent modules' tensors in the engine
    (``derive.torch`` stacks, ``derive.read.torch_recurrent.recurrent_module`` as the live reader
    calls it) — those figures leave the reader's import out and are not the first call's time — and
    ``derive.explain(keras code)`` against building the Keras model from the same code and calling
    ``count_params()``, as a user would. Every count is asserted equal across the methods.

    Like for like: with ``verbose=0`` torchinfo 1.8 walks the modules into ``LayerInfo`` rows
    (each with its parameter count) and builds ``ModelStatistics``, whose ``__init__`` sums the
    totals; its text is built only when the result is printed or ``str()``-ed, which
    ``verbose=0`` does not do. derive's ``Report`` likewise holds every row (count, closed form,
    output shape, tensors) when ``explain`` returns, and builds its text only on ``str()``; its
    ``total`` is a property, summed when read, so the timing reads it. Neither side renders text.

derive's modules are compiled to bytecode first (``compileall``), as ``pip install`` leaves an
installed package: a machine with ``PYTHONDONTWRITEBYTECODE=1`` (this one) would otherwise compile
every derive module from source in every fresh process while torch's and torchinfo's come compiled.

Timings are the best of several repeats (``time.perf_counter``), after one warm-up call. Not a
test: run by hand and commit the JSON, which the site's benchmark page reads.
"""

from __future__ import annotations

import argparse
import compileall
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import keras  # noqa: E402
import torch  # noqa: E402
import torchinfo  # noqa: E402
from torch import nn  # noqa: E402

import derive  # noqa: E402
from docs_src.pages import models as page  # noqa: E402

#: The checkpoint of (a): tensor name -> shape, float32 (4 bytes each).
BIG = {
    "embedding.weight": (100_000, 1024),
    **{
        f"lstm.{kind}_l{layer}{suffix}": shape
        for layer, width in ((0, 1024), (1, 4096))
        for suffix in ("", "_reverse")
        for kind, shape in (
            ("weight_ih", (8192, width)),
            ("weight_hh", (8192, 2048)),
            ("bias_ih", (8192,)),
            ("bias_hh", (8192,)),
        )
    },
    "fc.weight": (4000, 4096),
    "fc.bias": (4000,),
}


def best_of(repeats: int, function) -> float:
    """The fastest of ``repeats`` timings of ``function()`` (seconds), after one warm-up call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def compile_derive() -> None:
    """derive's bytecode, as an installed package has it (``pip install`` compiles every module)."""
    compileall.compile_dir(str(ROOT / "derive"), quiet=1)


def machine() -> dict:
    """The machine, the versions, and the load when the run started."""
    return {
        "description": f"{platform.processor() or platform.machine()}, {platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "keras": keras.__version__,
        "torchinfo": torchinfo.__version__,
        "load": round(os.getloadavg()[0], 1),
    }


def write_safetensors(path: Path, shapes: dict[str, tuple[int, ...]]) -> int:
    """A real safetensors file (header, then every tensor's bytes, zeros), written in 64 MB chunks."""
    header: dict = {}
    offset = 0
    for name, shape in shapes.items():
        size = 4
        for d in shape:
            size *= d
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    chunk = bytes(64 << 20)
    with open(path, "wb") as handle:
        handle.write(len(text).to_bytes(8, "little"))
        handle.write(text)
        left = offset
        while left:
            n = min(left, len(chunk))
            handle.write(chunk[:n])
            left -= n
    return path.stat().st_size


_CHILD = """
import json, sys, time


def hwm_kb():  # peak resident set of this process (VmHWM; ru_maxrss would carry the parent's over exec)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


import derive

before = hwm_kb()
start = time.perf_counter()
report = derive.explain(sys.argv[1])
cold = time.perf_counter() - start
warm = []
for _ in range(5):
    start = time.perf_counter()
    derive.explain(sys.argv[1])
    warm.append(time.perf_counter() - start)
print(json.dumps({"cold": cold, "warm": min(warm), "rss_before_kb": before, "rss_peak_kb": hwm_kb(),
                  "total": int(report.total), "constructors": report.constructors}))
"""


def big_checkpoint(runs: int) -> dict:
    """(a): write the file, read it in fresh subprocesses, delete it."""
    with tempfile.TemporaryDirectory(prefix="bench-explain-") as folder:
        path = Path(folder) / "tagger.safetensors"
        size = write_safetensors(path, BIG)
        results = []
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, cwd=ROOT, check=True
            )
            results.append(json.loads(out.stdout))
    expected = sum(_numel(s) for s in BIG.values())
    assert all(r["total"] == expected for r in results), "derive's total differs from the tensors' sizes"
    return {
        "file_bytes": size,
        "parameters": expected,
        "constructors": results[0]["constructors"],
        "cold_seconds": min(r["cold"] for r in results),
        "seconds": min(r["warm"] for r in results),
        "rss_before_mb": max(r["rss_before_kb"] for r in results) / 1024,
        "rss_peak_mb": max(r["rss_peak_kb"] for r in results) / 1024,
        "rss_increase_mb": max(r["rss_peak_kb"] - r["rss_before_kb"] for r in results) / 1024,
        "runs": runs,
    }


def _numel(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def thousand_layers(repeats: int) -> list[dict]:
    """(b): 1,000-layer models, each way derive takes them."""
    rows = []
    with torch.device("meta"):
        linear = nn.Sequential(*[nn.Linear(64, 64) for _ in range(1000)])
        lstm = nn.Sequential(*[nn.LSTM(64, 64) for _ in range(1000)])
    cases = [
        (
            "1,000 Linear layers, 64 to 64 features — PyTorch code",
            "nn.Sequential(" + ", ".join(["nn.Linear(64, 64)"] * 1000) + ")",
            linear,
        ),
        ("1,000 Linear layers, 64 to 64 features — live nn.Module (meta)", linear, linear),
        (
            "1,000 Linear layers, 64 to 64 features — state dict",
            {k: tuple(v.shape) for k, v in linear.state_dict().items()},
            linear,
        ),
        (
            "1,000 LSTM layers, 64 to 64 features — PyTorch code",
            "nn.Sequential(" + ", ".join(["nn.LSTM(64, 64)"] * 1000) + ")",
            lstm,
        ),
        ("1,000 LSTM layers, 64 to 64 features — live nn.Module (meta)", lstm, lstm),
        (
            "1,000 LSTM layers, 64 to 64 features — state dict",
            {k: tuple(v.shape) for k, v in lstm.state_dict().items()},
            lstm,
        ),
    ]
    for label, obj, real in cases:
        report = derive.explain(obj)
        assert report.total == sum(p.numel() for p in real.parameters()), label
        rows.append(
            {
                "label": label,
                "parameters": int(report.total),
                "seconds": best_of(repeats, lambda o=obj: derive.explain(o)),
            }
        )
    code = "model = Sequential([Input(shape=(10, 64)), " + ", ".join(["Dense(64)"] * 1000) + "])"
    # Keras itself cannot build 1,000 layers in one Sequential here (RecursionError in its torch
    # backend); its count for one Dense(64) on 64 features, times 1,000, is the check.
    one = keras.Sequential([keras.Input((10, 64)), keras.layers.Dense(64)]).count_params()
    assert derive.explain(code).total == 1000 * one
    rows.append(
        {
            "label": "1,000 Dense layers, 64 units — Keras code",
            "parameters": 1000 * one,
            "seconds": best_of(repeats, lambda: derive.explain(code)),
        }
    )
    return rows


_COLD = """
import gc, json, sys, time
import torch
from torch import nn

namespace = {"nn": nn, "torch": torch}
exec(sys.argv[2], namespace)  # the benchmark's own constant code (the site's), built as a user would
module = namespace["model"]
tool, mode = sys.argv[1], sys.argv[3]
with_import = mode == "import"
engine = [0.0]


def import_tool():
    if tool == "torchinfo":
        import torchinfo

        return
    import derive

    if mode != "engine":  # the first call imports what it needs, as a user's does
        return
    # the engine's part of the call, timed by a hook: it needs the live reader imported before the call
    from derive.read.live import pytorch as live_torch

    shapes = live_torch.recurrent_module

    def timed(*args):
        start = time.perf_counter()
        try:
            return shapes(*args)
        finally:
            engine[0] += time.perf_counter() - start

    live_torch.recurrent_module = timed


if not with_import:
    import_tool()
# torch's import leaves a full collection due: whichever call comes first pays for it (40 ms here). Both
# tools start with none due, as timeit's runs do.
gc.collect()
start = time.perf_counter()
if with_import:
    import_tool()
if tool == "derive":
    import derive

    total = int(derive.explain(module).total)
else:
    import torchinfo

    total = torchinfo.summary(module, verbose=0).total_params
seconds = time.perf_counter() - start
modules = sum(1 for name in sys.modules if name == "derive" or name.startswith("derive."))
print(json.dumps({"seconds": seconds, "engine": engine[0], "total": total, "derive_modules": modules}))
"""


def cold(tool: str, code: str, runs: int, mode: str = "done") -> dict:
    """The first call of ``tool`` in fresh processes, the best of ``runs``.

    ``mode`` ``"done"``: the tool imported before the call (derive's first call then imports what it
    needs: derive's import loads one module); ``"import"``: its import timed with the call; ``"engine"``
    (derive): the live reader imported before the call, so that a hook times the engine's part."""
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _COLD, tool, code, mode],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return min(results, key=lambda r: r["seconds"])


def side_by_side(repeats: int) -> list[dict]:
    """(c): derive against torchinfo and against Keras, on the site's six models."""
    rows = []
    for model in page.WHOLE_MODELS:
        namespace: dict = {"nn": nn, "torch": torch}
        exec(page.torch_code(model), namespace)  # our own constant code (the site's), built as a user would
        module = namespace["model"]
        total = sum(p.numel() for p in module.parameters())
        assert derive.explain(module).total == total
        stats = torchinfo.summary(module, verbose=0)
        assert stats.total_params == total, (model.key, stats.total_params, total)
        derive_torch = best_of(repeats, lambda m=module: derive.explain(m).total)  # the total, as torchinfo's
        torchinfo_time = best_of(repeats, lambda m=module: torchinfo.summary(m, verbose=0))
        runs = 3
        derive_cold = cold("derive", page.torch_code(model), runs)
        torchinfo_cold = cold("torchinfo", page.torch_code(model), runs)
        derive_engine = cold("derive", page.torch_code(model), runs, mode="engine")
        derive_import = cold("derive", page.torch_code(model), runs, mode="import")
        torchinfo_import = cold("torchinfo", page.torch_code(model), runs, mode="import")
        assert derive_cold["total"] == torchinfo_cold["total"] == derive_import["total"] == total

        keras_code = page.keras_code(model)

        def build_and_count(code: str = keras_code) -> int:
            space = {"keras": keras, "layers": keras.layers}
            exec(code, space)  # our own constant code (the site's), built by Keras as a user would
            return space["model"].count_params()

        keras_total = build_and_count()
        assert derive.explain(keras_code, framework="keras").total == keras_total
        derive_keras = best_of(repeats, lambda c=keras_code: derive.explain(c, framework="keras"))
        keras_time = best_of(max(1, repeats // 3), build_and_count)
        rows.append(
            {
                "model": model.title,
                "torch_parameters": total,
                "derive_torch": derive_torch,
                "torchinfo": torchinfo_time,
                "torchinfo_over_derive": torchinfo_time / derive_torch,
                "derive_over_torchinfo": derive_torch / torchinfo_time,
                "derive_torch_cold": derive_cold["seconds"],
                "derive_torch_cold_reader_imported": derive_engine["seconds"],
                "derive_torch_cold_engine": derive_engine["engine"],
                "torchinfo_cold": torchinfo_cold["seconds"],
                "cold_derive_over_torchinfo": derive_cold["seconds"] / torchinfo_cold["seconds"],
                "derive_modules_after_first_call": derive_cold["derive_modules"],
                "derive_torch_import_and_first": derive_import["seconds"],
                "torchinfo_import_and_first": torchinfo_import["seconds"],
                "import_and_first_derive_over_torchinfo": derive_import["seconds"] / torchinfo_import["seconds"],
                "keras_parameters": keras_total,
                "derive_keras": derive_keras,
                "keras_build_count": keras_time,
                "keras_over_derive": keras_time / derive_keras,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    compile_derive()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "results_explain.json"))
    parser.add_argument(
        "--side-by-side-only",
        action="store_true",
        help="run (c) only and print it (the results file, which the site reads whole, is left as it is)",
    )
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 9
    if args.side_by_side_only:
        print(json.dumps({"machine": machine(), "repeats": repeats, "side_by_side": side_by_side(repeats)}, indent=2))
        return 0
    started = machine()
    big = big_checkpoint(2 if args.quick else 5)
    layers = thousand_layers(repeats)
    pairs = side_by_side(repeats)
    targets = [
        {
            "label": "1 GB safetensors read, first call in a fresh process (imports included) (s)",
            "measured": f"{big['cold_seconds']:.3f}",
            "target": "< 0.2",
            "met": big["cold_seconds"] < 0.2,
        },
        {
            "label": "1 GB safetensors read, again in the same process (s)",
            "measured": f"{big['seconds']:.4f}",
            "target": "< 0.2",
            "met": big["seconds"] < 0.2,
        },
        {
            "label": "1 GB safetensors read: peak memory added by the read (MB)",
            "measured": f"{big['rss_increase_mb']:.1f}",
            "target": "< 100",
            "met": big["rss_increase_mb"] < 100,
        },
        {
            "label": "1 GB safetensors read: peak memory of the whole process (MB)",
            "measured": f"{big['rss_peak_mb']:.0f}",
            "target": "< 100",
            "met": big["rss_peak_mb"] < 100,
        },
    ] + [
        {
            "label": f"{row['label']} (ms)",
            "measured": f"{row['seconds'] * 1000:.1f}",
            "target": "< 50",
            "met": row["seconds"] < 0.05,
        }
        for row in layers
    ]
    targets += [
        {
            "label": f"{row['model']}: first derive.explain(module).total over first torchinfo.summary, fresh process",
            "measured": f"{row['cold_derive_over_torchinfo']:.2f}",
            "target": "<= 1.0",
            "met": row["cold_derive_over_torchinfo"] <= 1.0,
        }
        for row in pairs
    ]
    data = {
        "command": ".venv/bin/python benchmarks/bench_explain.py" + (" --quick" if args.quick else ""),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": started,
        "repeats": repeats,
        "big_checkpoint": big,
        "thousand_layers": layers,
        "side_by_side": pairs,
        "targets": targets,
    }
    Path(args.output).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
