"""Expressions of the construction subset of Python, read to values without running anything.

Literals, names, attributes, subscripts and slices, displays with ``*``/``**``, ``and``/``or``/
``not``, conditional expressions, comprehensions, f-strings, lambdas and ``:=`` (the operators are
:mod:`.operators`). An operation on an :class:`~.values.Unknown` gives an Unknown; a construct
outside the subset (``await``, ``yield``) gives one too.
"""

from __future__ import annotations

import ast
from typing import Any

from ...._sympy import sympy
from .frame import MAX_INT, MAX_ITEMS, Frame, source_of
from .operators import Operators, plain_number, sympy_value, truth
from .stdlib import FREE_MODULES
from .values import Function, Ref, Unknown

__all__ = ["Expressions"]

_PLAIN = (int, float, str, bool, type(None))


class Expressions(Operators):
    """The expression layer of the reader (mixed into :class:`derive.read.code.python.Interpreter`)."""

    def eval(self, node: ast.AST) -> Any:
        """The value of an expression.

        Parameters
        ----------
        node : ast.expr

        Returns
        -------
        object

        Raises
        ------
        Refused
            The code cannot be read (the message names the line).
        """
        self.step(node)
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            return Unknown(source_of(node), f"{type(node).__name__} expressions are not read", self.line)
        return method(node)

    # -- atoms ---------------------------------------------------------------------------------
    def _Constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            return Unknown(source_of(node), f"an integer beyond {MAX_INT:.0e}", node.lineno)
        if isinstance(value, (bytes, complex)):
            return Unknown(source_of(node), f"{type(value).__name__} literals are not read", node.lineno)
        return value

    def _Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def lookup(self, name: str, node: ast.AST) -> Any:
        """The value of a name: the scopes, the builtins, the framework's free names, else a size symbol.

        Parameters
        ----------
        name : str
        node : ast.AST

        Returns
        -------
        object
        """
        found, value = self.frame.lookup(name)
        if found:
            return value
        builtin = self.builtin(name)
        if builtin is not None:
            return builtin
        free = self.semantics.free_name(name)
        if free is not None:
            return free
        if name in FREE_MODULES:
            return Ref(FREE_MODULES[name])
        if self.python_builtin(name):
            return Unknown(name, f"Python's {name} is not evaluated by derive", getattr(node, "lineno", 0))
        symbol = sympy.Symbol(name, integer=True, positive=True)
        self.symbol_origins.setdefault(symbol, f"'{name}' is not defined in the code")
        return symbol

    def _Attribute(self, node: ast.Attribute) -> Any:
        return self.get_attr(self.eval(node.value), node.attr, node)

    def _Subscript(self, node: ast.Subscript) -> Any:
        value = self.eval(node.value)
        key = self.eval(node.slice)
        return self.subscript(value, key, node)

    def subscript(self, value: Any, key: Any, node: ast.AST) -> Any:
        """``value[key]``.

        Parameters
        ----------
        value, key : object
        node : ast.AST

        Returns
        -------
        object
        """
        if isinstance(value, Unknown):
            return value.derived(source_of(node))
        if isinstance(key, Unknown):
            return key.derived(source_of(node))
        if self.semantics.owns(value):
            return self.semantics.subscript(self, value, key, node)
        if isinstance(value, (list, tuple, str, range)) and isinstance(key, (int, slice)) and not isinstance(key, bool):
            try:
                return value[key]
            except IndexError:
                return Unknown(source_of(node), "index out of range", getattr(node, "lineno", 0))
        if isinstance(value, dict):
            try:
                return value[sympy_value(key)]
            except (KeyError, TypeError):
                return Unknown(source_of(node), f"no key {key!r}", getattr(node, "lineno", 0))
        return Unknown(source_of(node), "this subscript is not read", getattr(node, "lineno", 0))

    def _Slice(self, node: ast.Slice) -> Any:
        parts = [None if n is None else self.eval(n) for n in (node.lower, node.upper, node.step)]
        for part in parts:
            if isinstance(part, Unknown):
                return part
            if part is not None and not (isinstance(part, int) and not isinstance(part, bool)):
                return Unknown(source_of(node), "a slice of sizes without a value", getattr(node, "lineno", 0))
        return slice(*parts)

    # -- displays ------------------------------------------------------------------------------
    def items(self, nodes: list[ast.expr], node: ast.AST) -> list[Any] | Unknown:
        """Values of display items, ``*x`` expanded.

        Parameters
        ----------
        nodes : list of ast.expr
        node : ast.AST

        Returns
        -------
        list or Unknown
        """
        out: list[Any] = []
        for item in nodes:
            if isinstance(item, ast.Starred):
                value = self.eval(item.value)
                expanded = self.iterate(value, item)
                if expanded is None:
                    return Unknown(source_of(node), f"{source_of(item.value)} is not known", item.lineno)
                out.extend(expanded)
            else:
                out.append(self.eval(item))
            if len(out) > MAX_ITEMS:
                raise self.refuse(node, f"more than {MAX_ITEMS:,} items in one list")
        return out

    def _List(self, node: ast.List) -> Any:
        return self.items(node.elts, node)

    def _Tuple(self, node: ast.Tuple) -> Any:
        items = self.items(node.elts, node)
        return items if isinstance(items, Unknown) else tuple(items)

    def _Set(self, node: ast.Set) -> Any:
        items = self.items(node.elts, node)
        if isinstance(items, Unknown):
            return items
        try:
            return set(items)
        except TypeError:
            return Unknown(source_of(node), "a set of unhashable values", node.lineno)

    def _Dict(self, node: ast.Dict) -> Any:
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                more = self.eval(value)
                if isinstance(more, Unknown):
                    return more.derived(source_of(node))
                if not isinstance(more, dict):
                    return Unknown(source_of(node), f"**{source_of(value)} is not a dict derive knows", node.lineno)
                out.update(more)
                continue
            k = self.eval(key)
            if isinstance(k, Unknown):
                return k.derived(source_of(node))
            try:
                out[sympy_value(k)] = self.eval(value)
            except TypeError:
                return Unknown(source_of(node), "a dict key that is not hashable", node.lineno)
        return out

    def _JoinedStr(self, node: ast.JoinedStr) -> Any:
        parts = []
        for part in node.values:
            value = self.eval(part)
            if isinstance(value, Unknown):
                return value.derived(source_of(node))
            parts.append(value)
        text = "".join(parts)
        return text

    def _FormattedValue(self, node: ast.FormattedValue) -> Any:
        value = self.eval(node.value)
        if isinstance(value, Unknown):
            return value
        spec = "" if node.format_spec is None else self.eval(node.format_spec)
        if isinstance(spec, Unknown):
            return spec
        if isinstance(value, sympy.Basic):
            value = sympy_value(value)
            if isinstance(value, sympy.Basic):
                return str(value)
        if not isinstance(value, _PLAIN):
            return Unknown(source_of(node), "formatting an object that is not a plain value", node.lineno)
        if node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion in (ord("s"), ord("a")):
            value = str(value)
        try:
            return format(value, spec)
        except (ValueError, TypeError):
            return Unknown(source_of(node), f"format spec {spec!r} is not read", node.lineno)

    # -- operators -----------------------------------------------------------------------------
    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.eval(node.operand)
        if isinstance(value, Unknown):
            return value.derived(source_of(node))
        if isinstance(node.op, ast.Not):
            known = truth(value, self.semantics.length(value) if self.semantics.owns(value) else None)
            if known is None:
                return Unknown(source_of(node), self.why_unknown(value, node.operand), node.lineno)
            return not known
        if plain_number(value):
            if isinstance(node.op, ast.USub):
                return -value
            if isinstance(node.op, ast.UAdd):
                return +value
            if isinstance(node.op, ast.Invert) and isinstance(value, int):
                return ~value
        return Unknown(source_of(node), "this operator is not read", node.lineno)

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for item in node.values:
            value = self.eval(item)
            known = truth(value, self.semantics.length(value) if self.semantics.owns(value) else None)
            if known is None:
                return Unknown(source_of(node), self.why_unknown(value, item), node.lineno)
            if isinstance(node.op, ast.And) and not known:
                return value
            if isinstance(node.op, ast.Or) and known:
                return value
        return value

    def _Compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            result = self.compare(op, left, right, node)
            if result is not True:
                return result
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        test = self.eval(node.test)
        known = truth(test, self.semantics.length(test) if self.semantics.owns(test) else None)
        if known is None:
            return self.fork_values(node, test, node.body, node.orelse)
        return self.eval(node.body if known else node.orelse)

    def _NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return value

    def _Lambda(self, node: ast.Lambda) -> Any:
        defaults = [self.eval(d) for d in node.args.defaults]
        kw = {a.arg: self.eval(d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None}
        return Function("<lambda>", node, self.frame, defaults, kw)

    def _Call(self, node: ast.Call) -> Any:
        return self.eval_call(node)

    def _Starred(self, node: ast.Starred) -> Any:
        return Unknown(source_of(node), "a starred expression here is not read", node.lineno)

    # -- iteration and comprehensions -----------------------------------------------------------
    def _comprehension(self, node: ast.AST, generators: list[ast.comprehension], produce: Any) -> Any:
        outer = self.frame
        self.frame = Frame({}, outer, "<comprehension>")
        try:
            return self._generate(node, generators, 0, produce)
        finally:
            self.frame = outer

    def _generate(self, node: ast.AST, generators: list[ast.comprehension], index: int, produce: Any) -> Any:
        if index == len(generators):
            return produce()
        generator = generators[index]
        iterable = self.eval(generator.iter)
        items = self.iterate(iterable, generator.iter)
        if items is None:
            return Unknown(source_of(node), self.why_unknown(iterable, generator.iter), getattr(node, "lineno", 0))
        if len(items) > MAX_ITEMS:
            raise self.refuse(node, f"a comprehension over more than {MAX_ITEMS:,} items")
        for item in items:
            self.step(node)
            self.assign(generator.target, item)
            keep = True
            for condition in generator.ifs:
                test = self.eval(condition)
                known = truth(test, self.semantics.length(test) if self.semantics.owns(test) else None)
                if known is None:
                    return Unknown(source_of(node), self.why_unknown(test, condition), condition.lineno)
                keep = keep and known
            if keep:
                result = self._generate(node, generators, index + 1, produce)
                if isinstance(result, Unknown):
                    return result
        return None

    def _collect(self, node: ast.AST, generators: list[ast.comprehension], element: Any) -> list[Any] | Unknown:
        out: list[Any] = []

        def produce() -> None:
            out.append(element())
            if len(out) > MAX_ITEMS:
                raise self.refuse(node, f"more than {MAX_ITEMS:,} items in one comprehension")

        result = self._comprehension(node, generators, produce)
        return result if isinstance(result, Unknown) else out

    def _ListComp(self, node: ast.ListComp) -> Any:
        return self._collect(node, node.generators, lambda: self.eval(node.elt))

    def _GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        return self._collect(node, node.generators, lambda: self.eval(node.elt))

    def _SetComp(self, node: ast.SetComp) -> Any:
        items = self._collect(node, node.generators, lambda: self.eval(node.elt))
        if isinstance(items, Unknown):
            return items
        try:
            return set(items)
        except TypeError:
            return Unknown(source_of(node), "a set of unhashable values", node.lineno)

    def _DictComp(self, node: ast.DictComp) -> Any:
        pairs = self._collect(node, node.generators, lambda: (self.eval(node.key), self.eval(node.value)))
        if isinstance(pairs, Unknown):
            return pairs
        out = {}
        for key, value in pairs:
            if isinstance(key, Unknown):
                return key
            try:
                out[sympy_value(key)] = value
            except TypeError:
                return Unknown(source_of(node), "a dict key that is not hashable", node.lineno)
        return out

    # -- attributes of plain values -------------------------------------------------------------
