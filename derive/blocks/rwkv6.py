"""RWKV-5 (Eagle) and RWKV-6 (Finch) as BlinkDL's RWKV-LM declares them: time mix, channel mix, model
(flash-linear-attention's ``RWKV6Attention`` and ``RWKV6ForCausalLM``: :mod:`derive.blocks.rwkv6_fla`).

BlinkDL (``RWKV-v5/src/model.py``; C = ``n_embd``, A = ``dim_att`` (default C), N = ``head_size_a``
(64), H = A/N, F = ``dim_ffn``):

- RWKV-5 time mix ``RWKV_Tmix_x052`` (241–323): ``time_mix_k/v/r/g`` (1, 1, C), ``time_decay`` and
  ``time_faaaa`` (H, N), r/k/v/gate projections C → A and the output A → C (no bias), ``ln_x``
  GroupNorm(H, A): 5CA + 4C + 4A.
- RWKV-6 time mix ``RWKV_Tmix_x060`` (325–412): six ``time_maa_*`` vectors, the data-dependent mix
  LoRA ``time_maa_w1`` (C, 5·32) and ``time_maa_w2`` (5, 32, C), the decay ``time_decay`` (1, 1, A) with
  its LoRA ``time_decay_w1`` (C, 64), ``time_decay_w2`` (64, A) — ranks 32 and 64 hard-coded (350, 360) —
  ``time_faaaa`` (H, N), the five projections and ``ln_x``: 5CA + 390C + 68A.
- Channel mix ``RWKV_CMix_x052`` / ``x060`` (895–953): two mix vectors, key C → F, receptance C → C,
  value F → C: 2CF + C² + 2C, with F = ``int((C * 3.5) // 32 * 32)`` (``RWKV-v5/train.py`` 125–129),
  where RWKV-4's trainer used 4C (BlinkDL/RWKV-LM#207).

fla 0.6.0 (``fla/layers/rwkv6.py`` 30–96, 215–369; ``fla/models/rwkv6/``): the same tensors under other
names, with K = round(D·``expand_k``) (default 0.5: half of BlinkDL's) for r, k and the decay and V =
D·``expand_v`` for v and g; configured with ``expand_k=1``, ``num_heads=D/64`` it has BlinkDL's count.
Its feed-forward rounds 3.5·D *up* to a multiple of 32 where BlinkDL rounds down.

>>> rwkv6_blinkdl(65536, 2048, 24).count   # the configuration of RWKV-v5/rwkv_v6_demo.py 256-259
1599873024
"""

from __future__ import annotations

from ..layers.linear import linear
from ..layers.norm import group_norm
from ..tree import Dim, Module, Param
from ._keys import is_int
from .rwkv import blinkdl_model, block_frame, ffn_width, mix

__all__ = ["SOURCE", "EQUATIONS", "rwkv5_time_mix", "rwkv6_time_mix", "channel_mix", "rwkv5_blinkdl", "rwkv6_blinkdl"]

#: Where the tensors and conventions are read from (file and lines), shown on the site.
SOURCE = {
    "blinkdl": "BlinkDL/RWKV-LM RWKV-v5/src/model.py 241-412, 895-953, 1020-1160; RWKV-v5/train.py 123-129",
    "fla": "flash-linear-attention 0.6.0 fla/layers/rwkv6.py 30-96, 215-369; fla/models/rwkv6/",
}

#: The RWKV-6 time mix (Peng et al. 2024, "Eagle and Finch", eqs. 14-21), in BlinkDL's tensors.
EQUATIONS = (
    r"\Delta_t = x_{t-1} - x_t,\quad \xi_t = x_t + \Delta_t \odot \mu_x",
    r"m_\star = \mu_\star + \big(\tanh(\xi_t W_1)\big)_\star W_{2,\star}"
    r" \quad (W_1: C \times 5{\cdot}32,\ W_2: 5 \times 32 \times C;\ \star \in \{w,k,v,r,g\})",
    r"w_t = \exp\!\big(-\exp(d + \tanh((x_t + \Delta_t m_w) W_{d1}) W_{d2})\big)"
    r" \quad (d: (1,1,A),\ W_{d1}: C \times 64,\ W_{d2}: 64 \times A)",
    r"r_t, k_t, v_t, g_t = W_{r,k,v,g}\,(x_t + \Delta_t \odot m_{r,k,v,g}) \quad (A \times C)",
    r"S_t = \mathrm{diag}(w_t) S_{t-1} + k_t^\top v_t,\quad "
    r"o_t = W_o\big(\mathrm{GroupNorm}(r_t (S_{t-1} + \mathrm{diag}(u) k_t^\top v_t)) \odot \mathrm{SiLU}(g_t)\big)",
)


def _heads(dim_att: Dim, head_size: Dim) -> Dim:
    """H = A / N, refused when N does not divide A (the ``reshape(n_head, head_size)`` would fail)."""
    if is_int(dim_att) and is_int(head_size):
        if head_size < 1 or dim_att % head_size:
            raise ValueError(f"dim_att ({dim_att}) must be a multiple of head_size_a ({head_size})")
        return dim_att // head_size
    return dim_att / head_size


def rwkv5_time_mix(n_embd: Dim, dim_att: Dim, head_size: Dim = 64) -> Module:
    """BlinkDL's ``RWKV_Tmix_x052`` (RWKV-5): 5CA + 4C + 4A parameters.

    Parameters
    ----------
    n_embd, dim_att, head_size : int or sympy.Expr
        C, A and N (``head_size_a``).

    Returns
    -------
    derive.tree.Module
    """
    c, a, h = n_embd, dim_att, _heads(dim_att, head_size)
    params = (*(mix(f"time_mix_{x}", c) for x in "kvrg"), Param("time_decay", (h, head_size)))
    params += (Param("time_faaaa", (h, head_size)),)
    return Module("att", "RWKV_Tmix_x052", params, _projections(c, a, h))


def _projections(c: Dim, a: Dim, h: Dim) -> tuple[Module, ...]:
    """receptance, key, value C → A, output A → C, gate C → A (no bias), ``ln_x`` GroupNorm(H, A)."""
    out = (linear(c, a, False, name="receptance"), linear(c, a, False, name="key"), linear(c, a, False, name="value"))
    return (*out, linear(a, c, False, name="output"), linear(c, a, False, name="gate"), group_norm(h, a, name="ln_x"))


def rwkv6_time_mix(n_embd: Dim, dim_att: Dim, head_size: Dim = 64) -> Module:
    """BlinkDL's ``RWKV_Tmix_x060`` (RWKV-6): 5CA + 390C + 68A parameters (mix LoRA rank 32, decay
    LoRA rank 64, both fixed: ``RWKV-v5/src/model.py`` 350, 360).

    Parameters
    ----------
    n_embd, dim_att, head_size : int or sympy.Expr

    Returns
    -------
    derive.tree.Module
    """
    c, a, h = n_embd, dim_att, _heads(dim_att, head_size)
    params = tuple(mix(f"time_maa_{x}", c) for x in "xwkvrg")
    params += (Param("time_maa_w1", (c, 32 * 5)), Param("time_maa_w2", (5, 32, c)), mix("time_decay", a))
    params += (Param("time_decay_w1", (c, 64)), Param("time_decay_w2", (64, a)), Param("time_faaaa", (h, head_size)))
    return Module("att", "RWKV_Tmix_x060", params, _projections(c, a, h))


def channel_mix(n_embd: Dim, dim_ffn: Dim, version: str = "6") -> Module:
    """BlinkDL's channel mix of RWKV-5 (``RWKV_CMix_x052``: ``time_mix_k/r``) or RWKV-6
    (``RWKV_CMix_x060``: ``time_maa_k/r``): 2CF + C² + 2C parameters.

    Parameters
    ----------
    n_embd, dim_ffn : int or sympy.Expr
    version : {"5", "6"}

    Returns
    -------
    derive.tree.Module
    """
    c, f = n_embd, dim_ffn
    stem, type = ("time_mix", "RWKV_CMix_x052") if version == "5" else ("time_maa", "RWKV_CMix_x060")
    children = (
        linear(c, f, False, name="key"),
        linear(c, c, False, name="receptance"),
        linear(f, c, False, name="value"),
    )
    return Module("ffn", type, (mix(f"{stem}_k", c), mix(f"{stem}_r", c)), children)


def _blinkdl_sizes(n_embd: Dim, dim_att: Dim | None, dim_ffn: Dim | None, ratio: str) -> tuple[Dim, Dim]:
    """``dim_att`` and ``dim_ffn`` with BlinkDL's defaults and its multiple-of-32 asserts
    (``RWKV-v5/src/model.py`` 1140–1153)."""
    a = n_embd if dim_att is None else dim_att
    f = ffn_width(n_embd, ratio) if dim_ffn is None else dim_ffn
    for key, x in (("n_embd", n_embd), ("dim_att", a), ("dim_ffn", f)):
        if is_int(x) and x % 32:
            raise ValueError(f"{key} ({x}) must be a multiple of 32 (RWKV-LM asserts it)")
    return a, f


def rwkv5_blinkdl(vocab_size: Dim, n_embd: Dim, n_layer: Dim, *, dim_att: Dim | None = None,
                  dim_ffn: Dim | None = None, head_size_a: Dim = 64) -> Module:  # fmt: skip
    """BlinkDL's RWKV-5 model (``--my_testing x052``), named as its checkpoints name it.

    Parameters
    ----------
    vocab_size, n_embd, n_layer : int or sympy.Expr
    dim_att : int or sympy.Expr, optional
        Default ``n_embd``.
    dim_ffn : int or sympy.Expr, optional
        Default ``int((n_embd * 3.5) // 32 * 32)``.
    head_size_a : int or sympy.Expr, default 64

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        ``n_embd``, ``dim_att`` or ``dim_ffn`` not a multiple of 32; ``head_size_a`` not dividing ``dim_att``.
    """
    a, f = _blinkdl_sizes(n_embd, dim_att, dim_ffn, "3.5")

    def block(first: bool, name: str) -> Module:
        return block_frame(
            n_embd, rwkv5_time_mix(n_embd, a, head_size_a), channel_mix(n_embd, f, "5"), first=first, name=name
        )

    return blinkdl_model(vocab_size, n_embd, n_layer, block)


def rwkv6_blinkdl(vocab_size: Dim, n_embd: Dim, n_layer: Dim, *, dim_att: Dim | None = None,
                  dim_ffn: Dim | None = None, head_size_a: Dim = 64) -> Module:  # fmt: skip
    """BlinkDL's RWKV-6 model (``--my_testing x060``), named as its checkpoints name it
    (``blocks.0.att.time_maa_w1``, ``blocks.0.ffn.key.weight``).

    Parameters
    ----------
    vocab_size, n_embd, n_layer : int or sympy.Expr
    dim_att, dim_ffn, head_size_a : int or sympy.Expr, optional
        As :func:`rwkv5_blinkdl`.

    Returns
    -------
    derive.tree.Module
        Per block 5CA + 68A + 2CF + C² + 396C (+ 2C on block 0); V·C twice, 2C for ``ln_out``.

    Raises
    ------
    ValueError
        As :func:`rwkv5_blinkdl`.
    """
    a, f = _blinkdl_sizes(n_embd, dim_att, dim_ffn, "3.5")

    def block(first: bool, name: str) -> Module:
        att, ffn = rwkv6_time_mix(n_embd, a, head_size_a), channel_mix(n_embd, f, "6")
        return block_frame(n_embd, att, ffn, first=first, name=name)

    return blinkdl_model(vocab_size, n_embd, n_layer, block)
