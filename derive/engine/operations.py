"""The operations of one time step of a cell, counted from its update equations.

:func:`step_ops` walks the right-hand side of each of a cell's update equations
(:mod:`derive.cells`) and counts, for one time step of one sequence, the kinds of
:data:`KINDS` (and :data:`EXTRA_KINDS` where a cell has them): multiply-accumulates of matrix
products, element-wise additions and products, evaluations of each nonlinearity
(:mod:`derive.analysis.compute` defines each kind and the costs built on them). It is the engine's
own floor because a stack's tree carries what one token costs it
(:meth:`derive.engine.stack.Stack.token_flops`), as it carries its parameter count.

>>> from derive.cells import lstm
>>> step_ops(lstm(10, 20))["mac"]
2400
"""

from __future__ import annotations

from collections import Counter

from .._sympy import sympy
from .equations import Cell

__all__ = ["KINDS", "EXTRA_KINDS", "step_ops", "matmul_flops", "stored_elements"]

#: Kinds of operations counted, in display order.
KINDS = ("mac", "add", "mul", "sigmoid", "tanh", "relu")

#: Kinds counted only by the cells that have them (listed only then): ``div``, element-wise
#: divisions (minLSTM's normalised gates); ``norm``, elements normalised by a LayerNorm or a
#: group norm (one operation per element, although mean and variance cost several); ``exp``,
#: ``silu`` and ``max`` (xLSTM's exponential gates, its SiLU, its bound max(|n^T q|, 1)), one per
#: element.
EXTRA_KINDS = ("div", "norm", "exp", "silu", "max")

_FUNCTION_KIND = {
    "sigma": "sigmoid",
    "tanh": "tanh",
    "ReLU": "relu",
    "LN": "norm",
    "GN": "norm",
    "exp": "exp",
    "SiLU": "silu",
    "maxabs1": "max",
}


def _function_kind(node: sympy.ElementwiseApplyFunction) -> str:
    f = node.function
    name = f.expr.func.__name__ if isinstance(f, sympy.Lambda) else getattr(f, "__name__", str(f))
    if name not in _FUNCTION_KIND:
        raise ValueError(f"no cost known for the element-wise function {name!r}")
    return _FUNCTION_KIND[name]


def _size(node: sympy.MatrixExpr) -> sympy.Expr:
    rows, cols = node.shape
    return rows * cols


def _negated(node: sympy.MatrixExpr) -> sympy.MatrixExpr | None:
    """``X`` if ``node`` is ``-X`` (a MatMul with coefficient -1), else None."""
    if isinstance(node, sympy.MatMul) and node.args[0] == -1:
        rest = node.args[1:]
        return rest[0] if len(rest) == 1 else sympy.MatMul(*rest)
    return None


def _walk(node: sympy.MatrixExpr, ops: Counter[str], groups: dict | None = None) -> None:
    """Add the operations of ``node`` to ``ops``; ``groups``: block-diagonal weights -> blocks."""
    groups = groups or {}
    if isinstance(node, sympy.MatAdd):
        ops["add"] += (len(node.args) - 1) * _size(node)
        for term in node.args:
            inner = _negated(term)
            _walk(inner if inner is not None else term, ops, groups)  # a - b: the subtraction is the add
    elif isinstance(node, sympy.HadamardProduct):
        ops["mul"] += (len(node.args) - 1) * _size(node)
        for arg in node.args:
            _walk(arg, ops, groups)
    elif isinstance(node, sympy.ElementwiseApplyFunction):
        ops[_function_kind(node)] += _size(node)
        _walk(node.expr, ops, groups)
    elif isinstance(node, sympy.HadamardPower):
        ops["div" if node.exp == -1 else "mul"] += _size(node)
        _walk(node.base, ops, groups)
    elif isinstance(node, sympy.MatMul):
        scalars = [a for a in node.args if not isinstance(a, sympy.MatrixExpr)]
        factors = [a for a in node.args if isinstance(a, sympy.MatrixExpr)]
        rows = factors[0].shape[0]
        for k, (left, right) in enumerate(zip(factors, factors[1:])):
            blocks = groups.get(left, 1) if k == 0 else 1  # a block-diagonal weight: its blocks only
            ops["mac"] += rows * left.shape[1] * right.shape[1] / blocks
        if scalars and sympy.Mul(*scalars) not in (1, -1):
            ops["mul"] += _size(node)
        for factor in factors:
            _walk(factor, ops, groups)
    elif isinstance(node, sympy.BlockMatrix):  # a concatenation: nothing computed but its blocks
        for block in node.blocks:
            _walk(block, ops, groups)
    # symbols, OneMatrix, ZeroMatrix, a transpose: nothing to compute


def _check_cell(cell: object) -> None:
    if not isinstance(cell, Cell):
        raise TypeError(f"cell must be a derive Cell (e.g. derive.cells.lstm(I, H)), got {type(cell).__name__}")


def step_ops(cell: Cell) -> dict[str, sympy.Expr]:
    """Operations of one time step of ``cell`` for one sequence, by kind (see the module docstring).

    Parameters
    ----------
    cell : derive.cells.Cell

    Returns
    -------
    dict of str to sympy.Expr
        Every kind of :data:`KINDS`, 0 where absent.

    Raises
    ------
    TypeError
        ``cell`` is not a :class:`derive.cells.Cell`.
    ValueError
        An element-wise function of unknown cost.
    """
    _check_cell(cell)
    ops: Counter = Counter()
    groups = {p.symbol: p.groups for p in cell.parameters if p.groups is not None}
    for lhs, rhs in cell.equations:
        once: Counter = Counter()
        _walk(rhs, once, groups)
        for kind, n in once.items():
            ops[kind] += cell.times(lhs) * n
    out = {kind: sympy.expand(ops.get(kind, sympy.Integer(0))) for kind in KINDS}
    out.update({kind: sympy.expand(n) for kind, n in ops.items() if kind in EXTRA_KINDS})
    return out


def matmul_flops(cell: Cell) -> sympy.Expr:
    """Matrix-product FLOPs of one time step of ``cell`` for one sequence: 2 · its MACs (:func:`step_ops`),
    as ``torch.utils.flop_counter`` counts ``mm``/``addmm`` (2·m·n·p; biases and element-wise work left out).

    Parameters
    ----------
    cell : derive.cells.Cell

    Returns
    -------
    sympy.Expr
        Units: FLOPs.

    Examples
    --------
    >>> from derive.cells import lstm
    >>> matmul_flops(lstm(10, 20))
    4800
    """
    return 2 * step_ops(cell)["mac"]


def stored_elements(cell: Cell) -> sympy.Expr:
    """Values kept per time step and sequence for training: the sizes of every equation's left-hand side.

    Parameters
    ----------
    cell : Cell
        A cell from :mod:`derive.cells`.

    Returns
    -------
    sympy.Expr
        Scalars (units: values) stored per time step and sequence.

    Raises
    ------
    TypeError
        ``cell`` is not a :class:`derive.cells.Cell`.
    """
    _check_cell(cell)
    return sympy.expand(sympy.Add(*(cell.times(lhs) * _size(lhs) for lhs, _ in cell.equations)))
