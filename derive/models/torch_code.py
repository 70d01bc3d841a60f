"""Whole PyTorch models pasted as code: ``nn.Sequential(...)`` and ``class Net(nn.Module)``.

Read with :mod:`ast`, never run. In a class, ``__init__``'s assignments ``self.name = nn.X(...)``
register modules in order (``nn.Sequential``, ``nn.ModuleList`` — a list, or ``[nn.LSTM(h, h) for _
in range(n)]`` — and classes defined in the snippet nest, named as ``named_modules()`` names
them); ``forward`` is not needed. A class instantiated in the snippet (``model = Net(300, 256)``)
binds its arguments as Python would; an uninstantiated class keeps its parameters as symbols.

>>> report = explain_torch("nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128))")
>>> [(r.name, r.params) for r in report.rows], report.total
([('0', 64000), ('1', 99328)], 163328)
"""

from __future__ import annotations

import ast
from typing import Any

from .base import numel
from .recurrent import TORCH_RECURRENT, TorchRecurrent
from .report import Report, Row
from .source import Call, Opaque, Reader, SourceError, clean, dotted, parse_module
from .torch_layers import TORCH_LAYERS

__all__ = ["explain_torch", "SUPPORTED"]

CONTAINERS = ("Sequential", "ModuleList")
#: Every ``torch.nn`` name a model may use.
SUPPORTED = tuple(sorted({*TORCH_LAYERS, *TORCH_RECURRENT, *CONTAINERS}))


def _is_module_class(node: ast.ClassDef) -> bool:
    return any((dotted(b) or "").rsplit(".", 1)[-1] == "Module" for b in node.bases)


class TorchProgram:
    """Modules of a snippet: classes by name, top-level sizes, instantiations.

    Parameters
    ----------
    tree : ast.Module
    partial : bool
        Mark unknown modules instead of refusing.
    """

    def __init__(self, tree: ast.Module, partial: bool = False) -> None:
        self.partial = partial
        self.classes: dict[str, ast.ClassDef] = {}
        self.reader = Reader()
        self.instances: list[tuple[str | None, Call]] = []
        self.sequentials: list[tuple[str | None, Call]] = []
        self.notes: list[str] = []
        self.depth = 0
        for statement in tree.body:
            if isinstance(statement, ast.ClassDef) and _is_module_class(statement):
                self.classes[statement.name] = statement
            elif isinstance(statement, (ast.Assign, ast.Expr)):
                target = (
                    statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
                )
                name = target.id if isinstance(target, ast.Name) else None
                value = self.reader.value(statement.value)
                if isinstance(value, Call):
                    if value.name in self.classes:
                        self.instances.append((name, value))
                    elif value.name in TORCH_LAYERS or value.name in TORCH_RECURRENT or value.name in CONTAINERS:
                        self.sequentials.append((name, value))
                elif name is not None and (isinstance(value, int) or hasattr(value, "free_symbols")):
                    self.reader.env[name] = value

    def modules(self) -> tuple[str, list[tuple[str, Any, Call]]]:
        """The model chosen (an instantiated class, else the last class, else the last call) and its leaves.

        Returns
        -------
        tuple of (str, list of (qualified name, module, call))

        Raises
        ------
        SourceError
            No model in the snippet, or a module derive does not know.
        """
        if self.instances:
            named = [c for n, c in self.instances if n == "model"]
            call = (named or [c for _, c in self.instances])[-1]
            return f"{call.name} (nn.Module)", self.instance(self.classes[call.name], call, "")
        if self.classes:
            used = {
                n.func.id
                for c in self.classes.values()
                for n in ast.walk(c)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
            top = [c for name, c in self.classes.items() if name not in used] or list(self.classes.values())
            return f"{top[-1].name} (nn.Module)", self.instance(top[-1], None, "")
        if self.sequentials:
            named = [c for n, c in self.sequentials if n == "model"]
            call = (named or [c for _, c in self.sequentials])[-1]
            if call.name in CONTAINERS:
                return f"nn.{call.name}", self.container(call, "")
            return f"nn.{call.name}", self.module(call, "")
        raise SourceError("no PyTorch model found: expected nn.Sequential(...) or class Net(nn.Module) with __init__")

    def instance(self, cls: ast.ClassDef, call: Call | None, prefix: str) -> list[tuple[str, Any, Call]]:
        """The leaf modules of a class's ``__init__``, its arguments bound (or symbols).

        Parameters
        ----------
        cls : ast.ClassDef
        call : Call or None
            The instantiation, or None to keep the parameters symbolic.
        prefix : str
            Qualified name of the instance (``""`` for the model).

        Returns
        -------
        list of (str, module, Call)

        Raises
        ------
        SourceError
            The class's ``__init__`` holds something derive does not read.
        """
        self.depth += 1
        if self.depth > 20:
            raise SourceError(f"line {cls.lineno}: modules nested too deeply")
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None:
            raise SourceError(f"line {cls.lineno}: class {cls.name} has no __init__")
        outer = self.reader
        reader = Reader(outer.env)
        params = [a.arg for a in init.args.args[1:]]
        defaults = dict(zip(params[len(params) - len(init.args.defaults) :], init.args.defaults))
        for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults):
            params.append(a.arg)
            if d is not None:
                defaults[a.arg] = d
        if call is not None:
            if len(call.args) > len(init.args.args) - 1:
                raise SourceError(
                    f"line {call.line}: {cls.name}() takes {len(init.args.args) - 1} positional "
                    f"arguments but {len(call.args)} were given"
                )
            given = dict(zip(params, call.args))
            for key, value in call.kwargs.items():
                if key not in params:
                    raise SourceError(f"line {call.line}: {cls.name}() got an unexpected keyword argument {key!r}")
                given[key] = value
            for name in params:
                if name in given:
                    reader.env[name] = given[name]
                elif name in defaults:
                    reader.env[name] = reader.value(defaults[name])
                else:
                    raise SourceError(f"line {call.line}: {cls.name}() missing required argument {name!r}")
        self.reader = reader
        try:
            modules = self.body(init.body, prefix)
        finally:
            self.reader = outer
            self.depth -= 1
        return modules

    def body(self, statements: list[ast.stmt], prefix: str) -> list[tuple[str, Any, Call]]:
        """Modules registered by ``__init__``'s statements, in order.

        Parameters
        ----------
        statements : list of ast.stmt
        prefix : str

        Returns
        -------
        list of (str, module, Call)

        Raises
        ------
        SourceError
            A statement derive does not read (named in the message, with its line).
        """
        found: list[tuple[str, Any, Call]] = []
        lists: dict[str, str] = {}
        for statement in statements:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = dotted(statement.targets[0])
                if target is None:
                    continue
                value = self.reader.value(statement.value)
                if isinstance(value, Call) and target.startswith("self."):
                    name = prefix + target[5:]
                    if value.name == "ModuleList":
                        lists[target] = name
                    found += self.module(value, name)
                elif isinstance(value, int) or hasattr(value, "free_symbols"):
                    self.reader.env[target] = value
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                func = statement.value.func
                owner = dotted(func.value) if isinstance(func, ast.Attribute) else None
                if (
                    isinstance(func, ast.Attribute)
                    and owner in lists
                    and func.attr == "append"
                    and statement.value.args
                ):
                    value = self.reader.value(statement.value.args[0])
                    index = sum(1 for n, _, _ in found if n.startswith(lists[owner] + "."))
                    if isinstance(value, Call):
                        found += self.module(value, f"{lists[owner]}.{index}")
            elif isinstance(statement, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                if any(
                    isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in SUPPORTED
                    for n in ast.walk(statement)
                ):
                    raise SourceError(
                        f"line {statement.lineno}: modules built in a "
                        f"{type(statement).__name__.lower()} statement are not read; write them out"
                    )
        return found

    def container(self, call: Call, prefix: str) -> list[tuple[str, Any, Call]]:
        """Children of ``nn.Sequential(a, b)`` / ``nn.ModuleList([a, b])``, named ``0``, ``1``, ...

        Parameters
        ----------
        call : Call
        prefix : str

        Returns
        -------
        list of (str, module, Call)

        Raises
        ------
        SourceError
            A container whose arguments are not module constructors.
        """
        items = list(call.args)
        if call.name == "ModuleList":
            items = list(call.args[0]) if call.args and isinstance(call.args[0], (list, tuple)) else []
            if call.args and not isinstance(call.args[0], (list, tuple)):
                raise SourceError(
                    f"line {call.line}: nn.ModuleList takes a list of modules (or [nn.X(...) for _ in range(n)])"
                )
        found = []
        for index, item in enumerate(items):
            if not isinstance(item, Call):
                raise SourceError(f"line {call.line}: nn.{call.name} holds modules; got {clean(repr(item), 60)}")
            found += self.module(item, f"{prefix}.{index}" if prefix else str(index))
        return found

    def module(self, call: Call, name: str) -> list[tuple[str, Any, Call]]:
        """A module and, for containers and snippet classes, its children.

        Parameters
        ----------
        call : Call
        name : str

        Returns
        -------
        list of (str, module, Call)

        Raises
        ------
        SourceError
            A module derive does not know (without ``--partial``) or wrong arguments.
        """
        if call.name in CONTAINERS:
            return self.container(call, name)
        if call.name in self.classes:
            return self.instance(self.classes[call.name], call, name + ".")
        if "**" in call.kwargs or any(isinstance(a, Opaque) and a.source.startswith("*") for a in call.args):
            raise SourceError(f"line {call.line}: {call.name}: unpacked arguments hide the sizes; write them out")
        try:
            if call.name in TORCH_RECURRENT:
                return [(name, TorchRecurrent(call.name, call.args, call.kwargs), call)]
            if call.name in TORCH_LAYERS:
                return [(name, TORCH_LAYERS[call.name](*call.args, **call.kwargs), call)]
        except (TypeError, ValueError) as error:
            raise SourceError(f"line {call.line}: {call.name}: {' '.join(str(error).split())}") from None
        if not self.partial:
            raise SourceError(
                f"line {call.line}: unknown name {clean(call.dotted, 60)!r}; supported: "
                f"{', '.join(SUPPORTED)} (or --partial to count the rest)"
            )
        self.notes.append(f"line {call.line}: {clean(call.name, 60)} is not known to derive: not counted")
        return [(name, None, call)]


def explain_torch(text: str, partial: bool = False) -> Report:
    """A PyTorch model's modules, counts and closed forms, from its code.

    Parameters
    ----------
    text : str
        Python source: ``nn.Sequential(...)``, a ``class Net(nn.Module)`` (optionally
        instantiated, ``model = Net(...)``), or one module constructor.
    partial : bool
        Count the known modules and mark unknown ones instead of refusing.

    Returns
    -------
    Report
        One row per leaf module (``named_modules()`` order); total =
        ``sum(p.numel() for p in model.parameters())``.

    Raises
    ------
    SourceError
        Unreadable code, an unknown module (with its line and the supported names), arguments
        torch would refuse (torch's wording).

    Examples
    --------
    >>> explain_torch("nn.LSTM(32, 128, 2, bidirectional=True)").total
    561152
    """
    program = TorchProgram(parse_module(text), partial)
    title, modules = program.modules()
    rows = []
    for name, module, call in modules:
        if module is None:
            rows.append(Row(name, clean(call.name, 60), None, note="unknown module, not counted"))
            continue
        try:
            tensors = [(f"{name}.{k}" if name else k, v) for k, v in module.shapes().items()]
        except ValueError:
            tensors = []
        formula, values = module.formula
        rows.append(
            Row(name or call.name, call.name, module.count, formula, values, module.output_shape(), "", tensors)
        )
    _ = numel
    return Report("torch", rows, title, None, program.notes)
