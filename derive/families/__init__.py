"""Whole language models from their ``config.json``: one module per transformers family, composing
the primitives of :mod:`derive.layers` (decoder self-attention, MLPs, mixture of experts) and the
recurrent mixers of :mod:`derive.blocks`.

Each family module reads its layer pattern from the config's own keys, as data (Jamba's
``attn_layer_period``/``attn_layer_offset`` and ``expert_layer_period``/``expert_layer_offset``,
``layer_types`` of Gemma 2/3 and Qwen2), maps or refuses every key by name
(:func:`derive.blocks._hf.resolve`), and registers its ``model_type`` with
:func:`derive.blocks.register_config` — so ``derive config.json``, :func:`derive.explain` of a path,
a dict or a live ``PretrainedConfig``, and code building ``LlamaForCausalLM(LlamaConfig(...))``
all reach it. The tree each builds carries the inference cache (:class:`derive.tree.State` on the
attention and mixer modules, as transformers' ``DynamicCache`` holds it) and the routed experts
(:attr:`derive.tree.Module.routed`), from which :func:`derive.cost.cost` derives what a sequence
costs and :func:`derive.tree.active` the parameters a token uses.

This package is a floor between :mod:`derive.blocks` and :mod:`derive.frameworks`. Its modules are
found at import (no list to edit).
"""

from __future__ import annotations

import importlib
import pkgutil

__all__: list[str] = []


def _discover() -> None:
    """Import every module of this package, so that each registers its model types."""
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


_discover()
