"""Qwen2-MoE (``model_type`` ``qwen2_moe``): Qwen2's attention with a sparse mixture of experts and a
shared expert behind a sigmoid gate (Qwen1.5-MoE).

``Qwen2MoeForCausalLM`` (``models/qwen2_moe/modeling_qwen2_moe.py`` 209-227 ``Qwen2MoeAttention``:
q/k/v biased when ``qkv_bias``, ``o_proj`` never, no QK-norms, ``head_dim`` read with ``getattr``
(the class defines none), 122-131 ``Qwen2MoeMLP``, 271-281 ``Qwen2MoeExperts`` (``gate_up_proj`` (E,
2F, D), ``down_proj`` (E, D, F), F = ``moe_intermediate_size``), 310-317 ``Qwen2MoeTopKRouter``,
331-337 ``Qwen2MoeSparseMoeBlock``: ``gate``, ``experts``, ``shared_expert`` (a gated MLP of
``shared_expert_intermediate_size``, built even at 0) and ``shared_expert_gate`` Linear(D, 1) without
bias, whose sigmoid scales the shared expert's output; 353-362 ``Qwen2MoeDecoderLayer``: the sparse
block where i is not in ``mlp_only_layers``, ``num_experts`` > 0 and (i + 1) is a multiple of
``decoder_sparse_step``, else a gated MLP of ``intermediate_size``; 430-441, 467, 485-490
``Qwen2MoeModel``, 584-600).

``Qwen2MoeConfig`` (``configuration_qwen2_moe.py`` 79-122): ``sliding_window`` becomes 0 without
``use_sliding_window``; ``layer_types``' default makes layer i sliding when i is even, below
``max_window_layers`` and ``use_sliding_window`` (``bool((i + 1) % 2)``: not Qwen2's rule), its
cache a ``DynamicSlidingWindowLayer`` keeping ``sliding_window - 1`` tokens; a null
``num_key_value_heads`` is not defaulted (the attention fails).

>>> from derive.tree import count, active
>>> model = qwen2_moe({})   # Qwen2MoeConfig(): Qwen1.5-MoE-A2.7B's shape
>>> count(model), active(model)
(14315784192, 2689173504)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..tree import Dim, Module
from .decoder import check_rope, head_dim
from .family import Keys, register_family
from .qwen2 import check_head_dim, sliding_kinds, sliding_window, window_layers, window_shape, windows
from .qwen3 import qwen_decoder
from .qwen3_moe import MOE_INERT, check_top_k, kv_heads_given, sparse_layers

__all__ = ["QWEN2_MOE_DEFAULTS", "KEYS", "qwen2_moe"]

#: ``Qwen2MoeConfig``'s shape keys and defaults (configuration_qwen2_moe.py 79-106); ``head_dim``, which
#: the class does not define but its attention reads.
QWEN2_MOE_DEFAULTS: dict[str, Any] = {
    "vocab_size": 151936,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "head_dim": None,
    "tie_word_embeddings": False,
    "use_sliding_window": False,
    "sliding_window": 4096,
    "max_window_layers": 28,
    "decoder_sparse_step": 1,
    "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632,
    "num_experts_per_tok": 4,
    "num_experts": 60,
    "mlp_only_layers": None,
    "qkv_bias": True,
    "layer_types": None,
}
#: ``Qwen2MoeConfig``'s every key (configuration_qwen2_moe.py 79-109).
KEYS = Keys("Qwen2MoeConfig", QWEN2_MOE_DEFAULTS, MOE_INERT)
_SOURCE = (
    "transformers/models/qwen2_moe/configuration_qwen2_moe.py 79-122, modeling_qwen2_moe.py 122-131, 209-227, "
    "271-337, 353-362, 430-441, 467, 485-490, 584-600; cache_utils.py 196-256, 1910-1957"
)


def qwen2_moe(config: Mapping[str, Any]) -> Module:
    """``Qwen2MoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen2MoeConfig``'s defaults; sizes may be SymPy symbols (the number of layers
        where every layer is alike).

    Returns
    -------
    derive.tree.Module
        Each sparse layer's ``mlp.experts`` carries ``routed`` = (num_experts_per_tok, num_experts).

    Raises
    ------
    ValueError
        A layer pattern transformers would not build or run (:func:`derive.families.qwen3_moe.sparse_layers`,
        :func:`~derive.families.qwen3_moe.check_top_k`), a sliding layer without a window of at least 1,
        a null ``head_dim`` or ``num_key_value_heads``, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    check_head_dim(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads_given(c, H, "Qwen2MoeConfig"), head_dim(c, D, H)
    E, k = hf_config.size(c, "num_experts", 0), hf_config.size(c, "num_experts_per_tok", 0)
    Fe = hf_config.size(c, "moe_intermediate_size", 0)
    Fs = hf_config.size(c, "shared_expert_intermediate_size", 0)
    bias = hf_config.flag(c, "qkv_bias")
    sparse, pattern = sparse_layers(c, L, E)
    check_top_k(E, k, sparse)

    use = hf_config.flag(c, "use_sliding_window")
    window = sliding_window(c, 0)
    last = window_layers(c, pattern=use and c["layer_types"] is None)
    kinds = sliding_kinds(c, L, window, (lambda i: bool((i + 1) % 2) and i < last) if use else None)
    layer_windows = windows(kinds, window)
    window_keys = window_shape(kinds, layer_windows)

    def moe(hidden: Dim) -> Module:
        return moe_block(
            router(hidden, E, name="gate", type="Qwen2MoeTopKRouter"),
            routed_experts(hidden, Fe, E, k, type="Qwen2MoeExperts"),
            gated_mlp(hidden, Fs, name="shared_expert", type="Qwen2MoeMLP"),
            linear(hidden, 1, False, name="shared_expert_gate").replace(part="shared experts"),
            type="Qwen2MoeSparseMoeBlock",
        )

    shape: dict[str, Any] = {"qkv_bias": bias, "num_experts": E, "num_experts_per_tok": k}
    shape.update({"moe_intermediate_size": Fe, "shared_expert_intermediate_size": Fs, **pattern, **window_keys})
    shape["_fixed"] = tuple(dict.fromkeys((*pattern["_fixed"], *window_keys.get("_fixed", ()))))
    if c.get("head_dim") is not None:
        shape["head_dim"] = d
    return qwen_decoder(
        c, prefix="Qwen2Moe", head_dim=d, qkv_bias=bias, o_bias=False, qk_norm=False, kv=KV,
        layer_windows=layer_windows, sparse=sparse, moe=moe, intermediate_minimum=0, shape=shape,
    )  # fmt: skip


register_family("qwen2_moe", "Qwen2MoeConfig", "Qwen2MoeForCausalLM", qwen2_moe, _SOURCE, keys=KEYS)
