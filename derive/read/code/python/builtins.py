"""The builtins and standard-library functions the reader evaluates itself, never Python's own.

``range``, ``len``, ``min``, ``max``, ``sum``, ``abs``, ``round``, ``int``, ``float``, ``bool``,
``str``, ``list``, ``tuple``, ``dict``, ``set``, ``enumerate``, ``zip``, ``reversed``, ``sorted``,
``any``, ``all``, ``map``, ``filter``, ``isinstance``, ``hasattr``, ``getattr``, ``setattr``,
``type``, ``super``, ``print`` (prints nothing), ``callable``, ``divmod``, ``pow``, ``repr``,
``staticmethod``, ``classmethod``, ``property`` (the standard library's: :mod:`.stdlib`). Every
function here checks its arguments: an unknown one gives an unknown result. Python's other
builtins (``open``, ``eval``, ``__import__`` ...) are never run: their results are unknown.
"""

from __future__ import annotations

import ast
from typing import Any

from ...._sympy import sympy
from .frame import MAX_ITEMS, source_of
from .values import Builtin, Class, Function, Instance, Partial, Ref, SuperProxy, Unknown, Wrapped

__all__ = ["BUILTINS", "TYPES"]

#: Python types by the name the code uses, for ``isinstance`` / ``int(...)``.
TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple, "dict": dict, "set": set}


def _unknown(node: ast.AST, why: str) -> Unknown:
    return Unknown(source_of(node), why, getattr(node, "lineno", 0))


def _first_unknown(values: Any) -> Unknown | None:
    return next((v for v in values if isinstance(v, Unknown)), None)


def _items(reader: Any, value: Any, node: ast.AST) -> list[Any] | None:
    items = reader.iterate(value, node)
    if items is None:
        return None
    if len(items) > MAX_ITEMS:
        raise reader.refuse(node, f"more than {MAX_ITEMS:,} items")
    return list(items)


def _range(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    bad = _first_unknown(args)
    if bad is not None:
        return bad.derived(source_of(node))
    if not args or len(args) > 3 or kwargs or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        symbolic = next((a for a in args if isinstance(a, sympy.Basic)), None)
        why = reader.why_unknown(symbolic, node) if symbolic is not None else "range() of values that are not ints"
        return Unknown(source_of(node), why, getattr(node, "lineno", 0))
    return range(*args)


def _len(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    (value,) = args
    if isinstance(value, Unknown):
        return value.derived(source_of(node))
    if isinstance(value, (list, tuple, str, dict, set, range)):
        return len(value)
    if reader.semantics.owns(value):
        n = reader.semantics.length(value)
        if n is not None:
            return n
    return _unknown(node, reader.why_unknown(value, node))


def _numbers(reader: Any, args: list[Any], node: ast.AST) -> list[Any] | Unknown:
    values = args
    if len(args) == 1:
        items = _items(reader, args[0], node)
        if items is None:
            return _unknown(node, reader.why_unknown(args[0], node))
        values = items
    bad = _first_unknown(values)
    if bad is not None:
        return bad.derived(source_of(node))
    if not all(isinstance(v, (int, float, sympy.Expr)) for v in values):
        return _unknown(node, "min/max/sum of values that are not numbers")
    return values


def _extreme(which: str) -> Any:
    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if set(kwargs) - {"default"}:
            return _unknown(node, f"{which}() with a key is not read")
        values = _numbers(reader, args, node)
        if isinstance(values, Unknown):
            return values
        if not values:
            return kwargs.get("default", _unknown(node, f"{which}() of nothing"))
        if any(isinstance(v, sympy.Basic) for v in values):
            result = (sympy.Max if which == "max" else sympy.Min)(*values)
            return int(result) if result.is_Integer else result
        return (max if which == "max" else min)(values)

    return call


def _sum(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    values = _numbers(reader, args[:1], node)
    if isinstance(values, Unknown):
        return values
    total: Any = args[1] if len(args) > 1 else kwargs.get("start", 0)
    for v in values:
        total = reader.binop(ast.Add(), total, v, node)
    return total


def _convert(kind: str) -> Any:
    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if kind == "dict":
            return _dict(reader, args, kwargs, node)
        if kwargs:
            return _unknown(node, f"{kind}() with keyword arguments is not read")
        if not args:
            return TYPES[kind]()
        value = args[0]
        if isinstance(value, Unknown):
            return value.derived(source_of(node))
        if kind in ("list", "tuple", "set"):
            items = _items(reader, value, node)
            if items is None:
                return _unknown(node, reader.why_unknown(value, node))
            return TYPES[kind](items) if kind != "set" else _set(items, node)
        if isinstance(value, sympy.Basic):
            if kind == "int":
                if value.is_integer:
                    return value
                if value.is_nonnegative:
                    return sympy.floor(value)
            if kind == "str":
                return str(value)
            return _unknown(node, reader.why_unknown(value, node))
        if not isinstance(value, (int, float, str, bool)) and not (kind == "str" and value is None):
            return _unknown(node, f"{kind}() of a {type(value).__name__}")
        try:
            return TYPES[kind](*args[:2]) if kind == "int" else TYPES[kind](value)
        except (ValueError, TypeError, OverflowError):
            return _unknown(node, f"{kind}() that Python refuses")

    return call


def _set(items: list[Any], node: ast.AST) -> Any:
    try:
        return set(items)
    except TypeError:
        return _unknown(node, "a set of unhashable values")


def _dict(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    out: dict[Any, Any] = {}
    if args:
        source = args[0]
        if isinstance(source, dict):
            out.update(source)
        else:
            items = _items(reader, source, node)
            if items is None:
                return _unknown(node, reader.why_unknown(source, node))
            for pair in items:
                if not isinstance(pair, (tuple, list)) or len(pair) != 2 or isinstance(pair[0], Unknown):
                    return _unknown(node, "dict() of items that are not known pairs")
                out[pair[0]] = pair[1]
    out.update(kwargs)
    return out


def _enumerate(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    items = _items(reader, args[0], node)
    if items is None:
        return _unknown(node, reader.why_unknown(args[0], node))
    start = args[1] if len(args) > 1 else kwargs.get("start", 0)
    return [(start + i, item) for i, item in enumerate(items)]


def _zip(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    lists = []
    for arg in args:
        items = _items(reader, arg, node)
        if items is None:
            return _unknown(node, reader.why_unknown(arg, node))
        lists.append(items)
    return [tuple(group) for group in zip(*lists)]


def _reversed(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    items = _items(reader, args[0], node)
    return _unknown(node, reader.why_unknown(args[0], node)) if items is None else items[::-1]


def _sorted(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    items = _items(reader, args[0], node)
    if items is None or _first_unknown(items) is not None:
        return _unknown(node, reader.why_unknown(args[0], node))
    key = kwargs.get("key")
    keys = [reader.call(key, [i], {}, node) if key is not None else i for i in items]
    if _first_unknown(keys) is not None or any(isinstance(k, sympy.Basic) and not k.is_Number for k in keys):
        return _unknown(node, "sorting values derive does not know")
    try:
        order = sorted(range(len(items)), key=lambda i: keys[i], reverse=bool(kwargs.get("reverse", False)))
    except TypeError:
        return _unknown(node, "sorting values Python cannot compare")
    return [items[i] for i in order]


def _any_all(which: str) -> Any:
    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        from .operators import truth

        items = _items(reader, args[0], node)
        if items is None:
            return _unknown(node, reader.why_unknown(args[0], node))
        truths = [truth(i) for i in items]
        if which == "any" and True in truths or which == "all" and False in truths:
            return which == "any"
        if None in truths:
            return _unknown(node, f"{which}() of values derive does not know")
        return which == "all"

    return call


def _map(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    zipped = _zip(reader, args[1:], {}, node)
    if isinstance(zipped, Unknown):
        return zipped
    return [reader.call(args[0], list(group), {}, node) for group in zipped]


def _filter(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    from .operators import truth

    items = _items(reader, args[1], node)
    if items is None:
        return _unknown(node, reader.why_unknown(args[1], node))
    out = []
    for item in items:
        keep = truth(item if args[0] is None else reader.call(args[0], [item], {}, node))
        if keep is None:
            return _unknown(node, "filter() of values derive does not know")
        if keep:
            out.append(item)
    return out


def _isinstance(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    value, classinfo = args
    if isinstance(value, Unknown):
        return value.derived(source_of(node))
    kinds = classinfo if isinstance(classinfo, tuple) else (classinfo,)
    answers = [_is_a(reader, value, kind) for kind in kinds]
    if True in answers:
        return True
    if None in answers:
        return _unknown(node, f"whether {source_of(node)} is not known")
    return False


def _is_a(reader: Any, value: Any, kind: Any) -> bool | None:
    if isinstance(kind, Builtin) and kind.name in TYPES:
        python = TYPES[kind.name]
        if isinstance(value, sympy.Basic):
            return None if python is int and not value.is_Integer else (python is int and bool(value.is_integer))
        return isinstance(value, python) and not (python is int and isinstance(value, bool) and kind.name != "int")
    if isinstance(kind, Class):
        cls = getattr(value, "cls", None)
        return isinstance(cls, Class) and kind in cls.mro()
    if isinstance(kind, Ref) or reader.semantics.owns(value):
        return reader.semantics.isinstance_of(value, kind)
    return None


def _hasattr(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    value, name = args
    if not isinstance(name, str):
        return _unknown(node, "hasattr() of a name derive does not know")
    found = reader.get_attr(value, name, node)
    if isinstance(found, Unknown):
        if isinstance(value, (Instance, Class)):
            return False
        return found
    return True


def _getattr(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    value, name = args[0], args[1]
    if not isinstance(name, str):
        return _unknown(node, "getattr() of a name derive does not know")
    found = reader.get_attr(value, name, node)
    if len(args) > 2 and isinstance(found, Unknown) and isinstance(value, (Instance, Class)):
        return args[2]
    return found


def _setattr(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    obj, name, value = args
    if not isinstance(name, str):
        raise reader.refuse(node, f"setattr() with a name derive does not know: {reader.why_unknown(name, node)}")
    reader.set_attr(obj, name, value, node)
    return None


def _type(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    (value,) = args
    cls = getattr(value, "cls", None)
    if isinstance(cls, Class):
        return cls
    if isinstance(value, Partial):
        return Ref("functools.partial")
    if isinstance(value, Function):
        return Ref("types.FunctionType")
    for name, python in TYPES.items():
        if type(value) is python:
            return BUILTINS[name]
    return _unknown(node, "type() of this value is not read")


def _super(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    if len(args) == 2 and isinstance(args[0], Class):
        return SuperProxy(args[0], args[1])
    frame = reader.frame
    while frame is not None and frame.owner_class is None:
        frame = frame.parent
    if frame is None or frame.first_name is None:
        raise reader.refuse(node, "super() outside a method")
    return SuperProxy(frame.owner_class, frame.names.get(frame.first_name))


def _round(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    bad = _first_unknown(args)
    if bad is not None or not all(isinstance(a, (int, float)) for a in args):
        return _unknown(node, "round() of values derive does not know")
    return round(*args)


def _python(fn: Any, kinds: tuple[type, ...] = (int, float)) -> Any:
    def call(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        bad = _first_unknown(args)
        if bad is not None:
            return bad.derived(source_of(node))
        if kwargs or not all(isinstance(a, kinds) for a in args):
            return _unknown(node, f"{source_of(getattr(node, 'func', node))}() of values derive does not know")
        try:
            result = fn(*args)
        except (ValueError, TypeError, OverflowError, ArithmeticError):
            return _unknown(node, "arithmetic Python refuses")
        return result

    return call


def _print(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    return None


def _repr(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    (value,) = args
    if isinstance(value, (int, float, str, bool, type(None))):
        return repr(value)
    return _unknown(node, "repr() of an object")


def _callable(reader: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    (value,) = args
    if isinstance(value, Unknown):
        return value.derived(source_of(node))
    return isinstance(value, (Function, Class, Builtin, Partial, Ref)) or reader.semantics.owns(value)


def _wrap(kind: str) -> Any:
    return lambda reader, args, kwargs, node: Wrapped(kind, args[0])


#: Python's builtin functions the reader runs, by name (``range``, ``len``, ``isinstance``, ...).
BUILTINS: dict[str, Builtin] = {
    name: Builtin(name, fn)
    for name, fn in {
        "range": _range,
        "len": _len,
        "min": _extreme("min"),
        "max": _extreme("max"),
        "sum": _sum,
        "abs": _python(abs),
        "round": _round,
        "divmod": _python(divmod),
        "pow": _python(pow),
        **{name: _convert(name) for name in TYPES},
        "enumerate": _enumerate,
        "zip": _zip,
        "reversed": _reversed,
        "sorted": _sorted,
        "any": _any_all("any"),
        "all": _any_all("all"),
        "map": _map,
        "filter": _filter,
        "isinstance": _isinstance,
        "hasattr": _hasattr,
        "getattr": _getattr,
        "setattr": _setattr,
        "type": _type,
        "super": _super,
        "print": _print,
        "repr": _repr,
        "callable": _callable,
        "staticmethod": _wrap("staticmethod"),
        "classmethod": _wrap("classmethod"),
        "property": _wrap("property"),
    }.items()
}
