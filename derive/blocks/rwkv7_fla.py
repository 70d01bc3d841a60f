"""flash-linear-attention's RWKV-7: ``RWKV7Attention`` with its own signature and names and
``RWKV7ForCausalLM`` from an ``RWKV7Config`` (``model_type`` "rwkv7").

Sources: flash-linear-attention 0.6.0 ``fla/layers/rwkv7.py`` 32–140 (tensors), 158–205 (the
initialisation of a numbered layer, whose failures derive refuses); ``fla/models/rwkv7/
configuration_rwkv7.py`` 22–108, ``modeling_rwkv7.py`` 37–64, 113–166, 273–290, 414–426. The ranks
follow BlinkDL's rule (:func:`derive.blocks.rwkv7.lora_rank`) times ``head_dim/64`` when not given, but
``RWKV7Config``'s defaults are fixed numbers (64, 64, 16, 128); layer 0 has no value LoRA.

>>> rwkv7_attention(hidden_size=768, layer_idx=0, num_hidden_layers=12).count == 4 * 768**2 + 2 * 768 * (64 + 64 + 128) + 13 * 768
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from . import register_config
from ._keys import config_constructor, flag, is_int, recipe, size, value
from .hf_config import Keys
from .rwkv import mix
from .rwkv6_fla import FLA_INERT, check_fla_config, fla_block, fla_ffn_width, fla_lora, fla_model
from .rwkv7 import ranks

__all__ = ["SOURCE", "KEYS", "rwkv7_attention", "rwkv7_feed_forward", "rwkv7_for_causal_lm", "LETTERS"]

#: Where the tensors and conventions are read from (file and lines), shown on the site.
SOURCE = "flash-linear-attention 0.6.0 fla/layers/rwkv7.py 32-140; fla/models/rwkv7/"


def rwkv7_attention(mode: str = "chunk", hidden_size: Dim = 1024, head_dim: Dim | None = 64, num_heads: Dim | None = None,
                    decay_low_rank_dim: Dim | None = None, gate_low_rank_dim: Dim | None = None,
                    a_low_rank_dim: Dim | None = None, v_low_rank_dim: Dim | None = None,
                    elementwise_affine: bool | None = True, norm_eps: float = 1e-5, layer_idx: int | None = None,
                    fuse_norm: bool = False, value_dim: Dim | None = None, num_hidden_layers: int | None = None,
                    **kwargs: Any) -> Module:  # fmt: skip
    """fla's ``RWKV7Attention(...)`` with its own signature and tensor names.

    Parameters
    ----------
    mode : {"chunk", "fused_recurrent"}
    hidden_size : int or sympy.Expr, default 1024
        D (also the key width K).
    head_dim, num_heads : int, optional
        ``head_dim`` wins when both are given; one of them is required.
    decay_low_rank_dim, gate_low_rank_dim, a_low_rank_dim, v_low_rank_dim : int, optional
        Default: :func:`lora_rank` of D, times ``head_dim/64`` except the gate's.
    elementwise_affine : bool or None, default True
        ``g_norm``'s weight and bias.
    layer_idx : int, optional
        0: no ``v_lora`` (the first layer's value is ``v_first``).
    fuse_norm : bool, default False
        fla's ``GroupNorm`` or ``nn.GroupNorm`` (the same tensors).
    value_dim : int, optional
        V (default D).
    num_hidden_layers : int, optional
        Needed (and more than 1) when ``layer_idx`` is given: fla's initialisation divides by
        ``num_hidden_layers - 1`` (and by ``hidden_size - 1``, ``head_dim - 1``; it sets ``g_norm.weight``).
    norm_eps, **kwargs
        No tensors depend on them.

    Returns
    -------
    derive.tree.Module
        4D² + 2D(R_w + R_a + R_v + R_g) + 14D when V = D; 2D·R_v + D less at ``layer_idx=0``.

    Raises
    ------
    ValueError
        As fla refuses: no head size, sizes that do not divide, ``layer_idx`` without a usable
        ``num_hidden_layers``, an unknown ``mode``.
    """
    if mode not in ("chunk", "fused_recurrent"):
        raise ValueError(f"Not supported mode `{mode}`.")
    d = hidden_size
    v = d if value_dim is None else value_dim
    if head_dim is None and num_heads is None:
        raise ValueError("Either `head_dim` or `num_heads` must be specified.")
    hd, heads = _split(d, head_dim, num_heads)
    if is_int(v) and is_int(heads) and v % heads:
        raise ValueError(f"`value_dim` must be divisible by `num_heads`, got {v} and {heads}.")
    if layer_idx is not None:
        _initialisable(d, hd, num_hidden_layers, elementwise_affine, v, layer_idx)
    factor = hd / 64 if is_int(hd) else 1.0
    given = {"decay": decay_low_rank_dim, "a": a_low_rank_dim, "v": v_low_rank_dim, "gate": gate_low_rank_dim}
    if not is_int(hd) and any(given[k] is None for k in ("decay", "a", "v")):
        raise ValueError("the default LoRA ranks scale with head_dim/64: give head_dim as an int or the ranks")
    r = ranks(d, given, factor)
    params = (*(mix(f"x_{x}", d) for x in "rwkvag"), Param("k_k", (d,)), Param("k_a", (d,)), Param("r_k", (heads, hd)))
    loras: tuple[Module, ...] = (fla_lora(d, d, r["decay"], name="w_lora"),)
    if layer_idx != 0:
        loras += (fla_lora(d, v, r["v"], name="v_lora"),)
    loras += (fla_lora(d, d, r["a"], name="a_lora"), fla_lora(d, v, r["gate"], bias=False, name="g_lora"))
    norm = (Param("weight", (v,)), Param("bias", (v,))) if elementwise_affine else ()
    children = (
        linear(d, d, False, name="r_proj"),
        linear(d, d, False, name="k_proj"),
        linear(d, v, False, name="v_proj"),
        linear(v, d, False, name="o_proj"),
        *loras,
        Module("g_norm", "GroupNorm", norm),
    )
    sizes = {"hidden_size": d, "decay_low_rank_dim": r["decay"], "a_low_rank_dim": r["a"], "v_low_rank_dim": r["v"],
             "gate_low_rank_dim": r["gate"], "head_dim": hd} | ({} if value_dim is None else {"value_dim": v})  # fmt: skip
    letters = {"hidden_size": "D", "decay_low_rank_dim": "R_w", "a_low_rank_dim": "R_a", "v_low_rank_dim": "R_v",
               "gate_low_rank_dim": "R_g", "value_dim": "V"}  # fmt: skip
    first = {"layer_idx": 0, "num_hidden_layers": 2} if layer_idx == 0 else {}
    return Module("", "RWKV7Attention", params, children, config={"hidden_size": d, "head_dim": hd, "layer_idx": layer_idx},
                  formula=recipe(rwkv7_attention, sizes, letters, elementwise_affine=bool(elementwise_affine), **first))  # fmt: skip


def _initialisable(
    d: Dim, head_dim: Dim, num_hidden_layers: int | None, affine: bool | None, v: Dim, layer_idx: int
) -> None:
    """Refuse what fla's initialisation of a numbered layer fails on (``fla/layers/rwkv7.py`` 165–205):
    it divides by ``num_hidden_layers - 1``, ``hidden_size - 1`` and ``head_dim - 1``, writes
    ``g_norm.weight`` and fills the value LoRA's bias (V) with a vector of D."""
    if num_hidden_layers is None or num_hidden_layers == 1:
        raise ValueError(
            "RWKV7Attention(layer_idx=...) initialises with layer_idx / (num_hidden_layers - 1): "
            f"num_hidden_layers must be given and more than 1, got {num_hidden_layers}"
        )
    if d == 1 or head_dim == 1:
        raise ValueError(
            "RWKV7Attention(layer_idx=...) initialises dividing by hidden_size - 1 and head_dim - 1: both must exceed 1"
        )
    if not affine:
        raise ValueError("RWKV7Attention(layer_idx=...) initialises g_norm.weight: elementwise_affine must be true")
    if layer_idx != 0 and is_int(v) and is_int(d) and v != d:  # a closed form may give one as a letter
        raise ValueError(
            f"RWKV7Attention(layer_idx={layer_idx}) fills v_lora's bias ({v}) with a vector of hidden_size ({d}): "
            "value_dim must equal hidden_size beyond layer 0"
        )


def rwkv7_feed_forward(hidden_size: Dim, intermediate_size: Dim) -> Module:
    """fla's ``RWKV7FeedForward`` (``fla/models/rwkv7/modeling_rwkv7.py`` 37–64): ``x_k`` (D), key D → F,
    value F → D: 2DF + D.

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr

    Returns
    -------
    derive.tree.Module
    """
    d, f = hidden_size, intermediate_size
    return Module(
        "ffn",
        "RWKV7FeedForward",
        (Param("x_k", (d,)),),
        (linear(d, f, False, name="key"), linear(f, d, False, name="value")),
    )


def _split(d: Dim, head_dim: Dim | None, num_heads: Dim | None) -> tuple[Dim, Dim]:
    """(head_dim, num_heads) as ``RWKV7Attention`` resolves them (``fla/layers/rwkv7.py`` 60–70)."""
    if head_dim is not None:
        if is_int(d) and is_int(head_dim):
            if head_dim < 1 or d % head_dim:
                raise ValueError(f"`hidden_size` must be divisible by `head_dim`, got {d} and {head_dim}.")
            return head_dim, d // head_dim
        return head_dim, d / head_dim
    assert num_heads is not None
    if is_int(d) and is_int(num_heads):
        if num_heads < 1 or d % num_heads:
            raise ValueError(f"`hidden_size` must be divisible by `num_heads`, got {d} and {num_heads}.")
        return d // num_heads, num_heads
    return d / num_heads, num_heads


#: Config keys of fla's RWKV7Config and the letters of the closed form.
LETTERS = {"vocab_size": "V", "hidden_size": "D", "num_hidden_layers": "L", "intermediate_size": "F",
           "decay_low_rank_dim": "R_w", "a_low_rank_dim": "R_a", "v_low_rank_dim": "R_v", "gate_low_rank_dim": "R_g"}  # fmt: skip


#: ``RWKV7Config``'s rank keys and defaults (``configuration_rwkv7.py`` 31–34): fixed, not the rule of C.
_RANK_DEFAULTS = {"decay": ("decay_low_rank_dim", 64), "gate": ("gate_low_rank_dim", 128), "a": ("a_low_rank_dim", 64),
                  "v": ("v_low_rank_dim", 16)}  # fmt: skip


def _rank(config: Mapping[str, Any], key: str, default: int) -> Dim | None:
    """A rank key: absent, the config's default; ``null``, None (the layer's rule of D); else a size."""
    if key not in config:
        return default
    return None if config[key] is None else size(config, key, 1)


def _value_dims(config: Mapping[str, Any], d: Dim, layers: Dim) -> list[Dim] | Dim:
    """``value_dim`` as ``RWKV7Config`` checks it (``configuration_rwkv7.py`` 68–78): one width for all
    layers, or a list of one per layer; each at least D and a multiple of D."""
    raw = value(config, "value_dim", None)
    widths = raw if isinstance(raw, list) else [d if raw is None else raw]
    if isinstance(raw, list) and is_int(layers) and len(raw) != layers:
        raise ValueError(f"config key 'value_dim' must have num_hidden_layers ({layers}) entries, got {len(raw)}")
    checked = [size({"value_dim": w}, "value_dim", d) for w in widths]
    for w in checked:
        if is_int(w) and is_int(d) and (w < d or w % d):
            raise ValueError(f"config key 'value_dim' must be a multiple of hidden_size ({d}), at least it, got {w}")
    return checked if isinstance(raw, list) else checked[0]


#: ``RWKV7Config``'s every key at flash-linear-attention 0.6.0 (``fla/models/rwkv7/configuration_rwkv7.py`` 22-53):
#: the keys the model's shapes read with the class's defaults (``attn`` read to be refused), and the inert keys it
#: shares with RWKV6Config (:data:`~derive.blocks.rwkv6_fla.FLA_INERT`). A key outside the class: answered, noted.
KEYS = Keys(
    "RWKV7Config",
    {"vocab_size": 32000, "hidden_size": 2048, "num_hidden_layers": 24, "head_dim": 64, "num_heads": None,
     "decay_low_rank_dim": 64, "gate_low_rank_dim": 128, "a_low_rank_dim": 64, "v_low_rank_dim": 16, "hidden_ratio": 4,
     "intermediate_size": None, "value_dim": None, "norm_first": True, "norm_bias": True, "attn": None,
     "tie_word_embeddings": False},
    FLA_INERT,
)  # fmt: skip


@register_config("rwkv7", architecture="RWKV7ForCausalLM", source=SOURCE, keys=KEYS)
def rwkv7_for_causal_lm(config: Mapping[str, Any]) -> Module:
    """The model fla's ``RWKV7ForCausalLM(RWKV7Config(**config))`` builds (``model_type`` "rwkv7").

    Parameters
    ----------
    config : mapping
        ``RWKV7Config`` keys (``fla/models/rwkv7/configuration_rwkv7.py`` 22–55): ``vocab_size``
        (32000), ``hidden_size`` (2048), ``num_hidden_layers`` (24), ``head_dim`` (64), ``num_heads``,
        ``decay_low_rank_dim`` (64), ``gate_low_rank_dim`` (128), ``a_low_rank_dim`` (64),
        ``v_low_rank_dim`` (16), ``hidden_ratio`` (4), ``intermediate_size``, ``value_dim``,
        ``norm_first``, ``norm_bias`` (True), ``tie_word_embeddings`` (False).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key naming a value derive cannot use; ``attn`` given; one layer (fla's initialisation
        divides by ``num_hidden_layers - 1``).
    """
    KEYS.resolve(config)
    check_fla_config(config)
    d = size(config, "hidden_size", 2048)
    layers = size(config, "num_hidden_layers", 24, minimum=0)
    if layers == 1:
        raise ValueError(
            "config key 'num_hidden_layers' is 1: fla's RWKV7 initialisation divides by num_hidden_layers - 1"
        )
    num_heads = size(config, "num_heads", 1) if config.get("num_heads") is not None else None
    head_dim: Dim | None = size(config, "head_dim", 64) if config.get("head_dim", 64) is not None else None
    if head_dim is None and num_heads is not None:  # configuration_rwkv7.py 63-64
        head_dim = d // num_heads if is_int(d) and is_int(num_heads) else d / num_heads
    if head_dim is None:
        raise ValueError("config keys 'head_dim' and 'num_heads' are both null: RWKV7Attention needs one of them")
    hd, _ = _split(d, head_dim, num_heads)
    given = {short: _rank(config, key, default) for short, (key, default) in _RANK_DEFAULTS.items()}
    if not is_int(hd) and any(given[k] is None for k in ("decay", "a", "v")):
        raise ValueError("the default LoRA ranks scale with head_dim/64: give head_dim as an int or the ranks")
    chosen = ranks(d, given, hd / 64 if is_int(hd) else 1.0)
    f = fla_ffn_width(config, d, 4)
    widths = _value_dims(config, d, layers)
    norm_first, bias = flag(config, "norm_first", True), flag(config, "norm_bias", True)
    resolved = {**config, "intermediate_size": f} | {key: chosen[short] for short, (key, _) in _RANK_DEFAULTS.items()}
    kwargs = {key: chosen[short] for short, (key, _) in _RANK_DEFAULTS.items()}
    shape = {"hidden_size": d, "head_dim": hd, "norm_first": norm_first, "norm_bias": bias}

    def block(first: bool, name: str, width: Dim) -> Module:
        att = rwkv7_attention(
            hidden_size=d, head_dim=hd, layer_idx=0 if first else 1, value_dim=width, num_hidden_layers=2, **kwargs
        )
        return fla_block(d, att, rwkv7_feed_forward(d, f), first=first, norm_first=norm_first, norm_bias=bias, name=name,
                         type="RWKV7Block")  # fmt: skip

    if isinstance(widths, list):
        blocks = tuple(block(k == 0, str(k), w) for k, w in enumerate(widths))
        return fla_model(
            resolved,
            d,
            None,
            "RWKV7ForCausalLM",
            rwkv7_for_causal_lm,
            LETTERS,
            norm_bias=bias,
            blocks=blocks,
            shape=shape,
        )
    return fla_model(resolved, d, lambda first, name: block(first, name, widths), "RWKV7ForCausalLM", rwkv7_for_causal_lm,
                     LETTERS, norm_bias=bias, shape=shape)  # fmt: skip


def _read_rwkv7(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments that remake a live ``RWKV7Attention`` (its attributes, never its weights)."""
    keys = ("mode", "hidden_size", "head_dim", "decay_low_rank_dim", "gate_low_rank_dim", "a_low_rank_dim",
            "v_low_rank_dim", "layer_idx", "fuse_norm", "value_dim", "num_hidden_layers")  # fmt: skip
    kwargs = {key: getattr(obj, key) for key in keys}
    norm = obj.g_norm
    kwargs["elementwise_affine"] = bool(getattr(norm, "elementwise_affine", getattr(norm, "affine", True)))
    return (), kwargs


register(
    Constructor(
        "fla",
        "RWKV7Attention",
        rwkv7_attention,
        prefixes=("", "fla.", "fla.layers.", "fla.layers.rwkv7.", "layers."),
        letters={
            "hidden_size": "D",
            "decay_low_rank_dim": "R_w",
            "a_low_rank_dim": "R_a",
            "v_low_rank_dim": "R_v",
            "gate_low_rank_dim": "R_g",
        },  # fmt: skip
        read=_read_rwkv7,
        module_types=("fla.layers.rwkv7",),
        source="flash-linear-attention 0.6.0 fla/layers/rwkv7.py 32-140",
    )
)

register(
    Constructor(
        "fla",
        "RWKV7Config",
        config_constructor("RWKV7Config", rwkv7_for_causal_lm),
        prefixes=("", "fla.models.", "fla.models.rwkv7."),
        module_types=("fla.models.rwkv7.configuration_rwkv7",),
        source=SOURCE,
    )
)
