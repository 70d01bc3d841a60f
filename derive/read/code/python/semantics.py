"""A framework's rules for the code reader: what plain Python does not define.

The reader asks a :class:`Semantics` what a framework's names mean (``nn``, ``nn.Linear``), what
calling, indexing or assigning to a framework object does, and how two versions of one object
merge after an unknown condition. The default answers know nothing; a framework overrides what
it defines (:class:`derive.read.code.pytorch.semantics.TorchSemantics` for torch).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from .frame import source_of
from .values import Unknown

if TYPE_CHECKING:
    from .core import Core

__all__ = ["Semantics"]


class Semantics:
    """A framework's rules, asked by the reader for what plain Python does not define.

    The default answers know nothing: every framework name is an :class:`Unknown`. A framework
    (``derive.read.code.pytorch.semantics``) overrides what it defines.

    The hooks share their arguments: ``core`` is the reader (a :class:`~.core.Core`, in practice the
    :class:`derive.read.code.python.Interpreter`), ``obj`` the framework object acted on, and ``node``
    the expression or statement of the code (its line and text go into messages). A hook that
    refuses raises :class:`~.values.Refused`, its message naming the line.
    """

    def free_name(self, name: str) -> Any:
        """A name the code uses without defining it (``nn`` in a snippet), or None.

        Parameters
        ----------
        name : str

        Returns
        -------
        object or None
        """
        return None

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is one of the framework's objects.

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        return False

    def call_ref(self, core: Core, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """The value of calling a package's name (``nn.Linear(...)``).

        Parameters
        ----------
        core : Core
        ref : Ref
        args : list
        kwargs : dict
        node : ast.Call

        Returns
        -------
        object
        """
        return Unknown(source_of(node), f"{ref.path} is not read by derive", node.lineno, "module")

    def unknown(self, node: ast.AST, why: str, kind: str = "value") -> Unknown:
        """An unknown value for ``node`` (the default answer of every hook below).

        Parameters
        ----------
        node : ast.AST
        why : str
        kind : str

        Returns
        -------
        Unknown
        """
        return Unknown(source_of(node), why, getattr(node, "lineno", 0), kind)

    def call_object(self, core: Core, obj: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """Calling a framework object (a module applied to an input: not construction).

        Parameters
        ----------
        core : Core
        obj : object
        args : list
            The positional arguments' values.
        kwargs : dict of str to object
            The keyword arguments' values.
        node : ast.Call

        Returns
        -------
        object
            By default an :class:`Unknown` (a tensor derive does not compute).
        """
        return self.unknown(node, "calling a module computes a tensor, which derive does not read")

    def getattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> Any:
        """``obj.name`` of a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        name : str
        node : ast.AST

        Returns
        -------
        object
            By default an :class:`Unknown`.
        """
        return self.unknown(node, f"{name} of a framework object is not read")

    def setattr(self, core: Core, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``obj.name = value`` on a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        name : str
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")

    def delattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> None:
        """``del obj.name`` on a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        name : str
        node : ast.AST

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"derive does not read `del {source_of(node)}`")

    def subscript(self, core: Core, obj: Any, key: Any, node: ast.AST) -> Any:
        """``obj[key]`` of a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        key : object
        node : ast.AST

        Returns
        -------
        object
            By default an :class:`Unknown`.
        """
        return self.unknown(node, "indexing a framework object is not read")

    def setitem(self, core: Core, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        """``obj[key] = value`` on a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        key : object
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"derive does not read assignments to {source_of(node)}")

    def iterate(self, core: Core, obj: Any, node: ast.AST) -> list[Any] | None:
        """The items of a framework object iterated over, or None when unknown.

        Parameters
        ----------
        core : Core
        obj : object
        node : ast.AST

        Returns
        -------
        list or None
            By default None.
        """
        return None

    def length(self, obj: Any) -> Any:
        """``len(obj)`` of a framework object, or None when unknown.

        Parameters
        ----------
        obj : object

        Returns
        -------
        int or None
            By default None.
        """
        return None

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        """Arithmetic on a framework object (a tensor): an unknown value unless the framework knows.

        Parameters
        ----------
        op : ast.operator
            The operator (``ast.Add()``, ``ast.MatMult()``, ...).
        left, right : object
            The operands, at least one a framework object.
        node : ast.AST

        Returns
        -------
        object
            By default an :class:`Unknown`.
        """
        return self.unknown(node, "arithmetic on framework objects is not read")

    def new_object(self, core: Core, cls: Any, node: ast.AST) -> Any:
        """A new object of a code class with a framework base (``class Net(nn.Module)``), or None.

        Parameters
        ----------
        core : Core
        cls : Class
            The code's class being instantiated.
        node : ast.AST

        Returns
        -------
        object or None
            By default None: a plain :class:`~.values.Instance` is made.
        """
        return None

    def init_base(self, core: Core, obj: Any, base: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``super().__init__(...)`` reaching a framework base class.

        Parameters
        ----------
        core : Core
        obj : object
            The object being initialised (``self``).
        base : Ref
            The framework base class reached.
        args : list
        kwargs : dict of str to object
        node : ast.AST

        Returns
        -------
        None
        """
        return None

    def isinstance_of(self, obj: Any, classinfo: Any) -> bool | None:
        """``isinstance(obj, classinfo)`` for framework objects or classes (None: unknown).

        Parameters
        ----------
        obj : object
        classinfo : object
            The class as the code names it (a :class:`Ref` for a framework class).

        Returns
        -------
        bool or None
            By default None.
        """
        return None

    def has_modules(self, value: Any, seen: set[int]) -> bool:
        """Whether a framework object holds parameters or modules (decides what a fork may change).

        Parameters
        ----------
        value : object
        seen : set of int
            ``id()`` of the values already visited (cycles).

        Returns
        -------
        bool
            By default False.
        """
        return False

    def merge(self, merger: Any, a: Any, b: Any) -> Any:
        """Two framework objects after the two ways of an unknown condition: one, or a refusal.

        Parameters
        ----------
        merger : Merger
            The merge under way (:class:`derive.read.code.python.flow.Merger`).
        a, b : object
            The object after the first and after the second way.

        Returns
        -------
        object or None
            The merged object; None when they differ (the caller refuses). By default ``a`` when
            ``a is b``, else None.
        """
        return a if a is b else None

    def transplant(self, target: Any, source: Any, back: Any) -> None:
        """Write the state of ``source`` (a copy) into ``target``, each reference mapped by ``back``.

        Parameters
        ----------
        target : object
            The original object (its identity is kept).
        source : object
            The copy the way kept ran on.
        back : callable
            Copy -> original, for each value ``source`` refers to.
        """

    def handed_over(self, core: Core, callee: str, args: list[Any], node: ast.AST) -> None:
        """Framework objects given to a function derive does not read (it may change them).

        Parameters
        ----------
        core : Core
        callee : str
            The function as written.
        args : list
            Its arguments' values.
        node : ast.AST

        Returns
        -------
        None
            By default nothing is done.
        """

    def extend(self, core: Core, obj: Any, value: Any, node: ast.AST) -> None:
        """``obj += value`` on a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"`+=` on {source_of(node)} is not read")

    def delitem(self, core: Core, obj: Any, key: Any, node: ast.AST) -> None:
        """``del obj[key]`` on a framework object.

        Parameters
        ----------
        core : Core
        obj : object
        key : object
        node : ast.AST

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"derive does not read `del {source_of(node)}`")

    def unknown_module(self, core: Core, value: Unknown, node: ast.AST) -> Any:
        """A module derive does not know, registered or chosen as the model: refused by default.

        Parameters
        ----------
        core : Core
        value : Unknown
            The value that may be a module.
        node : ast.AST

        Returns
        -------
        object
            A module not counted, where the framework allows it.

        Raises
        ------
        Refused
            By default, always.
        """
        raise core.refuse(node, f"{value.reason()} may be a module, and derive cannot count it")
