"""``torch.nn``'s attention and transformer classes with torch's signatures and checks.

Sources: ``torch/nn/modules/activation.py`` (``MultiheadAttention``) and ``transformer.py``
(``TransformerEncoderLayer``, ``TransformerDecoderLayer``, ``TransformerEncoder``,
``TransformerDecoder``, ``Transformer``), torch 2.13. ``nhead`` splits the width and adds no
weights; it is still checked (``embed_dim must be divisible by num_heads``).

>>> from derive.engine.constructors import lookup
>>> lookup("torch", "TransformerEncoderLayer").make(512, 8).count
3152384
"""

from __future__ import annotations

from typing import Any

from ...engine import validate
from ...tree import Module
from ..attention import multihead_attention
from ..transformer import decoder_layer, encoder_layer, stack, transformer
from ._base import define, is_number

__all__: list[str] = []


def _heads(embed_dim: Any, num_heads: Any) -> None:
    if is_number(embed_dim) and is_number(num_heads):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")


def MultiheadAttention(
    embed_dim: Any,
    num_heads: Any,
    dropout: Any = 0.0,
    bias: Any = True,
    add_bias_kv: Any = False,
    add_zero_attn: Any = False,
    kdim: Any = None,
    vdim: Any = None,
    batch_first: Any = False,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.MultiheadAttention``: packed or separate q/k/v projections, ``out_proj``.

    Parameters
    ----------
    embed_dim : int or sympy.Expr
        Model width ``E``, as ``torch.nn.MultiheadAttention``.
    num_heads : int or sympy.Expr
        Heads; split ``embed_dim``, add no tensor.
    dropout : float, default 0.0
        As torch; ignored.
    bias : bool, default True
        ``in_proj_bias`` and ``out_proj.bias``.
    add_bias_kv : bool, default False
        ``bias_k`` and ``bias_v`` (1, 1, E).
    add_zero_attn : bool, default False
        As torch; ignored (no tensor).
    kdim, vdim : int or sympy.Expr, optional
        Key and value widths; when either differs from ``embed_dim`` the projections are separate
        (``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight``).
    batch_first : bool, default False
        Only the output shape's order: ``(N, L, E)`` when True, else ``(L, N, E)``.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, or a flag not a bool.
    ValueError
        A size below 1, or (numbers) ``num_heads`` not dividing ``embed_dim`` (torch's words).
    """
    _heads(embed_dim, num_heads)
    e = validate.size("embed_dim", embed_dim)
    validate.size("num_heads", num_heads)
    k = None if kdim is None else validate.size("kdim", kdim)
    v = None if vdim is None else validate.size("vdim", vdim)
    module = multihead_attention(
        e, kdim=k, vdim=v, bias=validate.flag("bias", bias), add_bias_kv=validate.flag("add_bias_kv", add_bias_kv)
    )
    shape = ("N", "L", e) if batch_first is True else ("L", "N", e)
    return module.replace(output_shape=shape, config={"kdim": e if k is None else k, "vdim": e if v is None else v})


def _activation(activation: Any) -> None:
    if isinstance(activation, str) and activation not in ("relu", "gelu"):
        raise ValueError(f"activation should be relu/gelu, not {activation}")


def _layer(build: Any, type_name: str) -> Any:
    def make(
        d_model: Any,
        nhead: Any,
        dim_feedforward: Any = 2048,
        dropout: Any = 0.1,
        activation: Any = "relu",
        layer_norm_eps: Any = 1e-5,
        batch_first: Any = False,
        norm_first: Any = False,
        bias: Any = True,
        device: Any = None,
        dtype: Any = None,
    ) -> Module:
        _heads(d_model, nhead)
        d = validate.size("d_model", d_model)
        validate.size("nhead", nhead)
        _activation(activation)
        module: Module = build(d, validate.size("dim_feedforward", dim_feedforward), bias=validate.flag("bias", bias))
        return module

    make.__doc__ = f"``nn.{type_name}``: attention, ``linear1`` (F, D), ``linear2`` (D, F), LayerNorms."
    return make


def _stacked(type_name: str, layer_name: str, layer: Any, num_layers: Any, norm: Any) -> Module:
    if not isinstance(layer, Module):
        raise TypeError(f"{type_name}: {layer_name} must be a module, got {type(layer).__name__}")
    if norm is not None and not isinstance(norm, Module):
        raise TypeError(f"{type_name}: norm must be a module or None, got {type(norm).__name__}")
    return stack(layer, validate.size("num_layers", num_layers, minimum=0), norm, type=type_name)


def _encoder(
    encoder_layer: Any,
    num_layers: Any,
    norm: Any = None,
    enable_nested_tensor: Any = True,
    mask_check: Any = True,
) -> Module:
    """``nn.TransformerEncoder``: ``num_layers`` copies of ``encoder_layer``, then ``norm``."""
    return _stacked("TransformerEncoder", "encoder_layer", encoder_layer, num_layers, norm)


def _decoder(decoder_layer: Any, num_layers: Any, norm: Any = None) -> Module:
    """``nn.TransformerDecoder``: ``num_layers`` copies of ``decoder_layer``, then ``norm``."""
    return _stacked("TransformerDecoder", "decoder_layer", decoder_layer, num_layers, norm)


def Transformer(
    d_model: Any = 512,
    nhead: Any = 8,
    num_encoder_layers: Any = 6,
    num_decoder_layers: Any = 6,
    dim_feedforward: Any = 2048,
    dropout: Any = 0.1,
    activation: Any = "relu",
    custom_encoder: Any = None,
    custom_decoder: Any = None,
    layer_norm_eps: Any = 1e-5,
    batch_first: Any = False,
    norm_first: Any = False,
    bias: Any = True,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``nn.Transformer``: an encoder and a decoder stack, each ending in a LayerNorm.

    Parameters
    ----------
    d_model : int or sympy.Expr, default 512
        Model width, as ``torch.nn.Transformer``.
    nhead : int or sympy.Expr, default 8
        Heads; split ``d_model``, add no tensor.
    num_encoder_layers, num_decoder_layers : int or sympy.Expr, default 6
        Layers of each stack (0 allowed).
    dim_feedforward : int or sympy.Expr, default 2048
        Width of each layer's feed-forward block.
    dropout : float, default 0.1
        As torch; ignored.
    activation : str or callable, default "relu"
        A string must be ``"relu"`` or ``"gelu"``; no tensor either way.
    custom_encoder, custom_decoder : derive.tree.Module, optional
        Used as given instead of the stacks.
    layer_norm_eps : float, default 1e-5
        As torch; ignored.
    batch_first, norm_first : bool, default False
        As torch; ignored (they change no tensor).
    bias : bool, default True
        The biases of the linear layers and LayerNorms.
    device, dtype : object, optional
        Accepted as torch accepts them and ignored (they change no name or shape).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError
        A size that is not an integer, ``bias`` not a bool, or a custom encoder or decoder that is
        not a module.
    ValueError
        ``d_model``, ``nhead`` or ``dim_feedforward`` below 1, a number of layers below 0,
        ``nhead`` not dividing ``d_model``, or an activation string other than relu/gelu.
    """
    _heads(d_model, nhead)
    d = validate.size("d_model", d_model)
    validate.size("nhead", nhead)
    _activation(activation)
    for key, value in (("custom_encoder", custom_encoder), ("custom_decoder", custom_decoder)):
        if value is not None and not isinstance(value, Module):
            raise TypeError(f"Transformer: {key} must be a module or None, got {type(value).__name__}")
    return transformer(
        d,
        validate.size("num_encoder_layers", num_encoder_layers, minimum=0),
        validate.size("num_decoder_layers", num_decoder_layers, minimum=0),
        validate.size("dim_feedforward", dim_feedforward),
        bias=validate.flag("bias", bias),
        custom_encoder=custom_encoder,
        custom_decoder=custom_decoder,
    )


def _read_mha(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (m.embed_dim, m.num_heads), {
        "dropout": m.dropout,
        "bias": m.in_proj_bias is not None,
        "add_bias_kv": m.bias_k is not None,
        "kdim": m.kdim,
        "vdim": m.vdim,
        "batch_first": m.batch_first,
    }


def _read_layer(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (m.self_attn.embed_dim, m.self_attn.num_heads, m.linear1.out_features), {
        "batch_first": m.self_attn.batch_first,
        "norm_first": m.norm_first,
        "bias": m.linear1.bias is not None,
    }


_SOURCE = "torch/nn/modules/transformer.py"
_LAYER = {"d_model": "D", "dim_feedforward": "F"}
define(
    "MultiheadAttention",
    MultiheadAttention,
    source="torch/nn/modules/activation.py",
    letters={"embed_dim": "E", "kdim": "K", "vdim": "V"},
    read=_read_mha,
)
define(
    "TransformerEncoderLayer",
    _layer(encoder_layer, "TransformerEncoderLayer"),
    source=_SOURCE,
    letters=_LAYER,
    read=_read_layer,
)
define(
    "TransformerDecoderLayer",
    _layer(decoder_layer, "TransformerDecoderLayer"),
    source=_SOURCE,
    letters=_LAYER,
    read=_read_layer,
)
define("TransformerEncoder", _encoder, source=_SOURCE, letters={"num_layers": "L"})
define("TransformerDecoder", _decoder, source=_SOURCE, letters={"num_layers": "L"})
define(
    "Transformer",
    Transformer,
    source=_SOURCE,
    letters={"d_model": "D", "num_encoder_layers": "N", "num_decoder_layers": "M", "dim_feedforward": "F"},
)
