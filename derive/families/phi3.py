"""Phi-3 (``model_type`` ``phi3``: Phi-3, Phi-3.5-mini, Phi-4, Phi-4-mini): Llama's layers with q/k/v fused in one
``qkv_proj`` and gate/up fused in one ``gate_up_proj``, and a partial RoPE (LongRoPE for the long-context releases).

``Phi3ForCausalLM`` (``models/phi3/modeling_phi3.py`` 48-63 ``Phi3MLP``: ``gate_up_proj`` Linear(D, 2F) and
``down_proj`` Linear(F, D), no biases; 66-101 ``Phi3RotaryEmbedding``; 189-205 ``Phi3Attention``: ``o_proj``
Linear(H·d, D) and ``qkv_proj`` Linear(D, H·d + 2·KV·d), no biases; 276-286 ``Phi3DecoderLayer``: ``self_attn``,
``mlp``, ``input_layernorm``, ``post_attention_layernorm``; 340-351 ``Phi3Model``; 414-424: ``lm_head``, untied by
default). ``Phi3Config`` (``configuration_phi3.py``) has no ``head_dim``: the attention reads
``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (line 196), so a ``head_dim`` given sets the
width and a null one fails (``None ** -0.5``: refused). The rotary embedding rotates
``int(head_dim * partial_rotary_factor)`` of each head (lines 95-97; ``modeling_rope_utils.py``
``_compute_longrope_parameters``), its two float32 buffers of ⌈that / 2⌉; ``Phi3Config.validate_rope`` admits only
the ``default`` and ``longrope`` types (``su`` and ``yarn`` read as ``longrope``, ``convert_rope_params_to_dict``;
an ``su`` object without its own ``original_max_position_embeddings`` fails there, as Phi-3-mini-128k's first
``config.json`` does: ``standardize_rope_params`` moves the top-level one in for ``longrope``, ``yarn`` and ``llama3``
only, before ``su`` is renamed, and ``validate_rope`` raises ``KeyError``; refused).
The cache is ``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`): Phi-3-mini's
``sliding_window`` 2047 makes every layer keep 2046 tokens. The dropouts (``resid_pdrop``, ``embd_pdrop``) and
``original_max_position_embeddings`` (the RoPE's scaling) make no tensor. LongRoPE's first forward leaves the
rotary embedding a plain float32 attribute ``long_inv_freq`` of ⌈rotated / 2⌉ (``modeling_rope_utils.py`` 47-77),
once per model and not per sequence: it is no cache of a sequence and is not counted in the cache.

>>> from derive.tree import count
>>> count(phi3({}))   # Phi3Config(): Phi-3-mini's shape
3821079552
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops, kv_state
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, kv_heads, refuse_odd_whole, rope_buffers, rope_object, rotary_factor, rotated
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, cache_shape, cache_windows, head_width, lm

__all__ = ["KEYS", "phi3", "phi_rotary"]

#: ``Phi3Config``'s every key at transformers 5.23.0 (``configuration_phi3.py``), and ``head_dim``, which the class
#: does not define and the attention reads (``modeling_phi3.py`` 196).
KEYS = Keys(
    "Phi3Config",
    {
        "vocab_size": 32064,
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "head_dim": None,
        "tie_word_embeddings": False,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "rope_parameters": "the rotary embedding's frequencies: buffers only, of the rotated width (phi_rotary)",
        "rope_scaling": "the legacy spelling of rope_parameters, which the class reads first (phi_rotary)",
        "partial_rotary_factor": "the RoPE's rotated fraction, which the class moves into rope_parameters (phi_rotary)",
        "original_max_position_embeddings": "the context LongRoPE's scaling is relative to: no tensor",
        "resid_pdrop": "dropout, off at inference: no tensor",
        "embd_pdrop": "dropout, off at inference: no tensor",
    },
)
_SOURCE = (
    "transformers/models/phi3/configuration_phi3.py, modeling_phi3.py 48-101, 189-205, 276-286, 340-351, 414-424; "
    "modeling_rope_utils.py _compute_longrope_parameters"
)
#: The RoPE types ``Phi3Config.validate_rope`` admits, after ``convert_rope_params_to_dict`` reads ``su`` and
#: ``yarn`` as ``longrope`` (``configuration_phi3.py``).
PHI_ROPE_TYPES = ("default", "longrope", "su", "yarn")


def phi_rotary(config: Mapping[str, Any], head_dim: Dim, hidden: Dim, heads: Dim) -> Dim:
    """The width Phi-3's rotary embedding turns, ``int(head_dim * partial_rotary_factor)``.

    ``convert_rope_params_to_dict`` takes ``rope_scaling`` before ``rope_parameters`` and a top-level
    ``partial_rotary_factor`` when the dict sets none (``configuration_phi3.py``); LongRoPE's ``short_factor`` and
    ``long_factor`` must have half the rotated width of ``hidden_size // num_attention_heads`` entries
    (``Phi3Config.validate_rope``), and of the ``head_dim`` read (their product with the frequencies,
    ``_compute_longrope_parameters``).

    Parameters
    ----------
    config : mapping
        The config as given.
    head_dim, hidden, heads : int or sympy.Expr
        d as the attention reads it, D and H.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A RoPE type other than default/longrope, an ``su`` one without its ``original_max_position_embeddings``,
        a factor outside [0, 1], LongRoPE factors of another length, an odd ``head_dim`` rotated whole
        (transformers' ``validate_rope``), naming the key.
    """
    key, rope, kind = rope_object(config)
    if kind not in PHI_ROPE_TYPES:
        raise ValueError(f"config key {key!r}: rope_type {kind!r} is refused by Phi3Config (default or longrope)")
    if kind == "su" and "original_max_position_embeddings" not in rope:
        # standardize_rope_params moves the top-level original_max_position_embeddings in for llama3, yarn and
        # longrope only; su becomes longrope after it, and validate_rope then requires the key (KeyError)
        raise ValueError(
            f"config key {key!r}: rope_type 'su' without its own original_max_position_embeddings is refused by "
            "Phi3Config (it reads su as longrope, which needs that key in the RoPE's object)"
        )
    # 0 turns nothing: apply_rotary_pos_emb rotates q[..., :0] and passes the whole head (modeling_phi3.py 180-185)
    factor, where = rotary_factor(config, key, rope, 1.0)
    refuse_odd_whole(config.get("head_dim"), factor)
    dim = rotated(head_dim, factor, key)
    if kind != "default":
        for name in ("short_factor", "long_factor"):
            values = rope.get(name)
            if not isinstance(values, list):
                raise ValueError(f"config key {key!r}: longrope needs a list {name}, got {values!r:.60}")
            if type(dim) is int and type(hidden) is int and type(heads) is int:
                validated = int(hidden // heads * factor) // 2
                if len(values) != validated or len(values) != (dim + 1) // 2:
                    raise ValueError(
                        f"config key {key!r}: {name} has {len(values)} entries; the rotated width {dim} needs "
                        f"{(dim + 1) // 2} (and Phi3Config.validate_rope {validated})"
                    )
    return dim


def phi3_attention(D: Dim, H: Dim, KV: Dim, d: Dim, window: Dim | None, prefix: str = "Phi3") -> Module:
    """``self_attn``: ``o_proj`` Linear(H·d, D) and ``qkv_proj`` Linear(D, H·d + 2·KV·d), unbiased, with its cache.

    Parameters
    ----------
    D, H, KV, d : int or sympy.Expr
    window : int or sympy.Expr, optional
        The layer's cache window.
    prefix : str

    Returns
    -------
    derive.tree.Module
    """
    kind = f"{prefix}Attention"
    register(kind, attention_flops)
    children = (linear(H * d, D, False, name="o_proj"), linear(D, H * d + 2 * KV * d, False, name="qkv_proj"))
    config = {"num_heads": H, "num_kv_heads": KV, "head_dim": d, "value_dim": d, "window": window}
    return Module("self_attn", kind, children=children, config=config, cache=kv_state(KV, d, window=window), part="attention")  # fmt: skip


def phi3(config: Mapping[str, Any]) -> Module:
    """``Phi3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Phi3Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim``, a RoPE Phi-3 refuses, a bad ``layer_types``, naming the key.
    """
    c = KEYS.resolve(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = head_width(config, c, D, H, cls="Phi3Attention", null="given")
    rot = phi_rotary(config, d, D, H)
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    window, windows = cache_windows(c, L, types=c["layer_types"])

    def layer(w: Any) -> Module:
        mlp = Module(
            "mlp", "Phi3MLP", children=(linear(D, 2 * F, False, name="gate_up_proj"), linear(F, D, False, name="down_proj")),
            part="MLP",
        )  # fmt: skip
        norm = lambda n: rms_norm((D,), name=n, type="Phi3RMSNorm")  # noqa: E731
        attn = phi3_attention(D, H, KV, d, w if windows is not None else window)
        return Module("", "Phi3DecoderLayer", children=(attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm")))  # fmt: skip

    shape = cache_shape(c, window, windows)
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window, windows = windows[0], None
    return lm(c, prefix="Phi3", layer=layer, kinds=kinds, head_dim=d, shape=shape, rotary=rope_buffers(rot))


register_family("phi3", "Phi3Config", "Phi3ForCausalLM", phi3, _SOURCE, keys=KEYS)
