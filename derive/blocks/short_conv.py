"""LFM2's short convolution: the gated depthwise-convolution mixer of LFM2, LFM2-MoE and LFM3.

``ShortConv`` (Liquid AI, LFM2 technical report, arXiv 2511.23404, §2) projects the input to
three streams B, C, x (``in_proj`` D → 3D), multiplies B·x, runs a depthwise causal ``conv``
of L taps over it and gates the result with C before ``out_proj`` D → D; one flag, ``conv_bias``,
gives all three their biases: 4D² + DL + b·5D parameters, D = ``hidden_size``, L =
``conv_L_cache``. Sources (transformers 5.23.0): ``Lfm2ShortConv``, ``modeling_lfm2.py`` 316-338,
and its copies ``modeling_lfm2_moe.py`` 401-423, ``modeling_lfm3.py`` 341-363.

Its cache (a ``LinearAttentionLayer`` of a ``"conv"`` layer, ``cache_utils.py`` 1427): only
``conv_states`` (batch, D, L), the full kernel width (``conv_kernel_size=self.conv_kernel_size``),
in the model's dtype; no recurrent state.

A token's matmul FLOPs at decode (:func:`decode_flops`): ``in_proj`` and ``out_proj``; the gates are
element-wise and the convolution (``causal_conv1d_update``, ``F.conv1d``) is no matrix product.

>>> from derive.tree import count
>>> count(short_conv(2048, 3))   # LFM2-1.2B's conv layers
16783360
"""

from __future__ import annotations

from ..layers.conv import conv
from ..layers.linear import linear
from ..layers.token_flops import projections, register
from ..tree import Dim, Module, State

__all__ = ["SPELLINGS", "short_conv", "decode_flops"]

#: Per model type: the class name.
SPELLINGS = {"lfm2": "Lfm2ShortConv", "lfm2_moe": "Lfm2MoeShortConv", "lfm3": "Lfm3ShortConv"}


def short_conv(
    hidden_size: Dim, conv_L_cache: Dim = 3, *, conv_bias: bool = False, spelling: str = "lfm2", name: str = "conv"
) -> Module:
    """The short-convolution mixer: ``conv`` (D, 1, L), ``in_proj`` D → 3D, ``out_proj`` D → D.

    Parameters
    ----------
    hidden_size, conv_L_cache : int or sympy.Expr
        D and L.
    conv_bias : bool, default False
        Biases on all three (``config.conv_bias``).
    spelling : {"lfm2", "lfm2_moe", "lfm3"}
    name : str, default "conv"

    Returns
    -------
    derive.tree.Module
        With its cache ``conv_states`` (batch, D, L).

    Raises
    ------
    ValueError
        An unknown spelling.
    """
    if spelling not in SPELLINGS:
        raise ValueError(f"spelling must be one of {sorted(SPELLINGS)}, got {spelling!r}")
    D, L = hidden_size, conv_L_cache
    children = (
        conv(D, D, (L,), groups=D, bias=conv_bias, name="conv"),
        linear(D, 3 * D, conv_bias, name="in_proj"),
        linear(D, D, conv_bias, name="out_proj"),
    )
    return Module(name, SPELLINGS[spelling], children=children, cache=(State("conv_states", ("batch", D, L)),))


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through the mixer at decode: its two projections (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`short_conv`).
    tokens : int or sympy.Expr
        Unused: the mixer's cost does not grow with the cache.

    Returns
    -------
    int or sympy.Expr
    """
    return projections(module, tokens)


for _cls in SPELLINGS.values():
    register(_cls, decode_flops)
