"""Griffe extension used by the API reference (mkdocstrings, ``mkdocs.yml``); not part of the API.

The docstrings of ``derive`` use the Sphinx habits of the field, which
mkdocstrings' NumPy parser leaves as they are. Before rendering, this extension

* turns a ``#:`` comment above a module or class attribute into that
  attribute's docstring (``#: The logistic sigmoid.`` above ``sigma = ...``);
* gives a public class or function that has no docstring in its source the one
  it gets at run time (``__doc__ = Base.__doc__...``, ``f.__doc__ = g.__doc__``),
  read from the imported module;
* rewrites the cross-reference roles ``:class:`X```, ``:func:`X```,
  ``:mod:`X```, ``:data:`X```, ``:attr:`X```, ``:meth:`X```, ``:exc:`X``` and
  ``:obj:`X``` into mkdocs-autorefs links when ``X`` (absolute, or relative to
  the object's class or module) is an object the API reference shows, and into
  plain code otherwise (a private helper, another library's object), so that
  the strict build never meets an unresolved link;
* fences doctest blocks (``>>>``) that stand outside a NumPy ``Examples``
  section as ``pycon`` code, as the parser does inside one, and drops the
  reStructuredText literal-block marker ``::`` (the indented block after it is
  code in Markdown too).

Only docstrings are changed, and only in the documentation build: importing
``derive`` never imports this module (it needs ``griffe``, from the ``docs`` extra).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`<>]+?)`")


def _documented_modules() -> set[str]:
    from docs_src.pages.api import API_MODULES

    return set(API_MODULES)


def literal_markers(text: str) -> str:
    """``Paste one::`` -> ``Paste one:``; a line holding only ``::`` is dropped."""
    out = []
    for line in text.splitlines():
        if line.strip() == "::":
            continue
        out.append(line.rstrip()[:-1] if line.rstrip().endswith("::") and not line.rstrip().endswith(":::") else line)
    return "\n".join(out)


def fence_doctests(text: str) -> str:
    """Wrap each ``>>>`` block outside an ``Examples`` section in a fenced ``pycon`` code block."""
    lines, out, k, section = text.splitlines(), [], 0, ""
    fence = False
    while k < len(lines):
        line = lines[k]
        nxt = lines[k + 1] if k + 1 < len(lines) else ""
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            section = line.strip()
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and section not in ("Examples", "Example") and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while k < len(lines) and lines[k].strip():
                block.append(lines[k][len(indent) :] if lines[k].startswith(indent) else lines[k].strip())
                k += 1
            # A block indented under its paragraph (reST's literal block after "::") would be an
            # indented code block in Markdown, showing the fence itself: fence it at the paragraph's indent.
            above = next((o for o in reversed(out) if o.strip()), "")
            indent = min(indent, above[: len(above) - len(above.lstrip())], key=len)
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line)
        k += 1
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles and ``#:`` comments of the ``derive`` package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Griffe >= 2 hook: the whole package is loaded."""
        if pkg.path != "derive":
            return
        self._collection = loader.modules_collection
        self._parser = (loader.docstring_parser, loader.docstring_options)
        self._modules = _documented_modules()
        objects = list(self._walk(pkg))
        for obj in objects:
            if obj.is_attribute and obj.docstring is None:
                self._comment_docstring(obj, *self._parser)
            elif (obj.is_class or obj.is_function) and obj.docstring is None:
                self._runtime_docstring(obj, *self._parser)
        for obj in objects:
            if obj.docstring is not None:
                value = ROLE.sub(lambda m, obj=obj: self._link(obj, m), obj.docstring.value)
                obj.docstring.value = fence_doctests(literal_markers(value))

    on_package_loaded = on_package  # griffe 1.x name of the same hook

    def _walk(self, obj):
        yield obj
        for member in obj.members.values():
            if not member.is_alias and member.path.startswith(obj.path + "."):
                yield from self._walk(member)

    @staticmethod
    def _comment_docstring(attr, parser, options) -> None:
        lines = attr.module.lines
        if not attr.lineno:
            return
        k, comment = attr.lineno - 2, []
        while k >= 0 and lines[k].lstrip().startswith("#:"):
            comment.insert(0, lines[k].lstrip()[2:].strip())
            k -= 1
        if comment:
            attr.docstring = griffe.Docstring(
                "\n".join(comment),
                lineno=k + 2,
                endlineno=attr.lineno - 1,
                parent=attr,
                parser=parser,
                parser_options=options,
            )

    @staticmethod
    def _runtime_docstring(obj, parser, options) -> None:
        """The docstring Python itself sees, for objects that set ``__doc__`` by assignment."""
        import importlib
        import inspect

        try:
            value = importlib.import_module(obj.module.path)
            for name in obj.path[len(obj.module.path) + 1 :].split("."):
                value = inspect.getattr_static(value, name)
        except (ImportError, AttributeError):
            return
        value = getattr(value, "__func__", value)  # staticmethod / classmethod
        doc = value.__doc__ if isinstance(value, type) or callable(value) else None
        if obj.is_class and doc == type.__doc__:
            doc = None
        if doc and doc.strip():
            obj.docstring = griffe.Docstring(
                inspect.cleandoc(doc),
                lineno=obj.lineno,
                endlineno=obj.lineno,
                parent=obj,
                parser=parser,
                parser_options=options,
            )

    def _link(self, obj, match: re.Match) -> str:
        short, target = match.group(1) == "~", match.group(2).strip().rstrip("()")
        shown = target.rsplit(".", 1)[-1] if short else target
        line = match.string[match.string.rfind("\n", 0, match.start()) + 1 : match.start()]
        if re.search(r"\bdefault[ =:]\s*$", line):
            # "x : int, default :data:`K`": the default column is not Markdown, a link would show as text.
            return shown
        path = self._resolve(obj, target)
        return f"[`{shown}`][{path}]" if path else f"`{shown}`"

    def _resolve(self, obj, target: str) -> str | None:
        scopes = [o for o in (obj if not obj.is_attribute else obj.parent, obj.parent, obj.module) if o is not None]
        candidates = [target] + [f"{scope.path}.{target}" for scope in scopes]
        for path in candidates:
            try:
                found = self._collection[path]
            except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            if found.is_alias:
                try:
                    found = found.final_target
                except (griffe.AliasResolutionError, griffe.CyclicAliasError):  # another package
                    return None
            return found.path if self._shown(found) else None
        return None

    def _shown(self, obj) -> bool:
        """Whether the API reference renders ``obj`` (public, with a docstring, in a documented module)."""
        if obj.is_module:
            return obj.path in self._modules
        names = obj.path.split(".")
        if any(n.startswith("_") for n in names):
            return False
        return obj.module.path in self._modules and obj.docstring is not None
