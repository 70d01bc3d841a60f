"""Phi (``model_type`` ``phi``: phi-1, phi-1.5, phi-2): one LayerNorm per layer feeding the attention and the MLP
in parallel, every projection biased, a partial RoPE, a biased ``lm_head``.

``PhiForCausalLM`` (``models/phi/modeling_phi.py`` 32-68 ``PhiRotaryEmbedding``: two float32 buffers of ⌈r / 2⌉,
r = ``int(head_dim * partial_rotary_factor)`` (line 63); 152-176 ``PhiAttention``: ``q_proj`` Linear(D, H·d),
``k_proj`` and ``v_proj`` Linear(D, KV·d), ``dense`` Linear(H·d, D), all biased, and with ``qk_layernorm``
``q_layernorm`` and ``k_layernorm``, LayerNorms (weight and bias) of D // H; 199-212: the first r of each head
rotated; 237-243 ``PhiMLP``: ``fc1`` Linear(D, F) and ``fc2`` Linear(F, D), biased; 252-286 ``PhiDecoderLayer``:
``self_attn``, ``mlp``, ``input_layernorm`` (a LayerNorm), the attention and the MLP both reading the one norm's
output and added to the residual together, no second norm; 311-324 ``PhiModel``: ``embed_tokens``, ``layers``,
``rotary_emb``, ``final_layernorm``; 387-398: ``lm_head`` Linear(D, V) with a bias, its weight tied to
``model.embed_tokens.weight`` with ``tie_word_embeddings`` (default off) and its bias its own).

``PhiConfig`` (``configuration_phi.py`` 63-89) has no ``head_dim``: the attention reads
``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 159), so a ``head_dim`` given sets the
width and a null one fails (``None ** -0.5``: refused); its QK-norms stay of ``hidden_size // num_attention_heads``
(lines 171-176), so with another ``head_dim`` the first forward fails (refused). ``__post_init__`` (lines 84-89)
sets ``partial_rotary_factor`` 0.5 unless the config gives one, and ``convert_rope_params_to_dict``
(``modeling_rope_utils.py`` 775-804) puts it in ``rope_parameters`` (``rope_scaling`` taken first) unless that sets
its own. A rotated width that is odd (or wider than the head) fails at the first forward (the cosines have
2·⌈r / 2⌉ entries for r rotated): refused. The cache is ``DynamicCache(config=...)``'s
(:func:`derive.families.llama_like.cache_windows`, line 349). The dropouts (``resid_pdrop``, ``embd_pdrop``,
``attention_dropout``) make no tensor.

>>> from derive.tree import count
>>> count(phi({}))   # PhiConfig(): phi-1's shape
1418270720
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops, kv_state
from ..layers.norm import layer_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import (
    ROPE_TYPES,
    floordiv,
    kv_heads,
    layer_list,
    refuse_odd_whole,
    rope_buffers,
    rope_object,
    rotary_factor,
    rotated,
)
from .family import Keys, register_family
from .llama_like import ATTENTION_KINDS, CACHE_KEYS, cache_shape, cache_windows, head_width

__all__ = ["KEYS", "phi", "phi_rotary"]

#: ``PhiConfig``'s every key at transformers 5.23.0 (``configuration_phi.py`` 63-82), ``head_dim``, which the class
#: does not define and the attention reads (``modeling_phi.py`` 159), and the keys ``DynamicCache`` reads off any
#: config.
KEYS = Keys(
    "PhiConfig",
    {
        "vocab_size": 51200,
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "num_hidden_layers": 24,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "head_dim": None,
        "tie_word_embeddings": False,
        "qk_layernorm": False,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "layer_norm_eps", "attention_dropout")},
        "rope_parameters": "the rotary embedding's frequencies: buffers only, of the rotated width (phi_rotary)",
        "rope_scaling": "the legacy spelling of rope_parameters, which the class reads first (phi_rotary)",
        "rope_theta": "the legacy spelling of rope_parameters' rope_theta, which the class moves in: no tensor",
        "partial_rotary_factor": "the RoPE's rotated fraction (default 0.5), moved into rope_parameters (phi_rotary)",
        "resid_pdrop": "dropout, off at inference: no tensor",
        "embd_pdrop": "dropout, off at inference: no tensor",
    },
)
_SOURCE = (
    "transformers/models/phi/configuration_phi.py 63-89, modeling_phi.py 32-68, 152-243, 252-286, 311-324, "
    "387-398; modeling_rope_utils.py 775-804 convert_rope_params_to_dict"
)
#: ``partial_rotary_factor`` when neither the config nor its RoPE object sets one (``configuration_phi.py`` 88).
DEFAULT_FACTOR = 0.5


def phi_rotary(config: Mapping[str, Any], head_dim: Dim) -> Dim:
    """The width Phi's rotary embedding turns in each head, ``int(head_dim * partial_rotary_factor)``.

    The factor is the RoPE object's (``rope_scaling`` when set, else ``rope_parameters``), else the config's
    ``partial_rotary_factor``, else 0.5 (``configuration_phi.py`` 88; ``convert_rope_params_to_dict``).

    Parameters
    ----------
    config : mapping
        The config as given.
    head_dim : int or sympy.Expr
        d as the attention reads it.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A RoPE object that is not one, nested by layer type, of a type derive does not map; a factor outside [0, 1];
        an odd rotated width (the first forward fails); an odd ``head_dim`` rotated whole (``validate_rope``);
        naming the key.
    """
    key, rope, kind = rope_object(config)
    if any(k in rope for k in ATTENTION_KINDS):
        raise ValueError(f"config key {key!r}: a RoPE by layer type is not derived (PhiRotaryEmbedding reads one)")
    if kind not in ROPE_TYPES:
        raise ValueError(f"config key {key!r}: rope_type {kind!r} is not one derive maps ({sorted(ROPE_TYPES)})")
    # 0 turns nothing: the attention rotates q[..., :0] and passes the whole head (modeling_phi.py 199-212)
    factor, where = rotary_factor(config, key, rope, DEFAULT_FACTOR)
    refuse_odd_whole(config.get("head_dim"), factor)
    dim = rotated(head_dim, factor, where)
    if type(dim) is int and dim % 2:
        raise ValueError(
            f"config key {where!r}: int(head_dim * partial_rotary_factor) = {dim} is odd: PhiAttention's first "
            f"forward fails (its {dim} rotated entries against {dim + 1} cosines)"
        )
    return dim


def phi_attention(D: Dim, H: Dim, KV: Dim, d: Dim, qk_norm: bool, window: Dim | None) -> Module:
    """``self_attn``: q/k/v Linear(D, H·d | KV·d) and ``dense`` Linear(H·d, D), biased, then the QK-norms.

    Parameters
    ----------
    D, H, KV, d : int or sympy.Expr
    qk_norm : bool
        ``qk_layernorm``: ``q_layernorm`` and ``k_layernorm``, LayerNorms of D // H.
    window : int or sympy.Expr, optional
        The layer's cache window.

    Returns
    -------
    derive.tree.Module
    """
    register("PhiAttention", attention_flops)
    children: tuple[Module, ...] = (
        linear(D, H * d, True, name="q_proj"),
        linear(D, KV * d, True, name="k_proj"),
        linear(D, KV * d, True, name="v_proj"),
        linear(H * d, D, True, name="dense"),
    )
    if qk_norm:
        width = floordiv(D, H)
        children += (layer_norm((width,), name="q_layernorm"), layer_norm((width,), name="k_layernorm"))
    config = {"num_heads": H, "num_kv_heads": KV, "head_dim": d, "value_dim": d, "window": window}
    return Module("self_attn", "PhiAttention", children=children, config=config, cache=kv_state(KV, d, window=window), part="attention")  # fmt: skip


def phi(config: Mapping[str, Any]) -> Module:
    """``PhiForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``PhiConfig``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, QK-norms with a ``head_dim`` other than D // H, a RoPE Phi cannot run or derive does not
        map, a bad ``layer_types``, naming the key.
    """
    c = KEYS.resolve(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="PhiAttention", null="given")
    rot = phi_rotary(config, d)
    V, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "intermediate_size")
    KV, L = kv_heads(c, H), hf_config.size(c, "num_hidden_layers", 0)
    qk_norm, tie = hf_config.flag(c, "qk_layernorm"), hf_config.flag(c, "tie_word_embeddings")
    norm_width = floordiv(D, H)
    if qk_norm and type(d) is int and type(norm_width) is int and d != norm_width:
        raise ValueError(
            f"config key 'head_dim' ({d}) is not hidden_size // num_attention_heads ({norm_width}) with qk_layernorm: "
            f"PhiAttention's q_layernorm/k_layernorm are of {norm_width} and its first forward fails"
        )
    window, windows = cache_windows(c, L, types=c["layer_types"])
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window = windows[0]

    def layer(w: Any) -> Module:
        mlp = Module(
            "mlp", "PhiMLP", children=(linear(D, F, True, name="fc1"), linear(F, D, True, name="fc2")), part="MLP"
        )  # fmt: skip
        attn = phi_attention(D, H, KV, d, qk_norm, w if kinds is not None else window)
        return Module("", "PhiDecoderLayer", children=(attn, mlp, layer_norm((D,), name="input_layernorm")))

    body = (
        embedding(V, D, name="embed_tokens"),
        layer_list(layer, kinds, L),
        Module("rotary_emb", "PhiRotaryEmbedding", rope_buffers(rot)),
        layer_norm((D,), name="final_layernorm"),
    )
    model = Module("model", "PhiModel", children=body)
    weight = Param("weight", (V, D), tied_to="model.embed_tokens.weight" if tie else None)
    head = Module("lm_head", "Linear", (weight, Param("bias", (V,))), part="head")
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L, "intermediate_size": F}
    shape.update(num_attention_heads=H, num_key_value_heads=KV)
    if c.get("head_dim") is not None:  # else hidden_size // num_attention_heads again
        shape["head_dim"] = d
    shape.update(qk_layernorm=qk_norm, **cache_shape(c, window, windows), tie_word_embeddings=tie)
    return Module("", "PhiForCausalLM", children=(model, head), config=shape)


register_family("phi", "PhiConfig", "PhiForCausalLM", phi, _SOURCE, keys=KEYS)
