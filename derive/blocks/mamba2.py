"""Mamba-2 (SSD): the state-space-dual mixer, written once, and transformers' ``Mamba2ForCausalLM``.

The mixer (Dao & Gu 2024, *Transformers are SSMs*, §7 and Figure 6) projects the input once —
``in_proj`` Linear(D, 2E + 2GN + H): the gate z (E), the SSM input x (d_ssm; the rest of E is a
gated MLP when ``d_ssm`` < E), B and C (G groups of N) and a time step per head (H) — runs a
depthwise ``conv1d`` over x, B, C (d_ssm + 2GN channels), keeps a scalar decay ``A_log``, a
``dt_bias`` and a skip ``D`` per head (``D`` per channel with ``D_has_hdim``), normalises the
gated output with an RMSNorm of d_ssm (``rmsnorm``) and projects it back, ``out_proj`` Linear(E, D).
E = ``expand * d_model``, H = d_ssm / ``headdim``. Its spellings:

- mamba_ssm ``Mamba2`` (``mamba_ssm/modules/mamba2.py`` 37–152, 2.3.2.post1): ``dt_bias``,
  ``A_log``, ``D``, then ``in_proj``, ``conv1d``, ``norm``, ``out_proj``; ``expand * d_model`` must
  be an int, ``d_ssm`` a multiple of ``headdim``;
- transformers ``Mamba2Mixer`` (``models/mamba2/modeling_mamba2.py`` 373–440, 5.23.0): H is the
  config's ``num_heads`` (``Mamba2Config`` refuses ``hidden_size * expand != num_heads * head_dim``),
  ``D`` per head, the gated RMSNorm always; ``conv1d`` registered before ``in_proj``;
  ``Mamba2ForCausalLM`` does not tie ``lm_head`` to the embeddings by default.

>>> Mamba2(d_model=256, headdim=64).count
465176
>>> from derive.tree import named_parameters
>>> [name for name, _ in named_parameters(Mamba2(256))][:4]
['dt_bias', 'A_log', 'D', 'in_proj.weight']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._sympy import sympy
from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.norm import rms_norm
from ..layers.token_flops import first_token, projections
from ..layers.token_flops import register as register_flops
from ..tree import Dim, Formula, Module, Param, State
from . import hf_config, register_config
from ._shapes import Inferred, Shapes, Unreadable, dims, groups_and_state, layer_count, ratio, register_shapes, tied
from .hf_config import Keys

__all__ = [
    "EQUATIONS",
    "mixer",
    "cache",
    "decode_flops",
    "scan_flops",
    "chunk_size",
    "kept_chunk",
    "Mamba2",
    "causal_lm",
    "LETTERS",
]

#: The mixer's update, one step t, per head (LaTeX; x_t ∈ R^{H×P}, P = headdim, h_t ∈ R^{H×P×N}).
EQUATIONS: tuple[tuple[str, str], ...] = (
    (
        "input projection (in_proj)",
        r"\begin{bmatrix} z_t \\ x_t \\ B_t \\ C_t \\ \delta_t \end{bmatrix} = W_{\mathrm{in}}\, u_t,"
        r"\quad B_t, C_t \in \mathbb{R}^{G \times N},\ \delta_t \in \mathbb{R}^{H}",
    ),
    (
        "depthwise causal convolution (conv1d)",
        r"[\bar x_t; \bar B_t; \bar C_t] = \operatorname{SiLU}\Big(b_{\mathrm{conv}} + \sum_{j=0}^{K-1} w_j \odot"
        r" [x; B; C]_{t-j}\Big)",
    ),
    ("time step per head (dt_bias)", r"\Delta_t = \operatorname{softplus}(\delta_t + b_{\Delta})"),
    (
        "state update, a scalar decay per head (A_log)",
        r"h_t = \exp(\Delta_t a)\, h_{t-1} + \Delta_t\, \bar x_t\, \bar B_t^{\top},\quad a = -\exp(A_{\log})",
    ),
    ("readout (D)", r"y_t = h_t\, \bar C_t + D \odot \bar x_t"),
    (
        "gated RMSNorm (norm) and output (out_proj)",
        r"o_t = W_{\mathrm{out}}\, \operatorname{RMSNorm}_g\big(y_t \odot \operatorname{SiLU}(z_t)\big)",
    ),
)

#: Letters of the closed form of ``Mamba2(...)``, by argument.
LETTERS = {"d_model": "d", "d_state": "N", "d_conv": "K", "expand": "e", "headdim": "P", "ngroups": "G", "d_ssm": "S"}

_SOURCE = "mamba_ssm/modules/mamba2.py 37-152 (mamba-ssm 2.3.2.post1)"
_ORDER = {
    "mamba_ssm": ("Mamba2", "RMSNorm", ("in_proj", "conv1d", "norm", "out_proj")),
    "transformers": ("Mamba2Mixer", "MambaRMSNormGated", ("conv1d", "in_proj", "norm", "out_proj")),
}


def _heads(d_ssm: Dim, headdim: Dim) -> Dim:
    if type(d_ssm) is int and type(headdim) is int:
        if d_ssm % headdim:
            raise ValueError(f"d_ssm ({d_ssm}) must be a multiple of headdim ({headdim}): mamba_ssm asserts it")
        return d_ssm // headdim
    return d_ssm / headdim


def cache(
    conv_channels: Dim, nheads: Dim, headdim: Dim, d_state: Dim, d_conv: Dim, spelling: str = "transformers"
) -> tuple[State, ...]:
    """What the mixer keeps while it generates: the convolution's last ``d_conv`` inputs over x, B
    and C, and the state of every head.

    - transformers (``Mamba2Mixer``): ``conv_states`` (batch, S + 2GN, K) at the full kernel width
      (``modeling_mamba2.py`` 522-526, ``cache_utils.py`` 1160-1192) in the model's dtype, and
      ``recurrent_states`` (batch, H, P, N) in float32 whatever the model's dtype: the chunked scan
      runs in float (``hidden_states.float()``, ``B.float()``, ``modeling_mamba2.py`` 281-292) and
      its final state is what the cache keeps (594; ``torch.zeros_like``, ``cache_utils.py`` 1188).
    - mamba_ssm (``Mamba2.allocate_inference_cache``, ``mamba2.py`` 345-355): ``conv_state``
      (batch, S + 2GN, K) and ``ssm_state`` (batch, H, P, N), both in the model's dtype.

    Parameters
    ----------
    conv_channels : int or sympy.Expr
        S + 2GN.
    nheads, headdim, d_state, d_conv : int or sympy.Expr
        H, P, N, K.
    spelling : {"transformers", "mamba_ssm"}

    Returns
    -------
    tuple of derive.tree.State
        Constant in the sequence length.

    Examples
    --------
    >>> [(s.name, s.elements(1, 10), s.dtype) for s in cache(48, 4, 8, 4, 4)]
    [('conv_states', 192, None), ('recurrent_states', 128, 'float32')]
    """
    if spelling == "mamba_ssm":
        return (
            State("conv_state", ("batch", conv_channels, d_conv)),
            State("ssm_state", ("batch", nheads, headdim, d_state)),
        )
    return (
        State("conv_states", ("batch", conv_channels, d_conv)),
        State("recurrent_states", ("batch", nheads, headdim, d_state), "float32"),
    )


def mixer(
    d_model: Dim,
    d_state: Dim = 128,
    d_conv: Dim = 4,
    expand: Dim = 2,
    headdim: Dim = 64,
    *,
    d_inner: Dim | None = None,
    d_ssm: Dim | None = None,
    ngroups: Dim = 1,
    nheads: Dim | None = None,
    chunk: Dim | None = None,
    D_has_hdim: bool = False,
    rmsnorm: bool = True,
    bias: bool = False,
    conv_bias: bool = True,
    spelling: str = "mamba_ssm",
    name: str = "",
    type: str | None = None,
    norm_type: str | None = None,
) -> Module:
    """The Mamba-2 mixer: in_proj, depthwise conv1d over x, B, C, dt_bias, A_log, D, gated norm, out_proj.

    Parameters
    ----------
    d_model : int or sympy.Expr
        D.
    d_state : int or sympy.Expr, default 128
        N, per group.
    d_conv : int or sympy.Expr, default 4
        K.
    expand : int or sympy.Expr, default 2
        E = expand · D.
    d_inner : int or sympy.Expr, optional
        E itself, where a family fixes it otherwise (Nemotron-H: ``mamba_num_heads * mamba_head_dim``).
    headdim : int or sympy.Expr, default 64
        P; H = d_ssm / P heads unless ``nheads`` is given.
    d_ssm : int or sympy.Expr, optional
        Channels through the SSM (default E).
    ngroups : int or sympy.Expr, default 1
        G, groups of B and C.
    nheads : int or sympy.Expr, optional
        H itself (transformers' ``num_heads``).
    chunk : int or sympy.Expr, optional
        C, the ``chunk_size`` transformers pads a sequence's first token to (:func:`chunk_size`), kept
        in the module's :attr:`~derive.tree.Module.config` for :func:`decode_flops`; None: unknown (the
        first token's FLOPs are refused).
    D_has_hdim : bool, default False
        ``D`` of d_ssm entries rather than H.
    rmsnorm : bool, default True
        The gated RMSNorm (``norm.weight`` of d_ssm).
    bias, conv_bias : bool
    spelling : {"mamba_ssm", "transformers"}
    name : str
    type, norm_type : str, optional
        The classes of the mixer and its gated norm where a family renames them (transformers'
        ``BambaMixer`` and ``BambaRMSNormGated``; default the spelling's).

    Returns
    -------
    derive.tree.Module
        D(2E + 2GN + H) + (S + 2GN)(K + cb) + 2H + (S or H) + rms·S + ED + b·(2E + 2GN + H + D)
        parameters, S = d_ssm; its cache is :func:`cache`; its ``config`` holds ``chunk_size`` (C or None).

    Raises
    ------
    ValueError
        An unknown spelling; int sizes where ``headdim`` does not divide ``d_ssm``.
    """
    if spelling not in _ORDER:
        raise ValueError(f"spelling must be one of {sorted(_ORDER)}, got {spelling!r}")
    cls, norm_cls, order = _ORDER[spelling]
    cls, norm_cls = type or cls, norm_type or norm_cls
    D, N, K, G = d_model, d_state, d_conv, ngroups
    E = expand * D if d_inner is None else d_inner
    S = E if d_ssm is None else d_ssm
    H = _heads(S, headdim) if nheads is None else nheads
    channels = S + 2 * G * N
    parts = {
        "in_proj": linear(D, 2 * E + 2 * G * N + H, bias, name="in_proj"),
        "conv1d": conv(channels, channels, (K,), groups=channels, bias=conv_bias, name="conv1d"),
        "norm": rms_norm((S,), name="norm", type=norm_cls),
        "out_proj": linear(E, D, bias, name="out_proj"),
    }
    children = tuple(parts[k] for k in order if k != "norm" or rmsnorm)
    params = (Param("dt_bias", (H,)), Param("A_log", (H,)), Param("D", (S if D_has_hdim else H,)))
    states = cache(channels, H, headdim, N, K, spelling)
    return Module(name, cls, params, children, config={"chunk_size": chunk}, cache=states)


def _contracted(size: Dim, flops: Dim) -> Dim:
    """``flops`` of an einsum that contracts over an axis of ``size``; 0 when it is 1: ``torch.einsum``
    then multiplies element-wise (``aten.mul``, no matrix product) instead of calling ``bmm``
    (``aten/src/ATen/native/Linear.cpp``, ``einsum``: a contracted axis of size 1 is not summed)."""
    if type(size) is int:
        return flops if size > 1 else 0
    return sympy.Piecewise((0, sympy.Eq(size, 1)), (flops, True))


def scan_flops(chunk: Dim, nheads: Dim, headdim: Dim, d_state: Dim) -> Dim:
    """Matmul FLOPs of transformers' chunked scan (``mamba2_chunk_scan``) over one token, per sequence.

    The token is padded to one chunk of C = ``chunk_size`` positions (``pad_size``,
    ``models/mamba2/modeling_mamba2.py`` 285, 5.23.0; B and C repeated to the H heads whatever G,
    282-283) and the five einsums run over it (each ``torch.einsum`` of two operands lowers to one
    ``bmm``, 2 FLOPs per multiply-accumulate over every axis of both operands):

    - ``G = C·Bᵀ`` within the chunk, ``bclhn,bcshn->bclsh`` (308): 2·C²·H·N;
    - ``Y_diag``, ``bclsh,bcshp->bclhp`` (315): 2·C²·H·P;
    - the chunk's state, ``bclhn,bclhp->bchpn`` (322): 2·C·H·P·N;
    - the inter-chunk recurrence over the zero initial state and the one chunk,
      ``bzch,bzhpn->bchpn`` (334), z = c = 2: 8·H·P·N;
    - ``C·state``, ``bclhn,bchpn->bclhp`` (342): 2·C·H·P·N.

    An einsum whose contracted axis has size 1 (N = 1 for the first and last, C = 1 for the second
    and third) is an element-wise product, no FLOPs; the D residual, the decays (``segment_sum``,
    ``exp``) and the gated norm are element-wise too.

    Parameters
    ----------
    chunk, nheads, headdim, d_state : int or sympy.Expr
        C, H, P, N.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs. 2C²H(N + P) + 4CHPN + 8HPN when C, N > 1.

    Examples
    --------
    >>> scan_flops(256, 8, 8, 8), scan_flops(1, 2, 3, 1)
    (17305600, 48)
    """
    C, H, P, N = chunk, nheads, headdim, d_state
    return (
        _contracted(N, 2 * C * C * H * N)
        + _contracted(C, 2 * C * C * H * P + 2 * C * H * P * N)
        + 8 * H * P * N
        + _contracted(N, 2 * C * H * P * N)
    )


def decode_flops(module: Module, tokens: Dim) -> Any:
    """Matmul FLOPs of one token through a transformers Mamba-2 mixer: its projections, then the state
    readout, 2·H·P·N, at a decode step, or the chunked scan (:func:`scan_flops`) for a sequence's first
    token.

    The decode step's reference path (``selective_state_update``'s fallback, e.g.
    ``models/nemotron_h/modeling_nemotron_h.py`` 247-260) updates the state element-wise and reads
    it out with one ``torch.bmm`` of (batch·H, P, N) by (batch·H, N, 1); the depthwise convolution
    is no matrix product. The first token of a sequence (no state yet) runs the chunked scan instead,
    padded to ``chunk_size`` (``models/mamba2/modeling_mamba2.py`` 548-585 and 257-360, 5.23.0; every family's
    copy of the mixer runs the same ``mamba2_chunk_scan``). Held against ``FlopCounterMode`` by the
    Mamba-2, Bamba, Nemotron-H, Falcon-H1, GraniteMoeHybrid and Zamba2 tests; a family registers it
    for its mixer's class.

    Parameters
    ----------
    module : derive.tree.Module
        The mixer (:func:`mixer`, spelling "transformers"): its ``recurrent_states`` give H, P, N,
        its ``config["chunk_size"]`` C.
    tokens : int or sympy.Expr
        Tokens in the cache once this one is in: 1 is the first token, any other a decode step.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs, per sequence.

    Raises
    ------
    ValueError
        ``tokens`` is 1 and the mixer's ``chunk_size`` is unknown (:data:`FIRST_TOKEN`).
    """
    _, H, P, N = module.cache[1].shape
    chunk = module.config.get("chunk_size")
    first = None if chunk is None else scan_flops(chunk, H, P, N)
    return projections(module, tokens) + first_token(tokens, first, 2 * H * P * N, FIRST_TOKEN)


#: Why a sequence's first token has no derived FLOPs: the mixer's ``chunk_size`` is unknown or not a
#: size transformers' chunked scan runs with (``None``: its ``pad_size`` fails, ``modeling_mamba2.py`` 285).
FIRST_TOKEN = (
    "the first token of a sequence (no state yet) runs Mamba-2's chunked scan, padded to chunk_size "
    "(modeling_mamba2.py 548-585): its FLOPs need the mixer's chunk_size, an int >= 1"
)


def kept_chunk(config: Mapping[str, Any], shape: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """The entries a model's :attr:`~derive.tree.Module.config` takes so that its closed form (the model
    rebuilt from that config with letters) pads the first token to the same chunk: the chunk-size
    ``keys`` the config gives, each listed under ``_fixed`` (a number in the closed form, not a letter).

    Parameters
    ----------
    config : mapping
        The config as given.
    shape : mapping
        The model's config so far (its ``_fixed`` kept).
    *keys : str
        The family's chunk-size keys.

    Returns
    -------
    dict
        Empty when the config gives none of ``keys`` (the rebuild takes the same default).
    """
    given = {k: config[k] for k in keys if k in config}
    return {**given, "_fixed": (*shape.get("_fixed", ()), *given)} if given else {}


def chunk_size(config: Mapping[str, Any], key: str, default: int) -> Dim | None:
    """The ``chunk_size`` a Mamba-2 mixer reads from a config: ``config[key]``, else ``default``.

    Parameters
    ----------
    config : mapping
        The config as given.
    key : str
        The family's key (``"chunk_size"``, ``"mamba_chunk_size"``).
    default : int
        The config class's default.

    Returns
    -------
    int, sympy.Expr or None
        None for anything but an int >= 1 or a SymPy expression (``None``, a float): no tensor depends
        on it, so the model still builds, but its first token's FLOPs are refused.
    """
    value = config.get(key, default)
    if isinstance(value, sympy.Expr) or (type(value) is int and value >= 1):
        return value
    return None


register_flops("Mamba2Mixer", decode_flops)


def Mamba2(
    d_model: Any,
    d_state: Any = 128,
    d_conv: Any = 4,
    conv_init: Any = None,
    expand: Any = 2,
    headdim: Any = 64,
    d_ssm: Any = None,
    ngroups: Any = 1,
    A_init_range: Any = (1, 16),
    D_has_hdim: bool = False,
    rmsnorm: bool = True,
    norm_before_gate: bool = False,
    dt_min: float = 0.001,
    dt_max: float = 0.1,
    dt_init_floor: float = 1e-4,
    dt_limit: Any = (0.0, float("inf")),
    bias: bool = False,
    conv_bias: bool = True,
    chunk_size: int = 256,
    use_mem_eff_path: bool = True,
    layer_idx: Any = None,
    process_group: Any = None,
    sequence_parallel: bool = True,
    device: Any = None,
    dtype: Any = None,
) -> Module:
    """``mamba_ssm.Mamba2`` with its own signature (mamba2.py 38–65): the mixer's tree.

    Parameters
    ----------
    d_model, d_state, d_conv, expand, headdim, ngroups : int or sympy.Expr
    d_ssm : int, sympy.Expr or None
    D_has_hdim, rmsnorm, bias, conv_bias : bool
    conv_init, A_init_range, norm_before_gate, dt_min, dt_max, dt_init_floor, dt_limit, chunk_size,
    use_mem_eff_path, layer_idx, sequence_parallel, device, dtype
        Initialisation and execution options: no tensor depends on them.
    process_group : None
        Tensor parallelism shards the tensors: refused.

    Returns
    -------
    derive.tree.Module
        With :attr:`~derive.tree.Module.formula`, the closed form in the letters of :data:`LETTERS`.

    Raises
    ------
    ValueError
        A size that is not an int >= 1 (``expand`` too: mamba_ssm uses ``expand * d_model`` as a
        size), ``d_ssm`` not a multiple of ``headdim``, a bad ``A_init_range``, a process group.
    TypeError
        A flag that is not a bool.
    """
    sizes = {"d_model": d_model, "d_state": d_state, "d_conv": d_conv, "expand": expand, "headdim": headdim}
    sizes["ngroups"] = ngroups
    if d_ssm is not None:
        sizes["d_ssm"] = d_ssm
    for key, value in sizes.items():
        hf_config.positive(value, key)
    low, high = A_init_range
    if not 0 < low <= high:
        raise ValueError(f"A_init_range must hold 0 < low <= high (mamba_ssm asserts it), got {A_init_range!r}")
    if process_group is not None:
        raise ValueError("process_group: tensor parallelism splits the tensors across ranks; derive counts one process")
    flags = {"D_has_hdim": D_has_hdim, "rmsnorm": rmsnorm, "bias": bias, "conv_bias": conv_bias}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"argument {key} must be True or False, got {value!r}")
    module = mixer(**sizes, D_has_hdim=D_has_hdim, rmsnorm=rmsnorm, bias=bias, conv_bias=conv_bias)
    return module.replace(config={**sizes, **flags}, formula=_formula(sizes, flags))


def _formula(sizes: Mapping[str, Any], flags: Mapping[str, bool]) -> Formula:
    """The closed form of ``Mamba2(...)``: int sizes become letters."""

    kwargs = [
        (k, sympy.Symbol(LETTERS[k], integer=True, positive=True) if type(v) is int else v) for k, v in sizes.items()
    ]
    values = tuple((LETTERS[k], v) for k, v in sizes.items() if type(v) is int)
    return Formula(mixer, kwargs=tuple(kwargs) + tuple(flags.items()), values=values)


def _read(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments that remake a live ``mamba_ssm.Mamba2`` (its attributes, mamba2.py 69–89)."""
    kwargs = {
        "d_state": obj.d_state,
        "d_conv": obj.d_conv,
        "expand": obj.expand,
        "headdim": obj.headdim,
        "d_ssm": obj.d_ssm,
        "ngroups": obj.ngroups,
        "D_has_hdim": obj.D_has_hdim,
        "rmsnorm": obj.rmsnorm,
        "bias": obj.in_proj.bias is not None,
        "conv_bias": obj.conv1d.bias is not None,
    }
    return (obj.d_model,), kwargs


register(
    Constructor(
        "mamba_ssm",
        "Mamba2",
        Mamba2,
        prefixes=("", "mamba_ssm.", "mamba_ssm.modules.mamba2."),
        letters=LETTERS,
        read=_read,
        module_types=("mamba_ssm.modules.mamba2",),
        source=_SOURCE,
    )
)


# --- transformers: Mamba2ForCausalLM from a config ------------------------------------------------

#: Shape keys of ``Mamba2Config`` and their defaults (configuration_mamba2.py 62–88).
_DEFAULTS = {
    "num_heads": 128,
    "head_dim": 64,
    "vocab_size": 32768,
    "hidden_size": 4096,
    "state_size": 128,
    "num_hidden_layers": 64,
    "expand": 2,
    "conv_kernel": 4,
    "n_groups": 8,
    "use_bias": False,
    "use_conv_bias": True,
    "time_step_rank": "auto",
    "tie_word_embeddings": False,
}
#: mamba_ssm's spelling of the sizes, in converted configs: transformers ignores them, so one that disagrees is refused.
_SAME_AS = {
    "d_model": "hidden_size",
    "n_layer": "num_hidden_layers",
    "d_state": "state_size",
    "d_conv": "conv_kernel",
    "ngroups": "n_groups",
    "headdim": "head_dim",
}
#: ``Mamba2Config``'s every key at transformers 5.23.0: the shape keys with their defaults (``chunk_size``: the
#: scan's chunk, which a prefill's FLOPs read), the others with why they shape nothing. Converted configs' keys
#: the mixer does not read (``rms_norm``, ``norm_before_gate``, ``fused_add_norm``, ``pad_vocab_size_multiple``,
#: ``intermediate_size``: it always has the gated norm, and E = ``expand`` * D) are outside the class: noted.
KEYS = Keys(
    "Mamba2Config",
    {**_DEFAULTS, "chunk_size": 256},
    {
        "layer_norm_epsilon": "an epsilon of the norms",
        "residual_in_fp32": "the residual's dtype in the forward: no tensor",
        "time_step_min": "dt_bias's initialisation: no tensor",
        "time_step_max": "dt_bias's initialisation: no tensor",
        "time_step_floor": "dt_bias's initialisation: no tensor",
        "time_step_limit": "the clamp of dt in the forward: no tensor",
        "rescale_prenorm_residual": "out_proj's initialisation: no tensor",
    },
    same_as=_SAME_AS,
)
_HF_SOURCE = (
    "transformers/models/mamba2/configuration_mamba2.py 26-107, modeling_mamba2.py 105-110, 373-440, "
    "607-631, 736-744, 839-845"
)


@register_config("mamba2", architecture="Mamba2ForCausalLM", source=_HF_SOURCE, keys=KEYS)
def causal_lm(config: Mapping[str, Any]) -> Module:
    """``Mamba2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones take ``Mamba2Config``'s defaults. Sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Named as transformers names it; its ``config`` holds the keys that shape it.

    Raises
    ------
    ValueError
        A key derive cannot map, a value transformers refuses (``hidden_size * expand`` must equal
        ``num_heads * head_dim``), naming the key.
    """
    c = KEYS.resolve(config)
    if config.get("ssm_cfg") not in (None, {}):
        raise ValueError("config key 'ssm_cfg' is mamba_ssm's; transformers' Mamba2Config ignores it")
    if "layer_types" in config:  # a property without a setter: transformers refuses the key (AttributeError)
        raise ValueError(
            "config key 'layer_types' is Mamba2Config's property (every layer a Mamba-2 layer): it takes no value"
        )
    keys = ("vocab_size", "hidden_size", "state_size", "conv_kernel", "num_heads", "head_dim", "n_groups")
    s = {k: hf_config.size(c, k) for k in keys}
    s["num_hidden_layers"] = hf_config.size(c, "num_hidden_layers", 0)
    s["expand"] = hf_config.strict_int(c, "expand", "Mamba2Config")
    flags = {k: hf_config.flag(c, k) for k in ("use_bias", "use_conv_bias", "tie_word_embeddings")}
    hf_config.time_step_rank(c["time_step_rank"])  # int() in the mixer (modeling_mamba2.py 388); no tensor uses it
    D, inner = s["hidden_size"], s["expand"] * s["hidden_size"]
    heads = s["num_heads"] * s["head_dim"]
    if type(inner) is int and type(heads) is int and inner != heads:
        raise ValueError(
            f"Inconsistent configuration: hidden_size * expand ({inner}) must equal num_heads * head_dim ({heads}) "
            "(Mamba2Config.validate_architecture)"
        )
    mix = mixer(
        D,
        s["state_size"],
        s["conv_kernel"],
        s["expand"],
        # P = E / H (validate_architecture): the closed form, rebuilt without head_dim, keeps the state's P
        inner // s["num_heads"] if type(inner) is int and type(s["num_heads"]) is int else inner / s["num_heads"],
        ngroups=s["n_groups"],
        nheads=s["num_heads"],
        chunk=chunk_size(config, "chunk_size", 256),
        bias=flags["use_bias"],
        conv_bias=flags["use_conv_bias"],
        spelling="transformers",
        name="mixer",
    )
    norm = rms_norm((D,), name="norm", type="Mamba2RMSNorm")
    block = Module("layers.{k}", "Mamba2Block", children=(norm, mix), repeat=s["num_hidden_layers"])
    final = rms_norm((D,), name="norm_f", type="Mamba2RMSNorm")
    V = s["vocab_size"]
    backbone = Module("backbone", "Mamba2Model", children=(embedding(V, D, name="embeddings"), block, final))
    head = hf_config.lm_head(D, V, "backbone.embeddings.weight" if flags["tie_word_embeddings"] else None)
    s.pop("head_dim")  # no tensor reads it once num_heads is known (P = E / H)
    shape = {**s, **flags}
    shape.update(kept_chunk(config, shape, "chunk_size"))
    return Module("", "Mamba2ForCausalLM", children=(backbone, head), config=shape)


def _config(*args: Any, **kwargs: Any) -> Module:
    if args:
        raise TypeError("Mamba2Config accepts only keyword arguments")
    return causal_lm(kwargs)


register(
    Constructor(
        "transformers",
        "Mamba2Config",
        _config,
        prefixes=("", "transformers.", "transformers.models.mamba2."),
        module_types=("transformers.models.mamba2.configuration_mamba2",),
        source=_HF_SOURCE,
    )
)


# --------------------------------------------------------------------------- the way back: a checkpoint's tensors -> the config


def mixer_sizes(shapes: Shapes, m: str) -> dict[str, int]:
    """E, H, the channels of B and C (2GN), d_ssm, K and D's length, from a Mamba-2 mixer's tensors.

    Parameters
    ----------
    shapes : mapping of str to tuple
        A checkpoint's tensor names and shapes.
    m : str
        The mixer's prefix (``"backbone.layers.0.mixer."``).

    Returns
    -------
    dict of str to int

    Raises
    ------
    Unreadable
        A tensor missing or of another rank.
    """
    d, e = dims(shapes, m + "out_proj.weight", 2)
    (h,) = dims(shapes, m + "A_log", 1)
    rows = dims(shapes, m + "in_proj.weight", 2)[0]
    channels, _, k = dims(shapes, m + "conv1d.weight", 3)
    bc = rows - 2 * e - h
    if bc <= 0 or bc % 2:
        raise Unreadable(f"{m}in_proj.weight has {rows} rows: not 2E + 2GN + H of a Mamba-2 mixer")
    return {
        "d": d,
        "e": e,
        "h": h,
        "gn": bc // 2,
        "d_ssm": channels - bc,
        "k": k,
        "skip": dims(shapes, m + "D", 1)[0],
    }


@register_shapes("Mamba2ForCausalLM")
def mamba2_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``Mamba2ForCausalLM``.

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

    Raises
    ------
    Unreadable
        The tensors are this model's but do not give its config (the message says why).
    """
    if "backbone.embeddings.weight" not in shapes or "backbone.layers.0.mixer.dt_bias" not in shapes:
        return None
    m = "backbone.layers.0.mixer."
    vocab, d = dims(shapes, "backbone.embeddings.weight", 2)
    s = mixer_sizes(shapes, m)
    expand, head_dim = ratio(s["e"], d), ratio(s["e"], s["h"])
    if expand is None or head_dim is None:
        raise Unreadable(f"the inner width {s['e']:,} is not expand × hidden_size and num_heads × head_dim")
    groups, state, note = groups_and_state(s["gn"], 128)
    config = {
        "model_type": "mamba2",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layer_count(shapes, "backbone.layers."),
        "expand": expand,
        "num_heads": s["h"],
        "head_dim": head_dim,
        "n_groups": groups,
        "state_size": state,
        "conv_kernel": s["k"],
        "use_bias": m + "in_proj.bias" in shapes,
        "use_conv_bias": m + "conv1d.bias" in shapes,
        "tie_word_embeddings": tied(shapes, ties, "lm_head.weight", "backbone.embeddings.weight"),
    }
    return Inferred("mamba2", config, [f"n_groups, state_size: {note}"], embedding="backbone.embeddings.weight")
