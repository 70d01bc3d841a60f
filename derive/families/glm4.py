"""GLM-4 (``model_type`` ``glm4``: GLM-4-9B-0414, GLM-4-32B-0414, GLM-Z1): Llama's attention with biased q/k/v, the
fused ``gate_up_proj`` MLP, four norms a layer and half of each head rotated.

``Glm4ForCausalLM`` (``models/glm4/modeling_glm4.py`` 48-63 ``Glm4MLP``: ``gate_up_proj`` Linear(D, 2F),
``down_proj`` Linear(F, D), unbiased; 66-76 ``Glm4DecoderLayer``: ``self_attn``, ``mlp``, ``input_layernorm``,
``post_attention_layernorm``, ``post_self_attn_layernorm``, ``post_mlp_layernorm``; 196-218 ``Glm4Attention``:
q/k/v biased when ``attention_bias`` (default true), ``o_proj`` never; 261-292 ``Glm4RotaryEmbedding``: two float32
buffers of ⌈int(head_dim · partial_rotary_factor) / 2⌉ (:func:`glm_rotary`); 351-362 ``Glm4Model``; 425-435: ``lm_head``, untied by
default). ``Glm4Config`` (``configuration_glm4.py``): ``head_dim`` 128 (typed int: null refused),
``partial_rotary_factor`` 0.5 unless ``rope_parameters`` (or the legacy ``rope_scaling``, read first) or the
top-level key sets it (``modeling_rope_utils.py`` 775-800 ``convert_rope_params_to_dict``). The cache is
``DynamicCache(config=...)``'s (:func:`derive.families.llama_like.cache_windows`).

>>> from derive.tree import count
>>> count(glm4({}))   # Glm4Config(): GLM-4-9B's shape
9400279040
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import (
    ROPE_KEYS,
    ROPE_TYPES,
    floordiv,
    kv_heads,
    refuse_odd_whole,
    rope_buffers,
    rope_object,
    rotary_factor,
    rotated,
)
from .family import Keys, register_family
from .llama_like import CACHE_KEYS, cache_shape, cache_windows, lm, not_null

__all__ = ["KEYS", "glm4", "glm_rotary", "fused_mlp"]

#: ``Glm4Config``'s every key at transformers 5.23.0 (``configuration_glm4.py``).
KEYS = Keys(
    "Glm4Config",
    {
        "vocab_size": 151552,
        "hidden_size": 4096,
        "intermediate_size": 13696,
        "num_hidden_layers": 40,
        "num_attention_heads": 32,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "tie_word_embeddings": False,
        "attention_bias": True,
        **CACHE_KEYS,
    },
    {
        **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)},
        "rope_parameters": "the rotary embedding's frequencies: buffers only, of the rotated width (glm_rotary)",
        "rope_scaling": "the legacy spelling of rope_parameters, read first (glm_rotary)",
        "partial_rotary_factor": "the rotated fraction of a head (default 0.5): the buffers' width (glm_rotary)",
    },
)
_SOURCE = (
    "transformers/models/glm4/configuration_glm4.py, modeling_glm4.py 48-76, 196-218, 261-292, 351-362, 425-435; "
    "modeling_rope_utils.py 775-800, 902-915"
)


def glm_rotary(config: Mapping[str, Any], head_dim: Dim, default: float, *, given: bool = True) -> Dim:
    """The width the rotary embedding turns, ``int(head_dim * partial_rotary_factor)``: the factor of
    ``rope_scaling`` (read first) or ``rope_parameters``, else the top-level key, else ``default``
    (``convert_rope_params_to_dict``, ``modeling_rope_utils.py`` 775-800).

    The attention turns the first ``cos.shape[-1]`` entries of each head and passes the rest
    (``apply_rotary_pos_emb``), so a factor of 0 turns none. LongRoPE's frequencies are the default's width
    (``_compute_longrope_parameters``: its ``short_factor`` and ``long_factor`` one entry each); the proportional
    RoPE's are ``head_dim // 2`` whatever the factor, those past the rotated fraction 0
    (``_compute_proportional_rope_parameters``), so it turns ``2 · (head_dim // 2)``.

    Parameters
    ----------
    config : mapping
        The config as given.
    head_dim : int or sympy.Expr
        The class's ``head_dim`` (a key of it: ``validate_rope`` refuses an odd one > 4 rotated whole).
    default : float
        The class's factor (GLM-4's 0.5).
    given : bool, default True
        ``head_dim`` is a key of the config object (GLM-4's class's; GLM-4-MoE's only where the config sets it).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        An unknown ``rope_type``, a factor outside [0, 1], an odd ``head_dim`` rotated whole, LongRoPE factors that
        are not lists of one entry a frequency, naming the key.
    """
    key, rope, kind = rope_object(config)
    if kind not in (*ROPE_TYPES, "longrope", "proportional"):
        raise ValueError(f"config key {key!r}: rope_type {kind!r} is not one derive maps ({sorted(ROPE_TYPES)}, longrope, proportional)")  # fmt: skip
    factor, where = rotary_factor(config, key, rope, default)
    if given:
        refuse_odd_whole(head_dim, factor)
    if kind == "proportional":
        return 2 * floordiv(head_dim, 2)
    width = rotated(head_dim, factor, where)
    if kind == "longrope":
        for name in ("short_factor", "long_factor"):
            values = rope.get(name)
            if not isinstance(values, list) or (type(width) is int and len(values) != (width + 1) // 2):
                need = (width + 1) // 2 if type(width) is int else "⌈rotated / 2⌉"
                raise ValueError(f"config key {key!r}: longrope's {name} must be a list of {need} numbers, got {values!r:.60}")  # fmt: skip
    return width


def fused_mlp(D: Dim, F: Dim, type: str, name: str = "mlp") -> Module:
    """``gate_up_proj`` Linear(D, 2F) and ``down_proj`` Linear(F, D), unbiased (``Glm4MLP``, ``Phi3MLP``).

    Parameters
    ----------
    D, F : int or sympy.Expr
    type, name : str

    Returns
    -------
    derive.tree.Module
    """
    children = (linear(D, 2 * F, False, name="gate_up_proj"), linear(F, D, False, name="down_proj"))
    return Module(name, type, children=children, part="MLP")


def glm4(config: Mapping[str, Any]) -> Module:
    """``Glm4ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Glm4Config``'s defaults; sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A null ``head_dim`` or ``num_key_value_heads`` (the ``@strict`` class types them int), a RoPE derive does
        not map, a bad ``layer_types``, naming the key.
    """
    not_null(config, ("head_dim", "num_key_value_heads"), "Glm4Config")
    c = KEYS.resolve(config)
    D, H = hf_config.size(c, "hidden_size"), hf_config.size(c, "num_attention_heads")
    d = hf_config.size(c, "head_dim")
    rot = glm_rotary(config, d, 0.5)
    KV, F = kv_heads(c, H), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    bias = hf_config.flag(c, "attention_bias")
    window, windows = cache_windows(c, L, types=c["layer_types"])
    shape = {"attention_bias": bias, **cache_shape(c, window, windows)}
    kinds = windows if windows is not None and len(set(windows)) > 1 else None
    if windows is not None and kinds is None:
        window = windows[0]

    def layer(w: Any) -> Module:
        attn = self_attention(
            D, H, KV, d, bias=bias, output_bias=False, window=w if kinds is not None else window, type="Glm4Attention"
        )
        norms = tuple(
            rms_norm((D,), name=n, type="Glm4RMSNorm")
            for n in ("input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm", "post_mlp_layernorm")
        )
        return Module("", "Glm4DecoderLayer", children=(attn, fused_mlp(D, F, "Glm4MLP"), *norms))

    return lm(c, prefix="Glm4", layer=layer, kinds=kinds, head_dim=d, shape=shape, rotary=rope_buffers(rot))


register_family("glm4", "Glm4Config", "Glm4ForCausalLM", glm4, _SOURCE, keys=KEYS)
