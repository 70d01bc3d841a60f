"""API reference: one page per public module, rendered by mkdocstrings from its docstrings.

Each page is the tiny template ``templates/api.md.j2`` around a mkdocstrings
identifier (``::: derive.frameworks.pytorch``); the reference itself is read from the
module's NumPy-style docstrings by mkdocstrings-python (griffe, static
analysis) on every build. Every public module of ``derive`` is found by walking the package.
"""

from __future__ import annotations

from ..site import Page

__all__ = ["API_MODULES", "NOT_DOCUMENTED", "api_path", "api_section"]

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
    """Docs-relative Markdown path of a module's page: ``api/frameworks/pytorch.md`` for ``derive.frameworks.pytorch``, ``api/derive.md`` for the package (a page with its own contents, not the section's index).

    Parameters
    ----------
    module : str
        Dotted module name, as mkdocstrings takes it.
    """
    return "api/" + ("derive" if module == "derive" else module.removeprefix("derive.").replace(".", "/")) + ".md"


def api_section(module: str) -> str:
    """The module's place in the navigation: the modules of :data:`FIRST` and derive's own top-level
    modules under "API reference", every other one under its package (``"API reference/derive.layers"``),
    so that the reference's ~200 modules sit in a dozen collapsed groups.

    Parameters
    ----------
    module : str
        Dotted module name.
    """
    parts = module.split(".")
    if module in FIRST or len(parts) <= 2 and not any(m.startswith(module + ".") for m in API_MODULES):
        return "API reference"
    return "API reference/" + ".".join(parts[:2])


ORDER = 90
PAGES = [Page(api_path(m), m, "api.md.j2", (lambda m=m: {"module": m}), (), api_section(m)) for m in API_MODULES]
