"""Peers side by side: hf-mem and ``accelerate estimate-memory`` beside derive and transformers on released configs.

    .venv/bin/python benchmarks/bench_peers.py [--output benchmarks/results_peers.json] [--only NAME ...]

(``--only``: those rows run again and put in place in the output, the others kept as recorded.)

For each release (a ``config.json`` derive stores with its source, ``derive/families/data/*.json``):

derive
    ``derive.cost(config, T, 1, ...)``: the weights in bf16 (``dtype="bfloat16"``, no ``quantization_config``) and
    as released (the config's ``quantization_config`` and dtype; bfloat16, :data:`UNNAMED_DTYPE`, where the config
    names none and derive would refuse to guess it), the cache of one sequence at 32K and 128K tokens
    (bf16 keys and values, states as transformers holds them), and the largest context of one sequence whose
    weights as released + cache fit 24, 48 and 80 GB (10^9 bytes a GB, ``memory="24GB"`` as ``derive --memory
    24GB`` reads it) and 24, 48 and 80 GiB (2^30 bytes: about what a card sold as 24, 48 or 80 GB holds)
    (``"any"`` where the cache stops growing and fits, 0 where the weights alone do not).
transformers 5.23.0 (the truth)
    ``AutoModelForCausalLM.from_config`` on the meta device: every parameter once (tied tensors once) × 2 bytes;
    as released, where the release is quantized and transformers' quantizer runs here (fine-grained FP8), the
    quantizer replacing the modules of that meta build (``preprocess_model``, as ``from_pretrained`` does) and the
    bytes of every tensor its ``state_dict`` holds (buffers and tied names left out), as
    ``tests/support/quant_worker.py`` builds it. The cache: the meta-device model run with ``use_cache=True`` on
    ``--cache-tokens`` tokens (``tests/support/cache_live.py``), its cache tensors' bytes summed. Each largest
    context T derive gives is checked by that run: the weights as released + the cache at T fit the budget's
    bytes (written here, :data:`BUDGETS`, not parsed by derive), at T + 1 they do not (where T is 0: the
    weights + the cache of one token are over it).
hf-mem 0.5.6 and accelerate 1.15.0
    installed in their own environment, ``.venv-peers`` (made here with pip from the package registry; never a
    dependency of derive), run by ``benchmarks/peers_worker.py`` with only their Hub access answered locally (its
    docstring says how and cites their code). hf-mem sums a checkpoint's safetensors headers: the only header that
    can be had here is the one of the truth's build above, so its weights figure equals the truth by construction
    except for its own dtype table, and it is left out where no build runs (MXFP4). Its KV cache is its own
    formula on the config (``--experimental --max-model-len T``, batch 1).

Each figure is put beside the truth with its difference (bytes and per cent). Not a test: run by hand; the JSON is
the record (``tests/analysis/test_results_peers.py`` checks that its derive figures are derive's answers today).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

import derive  # noqa: E402
from derive.analysis.cost import config_dtype, cost  # noqa: E402

PEERS = ROOT / ".venv-peers"
#: What .venv-peers holds (torch and transformers as derive's tests pin them, so the peers build the same models).
#: torch==2.13.0 is the CPU build this kind of machine keeps on its disk (pip's find-links), as scripts/bootstrap's
#: side environments get it; elsewhere the registry's 2.13.0 is a multi-GB CUDA build.
PEER_PINS = ["torch==2.13.0", "transformers==5.23.0", "accelerate==1.15.0", "hf-mem==0.5.6"]
WORKER = ROOT / "benchmarks" / "peers_worker.py"
DATA = ROOT / "derive" / "families" / "data"

#: The releases compared (derive stores each with its source).
RELEASES = [
    "Qwen/Qwen3-8B",
    "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen3-32B-FP8",
    "mistralai/Mixtral-8x7B-v0.1",
    "google/gemma-3-4b-it",
    "openai/gpt-oss-120b",
    "deepseek-ai/DeepSeek-V3",
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    "Qwen/Qwen3-Next-80B-A3B-Thinking",
]
#: Model types whose meta-device run at millions of tokens is too slow here (recurrent layers loop over chunks).
SLOW_META = {
    "qwen3_next": "Gated DeltaNet's torch path loops over 64-token chunks on meta (547 s at 128K)",
}
#: Context lengths of the cache columns (tokens).
CONTEXTS = (32768, 131072)
GB = 10**9
GIB = 2**30
#: Budgets of the largest-context columns as derive is given them (``memory=``, as ``--memory`` reads it) and their
#: bytes, spelled here (not derive's parsing): the issue's 24/48/80 GB (10^9 bytes) and 24/48/80 GiB (2^30), about
#: what a card sold as 24/48/80 GB holds.
BUDGETS = {
    **{f"{n}GB": n * GB for n in (24, 48, 80)},
    **{f"{n}GiB": n * GIB for n in (24, 48, 80)},
}
DTYPE = "bfloat16"
_SAFETENSORS = {"float32": "F32", "bfloat16": "BF16", "float16": "F16", "int64": "I64", "int32": "I32",
                "int8": "I8", "uint8": "U8", "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2"}  # fmt: skip
_BYTES = {"F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I8": 1, "U8": 1, "F8_E4M3": 1, "F8_E5M2": 1}


def release(name: str) -> tuple[str, dict[str, Any], str]:
    """The stored release ``name``: its model_type, its config (with ``model_type``) and its source."""
    for path in sorted(DATA.glob("*.json")):
        for r in json.loads(path.read_text()).get("releases", []):  # a family may store tiny configs only
            if r["name"] == name:
                config = {"model_type": path.stem, **{k: v for k, v in r["config"].items() if k != "model_type"}}
                return path.stem, config, r["source"]
    raise KeyError(name)


#: The dtype given to derive "as released" where the config names none (openai/gpt-oss-120b): derive refuses to
#: guess it (``derive.analysis.cost.NO_DTYPE``: the checkpoint decides). gpt-oss keeps every tensor but the MXFP4
#: experts in bfloat16, and its model card's checkpoint of 60.8 GiB is what derive gives in it (65,248,815,744 B).
UNNAMED_DTYPE = "bfloat16"


def derived(config: dict[str, Any]) -> dict[str, Any]:
    """derive's answers for one release (see the module's docstring)."""
    plain = {k: v for k, v in config.items() if k != "quantization_config"}
    given = None if config_dtype(config) else UNNAMED_DTYPE
    released = cost(config, 1, 1, given)
    longest: dict[str, Any] = {}
    for budget in BUDGETS:
        fit = cost(config, 1, 1, given, memory=budget)
        longest[budget] = "any" if fit.fits_any_length else fit.max_seq_len
    return {
        "parameters": int(derive.explain(config).total),
        "weights_bf16": int(cost(plain, 1, 1, DTYPE).weights_bytes),
        "weights_as_released": int(released.weights_bytes),
        "as_released": released.quant_method or released.dtype,
        "weights_bound": released.weights_bound,
        "cache": {str(t): int(cost(config, t, 1, DTYPE).cache_bytes) for t in CONTEXTS},
        "kv_bytes_per_token": int(cost(config, 1, 1, DTYPE).kv_bytes_per_token),
        "state_bytes": int(cost(config, 1, 1, DTYPE).state_bytes),
        "largest_context": longest,
        **({"dtype_given": given} if given else {}),
    }


def _build(config: dict[str, Any], dtype: Any = "bfloat16") -> Any:
    """The release's model on the meta device in ``dtype`` (None: the config's own, as ``from_pretrained`` would
    load it; float32, torch's default, where it names none)."""
    import torch
    import transformers

    settings = {k: v for k, v in config.items() if k not in ("model_type", "quantization_config")}
    cfg = transformers.AutoConfig.for_model(config["model_type"], **settings)
    if dtype is None:
        dtype = cfg.dtype if isinstance(cfg.dtype, torch.dtype) else getattr(torch, str(cfg.dtype or "float32"))
    with torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(
            cfg, dtype=getattr(torch, dtype) if isinstance(dtype, str) else dtype
        )


def _tensors(model: Any) -> dict[str, list]:
    """What a checkpoint of ``model`` holds: its state_dict less buffers and tied names, as safetensors names it."""
    left_out = {n for n, _ in model.named_buffers()} | set(model.all_tied_weights_keys)
    return {
        k: [_SAFETENSORS[str(v.dtype).removeprefix("torch.")], list(v.shape)]
        for k, v in model.state_dict().items()
        if k not in left_out
    }


def _nbytes(header: dict[str, list]) -> int:
    total = 0
    for dtype, shape in header.values():
        n = _BYTES[dtype]
        for d in shape:
            n *= d
        total += n
    return total


def truth(
    config: dict[str, Any], cache_tokens: tuple[int, ...], largest: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, list] | None]:
    """transformers' figures for one release and the tensors its checkpoint holds (None where none is built); with
    ``largest`` (derive's largest context by budget), the meta run's weights as released + cache at T and T + 1
    against each budget (at 1 token where derive says 0: the weights alone over it)."""
    import cache_live
    from transformers.quantizers.auto import AutoHfQuantizer, AutoQuantizationConfig

    out: dict[str, Any] = {}
    model = _build(config)
    out["parameters"] = sum(p.numel() for p in model.parameters())
    out["weights_bf16"] = out["parameters"] * 2
    header: dict[str, list] | None = _tensors(model)
    assert header is not None and _nbytes(header) == out["weights_bf16"]
    quant = config.get("quantization_config")
    if quant is None:
        header = _tensors(_build(config, None))
        out["weights_as_released"] = _nbytes(header)
        out["as_released_how"] = "from_config on meta in the config's dtype (float32 where it names none)"
    elif quant["quant_method"] == "fp8":
        quantized = _build(config, None)
        quantizer = AutoHfQuantizer.from_config(AutoQuantizationConfig.from_dict(dict(quant)), pre_quantized=True)
        quantizer.preprocess_model(quantized, dtype=quantized.dtype, checkpoint_files=None, device_map="cpu")
        header = _tensors(quantized)
        out["weights_as_released"] = _nbytes(header)
        out["as_released_how"] = "from_config on meta, FineGrainedFP8HfQuantizer.preprocess_model, state_dict bytes"
    else:
        header = None
        out["weights_as_released"] = None
        out["as_released_how"] = (
            f"{quant['quant_method']}: transformers' quantizer does not build here (Mxfp4HfQuantizer needs its "
            "kernels from the Hub); derive's layout is held by tests/analysis/test_stored.py::"
            "test_mxfp4_blocks_dequantize_to_gpt_oss_experts"
        )
    out["largest_context_check"] = {}
    if largest is not None and out["weights_as_released"] is not None:
        for budget, tokens in largest.items():
            if tokens and config["model_type"] in SLOW_META:
                out["largest_context_check"][budget] = f"not run: {SLOW_META[config['model_type']]}"
                continue
            if not isinstance(tokens, int):
                out["largest_context_check"][budget] = f"not run: derive says {tokens!r}"
                continue
            limit = BUDGETS[budget]
            at = out["weights_as_released"] + sum(cache_live.cache_bytes(model, 1, max(tokens, 1)).values())
            past = out["weights_as_released"] + sum(cache_live.cache_bytes(model, 1, tokens + 1).values())
            holds = (at <= limit < past) if tokens else (at > limit)
            out["largest_context_check"][budget] = {"tokens": tokens, "bytes_at_T": at if tokens else None,
                                                    "bytes_at_T_plus_1": past, "budget": limit, "holds": holds}  # fmt: skip
    out["cache"] = {}
    out["cache_s"] = {}
    for t in cache_tokens:
        start = time.perf_counter()
        try:
            out["cache"][str(t)] = sum(cache_live.cache_bytes(model, 1, t).values())
        except Exception as why:
            out["cache"][str(t)] = f"meta run failed: {type(why).__name__}: {str(why)[:200]}"
        out["cache_s"][str(t)] = round(time.perf_counter() - start, 2)
    return out, header


def ensure_peers() -> Path:
    """.venv-peers/bin/python, made with pip from the package registry when missing or pinned otherwise."""
    python = PEERS / "bin" / "python"
    stamp = PEERS / ".bench_peers"
    if python.exists() and stamp.exists() and stamp.read_text() == " ".join(PEER_PINS):
        return python
    subprocess.run([sys.executable, "-m", "venv", str(PEERS)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *PEER_PINS], check=True)
    stamp.write_text(" ".join(PEER_PINS))
    return python


def peers(python: Path, asks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "TRANSFORMERS_VERBOSITY": "error", "PYTHONPATH": ""}  # fmt: skip
    done = subprocess.run(
        [str(python), str(WORKER), "-"], input=json.dumps(asks), capture_output=True, text=True, env=env, timeout=3600
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _diff(value: Any, truth_value: Any) -> dict[str, Any] | None:
    if not isinstance(value, (int, float)) or not isinstance(truth_value, int) or not truth_value:
        return None
    return {"bytes": int(value) - truth_value, "percent": round(100 * (value - truth_value) / truth_value, 2)}


def compare(ours: dict[str, Any], real: dict[str, Any], peer: dict[str, Any], quant: str | None) -> dict[str, Any]:
    """Each figure beside the truth, the differences as measured."""
    acc = peer["accelerate"]
    acc_note = ""
    if "error" in acc and "total_bytes" in peer.get("accelerate_include_buffers", {}).get("float16", {}):
        acc = peer["accelerate_include_buffers"]
        acc_note = "; its default build fails here (a CPU tensor larger than memory), ACCELERATE_INIT_INCLUDE_BUFFERS=1"
    hf = peer["hf_mem"]
    nearest = {None: "float16", "fp8": "int8", "mxfp4": "int4"}.get(quant, "float16")
    rows: dict[str, Any] = {}
    rows["weights_bf16"] = {
        "truth": real["weights_bf16"],
        "derive": ours["weights_bf16"],
        "accelerate": acc.get("float16", {}).get("total_bytes"),
        "accelerate_note": "its float16 row (2 bytes a parameter, as bf16): AutoModel (no LM head), buffers counted"
        + acc_note,
        "hf_mem": hf.get("weights_bytes") if quant is None else None,
    }
    rows["weights_as_released"] = {
        "truth": real["weights_as_released"],
        "derive": ours["weights_as_released"],
        "accelerate": acc.get(nearest, {}).get("total_bytes"),
        "accelerate_note": f"its {nearest} row: it reads no quantization_config, the nearest row a user would pick"
        + acc_note,
        "hf_mem": hf.get("weights_bytes"),
    }
    for t in CONTEXTS:
        rows[f"cache_{t}"] = {
            "truth": real["cache"].get(str(t)),
            "derive": ours["cache"][str(t)],
            "hf_mem": hf.get("kv_cache_bytes", {}).get(str(t)),
            "accelerate": None,
            "accelerate_note": "accelerate estimate-memory gives no cache",
        }
    for row in rows.values():
        for who in ("derive", "accelerate", "hf_mem"):
            row[f"{who}_minus_truth"] = _diff(row[who], row["truth"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results_peers.json")
    parser.add_argument("--only", nargs="*", default=None, help="release names (default: all of RELEASES)")
    parser.add_argument("--cache-tokens", type=int, nargs="*", default=list(CONTEXTS), help="meta runs' lengths")
    args = parser.parse_args()
    import torch
    import transformers

    python = ensure_peers()
    names = args.only or RELEASES
    rows, asks, reals = [], [], {}
    for name in names:
        model_type, config, source = release(name)
        start = time.perf_counter()
        ours = derived(config)
        derive_s = time.perf_counter() - start
        start = time.perf_counter()
        real, header = truth(config, tuple(args.cache_tokens), ours["largest_context"])
        real["s"] = round(time.perf_counter() - start, 2)
        assert ours["parameters"] == real["parameters"], name
        reals[name] = real
        stored = {k: v for k, v in config.items() if k != "model_type"}
        asks.append({"name": name, "config": {"model_type": model_type, **stored}, "header": header,
                     "tokens": list(CONTEXTS)})  # fmt: skip
        rows.append({"name": name, "model_type": model_type, "source": source, "derive": ours,
                     "derive_s": round(derive_s, 3), "transformers": real})  # fmt: skip
        print(f"{name}: derive {derive_s:.2f} s, transformers {real['s']:.1f} s", flush=True)
    start = time.perf_counter()
    answers = peers(python, asks)
    peers_s = time.perf_counter() - start
    for row, peer in zip(rows, answers):
        quant = (release(row["name"])[1].get("quantization_config") or {}).get("quant_method")
        row["peers"] = peer
        row["compared"] = compare(row["derive"], row["transformers"], peer, quant)
    if args.only and args.output.exists():  # the other rows as recorded, these in their place
        kept = {r["name"]: r for r in json.loads(args.output.read_text())["rows"]}
        kept.update({r["name"]: r for r in rows})
        rows = [kept[n] for n in RELEASES if n in kept]
        answers = [r["peers"] for r in rows]
    out = {
        "date": datetime.date.today().isoformat(),
        "command": ".venv/bin/python benchmarks/bench_peers.py",
        "machine": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "cpus": os.cpu_count(),
            "load_average": round(os.getloadavg()[0], 1),
        },  # fmt: skip
        "peers": answers[0]["versions"] if answers else None,
        "peers_s": round(peers_s, 1),
        "contexts": list(CONTEXTS),
        "budgets": BUDGETS,
        "dtype": DTYPE,
        "rows": rows,
        "table": table(rows),
    }
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(out["table"])


def _gib(b: Any) -> str:
    return "—" if not isinstance(b, (int, float)) else f"{b / GIB:,.2f}"


def _tokens(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) else str(v)


def _checked(checks: dict[str, Any]) -> str:
    """How many of the row's largest contexts the meta run held at T and T + 1 (and why the others were not run)."""
    if not checks:
        return "none: no build as released"
    run = [c for c in checks.values() if isinstance(c, dict)]
    said = f"{sum(c['holds'] for c in run)} of {len(run)} hold"
    skipped = sorted({c for c in checks.values() if isinstance(c, str)})
    return said + "".join(f"; {len(checks) - len(run)} {why}" for why in skipped)


def table(rows: list[dict[str, Any]]) -> str:
    """The note's table (markdown): bytes in GiB, each peer's figure beside derive's and the truth's; the largest
    context of one sequence in 24/48/80 GB (10^9 bytes) and in 24/48/80 GiB (2^30), and how many of those the meta
    run held at T and T + 1."""
    units = {unit: [b for b in BUDGETS if b.endswith(unit)] for unit in ("GB", "GiB")}
    head = ("| model | weights bf16, GiB: truth / derive / accelerate "
            "| as released, GiB: truth / derive / hf-mem / accelerate "
            "| cache 32K, GiB: truth / derive / hf-mem | cache 128K, GiB: truth / derive / hf-mem "
            + "".join(f"| largest context {' / '.join(b.removesuffix(u) for b in bs)} {u} " for u, bs in units.items())
            + "| transformers at T and T + 1 |\n"
            "|---|---|---|---|---|" + "---|" * len(units) + "---|")  # fmt: skip
    lines = [head]
    for r in rows:
        c = r["compared"]
        w, q, k32, k128 = c["weights_bf16"], c["weights_as_released"], c["cache_32768"], c["cache_131072"]
        longest = "".join(
            f"| {' / '.join(_tokens(r['derive']['largest_context'][b]) for b in bs)} " for bs in units.values()
        )
        lines.append(
            f"| {r['name']} ({r['derive']['as_released']}) "
            f"| {_gib(w['truth'])} / {_gib(w['derive'])} / {_gib(w['accelerate'])} "
            f"| {_gib(q['truth'])} / {_gib(q['derive'])} / {_gib(q['hf_mem'])} / {_gib(q['accelerate'])} "
            f"| {_gib(k32['truth'])} / {_gib(k32['derive'])} / {_gib(k32['hf_mem'])} "
            f"| {_gib(k128['truth'])} / {_gib(k128['derive'])} / {_gib(k128['hf_mem'])} "
            f"{longest}| {_checked(r['transformers']['largest_context_check'])} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
