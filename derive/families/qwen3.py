"""Qwen3 (``model_type`` ``qwen3``): Qwen2's layers with QK-norms, ``attention_bias`` on all four
projections, a ``head_dim`` of its own, and sliding windows by layer.

``Qwen3ForCausalLM`` (``models/qwen3/modeling_qwen3.py`` 49-55 ``Qwen3RMSNorm``, 69-82 ``Qwen3MLP``,
85-119 ``Qwen3RotaryEmbedding``, 203-231 ``Qwen3Attention``: ``q_proj``/``k_proj``/``v_proj``/``o_proj``
biased when ``attention_bias``, then ``q_norm`` and ``k_norm``, RMSNorms of ``head_dim``, 275-283
``Qwen3DecoderLayer``, 338-351 ``Qwen3Model``, 423-433). ``Qwen3Config`` (``configuration_qwen3.py``
62-98) is Qwen2's with ``head_dim`` (default 128, not ``hidden_size // num_attention_heads``) and
``attention_bias``; its windows follow Qwen2's rules (:func:`derive.families.qwen2.sliding_kinds`):
``sliding_window`` only with ``use_sliding_window``, ``layer_types`` (default: sliding from
``max_window_layers`` on) naming the layers whose caches keep ``sliding_window - 1`` tokens.

:func:`qwen_decoder` is the decoder the Qwen2/Qwen3 models share, their layers each an attention
(with or without QK-norms and biases, a window or none) and a gated MLP or a sparse MoE block;
Qwen3-MoE and Qwen2-MoE build with it (:mod:`derive.families.qwen3_moe`,
:mod:`derive.families.qwen2_moe`).

>>> from derive.tree import count
>>> count(qwen3({"hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36, "num_key_value_heads": 8}))
8190735360
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from .decoder import causal_lm, check_rope, kv_heads, layer_list, rope_buffers
from .family import Keys, register_family
from .qwen2 import INERT, QWEN2_DEFAULTS, sliding_kinds, sliding_window, window_layers, window_shape, windows

__all__ = ["QWEN3_DEFAULTS", "KEYS", "qwen3", "qwen_decoder"]

#: ``Qwen3Config``'s shape keys and defaults (configuration_qwen3.py 62-80).
QWEN3_DEFAULTS: dict[str, Any] = {**QWEN2_DEFAULTS, "head_dim": 128, "attention_bias": False}
#: ``Qwen3Config``'s every key (configuration_qwen3.py 62-84).
KEYS = Keys("Qwen3Config", QWEN3_DEFAULTS, INERT)
_SOURCE = (
    "transformers/models/qwen3/configuration_qwen3.py 62-98, modeling_qwen3.py 49-119, 203-231, 275-283, "
    "338-351, 376, 423-433; cache_utils.py 196-256, 1910-1957"
)


def qwen_decoder(
    c: Mapping[str, Any],
    *,
    prefix: str,
    head_dim: Dim,
    qkv_bias: bool,
    o_bias: bool,
    qk_norm: bool,
    kv: Dim | None = None,
    layer_windows: Sequence[Dim | None] | None = None,
    window: Dim | None = None,
    sparse: bool | Sequence[bool] = False,
    moe: Callable[[Dim], Module] | None = None,
    intermediate_minimum: int = 1,
    shape: Mapping[str, Any] | None = None,
) -> Module:
    """``{prefix}ForCausalLM``: every layer ``self_attn``, ``mlp`` (a gated MLP of ``intermediate_size``
    or the family's sparse MoE block), ``input_layernorm`` and ``post_attention_layernorm``.

    Parameters
    ----------
    c : mapping
        The resolved config.
    prefix : str
        The class prefix (``"Qwen3Moe"``).
    head_dim : int or sympy.Expr
        d, the attention's (and the QK-norms', and the rotary embedding's: ⌈d/2⌉ frequencies).
    qkv_bias, o_bias, qk_norm : bool
    kv : int or sympy.Expr, optional
        Key/value heads (default :func:`derive.families.decoder.kv_heads`).
    layer_windows : sequence, optional
        Each layer's sliding window (None: full attention); None: every layer ``window``.
    window : int or sympy.Expr, optional
        One window for every layer (when ``layer_windows`` is None).
    sparse : bool or sequence of bool
        Which layers' ``mlp`` is ``moe(hidden_size)``: every one, none, or each layer's.
    moe : callable (hidden_size) -> Module, optional
        The sparse MoE block (named ``mlp``).
    intermediate_minimum : int, default 1
        The least ``intermediate_size`` taken (0 where transformers builds an empty MLP).
    shape : mapping, optional
        The family's further keys of the model's config (``_fixed`` included).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A size that is not one, naming the key.
    """
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    F = hf_config.size(c, "intermediate_size", intermediate_minimum)
    L = hf_config.size(c, "num_hidden_layers", 0)
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H) if kv is None else kv
    tie = hf_config.flag(c, "tie_word_embeddings")

    def make(kind: tuple[Any, bool]) -> Module:
        w, is_sparse = kind
        attn = self_attention(
            D, H, KV, head_dim, bias=qkv_bias, output_bias=o_bias, qk_norm=qk_norm, window=w,
            norm_type=f"{prefix}RMSNorm", type=f"{prefix}Attention",
        )  # fmt: skip
        mlp = moe(D) if is_sparse and moe is not None else gated_mlp(D, F, type=f"{prefix}MLP")
        norm = lambda n: rms_norm((D,), name=n, type=f"{prefix}RMSNorm")  # noqa: E731
        return Module(
            "", f"{prefix}DecoderLayer", children=(attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        )

    if layer_windows is None and isinstance(sparse, bool):
        layers = layer_list(lambda _: make((window, sparse)), None, L)
    else:
        ws = list(layer_windows) if layer_windows is not None else [window] * L
        ss = [sparse] * L if isinstance(sparse, bool) else list(sparse)
        layers = layer_list(make, list(zip(ws, ss)), L)
    config: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    config.update(num_attention_heads=H, num_key_value_heads=KV)
    config.update(shape or {})
    config["tie_word_embeddings"] = tie
    model = causal_lm(prefix, vocab=V, hidden=D, layers=layers, tie=tie, config=config, rotary=rope_buffers(head_dim))
    return model


def qwen3(config: Mapping[str, Any]) -> Module:
    """``Qwen3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen3Config``'s defaults; sizes may be SymPy symbols (not the number of layers
        with sliding windows).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A ``layer_types`` of the wrong length or kind, a sliding layer without a window, a ``head_dim``
        that is not a size (the ``@strict`` class refuses null), naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    d = hf_config.size(c, "head_dim")
    bias = hf_config.flag(c, "attention_bias")
    window = sliding_window(c, None)
    first = window_layers(c, pattern=window is not None and c["layer_types"] is None)
    kinds = sliding_kinds(c, L, window, (lambda i: i >= first) if window is not None else None)
    layer_windows = windows(kinds, window)
    shape = {"head_dim": d, "attention_bias": bias, **window_shape(kinds, layer_windows)}
    return qwen_decoder(
        c, prefix="Qwen3", head_dim=d, qkv_bias=bias, o_bias=bias, qk_norm=True, layer_windows=layer_windows,
        shape=shape,
    )  # fmt: skip


register_family("qwen3", "Qwen3Config", "Qwen3ForCausalLM", qwen3, _SOURCE, keys=KEYS)
