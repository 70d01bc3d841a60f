"""The API reference covers every public module, and every public object there is documented.

The reference pages are rendered by mkdocstrings from the docstrings (see
``derive/pages/api.py``). These checks read the same docstrings the same way —
griffe, NumPy style, with the project's extension ``derive._apidoc`` — and hold
them to the project's standard: every public function, class, method and
``__all__`` constant has a docstring; every named argument is documented with a
type; every exception a function raises itself is listed under ``Raises``; the
NumPy parser has nothing to complain about; every framework convention and
wiring names its source.
"""

from __future__ import annotations

import ast
import importlib
import logging
import pkgutil
import re
import textwrap
from pathlib import Path

import griffe
import pytest

import derive
from docs_src.pages.api import API_MODULES, NOT_DOCUMENTED


def public_modules() -> set[str]:
    """``derive`` and its modules whose dotted names have no part starting with ``_``."""
    names = {"derive"}
    for info in pkgutil.walk_packages(derive.__path__, "derive."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]):
            continue
        if any(info.name.startswith(skip + ".") for skip in NOT_DOCUMENTED):
            continue  # inside a package left out as a whole (derive.pages.*)
        names.add(info.name)
    return names


def test_every_public_module_has_a_reference_page():
    public = public_modules()
    missing = sorted(public - set(API_MODULES) - set(NOT_DOCUMENTED))
    stale = sorted((set(API_MODULES) | set(NOT_DOCUMENTED)) - public)
    assert not missing, (
        f"public modules without an API page: {missing}; add them to API_MODULES in "
        "derive/pages/api.py (or, with a reason, to NOT_DOCUMENTED)"
    )
    assert not stale, f"derive/pages/api.py lists modules that do not exist: {stale}"
    assert len(API_MODULES) == len(set(API_MODULES))


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def loaded():
    """The package as mkdocstrings sees it, and what griffe warned about while parsing docstrings."""
    records = _Records()
    logger = logging.getLogger("griffe")
    logger.addHandler(records)
    try:
        loader = griffe.GriffeLoader(
            search_paths=[str(Path(derive.__file__).resolve().parents[1])],
            docstring_parser="numpy",
            extensions=griffe.load_extensions("docs_src/apidoc.py:SphinxRoles"),
        )
        loader.load("derive")
        loader.resolve_aliases(implicit=False, external=False)
        objects = {name: list(_documented_objects(loader.modules_collection[name])) for name in API_MODULES}
        for items in objects.values():
            for obj in items:
                if obj.docstring is not None:
                    obj.docstring.parsed  # noqa: B018  (parse now, so warnings are recorded)
    finally:
        logger.removeHandler(records)
    return objects, records.messages


def _exported(module) -> set[str] | None:
    names = getattr(importlib.import_module(module.path), "__all__", None)
    return set(names) if names is not None else None


def _documented_objects(module):
    """Public objects the module defines (not imports): functions, classes and their methods, constants."""
    exported = _exported(module)
    yield module
    for member in module.members.values():
        if member.is_alias or member.name.startswith("_"):
            continue
        if member.is_attribute and exported is not None and member.name not in exported:
            continue
        if member.is_module:
            continue
        yield member
        if member.is_class:
            for sub in member.members.values():
                if not sub.is_alias and sub.is_function and (not sub.name.startswith("_") or sub.name == "__init__"):
                    yield sub  # __init__: its arguments are documented in the class docstring


def _sections(obj) -> dict:
    return {section.kind.value: section.value for section in obj.docstring.parsed} if obj.docstring else {}


def _named_parameters(function) -> list[str]:
    return [
        p.name
        for p in function.parameters
        if p.name not in ("self", "cls") and p.kind.value not in ("variadic positional", "variadic keyword")
    ]


def _raised(obj) -> set[str]:
    """Exception classes raised by name in the function's own body (``raise ValueError(...)``)."""
    try:
        tree = ast.parse(textwrap.dedent(obj.source))
    except (SyntaxError, ValueError, OSError):
        return set()
    caught: dict[int, set[str]] = {}  # id(raise node) -> names caught around it in the same function
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            names = {_name(h.type) for h in node.handlers for h_type in [h.type] if h_type is not None}
            names |= {_name(e) for h in node.handlers if isinstance(h.type, ast.Tuple) for e in h.type.elts}
            for stmt in node.body:
                for inner in ast.walk(stmt):
                    if isinstance(inner, ast.Raise):
                        caught.setdefault(id(inner), set()).update(names)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = _name(exc)
            if name and name[:1].isupper() and name not in caught.get(id(node), ()):
                out.add(name)
    return out


def _name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _raises_section(obj) -> set[str]:
    entries = _sections(obj).get("raises", [])
    names = set()
    for entry in entries:
        for part in str(entry.annotation).replace(" or ", ",").split(","):  # "TypeError, ValueError": a tuple
            names.add(part.strip().strip("()").strip().rsplit(".", 1)[-1])
    return names


ELLIPSIS = re.compile(r"^\s*(\w+)(?:,\s*\w+)*,\s*\.\.\.,\s*(\w+)\s*(?::.*)?$", re.MULTILINE)


def _expand_ellipsis(documented: dict, docstring: str, names: list[str]) -> None:
    """A line ``a, b, ..., z`` under Parameters documents every argument from ``a`` to ``z`` (signature order)."""
    for match in ELLIPSIS.finditer(docstring):
        first, last = match.group(1), match.group(2)
        if first in names and last in names and first in documented:
            for between in names[names.index(first) : names.index(last) + 1]:
                documented.setdefault(between, documented[first])


def _problems(objects) -> list[str]:
    problems = []
    for module, items in objects.items():
        for obj in items:
            if obj.name != "__init__" and (obj.docstring is None or not obj.docstring.value.strip()):
                problems.append(f"{obj.path}: no docstring")
                continue
            if not obj.is_function:
                continue
            owner = obj.parent if obj.name == "__init__" else obj
            sections = _sections(owner)
            entries = list(sections.get("parameters", []))
            if obj.parent.is_class and obj.parent.docstring is not None and obj.name == "__init__":
                entries += _sections(obj.parent).get("attributes", [])
            documented = {name.strip(): e for e in entries for name in e.name.split(",")}  # "a, b : int"
            names = _named_parameters(obj)
            _expand_ellipsis(documented, owner.docstring.value if owner.docstring else "", names)
            for name in names:
                if name not in documented:
                    problems.append(f"{obj.path}: argument {name!r} not under Parameters")
                elif (
                    documented[name].annotation in (None, "") and "ignored" not in documented[name].description.lower()
                ):
                    problems.append(f"{obj.path}: argument {name!r} has no type")
            missing = _raised(obj) - _raises_section(owner) - {"NotImplementedError"}
            if missing:
                problems.append(f"{obj.path}: raises {sorted(missing)} not listed under Raises")
    return problems


def test_every_public_object_is_documented(loaded):
    objects, _ = loaded
    problems = _problems(objects)
    assert not problems, f"{len(problems)} documentation gaps:\n" + "\n".join(problems)


def test_docstrings_parse_without_warnings(loaded):
    _, warnings = loaded
    assert not warnings, "griffe (NumPy style) warnings:\n" + "\n".join(warnings)


def test_checker_finds_gaps(tmp_path):
    """The documentation check can fail: an undocumented argument, an unlisted exception, no docstring."""
    (tmp_path / "fake.py").write_text(
        textwrap.dedent('''
        """A module."""
        def f(a, b):
            """Do.

            Parameters
            ----------
            a : int
                A.
            """
            raise ValueError("no")
        def g():
            pass
    ''')
    )
    loader = griffe.GriffeLoader(search_paths=[str(tmp_path)], docstring_parser="numpy")
    module = loader.load("fake")
    problems = _problems({"fake": [module, module["f"], module["g"]]})
    assert "fake.f: argument 'b' not under Parameters" in problems
    assert "fake.f: raises ['ValueError'] not listed under Raises" in problems
    assert "fake.g: no docstring" in problems


def test_conventions_and_wirings_name_their_source():
    from derive.engine import conventions, wirings

    values = [
        v
        for m in (conventions, wirings)
        for v in vars(m).values()
        if isinstance(v, (conventions.Convention, wirings.Wiring))
    ]
    assert len(values) >= 3
    for value in values:
        assert isinstance(value.source, str) and len(value.source) > 10, value.name
