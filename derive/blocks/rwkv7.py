"""RWKV-7 (Goose): BlinkDL's time mix and channel mix, and flash-linear-attention's ``RWKV7Attention``
and ``RWKV7ForCausalLM``.

BlinkDL (``RWKV-v7/train_temp/src/model.py``; C = ``n_embd``, N = ``head_size`` (64), H = C/N): the
time mix ``RWKV_Tmix_x070`` (496–576) has six token-shift vectors ``x_r, x_w, x_k, x_v, x_a, x_g``
(1, 1, C); four LoRAs with an offset each — decay ``w1`` (C, R_w), ``w2`` (R_w, C), ``w0``; in-context
rate ``a1, a2, a0``; value residual ``v1, v2, v0``; output gate ``g1, g2`` (no offset) — whose ranks
follow C (547–563): R = max(32, 32·round(k·√C/32)) with k = 2.5 (w, a), 1.7 (v), 5 (g), Python's
``round`` (half to even: C = 1024 gives R_w = 64, not 96); ``k_k``, ``k_a`` (1, 1, C), ``r_k`` (H, N);
r/k/v/output C → C without bias; ``ln_x`` GroupNorm(H, C). The channel mix ``RWKV_CMix_x070`` (706–720)
is ``x_k`` and key C → 4C, value 4C → C: 4·C, not the 3.5·C ``dim_ffn`` the model still computes and
asserts (781–784) but does not use.

Per block 12C² + 2C(R_w + R_a + R_v + R_g) + 19C. Block 0 never uses its value LoRA (its v is
``v_first``: 614): BlinkDL's training code still creates ``blocks.0.att.v0/v1/v2``, the released
``.pth`` checkpoints do not hold them, and ``rwkv_v7_demo.py`` 383 loads with ``strict=False`` to
ignore them (BlinkDL/RWKV-LM#285, #302); fla does not create them (``fla/layers/rwkv7.py`` 121–122).

fla 0.6.0 (``fla/layers/rwkv7.py`` 32–140, ``fla/models/rwkv7/``): the same tensors as ``r_proj`` ...,
``w_lora.lora.0.weight``, ``w_lora.lora.2.bias`` (= ``w0``); ranks from the same rule times
``head_dim/64`` (decay, a, v) when not given, but ``RWKV7Config``'s defaults are fixed numbers (64, 64,
16, 128), not the rule.

>>> rwkv7_blinkdl(65536, 768, 12).count, rwkv7_blinkdl(65536, 768, 12, layer0_value_lora=False).count
(191084544, 191034624)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..layers.norm import group_norm
from ..tree import Dim, Module, Param
from . import register_config
from ._keys import flag, is_int, recipe, size, value
from .rwkv import blinkdl_model, block_frame, mix
from .rwkv6 import _refuse_hybrid, fla_block, fla_ffn_width, fla_lora, fla_model

__all__ = ["SOURCE", "EQUATIONS", "lora_rank", "rwkv7_time_mix", "rwkv7_channel_mix", "rwkv7_blinkdl",
           "rwkv7_attention", "rwkv7_for_causal_lm", "RANK_FACTORS"]  # fmt: skip

SOURCE = {
    "blinkdl": "BlinkDL/RWKV-LM RWKV-v7/train_temp/src/model.py 496-576, 706-791",
    "fla": "flash-linear-attention 0.6.0 fla/layers/rwkv7.py 32-140; fla/models/rwkv7/",
}

#: The RWKV-7 time mix (Peng et al. 2025, "Goose"), in BlinkDL's tensors.
EQUATIONS = (
    r"x^\star_t = x_t + (x_{t-1} - x_t) \odot x_\star \quad (\star \in \{r,w,k,v,a,g\};\ (1,1,C))",
    r"w_t = \exp\!\big(-e^{-0.5}\sigma(w_0 + \tanh(x^w_t W_1) W_2)\big),\quad "
    r"a_t = \sigma(a_0 + x^a_t A_1 A_2),\quad g_t = \sigma(x^g_t G_1) G_2",
    r"v_t \leftarrow v_t + (v_{\text{first}} - v_t) \odot \sigma(v_0 + x^v_t V_1 V_2)\quad (\text{blocks } \ge 1)",
    r"\hat\kappa_t = \mathrm{normalize}(k_t \odot k_k),\quad k_t \leftarrow k_t \odot (1 + (a_t - 1) \odot k_a)",
    r"S_t = S_{t-1}\big(\mathrm{diag}(w_t) - \hat\kappa_t^\top (a_t \odot \hat\kappa_t)\big) + v_t^\top k_t,\quad "
    r"o_t = W_o\big((\mathrm{GroupNorm}(r_t S_t) + (r_t \odot k_t \odot r_k) v_t) \odot g_t\big)",
)

#: The rank factors k of R = max(32, 32·round(k·√C/32)) in ``train_temp/src/model.py`` 547–563.
RANK_FACTORS = {"decay": 2.5, "a": 2.5, "v": 1.7, "gate": 5.0}


def lora_rank(n_embd: Dim, k: float, factor: float = 1.0) -> int:
    """A RWKV-7 LoRA rank: ``max(32, int(round((k * (C**0.5)) * factor / 32) * 32))``, Python floats.

    Parameters
    ----------
    n_embd : int
        C.
    k : float
        2.5 (decay, a), 1.7 (v), 5 (gate): :data:`RANK_FACTORS`.
    factor : float, default 1.0
        fla's ``head_dim / 64`` (decay, a, v only: ``fla/layers/rwkv7.py`` 74–96).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        A symbolic C: the rank is not a polynomial in C; give the ranks as sizes.

    Examples
    --------
    >>> [lora_rank(768, k) for k in (2.5, 1.7, 5)], lora_rank(1024, 2.5)
    ([64, 32, 128], 64)
    """
    if not is_int(n_embd):
        raise ValueError("RWKV-7's LoRA ranks follow C through Python's round(); with a symbolic C give them as sizes")
    if factor == 1.0:  # BlinkDL's expression, exactly
        return max(32, int(round((k * (n_embd**0.5)) / 32) * 32))
    return max(32, int(round((k * (n_embd**0.5)) * factor / 32) * 32))


def _ranks(c: Dim, given: Mapping[str, Dim | None], factor: float = 1.0) -> dict[str, Dim]:
    out = {}
    for key, k in RANK_FACTORS.items():
        chosen = given.get(key)
        out[key] = lora_rank(c, k, 1.0 if key == "gate" else factor) if chosen is None else chosen
    return out


def rwkv7_time_mix(n_embd: Dim, head_size: Dim = 64, *, decay_rank: Dim | None = None, a_rank: Dim | None = None,
                   v_rank: Dim | None = None, gate_rank: Dim | None = None, value_lora: bool = True) -> Module:  # fmt: skip
    """BlinkDL's ``RWKV_Tmix_x070``: 4C² + 2C(R_w + R_a + R_v + R_g) + 14C (without the value LoRA:
    2C·R_v + C less).

    Parameters
    ----------
    n_embd, head_size : int or sympy.Expr
        C and N.
    decay_rank, a_rank, v_rank, gate_rank : int or sympy.Expr, optional
        Default: :func:`lora_rank` of C.
    value_lora : bool, default True
        ``v0``, ``v1``, ``v2`` (False: block 0 of a released checkpoint).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        N does not divide C.
    """
    c = n_embd
    if is_int(c) and is_int(head_size) and (head_size < 1 or c % head_size):
        raise ValueError(f"n_embd ({c}) must be a multiple of head_size ({head_size})")
    h = c // head_size if is_int(c) and is_int(head_size) else c / head_size
    r = _ranks(c, {"decay": decay_rank, "a": a_rank, "v": v_rank, "gate": gate_rank})
    params = [mix(f"x_{x}", c) for x in "rwkvag"]
    for stem, rank in (("w", r["decay"]), ("a", r["a"])) + ((("v", r["v"]),) if value_lora else ()):
        params += [Param(f"{stem}1", (c, rank)), Param(f"{stem}2", (rank, c)), mix(f"{stem}0", c)]
    params += [Param("g1", (c, r["gate"])), Param("g2", (r["gate"], c)), mix("k_k", c), mix("k_a", c), Param("r_k", (h, head_size))]
    children = tuple(linear(c, c, False, name=n) for n in ("receptance", "key", "value", "output"))
    return Module("att", "RWKV_Tmix_x070", tuple(params), (*children, group_norm(h, c, name="ln_x")))


def rwkv7_channel_mix(n_embd: Dim) -> Module:
    """BlinkDL's ``RWKV_CMix_x070``: ``x_k`` (1, 1, C), key C → 4C, value 4C → C: 8C² + C.

    Parameters
    ----------
    n_embd : int or sympy.Expr

    Returns
    -------
    derive.tree.Module
    """
    c = n_embd
    return Module("ffn", "RWKV_CMix_x070", (mix("x_k", c),), (linear(c, 4 * c, False, name="key"), linear(4 * c, c, False, name="value")))


def rwkv7_blinkdl(vocab_size: Dim, n_embd: Dim, n_layer: Dim, *, head_size: Dim = 64, decay_rank: Dim | None = None,
                  a_rank: Dim | None = None, v_rank: Dim | None = None, gate_rank: Dim | None = None,
                  layer0_value_lora: bool = True) -> Module:  # fmt: skip
    """BlinkDL's RWKV-7 model (``RWKV-v7/train_temp``), named as its checkpoints name it.

    Parameters
    ----------
    vocab_size, n_embd, n_layer : int or sympy.Expr
    head_size : int or sympy.Expr, default 64
    decay_rank, a_rank, v_rank, gate_rank : int or sympy.Expr, optional
        The LoRA ranks (default: :func:`lora_rank` of C).
    layer0_value_lora : bool, default True
        True: the model the training code builds; False: the tensors a released ``.pth`` holds.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        ``n_embd`` not a multiple of 32 (``model.py`` 782) or of ``head_size``; a symbolic C without ranks.
    """
    if is_int(n_embd) and n_embd % 32:
        raise ValueError(f"n_embd ({n_embd}) must be a multiple of 32 (RWKV-LM asserts it)")
    ranks = {"decay_rank": decay_rank, "a_rank": a_rank, "v_rank": v_rank, "gate_rank": gate_rank}

    def block(first: bool, name: str) -> Module:
        att = rwkv7_time_mix(n_embd, head_size, **ranks, value_lora=layer0_value_lora or not first)
        return block_frame(n_embd, att, rwkv7_channel_mix(n_embd), first=first, name=name)

    return blinkdl_model(vocab_size, n_embd, n_layer, block)


# --------------------------------------------------------------------------- flash-linear-attention


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
    r = _ranks(d, given, factor)
    params = (*(mix(f"x_{x}", d) for x in "rwkvag"), Param("k_k", (d,)), Param("k_a", (d,)), Param("r_k", (heads, hd)))
    loras = (fla_lora(d, d, r["decay"], name="w_lora"),)
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


def _initialisable(d: Dim, head_dim: Dim, num_hidden_layers: int | None, affine: bool | None, v: Dim, layer_idx: int) -> None:
    """Refuse what fla's initialisation of a numbered layer fails on (``fla/layers/rwkv7.py`` 165–205):
    it divides by ``num_hidden_layers - 1``, ``hidden_size - 1`` and ``head_dim - 1``, writes
    ``g_norm.weight`` and fills the value LoRA's bias (V) with a vector of D."""
    if num_hidden_layers is None or num_hidden_layers == 1:
        raise ValueError(
            "RWKV7Attention(layer_idx=...) initialises with layer_idx / (num_hidden_layers - 1): "
            f"num_hidden_layers must be given and more than 1, got {num_hidden_layers}"
        )
    if d == 1 or head_dim == 1:
        raise ValueError("RWKV7Attention(layer_idx=...) initialises dividing by hidden_size - 1 and head_dim - 1: both must exceed 1")
    if not affine:
        raise ValueError("RWKV7Attention(layer_idx=...) initialises g_norm.weight: elementwise_affine must be true")
    if layer_idx != 0 and v != d:
        raise ValueError(
            f"RWKV7Attention(layer_idx={layer_idx}) fills v_lora's bias ({v}) with a vector of hidden_size ({d}): "
            "value_dim must equal hidden_size beyond layer 0"
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


@register_config("rwkv7", architecture="RWKV7ForCausalLM", source=SOURCE["fla"])
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
    _refuse_hybrid(config)
    d = size(config, "hidden_size", 2048)
    layers = size(config, "num_hidden_layers", 24, minimum=0)
    if layers == 1:
        raise ValueError("config key 'num_hidden_layers' is 1: fla's RWKV7 initialisation divides by num_hidden_layers - 1")
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
    ranks = _ranks(d, given, hd / 64 if is_int(hd) else 1.0)
    f = fla_ffn_width(config, d, 4)
    widths = _value_dims(config, d, layers)
    norm_first, bias = flag(config, "norm_first", True), flag(config, "norm_bias", True)
    resolved = {**config, "intermediate_size": f} | {key: ranks[short] for short, (key, _) in _RANK_DEFAULTS.items()}
    kwargs = {key: ranks[short] for short, (key, _) in _RANK_DEFAULTS.items()}

    def block(first: bool, name: str, width: Dim) -> Module:
        att = rwkv7_attention(hidden_size=d, head_dim=hd, layer_idx=0 if first else 1, value_dim=width, num_hidden_layers=2, **kwargs)
        ffn = Module("ffn", "RWKV7FeedForward", (Param("x_k", (d,)),), (linear(d, f, False, name="key"), linear(f, d, False, name="value")))
        return fla_block(d, att, ffn, first=first, norm_first=norm_first, norm_bias=bias, name=name, type="RWKV7Block")

    if isinstance(widths, list):
        blocks = tuple(block(k == 0, str(k), w) for k, w in enumerate(widths))
        return fla_model(resolved, d, None, "RWKV7ForCausalLM", rwkv7_for_causal_lm, LETTERS, norm_bias=bias, blocks=blocks)
    return fla_model(resolved, d, lambda first, name: block(first, name, widths), "RWKV7ForCausalLM", rwkv7_for_causal_lm,
                     LETTERS, norm_bias=bias)  # fmt: skip


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
        prefixes=("", "fla.layers.", "fla.layers.rwkv7.", "layers."),
        letters={"hidden_size": "D", "decay_low_rank_dim": "R_w", "a_low_rank_dim": "R_a", "v_low_rank_dim": "R_v",
                 "gate_low_rank_dim": "R_g"},  # fmt: skip
        read=_read_rwkv7,
        module_types=("fla.layers.rwkv7",),
        source="flash-linear-attention 0.6.0 fla/layers/rwkv7.py 32-140",
    )
)
