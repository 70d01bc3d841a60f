"""Mixtral (``model_type`` ``mixtral``): Mistral's attention with a sparse mixture of experts in every layer.

``MixtralForCausalLM`` (``models/mixtral/modeling_mixtral.py``: ``MixtralSparseMoeBlock`` =
``gate`` (``MixtralTopKRouter``, weight (E, D)) and ``experts`` (``MixtralExperts``:
``gate_up_proj`` (E, 2F, D), ``down_proj`` (E, D, F)), E = ``num_local_experts``, k =
``num_experts_per_tok``); ``sliding_window`` default null.

>>> from derive.tree import count, active
>>> model = mixtral({})   # MixtralConfig(): Mixtral-8x7B's shape
>>> count(model), active(model)
(46702792704, 12879925248)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.moe import moe_block, routed_experts, router
from ..tree import Dim, Module
from .decoder import check_rope, decoder
from .family import Keys, register_family
from .mistral import CACHE_REFUSED, MISTRAL_DEFAULTS, MISTRAL_INERT, refuse_cache_keys

__all__ = ["mixtral"]

_DEFAULTS: dict[str, Any] = {
    **MISTRAL_DEFAULTS,
    "sliding_window": None,
    "num_experts_per_tok": 2,
    "num_local_experts": 8,
}
#: ``MixtralConfig``'s every key at transformers 5.23.0 (configuration_mixtral.py): ``num_experts`` is its
#: ``attribute_map`` alias of ``num_local_experts``.
KEYS = Keys(
    "MixtralConfig",
    {**_DEFAULTS, **CACHE_REFUSED},
    {
        **MISTRAL_INERT,
        "output_router_logits": "whether the forward returns the router's logits (for the auxiliary loss): no tensor",
        "router_aux_loss_coef": "the load-balancing loss's weight, in training: no tensor",
        "router_jitter_noise": "multiplicative noise on the router's input in training (modeling_mixtral.py 123): no tensor",
    },
    {"num_experts": "num_local_experts"},
)
_SOURCE = "transformers/models/mixtral/configuration_mixtral.py, modeling_mixtral.py"


def mixtral(config: Mapping[str, Any]) -> Module:
    """``MixtralForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``MixtralConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Each layer's ``mlp.experts`` carries ``routed`` = (num_experts_per_tok, num_local_experts).

    Raises
    ------
    ValueError
        A key derive cannot map, more experts per token than experts, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    E, k = hf_config.size(c, "num_local_experts"), hf_config.size(c, "num_experts_per_tok")
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_local_experts ({E})")
    window = None if c["sliding_window"] is None else hf_config.size(c, "sliding_window")
    refuse_cache_keys(c, "MixtralConfig", window)

    def ffn(D: Dim, F: Dim) -> Module:
        parts = (router(D, E, type="MixtralTopKRouter"), routed_experts(D, F, E, k, type="MixtralExperts"))
        return moe_block(*parts, type="MixtralSparseMoeBlock")

    shape = {"num_local_experts": E, "num_experts_per_tok": k, "sliding_window": window}
    return decoder(c, prefix="Mixtral", qkv_bias=False, o_bias=False, window=window, ffn=ffn, shape=shape)


register_family("mixtral", "MixtralConfig", "MixtralForCausalLM", mixtral, _SOURCE, keys=KEYS)
