"""Kimi Delta Attention (KDA): the linear-attention mixer of Kimi-Linear and Bailing-hybrid, written once.

KDA (Kimi Team 2025, *Kimi Linear: An Expressive, Efficient Attention Architecture*) is a gated
delta rule whose decay is per channel rather than per head: H heads of d, q/k/v projections
D → H·d (no bias), a depthwise causal ``conv1d`` over the three (3H·d channels, no bias), a
write strength per head (``b_proj`` D → H), a forget gate of H·d channels with a time-step bias
``dt_bias`` (H·d) and a decay ``A_log`` per head, an output gate, a gated RMSNorm of d shared by
the heads and ``o_proj`` H·d → D. D = ``hidden_size``, H = ``linear_num_heads``, d =
``linear_head_dim``, K = ``linear_conv_kernel_dim``. Its spellings:

- ``kimi_linear`` (``KimiLinearDeltaAttention``, ``modeling_kimi_linear.py`` 569-606;
  ``KimiLinearForgetGate`` 316-328): the forget gate and the output gate are low-rank,
  ``f_a_proj`` D → d, ``f_b_proj`` d → H·d, ``g_a_proj`` D → d, ``g_b_proj`` d → H·d;
  ``A_log`` of shape (1, 1, H, 1);
- ``bailing_hybrid`` (``BailingHybridDeltaAttention``, ``modeling_bailing_hybrid.py`` 651-690;
  ``BailingHybridForgetGate`` 403-413): full-rank ``forget_gate.f_proj`` D → H·d and ``g_proj``
  D → H·d (registered last); ``A_log`` of shape (H,).

Its cache (a ``LinearAttentionLayer``): ``conv_states`` (batch, 3H·d, K) in the model's dtype and
``recurrent_states`` (batch, H, d, d) in float32 whatever the model's dtype — transformers casts
it, ``update_recurrent_state(last_recurrent_state.to(torch.float32), ...)``
(``modeling_kimi_linear.py`` 708, ``modeling_bailing_hybrid.py`` 760).

A token's matmul FLOPs at decode (:func:`decode_flops`): its projections alone, the forget gate's
included — the one-token step (``recurrent_kimi_delta_attention``, ``modeling_bailing_hybrid.py``
494-544) updates and reads the state element-wise, and the convolution (``causal_conv1d_update``) is
no matrix product.

>>> from derive.tree import count
>>> mixer = kda(2304, 32, 128, 4)   # Kimi-Linear-48B-A3B's self_attn on its KDA layers
>>> count(mixer)
39514272
"""

from __future__ import annotations

from ..layers.conv import conv
from ..layers.linear import linear
from ..layers.norm import rms_norm
from ..layers.token_flops import projections, register
from ..tree import Dim, Module, Param, State

__all__ = ["SPELLINGS", "kda", "cache", "decode_flops"]

#: Per spelling: the class prefix of its modules.
SPELLINGS = {"kimi_linear": "KimiLinear", "bailing_hybrid": "BailingHybrid"}


def cache(num_heads: Dim, head_dim: Dim, conv_kernel: Dim) -> tuple[State, ...]:
    """The mixer's cache: ``conv_states`` (batch, 3H·d, K), ``recurrent_states`` (batch, H, d, d) float32.

    Parameters
    ----------
    num_heads, head_dim, conv_kernel : int or sympy.Expr
        H, d, K.

    Returns
    -------
    tuple of derive.tree.State
        Constant in the sequence length (sources in the module's docstring).
    """
    return (
        State("conv_states", ("batch", 3 * num_heads * head_dim, conv_kernel)),
        State("recurrent_states", ("batch", num_heads, head_dim, head_dim), "float32"),
    )


def kda(
    hidden_size: Dim,
    num_heads: Dim,
    head_dim: Dim,
    conv_kernel: Dim = 4,
    *,
    spelling: str = "kimi_linear",
    name: str = "self_attn",
) -> Module:
    """The KDA mixer as transformers builds it.

    Parameters
    ----------
    hidden_size, num_heads, head_dim, conv_kernel : int or sympy.Expr
        D, H, d, K.
    spelling : {"kimi_linear", "bailing_hybrid"}
    name : str, default "self_attn"
        Its name in the decoder layer (both families name it ``self_attn``).

    Returns
    -------
    derive.tree.Module
        Kimi: 4DHd + 3HdK + Hd + H + DH + 2Dd + 2dHd + d parameters; with its
        cache (:func:`cache`).

    Raises
    ------
    ValueError
        An unknown spelling.
    """
    if spelling not in SPELLINGS:
        raise ValueError(f"spelling must be one of {sorted(SPELLINGS)}, got {spelling!r}")
    prefix = SPELLINGS[spelling]
    D, d, qkv = hidden_size, head_dim, num_heads * head_dim
    projections = tuple(linear(D, qkv, False, name=n) for n in ("q_proj", "k_proj", "v_proj"))
    conv1d = conv(3 * qkv, 3 * qkv, (conv_kernel,), groups=3 * qkv, bias=False, name="conv1d")
    if spelling == "kimi_linear":
        gate = Module(
            "forget_gate",
            f"{prefix}ForgetGate",
            (Param("dt_bias", (qkv,)), Param("A_log", (1, 1, num_heads, 1))),
            (linear(D, d, False, name="f_a_proj"), linear(d, qkv, False, name="f_b_proj")),
        )
        rest: tuple[Module, ...] = (
            gate,
            linear(D, num_heads, False, name="b_proj"),
            linear(D, d, False, name="g_a_proj"),
            linear(d, qkv, False, name="g_b_proj"),
            rms_norm((d,), name="o_norm", type=f"{prefix}RMSNormGated"),
            linear(qkv, D, False, name="o_proj"),
        )
    else:
        gate = Module(
            "forget_gate",
            f"{prefix}ForgetGate",
            (Param("A_log", (num_heads,)), Param("dt_bias", (qkv,))),
            (linear(D, qkv, False, name="f_proj"),),
        )
        rest = (
            gate,
            linear(D, num_heads, False, name="b_proj"),
            rms_norm((d,), name="o_norm", type=f"{prefix}RMSNormGated"),
            linear(qkv, D, False, name="o_proj"),
            linear(D, qkv, False, name="g_proj"),
        )
    return Module(
        name, f"{prefix}DeltaAttention", children=(*projections, conv1d, *rest), cache=cache(num_heads, d, conv_kernel)
    )


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through the mixer at decode: every projection, the forget gate's too
    (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`kda`).
    tokens : int or sympy.Expr
        Unused: the mixer's cost does not grow with the cache.

    Returns
    -------
    int or sympy.Expr
    """
    gates = [c for c in module.children if c.name == "forget_gate"]
    return projections(module, tokens) + sum((projections(g, tokens) for g in gates), 0)


for _prefix in SPELLINGS.values():
    register(f"{_prefix}DeltaAttention", decode_flops)
