"""API reference: one page per public module, rendered by mkdocstrings from its docstrings.

Each page is the tiny template ``templates/api.md.j2`` around a mkdocstrings
identifier (``::: derive.torch``); the reference itself is read from the
module's NumPy-style docstrings by mkdocstrings-python (griffe, static
analysis) on every build. To document a new public module, add its name to
:data:`API_MODULES`; ``tests/test_api_reference.py`` fails when a public module
of ``derive`` is neither listed there nor in :data:`NOT_DOCUMENTED`.
"""
from __future__ import annotations

from ..site import Page

__all__ = ["API_MODULES", "NOT_DOCUMENTED", "api_path"]

#: The documented modules, in navigation order.
API_MODULES = (
    "derive",
    "derive.torch",
    "derive.keras",
    "derive.frameworks",
    "derive.cells",
    "derive.conventions",
    "derive.wirings",
    "derive.stack",
    "derive.symbols",
    "derive.cost",
    "derive.solving",
    "derive.vectorize",
    "derive.readout",
    "derive.difference",
    "derive.diagram",
    "derive.latex",
    "derive.display",
    "derive.calculator",
    "derive.cli",
    "derive.validate",
    "derive.site",
)

#: Public modules deliberately left out of the API reference, with the reason.
NOT_DOCUMENTED = {
    "derive.mkdocs_hook": "the MkDocs build hook, not an API (the README describes it)",
    "derive.pages": "the site's page modules, not an API (derive.site describes the registry)",
}


def api_path(module: str) -> str:
    """Docs-relative Markdown path of a module's page: ``api/torch.md`` for ``derive.torch``.

    Parameters
    ----------
    module : str
        Dotted module name, as mkdocstrings takes it.
    """
    return "api/" + ("index" if module == "derive" else module.removeprefix("derive.").replace(".", "/")) + ".md"


ORDER = 90
PAGES = [
    Page(api_path(m), m, "api.md.j2", (lambda m=m: {"module": m}), (), "API reference")
    for m in API_MODULES
]
