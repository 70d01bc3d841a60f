"""transformers' own tensor parallelism run on the CPU (not a test module): ``python tp_worker.py RUNS_JSON``; for
each run ``{"world": N, "ep": bool, "configs": [...]}`` it forks N processes joined by ``torch.distributed`` with
gloo (transformers imported once, before the forks); each builds every config (transformers config dicts with
``model_type``) at one seed, shards it with transformers 5.23.0's machinery —
``PreTrainedModel.prepare_distribute_model`` and ``maybe_distribute_model`` with ``DistributedConfig(tp_size=WORLD)``,
the calls ``from_pretrained(..., tp_plan="auto")`` makes (``modeling_utils.py``, ``from_pretrained``) — runs a
forward of a few tokens with a cache, and reports per rank: each parameter's local shape (``DTensor.to_local()``),
its plan style, and the keys' and values' shapes in the cache; with ``ep`` also ``ep_size`` = N (transformers'
``base_model_ep_plan``). One JSON list on stdout, a run's ``{"rank": [per config]}`` each.

(``from_pretrained`` itself refuses a ``tp_plan`` without the ``accelerate`` package, which the test environment
does not install: ``integrations/accelerate.py``, ``check_and_set_device_map``; the two calls above are what it
runs once that check passes.)
"""

from __future__ import annotations

import json
import os
import sys

TOKENS = 5


def _rank(rank: int, world: int, port: int, configs: list[dict], out, ep: bool) -> None:
    try:
        _run(rank, world, port, configs, out, ep)
    except BaseException:  # the parent reports it instead of waiting for this rank
        import traceback

        out.put((rank, {"error": traceback.format_exc()}))
        raise


def _run(rank: int, world: int, port: int, configs: list[dict], out, ep: bool) -> None:
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank)
    )
    import torch
    import torch.distributed as dist
    from torch.distributed.tensor import DTensor
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.distributed import DistributedConfig

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    found = []
    for given in configs:
        keys = dict(given)
        config = AutoConfig.for_model(keys.pop("model_type"), **keys)
        cls = AutoModelForCausalLM._model_mapping[type(config)]
        torch.manual_seed(0)
        experts = {"ep_size": world} if ep else {}
        dc, _, mesh = cls.prepare_distribute_model(DistributedConfig(tp_size=world, **experts))
        model = cls.maybe_distribute_model(cls(config).eval(), dc, mesh)
        plan = dict(model.tp_plan)
        tensors = {}
        for name, p in model.named_parameters():
            local = p.to_local() if isinstance(p, DTensor) else p
            tensors[name] = {"shape": list(p.shape), "local": list(local.shape), "dtensor": isinstance(p, DTensor)}
        with torch.no_grad():
            result = model(torch.arange(1, TOKENS + 1)[None], use_cache=True)
        cache = [
            [list(layer.keys.shape), list(layer.values.shape)]
            for layer in result.past_key_values.layers
            if getattr(layer, "keys", None) is not None
        ]
        found.append({"tensors": tensors, "cache": cache, "plan": plan, "logits": list(result.logits.shape)})
    out.put((rank, found))
    dist.barrier()
    dist.destroy_process_group()


def _group(world: int, ep: bool, configs: list[dict], ctx, port: int) -> dict:
    out = ctx.Queue()
    ranks = [ctx.Process(target=_rank, args=(r, world, port, configs, out, ep)) for r in range(world)]
    for p in ranks:
        p.start()
    results = {}
    for _ in ranks:
        rank, found = out.get(timeout=240)
        if isinstance(found, dict):
            for p in ranks:
                p.kill()
            raise SystemExit(f"rank {rank} failed:\n{found['error']}")
        results[rank] = found
    for p in ranks:
        p.join(timeout=60)
        if p.exitcode != 0:
            raise SystemExit(f"rank exited with {p.exitcode}")
    return {str(k): v for k, v in sorted(results.items())}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        runs = json.load(f)  # [{"world": 2, "ep": false, "configs": [...]}, ...]
    import multiprocessing

    import torch.distributed.tensor  # noqa: F401  (imported before the fork: no rank imports it again)
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.distributed import DistributedConfig  # noqa: F401

    for run in runs:
        for given in run["configs"]:
            keys = dict(given)
            AutoModelForCausalLM._model_mapping[type(AutoConfig.for_model(keys.pop("model_type"), **keys))]
    ctx = multiprocessing.get_context("fork")
    base = 29400 + os.getpid() % 500
    found = [_group(r["world"], r["ep"], r["configs"], ctx, base + 7 * i) for i, r in enumerate(runs)]
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
