"""Explaining a pretrained config against building its model: ``derive.explain(config)`` beside
``AutoModelForCausalLM.from_config(config)`` on the meta device, summing ``numel``, in one run.

    .venv/bin/python benchmarks/bench_configs.py [--quick] [--output benchmarks/results_configs.json]

For each config (mamba-2.8b's transformers config, transformers' default ``Mamba2Config``, a
FalconMamba of 64 layers, and the released language models of the site's Language models pages,
``docs_src/pages/language_models.py``): the warm time of ``derive.explain(config).total`` and of
building the model under ``torch.device("meta")`` and summing ``p.numel()`` over
``model.parameters()`` (best of several repeats, after a warm-up), the closed form's first
derivation (``report.module.formula.expr``, where derive has one for the config), and the cold time
of each in a fresh subprocess (imports included). For the language models, also the bytes one
sequence's cache holds after :data:`CACHE_TOKENS` tokens in bf16: derive's
``cost(report, CACHE_TOKENS, 1, "bfloat16").cache_bytes`` against running the model on the meta
device with ``use_cache=True`` and summing its cache tensors' bytes (``tests/support/cache_live.py``),
which is what one does without derive. Every total and every cache is asserted equal.
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
from derive.analysis.cost import cost  # noqa: E402
from docs_src.pages.language_models import RELEASED  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "support"))
import cache_live  # noqa: E402

CONFIGS = {
    "mamba-2.8b-hf": {"model_type": "mamba", "vocab_size": 50280, "hidden_size": 2560, "num_hidden_layers": 64},
    "Mamba2Config()": {"model_type": "mamba2"},
    "falcon_mamba 64 layers": {"model_type": "falcon_mamba", "hidden_size": 2048, "num_hidden_layers": 64},
} | {r.name: dict(r.config) for key, r in RELEASED.items() if key != "mamba-2.8b" and r.published is not None}
#: Tokens of the sequence whose cache is measured (a meta run loops over them in the recurrent layers).
CACHE_TOKENS = 256
#: Configs whose cache is measured too: the released language models (not a config class's defaults).
CACHED = {r.name for key, r in RELEASED.items() if key != "mamba-2.8b" and r.published is not None}


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


def run_cache(config: dict) -> int:
    """What one does without derive: run the model on the meta device and sum its cache's bytes."""
    settings = {k: v for k, v in config.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(config["model_type"], **settings)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg).to(torch.bfloat16)
        return sum(cache_live.cache_bytes(model, 1, CACHE_TOKENS).values())


def derived_cache(config: dict) -> int:
    """derive's figure for the same."""
    return int(cost(derive.explain(config), CACHE_TOKENS, 1, "bfloat16").cache_bytes)


def closed_form(config: dict) -> float | None:
    """Seconds of the first derivation of the config's closed form; None where derive has none or refuses
    one (a size the closed form needs as a number, as Qwen3-Next's rotary width)."""
    module = derive.explain(config).module
    if module.formula is None:
        return None
    start = time.perf_counter()
    try:
        module.formula.expr  # noqa: B018 - the closed form, derived once
    except ValueError as refused:
        print(f"  closed form refused: {refused}")
        return None
    return time.perf_counter() - start


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
        formula = closed_form(config)
        literal = json.dumps(config)
        cold_ours = cold(f"import derive, json; derive.explain(json.loads({literal!r})).total")
        cold_theirs = cold(
            "import json, torch, transformers; "
            f"c = json.loads({literal!r}); m = c.pop('model_type'); cfg = transformers.AutoConfig.for_model(m, **c)\n"
            "with torch.device('meta'): model = transformers.AutoModelForCausalLM.from_config(cfg)\n"
            "sum(p.numel() for p in model.parameters())"
        )
        cache = {}
        if label in CACHED:
            measured = run_cache(config)
            assert measured == derived_cache(config), label
            cache = {
                "cache_tokens": CACHE_TOKENS,
                "cache_bytes": measured,
                "derive_cache_s": best_of(repeats, lambda: derived_cache(config)),
                "meta_run_cache_s": best_of(1, lambda: run_cache(config)),
            }
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
            | cache
        )
        shown = "none" if formula is None else f"{formula * 1e3:6.0f} ms"
        print(
            f"{label:24} {total:>15,}  derive {ours * 1e3:8.2f} ms  from_config(meta) {theirs * 1e3:8.1f} ms  "
            f"x{theirs / ours:,.0f}  closed form {shown}  cold {cold_ours:.2f} s vs {cold_theirs:.2f} s"
            + (f"  cache {cache['derive_cache_s'] * 1e3:.1f} ms vs {cache['meta_run_cache_s']:.2f} s" if cache else "")
        )
    result = {
        "date": datetime.date.today().isoformat(),
        "machine": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            # other work on the machine during the run (1-minute load average at its end): timings on a
            # busy machine are longer for both sides, ratios less so
            "load_average": round(os.getloadavg()[0], 1),
        },
        "rows": rows,
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
