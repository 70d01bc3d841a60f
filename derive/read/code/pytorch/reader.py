"""Whole PyTorch models pasted as code, read by following the code: ``nn.Sequential(...)``, ``class Net(nn.Module)``.

The code is read with :mod:`ast` and evaluated by :mod:`derive.read.code.python` — nothing imported,
nothing executed. The model is the module the code builds: an instance of one of its classes
(``model = Net(300, 256)``; ``model`` preferred, else the last), else its last ``nn.Module`` class
not used by another (its ``__init__`` parameters without a default kept as size symbols, the
others at their defaults), else the last module the code makes (``nn.Sequential(...)``). The
statements under ``if __name__ == "__main__":`` are read as the file's own (Python runs them when the
file is run): a model built there is the model, and its class's closed form is given beside it. Names are
exactly those of ``named_parameters()``; tied tensors count once; buffers are listed, not counted.

>>> report = explain_torch("nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128))")
>>> [(r.name, r.params) for r in report.rows], report.total
([('0', 64000), ('1', 99328)], 163328)
"""

from __future__ import annotations

import ast
from typing import Any

from ...._sympy import sympy
from ....engine.constructors import lookup
from ....tree import count
from ...report import Report
from ...source import SourceError, parse_module
from ..python.imported import imports_registered
from ..python.interpreter import Interpreter, assigned, main_guard
from ..python.values import Class, Function, Ref, Refused, Unknown, UserRaise
from .names import supported, torch_name
from .objects import ModObj
from .semantics import TorchSemantics
from .tree import to_tree

__all__ = ["explain_torch", "SUPPORTED"]

#: Every ``torch.nn`` name a model may use.
SUPPORTED = tuple(supported())


class _Program:
    """The candidates for "the model" among a snippet's top-level statements."""

    def __init__(self, reader: Interpreter) -> None:
        self.reader = reader
        self.instances: list[tuple[str | None, Any, Exception | None, ast.stmt]] = []
        self.others: list[tuple[str | None, Any, Exception | None, ast.stmt]] = []

    def after(self, statement: ast.stmt, value: Any, error: Exception | None) -> None:
        if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)):
            return
        targets = assigned(statement)
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        call = statement.value if isinstance(statement.value, ast.Call) else None
        if error is not None:
            kind = self._made_by(call) if call is not None else None
            if kind is not None:  # a refused statement that would have made a model
                (self.instances if kind == "class" else self.others).append((name, None, error, statement))
            return
        if isinstance(value, ModObj):
            (self.instances if value.cls is not None else self.others).append((name, value, None, statement))
        elif isinstance(value, Unknown) and value.kind == "module" and call is not None:
            self.others.append((name, value, None, statement))

    def _made_by(self, call: ast.Call) -> str | None:
        """``"class"`` for a call of one of the code's classes (``Net(...)``, ``Net(...).to(device)``),
        ``"torch"`` for a ``torch.nn`` class, else None (a statement that makes no model)."""
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):  # Net(...).to(device)
            return self._made_by(func.value)
        found: Any = None
        if isinstance(func, ast.Name):
            found = self.reader.module_frame.names.get(func.id) or self.reader.semantics.free_name(func.id)
        elif isinstance(func, ast.Attribute):
            parts = []
            node: ast.AST = func
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            base = self.reader.module_frame.names.get(node.id) if isinstance(node, ast.Name) else None
            base = base or (self.reader.semantics.free_name(node.id) if isinstance(node, ast.Name) else None)
            if isinstance(base, Ref):
                found = Ref(".".join([base.path, *reversed(parts)]))
        if isinstance(found, Class):
            return "class"
        if isinstance(found, Ref) and (torch_name(found.path) is not None or imports_registered(found.path)):
            return "torch"
        return None

    def choose(self) -> tuple[str, ModObj]:
        """The model and its title, or the refusal that stopped it."""
        for group in (self.instances,):
            if group:
                self.chosen = self._chosen(group)
                return self._pick(group)
        classes = self._top_classes()
        if classes:
            return self._uninstantiated(classes[-1])
        if self.others:
            return self._pick(self.others)
        raise SourceError("no PyTorch model found: expected nn.Sequential(...) or class Net(nn.Module) with __init__")

    @staticmethod
    def _chosen(group: list[tuple[str | None, Any, Exception | None, ast.stmt]]) -> ast.stmt:
        named = [entry for entry in group if entry[0] == "model"]
        return (named or group)[-1][3]

    def closed_form(self, model: ModObj, guards: list[ast.stmt]) -> str | None:
        """The note giving the closed form of the class of a model built under the main guard.

        None when the model was not built there, or when its class cannot be read with its
        ``__init__`` parameters as letters (a size that decides the modules built).
        """
        statement = getattr(self, "chosen", None)
        if statement is None or model.cls is None or not isinstance(model.cls, Class):
            return None
        if not any(g.lineno <= statement.lineno <= (g.end_lineno or g.lineno) for g in guards):
            return None
        notes, origins = list(self.reader.notes), dict(self.reader.symbol_origins)
        try:
            _, general = self._uninstantiated(model.cls)
            letters = [str(s) for s in self.reader.symbol_origins if s not in origins]
            total = count(to_tree(general))
        except (Refused, UserRaise, SourceError, RecursionError):
            return None
        finally:
            self.reader.notes[:] = notes
            self.reader.symbol_origins.clear()
            self.reader.symbol_origins.update(origins)
        if not isinstance(total, sympy.Expr) or not total.free_symbols:
            return None
        return (
            f"{model.cls.name}({', '.join(letters)}), its other parameters at their defaults: {total} "
            f"(the model above is the one the file builds, line {statement.lineno})"
        )

    def _pick(self, group: list[tuple[str | None, Any, Exception | None, ast.stmt]]) -> tuple[str, ModObj]:
        named = [entry for entry in group if entry[0] == "model"]
        name, value, error, statement = (named or group)[-1]
        if error is not None:
            raise error
        if isinstance(value, Unknown):
            value = self.reader.semantics.unknown_module(self.reader, value, statement)
        assert isinstance(value, ModObj)
        if value.cls is not None:
            return f"{value.type} (nn.Module)", value
        return (f"nn.{value.type}" if lookup("torch", value.type) else value.type), value

    def _top_classes(self) -> list[Class]:
        names = self.reader.module_frame.names
        classes = [v for v in names.values() if isinstance(v, Class) and any(isinstance(b, Ref) for b in v.mro())]
        used: set[str] = set()
        for cls in classes:
            for value in cls.namespace.values():
                if isinstance(value, Function):
                    used |= {
                        n.func.id
                        for n in ast.walk(value.node)
                        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    }
        return [c for c in classes if c.name not in used] or classes

    def _uninstantiated(self, cls: Class) -> tuple[str, ModObj]:
        """The class built with its parameters' defaults, the others as size symbols."""
        init, _ = cls.lookup("__init__")
        node = ast.Call(ast.Name(cls.name, ast.Load()), [], [], lineno=cls.line, col_offset=0)
        kwargs: dict[str, Any] = {}
        if isinstance(init, Function):
            spec = init.node.args
            positional = [a.arg for a in (*spec.posonlyargs, *spec.args)][1:]
            required = positional[: len(positional) - len(init.defaults)] if init.defaults else positional
            required += [a.arg for a in spec.kwonlyargs if a.arg not in init.kw_defaults]
            for name in required:
                symbol = sympy.Symbol(name, integer=True, positive=True)
                self.reader.symbol_origins[symbol] = (
                    f"'{name}' is a parameter of {cls.name}() without a default, and the code does not instantiate {cls.name}"
                )
                kwargs[name] = symbol
        elif not any(isinstance(c, Class) and "__init__" in c.namespace for c in cls.mro()) and not cls.dataclass:
            if all(b.path.endswith("Module") for b in cls.mro() if isinstance(b, Ref)):
                raise SourceError(f"line {cls.line}: class {cls.name} has no __init__")
        value = self.reader.instantiate(cls, [], kwargs, node)
        assert isinstance(value, ModObj)
        return f"{cls.name} (nn.Module)", value


def explain_torch(text: str, partial: bool = False) -> Report:
    """A PyTorch model's modules, counts and closed forms, from its code.

    Parameters
    ----------
    text : str
        Python source: a model file, ``nn.Sequential(...)``, a ``class Net(nn.Module)`` (optionally
        instantiated, ``model = Net(...)``), or one module constructor. A file that makes no model
        at its top level but in a function its ``if __name__ == "__main__":`` block calls without
        arguments (a test, a ``main()``) is read as that function's body, noted.
    partial : bool
        Count the known modules and mark unknown ones instead of refusing.

    Returns
    -------
    Report
        One row per layer (``named_modules()`` order); total =
        ``sum(p.numel() for p in model.parameters())``; tensors named as ``named_parameters()``.

    Raises
    ------
    SourceError
        Unreadable code; a module derive does not know (with its line and the supported names); a
        size or a condition that decides the modules built, which derive cannot know (the line
        and the name); arguments torch would refuse (torch's wording).

    Examples
    --------
    >>> explain_torch("nn.LSTM(32, 128, 2, bidirectional=True)").total
    561152
    """
    tree = parse_module(text)
    try:
        reader, program, (title, model) = _read(tree, partial)
    except SourceError as none_found:
        called = _guarded_function(tree)
        if called is None or not str(none_found).startswith("no PyTorch model found"):
            raise
        function, line = called  # the file's definitions, then the function's body as the program
        body = [s for s in tree.body if not main_guard(s) and s is not function] + function.body
        reader, program, (title, model) = _read(ast.Module(body, []), partial)
        reader.notes.insert(
            0, f'line {line}: the model {function.name}() makes, which the if __name__ == "__main__": block calls'
        )
    module = to_tree(model)
    general = program.closed_form(model, [s for s in tree.body if main_guard(s)])
    return Report.from_module(module, "torch", title, notes=[*reader.notes, *([general] if general else [])])


def _read(tree: ast.Module, partial: bool) -> tuple[Interpreter, _Program, tuple[str, ModObj]]:
    """The statements of ``tree`` read as a program, and the model they make."""
    semantics = TorchSemantics(partial)
    reader = Interpreter(semantics, partial)
    program = _Program(reader)
    reader.run(tree, program.after)
    try:
        return reader, program, program.choose()
    except RecursionError:
        raise SourceError("code nested too deeply") from None


def _guarded_function(tree: ast.Module) -> tuple[ast.FunctionDef, int] | None:
    """The function of the file that ``if __name__ == "__main__":`` calls last, without arguments,
    when it takes none (a test or a ``main()`` that makes the model in its body), and the call's line."""
    functions = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    for guard in reversed([s for s in tree.body if main_guard(s)]):
        assert isinstance(guard, ast.If)
        for statement in reversed(guard.body):
            call = statement.value if isinstance(statement, ast.Expr) else None
            if not isinstance(call, ast.Call) or call.args or call.keywords or not isinstance(call.func, ast.Name):
                continue
            function = functions.get(call.func.id)
            spec = function.args if function is not None else None
            if function is not None and spec is not None and not (spec.posonlyargs or spec.args or spec.kwonlyargs):
                return function, call.lineno
    return None
