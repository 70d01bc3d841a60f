"""How fast does derive start? ``import derive``, a count, and the command line's answer, each in fresh processes.

    .venv/bin/python benchmarks/bench_import.py [--repeats 5] [--output benchmarks/results_import.json]

Measured side by side in one run (the median of ``--repeats`` fresh processes each, wall time of the
whole process unless said):

(a) ``import derive``: the time inside the process (``time.perf_counter`` around the import), the derive
    modules it loads and whether SymPy, NumPy or torch were imported. Goal: < 150 ms, <= 25 modules, no SymPy.
(b) A count with int sizes, ``derive.torch.LSTM(32, 128, 2, bidirectional=True).count`` (and
    ``derive.explain(config).total`` for Mistral-7B's config): in-process time and whether SymPy was imported
    (it must not be); beside what a user would otherwise run: ``torch.nn.LSTM(..., device="meta")`` and summing
    ``numel`` (imports included), and transformers' ``from_config`` on the meta device for the config.
(c) The command line's answer with its formula, ``derive "nn.LSTM(32, 128, 2, bidirectional=True)" --json``, as a
    process. Goal: < 0.5 s. Beside: ``python -c pass`` (the interpreter's own start).

derive's modules are compiled to bytecode first (``compileall``), as ``pip install`` leaves them (with
``PYTHONDONTWRITEBYTECODE=1`` each fresh process would otherwise compile derive from source).

Every ratio is reported as measured (derive slower where it is). Not a test: run by hand on an idle machine
and commit the JSON.
"""

from __future__ import annotations

import argparse
import compileall
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DERIVE = str(Path(PYTHON).with_name("derive"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}

_IMPORT = """
import sys, time, json
t = time.perf_counter()
import derive
t = time.perf_counter() - t
mods = [m for m in sys.modules if m == "derive" or m.startswith("derive.")]
print(json.dumps({"seconds": t, "modules": len(mods), "sympy": "sympy" in sys.modules,
                  "numpy": "numpy" in sys.modules, "torch": "torch" in sys.modules}))
"""

_COUNT = """
import sys, time, json
t = time.perf_counter()
import derive.torch as dt
value = dt.LSTM(32, 128, 2, bidirectional=True).count
t = time.perf_counter() - t
print(json.dumps({"seconds": t, "value": value, "sympy": "sympy" in sys.modules}))
"""

_TORCH_COUNT = """
import time, json
t = time.perf_counter()
import torch
value = sum(p.numel() for p in torch.nn.LSTM(32, 128, 2, bidirectional=True, device="meta").parameters())
print(json.dumps({"seconds": time.perf_counter() - t, "value": value}))
"""

_CONFIG = {"model_type": "mistral"}

_DERIVE_CONFIG = f"""
import sys, time, json
t = time.perf_counter()
import derive
value = derive.explain({_CONFIG!r}).total
t = time.perf_counter() - t
print(json.dumps({{"seconds": t, "value": value, "sympy": "sympy" in sys.modules}}))
"""

_HF_CONFIG = f"""
import time, json, warnings
t = time.perf_counter()
import torch, transformers
cfg = transformers.AutoConfig.for_model(**{_CONFIG!r})
with torch.device("meta"):
    model = transformers.AutoModelForCausalLM.from_config(cfg)
value = sum(p.numel() for p in model.parameters())
print(json.dumps({{"seconds": time.perf_counter() - t, "value": value}}))
"""


def _json(code: str) -> dict:
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=ENV, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _wall(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=ENV, check=True)
    return time.perf_counter() - t


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results_import.json")
    args = parser.parse_args(argv)
    n = args.repeats
    compileall.compile_dir(str(ROOT / "derive"), quiet=1)

    imports = [_json(_IMPORT) for _ in range(n)]
    counts = [_json(_COUNT) for _ in range(n)]
    torch_counts = [_json(_TORCH_COUNT) for _ in range(n)]
    configs = [_json(_DERIVE_CONFIG) for _ in range(n)]
    hf_configs = [_json(_HF_CONFIG) for _ in range(n)]
    assert {c["value"] for c in counts} == {c["value"] for c in torch_counts} == {561152}
    assert {c["value"] for c in configs} == {c["value"] for c in hf_configs}
    line = [DERIVE, "nn.LSTM(32, 128, 2, bidirectional=True)", "--json"]
    cli = [_wall(line) for _ in range(n)]
    bare = [_wall([PYTHON, "-c", "pass"]) for _ in range(n)]

    result = {
        "measured": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "repeats": n,
        "import_derive": {
            "seconds_median": _median([i["seconds"] for i in imports]),
            "modules": max(i["modules"] for i in imports),
            "sympy": any(i["sympy"] for i in imports),
            "numpy": any(i["numpy"] for i in imports),
            "torch": any(i["torch"] for i in imports),
        },
        "count_lstm": {
            "derive_seconds_median": _median([c["seconds"] for c in counts]),
            "derive_imports_sympy": any(c["sympy"] for c in counts),
            "torch_meta_seconds_median": _median([c["seconds"] for c in torch_counts]),
        },
        "config_total": {
            "config": _CONFIG,
            "derive_seconds_median": _median([c["seconds"] for c in configs]),
            "derive_imports_sympy": any(c["sympy"] for c in configs),
            "from_config_meta_seconds_median": _median([c["seconds"] for c in hf_configs]),
        },
        "cli_formula_process": {
            "argv": line[1:],
            "seconds_median": _median(cli),
            "python_pass_seconds_median": _median(bare),
        },
    }
    c = result["count_lstm"]
    c["ratio_torch_over_derive"] = round(c["torch_meta_seconds_median"] / c["derive_seconds_median"], 2)
    g = result["config_total"]
    g["ratio_from_config_over_derive"] = round(g["from_config_meta_seconds_median"] / g["derive_seconds_median"], 2)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
