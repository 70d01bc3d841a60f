"""S4's SSM convolution kernels (state-spaces/s4 ``models/s4/s4.py``): ``SSMKernelDPLR`` (S4) and
``SSMKernelDiag`` (S4D), with the checks the reference makes when it builds them.

Sources (state-spaces/s4 e757cef): ``Kernel.__init__``/``register`` 679-765, ``SSMKernel``
797-929, ``SSMKernelDiag`` 977-1072, ``SSMKernelDPLR`` 1218-1317, the initialisers
``transition``/``nplr``/``dplr``/``ssm``/``combination`` 300-620. The tensors hold N/2 conjugate
pairs, each complex value as a real pair (``_c2r = torch.view_as_real``, a trailing axis of 2).

>>> [(p.name, p.shape) for p in ssm_kernel(8, d_state=4).params if not p.buffer]
[('inv_dt', (8, 1)), ('C', (1, 8, 2, 2)), ('B', (1, 8, 2, 2)), ('A_real', (8, 2)), ('A_imag', (8, 2)), ('P', (1, 8, 2, 2))]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tree import Dim, Module, Param
from ._ssm_common import complex_param, flag, half, size

__all__ = ["ssm_kernel", "frozen", "KERNELS"]

_TRANSFORMS = frozenset({"none", "exp", "relu", "sigmoid", "softplus"})
#: ``kernel`` argument -> the class it builds (``kernel_registry``, ``s4.py`` 1625-1631): S4D's
#: ``SSMKernelDiag`` or S4's ``SSMKernelDPLR``.
KERNELS = {"s4d": "SSMKernelDiag", "diag": "SSMKernelDiag", "s4": "SSMKernelDPLR", "nplr": "SSMKernelDPLR"}
KERNELS["dplr"] = "SSMKernelDPLR"
_COMBINATIONS = {
    "hippo": ("legs", "fourier"),
    "diag": ("diag-inv", "diag-lin"),
    "all": ("legs", "fourier", "diag-inv", "diag-lin"),
}
_MEASURES = frozenset({"legs", "legt", "fourier", "fout"})
_DPLR_INITS = frozenset(
    {
        "random",
        "rand",
        "real",
        "linear",
        "lin",
        "inverse",
        "inv",
        "inverse2",
        "inv2",
        "quadratic",
        "quad",
        "legs",
        "hippo",
    }
)
_NPLR_ARGS = frozenset({"diagonalize_precision", "B_clip"})
_DPLR_ARGS = frozenset(
    {"real_random", "real_scale", "imag_random", "imag_scale", "B_random", "B_scale", "P_scale", "normalize"}
)
_B_INITS = frozenset({"constant", "random", "unit-cw", "unit-ccw"})
_IGNORED = frozenset({"l_max", "wd", "verbose", "dt_min", "dt_max", "disc", "dt_fast", "bandlimit", "deterministic"})


def frozen(lr: Any) -> bool:
    """Whether a tensor registered with learning rate ``lr`` is a buffer (``lr == 0.0``).

    ``register`` (s4d.py 48-57, s4.py 754-765): ``register_buffer`` when ``lr == 0.0``, else an
    ``nn.Parameter`` carrying ``_optim`` hints (its own lr, weight decay 0).

    Parameters
    ----------
    lr : float, dict or None

    Returns
    -------
    bool
    """
    return bool(lr == 0.0)


def _inits(init: Any, measure: Any, n_ssm: Dim, rank: Dim, n: Dim, init_args: Mapping[str, Any]) -> None:
    """Refuse what ``SSMKernel.__init__`` (924-928) and ``combination`` / ``ssm`` / ``nplr`` (300-620) assert."""
    if measure is not None:
        if init is not None:
            raise ValueError("'measure' and 'init' cannot both be passed into SSMKernel (s4.py 926): pass init=None")
        init = measure
    if not isinstance(init, str):
        raise ValueError(f"init must be a string, got {init!r}")
    inits = _COMBINATIONS.get(init, (init,))
    if type(n_ssm) is int and n_ssm % len(inits):  # combination, 612
        raise ValueError(f"{n_ssm} independent trainable SSM copies must be multiple of {len(inits)} different inits")
    for one in inits:
        if one.startswith(("diag", "dplr")):  # ssm, 586-593
            parts = one[4:].split("-")
            sub = parts[1] if len(parts) > 1 else "hippo"
            if parts[0] != "" or sub not in _DPLR_INITS:
                raise ValueError(f"init {one!r} is not one s4.py knows (dplr inits: {sorted(_DPLR_INITS)})")
            allowed, legs = _DPLR_ARGS | {"B_init"}, sub in ("legs", "hippo")
        else:
            if one not in _MEASURES:  # transition, 300-343
                raise ValueError(f"init {one!r} is not one s4.py knows (measures: {sorted(_MEASURES)})")
            allowed, legs = _NPLR_ARGS, True
            if one == "legt" and type(rank) is int and rank < 2:
                raise ValueError("init 'legt' needs rank >= 2 (rank_correction, s4.py 354)")
            if one in ("fourier", "fout") and type(n) is int and n % 2:
                raise ValueError("init 'fourier' needs an even d_state (transition, s4.py 327-334)")
        if legs and type(n) is int and n < 4:
            raise ValueError("d_state must be at least 4 for a HiPPO-LegS init (nplr keeps N/2 eigenvalues, s4.py 427)")
        for key in init_args:
            if key not in allowed:
                raise TypeError(f"init {one!r}: unexpected keyword argument {key!r}")
    if init_args.get("B_init", "constant") not in _B_INITS:
        raise ValueError(
            f"B_init {init_args['B_init']!r} is not modelled by derive (s4.py 538-554; known: {sorted(_B_INITS)})"
        )


def ssm_kernel(
    d_model: Dim,
    channels: Dim = 1,
    kernel: str = "dplr",
    *,
    d_state: Dim | None = None,
    dt_tie: bool = True,
    dt_transform: str = "exp",
    rank: Dim = 1,
    n_ssm: Dim | None = None,
    measure: Any = None,
    init: Any = "legs",
    lr: Any = None,
    is_real: bool = False,
    real_transform: str = "exp",
    imag_transform: str = "none",
    backend: str = "cuda",
    name: str = "kernel",
    complex_params: bool = False,
    **init_args: Any,
) -> Module:
    """The SSM convolution kernel of S4 (``SSMKernelDPLR``) or S4D (``SSMKernelDiag``).

    Tensors in order (``register_params``, s4.py 1061-1072, 1314-1317), with S = ``n_ssm``
    (default H), N' = N/2 (``d_state`` doubled first when ``is_real`` and ``d_state`` is given,
    1004-1005), c = ``channels``: ``inv_dt`` (H, 1) — (H, N') when not ``dt_tie``; ``C`` (c, H, N', 2);
    ``B`` (1, S, N', 2); ``A_real`` (S, N'); ``A_imag`` (S, N'); DPLR adds ``P`` (rank, S, N', 2) and
    the buffer ``l_kernel`` (). ``is_real`` keeps C, B real and drops A_imag. A tensor whose learning
    rate (``lr``, or ``lr[key]`` with keys dt, A, B, C; P follows A) is 0.0 is a buffer.

    Parameters
    ----------
    d_model : int or sympy.Expr
    channels : int or sympy.Expr, default 1
    kernel : str, default "dplr"
        ``"dplr"``, ``"nplr"``, ``"s4"`` (DPLR) or ``"diag"``, ``"s4d"`` (Diag).
    d_state, dt_tie, dt_transform, rank, n_ssm, measure, init, lr, is_real, real_transform, imag_transform, backend
        As ``SSMKernel`` / ``SSMKernelDiag`` take them.
    name : str, default "kernel"
    complex_params : bool, default False
        C, B and P as complex tensors.
    **init_args
        Passed on to the initialisers (``dplr``/``nplr``); those that change no shape only.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        What the reference asserts or refuses at construction: a ``kernel`` not in :data:`KERNELS`;
        a transform not one of none, exp, relu, sigmoid, softplus; a ``backend`` not cuda, keops or
        naive; a size below 1; ``n_ssm`` not dividing ``d_model``; both ``measure`` and ``init``
        given; an ``init`` that is not a string or not one s4.py knows; ``n_ssm`` not a multiple of
        the number of inits a combination holds; ``"legt"`` with ``rank`` below 2, ``"fourier"``
        with an odd ``d_state``; ``d_state`` below 4 with a HiPPO measure (legs, legt, fourier,
        fout) or a DPLR ``legs``/``hippo`` init; a ``B_init`` derive does not model.
    TypeError
        ``lr`` neither None, a float nor a dict; a keyword of ``init_args`` no initialiser takes
        (or not the chosen init's); a size neither an int nor a SymPy expression; ``dt_tie`` or
        ``is_real`` neither a bool, an int nor None.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel {kernel!r} is not in s4.py's kernel_registry (1625-1631): {sorted(KERNELS)}")
    if not (lr is None or isinstance(lr, (float, Mapping))):  # Kernel.__init__, 725-729
        raise TypeError(f"lr must be None, a float or a dict, got {lr!r}")
    for value, argument in (
        (dt_transform, "dt_transform"),
        (real_transform, "real_transform"),
        (imag_transform, "imag_transform"),
    ):
        if value not in _TRANSFORMS:
            raise ValueError(f"{argument} {value!r} is not implemented (s4.py 625-638)")
    if backend not in ("cuda", "keops", "naive"):
        raise ValueError(f"backend must be 'cuda', 'keops' or 'naive' (s4.py 1041), got {backend!r}")
    unknown = set(init_args) - _IGNORED - _NPLR_ARGS - _DPLR_ARGS - {"B_init"}
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    h, c, r = size(d_model, "d_model"), size(channels, "channels"), size(rank, "rank")
    n = size(64 if d_state is None else d_state, "d_state")
    real = flag(is_real, "is_real")
    if real and d_state is not None:
        n = 2 * n
    s = h if n_ssm is None else size(n_ssm, "n_ssm")
    if type(h) is int and type(s) is int and h % s:
        raise ValueError(f"n_ssm ({s}) must divide d_model ({h}) (s4.py 817)")
    _inits(init, measure, s, r, n, {k: v for k, v in init_args.items() if k not in _IGNORED})
    rates = lr if isinstance(lr, Mapping) else {}

    def rate(key: str) -> Any:
        return rates.get(key) if isinstance(lr, Mapping) else lr

    m = half(n)
    dt = (h, 1) if flag(dt_tie, "dt_tie") else (h, m)
    params = [Param("inv_dt", dt, buffer=frozen(rate("dt")))]
    if real:
        params += [Param("C", (c, h, m), buffer=frozen(rate("C"))), Param("B", (1, s, m), buffer=frozen(rate("B")))]
        params += [Param("A_real", (s, m), buffer=frozen(rate("A")))]
    else:
        params += [
            complex_param("C", (c, h, m), complex_params, buffer=frozen(rate("C"))),
            complex_param("B", (1, s, m), complex_params, buffer=frozen(rate("B"))),
            Param("A_real", (s, m), buffer=frozen(rate("A"))),
            Param("A_imag", (s, m), buffer=frozen(rate("A"))),
        ]
    if KERNELS[kernel] == "SSMKernelDPLR":
        params += [complex_param("P", (r, s, m), complex_params, buffer=frozen(rate("A")))]
        params += [Param("l_kernel", (), buffer=True, dtype="int64")]
    return Module(name, KERNELS[kernel], tuple(params))
