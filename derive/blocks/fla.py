"""Linear-attention layers of flash-linear-attention (``fla.layers``), and what all fla layers share.

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
>>> multiscale_retention(hidden_size=2048, num_heads=8).count
33554944
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from ._ssm_common import flag, formula, size, times_ratio

__all__ = [
    "gated_linear_attention",
    "multiscale_retention",
    "register_layer",
    "short_convs",
    "norm",
    "divides",
    "check_mode",
    "finish",
    "EQUATIONS",
    "SOURCE",
    "ACTIVATIONS",
]

#: Where the layers are read from (flash-linear-attention / fla-core 0.6.0), shown on the site.
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

FILES = {
    "GatedLinearAttention": "gla",
    "MultiScaleRetention": "multiscale_retention",
    "HGRNAttention": "hgrn",
    "HGRN2Attention": "hgrn2",
    "DeltaNet": "delta_net",
}


def _int(value: Any) -> bool:
    return type(value) is int


def divides(width: Dim, heads: Dim, what: str) -> Dim:
    """``width // heads`` as fla takes it, refused (fla's assertion) when ``heads`` does not divide.

    Parameters
    ----------
    width : int or sympy.Expr
        A projection's width (features).
    heads : int or sympy.Expr
        The number of heads.
    what : str
        The width's name in fla's message (``"key dim"``, ``"value dim"``).

    Returns
    -------
    int or sympy.Expr
        The head width (features): ``width // heads`` for ints, ``width / heads`` for letters.

    Raises
    ------
    ValueError
        Both ints and ``heads`` does not divide ``width`` (fla asserts it, ``gla.py`` 125-126).
    """
    if _int(width) and _int(heads):
        if width % heads:
            raise ValueError(f"{what} must be divisible by num_heads of {heads}")
        return width // heads
    return width / heads


def check_mode(mode: Any, modes: tuple[str, ...]) -> None:
    """Refuse a ``mode`` the layer does not support, as fla asserts it (``gla.py`` 124).

    Parameters
    ----------
    mode : str
        The ``mode`` argument as given.
    modes : tuple of str
        The modes the layer supports.

    Raises
    ------
    ValueError
        ``mode`` is not one of ``modes``.
    """
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


def short_convs(given: Mapping[str, Any], widths: tuple[tuple[Dim, str], ...]) -> list[Module]:
    """fla's ``ShortConvolution`` s (depthwise Conv1d, ``causal_conv1d/ops.py`` 1140-1160) when ``use_short_conv``.

    Each is a ``Conv1d(w, w, conv_size, groups=w)``: a weight (w, 1, c), and a bias (w) when ``conv_bias``.

    Parameters
    ----------
    given : mapping of str -> object
        The layer's arguments; ``use_short_conv``, ``conv_size`` and ``conv_bias`` are read.
    widths : tuple of (int or sympy.Expr, str)
        Each convolution's width (channels) and name (``((K, "q_conv1d"), ...)``).

    Returns
    -------
    list of derive.tree.Module
        Empty without ``use_short_conv``.

    Raises
    ------
    TypeError
        ``use_short_conv`` or ``conv_bias`` neither a bool, an int nor None; ``conv_size`` neither an
        int nor a SymPy expression.
    ValueError
        ``conv_size`` below 1.
    """
    if not flag(given["use_short_conv"], "use_short_conv"):
        return []
    c, bias = size(given["conv_size"], "conv_size"), flag(given["conv_bias"], "conv_bias")
    return [conv(w, w, (c,), groups=w, bias=bias, name=name, type="ShortConvolution") for w, name in widths]


def norm(width: Dim, affine: Any, name: str, fused: bool) -> Module:
    """fla's ``FusedRMSNormGated`` or ``RMSNorm`` (float32): a weight (width) when ``elementwise_affine``.

    Parameters
    ----------
    width : int or sympy.Expr
        The normalised width (features; the head width in fla's layers).
    affine : bool or None
        ``elementwise_affine`` as given: a weight when true.
    name : str
        The submodule's attribute name (``"g_norm"``, ``"g_norm_swish_gate"``).
    fused : bool
        ``FusedRMSNormGated`` (the weight in the default dtype) rather than ``RMSNorm`` (float32).

    Returns
    -------
    derive.tree.Module
    """
    params = (Param("weight", (width,), dtype=None if fused else "float32"),) if affine else ()
    return Module(name, "FusedRMSNormGated" if fused else "RMSNorm", params)


def _attention(cls: str, modes: tuple[str, ...], given: Mapping[str, Any]) -> Module:
    """GLA and RetNet: q, k, v, [g], [q/k/v convs], [gk_proj], o_proj, the output norm (gla.py 98-177)."""
    mode, feature_map, gate_fn = given["mode"], given["feature_map"], given["gate_fn"]
    hidden_size, num_heads, num_kv_heads = given["hidden_size"], given["num_heads"], given["num_kv_heads"]
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
    key, value = times_ratio(d, given["expand_k"], "expand_k"), times_ratio(d, given["expand_v"], "expand_v")
    check_mode(mode, modes)
    head_k, head_v = divides(key, h, "key dim"), divides(value, h, "value dim")
    key_g, value_g = (key // groups, value // groups) if _int(key) and _int(groups) else (key / groups, value / groups)
    gate = flag(given["use_output_gate"], "use_output_gate")
    children += [
        linear(d, key, False, name="q_proj"),
        linear(d, key_g, False, name="k_proj"),
        linear(d, value_g, False, name="v_proj"),
    ]
    if gate:
        children.append(linear(d, value, False, name="g_proj"))
    children += short_convs(given, ((key, "q_conv1d"), (key_g, "k_conv1d"), (value_g, "v_conv1d")))
    if "gate_low_rank_dim" in given:
        r = size(given["gate_low_rank_dim"], "gate_low_rank_dim")
        low = (linear(d, r, False, name="0"), linear(r, key_g, True, name="1"))
        children.append(Module("gk_proj", "Sequential", children=low))
    children.append(linear(value, d, False, name="o_proj"))
    fused = gate_fn == "swish" and flag(given["fuse_norm"], "fuse_norm") and gate
    children.append(norm(head_v, given["elementwise_affine"], "g_norm_swish_gate" if fused else "g_norm", fused))
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


#: Arguments that change no tensor (left out of a block's config and closed form).
_NO_SHAPE = frozenset({"norm_eps", "layer_idx", "clamp_min", "gate_logit_normalizer", "kwargs", "d_model"})


def finish(module: Module, build: Any, given: Mapping[str, Any], letters: Mapping[str, str]) -> Module:
    """``module`` with its config (the arguments as given) and its closed form in ``letters``.

    Parameters
    ----------
    module : derive.tree.Module
    build : callable
        The builder, called again with a letter for each argument of ``letters``.
    given : mapping
        The builder's arguments (``locals()`` at its start).
    letters : mapping of str -> str
        Size argument -> letter (``{"hidden_size": "D"}``).

    Returns
    -------
    derive.tree.Module
    """
    sizes = {a: (letter, given[a]) for a, letter in letters.items() if given.get(a) is not None}
    options = {k: v for k, v in given.items() if k not in _NO_SHAPE and k not in sizes}
    config = {k: v for k, v in given.items() if k not in ("kwargs",)}
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
    given = dict(locals())
    module = _attention("GatedLinearAttention", ("chunk", "fused_recurrent", "fused_chunk"), given)
    return finish(module, gated_linear_attention, given, {"hidden_size": "D", "num_heads": "H"})


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
    given = dict(locals())
    module = _attention("MultiScaleRetention", ("chunk", "fused_chunk", "parallel", "fused_recurrent"), given)
    return finish(module, multiscale_retention, given, {"hidden_size": "D", "num_heads": "H"})


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


def register_layer(cls: str, build: Any, names: tuple[str, ...]) -> None:
    """Register fla's class ``cls`` (file ``fla/layers/<file>.py``), read back from ``names`` attributes.

    Parameters
    ----------
    cls : str
    build : callable
        The builder, taking the class's arguments.
    names : tuple of str
        Attributes of a live layer that are its constructor's arguments.
    """
    file = FILES[cls]
    register(
        Constructor(
            "fla",
            cls,
            build,
            prefixes=("", "fla.", "fla.layers.", "layers.", f"fla.layers.{file}."),
            letters={"hidden_size": "D", "num_heads": "H"},
            read=_reader(names),
            module_types=(f"fla.layers.{file}",),
            source=f"flash-linear-attention 0.6.0 fla/layers/{file}.py",
        )
    )


_ATTENTION: tuple[str, ...] = ("mode", "hidden_size", "expand_k", "expand_v", "num_heads", "num_kv_heads")
_ATTENTION += ("use_short_conv", "conv_size", "conv_bias", "use_output_gate")
register_layer("GatedLinearAttention", gated_linear_attention, _ATTENTION)
register_layer("MultiScaleRetention", multiscale_retention, _ATTENTION)
