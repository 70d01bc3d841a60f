"""Qwen2 (``model_type`` ``qwen2``): Llama's layers with q/k/v biases, and sliding windows by layer.

``Qwen2ForCausalLM`` (``models/qwen2/modeling_qwen2.py`` 34-47 ``Qwen2MLP``, 50-84
``Qwen2RotaryEmbedding``, 168-185 ``Qwen2Attention``: q/k/v biased, ``o_proj`` not, ``head_dim`` read
with ``getattr(config, "head_dim", hidden_size // num_attention_heads)``, 230-236 ``Qwen2RMSNorm``,
250-259 ``Qwen2DecoderLayer``, 313-326 ``Qwen2Model``, 398-408). ``Qwen2Config``
(``configuration_qwen2.py`` 61-96) defines no ``head_dim``: a config.json's is kept as an attribute,
which the attention and the rotary embedding read. ``__post_init__``: ``sliding_window`` counts
only when ``use_sliding_window``; ``layer_types`` (default: ``sliding_attention`` for layers from
``max_window_layers`` on, when there is a window) says which layers' caches are
``DynamicSlidingWindowLayer`` s keeping ``sliding_window - 1`` tokens (``cache_utils.py`` 196-256,
1910-1957: ``DynamicCache(config=...)``, ``modeling_qwen2.py`` 351).

The sliding-window rules Qwen3 shares (:func:`sliding_kinds`, :func:`windows`) are here.

>>> from derive.tree import count
>>> count(qwen2({"vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
...              "num_attention_heads": 14, "num_key_value_heads": 2, "tie_word_embeddings": True}))  # Qwen2-0.5B
494032768
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, check_rope, decoder, layer_types
from .family import Keys, register_family

__all__ = [
    "QWEN2_DEFAULTS",
    "KEYS",
    "INERT",
    "KINDS",
    "qwen2",
    "sliding_kinds",
    "windows",
    "window_shape",
    "pattern_int",
    "sliding_window",
    "window_layers",
    "check_head_dim",
]

#: ``Qwen2Config``'s shape keys and defaults (configuration_qwen2.py 61-77), and ``head_dim``, which
#: the class does not define but its attention reads (None: ``hidden_size // num_attention_heads``).
QWEN2_DEFAULTS: dict[str, Any] = {
    "vocab_size": 151936,
    "hidden_size": 4096,
    "intermediate_size": 22016,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "head_dim": None,
    "tie_word_embeddings": False,
    "use_sliding_window": False,
    "sliding_window": 4096,
    "max_window_layers": 28,
    "layer_types": None,
}
#: The Qwen configs' keys that shape nothing, with why.
INERT: dict[str, str] = {
    k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", *ROPE_KEYS)
}
#: ``Qwen2Config``'s every key (configuration_qwen2.py 61-81).
KEYS = Keys("Qwen2Config", QWEN2_DEFAULTS, INERT)
#: The layer types the Qwen decoders build (their forward's mask mapping has these two).
KINDS = ("full_attention", "sliding_attention")
_SOURCE = (
    "transformers/models/qwen2/configuration_qwen2.py 61-96, modeling_qwen2.py 34-84, 168-185, 230-259, "
    "313-326, 351, 398-408; cache_utils.py 196-256, 1910-1957"
)


def pattern_int(c: Mapping[str, Any], key: str) -> int:
    """A key that fixes the layer pattern (``max_window_layers``): an int (any sign, as the ``@strict``
    class takes), never a symbol.

    Parameters
    ----------
    c : mapping
        The resolved config.
    key : str

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Not an int (a symbol, a float, a bool, None), naming the key.
    """
    value = c[key]
    if hf_config.symbolic(value):
        raise ValueError(f"config key {key!r} must be a number: it fixes the layer pattern")
    if isinstance(value, bool) or type(value) is not int:
        raise ValueError(f"config key {key!r} must be an int, got {value!r:.60}")
    return value


def sliding_window(c: Mapping[str, Any], unused: Any) -> Any:
    """The window the config class keeps: ``sliding_window`` when ``use_sliding_window``, else ``unused``
    (None for Qwen2, Qwen3 and Qwen3-MoE, 0 for Qwen2-MoE: their ``__post_init__``).

    Parameters
    ----------
    c : mapping
        The resolved config.
    unused : object

    Returns
    -------
    int, sympy.Expr or None
        Unchecked as a size (:func:`windows` checks it where a layer slides).

    Raises
    ------
    ValueError
        ``use_sliding_window`` not a bool, ``sliding_window`` neither an int nor null (the ``@strict`` class
        refuses them), naming the key.
    """
    use = hf_config.flag(c, "use_sliding_window")
    value = c["sliding_window"]
    if value is not None and not hf_config.symbolic(value) and (isinstance(value, bool) or type(value) is not int):
        raise ValueError(f"config key 'sliding_window' must be an int or null, got {value!r:.60}")
    return value if use else unused


def window_layers(c: Mapping[str, Any], *, pattern: bool) -> int:
    """``max_window_layers``, checked as the ``@strict`` class checks it (an int); a number where it makes
    the layer pattern.

    Parameters
    ----------
    c : mapping
        The resolved config.
    pattern : bool
        It makes the pattern (a window, no ``layer_types``): a symbol is refused.

    Returns
    -------
    int
        0 for a symbol where it makes no pattern.

    Raises
    ------
    ValueError
        See :func:`pattern_int`.
    """
    if not pattern and hf_config.symbolic(c["max_window_layers"]):
        return 0
    return pattern_int(c, "max_window_layers")


def check_head_dim(config: Mapping[str, Any]) -> None:
    """Refuse a ``head_dim`` given as null: the attention reads it with ``getattr`` and fails on None.

    Parameters
    ----------
    config : mapping
        The config as given.

    Raises
    ------
    ValueError
        ``head_dim`` present and None.
    """
    if "head_dim" in config and config["head_dim"] is None:
        raise ValueError(
            "config key 'head_dim' is null: the attention reads getattr(config, 'head_dim', ...) and fails on None "
            "(leave the key out for hidden_size // num_attention_heads)"
        )


def sliding_kinds(c: Mapping[str, Any], layers: Dim, window: Any, sliding: Any) -> list[str] | None:
    """Each layer's type: ``layer_types`` as given (checked), else ``sliding_attention`` where
    ``sliding(i)`` holds (the config class's ``__post_init__`` rule); None when no layer slides and
    the number of layers may stay a symbol.

    Parameters
    ----------
    c : mapping
        The resolved config.
    layers : int or sympy.Expr
        ``num_hidden_layers``.
    window : object
        The window the config class keeps (``sliding_window``, or what ``use_sliding_window`` makes of it).
    sliding : callable (int) -> bool, or None
        The class's default rule for layer i; None: no default rule (every layer full).

    Returns
    -------
    list of str or None

    Raises
    ------
    ValueError
        A ``layer_types`` of the wrong length or kind; a symbolic ``num_hidden_layers`` where the rule
        would make sliding layers.
    """
    given = layer_types(c, layers, KINDS)
    if given is not None:
        return given if "sliding_attention" in given else None
    if sliding is None:
        return None
    if type(layers) is not int:
        raise ValueError(
            "config key 'num_hidden_layers' must be a number with use_sliding_window: the sliding layers depend on it"
        )
    kinds = ["sliding_attention" if sliding(i) else "full_attention" for i in range(layers)]
    return kinds if "sliding_attention" in kinds else None


def windows(kinds: Sequence[str] | None, window: Any) -> list[Dim | None] | None:
    """Each layer's sliding window (None: a full-attention layer), from its types.

    Parameters
    ----------
    kinds : sequence of str or None
        From :func:`sliding_kinds` (None: no sliding layer).
    window : object
        The window the config class keeps for its sliding layers.

    Returns
    -------
    list or None
        None when no layer slides.

    Raises
    ------
    ValueError
        Sliding layers without a window of at least 1 (transformers' ``DynamicSlidingWindowLayer`` fails
        at the first forward), naming ``sliding_window``.
    """
    if kinds is None:
        return None
    if window is None or (type(window) is int and window < 1):
        raise ValueError(
            f"config key 'sliding_window' is {window!r} for layers of layer_types' sliding_attention (a window "
            "needs use_sliding_window true and a sliding_window of at least 1)"
        )
    w = hf_config.size({"sliding_window": window}, "sliding_window")
    return [w if k == "sliding_attention" else None for k in kinds]


def window_shape(kinds: Sequence[str] | None, layer_windows: Sequence[Any] | None) -> dict[str, Any]:
    """The model's config keys for its windows: the pattern as ``layer_types`` (fixing the layer count), or
    ``use_sliding_window`` false where no layer slides.

    Parameters
    ----------
    kinds : sequence of str or None
    layer_windows : sequence or None
        From :func:`windows`.

    Returns
    -------
    dict
    """
    if kinds is None or layer_windows is None:
        return {"use_sliding_window": False}
    w = next(x for x in layer_windows if x is not None)
    return {
        "use_sliding_window": True,
        "sliding_window": w,
        "layer_types": list(kinds),
        "_fixed": ("num_hidden_layers",),
    }


def qwen2(config: Mapping[str, Any]) -> Module:
    """``Qwen2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen2Config``'s defaults; sizes may be SymPy symbols (not the number of layers
        with sliding windows).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A ``layer_types`` of the wrong length or kind, a sliding layer without a window, a null
        ``head_dim``, naming the key.
    """
    c = KEYS.resolve(config)
    check_rope(config)
    check_head_dim(config)
    L = hf_config.size(c, "num_hidden_layers", 0)
    window = sliding_window(c, None)
    first = window_layers(c, pattern=window is not None and c["layer_types"] is None)
    kinds = sliding_kinds(c, L, window, (lambda i: i >= first) if window is not None else None)
    layer_windows = windows(kinds, window)
    shape = window_shape(kinds, layer_windows)
    return decoder(c, prefix="Qwen2", qkv_bias=True, o_bias=False, windows=layer_windows, shape=shape)


register_family("qwen2", "Qwen2Config", "Qwen2ForCausalLM", qwen2, _SOURCE, keys=KEYS)
