"""RWKV-7 (Goose) as BlinkDL's RWKV-LM declares it: time mix, channel mix, the LoRA-rank rule, the model
(flash-linear-attention's ``RWKV7Attention`` and ``RWKV7ForCausalLM``: :mod:`derive.blocks.rwkv7_fla`).

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

from ..layers.linear import linear
from ..layers.norm import group_norm
from ..tree import Dim, Module, Param
from ._keys import is_int
from .rwkv import blinkdl_model, block_frame, mix

__all__ = ["SOURCE", "EQUATIONS", "lora_rank", "ranks", "rwkv7_time_mix", "rwkv7_channel_mix", "rwkv7_blinkdl",
           "RANK_FACTORS"]  # fmt: skip

#: Where the tensors and conventions are read from (file and lines), shown on the site.
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


def ranks(c: Dim, given: Mapping[str, Dim | None], factor: float = 1.0) -> dict[str, Dim]:
    """The four ranks: each given one as it is, the others by :func:`lora_rank`.

    Parameters
    ----------
    c : int or sympy.Expr
        C (``n_embd``, fla's ``hidden_size``).
    given : mapping of {"decay", "a", "v", "gate"} -> int, sympy.Expr or None
    factor : float, default 1.0
        fla's ``head_dim / 64`` (not applied to the gate's rank).

    Returns
    -------
    dict of str -> int or sympy.Expr

    Raises
    ------
    ValueError
        A rank to compute from a symbolic C.
    """
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
    r = ranks(c, {"decay": decay_rank, "a": a_rank, "v": v_rank, "gate": gate_rank})
    params = [mix(f"x_{x}", c) for x in "rwkvag"]
    for stem, rank in (("w", r["decay"]), ("a", r["a"])) + ((("v", r["v"]),) if value_lora else ()):
        params += [Param(f"{stem}1", (c, rank)), Param(f"{stem}2", (rank, c)), mix(f"{stem}0", c)]
    params += [
        Param("g1", (c, r["gate"])),
        Param("g2", (r["gate"], c)),
        mix("k_k", c),
        mix("k_a", c),
        Param("r_k", (h, head_size)),
    ]
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
    return Module(
        "ffn",
        "RWKV_CMix_x070",
        (mix("x_k", c),),
        (linear(c, 4 * c, False, name="key"), linear(4 * c, c, False, name="value")),
    )


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
    given = {"decay_rank": decay_rank, "a_rank": a_rank, "v_rank": v_rank, "gate_rank": gate_rank}

    def block(first: bool, name: str) -> Module:
        att = rwkv7_time_mix(n_embd, head_size, **given, value_lora=layer0_value_lora or not first)
        return block_frame(n_embd, att, rwkv7_channel_mix(n_embd), first=first, name=name)

    return blinkdl_model(vocab_size, n_embd, n_layer, block)
