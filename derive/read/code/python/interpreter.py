"""The reader of model code: Python's construction subset, read without running anything.

:class:`Interpreter` joins the three halves (:mod:`.expressions`, :mod:`.calls`,
:mod:`.statements`) over one :class:`~.core.Core` state; a :class:`~.semantics.Semantics` says what a
framework's names mean. Nothing is imported or executed: imports bind names
(:class:`~.values.Ref`), calls of the code's own functions run their bodies here, and a value
derive cannot know is an :class:`~.values.Unknown` that makes it refuse where it matters.

A file is read as Python runs it as a script: ``__name__`` is ``"__main__"``, and the statements under
``if __name__ == "__main__":`` are top-level statements of the file (the sizes set there are module
globals; the ``model = Tagger(...)`` made there is a model the file builds).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ...source import SourceError
from .semantics import Semantics
from .statements import Statements
from .values import Refused, UserRaise

__all__ = ["Interpreter", "assigned", "main_guard"]


class Interpreter(Statements):
    """Reads a module's statements; the framework's meaning comes from ``semantics``.

    Parameters
    ----------
    semantics : Semantics
    partial : bool
        Count what is known and mark the rest instead of refusing.

    Examples
    --------
    >>> import ast
    >>> reader = Interpreter(Semantics())
    >>> reader.run(ast.parse("def f(n, k=2):\\n    return [i * k for i in range(n)]\\nx = f(3)"))
    >>> reader.module_frame.names["x"]
    [0, 2, 4]
    """

    def __init__(self, semantics: Semantics, partial: bool = False) -> None:
        super().__init__(semantics, partial)
        self.module_frame.names["__name__"] = "__main__"

    def run(self, tree: ast.Module, after: Callable[[ast.stmt, Any, Exception | None], None] | None = None) -> None:
        """Read every top-level statement; a statement that is refused does not stop the others.

        Parameters
        ----------
        tree : ast.Module
        after : callable, optional
            ``after(statement, value, refusal)`` once each top-level statement is read: ``value``
            the value of an expression statement or of an assignment, ``refusal`` the
            :class:`~.values.Refused` or :class:`~.values.UserRaise` that stopped it (or None).

        Raises
        ------
        SourceError
            Code nested too deeply for the reader.
        """
        self.read_body(tree.body, after)

    def read_body(
        self,
        body: list[ast.stmt],
        after: Callable[[ast.stmt, Any, Exception | None], None] | None = None,
        script: bool = True,
    ) -> None:
        """Read a module's top-level statements, each refusal stopping only its own statement.

        Parameters
        ----------
        body : list of ast.stmt
        after : callable, optional
            As for :meth:`run`.
        script : bool
            The module runs as a script: its ``if __name__ == "__main__":`` block is read as
            top-level statements (False for an imported module, :mod:`.packages`: the block is skipped).

        Raises
        ------
        SourceError
            Code nested too deeply for the reader.
        """
        for statement in body:
            if main_guard(statement):
                assert isinstance(statement, ast.If)
                if script:
                    self.read_body(statement.body, after)
                continue
            value: Any = None
            error: Exception | None = None
            try:
                if isinstance(statement, (ast.Expr, ast.Assign)) or (
                    isinstance(statement, ast.AnnAssign) and statement.value is not None
                ):
                    self.step(statement)
                    assert statement.value is not None
                    value = self.eval(statement.value)
                    for target in assigned(statement):
                        self.assign(target, value)
                else:
                    self.exec(statement)
            except (Refused, UserRaise) as stopped:
                error = stopped
                self.calls = 0
                self.frame = self.module_frame
                del self.stack[1:]
            except RecursionError:
                raise SourceError(f"line {statement.lineno}: code nested too deeply") from None
            if after is not None:
                after(statement, value, error)


def assigned(statement: ast.stmt) -> list[ast.expr]:
    """The targets a top-level statement assigns its value to: an assignment's, an annotated assignment's
    (``rnn: nn.GRU = nn.GRU(3, 4)``, read as ``rnn = nn.GRU(3, 4)``); none for an expression.

    Parameters
    ----------
    statement : ast.stmt

    Returns
    -------
    list of ast.expr
    """
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        return [statement.target]
    return []


def main_guard(statement: ast.stmt) -> bool:
    """Whether a statement is ``if __name__ == "__main__":`` (either order, no ``else``).

    Parameters
    ----------
    statement : ast.stmt

    Returns
    -------
    bool

    Examples
    --------
    >>> main_guard(ast.parse("if __name__ == '__main__':\\n    main()").body[0])
    True
    >>> main_guard(ast.parse("if DEBUG:\\n    main()").body[0])
    False
    """
    if not isinstance(statement, ast.If) or statement.orelse:
        return False
    test = statement.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    constants = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and constants == ["__main__"]
