"""Qwen3-MoE (``model_type`` ``qwen3_moe``): Qwen3's attention with a sparse mixture of experts, no shared expert.

``Qwen3MoeForCausalLM`` (``models/qwen3_moe/modeling_qwen3_moe.py`` 121-148 ``Qwen3MoeAttention``:
Qwen3's q/k/v/o with ``attention_bias`` and QK-norms, ``head_dim`` read with ``getattr`` (the class
defines none: ``hidden_size // num_attention_heads`` unless a config.json sets it), 192-203
``Qwen3MoeMLP``, 209-219 ``Qwen3MoeExperts`` (``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F), F =
``moe_intermediate_size``), 248-255 ``Qwen3MoeTopKRouter`` (``weight`` (E, D)), 269-273
``Qwen3MoeSparseMoeBlock`` (``experts`` then ``gate``), 304-313 ``Qwen3MoeDecoderLayer``: layer i's
``mlp`` is the sparse block when i is not in ``mlp_only_layers``, ``num_experts`` > 0 and (i + 1) is
a multiple of ``decoder_sparse_step``, else a gated MLP of ``intermediate_size``; 428-441, 462-478
``Qwen3MoeModel``, 576-590).

``Qwen3MoeConfig`` (``configuration_qwen3_moe.py`` 51-53 ``attribute_map``, 81-113) stores
``num_experts`` as ``num_local_experts`` (the key its saved config.json carries); a config naming
both builds ``num_local_experts`` (set after the field). It has no ``layer_types`` and no
``max_window_layers`` (its releases carry Qwen2's; nothing reads it): with ``use_sliding_window``
every layer's attention masks to ``sliding_window`` and ``DynamicCache`` makes every layer's cache a
``DynamicSlidingWindowLayer`` — unless the config carries a ``layer_types`` list, kept as an
attribute, which ``cache_utils.py`` 1910-1957 reads: ``full_attention`` layers' caches then keep
every token and their attention's matmuls run over them (the window only masks), so derive reads
their window as none. One mask serves every layer (472-478), so layer types that differ fail once a
sequence passes the window: derive refuses them.

>>> from derive.tree import count, active
>>> model = qwen3_moe({"hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 48,
...                    "num_attention_heads": 32, "head_dim": 128, "moe_intermediate_size": 768})  # Qwen3-30B-A3B
>>> count(model), active(model)
(30532122624, 3353032704)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.moe import moe_block, routed_experts, router
from ..tree import Dim, Module
from .decoder import check_rope, head_dim, kv_heads, layer_types
from .family import Keys, register_family
from .qwen2 import INERT, KINDS, check_head_dim, sliding_window, window_shape, windows
from .qwen3 import qwen_decoder

__all__ = ["QWEN3_MOE_DEFAULTS", "KEYS", "MOE_INERT", "qwen3_moe", "sparse_layers", "check_top_k"]

#: ``Qwen3MoeConfig``'s shape keys and defaults (configuration_qwen3_moe.py 81-105); ``head_dim`` and
#: ``layer_types``, which the class does not define but its attention and ``DynamicCache`` read.
QWEN3_MOE_DEFAULTS: dict[str, Any] = {
    "vocab_size": 151936,
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "num_hidden_layers": 24,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "use_sliding_window": False,
    "sliding_window": 4096,
    "layer_types": None,
    "decoder_sparse_step": 1,
    "moe_intermediate_size": 768,
    "num_experts_per_tok": 8,
    "num_experts": 128,
    "mlp_only_layers": None,
}
#: The Qwen MoE configs' routing keys that shape nothing, with why.
MOE_INERT: dict[str, str] = {
    **INERT,
    "norm_topk_prob": "renormalises the top-k routing weights (a division): no tensor, no matmul",
    "output_router_logits": "returns the routers' logits for the auxiliary loss: no tensor",
    "router_aux_loss_coef": "the auxiliary loss's weight, in training: no tensor",
}
#: ``Qwen3MoeConfig``'s every key (configuration_qwen3_moe.py 51-53, 81-108).
KEYS = Keys("Qwen3MoeConfig", QWEN3_MOE_DEFAULTS, MOE_INERT, aliases={"num_local_experts": "num_experts"})
_SOURCE = (
    "transformers/models/qwen3_moe/configuration_qwen3_moe.py 51-53, 81-113, modeling_qwen3_moe.py 121-148, "
    "192-273, 304-313, 428-441, 462-478, 576-590; cache_utils.py 196-256, 1910-1957"
)


def sparse_layers(c: Mapping[str, Any], layers: Dim, experts: Dim) -> tuple[bool | list[bool], dict[str, Any]]:
    """Which layers hold the sparse MoE block: i not in ``mlp_only_layers``, ``num_experts`` > 0 and
    (i + 1) a multiple of ``decoder_sparse_step`` (Qwen2-MoE's and Qwen3-MoE's decoder layer).

    Parameters
    ----------
    c : mapping
        The resolved config.
    layers : int or sympy.Expr
        ``num_hidden_layers`` (a symbol where every layer is alike).
    experts : int or sympy.Expr
        ``num_experts`` (a symbol is a positive count).

    Returns
    -------
    (bool or list of bool, dict)
        Every layer's (one bool where all are alike), and the model's config keys for the pattern
        (``_fixed`` included).

    Raises
    ------
    ValueError
        ``decoder_sparse_step`` 0 (transformers divides by it) or not a number, ``mlp_only_layers`` not a
        list of ints, or a symbolic ``num_hidden_layers`` where the layers differ; naming the key.
    """
    step = c["decoder_sparse_step"]
    if hf_config.symbolic(step) or isinstance(step, bool) or type(step) is not int:
        raise ValueError(f"config key 'decoder_sparse_step' must be a number (it fixes the layer pattern), got {step!r:.60}")  # fmt: skip
    if step == 0:
        raise ValueError("config key 'decoder_sparse_step' is 0: transformers' (layer_idx + 1) % 0 fails")
    only = [] if c["mlp_only_layers"] is None else c["mlp_only_layers"]
    if isinstance(only, str) or not isinstance(only, Sequence) or any(isinstance(i, bool) or type(i) is not int for i in only):  # fmt: skip
        raise ValueError(f"config key 'mlp_only_layers' must be a list of layer indices, got {only!r:.60}")
    shape: dict[str, Any] = {"decoder_sparse_step": step, "mlp_only_layers": list(only)}
    fixed: tuple[str, ...] = ("decoder_sparse_step",)
    if type(experts) is int and experts == 0:
        shape["_fixed"] = (*fixed, "num_experts")
        return False, shape
    if type(layers) is not int:
        if only or step not in (1, -1):
            raise ValueError(
                "config key 'num_hidden_layers' must be a number with mlp_only_layers or a decoder_sparse_step "
                "other than 1: the layer pattern depends on it"
            )
        shape["_fixed"] = fixed
        return True, shape
    pattern = [i not in only and (i + 1) % step == 0 for i in range(layers)]
    shape["_fixed"] = (*fixed, "num_hidden_layers") if len(set(pattern)) > 1 else fixed
    return (pattern if len(set(pattern)) > 1 else (pattern[0] if pattern else True)), shape


def check_top_k(experts: Dim, top_k: Dim, sparse: bool | list[bool]) -> None:
    """Refuse more experts per token than experts where a layer routes (the router's ``topk`` fails).

    Parameters
    ----------
    experts, top_k : int or sympy.Expr
    sparse : bool or list of bool
        From :func:`sparse_layers`.

    Raises
    ------
    ValueError
        ``num_experts_per_tok`` > ``num_experts``, naming the key.
    """
    routes = any(sparse) if isinstance(sparse, list) else sparse
    if routes and type(experts) is int and type(top_k) is int and top_k > experts:
        raise ValueError(
            f"config key 'num_experts_per_tok' ({top_k}) exceeds num_experts ({experts}): transformers builds the "
            "model but its router's topk fails at the first token"
        )


def kv_heads_given(c: Mapping[str, Any], heads: Dim, cls: str) -> Dim:
    """``num_key_value_heads`` where the class does not default a null one to the heads (its attention fails).

    Parameters
    ----------
    c : mapping
    heads : int or sympy.Expr
    cls : str
        The config class, for the message.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Null, not a size, or not dividing the heads.
    """
    if c["num_key_value_heads"] is None:
        raise ValueError(f"config key 'num_key_value_heads' is null: {cls} does not default it to num_attention_heads")
    return kv_heads(c, heads)


def qwen3_moe(config: Mapping[str, Any]) -> Module:
    """``Qwen3MoeForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen3MoeConfig``'s defaults; sizes may be SymPy symbols (the number of layers
        where every layer is alike).

    Returns
    -------
    derive.tree.Module
        Each sparse layer's ``mlp.experts`` carries ``routed`` = (num_experts_per_tok, num_experts).

    Raises
    ------
    ValueError
        A layer pattern transformers would not build or run (see :func:`sparse_layers`,
        :func:`check_top_k`), a sliding layer without a window, a null ``head_dim`` or
        ``num_key_value_heads``, naming the key.
    """
    if "num_local_experts" in config:  # set after the field: transformers builds it, whatever num_experts says
        config = {k: v for k, v in config.items() if k != "num_experts"}
    c = KEYS.resolve(config)
    check_rope(config)
    check_head_dim(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads_given(c, H, "Qwen3MoeConfig"), head_dim(c, D, H)
    E, k = hf_config.size(c, "num_experts", 0), hf_config.size(c, "num_experts_per_tok", 0)
    Fe = hf_config.size(c, "moe_intermediate_size", 0)
    bias = hf_config.flag(c, "attention_bias")
    sparse, pattern = sparse_layers(c, L, E)
    check_top_k(E, k, sparse)

    window = sliding_window(c, None)
    given = layer_types(c, L, KINDS)
    if given is not None:  # the cache's pattern (an attribute DynamicCache reads); no window where it is full
        if len(set(given)) > 1:
            raise ValueError(
                "config key 'layer_types' mixes full and sliding layers: Qwen3MoeModel makes one attention mask for "
                "every layer, which fails against caches of two lengths once a sequence passes the window"
            )
        kinds = given if "sliding_attention" in given else None
        layer_windows, uniform = windows(kinds, window), None
        window_keys = window_shape(kinds, layer_windows)
    else:
        layer_windows = None
        uniform = None if window is None else windows(["sliding_attention"], window)[0]  # type: ignore[index]
        window_keys = {"use_sliding_window": uniform is not None}
        if uniform is not None:
            window_keys["sliding_window"] = uniform

    def moe(hidden: Dim) -> Module:
        return moe_block(
            routed_experts(hidden, Fe, E, k, type="Qwen3MoeExperts"),
            router(hidden, E, name="gate", type="Qwen3MoeTopKRouter"),
            type="Qwen3MoeSparseMoeBlock",
        )

    shape: dict[str, Any] = {"attention_bias": bias, "num_experts": E, "num_experts_per_tok": k}
    shape.update({"moe_intermediate_size": Fe, **pattern, **window_keys})
    shape["_fixed"] = tuple(dict.fromkeys((*pattern["_fixed"], *window_keys.get("_fixed", ()))))
    if c.get("head_dim") is not None:
        shape["head_dim"] = d
    return qwen_decoder(
        c, prefix="Qwen3Moe", head_dim=d, qkv_bias=bias, o_bias=bias, qk_norm=True, kv=KV,
        layer_windows=layer_windows, window=uniform, sparse=sparse, moe=moe, intermediate_minimum=0, shape=shape,
    )  # fmt: skip


register_family("qwen3_moe", "Qwen3MoeConfig", "Qwen3MoeForCausalLM", qwen3_moe, _SOURCE, keys=KEYS)
