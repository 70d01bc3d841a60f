"""API reference: one page per public module, rendered by mkdocstrings from its docstrings.

Each page is the tiny template ``templates/api.md.j2`` around a mkdocstrings
identifier (``::: derive.frameworks.pytorch``); the reference itself is read from the
module's NumPy-style docstrings by mkdocstrings-python (griffe, static
analysis) on every build. Every public module of ``derive`` is found by walking the package.
"""

from __future__ import annotations

from ..site import Page

__all__ = ["API_MODULES", "NOT_DOCUMENTED", "api_path"]

#: Modules shown first, in this order; every other public module of ``derive`` follows,
#: alphabetically (found by walking the package, so a new module needs no edit here).
FIRST = (
    "derive",
    "derive.frameworks.pytorch",
    "derive.frameworks.keras",
    "derive.frameworks",
    "derive.cells",
    "derive.engine.stack",
    "derive.engine.conventions",
    "derive.engine.wirings",
    "derive.engine.symbols",
)


def _public_modules() -> list[str]:
    import pkgutil

    import derive

    found = ["derive"] + [
        m.name
        for m in pkgutil.walk_packages(derive.__path__, "derive.")
        if not any(part.startswith("_") for part in m.name.split("."))
    ]
    return [m for m in FIRST if m in found] + sorted(m for m in found if m not in FIRST)


#: The documented modules, in navigation order.
API_MODULES = tuple(_public_modules())

#: Public modules deliberately left out of the API reference, with the reason.
NOT_DOCUMENTED: dict[str, str] = {}


def api_path(module: str) -> str:
    """Docs-relative Markdown path of a module's page: ``api/frameworks/pytorch.md`` for ``derive.frameworks.pytorch``.

    Parameters
    ----------
    module : str
        Dotted module name, as mkdocstrings takes it.
    """
    return "api/" + ("index" if module == "derive" else module.removeprefix("derive.").replace(".", "/")) + ".md"


ORDER = 90
PAGES = [Page(api_path(m), m, "api.md.j2", (lambda m=m: {"module": m}), (), "API reference") for m in API_MODULES]
