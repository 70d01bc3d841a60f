"""Linear-attention and gated linear-recurrent layers of flash-linear-attention (``fla.layers``).

Written from flash-linear-attention / fla-core 0.6.0 (held live in the tests through a
subprocess in ``.venv-ssm``): ``GatedLinearAttention`` (``fla/layers/gla.py`` 76-179),
``MultiScaleRetention`` (``multiscale_retention.py`` 71-173), ``HGRNAttention`` (``hgrn.py``
31-82), ``HGRN2Attention`` (``hgrn2.py`` 33-102) and ``DeltaNet`` (``delta_net.py`` 75-168), each
with its constructor's own defaults; the parts are fla's ``ShortConvolution`` (a depthwise Conv1d,
``fla/modules/causal_conv1d/ops.py`` 1118-1160), ``RMSNorm`` and ``FusedRMSNormGated`` (a weight of
the head width when ``elementwise_affine``, ``fla/modules/norm/layernorm.py`` 1081-1104,
``fused_norm_gate.py`` 967-990). Every projection is bias-free except ``gk_proj.1``.

>>> gated_linear_attention().count          # hidden_size 1024, expand_k 0.5, expand_v 1, 4 heads
4219648
>>> delta_net(hidden_size=2048, num_heads=16).count
16822400
"""

from __future__ import annotations

from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from ._ssm_common import flag, formula, size, times_ratio

__all__ = [
    "gated_linear_attention",
    "multiscale_retention",
    "hgrn_attention",
    "hgrn2_attention",
    "delta_net",
    "EQUATIONS",
    "SOURCE",
    "ACTIVATIONS",
]

SOURCE = "flash-linear-attention 0.6.0: fla/layers/{gla,multiscale_retention,hgrn,hgrn2,delta_net}.py"

#: fla's ``ACT2FN`` keys (``fla/modules/activations/ops.py`` 1111-1120): what ``feature_map`` and
#: ``gate_fn`` may name (any other raises KeyError in fla).
ACTIVATIONS = frozenset({"relu", "sigmoid", "logsigmoid", "silu", "swish", "sqrelu", "gelu", "bias_gelu"})

#: transformers' ``ACT2CLS`` keys (``transformers/activations.py`` 324-349, 5.23.0), which
#: ``MultiScaleRetention`` uses instead (``multiscale_retention.py`` 16): an instance assigned to
#: ``feature_map_fn`` / ``gate_fn`` is a submodule, and two have tensors of their own.
TRANSFORMERS_ACTIVATIONS = frozenset(
    {"gelu", "gelu_10", "gelu_accurate", "gelu_fast", "gelu_new", "gelu_python", "gelu_python_tanh"}
    | {"gelu_pytorch_tanh", "hardswish", "laplace", "leaky_relu", "linear", "mish", "prelu", "quick_gelu"}
    | {"relu", "relu2", "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh", "xielu"}
)
_ACTIVATION_TENSORS = {
    "prelu": ("PReLU", (Param("weight", (1,)),)),
    "xielu": (
        "XIELUActivation",
        (Param("alpha_p", (1,)), Param("alpha_n", (1,)), Param("beta", (), buffer=True), Param("eps", (), buffer=True)),
    ),
}

#: Each layer's recurrence, per head (S_t the d_k x d_v state; the papers as fla cites them).
EQUATIONS = {
    "GatedLinearAttention": (
        r"\alpha_t = \sigma(W_2 W_1 x_t + b)^{1/16}, \quad S_t = \mathrm{diag}(\alpha_t)\, S_{t-1} + k_t^{\top} v_t",
        r"o_t = W_o\big(\mathrm{RMSNorm}(q_t S_t) \odot \mathrm{swish}(W_g x_t)\big)",
    ),
    "MultiScaleRetention": (
        r"S_t = \gamma_h S_{t-1} + k_t^{\top} v_t, \quad \gamma_h = 1 - 2^{-5-h}",
        r"o_t = W_o\big(\mathrm{RMSNorm}(\mathrm{RoPE}(q_t) S_t) \odot \mathrm{swish}(W_g x_t)\big)",
    ),
    "HGRNAttention": (
        r"f_t = \sigma(W_f x_t), \quad i_t = \mathrm{swish}(W_i x_t) \odot (1 - f_t)",
        r"h_t = f_t \odot h_{t-1} + i_t, \quad o_t = W_o\big(\mathrm{RMSNorm}(h_t) \odot \mathrm{swish}(W_g x_t)\big)",
    ),
    "HGRN2Attention": (
        r"f_t = \sigma(W_f x_t), \quad S_t = \mathrm{diag}(f_t)\, S_{t-1} + (1 - f_t)^{\top} (W_i x_t)",
        r"o_t = W_o\, \mathrm{RMSNorm}\big(\mathrm{swish}(W_q x_t)\, S_t\big)",
    ),
    "DeltaNet": (
        r"\beta_t = \sigma(W_\beta x_t), \quad S_t = S_{t-1}(I - \beta_t k_t^{\top} k_t) + \beta_t v_t^{\top} k_t",
        r"o_t = W_o\, \mathrm{RMSNorm}(S_t q_t), \quad q_t, k_t = \mathrm{L2Norm}(\mathrm{SiLU}(\mathrm{Conv}(W x_t)))",
    ),
}

_FILES = {
    "GatedLinearAttention": "gla",
    "MultiScaleRetention": "multiscale_retention",
    "HGRNAttention": "hgrn",
    "HGRN2Attention": "hgrn2",
    "DeltaNet": "delta_net",
}


def _int(value: Any) -> bool:
    return type(value) is int


def _divides(width: Dim, heads: Dim, what: str) -> Dim:
    """``width // heads`` as fla takes it, refused (fla's assertion) when ``heads`` does not divide."""
    if _int(width) and _int(heads):
        if width % heads:
            raise ValueError(f"{what} must be divisible by num_heads of {heads}")
        return width // heads
    return width / heads


def _mode(mode: Any, modes: tuple[str, ...]) -> None:
    if mode not in modes:
        raise ValueError(f"Not supported mode `{mode}`.")


def _activation(value: Any, argument: str, cls: str = "") -> Module | None:
    """Refuse a name the layer's ``ACT2FN`` lacks (KeyError there); RetNet's submodule, if it has tensors."""
    if cls == "MultiScaleRetention":
        if value not in TRANSFORMERS_ACTIVATIONS:
            raise ValueError(f"{argument} {value!r} is not in transformers' ACT2FN (activations.py 324): KeyError")
        kind, params = _ACTIVATION_TENSORS.get(value, ("", ()))
        return Module(f"{argument}_fn" if argument == "feature_map" else argument, kind, params) if params else None
    if value not in ACTIVATIONS:
        raise ValueError(f"{argument} {value!r} is not in fla's ACT2FN (fla/modules/activations/ops.py 1111): KeyError")
    return None


def _short_conv(width: Dim, kernel: Dim, bias: bool, name: str) -> Module:
    return conv(width, width, (kernel,), groups=width, bias=bias, name=name, type="ShortConvolution")


def _norm(width: Dim, affine: Any, name: str, fused: bool) -> Module:
    """fla's ``FusedRMSNormGated`` or ``RMSNorm`` (float32): a weight (width) when ``elementwise_affine``."""
    params = (Param("weight", (width,), dtype=None if fused else "float32"),) if affine else ()
    return Module(name, "FusedRMSNormGated" if fused else "RMSNorm", params)


def _attention(
    cls: str,
    mode: Any,
    modes: tuple[str, ...],
    hidden_size: Dim,
    expand_k: Any,
    expand_v: Any,
    num_heads: Dim,
    num_kv_heads: Dim | None,
    feature_map: Any,
    use_short_conv: Any,
    conv_size: Dim,
    conv_bias: Any,
    use_output_gate: Any,
    gate_fn: Any,
    elementwise_affine: Any,
    fuse_norm: Any,
    gate_low_rank_dim: Dim | None,
) -> Module:
    """GLA and RetNet: q, k, v, [g], [q/k/v convs], [gk_proj], o_proj, the output norm (gla.py 98-177)."""
    d, h = size(hidden_size, "hidden_size"), size(num_heads, "num_heads")
    kv = h if num_kv_heads is None else size(num_kv_heads, "num_kv_heads")
    if _int(h) and _int(kv):
        if h % kv:
            raise ValueError("num_heads must be divisible by num_kv_heads")
        groups: Dim = h // kv
    else:
        groups = 1 if kv is h else h / kv
    children = []
    if feature_map is not None:
        children += [m for m in (_activation(feature_map, "feature_map", cls),) if m is not None]
    key, value = times_ratio(d, expand_k, "expand_k"), times_ratio(d, expand_v, "expand_v")
    _mode(mode, modes)
    head_k, head_v = _divides(key, h, "key dim"), _divides(value, h, "value dim")
    key_g, value_g = (key // groups, value // groups) if _int(key) and _int(groups) else (key / groups, value / groups)
    gate = flag(use_output_gate, "use_output_gate")
    children += [
        linear(d, key, False, name="q_proj"),
        linear(d, key_g, False, name="k_proj"),
        linear(d, value_g, False, name="v_proj"),
    ]
    if gate:
        children.append(linear(d, value, False, name="g_proj"))
    if flag(use_short_conv, "use_short_conv"):
        c, bias = size(conv_size, "conv_size"), flag(conv_bias, "conv_bias")
        for width, name in ((key, "q_conv1d"), (key_g, "k_conv1d"), (value_g, "v_conv1d")):
            children.append(_short_conv(width, c, bias, name))
    if gate_low_rank_dim is not None:
        r = size(gate_low_rank_dim, "gate_low_rank_dim")
        low = (linear(d, r, False, name="0"), linear(r, key_g, True, name="1"))
        children.append(Module("gk_proj", "Sequential", children=low))
    children.append(linear(value, d, False, name="o_proj"))
    fused = gate_fn == "swish" and flag(fuse_norm, "fuse_norm") and gate
    children.append(_norm(head_v, elementwise_affine, "g_norm_swish_gate" if fused else "g_norm", fused))
    if not fused:
        children += [m for m in (_activation(gate_fn, "gate_fn", cls),) if m is not None]
    if cls == "MultiScaleRetention":
        if _int(head_k) and (head_k > 256 or head_k % 2):
            raise ValueError(f"head_k_dim must be even and at most 256 (RotaryEmbedding), got {head_k}")
        half = -(head_k // -2) if _int(head_k) else head_k / 2
        children.append(
            Module("rotary", "RotaryEmbedding", (Param("inv_freq", (half,), buffer=True, dtype="float32"),))
        )
    return Module("", cls, children=tuple(children))


def _finish(module: Module, build: Any, sizes: dict, options: dict) -> Module:
    config = {k: v for k, (_, v) in sizes.items()} | options
    return module.replace(config=config, formula=formula(build, sizes, options))


def gated_linear_attention(
    mode: str = "chunk",
    hidden_size: Dim = 1024,
    expand_k: float = 0.5,
    expand_v: float = 1.0,
    num_heads: Dim = 4,
    num_kv_heads: Dim | None = None,
    feature_map: str | None = None,
    use_short_conv: bool = False,
    conv_size: Dim = 4,
    conv_bias: bool = False,
    use_output_gate: bool = True,
    gate_fn: str = "swish",
    elementwise_affine: bool | None = True,
    norm_eps: float = 1e-5,
    gate_logit_normalizer: int = 16,
    gate_low_rank_dim: Dim = 16,
    clamp_min: float | None = None,
    fuse_norm: bool = True,
    layer_idx: int | None = None,
) -> Module:
    """fla's ``GatedLinearAttention`` with its signature and defaults (``fla/layers/gla.py`` 76-179).

    Tensors: ``q_proj`` (K, D), ``k_proj`` (K/g, D), ``v_proj`` (V/g, D), ``g_proj`` (V, D) with the
    output gate, the short convolutions (K, 1, c) ..., ``gk_proj`` Linear(D, r) then Linear(r, K/g)
    with bias, ``o_proj`` (D, V), the norm's weight (V/h); K = D·expand_k, V = D·expand_v, h heads,
    g = h/num_kv_heads, r = ``gate_low_rank_dim``.

    Parameters
    ----------
    mode, hidden_size, expand_k, expand_v, num_heads, num_kv_heads, feature_map, use_short_conv, conv_size, conv_bias, use_output_gate, gate_fn, elementwise_affine, norm_eps, gate_logit_normalizer, gate_low_rank_dim, clamp_min, fuse_norm, layer_idx
        As fla takes them (sizes may be SymPy letters).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        What fla asserts: an unknown mode, widths that are not whole or not divisible by the
        heads, an activation not in :data:`ACTIVATIONS`.
    """
    module = _attention(
        "GatedLinearAttention",
        mode,
        ("chunk", "fused_recurrent", "fused_chunk"),
        hidden_size,
        expand_k,
        expand_v,
        num_heads,
        num_kv_heads,
        feature_map,
        use_short_conv,
        conv_size,
        conv_bias,
        use_output_gate,
        gate_fn,
        elementwise_affine,
        fuse_norm,
        gate_low_rank_dim,
    )
    options = {
        "expand_k": expand_k,
        "expand_v": expand_v,
        "num_kv_heads": num_kv_heads,
        "use_short_conv": use_short_conv,
    }
    options |= {"conv_bias": conv_bias, "use_output_gate": use_output_gate, "gate_fn": gate_fn}
    options |= {
        "elementwise_affine": elementwise_affine,
        "fuse_norm": fuse_norm,
        "gate_low_rank_dim": gate_low_rank_dim,
    }
    options |= {"mode": mode, "feature_map": feature_map, "conv_size": conv_size}
    sizes = {"hidden_size": ("D", hidden_size), "num_heads": ("H", num_heads)}
    return _finish(module, gated_linear_attention, sizes, options)


def multiscale_retention(
    mode: str = "chunk",
    hidden_size: Dim = 1024,
    expand_k: float = 1.0,
    expand_v: float = 2.0,
    num_heads: Dim = 8,
    num_kv_heads: Dim | None = None,
    feature_map: str | None = None,
    use_short_conv: bool = False,
    conv_size: Dim = 4,
    conv_bias: bool = False,
    use_output_gate: bool = True,
    gate_fn: str = "swish",
    elementwise_affine: bool | None = True,
    norm_eps: float = 1e-5,
    fuse_norm: bool = True,
    layer_idx: int | None = None,
    **kwargs: Any,
) -> Module:
    """fla's ``MultiScaleRetention`` (RetNet; ``fla/layers/multiscale_retention.py`` 71-173).

    As :func:`gated_linear_attention` without ``gk_proj`` (the decay is fixed per head), plus the
    rotary embedding's buffer ``rotary.inv_freq`` (K/(2h), not a parameter).

    Parameters
    ----------
    mode, hidden_size, expand_k, expand_v, num_heads, num_kv_heads, feature_map, use_short_conv, conv_size, conv_bias, use_output_gate, gate_fn, elementwise_affine, norm_eps, fuse_norm, layer_idx, **kwargs
        As fla takes them (other keywords are ignored, as fla ignores them).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        As :func:`gated_linear_attention`, and a head key width above 256 or odd (fla asserts it).
    """
    module = _attention(
        "MultiScaleRetention",
        mode,
        ("chunk", "fused_chunk", "parallel", "fused_recurrent"),
        hidden_size,
        expand_k,
        expand_v,
        num_heads,
        num_kv_heads,
        feature_map,
        use_short_conv,
        conv_size,
        conv_bias,
        use_output_gate,
        gate_fn,
        elementwise_affine,
        fuse_norm,
        None,
    )
    options = {
        "expand_k": expand_k,
        "expand_v": expand_v,
        "num_kv_heads": num_kv_heads,
        "use_short_conv": use_short_conv,
    }
    options |= {"conv_bias": conv_bias, "use_output_gate": use_output_gate, "gate_fn": gate_fn}
    options |= {"elementwise_affine": elementwise_affine, "fuse_norm": fuse_norm}
    options |= {"mode": mode, "feature_map": feature_map, "conv_size": conv_size}
    sizes = {"hidden_size": ("D", hidden_size), "num_heads": ("H", num_heads)}
    return _finish(module, multiscale_retention, sizes, options)


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
    """fla's ``HGRNAttention`` (``fla/layers/hgrn.py`` 31-82): ``i_proj``, ``f_proj``, ``g_proj``
    (E, D) with E = int(D·expand_ratio), the convolutions ``f_conv1d``, ``i_conv1d``, ``g_norm``
    (FusedRMSNormGated, E) and ``o_proj`` (D, E): 4DE + E (+ 2E·c with short convolutions).

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
    d = size(hidden_size, "hidden_size")
    if hasattr(d, "free_symbols"):
        e = times_ratio(d, expand_ratio, "expand_ratio")
    else:
        e = int(d * expand_ratio)  # hgrn.py 48: truncated
    _mode(mode, ("chunk", "fused_recurrent"))
    children = [linear(d, e, False, name=n) for n in ("i_proj", "f_proj", "g_proj")]
    if flag(use_short_conv, "use_short_conv"):
        c, bias = size(conv_size, "conv_size"), flag(conv_bias, "conv_bias")
        children += [_short_conv(e, c, bias, n) for n in ("f_conv1d", "i_conv1d")]
    children += [_norm(e, elementwise_affine, "g_norm", True), linear(e, d, False, name="o_proj")]
    options = {"mode": mode, "expand_ratio": expand_ratio, "use_short_conv": use_short_conv, "conv_size": conv_size}
    options |= {"conv_bias": conv_bias, "elementwise_affine": elementwise_affine}
    module = Module("", "HGRNAttention", children=tuple(children))
    return _finish(module, hgrn_attention, {"hidden_size": ("D", hidden_size)}, options)


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
    """fla's ``HGRN2Attention`` (``fla/layers/hgrn2.py`` 33-102): heads h = D // expand_ratio (or
    expand_ratio = D // num_heads when only ``num_heads`` is given), forget width F = h·expand_ratio;
    ``q_proj``, ``f_proj`` (F, D), ``i_proj`` (D, D), convolutions, ``g_norm`` (RMSNorm, D), ``o_proj`` (D, D).

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
        Neither ``expand_ratio`` nor ``num_heads``; no head (D < expand_ratio: fla divides by zero);
        D not divisible by the heads; an unknown mode.
    """
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
    _mode(mode, ("chunk", "fused_recurrent", "fused_chunk"))
    _divides(d, heads, "input dim")
    children = [linear(d, forget, False, name="q_proj"), linear(d, forget, False, name="f_proj")]
    children.append(linear(d, d, False, name="i_proj"))
    if flag(use_short_conv, "use_short_conv"):
        c, bias = size(conv_size, "conv_size"), flag(conv_bias, "conv_bias")
        children += [
            _short_conv(w, c, bias, n) for w, n in ((forget, "q_conv1d"), (forget, "f_conv1d"), (d, "i_conv1d"))
        ]
    children += [_norm(d, elementwise_affine, "g_norm", False), linear(d, d, False, name="o_proj")]
    options = {"mode": mode, "num_heads": num_heads, "use_short_conv": use_short_conv, "conv_size": conv_size}
    options |= {"conv_bias": conv_bias, "elementwise_affine": elementwise_affine}
    module = Module("", "HGRN2Attention", children=tuple(children))
    sizes = {"hidden_size": ("D", hidden_size)}
    if expand_ratio is not None:
        sizes["expand_ratio"] = ("R", expand_ratio)
    else:
        options["expand_ratio"] = None
    return _finish(module, hgrn2_attention, sizes, options)


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
    """fla's ``DeltaNet`` (``fla/layers/delta_net.py`` 75-168): ``q_proj``, ``k_proj`` (K, D),
    ``v_proj`` (V, D), ``b_proj`` (h, D) with ``use_beta``, the convolutions (on by default),
    ``g_proj`` (V, D) with ``use_gate``, ``o_norm`` (V/h; FusedRMSNormGated with the gate, else
    RMSNorm; always with a weight), ``o_proj`` (D, V). ``d_model`` replaces ``hidden_size``.

    Parameters
    ----------
    mode, d_model, hidden_size, expand_k, expand_v, num_heads, use_beta, use_gate, use_short_conv, conv_size, conv_bias, allow_neg_eigval, layer_idx, qk_activation, qk_norm, norm_eps, **kwargs
        As fla takes them.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        An unknown ``qk_activation``, ``qk_norm`` or mode (``fused_chunk`` is deprecated in fla),
        widths that are not whole or not divisible by the heads.
    """
    if qk_activation not in ("silu", "relu", "elu", "identity"):
        raise ValueError(f"qk_activation must be 'silu', 'relu', 'elu' or 'identity', got {qk_activation!r}")
    if qk_norm not in ("l2", "sum"):
        raise ValueError(f"qk_norm must be 'l2' or 'sum', got {qk_norm!r}")
    width = hidden_size if d_model is None else d_model
    d, h = size(width, "hidden_size"), size(num_heads, "num_heads")
    key, value = times_ratio(d, expand_k, "expand_k"), times_ratio(d, expand_v, "expand_v")
    if mode == "fused_chunk":
        raise ValueError("fused_chunk_delta_rule is now deprecated. Please use `chunk_delta_rule` instead.")
    _mode(mode, ("chunk", "fused_recurrent"))
    _divides(key, h, "key dim")
    head_v = _divides(value, h, "value dim")
    children = [linear(d, key, False, name="q_proj"), linear(d, key, False, name="k_proj")]
    children.append(linear(d, value, False, name="v_proj"))
    if flag(use_beta, "use_beta"):
        children.append(linear(d, h, False, name="b_proj"))
    if flag(use_short_conv, "use_short_conv"):
        c, bias = size(conv_size, "conv_size"), flag(conv_bias, "conv_bias")
        children += [_short_conv(w, c, bias, n) for w, n in ((key, "q_conv1d"), (key, "k_conv1d"), (value, "v_conv1d"))]
    gate = flag(use_gate, "use_gate")
    if gate:
        children.append(linear(d, value, False, name="g_proj"))
    children += [_norm(head_v, True, "o_norm", gate), linear(value, d, False, name="o_proj")]
    options = {"mode": mode, "expand_k": expand_k, "expand_v": expand_v, "use_beta": use_beta, "use_gate": use_gate}
    options |= {"use_short_conv": use_short_conv, "conv_size": conv_size, "conv_bias": conv_bias}
    module = Module("", "DeltaNet", children=tuple(children))
    return _finish(module, delta_net, {"hidden_size": ("D", width), "num_heads": ("H", num_heads)}, options)


def _reader(names: tuple[str, ...]) -> Any:
    """``read(obj)``: the constructor's keyword arguments read from a live fla layer's attributes."""

    def read(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        kwargs = {n: getattr(obj, n) for n in names}
        if hasattr(obj, "fuse_norm_and_gate"):
            norm = obj.g_norm_swish_gate if obj.fuse_norm_and_gate else obj.g_norm
            kwargs["elementwise_affine"] = norm.weight is not None
            kwargs["fuse_norm"] = obj.fuse_norm_and_gate or not obj.use_output_gate
            kwargs["gate_fn"] = "swish" if obj.fuse_norm_and_gate else _name(obj.gate_fn)
            kwargs["feature_map"] = None if obj.feature_map_fn is None else _name(obj.feature_map_fn)
        if hasattr(obj, "gk_proj"):
            kwargs["gate_low_rank_dim"] = obj.gk_proj[0].out_features
        if type(obj).__name__.startswith("HGRN"):
            kwargs["elementwise_affine"] = obj.g_norm.weight is not None
        return (), kwargs

    return read


def _name(fn: Any) -> str:
    """The ``ACT2FN`` key of an activation: fla's functions by identity, transformers' modules by class."""
    from importlib import import_module

    for name, value in import_module("fla.modules.activations").ACT2FN.items():
        if value is fn:
            return name
    table = import_module("transformers.activations").ACT2CLS
    return next(k for k, v in table.items() if (v[0] if isinstance(v, tuple) else v) is type(fn))


_ATTENTION = ("mode", "hidden_size", "expand_k", "expand_v", "num_heads", "num_kv_heads", "use_short_conv")
_ATTENTION += ("conv_size", "conv_bias", "use_output_gate")
_READ = {
    "GatedLinearAttention": _ATTENTION,
    "MultiScaleRetention": _ATTENTION,
    "HGRNAttention": ("mode", "hidden_size", "expand_ratio", "use_short_conv", "conv_size", "conv_bias"),
    "HGRN2Attention": ("mode", "hidden_size", "num_heads", "expand_ratio", "use_short_conv", "conv_size", "conv_bias"),
    "DeltaNet": ("mode", "hidden_size", "expand_k", "expand_v", "num_heads", "use_beta", "use_gate", "use_short_conv")
    + ("conv_size", "conv_bias", "allow_neg_eigval", "qk_activation", "qk_norm"),
}

for _cls, _build in (
    ("GatedLinearAttention", gated_linear_attention),
    ("MultiScaleRetention", multiscale_retention),
    ("HGRNAttention", hgrn_attention),
    ("HGRN2Attention", hgrn2_attention),
    ("DeltaNet", delta_net),
):
    register(
        Constructor(
            "fla",
            _cls,
            _build,
            prefixes=("", "fla.layers.", "layers.", f"fla.layers.{_FILES[_cls]}."),
            letters={"hidden_size": "D", "num_heads": "H"},
            read=_reader(_READ[_cls]),
            module_types=(f"fla.layers.{_FILES[_cls]}",),
            source=f"flash-linear-attention 0.6.0 fla/layers/{_FILES[_cls]}.py",
        )
    )
