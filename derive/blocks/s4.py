"""S4D and S4 (state-spaces/s4): diagonal and diagonal-plus-low-rank state-space convolutions.

Written from the reference code at state-spaces/s4 e757cef (no package on PyPI; cited by file
and line): the minimal S4D, ``models/s4/s4d.py`` 11-88 (``S4DKernel``, ``S4D``), and the
standalone S4, ``models/s4/s4.py`` (``SSMKernel`` 797-929, ``SSMKernelDiag`` 977-1072,
``SSMKernelDPLR`` 1218-1317, ``FFTConv`` 1633-1699, ``S4Block`` 1790-1888). A state of size N
keeps N/2 conjugate pairs, each complex value stored as a real pair (``torch.view_as_real``, a
trailing axis of 2): ``complex_params=True`` declares them as complex tensors instead, so that
``count`` gives complex entries once and ``count(..., real=True)`` real scalars.

>>> s4d(64).count                          # 2HN + 2H^2 + 4H, H = N = 64
16640
>>> s4d(64, lr=0.0).count                  # log_dt, log_A_real, A_imag become buffers
12480
>>> from derive.tree import count
>>> count(s4d(64, complex_params=True)), count(s4d(64, complex_params=True), real=True)
(14592, 16640)
"""

from __future__ import annotations

from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from ._ssm_common import complex_param, flag, formula, half, size
from .s4_kernel import frozen, ssm_kernel

__all__ = ["s4d", "fft_conv", "s4_block", "S4D_EQUATIONS", "S4_EQUATIONS", "SOURCE"]

#: Where the tensors and conventions are read from (repository, commit, files), shown on the site.
SOURCE = "state-spaces/s4 e757cef: models/s4/s4d.py, models/s4/s4.py"

#: S4D's update, discretised by zero-order hold (Gu et al. 2022, "On the Parameterization and
#: Initialization of Diagonal State Space Models"; ``s4d.py`` 32-45, 86-97).
S4D_EQUATIONS = (
    r"A = -\exp(\texttt{log\_A\_real}) + i\,\texttt{A\_imag}, \quad \Delta = \exp(\texttt{log\_dt})",
    r"\bar A = e^{\Delta A}, \quad \bar B = (e^{\Delta A} - 1)/A \quad (B = 1)",
    r"x_t = \bar A\, x_{t-1} + \bar B\, u_t, \quad y_t = 2\,\mathrm{Re}(C x_t) + D \odot u_t",
    r"K_\ell = 2\,\mathrm{Re}\!\left(\sum_n C_n \bar B_n \bar A_n^{\ell}\right), \quad y = K * u + D \odot u",
    r"\mathrm{out} = \mathrm{GLU}(W\,\mathrm{GELU}(y) + b), \quad W \in \mathbb{R}^{2H \times H}",
)

#: S4's state matrix is diagonal plus low rank (Gu et al. 2022, "Efficiently Modeling Long
#: Sequences with Structured State Spaces"; ``s4.py`` 1274-1314).
S4_EQUATIONS = (
    r"A = \Lambda - P P^{*}, \quad \Lambda = -\exp(\texttt{A\_real}) - i\,\texttt{A\_imag}",
    r"x'(t) = A x(t) + B u(t), \quad y(t) = C x(t) + D u(t)",
    r"K = (C\bar B, C\bar A\bar B, \dots, C\bar A^{L-1}\bar B), \quad y = K * u + D u",
)

_ACTIVATIONS = frozenset(
    {None, "id", "identity", "linear", "tanh", "relu", "gelu", "elu", "swish", "silu", "glu", "sigmoid", "softplus"}
)


def _activation(value: Any, argument: str) -> Any:
    if value not in _ACTIVATIONS:  # s4.py 185-205
        raise ValueError(f"{argument}: hidden activation '{value}' is not implemented (s4.py 205)")
    return value


def _dropout(p: Any, tie: bool, argument: str) -> None:
    """``DropoutNd`` (s4.py 226-231) refuses p >= 1, ``nn.Dropout`` p > 1; both only when p > 0."""
    if p > 0.0 and (p >= 1 if tie else p > 1):
        raise ValueError(f"{argument}: dropout probability has to be in [0, 1), but got {p}")


def s4d(
    d_model: Dim,
    d_state: Dim = 64,
    dropout: float = 0.0,
    transposed: bool = True,
    *,
    dt_min: float = 0.001,
    dt_max: float = 0.1,
    lr: Any = None,
    complex_params: bool = False,
) -> Module:
    """The minimal S4D layer, ``S4D(d_model, d_state=64, dropout=0.0, transposed=True, **kernel_args)``.

    Tensors (``s4d.py`` 14-29, 63-85): ``D`` (H), ``kernel.C`` (H, N/2, 2), ``kernel.log_dt`` (H),
    ``kernel.log_A_real`` and ``kernel.A_imag`` (H, N/2), ``output_linear.0`` a Conv1d(H, 2H, 1)
    with bias: 2HN + 2H^2 + 4H parameters. ``lr=0.0`` registers log_dt, log_A_real and A_imag as
    buffers (``register``, 48-57): HN + 2H^2 + 3H.

    Parameters
    ----------
    d_model : int or sympy.Expr
        H, the features (independent SSMs).
    d_state : int or sympy.Expr, default 64
        N, the state size; N // 2 conjugate pairs are kept.
    dropout : float, default 0.0
        ``DropoutNd`` when > 0 (no parameters; p >= 1 refused as ``DropoutNd`` does).
    transposed : bool, default True
        Axis order only.
    dt_min, dt_max : float
        Initialisation only.
    lr : float, dict or None, default None
        ``0.0`` makes log_dt, log_A_real and A_imag buffers (A and dt frozen).
    complex_params : bool, default False
        Declare C as one complex tensor (H, N/2) instead of its real view (H, N/2, 2).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    TypeError, ValueError
        A size that is not a positive int; dropout >= 1.
    """
    h, n = size(d_model, "d_model"), size(d_state, "d_state")
    _dropout(dropout, True, "dropout")
    fixed = frozen(lr)
    kernel = Module(
        "kernel",
        "S4DKernel",
        (
            complex_param("C", (h, half(n)), complex_params),
            Param("log_dt", (h,), buffer=fixed),
            Param("log_A_real", (h, half(n)), buffer=fixed),
            Param("A_imag", (h, half(n)), buffer=fixed),
        ),
    )
    output = Module("output_linear", "Sequential", children=(conv(h, 2 * h, (1,), name="0"), Module("1", "GLU")))
    options = {"dropout": dropout, "lr": lr, "complex_params": complex_params}
    return Module(
        "",
        "S4D",
        (Param("D", (h,)),),
        (kernel, output),
        config={"d_model": d_model, "d_state": d_state, **options},
        formula=formula(s4d, {"d_model": ("H", d_model), "d_state": ("N", d_state)}, options),
    )


def fft_conv(
    d_model: Dim,
    l_max: Any = None,
    channels: Dim = 1,
    swap_channels: bool = False,
    bidirectional: bool = False,
    activation: Any = "gelu",
    transposed: bool = True,
    dropout: float = 0.0,
    tie_dropout: bool = False,
    drop_kernel: float = 0.0,
    mode: Any = "dplr",
    kernel: Any = None,
    *,
    name: str = "",
    complex_params: bool = False,
    **kernel_args: Any,
) -> Module:
    """S4's ``FFTConv`` (s4.py 1647-1699): ``D`` (c', H) and the SSM kernel, c' = 2·channels for a
    GLU activation, the kernel's channels doubled again when ``bidirectional``.

    Parameters
    ----------
    d_model : int or sympy.Expr
    l_max, channels, swap_channels, bidirectional, activation, transposed, dropout, tie_dropout, drop_kernel, mode, kernel
        As ``FFTConv`` takes them (``mode`` and ``kernel`` name the kernel class; pass one).
    name : str
    complex_params : bool
    **kernel_args
        :func:`ssm_kernel`'s options.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        Both ``mode`` and ``kernel`` (s4.py 1683), an unknown activation or kernel, dropout out of range.
    """
    if mode is not None:
        if kernel is not None:
            raise ValueError("Pass either mode or kernel but not both (s4.py 1683)")
        kernel = mode
    _activation(activation, "activation")
    _dropout(dropout, flag(tie_dropout, "tie_dropout"), "dropout")
    _dropout(drop_kernel, False, "drop_kernel")
    h, c = size(d_model, "d_model"), size(channels, "channels")
    if activation is not None and activation.startswith("glu"):
        c = 2 * c
    inner = ssm_kernel(
        h, 2 * c if flag(bidirectional, "bidirectional") else c, kernel, complex_params=complex_params, **kernel_args
    )
    return Module(name, "FFTConv", (Param("D", (c, h)),), (inner,))


def s4_block(
    d_model: Dim,
    bottleneck: Dim | None = None,
    gate: Any = None,
    gate_act: Any = None,
    mult_act: Any = None,
    final_act: Any = "glu",
    postact: Any = None,
    initializer: Any = None,
    weight_norm: bool = False,
    dropout: float = 0.0,
    tie_dropout: bool = False,
    transposed: bool = True,
    *,
    complex_params: bool = False,
    **layer_args: Any,
) -> Module:
    """S4's ``S4Block`` (s4.py 1809-1888): [``input_linear``], ``layer`` (an :func:`fft_conv`), ``output_linear``.

    ``output_linear`` is Linear(H·channels, H, twice that out for ``final_act="glu"``) followed by
    the activation (``output_linear.0``); none for ``final_act=None``. ``bottleneck`` b makes
    ``input_linear`` Linear(H/b, H/b) and the output H/b wide (1833-1841, 1882-1888).

    Parameters
    ----------
    d_model : int or sympy.Expr
    bottleneck, gate, gate_act, mult_act, final_act, postact, initializer, weight_norm, dropout, tie_dropout, transposed
        As ``S4Block`` takes them.
    complex_params : bool
    **layer_args
        :func:`fft_conv`'s and :func:`ssm_kernel`'s options (``mode``, ``d_state``, ``channels``, ...).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        ``gate`` given: ``S4Block.__init__`` reads ``self.layer`` before making it (s4.py 1851)
        and fails with AttributeError; ``postact`` with ``final_act`` (1876); an unknown activation.

    Examples
    --------
    >>> s4_block(256).count                  # S4 (DPLR, N = 64, rank 1): 2H^2 + 4HN + 4H
    197632
    """
    if gate is not None:
        raise ValueError(
            "S4Block with gate fails in s4.py: it reads self.layer.d_output before self.layer exists (line 1851)"
        )
    if postact is not None:
        if final_act is not None:
            raise ValueError("postact replaces final_act: pass final_act=None with it (s4.py 1876)")
        final_act, postact = postact, final_act
    _activation(mult_act, "mult_act")
    _activation(final_act, "final_act")
    _dropout(dropout, flag(tie_dropout, "tie_dropout"), "dropout")
    h = size(d_model, "d_model")
    inner = h if bottleneck is None else size(bottleneck, "bottleneck")
    if bottleneck is not None:
        inner = h / inner if hasattr(h, "free_symbols") or hasattr(inner, "free_symbols") else h // inner
    children = [] if bottleneck is None else [linear(inner, inner, name="input_linear")]
    layer = fft_conv(
        h,
        transposed=False,
        dropout=dropout,
        tie_dropout=tie_dropout,
        name="layer",
        complex_params=complex_params,
        **layer_args,
    )
    children.append(layer)
    channels = size(layer_args.get("channels", 1), "channels")
    if final_act is not None:
        out = 2 * inner if final_act == "glu" else inner
        children.append(Module("output_linear", "Sequential", children=(linear(h * channels, out, name="0"),)))
    sizes = {"d_model": ("H", d_model)}
    if layer_args.get("d_state") is not None:
        sizes["d_state"] = ("N", layer_args["d_state"])
    options = {k: v for k, v in layer_args.items() if k != "d_state"}
    options |= {"bottleneck": bottleneck, "final_act": final_act, "complex_params": complex_params}
    return Module(
        "",
        "S4Block",
        children=tuple(children),
        config={"d_model": d_model, **layer_args, "bottleneck": bottleneck, "final_act": final_act},
        formula=formula(s4_block, sizes, options),
    )


def _no_derive_options(build: Any, cls: str) -> Any:
    def make(*args: Any, **kwargs: Any) -> Module:
        if "complex_params" in kwargs:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument 'complex_params'")
        return build(*args, **kwargs)

    return make


def _make_s4d(
    d_model: Dim, d_state: Dim = 64, dropout: float = 0.0, transposed: bool = True, **kernel_args: Any
) -> Module:
    if "N" in kernel_args:
        raise TypeError("S4DKernel.__init__() got multiple values for keyword argument 'N'")
    unknown = set(kernel_args) - {"dt_min", "dt_max", "lr"}
    if unknown:
        raise TypeError(f"S4DKernel.__init__() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    return s4d(d_model, d_state, dropout, transposed, **kernel_args)


register(
    Constructor(
        "s4",
        "S4D",
        _make_s4d,
        prefixes=("", "s4d."),
        letters={"d_model": "H", "d_state": "N"},
        module_types=("models.s4.s4d", "src.models.s4.s4d", "s4d"),
        source="state-spaces/s4 models/s4/s4d.py 11-88",
    )
)
register(
    Constructor(
        "s4",
        "S4Block",
        _no_derive_options(s4_block, "S4Block"),
        prefixes=("", "s4."),
        letters={"d_model": "H", "d_state": "N"},
        module_types=("models.s4.s4", "s4"),
        source="state-spaces/s4 models/s4/s4.py 1790-1888",
    )
)
register(
    Constructor(
        "s4",
        "FFTConv",
        _no_derive_options(fft_conv, "FFTConv"),
        prefixes=("", "s4."),
        letters={"d_model": "H", "d_state": "N"},
        module_types=("models.s4.s4", "s4"),
        source="state-spaces/s4 models/s4/s4.py 1633-1699",
    )
)
