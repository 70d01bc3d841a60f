"""flash-linear-attention's RWKV-6: ``RWKV6Attention`` with its own signature and names, ``RWKV6ForCausalLM``
from an ``RWKV6Config`` (``model_type`` "rwkv6"), and the parts fla's RWKV models share (``LoRA``,
``LerpLinear``, the block and model frames).

Sources: flash-linear-attention 0.6.0 ``fla/layers/rwkv6.py`` 30–96 (``RWKV6Attention``), 215–369
(``LoRA``, ``LerpLinear``, ``DDLerpLinear``); ``fla/models/rwkv6/configuration_rwkv6.py`` 22–85,
``modeling_rwkv6.py`` 36–61, 96–141, 231–244, 319–327. K = round(D·``expand_k``) (default 0.5: half of
BlinkDL's width) for r, k, the decay and the bonus; V = D·``expand_v`` for v and g; configured with
``expand_k=1``, ``num_heads=D/64`` the time mix has BlinkDL's count (:mod:`derive.blocks.rwkv6`). The
feed-forward rounds 3.5·D *up* to a multiple of 32 where BlinkDL rounds down.

>>> rwkv6_attention(hidden_size=2048, expand_k=1.0, num_heads=32).count == 5 * 2048**2 + 458 * 2048
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..layers.norm import layer_norm
from ..tree import Dim, Module, Param
from . import register_config
from ._keys import config_constructor, flag, formula, is_int, number, recipe, size, value
from .hf_config import Keys
from .rwkv import blinkdl_model

__all__ = ["SOURCE", "fla_lora", "lerp_linear", "scaled", "rwkv6_attention", "rwkv6_feed_forward", "fla_ffn_width",
           "refuse_hybrid", "check_fla_config", "FLA_INERT", "KEYS", "fla_block", "fla_model", "rwkv6_for_causal_lm",
           "LETTERS"]  # fmt: skip

#: Where the tensors and conventions are read from (file and lines), shown on the site.
SOURCE = "flash-linear-attention 0.6.0 fla/layers/rwkv6.py 30-96, 215-369; fla/models/rwkv6/"


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


def lerp_linear(input_dim: Dim, output_dim: Dim, low_rank_dim: Dim | None, *, mu: bool, name: str) -> Module:
    """fla's ``LerpLinear`` (``mu`` and a linear map) or ``DDLerpLinear`` (the map only): 302–369.

    Parameters
    ----------
    input_dim, output_dim : int or sympy.Expr
    low_rank_dim : int or sympy.Expr or None
        A :func:`fla_lora` of this rank in place of the linear map.
    mu : bool
        ``LerpLinear``'s own interpolation vector (``DDLerpLinear`` takes it as an argument).
    name : str

    Returns
    -------
    derive.tree.Module
    """
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
    x_proj = Module(
        "x_proj",
        "Sequential",
        children=(lerp_linear(d, r * 5, None, mu=True, name="0"), linear(r * 5, d, False, name="2")),
    )
    children = (
        x_proj,
        lerp_linear(d, k, None, mu=False, name="r_proj"),
        lerp_linear(d, k, g, mu=False, name="w_proj"),
        lerp_linear(d, k, None, mu=False, name="k_proj"),
        lerp_linear(d, v, None, mu=False, name="v_proj"),
        lerp_linear(d, v, None, mu=False, name="g_proj"),
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
        formula=recipe(
            rwkv6_attention,
            sizes,
            {"hidden_size": "D", "proj_low_rank_dim": "r", "gate_low_rank_dim": "g"},
            expand_k=expand_k,
            expand_v=expand_v,
            elementwise_affine=bool(elementwise_affine),
        ),  # fmt: skip
    )


def rwkv6_feed_forward(hidden_size: Dim, intermediate_size: Dim) -> Module:
    """fla's ``RWKV6FeedForward`` (``fla/models/rwkv6/modeling_rwkv6.py`` 36–61): ``key`` a LerpLinear
    D → F (with ``mu``), ``value`` F → D, ``receptance`` a LerpLinear D → D: 2DF + D² + 2D.

    Parameters
    ----------
    hidden_size, intermediate_size : int or sympy.Expr

    Returns
    -------
    derive.tree.Module
    """
    d, f = hidden_size, intermediate_size
    return Module("ffn", "RWKV6FeedForward", children=(lerp_linear(d, f, None, mu=True, name="key"), linear(f, d, False, name="value"),
                                                       lerp_linear(d, d, None, mu=True, name="receptance")))  # fmt: skip


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


def refuse_hybrid(config: Mapping[str, Any]) -> None:
    """Refuse ``attn`` (standard attention in chosen layers, ``fla/models/utils``): derive does not map it.

    Parameters
    ----------
    config : mapping

    Raises
    ------
    ValueError
        ``attn`` is given.
    """
    if value(config, "attn", None) is not None:
        raise ValueError("config key 'attn' (standard attention in chosen layers) is not mapped by derive")


#: The keys fla's RWKV6Config and RWKV7Config share that shape no tensor, each with why (flash-linear-attention 0.6.0;
#: ``configuration_rwkv6.py`` 24-50, ``configuration_rwkv7.py`` 24-52). The keys every transformers config carries
#: (``hidden_act``, ``use_cache``, ``initializer_range``, the token ids: :data:`~derive.blocks.hf_config.GENERIC`) are
#: left out: fla's classes pass them to ``PreTrainedConfig``.
FLA_INERT = {
    "attn_mode": "the kernel the time mix runs, 'chunk' or 'fused_recurrent' (fla/layers/rwkv6.py 64, rwkv7.py 55): "
    "no tensor",
    "max_position_embeddings": "read only by the standard attention layers of 'attn' (fla/models/modeling_utils.py "
    "42, a rotary's length; refused here): no tensor",
    "norm_eps": "an epsilon of the LayerNorms and g_norm",
    "fuse_norm": "fla's fused LayerNorm or nn.LayerNorm (modeling_rwkv6.py 105, modeling_rwkv7.py 126), in "
    "RWKV7Attention fla's GroupNorm or nn.GroupNorm (fla/layers/rwkv7.py 126-138): the same weight and bias",
    "fuse_cross_entropy": "the training loss's kernel (fla/models/modeling_utils.py 125-128): no tensor",
    "fuse_linear_cross_entropy": "the training loss fused with lm_head (fla/models/modeling_utils.py 103-104, 123-124): no "
    "tensor (refused with fuse_cross_entropy, as fla's validate_loss_config)",
    "use_l2warp": "the training loss's L2-warp (fla/models/modeling_utils.py 105-106, 144-145): no tensor",
}

#: ``RWKV6Config``'s every key at flash-linear-attention 0.6.0 (``fla/models/rwkv6/configuration_rwkv6.py`` 22-51):
#: the keys the model's shapes read with the class's defaults (``attn``, standard attention in chosen layers, read
#: to be refused), and :data:`FLA_INERT`. A key outside the class is kept by ``PreTrainedConfig`` and read by no
#: modeling code: answered with a note.
KEYS = Keys(
    "RWKV6Config",
    {"vocab_size": 32000, "hidden_size": 2048, "num_hidden_layers": 24, "num_heads": 4, "expand_k": 0.5,
     "expand_v": 1.0, "hidden_ratio": 3.5, "intermediate_size": None, "proj_low_rank_dim": 32, "gate_low_rank_dim": 64,
     "norm_first": True, "norm_bias": True, "attn": None, "tie_word_embeddings": False},
    FLA_INERT,
)  # fmt: skip


def check_fla_config(config: Mapping[str, Any]) -> None:
    """What fla refuses of an RWKV6Config's or RWKV7Config's inert keys, and ``attn`` (:func:`refuse_hybrid`).

    An ``attn_mode`` other than 'chunk' or 'fused_recurrent' (the layer asserts it: ``fla/layers/rwkv6.py`` 64,
    ``rwkv7.py`` 55) and ``fuse_cross_entropy`` with ``fuse_linear_cross_entropy`` (``validate_loss_config``,
    ``fla/models/configuration_utils.py`` 144-146).

    Parameters
    ----------
    config : mapping

    Raises
    ------
    ValueError
        Naming the key.
    """
    refuse_hybrid(config)
    mode = config.get("attn_mode", "chunk")
    if mode not in ("chunk", "fused_recurrent"):
        raise ValueError(f"config key 'attn_mode' must be 'chunk' or 'fused_recurrent' (as fla asserts), got {mode!r}")
    if config.get("fuse_cross_entropy", True) and config.get("fuse_linear_cross_entropy", False):
        raise ValueError(
            "config keys 'fuse_cross_entropy' and 'fuse_linear_cross_entropy' are both true: fla's "
            "validate_loss_config refuses them together"
        )


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
    return Module(
        name,
        type,
        children=(
            *pre,
            norm("attn_norm"),
            att.replace(name="attn", part="recurrent mixers"),  # time mix
            norm("ffn_norm"),
            ffn.replace(part="MLP"),  # channel mix
        ),
        row=True,
    )


@register_config("rwkv6", architecture="RWKV6ForCausalLM", source=SOURCE, keys=KEYS)
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
    KEYS.resolve(config)
    check_fla_config(config)
    d = size(config, "hidden_size", 2048)
    heads = size(config, "num_heads", 4)
    ek, ev = number(config, "expand_k", 0.5), number(config, "expand_v", 1.0)
    r, g = size(config, "proj_low_rank_dim", 32), size(config, "gate_low_rank_dim", 64)
    f = fla_ffn_width(config, d, 3.5)
    norm_first, bias = flag(config, "norm_first", True), flag(config, "norm_bias", True)

    def block(first: bool, name: str) -> Module:
        att = rwkv6_attention(
            hidden_size=d, expand_k=ek, expand_v=ev, num_heads=heads, proj_low_rank_dim=r, gate_low_rank_dim=g
        )
        ffn = rwkv6_feed_forward(d, f)
        return fla_block(d, att, ffn, first=first, norm_first=norm_first, norm_bias=bias, name=name, type="RWKV6Block")

    resolved = {**config, "intermediate_size": f}
    shape = {"hidden_size": d, "num_heads": heads, "expand_k": ek, "expand_v": ev, "proj_low_rank_dim": r,
             "gate_low_rank_dim": g, "norm_first": norm_first, "norm_bias": bias}  # fmt: skip
    return fla_model(resolved, d, block, "RWKV6ForCausalLM", rwkv6_for_causal_lm, LETTERS, norm_bias=bias, shape=shape)


def fla_model(config: Mapping[str, Any], d: Dim, block: Any, type: str, build: Any, letters: Mapping[str, str], *,
               norm_bias: bool, minimum_layers: int = 0, blocks: tuple[Module, ...] | None = None,
               shape: Mapping[str, Any] | None = None) -> Module:  # fmt: skip
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
    shape : mapping, optional
        The keys that shape the model as resolved (defaults filled), kept with the model as its config.

    Returns
    -------
    derive.tree.Module
    """
    vocab = size(config, "vocab_size", 32000)
    layers = size(config, "num_hidden_layers", 24, minimum=minimum_layers)
    tied = flag(config, "tie_word_embeddings", False)
    resolved = {
        **config,
        **(shape or {}),
        "vocab_size": vocab,
        "num_hidden_layers": layers,
        "tie_word_embeddings": tied,
    }
    model = blinkdl_model(vocab, d, layers, block, type=type, prefix="model", names=("embeddings", "layers", "norm", "lm_head"),
                          tie="model.embeddings.weight" if tied else None, config=resolved, norm_bias=norm_bias,
                          blocks=blocks)  # fmt: skip
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
        prefixes=("", "fla.", "fla.layers.", "fla.layers.rwkv6.", "layers."),
        letters={"hidden_size": "D", "proj_low_rank_dim": "r", "gate_low_rank_dim": "g"},
        read=_read_rwkv6,
        module_types=("fla.layers.rwkv6",),
        source="flash-linear-attention 0.6.0 fla/layers/rwkv6.py 30-96",
    )
)

register(
    Constructor(
        "fla",
        "RWKV6Config",
        config_constructor("RWKV6Config", rwkv6_for_causal_lm),
        prefixes=("", "fla.models.", "fla.models.rwkv6."),
        module_types=("fla.models.rwkv6.configuration_rwkv6",),
        source=SOURCE,
    )
)
