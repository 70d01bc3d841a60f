"""The peers' own code run offline on one config each (not a test; nothing here imports derive).

Run by ``benchmarks/bench_peers.py`` with the Python of ``.venv-peers`` (hf-mem and accelerate installed there
from the package registry, never a dependency of derive): ``python peers_worker.py -`` reads a JSON list of asks
on stdin and prints a JSON list of answers, one per ask, as its last line. An ask is ``{"name", "config",
"header", "tokens"}``: the released ``config.json`` (a mapping), the tensors a checkpoint of it holds
(``{name: [safetensors dtype, shape]}``, or None where none can be written here) and the context lengths to ask
the KV cache at.

Both tools read the Hugging Face Hub, which this machine cannot reach; each is run with only its Hub access
answered locally, everything after it being the tool's own code:

accelerate 1.15.0 (``accelerate estimate-memory``)
    ``accelerate/commands/estimate.py``: ``gather_data`` (l. 274) calls ``create_empty_model`` (l. 81), whose
    first step ``verify_on_hub`` (l. 40-47, called at l. 105) asks the Hub's ``model_info`` for the repo and
    raises for anything not on the Hub (a local directory included: it is not a repo id); its answer is used
    only for ``model_info.config`` (l. 128-131: the ``auto_map``). Here ``verify_on_hub`` answers a stand-in
    whose ``config`` is the stored config, and ``model_name`` is a local directory holding that
    ``config.json``, which ``AutoConfig.from_pretrained`` (l. 132) reads offline. The rest is accelerate's:
    ``AutoModel.from_config(config, torch_dtype=torch.float32)`` under ``init_empty_weights`` (l. 133-144),
    ``calculate_maximum_sizes`` (``utils/modeling.py`` l. 1079), the float32 total halved for float16, quartered
    for int8, divided by 8 for int4 (estimate.py l. 294-304).

hf-mem 0.5.6
    ``hf_mem/run.py``: ``arun`` (l. 211) builds an ``httpx2.AsyncClient`` (l. 251) and reads
    ``https://huggingface.co/api/models/{id}/tree/...`` (l. 261), then the safetensors headers by HTTP range
    requests (``safetensors/fetch.py`` l. 14-38) and ``config.json`` (l. 493); no option names a local path or
    another endpoint. Here the client is given an ``httpx2.MockTransport`` that answers those three URLs from
    the ask: the tree lists ``config.json`` and ``model.safetensors``, the config is the stored one, and the
    safetensors file is an 8-byte length and the JSON header of ``header`` (no tensor data: hf-mem reads only
    the header). Its weights figure is the sum over that header (``safetensors/metadata.py``, ``parse_safetensors_metadata`` l. 173), its KV cache
    ``compute_safetensors_kv_cache_size`` (``safetensors/kv_cache.py`` l. 142-180) with ``--experimental``,
    ``--max-model-len`` each of ``tokens``, batch 1 and ``--kv-cache-dtype auto``.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import sys
import tempfile
import traceback
import types
from pathlib import Path
from typing import Any


def _versions() -> dict[str, str]:
    import importlib.metadata

    return {p: importlib.metadata.version(p) for p in ("accelerate", "hf-mem", "transformers", "torch", "httpx2")}


def accelerate_estimate(config: dict[str, Any]) -> dict[str, Any]:
    """``accelerate estimate-memory DIR --library_name transformers --dtypes float32 float16 int8 int4``."""
    from accelerate.commands import estimate

    with tempfile.TemporaryDirectory() as where:
        Path(where, "config.json").write_text(json.dumps(config))
        stand_in = types.SimpleNamespace(config={k: config[k] for k in ("architectures", "model_type") if k in config})
        estimate.verify_on_hub = lambda repo, token=None: stand_in  # the Hub's model_info, answered locally
        args = types.SimpleNamespace(
            model_name=where,
            library_name="transformers",
            dtypes=["float32", "float16", "int8", "int4"],
            trust_remote_code=False,
        )
        rows = estimate.gather_data(args)
    return {dtype: {"total_bytes": total, "largest_layer_bytes": largest} for dtype, largest, total, _ in rows}


def _safetensors(header: dict[str, list]) -> bytes:
    """A safetensors file's first bytes: the header's length (u64, little-endian) and the header (offsets laid
    end to end, as ``safetensors`` writes them)."""
    sizes = {"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I8": 1, "U8": 1, "F8_E4M3": 1, "F8_E5M2": 1}
    meta: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    start = 0
    for name, (dtype, shape) in header.items():
        n = sizes[dtype]
        for d in shape:
            n *= d
        meta[name] = {"dtype": dtype, "shape": shape, "data_offsets": [start, start + n]}
        start += n
    text = json.dumps(meta).encode()
    return struct.pack("<Q", len(text)) + text


def hf_mem_estimate(name: str, config: dict[str, Any], header: dict[str, list], tokens: list[int]) -> dict[str, Any]:
    """``hf-mem --model-id NAME --experimental --max-model-len T --json-output`` against a local stand-in Hub."""
    import importlib
    import warnings

    import httpx2

    run = importlib.import_module("hf_mem.run")  # the module (``hf_mem.run`` is also its function's name)

    body = _safetensors(header)
    tree = [{"path": "config.json", "type": "file"}, {"path": "model.safetensors", "type": "file"}]

    def answer(request: httpx2.Request) -> httpx2.Response:
        url = str(request.url)
        if "/api/models/" in url and "/tree/" in url:
            return httpx2.Response(200, json=tree)
        if url.endswith("/config.json"):
            return httpx2.Response(200, json=config)
        if url.endswith("/model.safetensors"):
            first, last = request.headers["Range"].removeprefix("bytes=").split("-")
            return httpx2.Response(206, content=body[int(first) : int(last) + 1])
        return httpx2.Response(404)

    real = httpx2.AsyncClient

    class LocalClient(real):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.pop("http2", None)
            super().__init__(*args, transport=httpx2.MockTransport(answer), **kwargs)

    run.httpx2.AsyncClient = LocalClient
    out: dict[str, Any] = {"kv_cache_bytes": {}, "warnings": []}
    try:
        for t in tokens:
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                try:
                    result = asyncio.run(
                        run.arun(model_id=name, experimental=True, max_model_len=t, batch_size=1, kv_cache_dtype="auto")
                    )
                except RuntimeError as refused:
                    out["kv_cache_bytes"][str(t)] = None
                    out["kv_refused"] = str(refused).split("\n")[0][:400]
                    result = asyncio.run(run.arun(model_id=name, experimental=False))
                else:
                    out["kv_cache_bytes"][str(t)] = result.kv_cache
                    out["kv_cache_dtype"] = result.kv_cache_metadata.cache_dtype if result.kv_cache_metadata else None
            out["weights_bytes"] = result.memory
            out["warnings"] = sorted({str(w.message)[:200] for w in said} | set(out["warnings"]))
    finally:
        run.httpx2.AsyncClient = real
    return out


def hf_mem_kv_only(config: dict[str, Any], tokens: list[int]) -> dict[str, Any]:
    """Where no checkpoint header can be written here: hf-mem's weights cannot run (it sums the headers); its KV
    cache is its own two functions on the config (``resolve_kv_cache_dtype``, ``compute_safetensors_kv_cache_size``,
    as ``arun`` calls them at l. 547-560), with no header (``metadata``, read only for an fp8 config without
    ``fmt``)."""
    from hf_mem.safetensors.kv_cache import compute_safetensors_kv_cache_size, resolve_kv_cache_dtype

    out: dict[str, Any] = {"weights_bytes": None, "weights_note": "cannot run offline: no safetensors header here"}
    try:
        dtype = resolve_kv_cache_dtype(config=config, kv_cache_dtype="auto", metadata=None, model_id="local")  # type: ignore[arg-type]
    except RuntimeError as refused:
        out["kv_cache_bytes"] = {str(t): None for t in tokens}
        out["kv_refused"] = str(refused).split("\n")[0][:400]
        return out
    out["kv_cache_dtype"] = dtype
    out["kv_cache_bytes"] = {str(t): compute_safetensors_kv_cache_size(config, dtype, t, 1) for t in tokens}
    return out


def main() -> None:
    asks = json.loads(sys.stdin.read() if sys.argv[1:] == ["-"] else sys.argv[1])
    answers = []
    for ask in asks:
        one: dict[str, Any] = {"name": ask["name"], "versions": _versions()}
        try:
            one["accelerate"] = accelerate_estimate(ask["config"])
        except Exception:
            one["accelerate"] = {"error": traceback.format_exc()[-1500:]}
            # init_empty_weights (big_modeling.py l. 127-141) makes each parameter on the CPU and only then moves it
            # to meta: a tensor larger than this machine's memory fails. accelerate's own switch
            # ACCELERATE_INIT_INCLUDE_BUFFERS=1 (l. 119-125) builds under ``with torch.device("meta")`` instead.
            os.environ["ACCELERATE_INIT_INCLUDE_BUFFERS"] = "1"
            try:
                one["accelerate_include_buffers"] = accelerate_estimate(ask["config"])
            except Exception:
                one["accelerate_include_buffers"] = {"error": traceback.format_exc()[-1500:]}
            finally:
                del os.environ["ACCELERATE_INIT_INCLUDE_BUFFERS"]
        if ask.get("header") is None:
            one["hf_mem"] = hf_mem_kv_only(ask["config"], ask["tokens"])
        else:
            try:
                one["hf_mem"] = hf_mem_estimate(ask["name"], ask["config"], ask["header"], ask["tokens"])
            except Exception:
                one["hf_mem"] = {"error": traceback.format_exc()[-1500:]}
        answers.append(one)
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
