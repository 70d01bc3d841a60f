"""Tiny transformers models run on CPU: the bytes their cache holds and a decode step's FLOPs, and derive's
cost held against them (:func:`check_cache`, :func:`check_decode`, :func:`check_first_token`: the checks the
families' tests run; :func:`check_refused`, a refusal held against transformers failing too; not a test module).

Every expected figure is read off the real thing: ``AutoModelForCausalLM.from_config`` with random
weights, a forward of T tokens with ``use_cache=True``, and every tensor reachable from the
returned ``past_key_values`` (its layers' attributes, lists and dicts walked, each tensor once) and every
state a module keeps on itself (RecurrentGemma's), its ``numel() * element_size()`` summed; then one more
token under ``FlopCounterMode``.
"""

from __future__ import annotations

import warnings
from typing import Any

import cache_live

#: The runs a family's cache is checked at (:func:`check_cache`): (dtype, batch, prefill, steps), float32 and
#: bfloat16, a prefill longer than the steps and one shorter.
CACHE_RUNS = [("float32", 2, 7, 1), ("bfloat16", 3, 2, 2)]

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
    # an empty tensor transformers builds (Qwen2-MoE's shared expert of width 0): initializing it is a no-op
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Initializing zero-element tensors is a no-op", UserWarning)
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

    ids = torch.randint(
        0, model.config.get_text_config().vocab_size, (batch, tokens), generator=torch.Generator().manual_seed(1)
    )
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

    ids = torch.randint(
        0, model.config.get_text_config().vocab_size, (batch, 1), generator=torch.Generator().manual_seed(2)
    )
    handed = model.config.model_type == "recurrent_gemma"
    kwargs = {"past_key_values": DynamicCache(config=model.config)} if handed else {}
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(ids, use_cache=True, **kwargs)
    flops = sum(v for k, v in counter.get_flop_counts()["Global"].items() if str(k) in MATMUL_OPS)
    assert flops % batch == 0
    return flops // batch


def closed_form(numeric: Any, name: str = "flops_per_token") -> Any:
    """The closed form of ``name`` (``flops_per_token``, ``cache_bytes``: in T, N and the config's letters) at
    the cost's own T, N and letters."""
    import sympy

    forms, letters = numeric.closed_forms()
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in letters.items()}
    values[sympy.Symbol("T", integer=True, positive=True)] = numeric.seq_len
    values[sympy.Symbol("N", integer=True, positive=True)] = numeric.batch
    return sympy.sympify(forms[name]).subs(values)


def check_first_token(model_type: str, config: dict, dtype: str = "float32") -> None:
    """A sequence's first token (no state yet), two sequences: derive's ``flops_per_token`` and its closed form
    at T = 1 both equal ``FlopCounterMode``'s count on transformers' tiny model of ``config``."""
    import derive
    from derive.analysis.cost import cost

    numeric = cost(derive.explain({"model_type": model_type, **config}), 1, 2, dtype)
    measured = first(tiny(model_type, config, dtype), 2)
    assert numeric.flops_per_token == measured
    assert closed_form(numeric) == measured  # the closed form at T = 1, the chunk a number in it


def check_cache(
    model_type: str, config: dict, dtype: str, batch: int, prefill: int, steps: int, *, split: bool = True
) -> None:
    """The bytes transformers' tiny model of ``config`` holds after a prefill and ``steps`` one-token steps
    (``cache_live.cache_bytes``), by dtype against derive's States; in all against the cost's ``cache_bytes``
    (from the module and from the config); with ``split``, the bytes one step more adds against
    ``kv_bytes_per_token`` and the rest against ``state_bytes`` (not where a sliding window has stopped growing)."""
    from derive.analysis.cost import cost, model_cost
    from derive.blocks import config_model

    module = config_model(model_type).build(config)
    built = cache_live.model(model_type, config, dtype)
    tokens = prefill + steps
    measured = cache_live.cache_bytes(built, batch, prefill, steps)
    assert cache_live.derived_bytes(module, batch, tokens, dtype) == measured
    held = sum(measured.values())
    priced = model_cost(module, tokens, batch, dtype)
    assert priced.cache_bytes == cost({"model_type": model_type, **config}, tokens, batch, dtype).cache_bytes == held
    if not split:
        return
    longer = sum(cache_live.cache_bytes(built, batch, prefill, steps + 1).values())
    assert priced.kv_bytes_per_token * batch == longer - held
    assert priced.state_bytes == held - priced.kv_bytes_per_token * batch * tokens


def check_decode(model_type: str, config: dict, runs: tuple[tuple[int, int], ...] = ((1, 1), (2, 5))) -> None:
    """For each (batch, tokens) of ``runs``: the cache transformers' tiny eager model of ``config`` holds after
    ``tokens`` tokens against derive's ``cache_bytes``, and the next token's matmul FLOPs (``FlopCounterMode``)
    against derive's ``flops_per_token`` at ``tokens + 1``."""
    from derive.analysis.cost import cost

    model = tiny(model_type, config)
    for batch, tokens in runs:
        held, flops = run(model, batch, tokens)
        assert cost({"model_type": model_type, **config}, tokens, batch, "float32").cache_bytes == held
        assert cost({"model_type": model_type, **config}, tokens + 1, batch, "float32").flops_per_token == flops


def check_closed_cache(model_type: str, config: dict, tokens: int = 4096, batch: int = 2) -> None:
    """The closed form of ``cache_bytes`` (bfloat16), at the config's values, gives back the number derive derives."""
    import derive
    from derive.analysis.cost import cost

    numeric = cost(derive.explain({"model_type": model_type, **config}), tokens, batch, "bfloat16")
    assert closed_form(numeric, "cache_bytes") == numeric.cache_bytes


def check_refused(model_type: str, config: dict, *names: str) -> str:
    """derive refuses ``{"model_type": model_type, **config}`` (``derive.explain``, as a user hands it over) with a
    ``ValueError`` whose message holds each of ``names`` (the key, and the value where given), and transformers fails
    on it too: it refuses to build the config, or the model it builds fails its first forward (eager, 5 tokens) or
    gives non-finite logits.

    Returns
    -------
    str
        derive's message.
    """
    import copy

    import pytest
    import torch

    import derive

    with pytest.raises(ValueError) as refused:
        derive.explain({"model_type": model_type, **copy.deepcopy(config)})
    message = str(refused.value)
    for name in names:
        assert name in message, (name, message)
    try:
        model = tiny(model_type, copy.deepcopy(config))
    except Exception:  # transformers refuses it (its config class, or the model's constructor)
        return message
    vocab = model.config.get_text_config().vocab_size
    try:
        with torch.no_grad():
            logits = model(torch.arange(5)[None] % vocab, use_cache=True).logits
    except Exception:  # the first forward fails
        return message
    assert not torch.isfinite(logits).all(), f"transformers builds and runs the config derive refuses: {message}"
    return message
