"""The values of the code reader: what a name can hold while derive reads model code without running it.

Python's own values stand for themselves (ints, floats, strings, bools, None, tuples, lists, dicts,
ranges; SymPy expressions for sizes without a value). Besides them:

* :class:`Unknown` — a value derive does not know (a config read from a file, a parameter with no
  value, the result of a function it does not read), with the line and the name it came from;
  every operation on it gives another Unknown, and it makes the reader refuse only where it matters
  (a size, a condition that decides which modules are built);
* :class:`Ref` — a name imported from a package (``torch.nn``, ``math.ceil``), never imported;
* :class:`Function`, :class:`Class`, :class:`Instance`, :class:`BoundMethod`, :class:`Builtin`,
  :class:`Partial` — the code's own functions, classes and objects.

Framework objects (a torch module being built) are the framework semantics' own classes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...source import SourceError, clean

__all__ = [
    "Unknown",
    "Ref",
    "Function",
    "Class",
    "Instance",
    "BoundMethod",
    "Builtin",
    "Partial",
    "FieldSpec",
    "Wrapped",
    "Ordered",
    "Refused",
    "UserRaise",
    "Return",
    "Break",
    "Continue",
    "SuperProxy",
]


class Refused(SourceError):
    """The code cannot be read to an exact answer: the message names the line and the reason."""


class UserRaise(Exception):
    """The code itself raises here (a ``raise`` statement reached, an ``assert`` that fails).

    Parameters
    ----------
    line : int
        The line of the ``raise`` or ``assert``.
    text : str
        What it raises, as written (shown in the message).
    """

    def __init__(self, line: int, text: str) -> None:
        super().__init__(f"line {line}: the code raises here ({text})")
        self.line = line
        self.text = text


class Return(Exception):
    """``return value`` (control flow, not an error).

    Parameters
    ----------
    value : object
        The value returned.
    """

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class Break(Exception):
    """``break``."""


class Continue(Exception):
    """``continue``."""


@dataclass(frozen=True)
class Unknown:
    """A value derive does not know.

    Attributes
    ----------
    name : str
        The expression it stands for, as written (``config.hidden_size``).
    why : str
        Why it is not known (``"'config' is a parameter of Net() with no value"``).
    line : int
        Where the unknown value came from.
    kind : {"value", "module", "parameter"}
        What it may be: a plain value, a module (the result of calling something derive does not
        know), a parameter of unknown shape.
    """

    name: str
    why: str
    line: int = 0
    kind: str = "value"

    @property
    def unread_source(self) -> str:
        """The expression as written, for refusals that name it."""
        return clean(self.name, 60)

    def derived(self, name: str, kind: str = "value") -> Unknown:
        """Another unknown computed from this one (same cause), named ``name``.

        Parameters
        ----------
        name : str
        kind : str

        Returns
        -------
        Unknown
        """
        return Unknown(name, self.why, self.line, kind)

    def reason(self) -> str:
        """``'name' (line N: why)``, for messages.

        Returns
        -------
        str
        """
        where = f"line {self.line}: " if self.line else ""
        return f"{clean(self.name, 60)!r} ({where}{clean(self.why, 200)})"

    def __deepcopy__(self, memo: dict[int, Any]) -> Unknown:
        return self


@dataclass(frozen=True)
class Ref:
    """A name from an imported package (``torch.nn``, ``torch.nn.LSTM``, ``math.ceil``): never imported.

    Attributes
    ----------
    path : str
        The full dotted path (``import torch.nn as nn`` makes ``nn`` the Ref ``"torch.nn"``).
    """

    path: str

    def attr(self, name: str) -> Ref:
        """``self.name`` as a Ref.

        Parameters
        ----------
        name : str

        Returns
        -------
        Ref
        """
        return Ref(f"{self.path}.{name}")

    @property
    def name(self) -> str:
        """The last part of the path."""
        return self.path.rsplit(".", 1)[-1]

    def __deepcopy__(self, memo: dict[int, Any]) -> Ref:
        return self


@dataclass(eq=False)
class Function:
    """A function or lambda of the code, with the scope it was defined in.

    Attributes
    ----------
    name : str
    node : ast.FunctionDef or ast.Lambda
    closure : object
        The frame it was defined in (its free names are read there).
    defaults : list
        The defaults of its positional parameters, evaluated at definition.
    kw_defaults : dict
        The defaults of its keyword-only parameters.
    owner : Class or None
        The class whose body defines it (for ``super()``).
    kind : {"function", "staticmethod", "classmethod", "property"}
    """

    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    closure: Any
    defaults: list[Any] = field(default_factory=list)
    kw_defaults: dict[str, Any] = field(default_factory=dict)
    owner: Class | None = None
    kind: str = "function"

    def __deepcopy__(self, memo: dict[int, Any]) -> Function:
        return self


@dataclass(eq=False)
class Class:
    """A class defined in the code.

    Attributes
    ----------
    name : str
    bases : list
        Classes of the code and Refs (``nn.Module``), in order.
    namespace : dict
        Its body's names (methods, class attributes).
    line : int
    fields : list of (str, value)
        Annotated class attributes, in order (a dataclass's fields; the value may be missing).
    dataclass : bool
    """

    name: str
    bases: list[Any]
    namespace: dict[str, Any]
    line: int
    fields: list[tuple[str, Any]] = field(default_factory=list)
    dataclass: bool = False

    def mro(self) -> list[Any]:
        """The classes searched for an attribute: this one, then its bases (C3 for the code's
        classes; framework Refs at the end, in order of appearance).

        Returns
        -------
        list
        """
        own: list[Class] = []
        refs: list[Ref] = []
        for cls in _c3(self):
            if isinstance(cls, Class):
                own.append(cls)
            elif cls not in refs:
                refs.append(cls)
        return [*own, *refs]

    def lookup(self, name: str) -> tuple[Any, Class | None]:
        """The class attribute ``name`` and the class that defines it, or (None, None).

        Parameters
        ----------
        name : str

        Returns
        -------
        tuple
        """
        for cls in self.mro():
            if isinstance(cls, Class) and name in cls.namespace:
                return cls.namespace[name], cls
        return None, None

    def __deepcopy__(self, memo: dict[int, Any]) -> Class:
        return self


def _c3(cls: Any) -> list[Any]:
    if not isinstance(cls, Class):
        return [cls]
    sequences = [_c3(base) for base in cls.bases] + [list(cls.bases)]
    result = [cls]
    while any(sequences):
        for seq in sequences:
            if not seq:
                continue
            head = seq[0]
            if not any(head in s[1:] for s in sequences):
                break
        else:  # no consistent order: keep depth-first order
            head = next(s[0] for s in sequences if s)
        result.append(head)
        sequences = [s[1:] if s and s[0] is head else [x for x in s if x is not head] for s in sequences]
    return result


@dataclass(eq=False)
class Instance:
    """An object of a class of the code that is not a framework module (a config, a namespace).

    Attributes
    ----------
    cls : Class or None
        None for ``types.SimpleNamespace`` / ``argparse.Namespace``.
    attrs : dict
    """

    cls: Class | None
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class BoundMethod:
    """``obj.method``: a function of the code with its first argument bound.

    Attributes
    ----------
    function : Function
    obj : object
    """

    function: Function
    obj: Any


@dataclass(frozen=True)
class Builtin:
    """A function derive evaluates itself (``len``, ``range``, ``math.ceil``, a list's ``append``).

    Attributes
    ----------
    name : str
    call : callable
        ``call(reader, args, kwargs, node)`` -> value.
    """

    name: str
    call: Callable[..., Any]

    def __deepcopy__(self, memo: dict[int, Any]) -> Builtin:
        return self


@dataclass(frozen=True)
class Partial:
    """``functools.partial(func, *args, **kwargs)``.

    Attributes
    ----------
    func : object
    args : tuple
    kwargs : tuple of (str, value)
    """

    func: Any
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class FieldSpec:
    """``dataclasses.field(default=..., default_factory=...)`` in a dataclass body.

    Attributes
    ----------
    default : object
        The default, or :data:`MISSING`.
    factory : object
        A callable giving the default, or None.
    """

    default: Any
    factory: Any = None


@dataclass(frozen=True)
class Wrapped:
    """``staticmethod(f)``, ``classmethod(f)`` or ``property(f)`` in a class body.

    Attributes
    ----------
    kind : {"staticmethod", "classmethod", "property"}
    function : object
    """

    kind: str
    function: Any


class Ordered(dict):
    """``collections.OrderedDict(...)``: a dict whose order torch keeps where it sorts plain dicts
    (``nn.ParameterDict``)."""


#: A dataclass field without a default.
MISSING = Unknown("MISSING", "a dataclass field without a default")


class SuperProxy:
    """``super()`` inside a method of ``cls`` running on ``obj``.

    Parameters
    ----------
    cls : Class
        The class whose method calls ``super()`` (the lookup starts after it in the MRO).
    obj : object
        The instance the method runs on (``self``).
    """

    def __init__(self, cls: Class, obj: Any) -> None:
        self.cls = cls
        self.obj = obj

    def __deepcopy__(self, memo: dict[int, Any]) -> SuperProxy:
        return self
