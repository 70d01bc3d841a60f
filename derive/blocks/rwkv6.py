"""RWKV-5 (Eagle) and RWKV-6 (Finch): BlinkDL's time mix and channel mix, and flash-linear-attention's
``RWKV6Attention`` and ``RWKV6ForCausalLM``.

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

import math
from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..layers.norm import group_norm, layer_norm
from ..tree import Dim, Module, Param
from . import register_config
from ._keys import flag, formula, is_int, number, recipe, size, value
from .rwkv import blinkdl_model, block_frame, ffn_width, mix

__all__ = [
    "SOURCE",
    "EQUATIONS",
    "rwkv5_time_mix",
    "rwkv6_time_mix",
    "channel_mix",
    "rwkv5_blinkdl",
    "rwkv6_blinkdl",
    "fla_lora",
    "scaled",
    "rwkv6_attention",
    "rwkv6_for_causal_lm",
    "fla_block",
    "fla_ffn_width",
    "fla_model",
]

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
    children = (linear(c, f, False, name="key"), linear(c, c, False, name="receptance"), linear(f, c, False, name="value"))
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
        return block_frame(n_embd, rwkv5_time_mix(n_embd, a, head_size_a), channel_mix(n_embd, f, "5"), first=first, name=name)

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


# --------------------------------------------------------------------------- flash-linear-attention


def fla_lora(input_dim: Dim, output_dim: Dim, low_rank_dim: Dim, *, bias: bool = True, name: str = "") -> Module:
    """fla's ``LoRA`` (``fla/layers/rwkv6.py`` 215–247): ``lora.0`` Linear(in, r, no bias), an
    activation, ``lora.2`` Linear(r, out, ``bias``).

    Parameters
    ----------
    input_dim, output_dim, low_rank_dim : int or sympy.Expr
    bias : bool, default True
    name : str

    Returns
    -------
    derive.tree.Module
    """
    seq = Module("lora", "Sequential", children=(linear(input_dim, low_rank_dim, False, name="0"),
                                                  linear(low_rank_dim, output_dim, bias, name="2")))  # fmt: skip
    return Module(name, "LoRA", children=(seq,))


def _lerp(input_dim: Dim, output_dim: Dim, low_rank_dim: Dim | None, *, mu: bool, name: str) -> Module:
    """fla's ``LerpLinear`` (``mu`` and a linear map) or ``DDLerpLinear`` (the map only): 302–369."""
    inner = (
        linear(input_dim, output_dim, False, name="linear")
        if low_rank_dim is None
        else fla_lora(input_dim, output_dim, low_rank_dim, name="linear")
    )
    params = (Param("mu", (input_dim,)),) if mu else ()
    return Module(name, "LerpLinear" if mu else "DDLerpLinear", params, (inner,))


def scaled(width: Dim, factor: float, what: str) -> Dim:
    """``round(width * factor)`` as fla computes it, refused when not whole (fla asserts
    ``math.isclose``); a symbolic width times the factor as written (``0.5`` -> 1/2).

    Parameters
    ----------
    width : int or sympy.Expr
    factor : float
    what : str
        The argument, for the message (``"expand_k"``).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        ``width * factor`` is not an integer.
    """
    if is_int(width):
        product = width * factor
        whole = round(product)
        if not math.isclose(product, whole):
            raise ValueError(f"`hidden_size * {what}` must be an integer, got {product}")
        return whole
    import sympy

    return width * sympy.Rational(repr(float(factor)))


def _divide(dim: Dim, heads: Dim, what: str) -> Dim:
    if is_int(dim) and is_int(heads):
        if heads < 1 or dim % heads:
            raise ValueError(f"{what} must be divisible by num_heads of {heads}")
        return dim // heads
    return dim / heads


def rwkv6_attention(mode: str = "chunk", hidden_size: Dim = 1024, expand_k: float = 0.5, expand_v: float = 1.0,
                    num_heads: Dim = 4, gate_fn: str = "swish", proj_low_rank_dim: Dim = 32,
                    gate_low_rank_dim: Dim = 64, fuse_norm: bool = True, elementwise_affine: bool | None = True,
                    norm_eps: float = 1e-5, layer_idx: int | None = None, **kwargs: Any) -> Module:  # fmt: skip
    """fla's ``RWKV6Attention(...)`` with its own signature and tensor names (``x_proj.0.mu``,
    ``w_proj.linear.lora.2.bias``, ``bonus``, ``g_norm.weight``).

    Parameters
    ----------
    mode, gate_fn, fuse_norm, norm_eps, layer_idx, **kwargs
        No tensors depend on them (``mode`` must be ``"chunk"`` or ``"fused_recurrent"``).
    hidden_size : int or sympy.Expr, default 1024
        D.
    expand_k, expand_v : float, default 0.5, 1.0
        K = round(D·expand_k) for r, k, the decay and the bonus; V = round(D·expand_v) for v, g.
    num_heads : int, default 4
    proj_low_rank_dim, gate_low_rank_dim : int, default 32, 64
        The rank r of the five-way mix LoRA and the rank of the decay LoRA.
    elementwise_affine : bool or None, default True
        ``g_norm``'s weight and bias.

    Returns
    -------
    derive.tree.Module
        6D + 10rD + gD + K(2D + g + 2) + V(3D + 2) (r, g the two ranks); 5AD + 390D + 68A, BlinkDL's
        count, when K = V = A, r = 32 and g = 64.

    Raises
    ------
    ValueError
        As fla asserts: a fractional D·expand, K or V not divisible by ``num_heads``, an unknown ``mode``.
    """
    if mode not in ("chunk", "fused_recurrent"):
        raise ValueError(f"Not supported mode `{mode}`.")
    d = hidden_size
    k, v = scaled(d, expand_k, "expand_k"), scaled(d, expand_v, "expand_v")
    hk = _divide(k, num_heads, "key dim")
    _divide(v, num_heads, "value dim")
    r, g = proj_low_rank_dim, gate_low_rank_dim
    x_proj = Module("x_proj", "Sequential", children=(_lerp(d, r * 5, None, mu=True, name="0"), linear(r * 5, d, False, name="2")))
    children = (
        x_proj,
        _lerp(d, k, None, mu=False, name="r_proj"),
        _lerp(d, k, g, mu=False, name="w_proj"),
        _lerp(d, k, None, mu=False, name="k_proj"),
        _lerp(d, v, None, mu=False, name="v_proj"),
        _lerp(d, v, None, mu=False, name="g_proj"),
        Module("g_norm", "GroupNorm", (Param("weight", (v,)), Param("bias", (v,))) if elementwise_affine else ()),
        linear(v, d, False, name="o_proj"),
    )
    sizes = {"hidden_size": d, "num_heads": num_heads, "proj_low_rank_dim": r, "gate_low_rank_dim": g}
    return Module(
        "",
        "RWKV6Attention",
        (Param("x_bias", (5, d)), Param("bonus", (num_heads, hk))),
        children,
        config={"hidden_size": d, "expand_k": expand_k, "expand_v": expand_v, "num_heads": num_heads},
        formula=recipe(rwkv6_attention, sizes, {"hidden_size": "D", "proj_low_rank_dim": "r", "gate_low_rank_dim": "g"},
                       expand_k=expand_k, expand_v=expand_v, elementwise_affine=bool(elementwise_affine)),  # fmt: skip
    )


def fla_ffn_width(config: Mapping[str, Any], d: Dim, default_ratio: float) -> Dim:
    """fla's feed-forward width: ``intermediate_size``, else ``int(D·hidden_ratio)`` rounded *up* to a
    multiple of 32 (``fla/models/rwkv6/modeling_rwkv6.py`` 49–53; ``rwkv7/modeling_rwkv7.py`` 51–55).

    Parameters
    ----------
    config : mapping
    d : int or sympy.Expr
        ``hidden_size``.
    default_ratio : float
        3.5 (RWKV-6) or 4 (RWKV-7).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A bad ``intermediate_size`` or ``hidden_ratio``; no ``intermediate_size`` with a symbolic D.
    """
    if config.get("intermediate_size") is not None:
        return size(config, "intermediate_size", 1)
    ratio = number(config, "hidden_ratio", default_ratio)
    if not is_int(d):
        raise ValueError("intermediate_size = 32·ceil(int(hidden_size·hidden_ratio)/32) needs an integer hidden_size")
    width = int(d * ratio)
    return 32 * ((width + 32 - 1) // 32)


def _refuse_hybrid(config: Mapping[str, Any]) -> None:
    if value(config, "attn", None) is not None:
        raise ValueError("config key 'attn' (standard attention in chosen layers) is not mapped by derive")


#: Config keys of fla's RWKV6Config and the letters of the closed form.
LETTERS = {"vocab_size": "V", "hidden_size": "D", "num_hidden_layers": "L", "intermediate_size": "F",
           "num_heads": "H", "proj_low_rank_dim": "r", "gate_low_rank_dim": "g"}  # fmt: skip


def fla_block(d: Dim, att: Module, ffn: Module, *, first: bool, norm_first: bool, norm_bias: bool, name: str,
              type: str) -> Module:  # fmt: skip
    """fla's ``RWKV6Block`` / ``RWKV7Block``: ``pre_norm`` (block 0, ``norm_first``), ``attn_norm``,
    ``attn``, ``ffn_norm``, ``ffn`` (``modeling_rwkv6.py`` 96–141).

    Parameters
    ----------
    d : int or sympy.Expr
    att, ffn : derive.tree.Module
    first, norm_first, norm_bias : bool
    name, type : str

    Returns
    -------
    derive.tree.Module
    """
    norm = lambda n: layer_norm((d,), bias=norm_bias, name=n)  # noqa: E731
    pre = (norm("pre_norm"),) if first and norm_first else ()
    return Module(name, type, children=(*pre, norm("attn_norm"), att.replace(name="attn"), norm("ffn_norm"), ffn), row=True)


@register_config("rwkv6", architecture="RWKV6ForCausalLM", source=SOURCE["fla"])
def rwkv6_for_causal_lm(config: Mapping[str, Any]) -> Module:
    """The model fla's ``RWKV6ForCausalLM(RWKV6Config(**config))`` builds (``model_type`` "rwkv6",
    registered with transformers' Auto classes when ``fla`` is imported).

    Parameters
    ----------
    config : mapping
        ``RWKV6Config`` keys (``fla/models/rwkv6/configuration_rwkv6.py`` 22–51): ``vocab_size``
        (32000), ``hidden_size`` (2048), ``num_hidden_layers`` (24), ``num_heads`` (4), ``expand_k``
        (0.5), ``expand_v`` (1.0), ``hidden_ratio`` (3.5), ``intermediate_size`` (None),
        ``proj_low_rank_dim`` (32), ``gate_low_rank_dim`` (64), ``norm_first`` (True), ``norm_bias``
        (True), ``tie_word_embeddings`` (False).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key naming a value derive cannot use, or ``attn`` (hybrid attention layers) given.
    """
    _refuse_hybrid(config)
    d = size(config, "hidden_size", 2048)
    heads = size(config, "num_heads", 4)
    ek, ev = number(config, "expand_k", 0.5), number(config, "expand_v", 1.0)
    r, g = size(config, "proj_low_rank_dim", 32), size(config, "gate_low_rank_dim", 64)
    f = fla_ffn_width(config, d, 3.5)
    norm_first, bias = flag(config, "norm_first", True), flag(config, "norm_bias", True)

    def block(first: bool, name: str) -> Module:
        att = rwkv6_attention(hidden_size=d, expand_k=ek, expand_v=ev, num_heads=heads, proj_low_rank_dim=r, gate_low_rank_dim=g)
        ffn = Module("ffn", "RWKV6FeedForward", children=(_lerp(d, f, None, mu=True, name="key"), linear(f, d, False, name="value"),
                                                          _lerp(d, d, None, mu=True, name="receptance")))  # fmt: skip
        return fla_block(d, att, ffn, first=first, norm_first=norm_first, norm_bias=bias, name=name, type="RWKV6Block")

    resolved = {**config, "intermediate_size": f}
    return fla_model(resolved, d, block, "RWKV6ForCausalLM", rwkv6_for_causal_lm, LETTERS, norm_bias=bias)


def fla_model(config: Mapping[str, Any], d: Dim, block: Any, type: str, build: Any, letters: Mapping[str, str], *,
               norm_bias: bool, minimum_layers: int = 0, blocks: tuple[Module, ...] | None = None) -> Module:  # fmt: skip
    """The frame of fla's RWKV models: ``model.embeddings``, ``model.layers``, ``model.norm`` (biased as
    ``norm_bias``: ``modeling_rwkv6.py`` 238–244), ``lm_head`` (tied as ``tie_word_embeddings``).

    Parameters
    ----------
    config : mapping
    d : int or sympy.Expr
    block : callable
        ``block(first, name) -> Module``.
    type : str
    build : callable
        The config builder (for the closed form).
    letters : mapping
    norm_bias : bool
    minimum_layers : int, default 0
    blocks : tuple of Module, optional
        The layers one by one, when they differ beyond block 0 (``block`` is then unused).

    Returns
    -------
    derive.tree.Module
    """
    vocab = size(config, "vocab_size", 32000)
    layers = size(config, "num_hidden_layers", 24, minimum=minimum_layers)
    tie = "model.embeddings.weight" if flag(config, "tie_word_embeddings", False) else None
    model = blinkdl_model(vocab, d, layers, block, type=type, prefix="model", names=("embeddings", "layers", "norm", "lm_head"),
                          tie=tie, config=config, norm_bias=norm_bias, blocks=blocks)  # fmt: skip
    return model.replace(formula=formula(build, config, letters))


def _read_rwkv6(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments that remake a live ``RWKV6Attention`` (its attributes, never its weights)."""
    kwargs = {key: getattr(obj, key) for key in ("mode", "hidden_size", "expand_k", "expand_v", "num_heads",
                                                  "proj_low_rank_dim", "gate_low_rank_dim", "layer_idx")}  # fmt: skip
    kwargs["elementwise_affine"] = bool(getattr(obj.g_norm, "elementwise_affine", True))
    return (), kwargs


register(
    Constructor(
        "fla",
        "RWKV6Attention",
        rwkv6_attention,
        prefixes=("", "fla.layers.", "fla.layers.rwkv6.", "layers."),
        letters={"hidden_size": "D", "proj_low_rank_dim": "r", "gate_low_rank_dim": "g"},
        read=_read_rwkv6,
        module_types=("fla.layers.rwkv6",),
        source="flash-linear-attention 0.6.0 fla/layers/rwkv6.py 30-96",
    )
)
