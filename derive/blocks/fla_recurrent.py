"""Gated linear-recurrent layers of flash-linear-attention: HGRN, HGRN2 and DeltaNet.

Written from flash-linear-attention / fla-core 0.6.0 (held live in the tests through a
subprocess in ``.venv-ssm``): ``HGRNAttention`` (``fla/layers/hgrn.py`` 31-82),
``HGRN2Attention`` (``hgrn2.py`` 33-102) and ``DeltaNet`` (``delta_net.py`` 75-168), each with its
constructor's own defaults, from the parts :mod:`derive.blocks.fla` shares (short convolutions,
fla's norms). Every projection is bias-free.

>>> hgrn_attention().count, hgrn2_attention().count, delta_net().count      # hidden_size 1024
(4195328, 4195328, 4210944)
"""

from __future__ import annotations

from typing import Any

from ..layers.linear import linear
from ..tree import Dim, Module
from ._ssm_common import flag, size, times_ratio
from .fla import check_mode, divides, finish, norm, register_layer, short_convs

__all__ = ["hgrn_attention", "hgrn2_attention", "delta_net"]


def _int(value: Any) -> bool:
    return type(value) is int


def hgrn_attention(
    mode: str = "chunk",
    hidden_size: Dim = 1024,
    expand_ratio: Any = 1,
    use_short_conv: bool = False,
    conv_size: Dim = 4,
    conv_bias: bool = False,
    elementwise_affine: bool | None = True,
    norm_eps: float = 1e-5,
    layer_idx: int | None = None,
) -> Module:
    """fla's ``HGRNAttention`` (``hgrn.py`` 31-82): ``i_proj``, ``f_proj``, ``g_proj`` (E, D) with
    E = int(D·expand_ratio) (truncated, line 48), the convolutions ``f_conv1d``, ``i_conv1d`` (E, 1, c),
    ``g_norm`` (FusedRMSNormGated, E) and ``o_proj`` (D, E): 4DE + E, and 2E·c more with convolutions.

    Parameters
    ----------
    mode, hidden_size, expand_ratio, use_short_conv, conv_size, conv_bias, elementwise_affine, norm_eps, layer_idx
        As fla takes them.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        An unknown mode.
    """
    given = dict(locals())
    d = size(hidden_size, "hidden_size")
    e = times_ratio(d, expand_ratio, "expand_ratio") if not _int(d) else int(d * expand_ratio)
    check_mode(mode, ("chunk", "fused_recurrent"))
    children = [linear(d, e, False, name=n) for n in ("i_proj", "f_proj", "g_proj")]
    children += short_convs(given, ((e, "f_conv1d"), (e, "i_conv1d")))
    children += [norm(e, elementwise_affine, "g_norm", True), linear(e, d, False, name="o_proj")]
    return finish(Module("", "HGRNAttention", children=tuple(children)), hgrn_attention, given, {"hidden_size": "D"})


def hgrn2_attention(
    mode: str = "chunk",
    hidden_size: Dim = 1024,
    num_heads: Dim | None = None,
    expand_ratio: Dim | None = 128,
    use_short_conv: bool = False,
    conv_size: Dim = 4,
    conv_bias: bool = False,
    elementwise_affine: bool | None = True,
    norm_eps: float = 1e-5,
    layer_idx: int | None = None,
) -> Module:
    """fla's ``HGRN2Attention`` (``hgrn2.py`` 33-102): h = D // expand_ratio heads (``num_heads`` is
    then ignored; with ``expand_ratio=None``, expand_ratio = D // num_heads), forget width F =
    h·expand_ratio; ``q_proj``, ``f_proj`` (F, D), ``i_proj`` (D, D), the convolutions,
    ``g_norm`` (RMSNorm, D), ``o_proj`` (D, D).

    Parameters
    ----------
    mode, hidden_size, num_heads, expand_ratio, use_short_conv, conv_size, conv_bias, elementwise_affine, norm_eps, layer_idx
        As fla takes them.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        Neither ``expand_ratio`` nor ``num_heads``; no head (D < expand_ratio: fla divides by
        zero, line 69); D not divisible by the heads (line 70); an unknown mode.
    """
    given = dict(locals())
    d = size(hidden_size, "hidden_size")
    if expand_ratio is not None:
        ratio = size(expand_ratio, "expand_ratio")
        heads = d // ratio if _int(d) and _int(ratio) else d / ratio
    elif num_heads is not None:
        heads = size(num_heads, "num_heads")
        ratio = d // heads if _int(d) and _int(heads) else d / heads
    else:
        raise ValueError("One of `expand_ratio` or `num_heads` should be provided.")
    if heads == 0:
        raise ValueError(f"hidden_size {d} < expand_ratio {ratio}: no head (fla divides by num_heads = 0)")
    forget = heads * ratio
    check_mode(mode, ("chunk", "fused_recurrent", "fused_chunk"))
    divides(d, heads, "input dim")
    children = [linear(d, forget, False, name="q_proj"), linear(d, forget, False, name="f_proj")]
    children.append(linear(d, d, False, name="i_proj"))
    children += short_convs(given, ((forget, "q_conv1d"), (forget, "f_conv1d"), (d, "i_conv1d")))
    children += [norm(d, elementwise_affine, "g_norm", False), linear(d, d, False, name="o_proj")]
    module = Module("", "HGRN2Attention", children=tuple(children))
    return finish(module, hgrn2_attention, given, {"hidden_size": "D", "expand_ratio": "R"})


def delta_net(
    mode: str = "chunk",
    d_model: Dim | None = None,
    hidden_size: Dim = 1024,
    expand_k: float = 1.0,
    expand_v: float = 1.0,
    num_heads: Dim = 4,
    use_beta: bool = True,
    use_gate: bool = False,
    use_short_conv: bool = True,
    conv_size: Dim = 4,
    conv_bias: bool = False,
    allow_neg_eigval: bool = False,
    layer_idx: int | None = None,
    qk_activation: str = "silu",
    qk_norm: str = "l2",
    norm_eps: float = 1e-5,
    **kwargs: Any,
) -> Module:
    """fla's ``DeltaNet`` (``delta_net.py`` 75-168): ``q_proj``, ``k_proj`` (K, D), ``v_proj`` (V, D),
    ``b_proj`` (h, D) with ``use_beta``, the convolutions (on by default), ``g_proj`` (V, D) with
    ``use_gate``, ``o_norm`` (V/h; FusedRMSNormGated with the gate, else RMSNorm; always with a
    weight), ``o_proj`` (D, V); K = D·expand_k, V = D·expand_v. ``d_model`` replaces ``hidden_size``.

    Parameters
    ----------
    mode, d_model, hidden_size, expand_k, expand_v, num_heads, use_beta, use_gate, use_short_conv, conv_size, conv_bias, allow_neg_eigval, layer_idx, qk_activation, qk_norm, norm_eps, **kwargs
        As fla takes them (other keywords are ignored, as fla ignores them).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        An unknown ``qk_activation``, ``qk_norm`` or mode (``fused_chunk`` is deprecated in fla),
        widths that are not whole or not divisible by the heads.
    """
    given = dict(locals())
    if qk_activation not in ("silu", "relu", "elu", "identity"):
        raise ValueError(f"qk_activation must be 'silu', 'relu', 'elu' or 'identity', got {qk_activation!r}")
    if qk_norm not in ("l2", "sum"):
        raise ValueError(f"qk_norm must be 'l2' or 'sum', got {qk_norm!r}")
    given["hidden_size"] = width = hidden_size if d_model is None else d_model
    d, h = size(width, "hidden_size"), size(num_heads, "num_heads")
    key, value = times_ratio(d, expand_k, "expand_k"), times_ratio(d, expand_v, "expand_v")
    if mode == "fused_chunk":
        raise ValueError("fused_chunk_delta_rule is now deprecated. Please use `chunk_delta_rule` instead.")
    check_mode(mode, ("chunk", "fused_recurrent"))
    divides(key, h, "key dim")
    head_v = divides(value, h, "value dim")
    children = [linear(d, key, False, name="q_proj"), linear(d, key, False, name="k_proj")]
    children.append(linear(d, value, False, name="v_proj"))
    if flag(use_beta, "use_beta"):
        children.append(linear(d, h, False, name="b_proj"))
    children += short_convs(given, ((key, "q_conv1d"), (key, "k_conv1d"), (value, "v_conv1d")))
    gate = flag(use_gate, "use_gate")
    if gate:
        children.append(linear(d, value, False, name="g_proj"))
    children += [norm(head_v, True, "o_norm", gate), linear(value, d, False, name="o_proj")]
    return finish(
        Module("", "DeltaNet", children=tuple(children)), delta_net, given, {"hidden_size": "D", "num_heads": "H"}
    )


register_layer(
    "HGRNAttention", hgrn_attention, ("mode", "hidden_size", "expand_ratio", "use_short_conv", "conv_size", "conv_bias")
)
register_layer(
    "HGRN2Attention",
    hgrn2_attention,
    ("mode", "hidden_size", "num_heads", "expand_ratio", "use_short_conv", "conv_size", "conv_bias"),
)
register_layer(
    "DeltaNet",
    delta_net,
    ("mode", "hidden_size", "expand_k", "expand_v", "num_heads", "use_beta", "use_gate", "use_short_conv")
    + ("conv_size", "conv_bias", "allow_neg_eigval", "qk_activation", "qk_norm"),
)
