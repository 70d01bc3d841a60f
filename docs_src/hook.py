"""MkDocs hook: generate the reference site's pages in memory and serve KaTeX locally.

Wired in ``mkdocs.yml`` as ``hooks: [docs_src/hook.py]``.

* ``on_files`` adds every page of ``docs_src.site.render_pages(<repo>/templates)`` as a
  generated in-memory file (nothing is written into ``docs/``), re-rendered on every
  build, and adds the KaTeX distribution from ``node_modules/katex/dist`` under
  ``assets/katex/`` (installed by ``npm ci``; see ``scripts/bootstrap``).
* ``on_page_content`` puts every table in a labelled, focusable scroll region (``docs_src/tables.py``).
  Every page keeps its table of contents, in the navigation sidebar (``toc.integrate`` in
  ``mkdocs.yml``): the text column has the width the right-hand sidebar would take.
* ``on_post_page`` names each sidebar section's landmark by its title (``docs_src/nav_labels.py``).
* ``on_config`` also makes Material's search parser mark where each table cell and row ends, and
  ``on_post_build`` writes the marks as ``|`` and ``·`` and the math of the search index as plain text
  (``docs_src/search_text.py``): a search excerpt shows ``⌈d_model/16⌉``, not
  ``\\(\\lceil d_{model}/16 \\rceil\\)``, and a count beside its own row's name.
* ``on_serve`` watches ``templates/``, ``derive/`` and ``docs_src/`` so ``mkdocs serve`` rebuilds
  when the templates or the renderer change.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

KATEX_ASSETS = "assets/katex"
# Files of node_modules/katex/dist served by the site (fonts/ is added whole).
KATEX_FILES = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js")

# tablesort (sortable tables, Material's documented recipe), pinned in package.json: its files served from
# assets/tablesort/, copied from node_modules/tablesort/dist like KaTeX's (no CDN).
TABLESORT_ASSETS = "assets/tablesort"
TABLESORT_FILES = ("tablesort.min.js", "sorts/tablesort.number.min.js")

_serving = False


def _root(config) -> Path:
    """The repository root: the directory of mkdocs.yml."""
    return Path(config.config_file_path).resolve().parent


def _importable(root: Path) -> None:
    """Make the site generator (``docs_src``, beside mkdocs.yml) importable."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def on_startup(command: str, dirty: bool, **kwargs) -> None:
    global _serving
    _serving = command == "serve"


def _render_pages(root: Path) -> dict[str, str]:
    if _serving:
        # mkdocs serve runs many builds in one process: drop the cached renderer so
        # edits to derive/ take effect on the next rebuild.
        for name in [n for n in sys.modules if n.split(".")[0] in ("derive", "docs_src")]:
            del sys.modules[name]
    _importable(root)
    site = importlib.import_module("docs_src.site")
    pages = site.render_pages(root / "templates")
    if not pages:
        raise PluginError("docs_src.site.render_pages() returned no pages")
    return pages


def on_config(config, **kwargs):
    """Take the navigation from the page registry (``docs_src.site.nav()``)."""
    _importable(_root(config))
    config.nav = importlib.import_module("docs_src.site").nav()
    importlib.import_module("docs_src.search_text").keep_cell_boundaries()
    return config


def _katex_files(config, root: Path) -> list[File]:
    dist = root / "node_modules" / "katex" / "dist"
    if not (dist / "katex.min.js").is_file():
        raise PluginError(
            f"KaTeX is missing: {dist} not found. Run `npm ci` first in {root} (./scripts/build-site does it for you)."
        )
    sources = [dist / name for name in KATEX_FILES]
    broken = [s.relative_to(dist).as_posix() for s in sources if not s.is_file() or s.stat().st_size == 0]
    if broken:
        raise PluginError(
            f"KaTeX is incomplete: {', '.join(broken)} missing or empty in {dist}. "
            f"Run `npm ci` in {root} to reinstall it from package-lock.json."
        )
    sources += sorted(p for p in (dist / "fonts").iterdir() if p.is_file())
    license_file = dist.parent / "LICENSE"
    out = []
    for src in sources:
        uri = f"{KATEX_ASSETS}/{src.relative_to(dist).as_posix()}"
        out.append(File.generated(config, uri, abs_src_path=str(src)))
    if license_file.is_file():
        out.append(File.generated(config, f"{KATEX_ASSETS}/LICENSE", abs_src_path=str(license_file)))
    return out


def _tablesort_files(config, root: Path) -> list[File]:
    dist = root / "node_modules" / "tablesort" / "dist"
    sources = [dist / name for name in TABLESORT_FILES]
    broken = [s.relative_to(dist).as_posix() for s in sources if not s.is_file() or s.stat().st_size == 0]
    if broken:
        raise PluginError(
            f"tablesort is missing or incomplete: {', '.join(broken)} not found or empty in {dist}. "
            f"Run `npm ci` in {root} to install it from package-lock.json (./scripts/build-site does it for you)."
        )
    out = [File.generated(config, f"{TABLESORT_ASSETS}/{src.relative_to(dist).as_posix()}", abs_src_path=str(src))
           for src in sources]  # fmt: skip
    licence = dist.parent / "LICENCE"
    if licence.is_file():
        out.append(File.generated(config, f"{TABLESORT_ASSETS}/LICENCE", abs_src_path=str(licence)))
    return out


def on_files(files: Files, config, **kwargs) -> Files:
    root = _root(config)
    for src_uri, markdown in sorted(_render_pages(root).items()):
        if not src_uri.endswith(".md"):
            raise PluginError(f"render_pages() returned a non-Markdown path: {src_uri!r}")
        if files.get_file_from_path(src_uri) is not None:
            raise PluginError(
                f"{src_uri} is generated by docs_src.site.render_pages() but also exists in "
                f"{config.docs_dir}; docs/ holds static assets only, remove it there."
            )
        files.append(File.generated(config, src_uri, content=markdown))
    for file in _katex_files(config, root) + _tablesort_files(config, root):
        if files.get_file_from_path(file.src_uri) is not None:
            files.remove(files.get_file_from_path(file.src_uri))
        files.append(file)
    return files


def on_serve(server, config, builder, **kwargs):
    root = _root(config)
    for name in ("templates", "derive", "docs_src"):
        path = root / name
        if path.is_dir():
            server.watch(str(path))
    return server


def on_page_content(html: str, page, config, files, **kwargs) -> str:
    """Each table in a labelled, focusable scroll region (``docs_src/tables.py``); the page's table of
    contents is never hidden (it stands in the navigation sidebar, ``toc.integrate``)."""
    _importable(_root(config))
    return importlib.import_module("docs_src.tables").wrap_tables(html, page.title or "")


def on_post_page(output: str, page, config, **kwargs) -> str:
    """Each sidebar section's landmark named by its title (``docs_src/nav_labels.py``), so
    every section's navigation landmark has its own name."""
    _importable(_root(config))
    return importlib.import_module("docs_src.nav_labels").name_section_navs(output)


def on_post_template(output_content: str, template_name: str, config, **kwargs) -> str:
    """The same for the pages MkDocs renders from a theme template alone (``404.html``), which
    ``on_post_page`` never sees."""
    _importable(_root(config))
    return importlib.import_module("docs_src.nav_labels").name_section_navs(output_content)


def on_post_build(config, **kwargs) -> None:
    """The search index's math as plain text (``docs_src/search_text.py``); runs after Material's
    search plugin has written the index (hooks follow the plugins)."""
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        _importable(_root(config))
        importlib.import_module("docs_src.search_text").rewrite_index(index)
