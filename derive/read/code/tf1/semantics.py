"""What TF1's names mean to the code reader: the cells of ``tf.nn.rnn_cell`` and the functions that apply them.

A call of a cell, a wrapper or ``MultiRNNCell`` (``tf.nn.rnn_cell.LSTMCell(...)``,
``rnn.BasicLSTMCell(...)``, ``rnn_cell.MultiRNNCell([...])``) is made by its constructor of
:mod:`derive.frameworks.tf1` or :mod:`derive.frameworks.tf1_compose`, where TF1's rules live, and
the code holds the cell object it returns: the same object listed twice is one cell
(``[cell] * 2``), as in TensorFlow. A call of
``dynamic_rnn``, ``static_rnn``, ``bidirectional_dynamic_rnn`` or ``static_bidirectional_rnn``
applies cells: :attr:`TF1Semantics.applied` keeps what the code applied, in order. A list of
cells whose number has no value (``[make_cell() for _ in range(num_layers)]``) is read as that
many cells, cell 0 and the cells above it (:func:`derive.frameworks.tf1_compose.repeated`).

Refused, by name: a cell class of ``rnn_cell`` or ``tf.contrib.rnn`` that derive does not know,
a cell called directly, ``tf.variable_scope`` (it renames the variables) and the calls that make
variables beside the cells (``tf.get_variable``, ``tf.Variable``, ``tf.layers``,
``tf.contrib.cudnn_rnn``, Keras' layers).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ...._sympy import sympy
from ....engine.constructors import CONSTRUCTORS, Constructor, find
from ....frameworks.tf1 import Cell, Run
from ....frameworks.tf1_compose import repeated
from ..python.frame import source_of
from ..python.semantics import Semantics
from ..python.values import Ref, Unknown

if TYPE_CHECKING:
    from ..python.core import Core

__all__ = ["TF1Semantics", "written"]

#: The modules that hold TF1's cells and functions, as imported (``tensorflow.``), and the prefix
#: that writes their names as :mod:`derive.frameworks.tf1` registers them.
_MODULES = {
    "tensorflow.compat.v1.nn.rnn_cell": "tf.compat.v1.nn.rnn_cell.",
    "tensorflow.nn.rnn_cell": "tf.nn.rnn_cell.",
    "tensorflow.python.ops.rnn_cell": "rnn_cell.",
    "tensorflow.contrib.rnn": "tf.contrib.rnn.",
    "tensorflow.compat.v1.nn": "tf.compat.v1.nn.",
    "tensorflow.nn": "tf.nn.",
    "tensorflow.python.ops.rnn": "",
}
#: Of those, the modules of cells: a class there that derive does not know is refused by name.
_CELL_MODULES = (
    "tensorflow.compat.v1.nn.rnn_cell",
    "tensorflow.nn.rnn_cell",
    "tensorflow.python.ops.rnn_cell",
    "tensorflow.contrib.rnn",
)
#: Names a snippet uses without importing them.
_FREE = {"tf": "tensorflow", "rnn_cell": "tensorflow.nn.rnn_cell", "rnn": "tensorflow.contrib.rnn"}
#: The functions that apply cells.
_RUNS = frozenset({"dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"})
#: Calls that make variables derive does not count beside the cells' (refused): these functions,
#: and those of these modules.
_VARIABLES = frozenset(
    {
        "tensorflow.get_variable",
        "tensorflow.Variable",
        "tensorflow.compat.v1.get_variable",
        "tensorflow.compat.v1.Variable",
    }
)
_VARIABLE_MODULES = (
    "tensorflow.layers.",
    "tensorflow.contrib.layers.",
    "tensorflow.compat.v1.layers.",
    "tensorflow.contrib.cudnn_rnn.",
    "tensorflow.keras.",
    "tensorflow.compat.v1.keras.",
)
_SCOPES = ("tensorflow.variable_scope", "tensorflow.compat.v1.variable_scope")


def _canonical(path: str) -> str:
    """``tensorflow.compat.v1.nn`` and ``tf.compat.v1.nn`` alike: the path as imported."""
    return "tensorflow" + path[len("tf") :] if path == "tf" or path.startswith("tf.") else path


def written(path: str) -> str | None:
    """The TF1 class or function a dotted path names, written as :mod:`derive.frameworks.tf1`
    registers it (``tensorflow.contrib.rnn.LSTMCell`` -> ``tf.contrib.rnn.LSTMCell``), or None.

    Parameters
    ----------
    path : str

    Returns
    -------
    str or None

    Examples
    --------
    >>> written("tensorflow.compat.v1.nn.rnn_cell.LSTMCell"), written("tensorflow.nn.relu")
    ('tf.compat.v1.nn.rnn_cell.LSTMCell', None)
    """
    module, _, name = _canonical(path).rpartition(".")
    prefix = _MODULES.get(module)
    if prefix is None or not find(prefix + name, "tf1"):
        return None
    return prefix + name


def _constructor(path: str) -> Constructor | None:
    name = written(path)
    return None if name is None else find(name, "tf1")[0]


def _known() -> str:
    return ", ".join(sorted(n for fw, n in CONSTRUCTORS if fw == "tf1"))


class TF1Semantics(Semantics):
    """TF1's rules for the code reader (see the module docstring).

    Attributes
    ----------
    applied : list of (Run, ast.Call)
        What the code's ``dynamic_rnn`` and the other functions applied, in order.
    """

    def __init__(self) -> None:
        self.applied: list[tuple[Run, ast.Call]] = []

    def free_name(self, name: str) -> Any:
        """``tf``, ``rnn_cell``, ``rnn`` and TF1's class and function names in a snippet without imports.

        Parameters
        ----------
        name : str

        Returns
        -------
        Ref or None
        """
        if name in _FREE:
            return Ref(_FREE[name])
        if find(name, "tf1"):
            return Ref(f"tensorflow.nn.{name}" if name in _RUNS else f"tensorflow.nn.rnn_cell.{name}")
        return None

    def owns(self, value: Any) -> bool:
        """Cells and what the functions that apply them return.

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        return isinstance(value, (Cell, Run))

    def call_ref(self, core: Core, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """A TF1 cell, wrapper or ``MultiRNNCell`` made; cells applied by ``dynamic_rnn`` and the others.

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
            A :class:`~derive.frameworks.tf1.Cell`, a :class:`~derive.frameworks.tf1.Run`, or an
            :class:`Unknown` for TensorFlow's other functions (a tensor derive does not compute).

        Raises
        ------
        Refused
            The constructor's refusal (its words, after the line); an unknown cell class;
            ``tf.variable_scope``; a call that makes variables beside the cells.
        """
        path, shown = _canonical(ref.path), source_of(node.func)
        made = _constructor(path)
        if made is None:
            module, _, name = path.rpartition(".")
            if module in _CELL_MODULES and name.endswith(("Cell", "Wrapper")):
                raise core.refuse(node, f"{shown} is not a TF1 class derive knows (it reads {_known()})")
            if path in _SCOPES:
                raise core.refuse(
                    node,
                    f"{shown} renames the variables made under it, which derive does not follow: read the cells alone",
                )
            if path in _VARIABLES or path.startswith(_VARIABLE_MODULES):
                raise core.refuse(
                    node, f"{shown} makes variables beside the cells', which derive does not count in TF1 code"
                )
            return super().call_ref(core, ref, args, kwargs, node)
        if made.name == "MultiRNNCell":
            stack = self._copies(core, made, args, kwargs, node)
            if stack is not None:
                return stack
            cells = args[0] if args else kwargs.get("cells")
            if isinstance(cells, Unknown):
                raise core.refuse(
                    node,
                    f"{shown}: cells: write the list of cells out ([LSTMCell(48), LSTMCell(48)], or "
                    f"[make_cell() for _ in range(num_layers)]); {core.why_unknown(cells, node)}",
                )
        try:
            value = made.make(*args, **kwargs)
        except (TypeError, ValueError) as error:
            raise core.refuse(node, f"{shown}: {error}") from None
        if isinstance(value, Run):
            self.applied.append((value, node))
        return value

    def _copies(
        self, core: Core, made: Constructor, args: list[Any], kwargs: dict[str, Any], node: ast.Call
    ) -> Cell | None:
        """``MultiRNNCell``'s cells when the code gives their number as a name without a value
        (``[make_cell() for _ in range(num_layers)]``, ``[cell] * num_layers``): the stack, its
        element read once for cell 0 and once for the cells above; None for any other list."""
        given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "cells"), None)
        value = args[0] if args else kwargs.get("cells")
        if given is None or not isinstance(value, Unknown):
            return None
        element, times = _repeat(given)
        if element is None or times is None:
            return None
        count = core.eval(times)
        if not isinstance(count, sympy.Expr) or count.is_number:
            return None
        first = core.eval(element)
        above = first if isinstance(given, ast.BinOp) else core.eval(element)
        rest = {k: v for k, v in kwargs.items() if k != "cells"}
        try:
            made.make([first], *args[1:], **rest)  # the other arguments, checked by the class
            return repeated(first, above, count)
        except (TypeError, ValueError) as error:
            raise core.refuse(node, f"{source_of(node.func)}: {error}") from None

    def call_object(self, core: Core, obj: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """A cell called directly: refused (its variables would be named by the caller's scope).

        Parameters
        ----------
        core : Core
        obj : object
        args : list
        kwargs : dict
        node : ast.Call

        Raises
        ------
        Refused
            Always.
        """
        raise core.refuse(
            node,
            f"{source_of(node)} calls a cell directly: derive reads cells applied by tf.nn.dynamic_rnn, static_rnn "
            "or bidirectional_dynamic_rnn (or a cell alone, as dynamic_rnn applies it)",
        )

    def getattr(self, core: Core, obj: Any, name: str, node: ast.AST) -> Any:
        """An attribute of a cell (``cell.output_size``): not read.

        Parameters
        ----------
        core : Core
        obj : object
        name : str
        node : ast.AST

        Returns
        -------
        Unknown
        """
        return self.unknown(node, f"{name} of a TF1 cell is not read")


def _repeat(node: ast.expr) -> tuple[ast.expr | None, ast.expr | None]:
    """``[element for _ in range(n)]`` (the element not reading the loop's name) or ``[element] * n``
    as ``(element, n)``; ``(None, None)`` for anything else."""
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        loop = node.generators[0]
        it = loop.iter
        if (
            not loop.ifs
            and not loop.is_async
            and isinstance(loop.target, ast.Name)
            and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and len(it.args) == 1
            and not it.keywords
            and not any(isinstance(n, ast.Name) and n.id == loop.target.id for n in ast.walk(node.elt))
        ):
            return node.elt, it.args[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for items, times in ((node.left, node.right), (node.right, node.left)):
            if isinstance(items, ast.List) and len(items.elts) == 1:
                return items.elts[0], times
    return None, None
