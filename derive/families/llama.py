"""Llama (``model_type`` ``llama``): the plain-attention baseline, and the builder its descendants share.

``LlamaForCausalLM`` (``models/llama/modeling_llama.py`` 152–160 ``LlamaMLP``, 206–235
``LlamaAttention``, 273–282 ``LlamaDecoderLayer``, 336–347 ``LlamaModel``, 410–420): every layer
``self_attn`` (q/k/v/o, biased when ``attention_bias``), ``mlp`` (gate/up/down, biased when
``mlp_bias``), ``input_layernorm`` and ``post_attention_layernorm``; ``model.norm``;
``model.rotary_emb``'s two buffers; ``lm_head``, untied by default. The keys and defaults are
``LlamaConfig``'s (``configuration_llama.py``).

>>> from derive.tree import count
>>> count(llama({}))   # LlamaConfig() as transformers builds it: Llama-2-7B's shape
6738415616
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..blocks import _hf, register_config
from ..engine.constructors import Constructor, register
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Dim, Module
from ._decoder import ROPE_KEYS, causal_lm, check_rope, head_dim, kv_heads, layer_list, rope_buffers

__all__ = ["DEFAULTS", "INERT", "decoder", "llama", "register_family"]

#: ``LlamaConfig``'s shape keys and their defaults (configuration_llama.py).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": None,
    "head_dim": None,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
}
#: Keys of the Llama-like configs that shape no tensor.
INERT = (
    "max_position_embeddings",
    "rms_norm_eps",
    "pretraining_tp",
    "attention_dropout",
    *ROPE_KEYS,
)
_SOURCE = (
    "transformers/models/llama/configuration_llama.py, modeling_llama.py 152-160, 206-235, 273-282, 336-347, 410-420"
)


def decoder(
    c: Mapping[str, Any],
    *,
    prefix: str,
    qkv_bias: bool,
    o_bias: bool,
    mlp_bias: bool = False,
    windows: list[Any] | None = None,
    window: Dim | None = None,
    ffn: Callable[[Dim, Dim], Module] | None = None,
    shape: Mapping[str, Any] | None = None,
) -> Module:
    """A Llama-like causal LM from a resolved config: attention, a gated MLP (or ``ffn``), two RMSNorms per layer.

    Parameters
    ----------
    c : mapping
        The resolved config (:func:`derive.blocks._hf.resolve`).
    prefix : str
        The family's class prefix (``"Mistral"``).
    qkv_bias, o_bias, mlp_bias : bool
    windows : list, optional
        Each layer's sliding window (None for a full-attention layer): the ``layer_types`` pattern.
    window : int or sympy.Expr, optional
        One window for every layer (Mistral's ``sliding_window``).
    ffn : callable (hidden, intermediate) -> Module, optional
        The layer's feed-forward block named ``mlp`` (Mixtral's sparse MoE); default a gated MLP.
    shape : mapping, optional
        Extra shape keys for the model's config.

    Returns
    -------
    derive.tree.Module
    """
    V, D = _hf.size(c, "vocab_size"), _hf.size(c, "hidden_size")
    F, L = _hf.size(c, "intermediate_size"), _hf.size(c, "num_hidden_layers", 0)
    H = _hf.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    tie = _hf.flag(c, "tie_word_embeddings")

    def make(w: Any) -> Module:
        attn = self_attention(
            D, H, KV, d, bias=qkv_bias, output_bias=o_bias, window=w if windows is not None else window,
            type=f"{prefix}Attention",
        )  # fmt: skip
        mlp = ffn(D, F) if ffn else gated_mlp(D, F, bias=mlp_bias, type=f"{prefix}MLP")
        norm = lambda n: rms_norm((D,), name=n, type=f"{prefix}RMSNorm")  # noqa: E731
        children = (attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", f"{prefix}DecoderLayer", children=children)

    config = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    config.update(num_attention_heads=H, num_key_value_heads=KV)
    if c.get("head_dim") is not None:
        config["head_dim"] = d
    config.update(shape or {})
    config["tie_word_embeddings"] = tie
    layers = layer_list(make, windows if windows is not None and len(set(windows)) > 1 else None, L)
    if windows is not None and len(set(windows)) == 1:
        layers = layer_list(lambda _: make(windows[0]), None, L)
    return causal_lm(prefix, vocab=V, hidden=D, layers=layers, tie=tie, config=config, rotary=rope_buffers(d))


def llama(config: Mapping[str, Any]) -> Module:
    """``LlamaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``LlamaConfig``'s defaults. Sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, or a value transformers refuses, naming the key.
    """
    c = _hf.resolve(config, cls="LlamaConfig", defaults=DEFAULTS, inert=INERT)
    check_rope(config)
    bias, mlp_bias = _hf.flag(c, "attention_bias"), _hf.flag(c, "mlp_bias")
    return decoder(
        c, prefix="Llama", qkv_bias=bias, o_bias=bias, mlp_bias=mlp_bias,
        shape={"attention_bias": bias, "mlp_bias": mlp_bias},
    )  # fmt: skip


def register_family(
    model_type: str,
    cls: str,
    architecture: str,
    build: Callable[[Mapping[str, Any]], Module],
    source: str,
    package: str | None = None,
) -> None:
    """Register ``build`` as the reader of ``model_type`` configs and ``cls(**kwargs)`` as code.

    Parameters
    ----------
    model_type : str
    cls : str
        The config class (``"LlamaConfig"``).
    architecture : str
        The model class (``"LlamaForCausalLM"``).
    build : callable (config) -> Module
    source : str
        The transformers files read.
    package : str, optional
        The package under ``transformers.models`` (default ``model_type``: ``gemma3`` for ``gemma3_text``).

    Raises
    ------
    ValueError
        ``model_type`` or the config class is registered already.
    TypeError
        (Raised by the registered ``cls(...)``) a positional argument: a config class takes keywords only.
    """
    package = package or model_type
    register_config(model_type, architecture=architecture, source=source)(build)

    def make(*args: Any, **kwargs: Any) -> Module:
        if args:
            raise TypeError(f"{cls} accepts only keyword arguments")
        return build(kwargs)

    register(
        Constructor(
            "transformers",
            cls,
            make,
            prefixes=("", "transformers.", f"transformers.models.{package}."),
            module_types=(f"transformers.models.{package}.configuration_{package}",),
            source=source,
        )
    )


register_family("llama", "LlamaConfig", "LlamaForCausalLM", llama, _SOURCE)
