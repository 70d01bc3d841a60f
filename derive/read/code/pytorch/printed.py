"""A printed torch module: the text ``print(model)`` shows, read as the code that builds it.

torch prints a module as its class name and, indented by two spaces, one line per child,
``(name): <the child printed>`` (``nn.Module.__repr__`` and ``_addindent``,
``torch/nn/modules/module.py``); a module without children prints its ``extra_repr()``, for
torch.nn's layers their constructor's arguments (``Linear(in_features=64, out_features=10,
bias=True)``). ``ModuleList`` prints a run of identical items once, ``(0-31): 32 x Block(``
(``ModuleList.__repr__``, ``torch/nn/modules/container.py``).

The printout is turned into Python source for the code reader
(:func:`~derive.read.code.pytorch.reader.explain_torch`), read with :mod:`ast` and never run: each
class that is not torch.nn's and has children becomes a ``class Name(nn.Module)`` whose
``__init__`` assigns its children; ``Sequential``, ``ModuleList`` and ``ModuleDict`` become
``nn.Sequential(...)`` (``OrderedDict([...])`` for names that are not 0, 1, ...),
``nn.ModuleList([...])`` (a repeated item as that many copies) and ``nn.ModuleDict({...})``; a
torch.nn layer becomes ``nn.Name(<its printed arguments>)``, each parsed alone as one call.

What the printout does not show is not guessed. A class of the user's own may hold parameters
itself (``self.w = nn.Parameter(...)``), which ``print`` never shows: each such class gets a
not-counted row and a note, and the total is a lower bound. A class torch.nn does not have
without children (``LlamaRMSNorm((4096,), eps=1e-06)``), a torch.nn class printed with children
(``MultiheadAttention``: its ``in_proj_weight`` and ``kdim``/``vdim`` are not printed) and a
lazy module are refused, naming their line, or with ``partial`` not counted.

>>> text = "Sequential(\\n  (0): Linear(in_features=4, out_features=2, bias=True)\\n  (1): ReLU()\\n)"
>>> is_printed(text)
True
>>> explain_printed(text).total
10
"""

from __future__ import annotations

import ast
import keyword
import re
import textwrap
from dataclasses import dataclass, field

from ....tree import Module
from ...report import Report
from ...source import SourceError
from .names import supported

__all__ = ["is_printed", "explain_printed"]

_NAME = r"[A-Za-z_]\w*"
_OPEN = re.compile(rf"(?!(?:{'|'.join(keyword.kwlist)})\()({_NAME})\($")
_CHILD = re.compile(r"\(([^()\s]+?)\): (.*)$")
_RANGE = re.compile(r"(\d+)-(\d+)")
_REPEAT = re.compile(r"(\d+) x (.*)$")
_CONTAINERS = ("Sequential", "ModuleList", "ModuleDict")
_OWN = "its own parameters are not shown by print(model): not counted"


def _lines(text: str) -> list[str]:
    return textwrap.dedent(text.strip("\n")).rstrip().splitlines()


def is_printed(text: str) -> bool:
    """Whether ``text`` is a torch module as ``print(model)`` shows it.

    Its first line is ``Name(``, its second a child, ``  (name): ...`` (or ``  (0-31): 32 x ...``),
    its last ``)``: the layout of ``nn.Module.__repr__`` (``torch/nn/modules/module.py``).

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
    """
    lines = _lines(text)
    return (
        len(lines) >= 3
        and _OPEN.fullmatch(lines[0]) is not None
        and _CHILD.fullmatch(lines[1][2:]) is not None
        and lines[1].startswith("  (")
        and lines[-1] == ")"
    )


@dataclass
class _Node:
    """One module of the printout: its class, its printed arguments (a leaf) or its children."""

    cls: str
    line: int
    args: str | None = None  # a one-line module: the text inside its parentheses
    children: list[tuple[str, _Node]] = field(default_factory=list)
    extra: bool = False  # lines inside that are not children (a multi-line extra_repr)


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = _lines(text)
        self.first = next(i for i, line in enumerate(text.splitlines(), 1) if line.strip())

    def refuse(self, index: int, why: str) -> SourceError:
        return SourceError(f"line {self.first + index}: {why}: {self.lines[index].strip()!r}")

    def module(self, index: int, indent: int, rest: str) -> tuple[_Node, int]:
        """The module printed as ``rest`` on line ``index`` at ``indent``, and the line after it."""
        opened = _OPEN.fullmatch(rest)
        if opened is None:
            call = re.fullmatch(rf"({_NAME})\((.*)\)", rest)
            if call is None:
                raise self.refuse(index, "not a module as torch prints one, Name(...)")
            return _Node(call.group(1), self.first + index, args=call.group(2)), index + 1
        node = _Node(opened.group(1), self.first + index)
        inner, end = " " * (indent + 2), " " * indent + ")"
        index += 1
        while index < len(self.lines) and self.lines[index] != end:
            line = self.lines[index]
            if not line.startswith(inner):
                raise self.refuse(index, f"expected a child of {node.cls} indented by {indent + 2} spaces")
            child = _CHILD.fullmatch(line[len(inner) :])
            if child is None:
                node.extra = True
                index += 1
                continue
            key, shown = child.groups()
            repeat = _REPEAT.fullmatch(shown) if _RANGE.fullmatch(key) else None
            if repeat is not None:
                shown = repeat.group(2)
            sub, after = self.module(index, indent + 2, shown)
            if repeat is None:
                node.children.append((key, sub))
            else:
                first, last = (int(k) for k in key.split("-"))
                if last - first + 1 != int(repeat.group(1)):
                    raise self.refuse(index, f"{key} is not {repeat.group(1)} items")
                node.children += [(str(k), sub) for k in range(first, last + 1)]
            index = after
        if index == len(self.lines):
            raise self.refuse(node.line - self.first, f"{node.cls}( is not closed by a ')' at its indentation")
        return node, index + 1


class _Writer:
    """The printout as the source of the code that builds it, line by line with its printed line."""

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.known = set(supported())
        self.classes: list[tuple[str, int]] = []  # the class definitions' lines
        self.bodies: dict[str, str] = {}  # a class's body -> its generated name
        self.names: dict[str, str] = {}  # a generated name -> the printed class
        self.custom: set[str] = set()  # generated names of the user's classes with children
        self.unknown: list[tuple[str, int, str]] = []  # generated name, printed line, why
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def expr(self, node: _Node, out: list[tuple[str, int]], indent: str) -> str:
        """The expression that makes ``node``, its statements appended to ``out``."""
        why = self._unknown(node)
        if why is not None:
            if not self.partial:
                raise SourceError(f"line {node.line}: {why} (or --partial to count the rest)")
            name = self.fresh(f"_printed_unknown_{node.cls}_")
            self.names[name] = node.cls
            self.unknown.append((name, node.line, why))
            return self._local(f"{name}()", node.line, out, indent)
        if node.args is not None:
            source = f"nn.{node.cls}({node.args})"
            try:
                parsed = ast.parse(source, mode="eval").body
            except SyntaxError:
                raise SourceError(
                    f"line {node.line}: {node.cls}'s printed arguments are not Python: {node.args!r}"
                ) from None
            if not isinstance(parsed, ast.Call):  # Linear(...), print(1): a tuple
                raise SourceError(f"line {node.line}: not one call: {source!r}")
            return self._local(source, node.line, out, indent)
        if node.cls not in _CONTAINERS:
            return self._local(f"{self._class(node)}()", node.line, out, indent)
        items = [(key, self.expr(child, out, indent)) for key, child in node.children]
        if node.cls == "ModuleDict":
            return self._local(
                "nn.ModuleDict({" + ", ".join(f"{k!r}: {v}" for k, v in items) + "})", node.line, out, indent
            )
        keys = [k for k, _ in items]
        if keys == [str(k) for k in range(len(keys))]:
            listed = ", ".join(v for _, v in items)
            source = f"nn.ModuleList([{listed}])" if node.cls == "ModuleList" else f"nn.Sequential({listed})"
        elif node.cls == "Sequential":
            pairs = ", ".join(f"({k!r}, {v})" for k, v in items)
            source = f"nn.Sequential(OrderedDict([{pairs}]))"
        else:
            raise SourceError(f"line {node.line}: a ModuleList's items are numbered 0, 1, ...: {keys}")
        return self._local(source, node.line, out, indent)

    def _unknown(self, node: _Node) -> str | None:
        """Why ``node`` cannot be read, or None."""
        if node.cls in _CONTAINERS:
            return None if not node.extra else f"{node.cls} printed with lines that are not its items"
        if node.cls not in self.known:
            if node.children:
                return None  # the user's class: its children read, its own parameters noted
            return f"{node.cls} is not a torch.nn class: print(model) shows its arguments, not its parameters"
        if node.children or node.extra or node.args is None:
            return f"{node.cls} printed with its children: its printed form does not show all its arguments"
        if node.cls.startswith("Lazy"):
            return f"{node.cls} is a lazy module: its sizes are not known until its first call"
        return None

    def _local(self, source: str, line: int, out: list[tuple[str, int]], indent: str) -> str:
        name = self.fresh("_m")
        out.append((f"{indent}{name} = {source}", line))
        return name

    def _class(self, node: _Node) -> str:
        """A ``class Name(nn.Module)`` for the user's class ``node`` (one per distinct body): its name."""
        body: list[tuple[str, int]] = []
        for key, child in node.children:
            value = self.expr(child, body, "        ")
            if key.isidentifier() and not keyword.iskeyword(key):
                body.append((f"        self.{key} = {value}", child.line))
            else:
                body.append((f"        self.add_module({key!r}, {value})", child.line))
        text = f"{node.cls}\n" + "\n".join(line for line, _ in body)
        name = self.bodies.get(text)
        if name is None:
            taken = node.cls in self.names or node.cls in ("nn", "OrderedDict", "model") or node.cls.startswith("_")
            name = self.fresh(f"_printed_class_{node.cls}_") if taken else node.cls
            self.bodies[text] = name
            self.names[name] = node.cls
            self.custom.add(name)
            self.classes += [
                (f"class {name}(nn.Module):", node.line),
                ("    def __init__(self):", node.line),
                ("        super().__init__()", node.line),
                *body,
            ]
        return name


def explain_printed(text: str, partial: bool = False) -> Report:
    """A torch model from its printed form, ``print(model)``'s output.

    Parameters
    ----------
    text : str
        What ``print(model)`` shows for a ``torch.nn.Module`` (``nn.Module.__repr__`` in
        ``torch/nn/modules/module.py``; ``ModuleList.__repr__``'s ``(0-31): 32 x Block(`` in
        ``torch/nn/modules/container.py``).
    partial : bool
        Count what the printout shows and mark the rest not counted instead of refusing.

    Returns
    -------
    Report
        Tensors named as ``named_parameters()``. Partial (its total a lower bound) when a class
        that is not torch.nn's is printed: the parameters it holds itself are not shown.

    Raises
    ------
    SourceError
        A line that is not a module as torch prints one, a layer's printed arguments that are not
        one Python call; without ``partial``, a leaf class torch.nn does not have, a torch.nn class
        printed with children (``MultiheadAttention``) and a lazy module — each with its line.
    """
    from .reader import explain_torch

    parser = _Parser(text)
    opened = _OPEN.fullmatch(parser.lines[0])
    if opened is None:
        raise parser.refuse(0, "not a module as torch prints one, Name(")
    root, after = parser.module(0, 0, parser.lines[0])
    if after != len(parser.lines):
        raise parser.refuse(after, "text after the module's closing ')'")
    writer = _Writer(partial)
    top: list[tuple[str, int]] = []
    model = writer.expr(root, top, "")
    lines = [
        ("import torch.nn as nn", root.line),
        ("from collections import OrderedDict", root.line),
        *writer.classes,
        *top,
        (f"model = {model}", root.line),
    ]
    source = "\n".join(line for line, _ in lines)
    printed = [line for _, line in lines]

    def mapped(message: str) -> str:
        message = re.sub(
            r"\bline (\d+)\b",
            lambda m: f"line {printed[int(m.group(1)) - 1]}" if int(m.group(1)) <= len(printed) else m.group(0),
            message,
        )
        for name, cls in sorted(writer.names.items(), key=lambda item: -len(item[0])):
            message = message.replace(name, cls)
        return message

    try:
        report = explain_torch(source, partial)
    except SourceError as error:
        raise SourceError(mapped(str(error))) from None
    assert report.module is not None
    generated = {name for name, _, _ in writer.unknown}
    notes = [mapped(n) for n in report.notes if not any(name in n for name in generated)]
    notes += [f"line {line}: {why}: not counted" for _, line, why in writer.unknown]
    shown = sorted({writer.names[name] for name in writer.custom})
    notes += [
        f"{cls} is not a torch.nn class: print(model) does not show the parameters it holds itself "
        "(self.w = nn.Parameter(...)), not counted: the total is a lower bound"
        for cls in shown
    ]
    notes = list(dict.fromkeys(notes))  # a repeated block's notes once
    module = _marked(report.module, writer)
    module, untied = _maybe_tied(module)
    notes += untied
    title = mapped(report.title)
    return Report.from_module(module, report.framework, title, report.input_shape, notes)


def _marked(module: Module, writer: _Writer) -> Module:
    """The tree with the printed class names, each class of the user's own holding a not-counted part."""
    children = tuple(_marked(c, writer) for c in module.children)
    if module.type in writer.custom:
        own = Module("", writer.names[module.type], counted=False, note=_OWN)
        children = (own, *children)
    return module.replace(type=writer.names.get(module.type, module.type), children=children)


def _maybe_tied(module: Module) -> tuple[Module, list[str]]:
    """The tree with each layer that may share its weight with an ``Embedding`` printed before it
    not counted, and the notes saying so.

    ``print(model)`` does not show a tensor two modules share: a language model's output
    ``Linear(in_features=D, out_features=V)`` tied to its ``Embedding(V, D)`` (transformers'
    ``tie_word_embeddings``), or two ``Embedding(V, D)`` sharing one table, are printed as if apart,
    while ``model.parameters()`` counts the tensor once. Counting both could over-count; counting
    the second not at all keeps the total a lower bound, tied or not.
    """
    tables: dict[tuple[object, ...], str] = {}
    notes: list[str] = []

    def visit(node: Module, path: str) -> Module:
        weight = next((p for p in node.params if p.name == "weight"), None)
        if node.type in ("Embedding", "Linear") and weight is not None and node.counted:
            shape = tuple(weight.shape)
            first = tables.get(shape)
            if first is not None:
                notes.append(
                    f"{path}: its weight has the shape of {first}.weight, {shape}: print(model) does not "
                    f"show whether they are tied (one tensor, counted once by model.parameters()), so "
                    f"{path} is not counted: the total is a lower bound"
                )
                return Module(node.name, node.type, counted=False, note=f"may be tied to {first}.weight")
            if node.type == "Embedding":
                tables[shape] = path
        children = tuple(visit(c, f"{path}.{c.name}" if path else c.name) for c in node.children)
        return node.replace(children=children)

    return visit(module, ""), notes
