"""The Mamba (S6) and Mamba-2 (SSD) pages: the mixer's update, its tensors in mamba_ssm's and
transformers' names, the closed form, the released models' totals and the questions users ask.

Every number is computed when the site is built, by :mod:`derive.blocks.mamba`,
:mod:`derive.blocks.mamba2` and :func:`derive.explain` on the configs below;
``tests/blocks/test_mamba_site.py`` builds each one in transformers (meta device) and in mamba_ssm
(``.venv-ssm``) and compares.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

import derive
from derive.blocks import mamba, mamba2
from derive.render.latex import names_latex, shape_latex
from derive.tree import count, named_parameters

from ..site import Page, number
from .worked import worked

__all__ = [
    "MAMBA_RELEASES",
    "MAMBA2_RELEASES",
    "QUESTIONS",
    "README",
    "release_config",
    "mamba_context",
    "mamba2_context",
]

#: The table of released sizes (``d_model``, ``n_layer``) in state-spaces/mamba's README.
README = (
    "https://github.com/state-spaces/mamba/blob/03a38fb27e969750074e3cabc451f5f85fea2b17/README.md#pretrained-models"
)

#: name -> (d_model, n_layer): the README's table; each state-spaces/<name>/config.json on the
#: Hugging Face Hub adds vocab_size 50277, pad_vocab_size_multiple 8 (mamba) or 16 with
#: ssm_cfg {"layer": "Mamba2"} (mamba2), and ties the embeddings.
MAMBA_RELEASES = {"mamba-130m": (768, 24), "mamba-370m": (1024, 48), "mamba-790m": (1536, 48),
                  "mamba-1.4b": (2048, 48), "mamba-2.8b": (2560, 64)}  # fmt: skip
MAMBA2_RELEASES = {"mamba2-130m": (768, 24), "mamba2-370m": (1024, 48), "mamba2-780m": (1536, 48),
                   "mamba2-1.3b": (2048, 48), "mamba2-2.7b": (2560, 64)}  # fmt: skip


def release_config(name: str) -> dict[str, Any]:
    """The config.json of ``state-spaces/<name>`` (mamba_ssm's format), as the Hub serves it.

    Parameters
    ----------
    name : str
        A key of :data:`MAMBA_RELEASES` or :data:`MAMBA2_RELEASES`.

    Returns
    -------
    dict
    """
    if name in MAMBA_RELEASES:
        d_model, n_layer = MAMBA_RELEASES[name]
        return {"d_model": d_model, "n_layer": n_layer, "vocab_size": 50277, "ssm_cfg": {}, "rms_norm": True,
                "residual_in_fp32": True, "fused_add_norm": True, "pad_vocab_size_multiple": 8}  # fmt: skip
    d_model, n_layer = MAMBA2_RELEASES[name]
    return {"d_model": d_model, "d_intermediate": 0, "n_layer": n_layer, "vocab_size": 50277,
            "ssm_cfg": {"layer": "Mamba2"}, "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": True,
            "residual_in_fp32": True, "fused_add_norm": True, "pad_vocab_size_multiple": 16,
            "tie_embeddings": True}  # fmt: skip


def hf_config(name: str) -> dict[str, Any]:
    """The transformers config of ``state-spaces/<name>-hf`` (the keys that shape it).

    Parameters
    ----------
    name : str
        A key of :data:`MAMBA_RELEASES`.

    Returns
    -------
    dict
    """
    d_model, n_layer = MAMBA_RELEASES[name]
    return {"model_type": "mamba", "vocab_size": 50280, "hidden_size": d_model, "num_hidden_layers": n_layer}


#: The questions, each with the call that answers it (``kind``: a block or a config).
QUESTIONS = {
    "817": {"Mamba": {"d_model": 18, "d_state": 16, "d_conv": 4, "expand": 2}},
    "697": {"Mamba": {"d_model": 1600}},
    "48-asked": {"config": {"d_model": 2560, "n_layer": 32, "vocab_size": 50432, "rms_norm": False}},
    "48-now": {"config": {"d_model": 2560, "n_layer": 32, "vocab_size": 50432}},
}

_D, _E, _N, _K, _R = sympy.symbols("D E N K R", integer=True, positive=True)
_G, _P, _S, _V, _L = sympy.symbols("G P S V L", integer=True, positive=True)
#: Mamba-2's heads: n_h on the page (H is the hidden size on every other page).
_H = sympy.Symbol("n_h", integer=True, positive=True)
#: A standalone H in the LaTeX of derive.blocks.mamba2.EQUATIONS (the heads).
_HEADS = re.compile(r"(?<![\\A-Za-z])H(?![A-Za-z])")
_e = sympy.Symbol("e", integer=True, positive=True)


def _tensor_rows(ours: Any, theirs: Any, prefix: str) -> list[dict]:
    """One row per tensor: mamba_ssm's name, transformers' name, LaTeX shape and size."""
    hf = {name for name, _ in named_parameters(theirs)}
    rows = []
    for name, p in named_parameters(ours):
        assert name in hf, name
        shape = tuple(sympy.expand(d.subs(_e, _E / _D)) if isinstance(d, sympy.Basic) else d for d in p.shape)
        rows.append(
            {
                "name": name,
                "hf": prefix + name,
                "shape": shape_latex(shape),
                "numel": sympy.latex(sympy.factor(sympy.Mul(*shape))),
            }
        )
    return rows


def _question(key: str) -> dict:
    ((kind, arguments),) = QUESTIONS[key].items()
    if kind == "config":
        report = derive.explain(arguments)
        return {"arguments": arguments, "total": number(report.total), "rows": _rows(report)}
    block = mamba.Mamba(**arguments)
    call = f"Mamba({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"
    return {
        "call": call,
        "total": number(block.count),
        "parts": [(n, number(p.numel)) for n, p in named_parameters(block)],
    }


def _rows(report: Any) -> list[dict]:
    return [{"name": r.name, "type": r.type, "params": number(r.params), "note": r.note} for r in report.rows]


def _releases(names: dict, hf: bool) -> list[dict]:
    out = []
    for name, (d_model, n_layer) in names.items():
        report = derive.explain(release_config(name))
        row = {"name": name, "d_model": d_model, "n_layer": n_layer, "total": number(report.total)}
        row["vocab"] = number(report.module.child("backbone").child("embedding").params[0].shape[0])
        if hf:
            row["hf_total"] = number(derive.explain(hf_config(name)).total)
        out.append(row)
    return out


def _page_letters(expr: Any) -> Any:
    """A constructor's closed form in the page's letters: ``d_model`` is :math:`D` on these pages (the
    blocks' own formulas write it ``d``), so that one letter has one meaning on each page."""
    return expr.subs({s: _D for s in expr.free_symbols if s.name == "d"})


def _by_layers(expr: Any, layers: str) -> Any:
    """``L·(one layer) + (the rest)``: the closed form grouped by the number of layers."""
    symbol = sympy.Symbol(layers, integer=True, positive=True)
    per_layer = sympy.expand(expr).coeff(symbol)
    rest = sympy.expand(expr - symbol * per_layer)
    return symbol * sympy.factor_terms(per_layer) + sympy.factor_terms(rest)


def mamba_context() -> dict:
    """The Mamba page's data.

    Returns
    -------
    dict
    """
    ours = mamba.mixer(_D, _N, _K, d_inner=_E, dt_rank=_R)
    theirs = mamba.mixer(_D, _N, _K, d_inner=_E, dt_rank=_R, spelling="transformers")
    block = sympy.expand(count(ours))
    both = sympy.expand(count(mamba.mixer(_D, _N, _K, d_inner=_E, dt_rank=_R, bias=True)))
    model = derive.explain(hf_config("mamba-130m"))
    return {
        "equations": mamba.EQUATIONS,
        "worked": worked("blocks/mamba.md"),
        "tensors": _tensor_rows(ours, theirs, "backbone.layers.{k}.mixer."),
        "block": sympy.latex(sympy.collect(block, _E)),
        "bias_extra": sympy.latex(sympy.expand(both - block)),
        "constructor": names_latex(_page_letters(mamba.Mamba(18).formula.expr)),
        "model": names_latex(_by_layers(model.module.formula.expr, "num_hidden_layers")),
        "model_rows": _rows(model),
        "releases": _releases(MAMBA_RELEASES, hf=True),
        "readme": README,
        "q817": _question("817"),
        "q697": _question("697"),
        "q697_blocks": [(n, number(n * 16_176_000)) for n in (20, 62)],
        "q48_asked": _question("48-asked"),
        "q48_now": _question("48-now"),
        "q48_small": number(derive.explain(release_config("mamba-130m")).total),
        "q48_big": number(derive.explain(release_config("mamba-2.8b")).total),
        "q442": _rows(derive.explain({**hf_config("mamba-130m"), "intermediate_size": 1536, "time_step_rank": 48})),
    }


def mamba2_context() -> dict:
    """The Mamba-2 page's data.

    Returns
    -------
    dict
    """
    ours = mamba2.mixer(_D, _N, _K, _e, _P, d_ssm=_S, ngroups=_G, nheads=_H)
    theirs = mamba2.mixer(_D, _N, _K, _e, _P, d_ssm=_S, ngroups=_G, nheads=_H, spelling="transformers")
    block = sympy.expand(count(ours).subs(_e, _E / _D))
    hf = mamba2.mixer(_D, _N, _K, _e, _P, ngroups=_G, nheads=_H, spelling="transformers")
    hf_block = sympy.expand(count(hf).subs(_e, _E / _D))
    default = derive.explain({"model_type": "mamba2"})
    small = derive.explain(release_config("mamba2-130m"))
    return {
        "equations": [(label, _HEADS.sub("n_h", eq)) for label, eq in mamba2.EQUATIONS],
        "worked": worked("blocks/mamba2.md"),
        "tensors": _tensor_rows(ours, theirs, "backbone.layers.{k}.mixer."),
        "block": sympy.latex(sympy.collect(block, [_S, _H])),
        "hf_block": sympy.latex(sympy.collect(hf_block, _E)),
        "constructor": names_latex(_page_letters(mamba2.Mamba2(256).formula.expr)),
        "releases": _releases(MAMBA2_RELEASES, hf=False),
        "readme": README,
        "small_rows": _rows(small),
        "small_formula": names_latex(_by_layers(small.module.formula.expr, "n_layer")),
        "default_total": number(default.total),
        "default_rows": _rows(default),
        "q752": _refusal({**release_config("mamba2-130m"), "model_type": "mamba2"}),
    }


def _refusal(config: dict) -> str:
    try:
        derive.explain(config)
    except ValueError as error:
        return str(error)
    raise AssertionError("expected a refusal")  # pragma: no cover


ORDER = 15
PAGES = [
    Page("blocks/mamba.md", "Mamba (S6)", "block-mamba.md.j2", mamba_context, (), "Blocks"),
    Page("blocks/mamba2.md", "Mamba-2 (SSD)", "block-mamba2.md.j2", mamba2_context, (), "Blocks"),
]
