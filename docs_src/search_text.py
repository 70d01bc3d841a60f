"""The math of the search index as text a reader can read (used by ``hook.py``).

Material's search shows an excerpt of the page's text; the math in it is the LaTeX source that
KaTeX typesets in the page (``\\(2H\\)``, ``\\(\\lceil d_{model}/16 \\rceil\\)``). :func:`plain_math`
writes each formula of a text as plain characters (``2H``, ``⌈d_model/16⌉``): symbols as their
Unicode characters, ``\\frac{a}{b}`` as ``a/b``, font and size commands dropped, their argument
kept. :func:`rewrite_index` applies it to the titles and texts of a built ``search_index.json``.

Material's search parser keeps no table markup: a table's cells ran together in the index
(``561,152 frameworks.count(…proj_size=128)``, a count beside the next row's call).
:func:`keep_cell_boundaries` makes the parser mark where each cell and row ends, and
:func:`rewrite_index` writes the marks as `` | `` between cells and `` · `` between rows.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

__all__ = ["plain_math", "rewrite_index", "keep_cell_boundaries", "cell_boundaries"]

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


#: What the search parser appends where a table's cell (``CELL``) and row (``ROW``) end: characters of
#: Unicode's private use area, which no page holds, written out by :func:`cell_boundaries`.
CELL, ROW = "\ue000", "\ue001"
_MARKS = re.compile(rf"\s*([{CELL}{ROW}](?:\s*[{CELL}{ROW}])*)\s*")


def cell_boundaries(text: str) -> str:
    """``text`` with the parser's marks (:data:`CELL`, :data:`ROW`) written as `` | `` between the cells of
    a row and `` · `` between rows (nothing at the end of the text).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> cell_boundaries("call\ue000parameters\ue000\ue001 nn.LSTM(32, 128)\ue000 561,152\ue000\ue001 after")
    'call | parameters · nn.LSTM(32, 128) | 561,152 · after'
    """

    def mark(m: re.Match) -> str:
        if m.end() == len(text):
            return ""
        return " · " if ROW in m.group(1) else " | "

    return _MARKS.sub(mark, text)


def keep_cell_boundaries() -> None:
    """Make Material's search parser (``material.plugins.search.plugin.Parser``) mark the end of each table
    cell and row in the text it indexes (:data:`CELL`, :data:`ROW`), outside headings and excluded blocks;
    :func:`rewrite_index` writes the marks out. Idempotent.

    Raises
    ------
    ImportError
        Material's search plugin is not installed.
    """
    from material.plugins.search import plugin

    if getattr(plugin.Parser, "marks_cells", False):
        return
    base = plugin.Parser

    class CellParser(base):  # type: ignore[misc, valid-type]
        marks_cells = True

        def handle_endtag(self, tag: str) -> None:
            closing = tag in ("td", "th", "tr") and bool(self.context) and self.context[-1] == tag
            super().handle_endtag(tag)
            section = self.section
            if closing and section is not None and not self.skip.intersection(self.context):
                if section.el not in self.context:
                    section.text.append(ROW if tag == "tr" else CELL)

    plugin.Parser = CellParser


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
        doc["title"], doc["text"] = plain_math(before[0]), plain_math(cell_boundaries(before[1]))
        changed += (doc["title"], doc["text"]) != before
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return changed
