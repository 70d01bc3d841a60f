"""Gated DeltaNet: the linear-attention mixer of Qwen3-Next, Qwen3.5, Qwen4-exp and OLMo-hybrid, written once.

The mixer (Yang, Kautz & Hatamizadeh 2025, *Gated Delta Networks: Improving Mamba2 with Delta Rule*)
projects the input to queries and keys (H_k heads of d_k), values (H_v heads of d_v), an output
gate z (H_v·d_v) and two scalars per value head — the write strength β (``b``) and the decay's
time step (``a``); runs a depthwise causal ``conv1d`` (no bias) over q, k, v together (2·H_k·d_k +
H_v·d_v channels); keeps a decay ``A_log`` and a time-step bias ``dt_bias`` per value head; reads the
state with a gated RMSNorm of d_v (shared by the heads) and projects back. D = ``hidden_size``, K =
``linear_conv_kernel_dim``. Parameters: D(2H_k·d_k + 2H_v·d_v + 2H_v) + (2H_k·d_k + H_v·d_v)K + 2H_v +
d_v + H_v·d_v·D, in every spelling; they differ in how the input projections are cut:

- ``qwen3_next`` (``Qwen3NextGatedDeltaNet``, ``modeling_qwen3_next.py`` 582-626): ``in_proj_qkvz``
  (2H_k·d_k + 2H_v·d_v) and ``in_proj_ba`` (2H_v);
- ``qwen3_5`` / ``qwen3_5_moe`` / ``qwen4_exp`` (``modeling_qwen3_5.py`` 499-542 and the copies in
  ``qwen3_5_moe`` 495-538, ``qwen4_exp`` 464-505): ``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``,
  ``in_proj_a``, registered after ``out_proj``;
- ``olmo_hybrid`` (``OlmoHybridGatedDeltaNet``, ``modeling_olmo_hybrid.py`` 571-628): ``q_proj``,
  ``k_proj``, ``v_proj``, ``a_proj``, ``b_proj``, ``g_proj``, ``o_proj``, then ``conv1d``, the
  norm named ``o_norm``.

Its cache (a ``LinearAttentionLayer``, ``cache_utils.py`` 1160-1248): ``conv_states`` (batch,
2H_k·d_k + H_v·d_v, K) in the model's dtype and ``recurrent_states`` (batch, H_v, d_k, d_v) in
float32 whatever the model's dtype — the delta rule runs in float32 (``torch_chunk_gated_delta_rule``
casts q, k, v, β, g ``.to(torch.float32)`` and starts its state from them,
``modeling_qwen3_next.py`` 399-403, 481-499; the same lines in each copy).

A token's matmul FLOPs at decode (:func:`decode_flops`): its projections alone. With a state held and
one token, the mixer takes the step path (``modeling_qwen3_next.py`` 684-691 and 729-740:
``causal_conv1d_update``, ``torch_recurrent_gated_delta_rule``), whose torch fallback (512-576; the
copies ``qwen3_5`` 428-492, ``qwen3_5_moe`` 424-488, ``olmo_hybrid`` 501-565, ``qwen4_exp`` 394-458)
decays, updates and reads the state with element-wise products and sums (559-570), no matrix
product; the convolution is no matrix product either. The first token of a sequence (no state yet)
takes the chunked prefill path instead (``torch_chunk_gated_delta_rule``, 369-508), the token padded
to one chunk of c = 64 (``chunk_size``'s default, 376; the call passes none): per value head
``k_beta @ key^T`` and ``query @ key^T`` (c × d_k by d_k × c, 458-459), the products with the state
``k_cumdecay @ S`` and ``query @ S`` (c × d_k by d_k × d_v, 495-496), ``intra @ v_new`` (c × c by c ×
d_v, 497) and ``key^T @ v_new`` (d_k × c by c × d_v, 499): H_v(4c²d_k + 2c²d_v + 6c·d_k·d_v) more;
``torch.linalg.solve_triangular`` (469-470) is no product ``FlopCounterMode`` counts.

>>> from derive.tree import count
>>> mixer = gated_deltanet(2048, 16, 32, 128, 128, 4)   # Qwen3-Next-80B-A3B's linear_attn
>>> count(mixer)
33718464
>>> [(s.name, s.elements(1, 10**6), s.dtype) for s in mixer.cache]
[('conv_states', 32768, None), ('recurrent_states', 524288, 'float32')]
"""

from __future__ import annotations

from ..layers.conv import conv
from ..layers.linear import linear
from ..layers.norm import rms_norm
from ..layers.token_flops import first_token, projections, register
from ..tree import Dim, Module, Param, State

__all__ = ["SPELLINGS", "CHUNK", "gated_deltanet", "cache", "decode_flops"]

#: The chunk the prefill path pads a sequence to (``torch_chunk_gated_delta_rule``'s ``chunk_size``).
CHUNK = 64

#: Per spelling: the mixer's class and its gated norm's class.
SPELLINGS = {
    "qwen3_next": ("Qwen3NextGatedDeltaNet", "Qwen3NextRMSNormGated"),
    "qwen3_5": ("Qwen3_5GatedDeltaNet", "Qwen3_5RMSNormGated"),
    "qwen3_5_moe": ("Qwen3_5MoeGatedDeltaNet", "Qwen3_5MoeRMSNormGated"),
    "qwen4_exp": ("Qwen4ExpTextGatedDeltaNet", "Qwen4ExpTextRMSNormGated"),
    "olmo_hybrid": ("OlmoHybridGatedDeltaNet", "OlmoHybridRMSNormGated"),
}


def cache(conv_dim: Dim, num_v_heads: Dim, head_k_dim: Dim, head_v_dim: Dim, conv_kernel: Dim) -> tuple[State, ...]:
    """The mixer's cache: ``conv_states`` (batch, conv_dim, K), ``recurrent_states`` (batch, H_v, d_k, d_v) float32.

    Parameters
    ----------
    conv_dim : int or sympy.Expr
        2H_k·d_k + H_v·d_v.
    num_v_heads, head_k_dim, head_v_dim, conv_kernel : int or sympy.Expr
        H_v, d_k, d_v, K.

    Returns
    -------
    tuple of derive.tree.State
        Constant in the sequence length (see the module's docstring for the sources).
    """
    return (
        State("conv_states", ("batch", conv_dim, conv_kernel)),
        State("recurrent_states", ("batch", num_v_heads, head_k_dim, head_v_dim), "float32"),
    )


def gated_deltanet(
    hidden_size: Dim,
    num_k_heads: Dim,
    num_v_heads: Dim,
    head_k_dim: Dim,
    head_v_dim: Dim,
    conv_kernel: Dim = 4,
    *,
    spelling: str = "qwen3_next",
    name: str = "linear_attn",
) -> Module:
    """The Gated DeltaNet mixer as transformers builds it (``linear_attn`` of a decoder layer).

    Parameters
    ----------
    hidden_size : int or sympy.Expr
        D.
    num_k_heads, num_v_heads : int or sympy.Expr
        H_k, H_v (``linear_num_key_heads``, ``linear_num_value_heads``).
    head_k_dim, head_v_dim : int or sympy.Expr
        d_k, d_v (``linear_key_head_dim``, ``linear_value_head_dim``).
    conv_kernel : int or sympy.Expr, default 4
        K (``linear_conv_kernel_dim``).
    spelling : {"qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen4_exp", "olmo_hybrid"}
        How the projections are cut and named (see the module's docstring).
    name : str, default "linear_attn"

    Returns
    -------
    derive.tree.Module
        With its cache (:func:`cache`).

    Raises
    ------
    ValueError
        An unknown spelling.
    """
    if spelling not in SPELLINGS:
        raise ValueError(f"spelling must be one of {sorted(SPELLINGS)}, got {spelling!r}")
    cls, norm_cls = SPELLINGS[spelling]
    D, key_dim, value_dim = hidden_size, num_k_heads * head_k_dim, num_v_heads * head_v_dim
    conv_dim = 2 * key_dim + value_dim
    conv1d = conv(conv_dim, conv_dim, (conv_kernel,), groups=conv_dim, bias=False, name="conv1d")
    states = cache(conv_dim, num_v_heads, head_k_dim, head_v_dim, conv_kernel)
    params = (Param("dt_bias", (num_v_heads,)), Param("A_log", (num_v_heads,)))
    children: tuple[Module, ...]
    if spelling == "olmo_hybrid":
        children = (
            linear(D, key_dim, False, name="q_proj"),
            linear(D, key_dim, False, name="k_proj"),
            linear(D, value_dim, False, name="v_proj"),
            linear(D, num_v_heads, False, name="a_proj"),
            linear(D, num_v_heads, False, name="b_proj"),
            linear(D, value_dim, False, name="g_proj"),
            linear(value_dim, D, False, name="o_proj"),
            conv1d,
            rms_norm((head_v_dim,), name="o_norm", type=norm_cls),
        )
        return Module(name, cls, (params[1], params[0]), children, cache=states)
    norm = rms_norm((head_v_dim,), name="norm", type=norm_cls)
    out_proj = linear(value_dim, D, False, name="out_proj")
    if spelling == "qwen3_next":
        children = (
            conv1d,
            linear(D, 2 * key_dim + 2 * value_dim, False, name="in_proj_qkvz"),
            linear(D, 2 * num_v_heads, False, name="in_proj_ba"),
            norm,
            out_proj,
        )
    else:
        children = (
            conv1d,
            norm,
            out_proj,
            linear(D, 2 * key_dim + value_dim, False, name="in_proj_qkv"),
            linear(D, value_dim, False, name="in_proj_z"),
            linear(D, num_v_heads, False, name="in_proj_b"),
            linear(D, num_v_heads, False, name="in_proj_a"),
        )
    return Module(name, cls, params, children, cache=states)


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through the mixer: its projections, 2D(2H_k·d_k + 2H_v·d_v + 2H_v) +
    2H_v·d_v·D (the recurrent step has no matrix product); the first token adds the chunked path's
    H_v(4c²d_k + 2c²d_v + 6c·d_k·d_v), c = :data:`CHUNK` (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`gated_deltanet`): its ``recurrent_states`` give H_v, d_k, d_v.
    tokens : int or sympy.Expr
        Tokens in the cache once this one is in: 1 is the first token, any other a decode step.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).
    """
    _, H, dk, dv = module.cache[1].shape
    c = CHUNK
    chunked = H * (4 * c * c * dk + 2 * c * c * dv + 6 * c * dk * dv)
    return projections(module, tokens) + first_token(tokens, chunked, 0)


for _cls, _ in SPELLINGS.values():
    register(_cls, decode_flops)
