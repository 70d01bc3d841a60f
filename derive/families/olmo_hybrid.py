"""OLMo-hybrid (``model_type`` ``olmo_hybrid``): Gated DeltaNet layers and OLMo-style attention layers.

``OlmoHybridForCausalLM`` (``models/olmo_hybrid/modeling_olmo_hybrid.py`` 161-196
``OlmoHybridAttention``, 571-628 ``OlmoHybridGatedDeltaNet``, 752-760 ``OlmoHybridMLP``, 768-776
and 809-816 the two decoder layers, 882-902 ``OlmoHybridModel``, 973-984): layer i is a
``OlmoHybridLinearAttentionDecoderLayer`` (``mlp``, ``input_layernorm``,
``post_attention_layernorm``, ``linear_attn`` — :func:`derive.blocks.gated_deltanet.gated_deltanet`,
spelling ``olmo_hybrid``) when ``layer_types[i]`` is ``"linear_attention"``, else an
``OlmoHybridAttentionDecoderLayer`` (``self_attn``, ``mlp``, ``post_attention_layernorm``,
``post_feedforward_layernorm``). The attention's QK-norms are OLMo 2's: over all heads, ``q_norm``
of H·d and ``k_norm`` of KV·d. The rotary embedding's buffers exist unless ``rope_theta`` is None
(the released checkpoints use no RoPE). Defaults of ``OlmoHybridConfig.__post_init__``
(``configuration_olmo_hybrid.py`` 121-151): every fourth layer attends (the last one if none
would), the linear heads are the attention heads, d_k = ``int(0.75 · D / H_k)``, d_v = 2·d_k; a
pattern without a linear layer or without an attention layer is refused, as transformers refuses it.

Its cache: keys and values per attention layer; ``conv_states`` (model dtype) and float32
``recurrent_states`` per Gated DeltaNet layer.

>>> from derive.tree import count
>>> count(olmo_hybrid({}))   # OlmoHybridConfig()
7430870688
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.gated_deltanet import gated_deltanet
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, head_dim, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family

__all__ = ["KEYS", "olmo_hybrid"]

#: ``OlmoHybridConfig``'s shape keys and defaults (configuration_olmo_hybrid.py 90-119).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 100352,
    "hidden_size": 3840,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 30,
    "num_key_value_heads": None,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "layer_types": None,
    "linear_num_key_heads": None,
    "linear_num_value_heads": None,
    "linear_key_head_dim": None,
    "linear_value_head_dim": None,
    "linear_conv_kernel_dim": 4,
    "rope_parameters": None,
    "rope_theta": 10000.0,
}
_INIT = "the Gated DeltaNet's initialisation of A_log or dt_bias: no tensor"
#: ``OlmoHybridConfig``'s every key at transformers 5.23.0 (configuration_olmo_hybrid.py): the shape keys with their
#: defaults (``rope_parameters``: whether and how wide the rotary buffers are), the others with why they shape nothing.
KEYS = Keys(
    "OlmoHybridConfig",
    _DEFAULTS,
    {
        **{
            k: DECODER_INERT[k]
            for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "rope_scaling")
        },
        **dict.fromkeys(
            ("linear_a_log_min", "linear_a_log_max", "linear_dt_min", "linear_dt_max", "linear_dt_init_floor"), _INIT
        ),
        "linear_allow_neg_eigval": "the Gated DeltaNet's beta scaled to (0, 2) in the forward: no tensor",
    },  # fmt: skip
)
_SOURCE = (
    "transformers/models/olmo_hybrid/configuration_olmo_hybrid.py 90-151, modeling_olmo_hybrid.py 161-196, "
    "571-628, 752-816, 882-902, 973-984"
)


def _kinds(c: Mapping[str, Any], layers: int) -> list[str]:
    kinds = c["layer_types"]
    if kinds is None:
        kinds = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(layers)]
        if "full_attention" not in kinds and layers:
            kinds[-1] = "full_attention"
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    if any(k not in ("linear_attention", "full_attention") for k in kinds):
        raise ValueError(
            f"config key 'layer_types' must hold 'linear_attention' or 'full_attention', got {kinds!r:.60}"
        )
    if "linear_attention" not in kinds or "full_attention" not in kinds:
        raise ValueError(
            "config key 'layer_types': OLMo-hybrid expects at least one 'linear_attention' and one attention layer"
        )
    return list(kinds)


def _rotary(c: Mapping[str, Any], d: Dim) -> bool:
    """Whether ``rotary_emb`` exists: ``rope_parameters["rope_theta"]`` (or ``rope_theta``) not None."""
    rope = c["rope_parameters"]
    if rope is not None and not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
    rope = rope or {}
    kind = rope.get("rope_type", rope.get("type", "default"))
    theta = rope.get("rope_theta", c["rope_theta"])
    if theta is None:
        return False
    if kind != "default" or rope.get("partial_rotary_factor", 1.0) != 1.0:
        raise ValueError(
            f"config key 'rope_parameters': only the default full RoPE is derived for OLMo-hybrid, got {rope!r:.80}"
        )
    return True


def olmo_hybrid(config: Mapping[str, Any]) -> Module:
    """``OlmoHybridForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``OlmoHybridConfig``'s defaults.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a pattern transformers refuses, naming the key.
    """
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    hk = H if c["linear_num_key_heads"] is None else hf_config.size(c, "linear_num_key_heads")
    hv = H if c["linear_num_value_heads"] is None else hf_config.size(c, "linear_num_value_heads")
    if c["linear_key_head_dim"] is None:
        if type(D) is not int or type(hk) is not int:
            raise ValueError("config key 'linear_key_head_dim': its default int(0.75 * D / heads) needs numbers")
        dk = int(0.75 * D / hk)
    else:
        dk = hf_config.size(c, "linear_key_head_dim")
    dv = 2 * dk if c["linear_value_head_dim"] is None else hf_config.size(c, "linear_value_head_dim")
    K = hf_config.size(c, "linear_conv_kernel_dim")
    bias, tie = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "tie_word_embeddings")
    pad = config.get("pad_token_id", 100277)  # the embedding's padding_idx (default 100277)
    if type(pad) is int and type(V) is int and not -V <= pad < V:
        raise ValueError(
            f"config key 'pad_token_id' ({pad}) must be below vocab_size ({V}): torch's Embedding refuses it"
        )
    kinds = _kinds(c, L)
    rotary = _rotary(c, d)

    def make(kind: str) -> Module:
        mlp = gated_mlp(D, F, type="OlmoHybridMLP")
        norm = lambda n: rms_norm((D,), name=n, type="OlmoHybridRMSNorm")  # noqa: E731
        if kind == "linear_attention":
            mixer = gated_deltanet(D, hk, hv, dk, dv, K, spelling="olmo_hybrid")
            children = (mlp, norm("input_layernorm"), norm("post_attention_layernorm"), mixer)
            return Module("", "OlmoHybridLinearAttentionDecoderLayer", children=children)
        attn = self_attention(D, H, KV, d, bias=bias, type="OlmoHybridAttention")
        qk = (
            rms_norm((H * d,), name="q_norm", type="OlmoHybridRMSNorm"),
            rms_norm((KV * d,), name="k_norm", type="OlmoHybridRMSNorm"),
        )
        attn = attn.replace(children=attn.children + qk)
        children = (attn, mlp, norm("post_attention_layernorm"), norm("post_feedforward_layernorm"))
        return Module("", "OlmoHybridAttentionDecoderLayer", children=children)

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, attention_bias=bias, layer_types=kinds)
    shape.update(linear_num_key_heads=hk, linear_num_value_heads=hv, linear_key_head_dim=dk)
    shape.update(linear_value_head_dim=dv, linear_conv_kernel_dim=K, tie_word_embeddings=tie)
    shape["_fixed"] = ("num_hidden_layers", "layer_types")
    return causal_lm(
        "OlmoHybrid", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape,
        rotary=rope_buffers(d) if rotary else (),
    )  # fmt: skip


register_family("olmo_hybrid", "OlmoHybridConfig", "OlmoHybridForCausalLM", olmo_hybrid, _SOURCE, keys=KEYS)
