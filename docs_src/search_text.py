"""The math of the search index as text a reader can read (used by ``hook.py``).

Material's search shows an excerpt of the page's text; the math in it is the LaTeX source that
KaTeX typesets in the page (``\\(2H\\)``, ``\\(\\lceil d_{model}/16 \\rceil\\)``). :func:`plain_math`
writes each formula of a text as plain characters (``2H``, ``⌈d_model/16⌉``): symbols as their
Unicode characters, ``\\frac{a}{b}`` as ``a/b``, font and size commands dropped, their argument
kept. :func:`rewrite_index` applies it to the titles and texts of a built ``search_index.json``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

__all__ = ["plain_math", "rewrite_index"]

#: Commands written as one character.
SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η",
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ",
    "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "ell": "ℓ", "imath": "ı",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "odot": "⊙", "cdot": "·", "times": "×", "circ": "∘", "star": "⋆", "otimes": "⊗", "oplus": "⊕",
    "ge": "≥", "geq": "≥", "le": "≤", "leq": "≤", "ne": "≠", "neq": "≠", "approx": "≈", "equiv": "≡",
    "in": "∈", "mid": "|", "top": "⊤", "infty": "∞", "sum": "Σ", "prod": "Π", "partial": "∂",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "langle": "⟨", "rangle": "⟩",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦",
    "dots": "…", "ldots": "…", "cdots": "…", "sqrt": "√", "lbrace": "{", "rbrace": "}", "backslash": "\\",
}  # fmt: skip
#: Commands dropped, with their argument kept (fonts, accents, boxes) or with nothing to keep.
DROPPED = frozenset({
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
    "middle", "displaystyle", "textstyle", "limits", "text", "mathrm", "operatorname", "texttt", "mathbf",
    "mathit", "mathsf", "mathbb", "mathcal", "boldsymbol", "boxed", "bar", "hat", "tilde", "widehat",
    "widetilde", "vec", "dot", "ddot", "overline", "underline", "overleftarrow", "overrightarrow", "hline",
    "quad", "qquad", "arraystretch",
})  # fmt: skip
MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.DOTALL)
ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[^{}]*\}(?:\{[^{}]*\})?")
DEFINITION = re.compile(r"\\def\\[A-Za-z]+\{[^{}]*\}")
FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
SIMPLE = re.compile(r"^[\w.^]*$")
INDEX = re.compile(r"([_^])\{([^{}]*)\}")
GROUP = re.compile(r"(?<![_^}])(?<!frac)\{([^{}]*)\}")  # a bare group: not an argument of \frac, _ or ^
COMMAND = re.compile(r"\\([A-Za-z]+)|\\([,;:!> ])|\\(\\)|\\([_{}%$#&|])")


def _part(text: str) -> str:
    return text if SIMPLE.match(text) else f"({text})"


def _command(match: re.Match) -> str:
    name, space, newline, escaped = match.groups()
    if name is not None:
        if name in SYMBOLS:
            return SYMBOLS[name]
        return " " if name in ("quad", "qquad", "hline") else ("" if name in DROPPED else name)
    if escaped is not None:
        return escaped
    return " " if (space or newline) else ""


def _formula(source: str) -> str:
    """One formula's plain text; ``source`` and the result are HTML (``&lt;`` for ``<``)."""
    tex = html.unescape(source)
    tex = DEFINITION.sub("", ENVIRONMENT.sub(" ", tex))
    tex = COMMAND.sub(lambda m: m.group(0) if m.group(1) and "frac" in m.group(1) else _command(m), tex)
    while True:
        done = FRACTION.sub(lambda m: f"{_part(m.group(1).strip())}/{_part(m.group(2).strip())}", tex)
        done = INDEX.sub(lambda m: m.group(1) + _part(m.group(2)), done)
        done = GROUP.sub(lambda m: m.group(1), done)
        if done == tex:
            break
        tex = done
    tex = tex.replace("{", "").replace("}", "").replace("&", " ")
    return html.escape(" ".join(tex.split()), quote=False)


def plain_math(text: str) -> str:
    """``text`` with each ``\\( … \\)`` and ``\\[ … \\]`` formula written as plain characters.

    Parameters
    ----------
    text : str
        Text of a page, as Material's search index holds it.

    Returns
    -------
    str

    Examples
    --------
    >>> plain_math(r"reads \\(2H\\) features, \\(\\lceil d_{model}/16 \\rceil\\) ranks")
    'reads 2H features, ⌈ d_model/16 ⌉ ranks'
    >>> plain_math(r"\\(\\frac{D^{2}}{2}\\) and \\(W_{\\mathrm{in}}\\, u_t\\)")
    'D^2/2 and W_in u_t'
    """
    return MATH.sub(lambda m: _formula(m.group(1) if m.group(1) is not None else m.group(2)), text)


def rewrite_index(path: Path) -> int:
    """Rewrite the math of a built ``search_index.json`` in place (see :func:`plain_math`).

    Parameters
    ----------
    path : pathlib.Path
        ``<site>/search/search_index.json``, as Material's search plugin writes it.

    Returns
    -------
    int
        The number of entries whose title or text changed.

    Raises
    ------
    ValueError
        The file is not a search index (no ``docs`` list).
    """
    index = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(index, dict) or not isinstance(index.get("docs"), list):
        raise ValueError(f"{path} is not a search index: no 'docs' list")
    changed = 0
    for doc in index["docs"]:
        before = (doc.get("title", ""), doc.get("text", ""))
        doc["title"], doc["text"] = plain_math(before[0]), plain_math(before[1])
        changed += (doc["title"], doc["text"]) != before
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return changed
