"""S5 (lindermanlab/S5): one multi-input multi-output diagonal SSM per layer, in Flax.

Written from the reference code at lindermanlab/S5 3c18fdb (no package on PyPI; cited by file
and line): ``s5/ssm.py`` 91-227 (``S5SSM``), ``s5/layers.py`` 5-53 (``SequenceLayer``) and the
sizes ``s5/train.py`` 29-106 gives them. Under conjugate symmetry (``conj_sym``, the default)
the SSM keeps P = ssm_size/2 eigenvalues. Its tensors (Flax ``params``, paths joined by ``/``):
``Lambda_re``, ``Lambda_im`` (P), ``B`` (P, H, 2), ``C`` (H, P, 2), ``D`` (H), ``log_step`` (P, 1):
4PH + 3P + H real scalars. ``complex_params=True`` declares Lambda, B and C as complex tensors
(as the PyTorch port s5-pytorch keeps ``Lambda``): 2PH + 2P + H complex-or-real entries.

>>> s5_ssm(128, 128).count                          # H = 128, P = 256 / 2
66048
>>> from derive.tree import count
>>> count(s5_ssm(128, 128, complex_params=True)), count(s5_ssm(128, 128, complex_params=True), real=True)
(33152, 66048)
"""

from __future__ import annotations

from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from ._ssm_common import FLAX, complex_param, flag, formula, half, size

__all__ = ["s5_ssm", "s5_layer", "state_size", "EQUATIONS", "SOURCE"]

#: Where the tensors and conventions are read from (repository, commit, files), shown on the site.
SOURCE = "lindermanlab/S5 3c18fdb: s5/ssm.py, s5/layers.py, s5/train.py"

#: S5's update (Smith et al. 2023, "Simplified State Space Layers for Sequence Modeling";
#: ``s5/ssm.py`` 152-247): one P-dimensional diagonal SSM mixing all H features.
EQUATIONS = (
    r"\Lambda = \texttt{Lambda\_re} + i\,\texttt{Lambda\_im}, \quad \Delta = \exp(\texttt{log\_step})",
    r"\bar\Lambda = e^{\Lambda\Delta}, \quad \bar B = \Lambda^{-1}(\bar\Lambda - I)\,\tilde B \quad \text{(ZOH)}",
    r"x_k = \bar\Lambda \odot x_{k-1} + \bar B u_k, \quad x_k \in \mathbb{C}^{P}",
    r"y_k = 2\,\mathrm{Re}(\tilde C x_k) + D \odot u_k \quad (\text{conj\_sym; } \mathrm{Re}(\tilde C x_k) \text{ otherwise})",
)

_C_INITS = ("trunc_standard_normal", "lecun_normal", "complex_normal")
_ACTIVATIONS = {"full_glu": ("out1", "out2"), "half_glu1": ("out2",), "half_glu2": ("out2",), "gelu": ()}


def s5_ssm(
    H: Dim,
    P: Dim,
    C_init: str = "trunc_standard_normal",
    discretization: str = "zoh",
    dt_min: float = 0.001,
    dt_max: float = 0.1,
    conj_sym: bool = True,
    clip_eigs: bool = False,
    bidirectional: bool = False,
    step_rescale: float = 1.0,
    *,
    name: str = "",
    complex_params: bool = False,
) -> Module:
    """The S5 SSM, ``S5SSM(H, P, C_init, discretization, dt_min, dt_max, conj_sym, ...)`` (ssm.py 91-227).

    ``P`` is the field of ``S5SSM``: the eigenvalues kept, already halved under ``conj_sym``
    (``train.py`` 78-80; :func:`state_size` computes it from ``ssm_size_base`` and ``blocks``).
    A bidirectional SSM has two output matrices: ``C1``, ``C2`` (H, P, 2) for the real inits,
    one ``C`` (H, 2P, 2) for ``complex_normal`` (ssm.py 183-210).

    Parameters
    ----------
    H : int or sympy.Expr
        Features of the input (``d_model``).
    P : int or sympy.Expr
        State size of the SSM.
    C_init : str, default "trunc_standard_normal"
        ``"trunc_standard_normal"``, ``"lecun_normal"`` or ``"complex_normal"``.
    discretization : str, default "zoh"
        ``"zoh"`` or ``"bilinear"``.
    dt_min, dt_max, clip_eigs, step_rescale, conj_sym
        No effect on the tensors (``conj_sym`` acts through ``P``).
    bidirectional : bool, default False
    name : str
    complex_params : bool, default False
        Lambda, B and C as complex tensors: ``Lambda`` (P), ``B`` (P, H), ``C`` (H, P).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        An unknown ``C_init`` or ``discretization`` (NotImplementedError in ssm.py 180, 227).
    """
    if C_init not in _C_INITS:
        raise ValueError(f"C_init method {C_init} not implemented (s5/ssm.py 180; known: {', '.join(_C_INITS)})")
    if discretization not in ("zoh", "bilinear"):
        raise ValueError(f"Discretization method {discretization} not implemented (s5/ssm.py 227)")
    h, p = size(H, "H"), size(P, "P")
    if complex_params:
        params = [Param("Lambda", (p,), dtype="complex64", complex=True)]
    else:
        params = [Param("Lambda_re", (p,)), Param("Lambda_im", (p,))]
    params.append(complex_param("B", (p, h), complex_params))
    if not flag(bidirectional, "bidirectional"):
        params.append(complex_param("C", (h, p), complex_params))
    elif C_init == "complex_normal":
        params.append(complex_param("C", (h, 2 * p), complex_params))
    else:
        params += [complex_param("C1", (h, p), complex_params), complex_param("C2", (h, p), complex_params)]
    params += [Param("D", (h,)), Param("log_step", (p, 1))]
    options = {"C_init": C_init, "bidirectional": bidirectional, "complex_params": complex_params}
    return Module(
        name,
        "S5SSM",
        tuple(params),
        sep="/",
        config={"H": H, "P": P, "C_init": C_init, "discretization": discretization, "bidirectional": bidirectional},
        formula=formula(s5_ssm, {"H": ("H", H), "P": ("P", P)}, options),
    )


def state_size(ssm_size_base: Dim, blocks: Dim = 1, conj_sym: bool = True) -> Dim:
    """The ``P`` of ``S5SSM`` that ``s5/train.py`` (29-106) makes from ``--ssm_size_base`` and ``--blocks``.

    ``block_size = int(ssm_size / blocks)``, halved (floor) under ``conj_sym``, and the SSM's
    eigenvalues are ``blocks`` copies of it, while ``P = ssm_size // 2``; the two agree (and the
    SSM can be built) only when ``blocks`` divides ``ssm_size`` into even blocks.

    Parameters
    ----------
    ssm_size_base : int or sympy.Expr
    blocks : int or sympy.Expr, default 1
    conj_sym : bool, default True

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        ``blocks`` does not divide ``ssm_size_base``, or a block is odd under ``conj_sym``
        (the eigenvalues would not match P: ``init_VinvB`` fails on the shapes).

    Examples
    --------
    >>> state_size(256, 8)
    128
    """
    n, b = size(ssm_size_base, "ssm_size_base"), size(blocks, "blocks")
    if type(n) is int and type(b) is int:
        if n % b or (conj_sym and (n // b) % 2):
            raise ValueError(
                f"ssm_size_base {n} must split into {b} blocks of equal{' even' if conj_sym else ''} size "
                "(s5/train.py 33, 78-90: the eigenvalues then number P)"
            )
    return half(n) if conj_sym else n


def s5_layer(
    d_model: Dim,
    ssm_size: Dim,
    blocks: Dim = 1,
    activation: str = "gelu",
    prenorm: bool = False,
    batchnorm: bool = False,
    conj_sym: bool = True,
    C_init: str = "trunc_standard_normal",
    discretization: str = "zoh",
    bidirectional: bool = False,
    *,
    complex_params: bool = False,
) -> Module:
    """One S5 layer, ``SequenceLayer`` (layers.py 5-53) around an :func:`s5_ssm`: ``seq``, the GLU's
    ``out1``/``out2`` Dense (H, H) for ``full_glu`` (both), ``half_glu1``/``half_glu2`` (out2 only),
    and ``norm`` (LayerNorm ``scale``, ``bias``; BatchNorm adds ``batch_stats`` ``mean``, ``var``,
    not parameters).

    Parameters
    ----------
    d_model : int or sympy.Expr
        H.
    ssm_size : int or sympy.Expr
        ``ssm_size_base`` of ``train.py``: P = ssm_size / 2 under ``conj_sym``.
    blocks : int or sympy.Expr, default 1
    activation : str, default "gelu"
        ``SequenceLayer``'s default; ``train.py``'s is ``"half_glu1"``.
    prenorm, batchnorm, conj_sym, C_init, discretization, bidirectional
        As ``SequenceLayer`` / ``S5SSM`` take them.
    complex_params : bool

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        An unknown activation (NotImplementedError at the first call, layers.py 84), or sizes
        :func:`state_size` refuses.

    Examples
    --------
    >>> s5_layer(128, 256, 8, "half_glu1").count       # train.py's defaults: one layer
    82816
    """
    if activation not in _ACTIVATIONS:
        raise ValueError(f"Activation: {activation} not implemented (s5/layers.py 84)")
    h = size(d_model, "d_model")
    p = state_size(ssm_size, blocks, flag(conj_sym, "conj_sym"))
    children = [
        s5_ssm(h, p, C_init, discretization, bidirectional=bidirectional, name="seq", complex_params=complex_params)
    ]
    children += [linear(h, h, name=dense, spelling=FLAX, type="Dense") for dense in _ACTIVATIONS[activation]]
    if flag(batchnorm, "batchnorm"):
        stats = (Param("mean", (h,), buffer=True), Param("var", (h,), buffer=True))
        children.append(Module("norm", "BatchNorm", (Param("scale", (h,)), Param("bias", (h,)), *stats), sep="/"))
    else:
        children.append(Module("norm", "LayerNorm", (Param("scale", (h,)), Param("bias", (h,))), sep="/"))
    options = {"activation": activation, "batchnorm": batchnorm, "conj_sym": conj_sym, "C_init": C_init}
    options |= {"bidirectional": bidirectional, "complex_params": complex_params}
    return Module(
        "",
        "SequenceLayer",
        children=tuple(children),
        sep="/",
        config={"d_model": d_model, "ssm_size": ssm_size, "blocks": blocks, **options},
        formula=formula(s5_layer, {"d_model": ("H", d_model), "ssm_size": ("N", ssm_size)}, options),
    )


def _make_ssm(
    Lambda_re_init: Any,
    Lambda_im_init: Any,
    V: Any,
    Vinv: Any,
    H: Dim,
    P: Dim,
    C_init: str,
    discretization: str,
    dt_min: float,
    dt_max: float,
    conj_sym: bool = True,
    clip_eigs: bool = False,
    bidirectional: bool = False,
    step_rescale: float = 1.0,
) -> Module:
    """``S5SSM``'s fields in their order (ssm.py 92-106); the initial arrays change no shape."""
    return s5_ssm(H, P, C_init, discretization, dt_min, dt_max, conj_sym, clip_eigs, bidirectional, step_rescale)


register(
    Constructor(
        "s5",
        "S5SSM",
        _make_ssm,
        prefixes=("", "ssm."),
        letters={"H": "H", "P": "P"},
        module_types=("s5.ssm",),
        source="lindermanlab/S5 s5/ssm.py 91-227",
    )
)
