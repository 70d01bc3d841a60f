"""transformers models built from configs on the meta device, for the tests (not a test module).

Every expected name, shape, buffer and total comes from the model
``AutoModelForCausalLM.from_config(AutoConfig.for_model(model_type, **config))`` builds under
``torch.device("meta")`` (no weights, no hub), never from derive.
"""

from __future__ import annotations

import re
import warnings
from typing import Any


def build(model_type: str, config: dict[str, Any]) -> Any:
    """The model transformers builds from the config (raises what transformers raises)."""
    import torch
    import transformers

    cfg = transformers.AutoConfig.for_model(model_type, **config)
    # A drawn size may round to 0 (xLSTM's int(2 * 0.25)): torch builds the empty tensor and warns
    # that initializing it is a no-op; the count of such a model is still exact.
    with torch.device("meta"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Initializing zero-element tensors is a no-op", UserWarning)
        return transformers.AutoModelForCausalLM.from_config(cfg)


def tensors(model: Any) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()``: each shared tensor once, in the model's order."""
    return [(name, tuple(p.shape)) for name, p in model.named_parameters()]


def buffers(model: Any) -> list[tuple[str, tuple[int, ...]]]:
    """``named_buffers()``."""
    return [(name, tuple(b.shape)) for name, b in model.named_buffers()]


def total(model: Any) -> int:
    """``sum(p.numel() for p in model.parameters())``."""
    return sum(p.numel() for p in model.parameters())


def active(model: Any) -> int:
    """Parameters a token uses, read off the built model: every parameter, but each fused ``experts``
    tensor (its first axis the experts) at ``num_experts_per_tok`` of them."""
    k = getattr(model.config, "num_experts_per_tok", None)
    out = 0
    for name, p in model.named_parameters():
        out += p.numel() // p.shape[0] * k if ".experts." in name and k else p.numel()
    return out


def under(model: Any, path: str) -> int:
    """Parameters whose names lie under ``path`` (``{k}`` matches any layer index)."""
    pattern = re.compile(re.escape(path).replace(r"\{k\}", r"\d+") + r"\.")
    return sum(p.numel() for name, p in model.named_parameters() if pattern.match(name))


def record(framework: str, cls: str) -> None:
    """Count one live case in the verification record under ``framework`` (a framework or a block library's key)."""
    import live_record

    live_record.checked(framework, cls)
