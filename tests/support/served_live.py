"""transformers' cache after a forward, its tensors sorted by what they hold and priced in a served format (not a
test module; nothing here reads derive).

A tiny model (``cache_live.model``) runs a prefill with ``use_cache=True``; every tensor reachable from the
returned cache is listed with the attribute that holds it: ``keys`` and ``values`` (transformers'
``DynamicLayer``, ``DynamicSlidingWindowLayer``: what grows with the tokens), an integer tensor (a counter:
``_sliding_window_tensor``), anything else a state (``conv_states``, ``recurrent_states``, Mamba's
``ssm_states``). :func:`priced` gives their bytes as the element counts times a format's size: the tensor's own
(``element_size()``), a torch dtype's, or a ggml block format's ``numel / 32 x block bytes`` — the block sizes
from gguf-py's ``GGML_QUANT_SIZES`` where gguf is installed, else ggml-common.h's structs as written here.
"""

from __future__ import annotations

from typing import Any

import cache_live

#: ggml's block formats: (values, bytes) per block, ``ggml/src/ggml-common.h``: block_q8_0 {ggml_half d; int8_t
#: qs[32]}, block_q4_0 {d; qs[16]}, block_q4_1 {d, m; qs[16]}, block_q5_0 {d; qh[4]; qs[16]}, block_q5_1 {d, m;
#: qh[4]; qs[16]}, block_iq4_nl {d; qs[16]}.
GGML_BLOCKS = {"q8_0": (32, 2 + 32), "q4_0": (32, 2 + 16), "q4_1": (32, 2 + 2 + 16), "q5_0": (32, 2 + 4 + 16),
               "q5_1": (32, 2 + 2 + 4 + 16), "iq4_nl": (32, 2 + 16)}  # fmt: skip


def ggml_blocks() -> dict[str, tuple[int, int]]:
    """The block sizes from gguf-py (``gguf.constants.GGML_QUANT_SIZES``) when installed, else :data:`GGML_BLOCKS`."""
    try:
        from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType
    except ImportError:
        return dict(GGML_BLOCKS)
    return {name: tuple(GGML_QUANT_SIZES[getattr(GGMLQuantizationType, name.upper())]) for name in GGML_BLOCKS}


def tensors(cache: Any) -> list[tuple[str, Any]]:
    """(the attribute holding it, tensor) for every tensor of ``cache``, each once."""
    import torch

    seen: set[int] = set()
    found: list[tuple[str, Any]] = []

    def walk(obj: Any, where: str, depth: int = 0) -> None:
        if depth > 8 or id(obj) in seen:
            return
        if isinstance(obj, torch.Tensor):
            seen.add(id(obj))
            found.append((where, obj))
            return
        seen.add(id(obj))
        if isinstance(obj, dict):
            for key, value in obj.items():
                walk(value, where, depth + 1)
        elif isinstance(obj, (list, tuple)):
            for value in obj:
                walk(value, where, depth + 1)
        elif type(obj).__module__.startswith("transformers") and hasattr(obj, "__dict__"):
            if isinstance(obj, torch.nn.Module):
                return
            for key, value in vars(obj).items():
                walk(value, key, depth + 1)

    walk(cache, "")
    return found


def kind(where: str, tensor: Any) -> str:
    """``"kv"``, ``"counter"`` or ``"state"``."""
    if not tensor.is_floating_point():
        return "counter"
    return "kv" if where in ("keys", "values") else "state"


def forward(built: Any, batch: int, tokens: int) -> list[tuple[str, Any]]:
    """The cache's tensors after a prefill of ``tokens`` tokens of ``batch`` sequences."""
    return tensors(cache_live.run(built, batch, tokens))


def priced(found: list[tuple[str, Any]], which: str, fmt: str | None) -> int:
    """Bytes of the tensors of kind ``which`` (counters with the states) in ``fmt`` (None: their own dtype)."""
    import torch

    blocks = ggml_blocks()
    total = 0
    for where, tensor in found:
        k = kind(where, tensor)
        if (which == "kv") != (k == "kv"):
            continue
        if fmt is None or k == "counter":
            total += tensor.numel() * tensor.element_size()
        elif fmt in blocks:
            values, size = blocks[fmt]
            assert tensor.shape[-1] % values == 0, (where, tuple(tensor.shape))
            total += tensor.numel() // values * size
        else:
            total += tensor.numel() * torch.empty(0, dtype=getattr(torch, fmt)).element_size()
    return total


def weights(built: Any) -> int:
    """Bytes of the model's parameters, each tensor once (a tied head counted once)."""
    seen: set[int] = set()
    total = 0
    for p in built.parameters():
        if id(p) not in seen:
            seen.add(id(p))
            total += p.numel() * p.element_size()
    return total
