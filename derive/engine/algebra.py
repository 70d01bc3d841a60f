"""The operations cells are written with, in two modes: SymPy matrix algebra, or shapes only.

A cell is written once, as equations over matrices built with these helpers (:func:`add`,
:func:`matmul`, :func:`odot`, :func:`elementwise`, :func:`one_minus`, ...). Each helper takes
either SymPy matrix expressions -- the symbolic mode, whose equations are printed and whose shapes
may be letters -- or :class:`Block` values -- the shape-only ("numeric") mode, used when every size
is an int: a block is its (rows, columns) in ints, the helpers check conformance with int
comparisons, and no SymPy object is made. Both modes declare the same parameters with the same
shapes (the tests hold every registered cell to it); the symbolic one also keeps the expressions.

>>> x, w = Block((3, 1), "x_t"), Block((5, 3), "W")
>>> add(matmul(w, x), Block((5, 1), "b")).shape
(5, 1)
>>> odot(Block((5, 1)), x)
Traceback (most recent call last):
...
derive.engine.algebra.ShapeError: non-conforming shapes [(5, 1), (3, 1)] in an element-wise product
"""

from __future__ import annotations

from typing import Any

from .._sympy import function as _sympy_function
from .._sympy import sympy

__all__ = [
    "Block",
    "Scalar",
    "ShapeError",
    "check_conformance",
    "sigma",
    "relu",
    "add",
    "odot",
    "matmul",
    "elementwise",
    "one_minus",
    "reciprocal",
    "transpose",
    "vstack",
    "bracket",
    "sqrt",
]

#: The logistic sigmoid, applied element-wise.
sigma = _sympy_function("sigma")
#: The rectifier max(0, x), applied element-wise.
relu = _sympy_function("ReLU")


class ShapeError(ValueError):
    """Raised when an equation adds or multiplies matrices of non-conforming shapes."""


class Block:
    """A matrix of the shape-only mode: its int shape (and its name, if it has one).

    Parameters
    ----------
    shape : (int, int)
        (rows, columns).
    name : str, default ""
        The LaTeX name of a named matrix (a parameter, a state, an equation's left-hand side);
        "" for the value of an expression.
    """

    __slots__ = ("shape", "name")

    def __init__(self, shape: tuple[int, int], name: str = "") -> None:
        self.shape = shape
        self.name = name

    @property
    def T(self) -> Block:
        """The transpose."""
        return Block((self.shape[1], self.shape[0]))

    def __repr__(self) -> str:
        return self.name or f"Block{self.shape}"


class Scalar:
    """A scalar of the shape-only mode (a gate's value per head, a constant factor): no shape.

    Multiplying or dividing by it (on either side) gives an unnamed :class:`Scalar`.

    Parameters
    ----------
    name : str, default ""
        The LaTeX name of a named scalar (a parameter of the cell); "" for the value of an expression.
    """

    __slots__ = ("name",)

    def __init__(self, name: str = "") -> None:
        self.name = name

    def _combined(self, other: object) -> Scalar:
        return Scalar()

    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _combined

    def __repr__(self) -> str:
        return self.name or "Scalar"


def _numeric(values: tuple[Any, ...]) -> bool:
    return type(values[0]) is Block or type(values[0]) is Scalar


def _same_shapes(blocks: tuple[Block, ...], what: str) -> Block:
    shape = blocks[0].shape
    for block in blocks:
        if block.shape != shape:
            raise ShapeError(f"non-conforming shapes {[b.shape for b in blocks]} in {what}")
    return Block(shape)


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    return sympy.expand(a - b) == 0


def check_conformance(expr: sympy.MatrixExpr) -> None:
    """Check that every sum, product and element-wise product in ``expr`` has conforming shapes.

    Parameters
    ----------
    expr : sympy.MatrixExpr or Block
        A :class:`Block` was checked as it was built: nothing to do.

    Raises
    ------
    ShapeError
        Non-conforming shapes.
    """
    if isinstance(expr, Block):
        return
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, (sympy.MatAdd, sympy.HadamardProduct)):
            shapes = [arg.shape for arg in node.args]
            if not all(_same(r, shapes[0][0]) and _same(c, shapes[0][1]) for r, c in shapes):
                raise ShapeError(f"non-conforming shapes {shapes} in {node}")
        elif isinstance(node, sympy.MatMul):
            factors = [a for a in node.args if isinstance(a, sympy.MatrixExpr)]
            for left, right in zip(factors, factors[1:]):
                if not _same(left.shape[1], right.shape[0]):
                    raise ShapeError(f"cannot multiply {left.shape} by {right.shape} in {node}")


def add(*terms: Any) -> Any:
    """The sum of ``terms``, flattened and left unevaluated (so the equations read as written).

    Parameters
    ----------
    *terms : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block

    Raises
    ------
    ShapeError
        Blocks of different shapes.
    """
    if type(terms[0]) is Block:
        return _same_shapes(terms, "a sum")
    flat: list[sympy.MatrixExpr] = []
    for term in terms:
        flat.extend(term.args if isinstance(term, sympy.MatAdd) else [term])
    return sympy.MatAdd(*flat, evaluate=False)


def odot(*factors: Any) -> Any:
    """The element-wise (Hadamard) product of ``factors``, unevaluated.

    Parameters
    ----------
    *factors : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block

    Raises
    ------
    ShapeError
        Blocks of different shapes.
    """
    if type(factors[0]) is Block:
        return _same_shapes(factors, "an element-wise product")
    return sympy.HadamardProduct(*factors, evaluate=False)


def matmul(*factors: Any) -> Any:
    """The matrix product of ``factors`` (scalars among them scale it).

    Parameters
    ----------
    *factors : sympy.MatrixExpr, sympy.Expr, Block or Scalar

    Returns
    -------
    sympy.MatrixExpr or Block

    Raises
    ------
    ShapeError
        Blocks whose inner dimensions differ.
    """
    if not _numeric(factors):
        return sympy.MatMul(*factors)
    blocks = [f for f in factors if type(f) is Block]
    for left, right in zip(blocks, blocks[1:]):
        if left.shape[1] != right.shape[0]:
            raise ShapeError(f"cannot multiply {left.shape} by {right.shape}")
    return Block((blocks[0].shape[0], blocks[-1].shape[1]))


def elementwise(function: Any, expr: Any) -> Any:
    """``function`` applied element-wise.

    Parameters
    ----------
    function : sympy.Function
        E.g. :data:`sigma`, ``sympy.tanh``.
    expr : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    if type(expr) is Block:
        return Block(expr.shape)
    return sympy.ElementwiseApplyFunction(function, expr)


def one_minus(expr: Any) -> Any:
    """``1 - expr``, element by element (``(1 - z_t) * n_t`` of the GRU).

    Parameters
    ----------
    expr : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    if type(expr) is Block:
        return Block(expr.shape)
    return sympy.MatAdd(sympy.OneMatrix(*expr.shape), -expr, evaluate=False)


def reciprocal(expr: Any) -> Any:
    """``1 / expr``, element by element.

    Parameters
    ----------
    expr : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    if type(expr) is Block:
        return Block(expr.shape)
    return sympy.HadamardPower(expr, -1)


def transpose(expr: Any) -> Any:
    """The transpose of ``expr``.

    Parameters
    ----------
    expr : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    return expr.T


def vstack(*blocks: Any) -> Any:
    """``blocks`` stacked top to bottom (``[q; k; v]``).

    Parameters
    ----------
    *blocks : sympy.MatrixExpr or Block
        Of one number of columns.

    Returns
    -------
    sympy.MatrixExpr or Block

    Raises
    ------
    ShapeError
        Blocks of different numbers of columns.
    """
    if not _numeric(blocks):
        return sympy.BlockMatrix([[b] for b in blocks])
    columns = {b.shape[1] for b in blocks}
    if len(columns) != 1:
        raise ShapeError(f"cannot stack {[b.shape for b in blocks]}: unequal columns")
    return Block((sum(b.shape[0] for b in blocks), columns.pop()))


def bracket(expr: Any) -> Any:
    """``expr`` kept in parentheses when printed (a sum under a function); the same value.

    Parameters
    ----------
    expr : sympy.MatrixExpr or Block

    Returns
    -------
    sympy.MatrixExpr or Block
    """
    if type(expr) is Block:
        return expr
    return sympy.MatAdd(expr, evaluate=False)


def sqrt(value: Any) -> Any:
    """The square root of a scalar.

    Parameters
    ----------
    value : sympy.Expr or Scalar

    Returns
    -------
    sympy.Expr or Scalar
    """
    if type(value) is Scalar:
        return Scalar()
    return sympy.sqrt(value)
