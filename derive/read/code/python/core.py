"""The reader's shared state: the frame stack, the step limit, notes and refusals.

The layers of the reader (:mod:`.operators`, :mod:`.expressions`, :mod:`.attributes`,
:mod:`.calls`, :mod:`.statements`) are mixed over one :class:`Core` in
:class:`derive.read.code.python.Interpreter`; the framework's rules come from its
:class:`~.semantics.Semantics`.
"""

from __future__ import annotations

import ast
import builtins
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from .frame import MAX_STEPS, Frame
from .semantics import Semantics
from .values import Refused

__all__ = ["Core"]

_PYTHON = frozenset(dir(builtins))


#: The framework's semantics a reader holds (:class:`~.semantics.Semantics` or a subclass).
S = TypeVar("S", bound=Semantics)


class Core(ABC, Generic[S]):
    """The reader's shared state and helpers (see :class:`derive.read.code.python.Interpreter`).

    Parameters
    ----------
    semantics : Semantics
    partial : bool
        Count what is known and mark the rest instead of refusing.
    """

    def __init__(self, semantics: S, partial: bool = False) -> None:
        self.semantics: S = semantics
        self.partial = partial
        self.steps = 0
        self.calls = 0
        self.frame = Frame({})
        self.module_frame = self.frame
        self.stack: list[Frame] = [self.frame]
        self.notes: list[str] = []
        self.line = 0
        #: SymPy symbol -> why it has no value (a parameter of an uninstantiated class)
        self.symbol_origins: dict[Any, str] = {}
        #: module name -> its globals, for the installed packages read (:mod:`.packages`; None: not readable)
        self.packages: dict[str, Frame | None] = {}

    def step(self, node: ast.AST) -> None:
        """Count one statement or expression; refuse past :data:`MAX_STEPS`.

        Parameters
        ----------
        node : ast.AST

        Raises
        ------
        Refused
            Too many steps (a loop too long to read).
        """
        self.steps += 1
        line = getattr(node, "lineno", None)
        if line is not None:
            self.line = line
        if self.steps > MAX_STEPS:
            raise Refused(
                f"line {self.line}: more than {MAX_STEPS:,} steps to read; derive stops here (a loop too long?)"
            )

    def refuse(self, node: ast.AST | None, message: str) -> Refused:
        """A refusal at ``node``'s line (raise it).

        Parameters
        ----------
        node : ast.AST or None
        message : str

        Returns
        -------
        Refused
        """
        line = getattr(node, "lineno", None) or self.line
        return Refused(f"line {line}: {message}")

    def note(self, text: str) -> None:
        """Add a note shown under the report (once).

        Parameters
        ----------
        text : str
        """
        if text not in self.notes:
            self.notes.append(text)

    def python_builtin(self, name: str) -> bool:
        """Whether ``name`` is one of Python's builtins (never a size symbol).

        Parameters
        ----------
        name : str

        Returns
        -------
        bool
        """
        return name in _PYTHON

    # -- provided by the layers of the reader (operators, expressions, calls, statements) ----------
    @abstractmethod
    def eval(self, node: ast.AST) -> Any:
        """The value of an expression (:class:`~.expressions.Expressions`).

        Parameters
        ----------
        node : ast.AST
            The expression.

        Returns
        -------
        object

        Raises
        ------
        Refused
            The code cannot be read (the message names the line).
        """

    @abstractmethod
    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``func(*args, **kwargs)`` (:class:`~.calls.Calls`).

        Parameters
        ----------
        func : object
            What is called (a code function or class, a builtin, a framework name).
        args : list
        kwargs : dict of str to object
        node : ast.AST
            The call (for lines and messages).

        Returns
        -------
        object

        Raises
        ------
        Refused
            The call cannot be read.
        """

    @abstractmethod
    def eval_call(self, node: ast.Call) -> Any:
        """The value of a call expression, its arguments evaluated (:class:`~.calls.Calls`).

        Parameters
        ----------
        node : ast.Call

        Returns
        -------
        object

        Raises
        ------
        Refused
            The call cannot be read.
        """

    @abstractmethod
    def assign(self, target: ast.AST, value: Any) -> None:
        """Bind ``value`` to an assignment target (:class:`~.statements.Statements`).

        Parameters
        ----------
        target : ast.AST
            A name, an attribute, an item, or an unpacking.
        value : object

        Raises
        ------
        Refused
            A target derive does not read.
        """

    @abstractmethod
    def set_attr(self, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        """``obj.name = value`` (:class:`~.statements.Statements`).

        Parameters
        ----------
        obj : object
        name : str
        value : object
        node : ast.AST

        Raises
        ------
        Refused
            An assignment the framework's rules refuse.
        """

    @abstractmethod
    def get_attr(self, value: Any, name: str, node: ast.AST) -> Any:
        """``value.name`` (:class:`~.attributes.Attributes`).

        Parameters
        ----------
        value : object
        name : str
        node : ast.AST

        Returns
        -------
        object
        """

    @abstractmethod
    def builtin(self, name: str) -> Any:
        """The Python builtin ``name`` derive evaluates, or None (:class:`~.calls.Calls`).

        Parameters
        ----------
        name : str

        Returns
        -------
        Builtin or None
        """

    @abstractmethod
    def exec_block(self, statements: list[ast.stmt]) -> None:
        """Run statements in the current frame (:class:`~.statements.Statements`).

        Parameters
        ----------
        statements : list of ast.stmt

        Raises
        ------
        Refused
            A statement derive does not read, where it matters.
        """

    @abstractmethod
    def why_unknown(self, value: Any, node: ast.AST) -> str:
        """Why ``value`` (the value of ``node``) is not known (:class:`~.operators.Operators`).

        Parameters
        ----------
        value : object
        node : ast.AST

        Returns
        -------
        str
        """

    @abstractmethod
    def iterate(self, value: Any, node: ast.AST) -> list[Any] | range | None:
        """The items of ``value`` in iteration order, or None when not known (:class:`~.operators.Operators`).

        Parameters
        ----------
        value : object
        node : ast.AST

        Returns
        -------
        list, range or None
        """

    @abstractmethod
    def bind_attr(self, found: Any, obj: Any, node: ast.AST) -> Any:
        """A class attribute seen from ``obj``: functions bound, properties read (:class:`~.attributes.Attributes`).

        Parameters
        ----------
        found : object
        obj : object
        node : ast.AST

        Returns
        -------
        object
        """

    @abstractmethod
    def call_function(
        self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST, shown: str = "", skip: int = 0
    ) -> Any:
        """Run a function of the code (:class:`~.calls.Calls`).

        Parameters
        ----------
        fn : Function
        args : list
        kwargs : dict
        node : ast.AST
        shown : str, optional
        skip : int

        Returns
        -------
        object
        """

    @abstractmethod
    def read_body(self, body: list[ast.stmt], after: Any = None, script: bool = True) -> None:
        """Read a module's top-level statements (:class:`~.interpreter.Interpreter`).

        Parameters
        ----------
        body : list of ast.stmt
        after : callable, optional
        script : bool
        """

    @abstractmethod
    def fork_values(self, node: ast.AST, test: Any, a: ast.expr, b: ast.expr) -> Any:
        """A conditional expression whose test is not known: both values, merged (:class:`~.statements.Statements`).

        Parameters
        ----------
        node : ast.AST
            The conditional expression.
        test : object
            The test's value (not known).
        a, b : ast.expr
            The value if true, the value if false.

        Returns
        -------
        object

        Raises
        ------
        Refused
            Modules or parameters that differ between the two values.
        """
