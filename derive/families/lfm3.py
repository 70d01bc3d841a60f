"""LFM3 (``model_type`` ``lfm3``): LFM2's short gated convolutions with full and sliding-window attention
layers whose heads are gated, and sandwich norms.

``Lfm3ForCausalLM`` (``models/lfm3/modeling_lfm3.py`` 62-82 the rotary embedding, 125-135 ``Lfm3MLP``,
224-247 ``Lfm3Attention``, 341-363 ``Lfm3ShortConv``, 409-426 ``Lfm3DecoderLayer``, 498-512
``Lfm3Model``, 587-597): layer i is a short convolution (``conv``,
:func:`derive.blocks.short_conv.short_conv`) where ``layer_types[i]`` is ``"conv"``, else attention
(``self_attn``: Qwen3's ``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, biased with ``attention_bias``,
``q_norm``/``k_norm`` of the head width, and ``g_proj`` Linear(D, H), a sigmoid gate per head, with
``use_attention_gate``), over the last ``sliding_window`` tokens on a ``"sliding_attention"`` layer;
every layer has ``feed_forward`` (``w1``, ``w3`` D → F, ``w2`` F → D, F = ``intermediate_size``),
``operator_norm``, ``ffn_norm`` and, with ``use_sandwich_norm``, ``post_operator_norm`` and
``post_ffn_norm``. No final norm: ``embedding_norm`` (registered last); ``lm_head`` tied to the
embedding by default. The pattern, as ``Lfm3Config.__post_init__`` makes it (``configuration_lfm3.py``
84-98): ``layer_types`` as given, else full attention at i % 4 = 2, sliding at i % 4 = 0 (i > 0),
convolutions elsewhere.

The rotary embedding keeps one pair of float32 buffers per attention type present, full first
(``{type}_inv_freq``, ``{type}_original_inv_freq``), each from its own entry of ``rope_parameters``
(by default ``"default"`` for sliding, ``"proportional"`` with factor 0.5 for full layers): ⌈d / 2⌉
entries for the ``"default"`` type (its own, reading no factor), d // 2 for ``"proportional"`` (the
unrotated angles kept as zeros, ``modeling_rope_utils.py`` 194-260), ⌈int(d · factor) / 2⌉ for the
scaled types.

Its cache: keys and values (batch, KV, tokens, d) per full-attention layer (``DynamicLayer``), the last
``sliding_window`` − 1 tokens and an int64 scalar per sliding layer (``DynamicSlidingWindowLayer``),
``conv_states`` (batch, D, L) per convolution layer, in the model's dtype.

>>> from derive.tree import count
>>> count(lfm3({}))   # Lfm3Config(): LFM3-1.7B's shape
1728801536
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.short_conv import short_conv
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.norm import rms_norm
from ..tree import Dim, Module, Param
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, floordiv, kv_heads, layer_list, rope_buffers, rotary_dim
from .family import Keys, register_family

__all__ = ["KEYS", "lfm3", "DEFAULT_ROPE"]

#: ``Lfm3Config``'s shape keys and defaults (configuration_lfm3.py 55-77).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 128_000,
    "hidden_size": 2048,
    "intermediate_size": 7680,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "tie_word_embeddings": True,
    "conv_bias": False,
    "conv_L_cache": 7,
    "layer_types": None,
    "sliding_window": 256,
    "use_sandwich_norm": True,
    "use_attention_gate": True,
    "attention_bias": False,
}
#: ``Lfm3Config``'s every key at transformers 5.23.0 (configuration_lfm3.py): the shape keys with their defaults
#: (``rope_parameters``: the rotary buffers' widths per layer type, read below), the others with why they shape nothing; ``rms_norm_eps``
#: is its ``attribute_map`` name of ``norm_eps``.
KEYS = Keys(
    "Lfm3Config",
    {**_DEFAULTS, "rope_parameters": None},
    {k: DECODER_INERT[k] for k in ("max_position_embeddings", "norm_eps", "attention_dropout", "rope_theta")},
    {"rms_norm_eps": "norm_eps"},
)  # fmt: skip
#: ``Lfm3Config.__post_init__``'s ``rope_parameters`` (configuration_lfm3.py 85-93), by layer type.
DEFAULT_ROPE = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
    "full_attention": {"rope_type": "proportional", "rope_theta": 1_000_000.0, "partial_rotary_factor": 0.5},
}
_KINDS = ("conv", "full_attention", "sliding_attention")
_SOURCE = (
    "transformers/models/lfm3/configuration_lfm3.py 55-98, modeling_lfm3.py 62-135, 224-247, 341-363, "
    "409-426, 498-512, 587-597; modeling_rope_utils.py 194-260"
)


def _kinds(c: Mapping[str, Any], layers: int) -> list[str]:
    kinds = c["layer_types"]
    if kinds is None:
        return ["full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i > 0 else "conv" for i in range(layers)]  # fmt: skip
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    if any(kind not in _KINDS for kind in kinds):
        raise ValueError(f"config key 'layer_types' must hold {_KINDS} (LFM3's masks), got {kinds!r:.80}")
    return list(kinds)


def _rotary(config: Mapping[str, Any], kinds: list[str], d: Dim) -> tuple[Param, ...]:
    """Each attention type's pair of buffers (see the module's docstring)."""
    rope = config.get("rope_parameters")
    rope = DEFAULT_ROPE if rope is None else rope
    buffers: tuple[Param, ...] = ()
    for kind in ("full_attention", "sliding_attention"):  # Lfm3Config._rope_type_labels
        if kind not in kinds:
            continue
        entry = rope.get(kind) if isinstance(rope, Mapping) else None
        if not isinstance(entry, Mapping):
            raise ValueError(
                f"config key 'rope_parameters' needs an object for {kind!r} (LFM3 reads one per layer type)"
            )
        if entry.get("rope_type", entry.get("type", "default")) == "proportional":
            factor = entry.get("partial_rotary_factor", 1.0)
            if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1:
                raise ValueError(f"config key 'rope_parameters': {kind} partial_rotary_factor must be in (0, 1]")
            width = 2 * floordiv(d, 2)  # d // 2 angles, the unrotated ones as zeros
        else:
            width = rotary_dim({"rope_parameters": entry}, d, 1.0, plain_reads_factor=False, given=True)
        buffers += rope_buffers(width, prefix=f"{kind}_")
    return buffers


def lfm3(config: Mapping[str, Any]) -> Module:
    """``Lfm3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Lfm3Config``'s defaults (LFM3-1.7B's shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a layer pattern transformers would not run, a sliding layer without
        ``sliding_window``, a ``rope_parameters`` without an entry per attention type or of a RoPE
        derive does not know, naming the key.
    """
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes LFM3's layer pattern")
    H, d = hf_config.size(c, "num_attention_heads"), hf_config.size(c, "head_dim")
    KV, K = kv_heads(c, H), hf_config.size(c, "conv_L_cache")
    flags = {
        k: hf_config.flag(c, k) for k in ("conv_bias", "use_sandwich_norm", "use_attention_gate", "attention_bias")
    }
    tie = hf_config.flag(c, "tie_word_embeddings")
    kinds = _kinds(c, L)
    window = None
    if "sliding_attention" in kinds:
        if c["sliding_window"] is None:
            raise ValueError("config key 'sliding_window' is None, and layer_types holds sliding_attention layers")
        window = hf_config.size(c, "sliding_window")
    rotary = _rotary(config, kinds, d)

    def make(kind: str) -> Module:
        if kind == "conv":
            mixer = short_conv(D, K, conv_bias=flags["conv_bias"], spelling="lfm3")
        else:
            mixer = self_attention(
                D, H, KV, d, bias=flags["attention_bias"], qk_norm=True, norm_type="Lfm3RMSNorm",
                window=window if kind == "sliding_attention" else None, type="Lfm3Attention",
            )  # fmt: skip
            if flags["use_attention_gate"]:
                mixer = mixer.replace(children=mixer.children + (linear(D, H, False, name="g_proj"),))
        ff = Module(
            "feed_forward",
            "Lfm3MLP",
            children=(linear(D, F, False, name="w1"), linear(D, F, False, name="w3"), linear(F, D, False, name="w2")),
            part="MLP",
        )
        names = ("operator_norm", "ffn_norm") + (("post_operator_norm", "post_ffn_norm") if flags["use_sandwich_norm"] else ())  # fmt: skip
        norms = tuple(rms_norm((D,), name=n, type="Lfm3RMSNorm") for n in names)
        return Module("", "Lfm3DecoderLayer", children=(mixer, ff, *norms))

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, conv_L_cache=K, sliding_window=window)
    shape.update(**flags, layer_types=kinds, tie_word_embeddings=tie, _fixed=("num_hidden_layers", "layer_types"))
    return causal_lm(
        "Lfm3", vocab=V, hidden=D, layers=layer_list(make, kinds, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="embedding_norm", type="Lfm3RMSNorm"), rotary=rotary,
    )  # fmt: skip


register_family("lfm3", "Lfm3Config", "Lfm3ForCausalLM", lfm3, _SOURCE, keys=KEYS)
