"""Mamba (S6): the selective state-space mixer, written once, and the transformers models built of it.

The mixer (Gu & Dao 2023, *Mamba: Linear-Time Sequence Modeling with Selective State Spaces*,
Algorithm 2 and §3.4) composes :mod:`derive.layers` primitives — ``in_proj`` Linear(D, 2E), a
depthwise ``conv1d`` (E, 1, K), ``x_proj`` Linear(E, R + 2N) without bias, ``dt_proj`` Linear(R, E),
always biased, ``out_proj`` Linear(E, D) — with two arrays, ``A_log`` (E, N) and ``D`` (E); E =
``int(expand * d_model)``, R = ``dt_rank`` ("auto": ⌈d_model / 16⌉). Its spellings:

- mamba_ssm ``Mamba`` (``mamba_ssm/modules/mamba_simple.py`` 31–117, 2.3.2.post1): ``A_log``,
  ``D``, then ``in_proj``, ``conv1d``, ``x_proj``, ``dt_proj``, ``out_proj``;
- transformers ``MambaMixer`` (``models/mamba/modeling_mamba.py`` 284–333, 5.23.0): ``conv1d``
  registered before ``in_proj``; ``MambaBlock`` (505–511) adds an RMSNorm of D, ``MambaModel``
  (614–622) the embeddings and ``norm_f``, ``MambaForCausalLM`` (709–715) ``lm_head``, tied to the
  embeddings unless ``tie_word_embeddings`` is false;
- transformers ``FalconMambaMixer`` (``models/falcon_mamba/modeling_falcon_mamba.py`` 46–60,
  299–356): the same parameters, and RMSNorms of dt, B and C whose ``weight`` is a non-persistent
  buffer (listed as a buffer, never counted).

>>> Mamba(d_model=18, d_state=16, d_conv=4, expand=2).count   # state-spaces/mamba#817
4068
>>> from derive.tree import named_parameters
>>> [name for name, _ in named_parameters(Mamba(18))][:4]
['A_log', 'D', 'in_proj.weight', 'conv1d.weight']
>>> Mamba(18).formula.expr
K*d*e + 3*N*d*e + 3*d**2*e + 2*d*e*ceiling(d/16) + 3*d*e
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.norm import rms_norm
from ..layers.token_flops import projections
from ..layers.token_flops import register as register_flops
from ..tree import Dim, Formula, Module, Param, State
from . import hf_config, register_config
from ._shapes import Inferred, Shapes, dims, layer_count, ratio, register_shapes, tied
from .hf_config import Keys

__all__ = ["EQUATIONS", "dt_rank_auto", "inner_width", "mixer", "cache", "Mamba", "causal_lm", "LETTERS"]

#: The mixer's update, one step t (LaTeX; u_t ∈ R^D in, o_t ∈ R^D out, h_t ∈ R^{E×N}).
EQUATIONS: tuple[tuple[str, str], ...] = (
    ("input projection (in_proj)", r"\begin{bmatrix} x_t \\ z_t \end{bmatrix} = W_{\mathrm{in}}\, u_t"),
    (
        "depthwise causal convolution (conv1d)",
        r"\bar x_t = \operatorname{SiLU}\Big(b_{\mathrm{conv}} + \sum_{j=0}^{K-1} w_j \odot x_{t-j}\Big)",
    ),
    (
        "selection (x_proj)",
        r"\begin{bmatrix} \delta_t \\ B_t \\ C_t \end{bmatrix} = W_x\, \bar x_t,"
        r"\quad \delta_t \in \mathbb{R}^{R},\ B_t, C_t \in \mathbb{R}^{N}",
    ),
    ("time step (dt_proj)", r"\Delta_t = \operatorname{softplus}\big(W_{\Delta}\, \delta_t + b_{\Delta}\big)"),
    (
        "state update (A_log)",
        r"h_t = \exp(\Delta_t A) \odot h_{t-1} + (\Delta_t \odot \bar x_t)\, B_t^{\top},"
        r"\quad A = -\exp(A_{\log})",
    ),
    ("readout (D)", r"y_t = h_t\, C_t + D \odot \bar x_t"),
    ("gated output (out_proj)", r"o_t = W_{\mathrm{out}}\, \big(y_t \odot \operatorname{SiLU}(z_t)\big)"),
)

#: Letters of the closed form of ``Mamba(...)``, by argument.
LETTERS = {"d_model": "d", "d_state": "N", "d_conv": "K", "expand": "e", "dt_rank": "R"}

_SOURCE = "mamba_ssm/modules/mamba_simple.py 31-117 (mamba-ssm 2.3.2.post1)"
#: Per spelling: the mixer's class and its children's registration order.
_ORDER = {
    "mamba_ssm": ("Mamba", ("in_proj", "conv1d", "x_proj", "dt_proj", "out_proj")),
    "transformers": ("MambaMixer", ("conv1d", "in_proj", "x_proj", "dt_proj", "out_proj")),
    "falcon_mamba": ("FalconMambaMixer", ("conv1d", "in_proj", "x_proj", "dt_proj", "out_proj")),
}


def _is_int(value: Any) -> bool:
    return type(value) is int


def dt_rank_auto(d_model: Dim) -> Dim:
    """``dt_rank="auto"``: ⌈d_model / 16⌉ (``math.ceil(self.d_model / 16)``, mamba_simple.py 58).

    Parameters
    ----------
    d_model : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
        A SymPy ``ceiling`` for a symbolic width.

    Examples
    --------
    >>> dt_rank_auto(768), dt_rank_auto(18)
    (48, 2)
    """
    if _is_int(d_model):
        return math.ceil(d_model / 16)
    import sympy

    return sympy.ceiling(d_model / 16)


def inner_width(expand: Any, d_model: Dim) -> Dim:
    """E = ``int(expand * d_model)``: a fractional ``expand`` is truncated (mamba_simple.py 57).

    Parameters
    ----------
    expand : int, float or sympy.Expr
    d_model : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
        ``floor(expand * d_model)`` for symbolic sizes (the product itself when ``expand`` is an
        int or an integer symbol).

    Examples
    --------
    >>> inner_width(2, 768), inner_width(1.5, 25)
    (1536, 37)
    """
    if isinstance(expand, (int, float)) and _is_int(d_model):
        return int(expand * d_model)
    import sympy

    factor = sympy.Rational(expand) if isinstance(expand, float) else expand
    return sympy.floor(factor * d_model)


def cache(d_inner: Dim, d_state: Dim, d_conv: Dim, spelling: str = "transformers") -> tuple[State, ...]:
    """What the mixer keeps while it generates: the last ``d_conv`` inputs of the convolution
    and the state h, per sequence.

    - transformers (``MambaMixer``, ``FalconMambaMixer``): one ``LinearAttentionLayer`` per layer
      (``cache_utils.py`` 1160-1248) with ``conv_states`` (batch, E, K) — the full kernel width,
      ``conv_kernel_size=self.conv_kernel_size`` (``modeling_mamba.py`` 413-417) — in the model's
      dtype, and ``recurrent_states`` (batch, E, N) in float32 whatever the model's dtype: the
      scan's state is ``discrete_A * ssm_state + deltaB_u`` with ``deltaB_u`` made float
      (``modeling_mamba.py`` 213-214, 262; ``modeling_falcon_mamba.py`` 229-230, 277), and the
      cache keeps the first state's dtype (``torch.zeros_like``, ``cache_utils.py`` 1188).
    - mamba_ssm (``Mamba.allocate_inference_cache``, ``mamba_simple.py`` 255-266): ``conv_state``
      (batch, E, K) and ``ssm_state`` (batch, E, N), both in the model's dtype (``conv1d``'s and
      ``dt_proj``'s weights).

    Parameters
    ----------
    d_inner, d_state, d_conv : int or sympy.Expr
        E, N, K.
    spelling : {"transformers", "falcon_mamba", "mamba_ssm"}

    Returns
    -------
    tuple of derive.tree.State
        Constant in the sequence length.

    Examples
    --------
    >>> [(s.name, s.elements(2, 100), s.dtype) for s in cache(32, 4, 4)]
    [('conv_states', 256, None), ('recurrent_states', 256, 'float32')]
    """
    if spelling == "mamba_ssm":
        return (State("conv_state", ("batch", d_inner, d_conv)), State("ssm_state", ("batch", d_inner, d_state)))
    return (
        State("conv_states", ("batch", d_inner, d_conv)),
        State("recurrent_states", ("batch", d_inner, d_state), "float32"),
    )


def _weightless(width: Dim, name: str) -> Module:
    """FalconMamba's RMSNorm without a gain: its ``weight`` is a non-persistent buffer of ones."""
    return Module(name, "FalconMambaWeightlessRMSNorm", (Param("weight", (width,), buffer=True),))


def mixer(
    d_model: Dim,
    d_state: Dim = 16,
    d_conv: Dim = 4,
    expand: Any = 2,
    dt_rank: Any = "auto",
    *,
    conv_bias: bool = True,
    bias: bool = False,
    d_inner: Dim | None = None,
    spelling: str = "mamba_ssm",
    name: str = "",
) -> Module:
    """The Mamba mixer: in_proj, depthwise conv1d, x_proj, dt_proj (biased), out_proj, A_log, D.

    Parameters
    ----------
    d_model : int or sympy.Expr
        D, the width in and out.
    d_state : int or sympy.Expr, default 16
        N, the state size per channel.
    d_conv : int or sympy.Expr, default 4
        K, the convolution's kernel.
    expand : int, float or sympy.Expr, default 2
        E = ``int(expand * d_model)`` unless ``d_inner`` is given.
    dt_rank : "auto", int or sympy.Expr, default "auto"
        R; "auto" is ⌈D / 16⌉.
    conv_bias : bool, default True
    bias : bool, default False
        Biases of ``in_proj`` and ``out_proj`` (``dt_proj`` is always biased).
    d_inner : int or sympy.Expr, optional
        E itself (transformers' ``intermediate_size``).
    spelling : {"mamba_ssm", "transformers", "falcon_mamba"}
        The class name and the order of the children (see the module's docstring).
    name : str

    Returns
    -------
    derive.tree.Module
        3ED + E(2R + 3N + K + 2) + cb·E + b·(2E + D) parameters; its cache is :func:`cache`.

    Raises
    ------
    ValueError
        An unknown spelling.
    """
    if spelling not in _ORDER:
        raise ValueError(f"spelling must be one of {sorted(_ORDER)}, got {spelling!r}")
    cls, order = _ORDER[spelling]
    D, N, K = d_model, d_state, d_conv
    E = inner_width(expand, D) if d_inner is None else d_inner
    R = dt_rank_auto(D) if dt_rank == "auto" else dt_rank
    parts = {
        "in_proj": linear(D, 2 * E, bias, name="in_proj"),
        "conv1d": conv(E, E, (K,), groups=E, bias=conv_bias, name="conv1d"),
        "x_proj": linear(E, R + 2 * N, False, name="x_proj"),
        "dt_proj": linear(R, E, True, name="dt_proj"),
        "out_proj": linear(E, D, bias, name="out_proj"),
    }
    children = tuple(parts[k] for k in order)
    if spelling == "falcon_mamba":
        children += (_weightless(E, "dt_layernorm"), _weightless(N, "b_layernorm"), _weightless(N, "c_layernorm"))
    states = cache(E, N, K, spelling)
    return Module(name, cls, (Param("A_log", (E, N)), Param("D", (E,))), children, cache=states)


def decode_flops(module: Module, tokens: Dim) -> Any:
    """Matmul FLOPs of one token through a transformers Mamba mixer at decode: its four projections
    and the state readout, 2·E·N.

    The decode step (``mamba_selective_state_update``'s torch path, ``models/mamba/modeling_mamba.py``
    128–161; the same in ``falcon_mamba`` 143–176 and Jamba) updates the state element-wise and reads
    it out with ``torch.matmul(state, C)``, (batch, E, N) by (batch, N, 1); the depthwise convolution
    is an ``aten.convolution``, not a matrix product. Held against ``FlopCounterMode`` on tiny
    models (tests/families).

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`mixer`, spelling "transformers"): its ``A_log`` (E, N) gives E and N.
    tokens : int or sympy.Expr
        Unused: the mixer's cost does not grow with the cache.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).
    """
    E, N = module.params[0].shape  # A_log (E, N)
    return projections(module, tokens) + 2 * E * N


for _mixer in ("MambaMixer", "FalconMambaMixer"):
    register_flops(_mixer, decode_flops)


def Mamba(
    d_model: Any,
    d_state: Any = 16,
    d_conv: Any = 4,
    expand: Any = 2,
    dt_rank: Any = "auto",
    dt_min: float = 0.001,
    dt_max: float = 0.1,
    dt_init: str = "random",
    dt_scale: float = 1.0,
    dt_init_floor: float = 1e-4,
    conv_bias: bool = True,
    bias: bool = False,
    use_fast_path: bool = True,
    layer_idx: Any = None,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``mamba_ssm.Mamba`` with its own signature (mamba_simple.py 32–49): the mixer's tree.

    Parameters
    ----------
    d_model, d_state, d_conv : int or sympy.Expr
    expand : int, float or sympy.Expr
    dt_rank : "auto", int or sympy.Expr
    dt_min, dt_max, dt_init, dt_scale, dt_init_floor, use_fast_path, layer_idx, device, dtype
        Initialisation and execution options: no tensor depends on them (``dt_init`` must be
        "random" or "constant", as mamba_ssm raises NotImplementedError for others).
    conv_bias, bias : bool

    Returns
    -------
    derive.tree.Module
        With :attr:`~derive.tree.Module.formula`, the closed form in D, N, K, e (= expand) and R.

    Raises
    ------
    ValueError
        A size that is not an int >= 1, an ``expand`` giving no inner width, an unknown ``dt_init``.
    TypeError
        A flag that is not a bool.
    """
    for key, value in (("d_model", d_model), ("d_state", d_state), ("d_conv", d_conv)):
        hf_config.positive(value, key)
    if dt_rank != "auto":
        hf_config.positive(dt_rank, "dt_rank")
    if isinstance(expand, bool) or not (isinstance(expand, (int, float)) or hf_config.symbolic(expand)):
        raise ValueError(f"argument expand must be a number, got {expand!r}")
    if isinstance(expand, (int, float)) and _is_int(d_model) and inner_width(expand, d_model) < 1:
        raise ValueError(f"int(expand * d_model) = {inner_width(expand, d_model)}: the inner width must be >= 1")
    if dt_init not in ("random", "constant"):
        raise ValueError(
            f"dt_init must be 'random' or 'constant' (mamba_ssm raises NotImplementedError), got {dt_init!r}"
        )
    for key, value in (("conv_bias", conv_bias), ("bias", bias)):
        if not isinstance(value, bool):
            raise TypeError(f"argument {key} must be True or False, got {value!r}")
    sizes = {"d_model": d_model, "d_state": d_state, "d_conv": d_conv, "expand": expand, "dt_rank": dt_rank}
    module = mixer(d_model, d_state, d_conv, expand, dt_rank, conv_bias=conv_bias, bias=bias)
    config = {**sizes, "conv_bias": conv_bias, "bias": bias}
    return module.replace(config=config, formula=_formula(sizes, conv_bias, bias))


def _formula(sizes: Mapping[str, Any], conv_bias: bool, bias: bool) -> Formula | None:
    """The closed form of ``Mamba(...)``: int sizes become letters (a float ``expand`` stays a number)."""
    import sympy

    kwargs: list[tuple[str, Any]] = []
    values: list[tuple[str, Any]] = []
    for key, value in sizes.items():
        if _is_int(value) and not isinstance(value, bool):
            letter = LETTERS[key]
            kwargs.append((key, sympy.Symbol(letter, integer=True, positive=True)))
            values.append((letter, value))
        else:
            kwargs.append((key, value))
    kwargs += [("conv_bias", conv_bias), ("bias", bias)]
    return Formula(mixer, kwargs=tuple(kwargs), values=tuple(values))


def _read(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments that remake a live ``mamba_ssm.Mamba`` (its attributes, mamba_simple.py 53–58)."""
    kwargs = {
        "d_state": obj.d_state,
        "d_conv": obj.d_conv,
        "expand": obj.expand,
        "dt_rank": obj.dt_rank,
        "conv_bias": obj.conv1d.bias is not None,
        "bias": obj.in_proj.bias is not None,
    }
    return (obj.d_model,), kwargs


register(
    Constructor(
        "mamba_ssm",
        "Mamba",
        Mamba,
        prefixes=("", "mamba_ssm.", "mamba_ssm.modules.mamba_simple."),
        letters=LETTERS,
        read=_read,
        module_types=("mamba_ssm.modules.mamba_simple",),
        source=_SOURCE,
    )
)


# --- transformers: MambaForCausalLM and FalconMambaForCausalLM from a config --------------------

#: Shape keys of ``MambaConfig`` / ``FalconMambaConfig`` and their defaults (configuration_mamba.py
#: 67–92, configuration_falcon_mamba.py 73–99); ``intermediate_size`` None = ``int(expand * hidden_size)``.
_DEFAULTS = {
    "vocab_size": 50280,
    "hidden_size": 768,
    "state_size": 16,
    "num_hidden_layers": 32,
    "expand": 2,
    "conv_kernel": 4,
    "use_bias": False,
    "use_conv_bias": True,
    "time_step_rank": "auto",
    "tie_word_embeddings": True,
    "intermediate_size": None,
}
_MAMBA_INERT: dict[str, str] = {
    "layer_norm_epsilon": "an epsilon of the norms",
    "residual_in_fp32": "the residual's dtype in the forward: no tensor",
    "time_step_scale": "dt_proj's initialisation: no tensor",
    "time_step_min": "dt_proj's bias initialisation: no tensor",
    "time_step_max": "dt_proj's bias initialisation: no tensor",
    "time_step_init_scheme": "dt_proj's weight initialisation: no tensor",
    "time_step_floor": "dt_proj's bias initialisation: no tensor",
    "rescale_prenorm_residual": "out_proj's initialisation: no tensor",
    "use_mambapy": "the scan's implementation on the torch path (mambapy's pscan): no tensor",
    "use_associative_scan": "the scan's implementation on the torch path: no tensor",
}
#: mamba_ssm's spelling of the sizes, in converted configs: transformers ignores them (it builds ``hidden_size``
#: ...), so one that disagrees is refused.
_SAME_AS = {"d_model": "hidden_size", "n_layer": "num_hidden_layers", "d_state": "state_size", "d_conv": "conv_kernel"}
#: ``MambaConfig``'s and ``FalconMambaConfig``'s every key at transformers 5.23.0: the shape keys with their
#: defaults, the others with why they shape nothing. ``intermediate_size`` is no field: ``__post_init__`` sets
#: ``int(expand * hidden_size)``, then a given ``intermediate_size`` keyword overrides it (the mixer reads it).
KEYS = {
    "mamba": Keys("MambaConfig", _DEFAULTS, _MAMBA_INERT, same_as=_SAME_AS),
    "falcon_mamba": Keys(
        "FalconMambaConfig",
        _DEFAULTS,
        {
            **_MAMBA_INERT,
            "mixer_rms_eps": "an epsilon of the mixer's B, C and dt norms (weightless: no tensor)",
            "use_falcon_mambapy": "the keyword __post_init__ reads as use_mambapy: no tensor",
            "_is_quantized": "set by transformers' quantizers on loading (modeling_falcon_mamba.py 473): no tensor",
        },
        same_as=_SAME_AS,
    ),
}
_HF_SOURCE = {
    "mamba": "transformers/models/mamba/configuration_mamba.py 26-103, modeling_mamba.py 284-333, 485-511, 614-622, 709-715",
    "falcon_mamba": "transformers/models/falcon_mamba/configuration_falcon_mamba.py 30-113, "
    "modeling_falcon_mamba.py 46-60, 299-356, 524-550, 653-663, 743-749",
}


def causal_lm(config: Mapping[str, Any], model_type: str = "mamba") -> Module:
    """``MambaForCausalLM`` (or ``FalconMambaForCausalLM``) as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones take ``MambaConfig``'s defaults. Sizes may be SymPy symbols.
    model_type : {"mamba", "falcon_mamba"}

    Returns
    -------
    derive.tree.Module
        Named as transformers names it (``backbone.layers.{k}.mixer.in_proj.weight``), the layers
        one module repeated ``num_hidden_layers`` times; its ``config`` holds the keys that shape it.

    Raises
    ------
    ValueError
        A key derive cannot map, or a value transformers refuses, naming the key.
    """
    cls = KEYS[model_type].cls
    c = KEYS[model_type].resolve(config)
    if config.get("ssm_cfg") not in (None, {}):
        raise ValueError(
            f"config key 'ssm_cfg' is mamba_ssm's; transformers' {cls} ignores it: write its sizes as keys"
        )
    if "layer_types" in config:  # a property without a setter: transformers refuses the key (AttributeError)
        raise ValueError(f"config key 'layer_types' is {cls}'s property (every layer a Mamba layer): it takes no value")
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    N, K = hf_config.size(c, "state_size"), hf_config.size(c, "conv_kernel")
    L = hf_config.size(c, "num_hidden_layers", 0)
    flags = {k: hf_config.flag(c, k) for k in ("use_bias", "use_conv_bias", "tie_word_embeddings")}
    R = hf_config.time_step_rank(c["time_step_rank"])
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "state_size": N, "conv_kernel": K}
    if "intermediate_size" in config:
        E = shape["intermediate_size"] = hf_config.size(c, "intermediate_size")
    else:
        shape["expand"] = hf_config.strict_int(c, "expand", cls)
        E = inner_width(shape["expand"], D)
    shape.update(num_hidden_layers=L, time_step_rank=R, **flags)
    prefix = "Mamba" if model_type == "mamba" else "FalconMamba"
    spelling = "transformers" if model_type == "mamba" else "falcon_mamba"
    mix = mixer(
        D, N, K, dt_rank=R, conv_bias=flags["use_conv_bias"], bias=flags["use_bias"], d_inner=E, spelling=spelling
    )
    block = Module(
        "layers.{k}",
        f"{prefix}Block",
        children=(rms_norm((D,), name="norm", type=f"{prefix}RMSNorm"), mix.replace(name="mixer")),
        repeat=L,
    )
    backbone = Module(
        "backbone",
        f"{prefix}Model",
        children=(embedding(V, D, name="embeddings"), block, rms_norm((D,), name="norm_f", type=f"{prefix}RMSNorm")),
    )
    head = hf_config.lm_head(D, V, "backbone.embeddings.weight" if flags["tie_word_embeddings"] else None)
    return Module("", f"{prefix}ForCausalLM", children=(backbone, head), config=shape)


@register_config("mamba", architecture="MambaForCausalLM", source=_HF_SOURCE["mamba"], keys=KEYS["mamba"])
def _mamba(config: Mapping[str, Any]) -> Module:
    return causal_lm(config, "mamba")


@register_config(
    "falcon_mamba", architecture="FalconMambaForCausalLM", source=_HF_SOURCE["falcon_mamba"], keys=KEYS["falcon_mamba"]
)
def _falcon_mamba(config: Mapping[str, Any]) -> Module:
    return causal_lm(config, "falcon_mamba")


def _config_constructor(model_type: str) -> Any:
    def make(*args: Any, **kwargs: Any) -> Module:
        if args:
            raise TypeError(
                f"{'MambaConfig' if model_type == 'mamba' else 'FalconMambaConfig'} accepts only keyword arguments"
            )
        return causal_lm(kwargs, model_type)

    return make


for _type, _cls in (("mamba", "MambaConfig"), ("falcon_mamba", "FalconMambaConfig")):
    register(
        Constructor(
            "transformers",
            _cls,
            _config_constructor(_type),
            prefixes=("", "transformers.", f"transformers.models.{_type}."),
            module_types=(f"transformers.models.{_type}.configuration_{_type}",),
            source=_HF_SOURCE[_type],
        )
    )


# --------------------------------------------------------------------------- the way back: a checkpoint's tensors -> the config


@register_shapes("MambaForCausalLM")
def mamba_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``MambaForCausalLM`` (FalconMamba saves the same tensors).

    Parameters
    ----------
    shapes : mapping of str -> tuple of int
        The checkpoint's tensors, by name.
    ties : mapping of str -> str
        Tensor name -> the name it shares its storage with.

    Returns
    -------
    Inferred or None
        The inferred config, or None when the tensors are not this model's.
    """
    if "backbone.embeddings.weight" not in shapes or "backbone.layers.0.mixer.x_proj.weight" not in shapes:
        return None
    m = "backbone.layers.0.mixer."
    vocab, d = dims(shapes, "backbone.embeddings.weight", 2)
    e, n = dims(shapes, m + "A_log", 2)
    k = dims(shapes, m + "conv1d.weight", 3)[2]
    r = dims(shapes, m + "dt_proj.weight", 2)[1]
    config: dict[str, Any] = {"model_type": "mamba", "vocab_size": vocab, "hidden_size": d, "state_size": n}
    expand = ratio(e, d)
    notes = [
        "FalconMamba's checkpoints hold the same tensors (its dt/B/C norms have no weights): the count is the same"
    ]
    if expand is None:
        config["intermediate_size"] = e
        notes.append(f"the inner width {e:,} is not a multiple of hidden_size {d:,}: given as intermediate_size")
    else:
        config["expand"] = expand
    config.update(
        num_hidden_layers=layer_count(shapes, "backbone.layers."),
        conv_kernel=k,
        time_step_rank=r,
        use_bias=m + "in_proj.bias" in shapes,
        use_conv_bias=m + "conv1d.bias" in shapes,
        tie_word_embeddings=tied(shapes, ties, "lm_head.weight", "backbone.embeddings.weight"),
    )
    return Inferred("mamba", config, notes, embedding="backbone.embeddings.weight")
