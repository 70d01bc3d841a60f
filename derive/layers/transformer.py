"""The transformer layers of ``torch.nn``: encoder and decoder layers, their stacks, ``nn.Transformer``.

Source: ``torch/nn/modules/transformer.py`` (torch 2.13). An encoder layer is self-attention
(:func:`~derive.layers.attention.multihead_attention`), a feed-forward block ``linear1`` (F, D) and
``linear2`` (D, F) and two LayerNorms; a decoder layer adds cross-attention (``multihead_attn``) and a
third norm. ``bias=False`` drops the bias of every Linear, LayerNorm and attention. A stack
(``TransformerEncoder``) holds ``num_layers`` deep copies of its layer in ``layers`` and an optional
final ``norm``; ``nn.Transformer`` is an encoder and a decoder stack, each with a final LayerNorm.
The dropouts are modules without tensors, listed as torch lists them.

>>> encoder_layer(512, 2048).count
3152384
>>> transformer().count   # nn.Transformer() with its defaults
44140544
"""

from __future__ import annotations

from ..tree import Dim, Module
from .attention import multihead_attention
from .linear import linear
from .norm import layer_norm
from .stateless import stateless

__all__ = ["encoder_layer", "decoder_layer", "stack", "transformer"]


def _feed_forward(d_model: Dim, dim_feedforward: Dim, bias: bool) -> tuple[Module, ...]:
    return (
        linear(d_model, dim_feedforward, bias, name="linear1"),
        stateless("Dropout", name="dropout"),
        linear(dim_feedforward, d_model, bias, name="linear2"),
    )


def _norms(d_model: Dim, n: int, bias: bool) -> tuple[Module, ...]:
    return tuple(layer_norm((d_model,), bias=bias, name=f"norm{k}") for k in range(1, n + 1))


def _dropouts(n: int) -> tuple[Module, ...]:
    return tuple(stateless("Dropout", name=f"dropout{k}") for k in range(1, n + 1))


def encoder_layer(d_model: Dim, dim_feedforward: Dim = 2048, *, bias: bool = True, name: str = "") -> Module:
    """``nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, ..., bias)``.

    Parameters
    ----------
    d_model : int or sympy.Expr
        D, the model width (``nhead`` adds no weights).
    dim_feedforward : int or sympy.Expr, default 2048
        F, the feed-forward width.
    bias : bool, default True
    name : str

    Returns
    -------
    derive.tree.Module
        4D² + 2DF + 9D + F parameters with biases; shown as one row.
    """
    children = (
        multihead_attention(d_model, bias=bias, name="self_attn"),
        *_feed_forward(d_model, dim_feedforward, bias),
        *_norms(d_model, 2, bias),
        *_dropouts(2),
    )
    return Module(name, "TransformerEncoderLayer", children=children, row=True)


def decoder_layer(d_model: Dim, dim_feedforward: Dim = 2048, *, bias: bool = True, name: str = "") -> Module:
    """``nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward, ..., bias)``: self-attention,
    cross-attention (``multihead_attn``), the feed-forward block and three norms.

    Parameters
    ----------
    d_model : int or sympy.Expr
    dim_feedforward : int or sympy.Expr, default 2048
    bias : bool, default True
    name : str

    Returns
    -------
    derive.tree.Module
    """
    children = (
        multihead_attention(d_model, bias=bias, name="self_attn"),
        multihead_attention(d_model, bias=bias, name="multihead_attn"),
        *_feed_forward(d_model, dim_feedforward, bias),
        *_norms(d_model, 3, bias),
        *_dropouts(3),
    )
    return Module(name, "TransformerDecoderLayer", children=children, row=True)


def stack(layer: Module, num_layers: Dim, norm: Module | None = None, *, type: str = "TransformerEncoder") -> Module:
    """``nn.TransformerEncoder(layer, num_layers, norm)`` (or ``TransformerDecoder``): ``num_layers``
    deep copies of ``layer`` in ``layers``, then ``norm``.

    Parameters
    ----------
    layer : derive.tree.Module
        The layer copied (any module: torch deep-copies whatever it is given).
    num_layers : int or sympy.Expr
    norm : derive.tree.Module, optional
    type : str, default "TransformerEncoder"

    Returns
    -------
    derive.tree.Module
    """
    layers = Module("layers", "ModuleList", children=(layer.replace(name="{k}").with_repeat(num_layers),))
    children = (layers,) if norm is None else (layers, norm.replace(name="norm"))
    return Module("", type, children=children)


def transformer(
    d_model: Dim = 512,
    num_encoder_layers: Dim = 6,
    num_decoder_layers: Dim = 6,
    dim_feedforward: Dim = 2048,
    *,
    bias: bool = True,
    custom_encoder: Module | None = None,
    custom_decoder: Module | None = None,
    name: str = "",
) -> Module:
    """``nn.Transformer``: an encoder stack and a decoder stack, each ending in a LayerNorm.

    Parameters
    ----------
    d_model, num_encoder_layers, num_decoder_layers, dim_feedforward : int or sympy.Expr
    bias : bool, default True
    custom_encoder, custom_decoder : derive.tree.Module, optional
        Used as given instead of the stacks.
    name : str

    Returns
    -------
    derive.tree.Module
    """
    encoder = custom_encoder or stack(
        encoder_layer(d_model, dim_feedforward, bias=bias), num_encoder_layers, layer_norm((d_model,), bias=bias)
    )
    decoder = custom_decoder or stack(
        decoder_layer(d_model, dim_feedforward, bias=bias),
        num_decoder_layers,
        layer_norm((d_model,), bias=bias),
        type="TransformerDecoder",
    )
    return Module(name, "Transformer", children=(encoder.replace(name="encoder"), decoder.replace(name="decoder")))
