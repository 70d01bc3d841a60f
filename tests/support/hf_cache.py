"""Tiny transformers models run on CPU: the bytes their cache holds and a decode step's FLOPs (not a test module).

Every expected figure is read off the real thing: ``AutoModelForCausalLM.from_config`` with random
weights, a forward of T tokens with ``use_cache=True``, and every tensor reachable from the
returned ``past_key_values`` (its layers' attributes, lists and dicts walked, each tensor once) and every
state a module keeps on itself (RecurrentGemma's), its ``numel() * element_size()`` summed; then one more
token under ``FlopCounterMode``.
"""

from __future__ import annotations

from typing import Any

import cache_live

#: FlopCounterMode's matrix-product operators (what derive's flops_per_token counts).
MATMUL_OPS = ("aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm")


def tiny(model_type: str, config: dict[str, Any], dtype: str = "float32") -> Any:
    """The model on CPU with random weights, eager attention (its matmuls visible to FlopCounterMode)."""
    import torch
    import transformers

    cfg = transformers.AutoConfig.for_model(model_type, **config)
    cfg._attn_implementation = "eager"
    # transformers' default routed experts run as aten._grouped_mm, which FlopCounterMode does not
    # count (0 FLOPs): the eager loop runs each visited expert as F.linear, which it does count
    cfg._experts_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg).to(getattr(torch, dtype))
    return model.eval()


def cache_tensors(cache: Any) -> list[Any]:
    """Every tensor the cache object holds, each once."""
    import torch

    seen: set[int] = set()
    out: list[Any] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, torch.Tensor):
            if id(obj) not in seen:
                seen.add(id(obj))
                out.append(obj)
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                walk(item)
        elif isinstance(obj, dict):
            for item in obj.values():
                walk(item)
        elif type(obj).__module__.startswith("transformers") and hasattr(obj, "__dict__"):
            for item in vars(obj).values():
                walk(item)

    walk(cache)
    return out


def run(model: Any, batch: int, tokens: int) -> tuple[int, int]:
    """(bytes the cache holds after ``tokens`` tokens, matmul FLOPs of the next token per sequence)."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import DynamicCache

    ids = torch.randint(0, model.config.vocab_size, (batch, tokens), generator=torch.Generator().manual_seed(1))
    key = cache_live.cache_key(model)
    before = cache_live.module_states(model)  # references held: a freed tensor's id may be reused
    with torch.no_grad():
        out = model(ids, use_cache=True)
        cache = getattr(out, key, None)
        if cache is None:  # the model keeps its cache only when handed one (RecurrentGemma, as generate does)
            cache = DynamicCache(config=model.config)
            model(ids, use_cache=True, **{key: cache})
        kept = [v for path, v in cache_live.module_states(model).items() if v is not before.get(path)]
        held = sum(t.numel() * t.element_size() for t in cache_tensors(cache) + kept)
        with FlopCounterMode(display=False) as counter:
            model(ids[:, :1], use_cache=True, **{key: cache})
    counts = counter.get_flop_counts()["Global"]
    flops = sum(v for k, v in counts.items() if str(k) in MATMUL_OPS)
    assert flops % batch == 0
    return held, flops // batch


def first(model: Any, batch: int) -> int:
    """Matmul FLOPs per sequence of a sequence's first token: a forward of one token, ``use_cache=True``, no cache
    handed in (RecurrentGemma's handed a new one, as ``generate`` does), under ``FlopCounterMode``."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import DynamicCache

    ids = torch.randint(0, model.config.vocab_size, (batch, 1), generator=torch.Generator().manual_seed(2))
    handed = model.config.model_type == "recurrent_gemma"
    kwargs = {"past_key_values": DynamicCache(config=model.config)} if handed else {}
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(ids, use_cache=True, **kwargs)
    flops = sum(v for k, v in counter.get_flop_counts()["Global"].items() if str(k) in MATMUL_OPS)
    assert flops % batch == 0
    return flops // batch


def closed_flops(numeric: Any) -> Any:
    """``flops_per_token``'s closed form (in T, N and the config's letters) at the cost's own T, N and letters."""
    import sympy

    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values[sympy.Symbol("T", integer=True, positive=True)] = numeric.seq_len
    values[sympy.Symbol("N", integer=True, positive=True)] = numeric.batch
    return sympy.sympify(forms["flops_per_token"]).subs(values)


def check_first_token(model_type: str, config: dict, dtype: str = "float32") -> None:
    """A sequence's first token (no state yet), two sequences: derive's ``flops_per_token`` and its closed form
    at T = 1 both equal ``FlopCounterMode``'s count on transformers' tiny model of ``config``."""
    import derive
    from derive.analysis.cost import cost

    numeric = cost(derive.explain({"model_type": model_type, **config}), 1, 2, dtype)
    measured = first(tiny(model_type, config, dtype), 2)
    assert numeric.flops_per_token == measured
    assert closed_flops(numeric) == measured  # the closed form at T = 1, the chunk a number in it
