"""The Linear Recurrent Unit (Orvieto et al. 2023, "Resurrecting Recurrent Neural Networks for Long
Sequences"), as its authors' minimal Flax code declares it.

Written from NicolasZucchet/minimal-LRU bbd71b1 (by a co-author of the paper; no package on PyPI;
cited by file and line): ``lru/model.py`` 38-95 (``LRU``) and 98-132 (``SequenceLayer``), which
follow the paper's Appendix A. N = ``d_hidden`` (complex state), H = ``d_model``. Tensors (Flax
``params``): ``theta_log``, ``nu_log``, ``gamma_log`` (N), ``B_re``, ``B_im`` (N, H), ``C_re``,
``C_im`` (H, N), ``D`` (H): 4NH + 3N + H real scalars. ``complex_params=True`` declares B and C as
complex tensors ``B`` (N, H), ``C`` (H, N): 2NH + 3N + H entries.

>>> lru(128, 256).count          # minimal-LRU's defaults: d_hidden 128, d_model 256
131712
>>> from derive.tree import count
>>> count(lru(128, 256, complex_params=True)), count(lru(128, 256, complex_params=True), real=True)
(66176, 131712)
"""

from __future__ import annotations

from ..engine.constructors import Constructor, register
from ..layers.linear import linear
from ..tree import Dim, Module, Param
from ._ssm_common import FLAX, formula, size

__all__ = ["lru", "lru_layer", "EQUATIONS", "SOURCE"]

#: Where the tensors and conventions are read from (repository, commit, file), shown on the site.
SOURCE = "NicolasZucchet/minimal-LRU bbd71b1: lru/model.py"

#: The LRU's update (paper eqs. (5)-(7), Appendix A; ``lru/model.py`` 82-95).
EQUATIONS = (
    r"\lambda = \exp(-\exp(\nu^{\log}) + i \exp(\theta^{\log})), \quad |\lambda| < 1",
    r"\gamma = \exp(\gamma^{\log}), \quad B = B_{re} + i B_{im}, \quad C = C_{re} + i C_{im}",
    r"x_k = \lambda \odot x_{k-1} + \gamma \odot (B u_k), \quad x_k \in \mathbb{C}^{N}",
    r"y_k = \mathrm{Re}(C x_k) + D \odot u_k",
)


def lru(
    d_hidden: Dim,
    d_model: Dim,
    r_min: float = 0.0,
    r_max: float = 1.0,
    max_phase: float = 6.28,
    *,
    name: str = "",
    complex_params: bool = False,
) -> Module:
    """The LRU, ``LRU(d_hidden, d_model, r_min=0.0, r_max=1.0, max_phase=6.28)`` (model.py 38-80).

    Parameters
    ----------
    d_hidden : int or sympy.Expr
        N, the complex state's size.
    d_model : int or sympy.Expr
        H, features in and out.
    r_min, r_max, max_phase : float
        Initialisation of the eigenvalues' modulus and phase only.
    name : str
    complex_params : bool, default False
        B and C as one complex tensor each (``B`` (N, H), ``C`` (H, N)) instead of the real and
        imaginary parts the reference keeps apart.

    Returns
    -------
    derive.tree.Module
        4NH + 3N + H real scalars.
    """
    n, h = size(d_hidden, "d_hidden"), size(d_model, "d_model")
    params = [Param("theta_log", (n,)), Param("nu_log", (n,)), Param("gamma_log", (n,))]
    if complex_params:
        params += [Param(x, s, dtype="complex64", complex=True) for x, s in (("B", (n, h)), ("C", (h, n)))]
    else:
        params += [Param("B_re", (n, h)), Param("B_im", (n, h)), Param("C_re", (h, n)), Param("C_im", (h, n))]
    params.append(Param("D", (h,)))
    return Module(
        name,
        "LRU",
        tuple(params),
        sep="/",
        config={"d_hidden": d_hidden, "d_model": d_model},
        formula=formula(
            lru, {"d_hidden": ("N", d_hidden), "d_model": ("H", d_model)}, {"complex_params": complex_params}
        ),
    )


def lru_layer(
    d_hidden: Dim,
    d_model: Dim,
    norm: str = "layer",
    prenorm: bool = False,
    *,
    complex_params: bool = False,
) -> Module:
    """One LRU layer, ``SequenceLayer`` (model.py 98-132): ``seq`` (the :func:`lru`), the GLU's
    ``out1``, ``out2`` Dense (H, H), and ``normalization`` (LayerNorm ``scale``, ``bias``; any
    other ``norm`` a BatchNorm, whose ``batch_stats`` ``mean``, ``var`` are not parameters).

    Parameters
    ----------
    d_hidden, d_model : int or sympy.Expr
    norm : str, default "layer"
        ``"layer"``, else BatchNorm (``run_train.py``'s default is ``"batch"``).
    prenorm : bool
        Order only.
    complex_params : bool

    Returns
    -------
    derive.tree.Module
        4NH + 3N + 2H^2 + 5H real scalars.

    Examples
    --------
    >>> lru_layer(128, 256, "batch").count
    263808
    """
    n, h = size(d_hidden, "d_hidden"), size(d_model, "d_model")
    children = [lru(n, h, name="seq", complex_params=complex_params)]
    children += [linear(h, h, name=dense, spelling=FLAX, type="Dense") for dense in ("out1", "out2")]
    affine = (Param("scale", (h,)), Param("bias", (h,)))
    if norm == "layer":
        children.append(Module("normalization", "LayerNorm", affine, sep="/"))
    else:
        stats = (Param("mean", (h,), buffer=True), Param("var", (h,), buffer=True))
        children.append(Module("normalization", "BatchNorm", affine + stats, sep="/"))
    options = {"norm": norm, "complex_params": complex_params}
    return Module(
        "",
        "SequenceLayer",
        children=tuple(children),
        sep="/",
        config={"d_hidden": d_hidden, "d_model": d_model, "norm": norm},
        formula=formula(lru_layer, {"d_hidden": ("N", d_hidden), "d_model": ("H", d_model)}, options),
    )


def _make_lru(d_hidden: Dim, d_model: Dim, r_min: float = 0.0, r_max: float = 1.0, max_phase: float = 6.28) -> Module:
    return lru(d_hidden, d_model, r_min, r_max, max_phase)


register(
    Constructor(
        "lru",
        "LRU",
        _make_lru,
        prefixes=("", "model.", "lru.model."),
        letters={"d_hidden": "N", "d_model": "H"},
        module_types=("lru.model",),
        source="NicolasZucchet/minimal-LRU lru/model.py 38-95",
    )
)
