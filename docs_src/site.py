"""The reference site's pages, rendered from ``templates/`` with our own Jinja2 environment.

Each page is a :class:`Page`: a path, a title, a navigation section, a template
and a function computing the template's context from the derivation at build
time. Page modules live in :mod:`derive.pages`: every module there with a
``PAGES`` list is part of the site, in the order of its ``ORDER`` number, and
the navigation is built from them (:func:`nav`) — a new page family is one new
module, with no edit elsewhere.
The worked examples a page shows are listed on it, so that :func:`examples`
gives the test suite every configuration the site shows, to hold against the
real framework. The MkDocs hook (``derive/mkdocs_hook.py``) calls
:func:`render_pages` on every build.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2
import sympy

__all__ = ["Example", "Page", "pages", "nav", "examples", "render_pages", "number", "markdown_text"]


@dataclass(frozen=True)
class Example:
    """A worked example: a framework constructor call, counted by the matching ``derive`` adapter.

    Attributes
    ----------
    cls : str
        Class name, the same in the framework (``torch.nn``, ``keras.layers``) and in the adapter
        (``derive.torch``, ``derive.keras``).
    args : tuple
        Positional arguments; an argument may itself be an :class:`Example` (the layer a Keras
        ``Bidirectional`` wraps) or a tuple of them (the layers of a ``Sequential``, shown and
        passed as a list).
    kwargs : tuple of (str, value)
        Keyword arguments (values may be examples too).
    framework : str
        ``"torch"``: ``derive.torch`` and ``torch.nn``; ``"keras"``: ``derive.keras`` and
        ``keras.layers`` (``keras.Sequential`` for ``cls="Sequential"``).
    input_shape : tuple
        Keras: the shape of one sample, ``keras.Input(input_shape)``, that the layer is applied
        to; its last entry is the input width. Empty otherwise (and for nested examples).
    """

    cls: str
    args: tuple
    kwargs: tuple = ()
    framework: str = "torch"
    input_shape: tuple = ()

    @property
    def call(self) -> str:
        """The constructor as one would type it: ``nn.LSTM(32, 128, 2, bidirectional=True)``,
        ``layers.Bidirectional(layers.LSTM(128))``."""
        parts = [_call(a) for a in self.args] + [f"{k}={_call(v)}" for k, v in self.kwargs]
        prefix = {"torch": "nn.", "keras": "keras." if self.cls == "Sequential" else "layers."}.get(self.framework, "")
        return f"{prefix}{self.cls}({', '.join(parts)})"

    def build(self):
        """The ``derive`` object for this call (nested examples built first)."""
        adapter = importlib.import_module(f"derive.{self.framework}")
        return getattr(adapter, self.cls)(*map(_build, self.args), **{k: _build(v) for k, v in self.kwargs})


def _examples(value) -> bool:
    return isinstance(value, tuple) and bool(value) and all(isinstance(v, Example) for v in value)


def _call(value) -> str:
    if isinstance(value, Example):
        return value.call
    if _examples(value):
        return "[" + ", ".join(v.call for v in value) + "]"
    return repr(value)


def _build(value):
    if isinstance(value, Example):
        return value.build()
    if _examples(value):
        return [v.build() for v in value]
    return value


@dataclass(frozen=True)
class Page:
    """One generated page.

    Attributes
    ----------
    path : str
        Docs-relative path of the Markdown, e.g. ``"cells/lstm.md"``.
    title : str
    template : str
        Template file in ``templates/``.
    context : callable () -> dict
        Computes the template's variables.
    examples : tuple of Example
        The worked examples the page shows (checked by the tests).
    section : str or None
        Navigation section ("Cells", ...); None for a top-level entry.
    """

    path: str
    title: str
    template: str
    context: Callable[[], dict]
    examples: tuple[Example, ...] = ()
    section: str | None = None


def pages() -> list[Page]:
    """Every page of the site, in navigation order (modules by ``ORDER``, then as listed)."""
    from . import pages as package

    modules = [importlib.import_module(f"{package.__name__}.{m.name}") for m in pkgutil.iter_modules(package.__path__)]
    modules = sorted((m for m in modules if hasattr(m, "PAGES")), key=lambda m: (m.ORDER, m.__name__))
    return [page for module in modules for page in module.PAGES]


def nav() -> list:
    """The MkDocs ``nav``: top-level pages and one entry per section, in page order.

    A section's ``<section>/index.md`` page comes first in it (Material's ``navigation.indexes``
    makes it the section's own page), the section where its other pages come; a section named ``"A/B"`` is the subsection B of A (the API
    reference's packages), listed where its first page comes.
    """
    out: list = []
    sections: dict[str, list] = {}
    indexes: dict[str, dict] = {}

    def section(name: str) -> list:
        if name not in sections:
            parent, _, title = name.rpartition("/")
            sections[name] = []
            (section(parent) if parent else out).append({title: sections[name]})
        return sections[name]

    for page in pages():
        if page.section is None:
            out.append({page.title: page.path})
        elif page.path.endswith("/index.md"):
            indexes[page.section] = {page.title: page.path}
        else:
            section(page.section).append({page.title: page.path})
    for name, entry in indexes.items():  # a section's own page first; its place is its pages'
        section(name).insert(0, entry)
    return out


def examples(framework: str | None = None) -> list[Example]:
    """Every worked example shown on the site (of one ``framework``, or all).

    Parameters
    ----------
    framework : str or None
        ``"torch"``, ``"keras"``, ...; None for all.

    Returns
    -------
    list of Example
    """
    return [e for page in pages() for e in page.examples if framework in (None, e.framework)]


def number(value) -> str:
    """An exact integer with thousands separators: ``561,152``.

    Parameters
    ----------
    value : int or sympy.Integer

    Returns
    -------
    str
    """
    return f"{int(value):,}"


def markdown_text(value: str) -> str:
    r"""User text (a question's title) shown literally in Markdown: markup characters escaped.

    Parameters
    ----------
    value : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_text("LSTM's *units* <b>"))
    LSTM's \*units\* &lt;b&gt;
    """
    import html
    import re

    return re.sub(r"([\\`*_\[\]])", r"\\\1", html.escape(" ".join(value.split()), quote=False))


def _environment(template_dir: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["number"] = number
    env.filters["tex"] = sympy.latex
    env.filters["markdown_text"] = markdown_text
    return env


def render_pages(template_dir: Path) -> dict[str, str]:
    """Render every page.

    Parameters
    ----------
    template_dir : pathlib.Path
        The ``templates/`` folder.

    Returns
    -------
    dict of str to str
        Docs-relative path (``"index.md"``, ``"cells/lstm.md"``, ...) -> Markdown.
    """
    every = pages()
    workers = _render_workers(len(every))
    if workers > 1:
        # Pages are independent: render them in forked workers (2 cores halve the build), in order.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        global _PENDING
        _PENDING = (Path(template_dir), every)
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                rendered = list(pool.map(_render_one, range(len(every)), chunksize=1))
        finally:
            _PENDING = None
        return dict(zip((page.path for page in every), rendered))
    env = _environment(Path(template_dir))
    return {page.path: env.get_template(page.template).render(**page.context()) for page in every}


#: (template_dir, pages) being rendered by forked workers (see :func:`render_pages`).
_PENDING = None


def _render_one(index: int) -> str:
    template_dir, every = _PENDING
    page = every[index]
    return _environment(template_dir).get_template(page.template).render(**page.context())


def _render_workers(count: int) -> int:
    """Worker processes for :func:`render_pages`: ``DERIVE_RENDER_WORKERS`` if set (1 = in-process),
    else the CPUs this process may use, at most 4; 1 where ``fork`` is unavailable."""
    import multiprocessing
    import os
    import sys

    if "fork" not in multiprocessing.get_all_start_methods() or count < 2:
        return 1
    if "jax" in sys.modules:  # JAX runs threads: forking this process may deadlock (as JAX warns)
        return 1
    setting = os.environ.get("DERIVE_RENDER_WORKERS")
    if setting:
        try:
            return max(1, int(setting))
        except ValueError:
            raise ValueError(f"DERIVE_RENDER_WORKERS must be an integer, got {setting!r}") from None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cpus, 4))
