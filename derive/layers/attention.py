"""Multi-head attention: the query, key and value projections, their biases, and the output projection.

Source: ``torch/nn/modules/activation.py`` (``MultiheadAttention.__init__``): one packed
``in_proj_weight`` (3E, E) when keys and values have the query's width, else ``q_proj_weight``
(E, E), ``k_proj_weight`` (E, kdim), ``v_proj_weight`` (E, vdim); ``in_proj_bias`` (3E,) with
``bias``; ``bias_k``, ``bias_v`` (1, 1, E) with ``add_bias_kv``; ``out_proj`` a
``NonDynamicallyQuantizableLinear(E, E, bias)``. ``num_heads`` splits E and adds no weights.

>>> mha = multihead_attention(512)
>>> [p.name for p in mha.params], mha.count
(['in_proj_weight', 'in_proj_bias'], 1050624)
"""

from __future__ import annotations

from ..tree import Dim, Module, Param
from .linear import linear

__all__ = ["multihead_attention"]


def multihead_attention(
    embed_dim: Dim,
    *,
    kdim: Dim | None = None,
    vdim: Dim | None = None,
    bias: bool = True,
    add_bias_kv: bool = False,
    name: str = "",
) -> Module:
    """``torch.nn.MultiheadAttention``'s tensors for model width ``embed_dim``.

    Parameters
    ----------
    embed_dim : int or sympy.Expr
        E, the width of queries and of the output.
    kdim, vdim : int or sympy.Expr, optional
        Widths of keys and values (default E); either one different from E gives three separate
        projection weights instead of one packed ``in_proj_weight``.
    bias : bool, default True
        ``in_proj_bias`` and ``out_proj.bias``.
    add_bias_kv : bool, default False
        ``bias_k`` and ``bias_v``, appended to the keys and values.
    name : str

    Returns
    -------
    derive.tree.Module
        Own tensors, then the child ``out_proj``; shown as one row.

    Examples
    --------
    >>> [(p.name, p.shape) for p in multihead_attention(8, kdim=4, bias=False).params]
    [('q_proj_weight', (8, 8)), ('k_proj_weight', (8, 4)), ('v_proj_weight', (8, 8))]
    """
    k = embed_dim if kdim is None else kdim
    v = embed_dim if vdim is None else vdim
    if k == embed_dim and v == embed_dim:
        params: tuple[Param, ...] = (Param("in_proj_weight", (3 * embed_dim, embed_dim)),)
    else:
        params = (
            Param("q_proj_weight", (embed_dim, embed_dim)),
            Param("k_proj_weight", (embed_dim, k)),
            Param("v_proj_weight", (embed_dim, v)),
        )
    if bias:
        params += (Param("in_proj_bias", (3 * embed_dim,)),)
    if add_bias_kv:
        params += (Param("bias_k", (1, 1, embed_dim)), Param("bias_v", (1, 1, embed_dim)))
    out_proj = linear(embed_dim, embed_dim, bias, name="out_proj", type="NonDynamicallyQuantizableLinear")
    return Module(name, "MultiheadAttention", params, (out_proj,), row=True)
