"""transformers models built from configs on the meta device, and derive's report held against them
(:func:`check_family`, the check every family's tests run), for the tests (not a test module).

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


def top_k(model: Any, name: str) -> int | None:
    """``num_experts_per_tok`` for the parameter ``name``: the config's int, or the entry of its layer where the
    config gives one per layer (HunYuan's ``moe_topk`` list, which its routers read at their layer's index)."""
    k = getattr(model.config, "num_experts_per_tok", None)
    if k is None:  # Gemma 4's name for it
        k = getattr(model.config, "top_k_experts", None)
    if isinstance(k, (list, tuple)):
        found = re.search(r"\.layers\.(\d+)\.", name)
        return k[int(found.group(1))] if found else None
    return k


def active(model: Any) -> int:
    """Parameters a token uses, read off the built model: every parameter, but each fused ``experts``
    tensor (its first axis the experts) at ``num_experts_per_tok`` of them (none at 0)."""
    out = 0
    for name, p in model.named_parameters():
        k = top_k(model, name)
        out += p.numel() // p.shape[0] * k if ".experts." in name and k is not None else p.numel()
    return out


#: transformers' classes of recurrent mixers (a fixed-size state: Mamba, Mamba-2, Gated DeltaNet,
#: Kimi's delta attention, MiniMax's lightning attention, LFM2's short convolution, RG-LRU's block,
#: the mLSTM layer, RWKV's time mixing), matched on the class name before "attention".
RECURRENT = re.compile(
    r"(Mixer|MambaLayer|GatedDeltaNet|DeltaAttention|LightningAttention|ShortConv|RecurrentBlock|mLSTMLayer|RwkvSelfAttention)$"
)


def _part(module: Any, attr: str, parent: Any) -> str | None:
    """The part a module of a transformers model is, from its class and its attribute name (None: a
    container, its children say). Written from the classes transformers builds, not from derive."""
    import torch

    cls, owner = type(module).__name__, type(parent).__name__
    # a multimodal model's vision tower and its projector into the text width (Gemma 3's)
    if attr in ("vision_tower", "multi_modal_projector"):
        return "vision"
    # Gemma 3n's AltUp (its residual streams, mixed), LAuReL blocks and the projections of its per-layer inputs
    if cls.endswith("AltUp") or attr in ("altup_projections", "altup_unembed_projections"):
        return "hyper-connections"
    if cls.endswith("LaurelBlock"):
        return "learned residuals"
    if attr in ("per_layer_model_projection", "per_layer_input_gate", "per_layer_projection"):
        return "per-layer inputs"
    if isinstance(module, torch.nn.Embedding):
        return "embeddings"
    if attr == "lm_head" or (attr == "head" and owner.endswith("ForCausalLM")):
        return "head"
    if cls.endswith("Experts"):
        return "routed experts"
    # Nemotron-H's LatentMoE: the routed experts' projections into and out of the latent width (NemotronHMoE)
    if attr in ("fc1_latent_proj", "fc2_latent_proj"):
        return "routed experts"
    if cls.endswith(("Router", "TopkRouter")) or (attr == "gate" and owner.endswith(("MoeBlock", "MoE", "Moe"))):
        return "routers"
    # GraniteMoeHybrid's shared_mlp sits beside block_sparse_moe; HunYuan's inside the MoE, beside its experts
    shared_mlp = getattr(parent, "block_sparse_moe", None) or getattr(parent, "experts", None)
    if attr.startswith("shared_expert") or (attr == "shared_mlp" and shared_mlp is not None):
        return "shared experts"
    # Qwen4-Exp's and DeepSeek-V4's hyper-connections: the residual streams' mixing
    if cls.endswith(("GatedResidual", "HyperConnection", "HyperHead")):
        return "hyper-connections"
    if RECURRENT.search(cls):
        return "recurrent mixers"
    # Zamba2's hybrid layer projects its shared block's output (derive counts it with attention)
    if cls.endswith("Attention") or (attr == "linear" and owner.endswith("HybridLayer")):
        return "attention"
    # a block holding routed experts is no part of its own, its children say (gpt-oss's GptOssMLP: router, experts)
    if cls.endswith(("MLP", "Mlp", "FeedForward")) and not hasattr(module, "experts"):
        return "MLP"
    if "Norm" in cls:
        return "norms"
    return None


def parts(model: Any) -> tuple[dict[str, int], dict[str, int]]:
    """Parameters by part, total and per token, read off the model's modules: each parameter in the
    part of its outermost module that is one (:func:`_part`), "other" if none is; per token, a fused
    ``experts`` tensor at ``num_experts_per_tok`` of its experts (as :func:`active`); a part of empty
    tensors only is left out."""
    k = getattr(model.config, "num_experts_per_tok", None)
    whole: dict[str, int] = {}
    used: dict[str, int] = {}
    for name, p in model.named_parameters():
        part, parent, path, experts = "other", model, name.split(".")[:-1], False
        for attr in path:
            module = getattr(parent, attr) if not attr.isdigit() else parent[int(attr)]
            found = _part(module, attr, parent)
            if found:
                part, experts = found, type(module).__name__.endswith("Experts")
                break
            parent = module
        whole[part] = whole.get(part, 0) + p.numel()
        k = top_k(model, name)
        # a fused experts tensor at k of its experts; a latent projection beside them is every token's
        routed = part == "routed experts" and k is not None and experts
        used[part] = used.get(part, 0) + (p.numel() // p.shape[0] * k if routed else p.numel())
    # a part whose tensors are all empty holds nothing (DeepSeek's shared experts of width 0 when there are none)
    empty = {part for part, n in whole.items() if n == 0}
    return {p: n for p, n in whole.items() if p not in empty}, {p: n for p, n in used.items() if p not in empty}


def under(model: Any, path: str) -> int:
    """Parameters whose names lie under ``path`` (``{k}`` matches any layer index)."""
    pattern = re.compile(re.escape(path).replace(r"\{k\}", r"\d+") + r"\.")
    return sum(p.numel() for name, p in model.named_parameters() if pattern.match(name))


def record(framework: str, cls: str) -> None:
    """Count one live case in the verification record under ``framework`` (a framework or a block library's key)."""
    import live_record

    live_record.checked(framework, cls)


def check_family(model_type: str, config: dict[str, Any], *, builds: bool = False) -> Any:
    """derive's report of ``{"model_type": model_type, **config}`` against the model transformers builds on the
    meta device: every tensor's name and shape, every buffer, the total, the active count (:func:`active`), the
    class; the case counted in the record under the class. Where transformers refuses the config, derive must
    refuse it too (a ``ValueError``), unless ``builds``: then transformers' refusal fails the check.

    Returns
    -------
    The model built (None where both refuse), for a family's own further checks.
    """
    import pytest

    import derive
    from derive.tree import active as derived_active
    from derive.tree import named_buffers

    try:
        model = build(model_type, config)
    except Exception:  # transformers refuses it: derive must refuse it too
        if builds:
            raise
        with pytest.raises(ValueError):
            derive.explain({"model_type": model_type, **config})
        return None
    report = derive.explain({"model_type": model_type, **config})
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == buffers(model)
    assert report.total == total(model)
    assert derived_active(report.module) == active(model)
    assert report.module.type == type(model).__name__
    record("transformers", type(model).__name__)
    return model


def check_saved_config(model_type: str, config: dict[str, Any]) -> None:
    """The config.json transformers saves of ``config`` (every key ``to_json_string`` writes, the derived ones
    too) read back by derive: its total is transformers' count of ``config``'s model."""
    import json

    import transformers

    import derive

    saved = json.loads(transformers.AutoConfig.for_model(model_type, **config).to_json_string())
    assert derive.explain(saved).total == total(build(model_type, config))
