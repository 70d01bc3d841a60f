"""Whole language models from their ``config.json``: one module per transformers family, composing
the primitives of :mod:`derive.layers` (decoder self-attention, MLPs, mixture of experts) and the
recurrent mixers of :mod:`derive.blocks`.

Each family module reads its layer pattern from the config's own keys, as data (Jamba's
``attn_layer_period``/``attn_layer_offset`` and ``expert_layer_period``/``expert_layer_offset``,
``layer_types`` of Gemma 2/3 and Qwen2), maps or refuses every key by name
(:func:`derive.blocks.hf_config.resolve`), and registers its ``model_type`` with
:func:`derive.blocks.register_config` — so ``derive config.json``, :func:`derive.explain` of a path,
a dict or a live ``PretrainedConfig``, and code building ``LlamaForCausalLM(LlamaConfig(...))``
all reach it. The tree each builds carries the inference cache (:class:`derive.tree.State` on the
attention and mixer modules, as transformers' ``DynamicCache`` holds it) and the routed experts
(:attr:`derive.tree.Module.routed`), from which :func:`derive.analysis.cost.cost` derives what a sequence
costs and :func:`derive.tree.active` the parameters a token uses.

This package is a floor between :mod:`derive.blocks` and :mod:`derive.frameworks`. A family's module
is imported when its model type is first asked for (:mod:`derive.engine.lazy`).
"""

from __future__ import annotations

__all__: list[str] = []
