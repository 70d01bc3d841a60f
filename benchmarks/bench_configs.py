"""Explaining a pretrained config against building its model: ``derive.explain(config)`` beside
``AutoModelForCausalLM.from_config(config)`` on the meta device, summing ``numel``, in one run.

    .venv/bin/python benchmarks/bench_configs.py [--quick] [--output benchmarks/results_configs.json]

For each config (mamba-2.8b's transformers config, transformers' default ``Mamba2Config``, a
FalconMamba of 64 layers): the warm time of ``derive.explain(config).total`` and of building the
model under ``torch.device("meta")`` and summing ``p.numel()`` over ``model.parameters()`` (best of
several repeats, after a warm-up), the closed form's first derivation (``report.module.formula.expr``),
and the cold time of each in a fresh subprocess (imports included). Every total is asserted equal.
Not a test: run by hand; the JSON is for the record.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import transformers  # noqa: E402

import derive  # noqa: E402

CONFIGS = {
    "mamba-2.8b-hf": {"model_type": "mamba", "vocab_size": 50280, "hidden_size": 2560, "num_hidden_layers": 64},
    "Mamba2Config()": {"model_type": "mamba2"},
    "falcon_mamba 64 layers": {"model_type": "falcon_mamba", "hidden_size": 2048, "num_hidden_layers": 64},
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


def built_total(config: dict) -> int:
    """What one would otherwise do: build the model on the meta device and sum ``numel``."""
    settings = {k: v for k, v in config.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(config["model_type"], **settings)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg)
    return sum(p.numel() for p in model.parameters())


def cold(code: str) -> float:
    """Wall time of ``code`` in a fresh Python (imports included), seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results_configs.json")
    args = parser.parse_args()
    repeats = 3 if args.quick else 10
    rows = []
    for label, config in CONFIGS.items():
        total = derive.explain(config).total
        assert total == built_total(config), label
        ours = best_of(repeats, lambda: derive.explain(config).total)
        theirs = best_of(max(2, repeats // 3), lambda: built_total(config))
        start = time.perf_counter()
        derive.explain(config).module.formula.expr  # noqa: B018 - the closed form, derived once
        formula = time.perf_counter() - start
        literal = json.dumps(config)
        cold_ours = cold(f"import derive; derive.explain({literal}).total")
        cold_theirs = cold(
            "import torch, transformers; "
            f"c = {literal}; m = c.pop('model_type'); cfg = transformers.AutoConfig.for_model(m, **c)\n"
            "with torch.device('meta'): model = transformers.AutoModelForCausalLM.from_config(cfg)\n"
            "sum(p.numel() for p in model.parameters())"
        )
        rows.append(
            {
                "config": label,
                "parameters": total,
                "derive_s": ours,
                "from_config_meta_s": theirs,
                "ratio": theirs / ours,
                "closed_form_s": formula,
                "cold_derive_s": cold_ours,
                "cold_from_config_meta_s": cold_theirs,
            }
        )
        print(
            f"{label:24} {total:>15,}  derive {ours * 1e3:8.2f} ms  from_config(meta) {theirs * 1e3:8.1f} ms  "
            f"x{theirs / ours:,.0f}  closed form {formula * 1e3:6.0f} ms  cold {cold_ours:.2f} s vs {cold_theirs:.2f} s"
        )
    result = {
        "date": datetime.date.today().isoformat(),
        "machine": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        },
        "rows": rows,
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
