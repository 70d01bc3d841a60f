"""MiniMax's lightning attention: the linear-attention mixer of MiniMax-Text-01, as transformers builds it.

Lightning attention (MiniMax 2025, *MiniMax-01: Scaling Foundation Models with Lightning
Attention*, §2.2) is linear attention with a fixed exponential decay per head, computed in blocks
of ``block_size`` tokens: one projection ``qkv_proj`` D → 3H·d (no bias, SiLU), an RMSNorm of H·d
on the output, a sigmoid output gate ``output_gate`` D → H·d and ``out_proj`` H·d → D, all
without bias: 5DHd + Hd parameters. The decays are buffers, not parameters: ``slope_rate``
(H, 1, 1), ``query_decay`` and ``key_decay`` (H, b, 1), ``diagonal_decay`` (1, H, b, b), b =
``block_size``. D = ``hidden_size``, H = ``num_attention_heads``, d = ``head_dim`` (default D / H).
Source: ``MiniMaxLightningAttention``, ``modeling_minimax.py`` 125-172 (transformers 5.23.0).

Its cache is not a cache layer: ``MiniMaxCache.linear_cache[layer_idx]`` holds K^T V of the tokens
so far, (batch, H, d, d), made in the values' dtype — the model's (``modeling_minimax.py`` 72-85,
197-209, 269).

A token's matmul FLOPs at decode (:func:`decode_flops`): its three projections and, per head, two
products with the state — the token's K^T V, (d, 1) by (1, d), and the query's readout, (1, d) by
(d, d): 2·H·d² each, 4·H·d² in all (``modeling_minimax.py`` 243-255, the branch taken when the layer
has a ``linear_cache``); the decay and the sum are element-wise. The first token of a sequence (no
``linear_cache`` yet) runs the block path instead (201-241), which adds per head the intra-block
products Q·K^T, (1, d) by (d, 1), and (Q·K^T)·V, (1, 1) by (1, d) (227-228): 4·H·d more.

>>> from derive.tree import count
>>> count(lightning_attention(6144, 64, 128, 256))   # MiniMax-Text-01's linear layers
251666432
"""

from __future__ import annotations

from ..layers.linear import linear
from ..layers.norm import rms_norm
from ..layers.token_flops import first_token, projections, register
from ..tree import Dim, Module, Param, State

__all__ = ["lightning_attention", "decode_flops"]


def lightning_attention(
    hidden_size: Dim, num_attention_heads: Dim, head_dim: Dim, block_size: Dim = 256, *, name: str = "self_attn"
) -> Module:
    """``MiniMaxLightningAttention``: qkv_proj, norm, output_gate, out_proj, and its decay buffers.

    Parameters
    ----------
    hidden_size, num_attention_heads, head_dim : int or sympy.Expr
        D, H, d.
    block_size : int or sympy.Expr, default 256
        b, the tokens of one block (shapes the buffers only).
    name : str, default "self_attn"

    Returns
    -------
    derive.tree.Module
        5DHd + Hd parameters; its cache ``linear_cache`` (batch, H, d, d) in the model's dtype.
    """
    D, H, d, b = hidden_size, num_attention_heads, head_dim, block_size
    buffers = (
        Param("slope_rate", (H, 1, 1), buffer=True),
        Param("query_decay", (H, b, 1), buffer=True),
        Param("key_decay", (H, b, 1), buffer=True),
        Param("diagonal_decay", (1, H, b, b), buffer=True),
    )
    children = (
        rms_norm((H * d,), name="norm", type="MiniMaxRMSNorm"),
        linear(D, 3 * H * d, False, name="qkv_proj"),
        linear(H * d, D, False, name="out_proj"),
        linear(D, H * d, False, name="output_gate"),
    )
    state = State("linear_cache", ("batch", H, d, d))
    return Module(name, "MiniMaxLightningAttention", buffers, children, cache=(state,))


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through ``MiniMaxLightningAttention``: 10·D·H·d + 4·H·d² (its projections
    and the two state products), 4·H·d more for the first token (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`lightning_attention`): its ``linear_cache`` (batch, H, d, d) gives H and d.
    tokens : int or sympy.Expr
        Tokens in the cache once this one is in: 1 is the first token, any other a decode step.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).
    """
    _, H, d, _ = module.cache[0].shape
    return projections(module, tokens) + 4 * H * d * d + first_token(tokens, 4 * H * d, 0)


register("MiniMaxLightningAttention", decode_flops)
