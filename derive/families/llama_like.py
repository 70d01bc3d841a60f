"""What the Llama-like families share beyond :mod:`derive.families.decoder`: the head width each
attention reads, the cache transformers' ``DynamicCache`` makes from keys a config class may not define,
attention with its QK-norms named and sized as the family has them, and the RoPE check.

- :func:`head_width`: ``head_dim`` as each family's attention reads it. The classes differ: some
  fill a null ``head_dim`` in ``__post_init__`` (``configuration_ernie4_5.py`` 87), some read
  ``getattr(config, "head_dim", hidden_size // num_attention_heads)`` of a class without the key
  (``modeling_granite.py`` 121) or with a null default (``modeling_ministral.py`` 144) — a null
  ``head_dim`` there is ``None ** -0.5``, a ``TypeError``, refused here naming the key.
- :func:`cache_windows`: each layer's cache as ``DynamicCache(config=...)`` makes it
  (``cache_utils.py`` 1910-1957 ``get_layer_types_and_kwargs``, 1419-1434): from the config's
  ``layer_types`` when it has one (``sliding_attention`` and ``chunked_attention`` layers keep
  ``window - 1`` tokens, ``DynamicSlidingWindowLayer``), else every layer sliding when the config has
  a ``sliding_window`` (or chunked with an ``attention_chunk_size``), else full. It reads them off any
  config, so a ``sliding_window`` key Granite's class does not define still makes Granite's cache
  keep ``window - 1`` tokens, and its attention then sees only those (``cache_utils.py`` 196-256):
  its FLOPs follow the cache.
- :func:`attention`: :func:`derive.layers.lm_attention.self_attention` with the family's norms on
  the queries and keys (HunYuan's ``query_layernorm``/``key_layernorm`` of ``head_dim``,
  MiniMax-M2's ``q_norm``/``k_norm`` over all heads).

>>> head_width({}, {"head_dim": None}, 4096, 32, cls="Ernie4_5Config", null="derived")
128
>>> cache_windows({"sliding_window": 8}, 2, types=["sliding_attention", "full_attention"])
(None, [8, None])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.lm_attention import self_attention
from ..layers.norm import rms_norm
from ..tree import Dim, Module, Param
from .decoder import causal_lm, floordiv, kinds_of, kv_heads, layer_list, rope_buffers
from .decoder import check_rope as _check_rope

__all__ = [
    "CACHE_KEYS",
    "ROPE_INERT",
    "ATTENTION_KINDS",
    "head_width",
    "cache_windows",
    "cache_shape",
    "pattern_kinds",
    "not_null",
    "attention",
    "check_rope",
    "lm",
]

#: The keys ``DynamicCache`` reads off any config (``cache_utils.py`` 1918-1948), shape keys of a family
#: whose class does not define them (absent: none).
CACHE_KEYS: dict[str, Any] = {"sliding_window": None, "layer_types": None, "attention_chunk_size": None}
#: A key every config may carry that :func:`check_rope` checks, with why it is inert, for a family's ``Keys``.
ROPE_INERT: dict[str, str] = {
    "partial_rotary_factor": "the RoPE's rotated fraction, which the class moves into rope_parameters (checked: 1.0)",
}
#: The layer kinds of a cache's attention layers (``DYNAMIC_LAYER_TYPE_MAPPING``).
ATTENTION_KINDS = ("full_attention", "sliding_attention", "chunked_attention")


def head_width(config: Mapping[str, Any], c: Mapping[str, Any], hidden: Dim, heads: Dim, *, cls: str, null: str) -> Dim:
    """``head_dim`` as the family's attention reads it.

    Parameters
    ----------
    config : mapping
        The config as given (to tell a null ``head_dim`` given from one absent).
    c : mapping
        The resolved config.
    hidden, heads : int or sympy.Expr
        ``hidden_size`` and ``num_attention_heads``.
    cls : str
        The attention's class, named in a refusal.
    null : {"derived", "given", "refused"}
        What a null ``head_dim`` is: ``"derived"``, ``hidden_size // num_attention_heads`` (the class's
        ``__post_init__``, or ``getattr(config, "head_dim", None) or ...``); ``"given"``, that only
        when the key is absent (a class without ``head_dim`` read with ``getattr``'s default) and refused
        when given null; ``"refused"``, always refused (the class's own default is null).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A null ``head_dim`` the attention cannot use, or one that is not a size, naming the key.
    """
    if c.get("head_dim") is not None:
        return hf_config.size(c, "head_dim")
    if null == "derived" or (null == "given" and "head_dim" not in config):
        return floordiv(hidden, heads)
    raise ValueError(
        f"config key 'head_dim' is null: {cls} reads it as the head width (None ** -0.5 fails in transformers); "
        f"give head_dim"
    )


def cache_windows(
    c: Mapping[str, Any], layers: Dim, *, types: Sequence[str] | None, allowed: Sequence[str] = ATTENTION_KINDS
) -> tuple[Dim | None, list[Any] | None]:
    """Each layer's sliding window as transformers' ``DynamicCache`` makes it (see the module's docstring).

    Parameters
    ----------
    c : mapping
        The resolved config: ``sliding_window`` and ``attention_chunk_size`` (absent: None).
    layers : int or sympy.Expr
        ``num_hidden_layers`` (a number when ``types`` is given).
    types : sequence of str or None
        ``layer_types`` as the config object holds it (the class's own default made, or the key as given).
    allowed : sequence of str
        The kinds the family's forward runs.

    Returns
    -------
    (window, windows)
        ``windows`` None: every layer's window is ``window`` (None: full attention); else one per layer.

    Raises
    ------
    ValueError
        A ``layer_types`` of another length or kind, a sliding (chunked) layer without a
        ``sliding_window`` (``attention_chunk_size``): ``DynamicSlidingWindowLayer(None)`` fails at the
        first forward; naming the key.
    """
    window = None if c.get("sliding_window") is None else hf_config.size(c, "sliding_window")
    chunk = None if c.get("attention_chunk_size") is None else hf_config.size(c, "attention_chunk_size")
    if types is None:
        return (window if window is not None else chunk), None
    kinds = kinds_of("layer_types", types, layers, allowed)
    windows: list[Any] = []
    for kind in kinds:
        if kind == "full_attention":
            windows.append(None)
            continue
        key, size = ("sliding_window", window) if kind == "sliding_attention" else ("attention_chunk_size", chunk)
        if size is None:
            raise ValueError(
                f"config key 'layer_types' has {kind} layers but {key} is null: transformers' cache "
                f"(DynamicSlidingWindowLayer(None)) fails at the first forward"
            )
        windows.append(size)
    return None, windows


def pattern_kinds(layers: Any, every: Any, key: str) -> list[str]:
    """``layer_types`` made from a pattern: layer i full when (i + 1) is a multiple of ``every``, else sliding
    (``configuration_exaone4.py`` 103-108, ``configuration_cohere2.py`` 95-101).

    Parameters
    ----------
    layers : int
        ``num_hidden_layers``.
    every : object
        The pattern's value.
    key : str
        Its key, named in a refusal.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        A pattern that is not a nonzero int (``(i + 1) % 0`` or ``% "LLG"`` fails in transformers), or a
        layer count that is not a number, naming the key.
    """
    if isinstance(every, bool) or type(every) is not int or every == 0:
        raise ValueError(f"config key {key!r} must be a nonzero int without layer_types (transformers computes (i + 1) % {every!r})")  # fmt: skip
    if type(layers) is not int:
        raise ValueError(f"config key 'num_hidden_layers' must be a number: {key!r} fixes the layer pattern")
    return ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(layers)]


def cache_shape(
    c: Mapping[str, Any], window: Any, windows: list[Any] | None, *, null_window: bool = False
) -> dict[str, Any]:
    """The cache keys of a model's config (:data:`~derive.families.llama_like.CACHE_KEYS` that are set).

    Parameters
    ----------
    c : mapping
        The resolved config.
    window, windows
        :func:`~derive.families.llama_like.cache_windows`' answer.
    null_window : bool, default False
        Keep a null ``sliding_window`` (the class's default is not null).

    Returns
    -------
    dict
        ``sliding_window`` (when set, or ``null_window``), ``attention_chunk_size`` when set,
        ``layer_types`` (a tuple) and ``_fixed`` when the windows go by layer.
    """
    shape: dict[str, Any] = {"sliding_window": None} if null_window else {}
    if c.get("sliding_window") is not None:
        shape["sliding_window"] = hf_config.size(c, "sliding_window")
    if c.get("attention_chunk_size") is not None:
        shape["attention_chunk_size"] = hf_config.size(c, "attention_chunk_size")
    if windows is not None:
        shape.update(layer_types=tuple(c["layer_types"]), _fixed=("num_hidden_layers",))
    return shape


def not_null(config: Mapping[str, Any], keys: Sequence[str], cls: str) -> None:
    """Refuse a null value for a key its ``@strict`` class types without ``None`` (``num_key_value_heads: int``).

    Parameters
    ----------
    config : mapping
        The config as given.
    keys : sequence of str
        The class's keys typed without ``None``.
    cls : str
        The config class, for the message.

    Raises
    ------
    ValueError
        Naming the key.
    """
    for key in keys:
        if key in config and config[key] is None:
            raise ValueError(f"config key {key!r} is null: {cls} types it int (@strict refuses None)")


def attention(
    hidden: Dim,
    heads: Dim,
    kv: Dim,
    head_dim: Dim,
    *,
    type: str,
    bias: bool = False,
    output_bias: bool | None = None,
    window: Dim | None = None,
    norms: Sequence[tuple[str, Dim]] = (),
    norm_type: str = "RMSNorm",
) -> Module:
    """``self_attn``: q/k/v/o (:func:`~derive.layers.lm_attention.self_attention`), then ``norms``.

    Parameters
    ----------
    hidden, heads, kv, head_dim : int or sympy.Expr
        D, H, KV and d.
    type : str
        The class (``"HunYuanDenseV1Attention"``).
    bias, output_bias : bool
        On q/k/v, and on o (default ``bias``).
    window : int or sympy.Expr, optional
        The layer's cache window.
    norms : sequence of (name, width)
        The RMSNorms after the projections, in order (``("query_layernorm", d)``).
    norm_type : str

    Returns
    -------
    derive.tree.Module
    """
    attn = self_attention(hidden, heads, kv, head_dim, bias=bias, output_bias=output_bias, window=window, type=type)
    extra = tuple(rms_norm((width,), name=name, type=norm_type) for name, width in norms)
    return attn.replace(children=attn.children + extra)


def check_rope(config: Mapping[str, Any]) -> None:
    """:func:`derive.families.decoder.check_rope`, and a top-level ``partial_rotary_factor`` (which
    ``convert_rope_params_to_dict`` moves into ``rope_parameters``, ``modeling_rope_utils.py`` 786-796) of 1.

    Parameters
    ----------
    config : mapping

    Raises
    ------
    ValueError
        Naming the key.
    """
    _check_rope(config)
    factor = config.get("partial_rotary_factor")
    if factor is not None and factor != 1.0:
        raise ValueError(f"config key 'partial_rotary_factor' {factor!r} is not derived (only 1.0)")


def lm(
    c: Mapping[str, Any],
    *,
    prefix: str,
    layer: Callable[[Any], Module],
    kinds: Sequence[Any] | None,
    head_dim: Dim,
    shape: Mapping[str, Any],
    norm: Module | None = None,
    rotary: tuple[Param, ...] | None = None,
    embed: Module | None = None,
) -> Module:
    """``{prefix}ForCausalLM`` of ``layer(kind)`` decoder layers (:func:`~derive.families.decoder.causal_lm`),
    its config the shape keys every Llama-like class has and the family's ``shape``.

    Parameters
    ----------
    c : mapping
        The resolved config.
    prefix : str
    layer : callable (kind) -> Module
        A decoder layer of a kind (its name is replaced).
    kinds : sequence or None
        Each layer's kind; None: every layer ``layer(None)`` (``num_hidden_layers`` may be a symbol).
    head_dim : int or sympy.Expr
        d, for the rotary embedding's buffers (and the config, where ``c`` gives it).
    shape : mapping
        The family's own shape keys for the model's config.
    norm : derive.tree.Module, optional
        The final norm (default ``{prefix}RMSNorm``).
    rotary : tuple of derive.tree.Param, optional
        The rotary embedding's buffers (default ``rope_buffers(head_dim)``).
    embed : derive.tree.Module, optional
        The family's own ``embed_tokens`` (Gemma's scaled embedding; default an ``Embedding``).

    Returns
    -------
    derive.tree.Module
    """
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L, H = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_attention_heads")
    kv = kv_heads(c, H)
    tie = hf_config.flag(c, "tie_word_embeddings")
    config: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L}
    if "intermediate_size" in c:
        config["intermediate_size"] = hf_config.size(c, "intermediate_size")
    config.update(num_attention_heads=H, num_key_value_heads=kv)
    if c.get("head_dim") is not None:  # else hidden_size // num_attention_heads again
        config["head_dim"] = head_dim
    config.update(shape, tie_word_embeddings=tie)
    return causal_lm(
        prefix, vocab=V, hidden=D, layers=layer_list(layer, kinds, L), tie=tie, config=config, norm=norm,
        rotary=rope_buffers(head_dim) if rotary is None else rotary, embed=embed,
    )  # fmt: skip
