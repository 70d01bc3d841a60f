"""What transformers' inference cache holds, measured by running a tiny model on the CPU (not a test module).

A model built with ``AutoModelForCausalLM.from_config`` (random weights, cast to the dtype asked)
runs a prefill of ``prefill`` tokens at batch ``batch`` with ``use_cache=True``, then ``steps``
decoding steps of one token each, handing the cache back as ``generate`` does. Every tensor the
cache object holds (``past_key_values``, Mamba's ``cache_params``, RWKV's ``state``: walked
through its attributes, dicts and lists, each tensor once) and every tensor a module keeps as a
plain attribute after the run (RecurrentGemma's ``conv1d_state`` and ``recurrent_states``: not
parameters, not buffers) is summed, by dtype. Nothing here reads derive.
"""

from __future__ import annotations

import inspect
import warnings
from collections import Counter
from typing import Any

#: A dtype's name as derive's State names it.
_NAMES = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16", "int64": "int64", "float64": "float64"}


def _walk(obj: Any, seen: set[int], found: list[Any], depth: int = 0) -> None:
    import torch

    if depth > 8 or id(obj) in seen:
        return
    if isinstance(obj, torch.Tensor):
        seen.add(id(obj))
        found.append(obj)
        return
    if isinstance(obj, dict):
        seen.add(id(obj))
        for value in obj.values():
            _walk(value, seen, found, depth + 1)
    elif isinstance(obj, (list, tuple)):
        seen.add(id(obj))
        for value in obj:
            _walk(value, seen, found, depth + 1)
    elif type(obj).__module__.startswith("transformers") and hasattr(obj, "__dict__"):
        if isinstance(obj, torch.nn.Module):
            return
        seen.add(id(obj))
        for value in vars(obj).values():
            _walk(value, seen, found, depth + 1)


def module_states(model: Any) -> dict[tuple[str, str], Any]:
    import torch

    held = {}
    for path, module in model.named_modules():
        own = set(module._parameters) | set(module._buffers)
        for key, value in vars(module).items():
            if key not in own and isinstance(value, torch.Tensor):
                held[(path, key)] = value
    return held


def model(model_type: str, config: dict[str, Any], dtype: str = "float32", seed: int = 0) -> Any:
    """A tiny model of ``model_type`` on the CPU, random weights, in ``dtype``, in eval mode."""
    import torch
    import transformers

    torch.manual_seed(seed)
    cfg = transformers.AutoConfig.for_model(model_type, **config)
    # an empty tensor transformers builds (Qwen2-MoE's shared expert of width 0): initializing it is a no-op
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Initializing zero-element tensors is a no-op", UserWarning)
        built = transformers.AutoModelForCausalLM.from_config(cfg)
    return built.to(getattr(torch, dtype)).eval()


def cache_bytes(built: Any, batch: int, prefill: int, steps: int = 0, seed: int = 0) -> dict[str, int]:
    """Bytes the cache holds after a prefill of ``prefill`` tokens and ``steps`` one-token steps, by dtype.

    Returns
    -------
    dict of str -> int
        ``{"bfloat16": ..., "float32": ..., "int64": ...}``: every tensor of the cache object and
        every state tensor a module holds (``numel() * element_size()``), each once.
    """
    return cache_bytes_each(built, batch, prefill, steps, seed)[-1]


def cache_bytes_each(built: Any, batch: int, prefill: int, steps: int = 0, seed: int = 0) -> list[dict[str, int]]:
    """:func:`cache_bytes` after the prefill and after each step, from one run (the prefill done once)."""
    import torch
    from transformers import DynamicCache

    torch.manual_seed(seed)
    vocab = built.config.get_text_config().vocab_size
    ids = torch.randint(0, vocab, (batch, prefill + steps))
    before = module_states(built)  # references held: a freed tensor's id may be reused
    key = cache_key(built)
    held = []
    with torch.no_grad():
        out = built(input_ids=ids[:, :prefill], use_cache=True)
        cache = getattr(out, key, None)
        if cache is None:  # the model keeps its cache only when handed one (RecurrentGemma, as generate does)
            cache = DynamicCache(config=built.config)
            out = built(input_ids=ids[:, :prefill], use_cache=True, **{key: cache})
        held.append(_held(built, cache, before))
        for t in range(prefill, prefill + steps):
            out = built(input_ids=ids[:, t : t + 1], use_cache=True, **{key: cache})
            cache = getattr(out, key, None) if getattr(out, key, None) is not None else cache
            held.append(_held(built, cache, before))
    return held


def _held(built: Any, cache: Any, before: dict[tuple[str, str], Any]) -> dict[str, int]:
    """Bytes of every tensor of ``cache`` and every state a module of ``built`` holds beyond ``before``, by dtype."""
    found: list[Any] = []
    _walk(cache, set(), found)
    found += [v for path, v in module_states(built).items() if v is not before.get(path)]
    totals: Counter[str] = Counter()
    seen: set[int] = set()
    for tensor in found:
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        totals[_NAMES[str(tensor.dtype).removeprefix("torch.")]] += tensor.numel() * tensor.element_size()
    return dict(totals)


def cache_key(model: Any) -> str:
    """The keyword ``model.forward`` takes its cache by: ``past_key_values``, Mamba's ``cache_params``, RWKV's ``state``."""
    params = inspect.signature(model.forward).parameters
    return next(k for k in ("past_key_values", "cache_params", "state") if k in params)


#: Bytes per entry of each dtype derive names.
SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "int64": 8, "float64": 8}


def derived_bytes(module: Any, batch: int, tokens: int, dtype: str) -> dict[str, int]:
    """derive's :func:`derive.tree.cache_elements` in bytes by dtype (None read as ``dtype``), zeros dropped."""
    from derive.tree import cache_elements

    totals: Counter[str] = Counter()
    for kind, entries in cache_elements(module, batch, tokens).items():
        name = dtype if kind is None else kind
        totals[name] += entries * SIZES[name]
    return {k: v for k, v in totals.items() if v}


def run(built: Any, batch: int, prefill: int, steps: int = 0, seed: int = 0) -> Any:
    """The cache object after a prefill and ``steps`` one-token steps (as :func:`cache_bytes` runs them)."""
    import torch

    torch.manual_seed(seed)
    ids = torch.randint(0, built.config.get_text_config().vocab_size, (batch, prefill + steps))
    with torch.no_grad():
        out = built(input_ids=ids[:, :prefill], use_cache=True)
        cache = out.past_key_values
        for t in range(prefill, prefill + steps):
            built(input_ids=ids[:, t : t + 1], use_cache=True, past_key_values=cache)
    return cache


def layer_bytes(cache: Any, layer: int) -> dict[str, int]:
    """Bytes by dtype of what ``cache`` keeps for decoder layer ``layer``: its cache layer's tensors
    (``layers[layer]``), and MiniMax's ``linear_cache[layer]``."""
    found: list[Any] = []
    if layer < len(cache.layers):  # MiniMax's cache adds its layers lazily
        _walk(cache.layers[layer], set(), found)
    extra = getattr(cache, "linear_cache", None)
    if extra is not None and layer < len(extra):
        _walk(extra[layer], set(), found)
    totals: Counter[str] = Counter()
    for tensor in found:
        totals[_NAMES[str(tensor.dtype).removeprefix("torch.")]] += tensor.numel() * tensor.element_size()
    return dict(totals)
