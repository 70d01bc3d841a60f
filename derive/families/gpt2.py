"""GPT-2 (``model_type`` ``gpt2``): learned positions, fused q/k/v, ``Conv1D`` weights stored (in, out).

``GPT2LMHeadModel`` (``models/gpt2/modeling_gpt2.py``: ``GPT2Attention`` ``c_attn`` Conv1D(D, 3D)
and ``c_proj`` Conv1D(D, D); ``GPT2MLP`` ``c_fc`` Conv1D(D, F), ``c_proj`` Conv1D(F, D), F =
``n_inner`` or 4D; ``GPT2Block`` ``ln_1``, ``attn``, ``ln_2``, ``mlp``; ``GPT2Model`` ``wte``
(V, D), ``wpe`` (``n_positions``, D), ``h``, ``ln_f``): LayerNorms with biases; ``lm_head`` tied
to ``transformer.wte.weight`` by default. ``hidden_size``, ``num_attention_heads``,
``num_hidden_layers`` and ``max_position_embeddings`` are the ``attribute_map`` aliases of
``n_embd``, ``n_head``, ``n_layer``, ``n_positions`` (``configuration_gpt2.py``). Its cache: keys
and values (batch, ``n_head``, tokens, D / ``n_head``) per block.

>>> from derive.tree import count
>>> count(gpt2({}))   # GPT2Config(): GPT-2 small (124M)
124439808
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.lm_attention import gpt2_attention
from ..layers.mlp import gpt2_mlp
from ..layers.norm import layer_norm
from ..tree import Module
from .decoder import layer_list
from .family import Keys, register_family

__all__ = ["KEYS", "gpt2"]

_DEFAULTS: dict[str, Any] = {
    "vocab_size": 50257,
    "n_positions": 1024,
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
    "n_inner": None,
    "add_cross_attention": False,
    "tie_word_embeddings": True,
}
#: ``GPT2Config``'s every key at transformers 5.23.0 (configuration_gpt2.py): the shape keys with their defaults,
#: the others with why they shape nothing, and its ``attribute_map`` (``hidden_size`` is ``n_embd`` ...).
KEYS = Keys(
    "GPT2Config",
    _DEFAULTS,
    {
        "activation_function": "the MLP's activation (ACT2FN): no tensor",
        "resid_pdrop": "dropout, off at inference: no tensor",
        "embd_pdrop": "dropout, off at inference: no tensor",
        "attn_pdrop": "dropout, off at inference: no tensor",
        "layer_norm_epsilon": "an epsilon of the LayerNorms",
        "scale_attn_weights": "whether scores are divided by sqrt(head width): no tensor",
        "scale_attn_by_inverse_layer_idx": "scores also divided by layer_idx + 1: no tensor",
        "reorder_and_upcast_attn": "the attention's float32 upcast (a numerics setting): no tensor",
        **dict.fromkeys(
            (
                "summary_type",
                "summary_use_proj",
                "summary_activation",
                "summary_proj_to_labels",
                "summary_first_dropout",
            ),
            "the sequence summary of GPT2DoubleHeadsModel (SequenceSummary): GPT2LMHeadModel has none",
        ),  # fmt: skip
        # read with hasattr by the other heads of modeling_gpt2.py (968-971, 365), not by GPT2LMHeadModel
        "summary_last_dropout": "GPT2SequenceSummary's dropout (GPT2DoubleHeadsModel's): no tensor here",
        "classifier_dropout": "GPT2ForTokenClassification's dropout: no tensor here",
        "hidden_dropout": "GPT2ForTokenClassification's fallback dropout: no tensor here",
    },
    {
        "hidden_size": "n_embd",
        "max_position_embeddings": "n_positions",
        "num_attention_heads": "n_head",
        "num_hidden_layers": "n_layer",
    },
)
_SOURCE = (
    "transformers/models/gpt2/configuration_gpt2.py, modeling_gpt2.py (GPT2Attention, GPT2MLP, GPT2Block, GPT2Model)"
)


def gpt2(config: Mapping[str, Any]) -> Module:
    """``GPT2LMHeadModel`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``GPT2Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, cross-attention (``add_cross_attention``: not derived), a width
        not a multiple of the heads (GPT2Attention raises), naming the key.
    """
    c = KEYS.resolve(config)
    if hf_config.flag(c, "add_cross_attention"):
        raise ValueError("config key 'add_cross_attention': GPT-2's cross-attention blocks are not derived")
    V, P, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "n_positions"), hf_config.size(c, "n_embd")
    L, H = hf_config.size(c, "n_layer", 0), hf_config.size(c, "n_head")
    if type(D) is int and type(H) is int and D % H:
        raise ValueError(f"config key 'n_embd' ({D}) must be a multiple of n_head ({H})")
    F = 4 * D if c["n_inner"] is None else hf_config.size(c, "n_inner")
    tie = hf_config.flag(c, "tie_word_embeddings")

    def block(_: Any) -> Module:
        parts = (
            layer_norm((D,), name="ln_1"),
            gpt2_attention(D, H),
            layer_norm((D,), name="ln_2"),
            gpt2_mlp(D, F),
        )
        return Module("", "GPT2Block", children=parts)

    h = layer_list(block, None, L).replace(name="h")
    body = (embedding(V, D, name="wte"), embedding(P, D, name="wpe"), h, layer_norm((D,), name="ln_f"))
    transformer = Module("transformer", "GPT2Model", children=body)
    head = hf_config.lm_head(D, V, "transformer.wte.weight" if tie else None)
    shape: dict[str, Any] = {"vocab_size": V, "n_positions": P, "n_embd": D, "n_layer": L, "n_head": H}
    if c["n_inner"] is not None:
        shape["n_inner"] = F
    shape["tie_word_embeddings"] = tie
    return Module("", "GPT2LMHeadModel", children=(transformer, head), config=shape)


register_family("gpt2", "GPT2Config", "GPT2LMHeadModel", gpt2, _SOURCE, keys=KEYS)
