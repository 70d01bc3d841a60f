"""The output layer on top of a recurrent stack, written as its equation.

``y_t = W_y v_t + b_y``, where ``v_t`` is what the stack hands on at step t — for a
bidirectional stack the concatenation ``[h_fwd_t ; h_bwd_t]`` (D·H_out features),
plus K label inputs for a modified BRNN that places them there (see
:func:`derive.engine.wirings.modified_brnn`). As for the cells, the parameters are the
symbols that appear in the equation, laid out as ``torch.nn.Linear`` stores them
(``torch/nn/modules/linear.py``, ``Linear.__init__``: ``weight`` (out_features,
in_features), ``bias`` (out_features,)).
"""

from __future__ import annotations

from ..tree import Module, Param
from .conventions import Convention, TensorLayout
from .equations import Cell, Equations, add, matmul
from .symbols import Size

__all__ = ["output_layer", "output_module", "LINEAR"]


def output_layer(input_size: Size, output_size: Size, bias: bool = True, *, numeric: bool = False) -> Cell:
    """The affine output layer ``y_t = W_y v_t + b_y`` as a one-equation :class:`~derive.cells.Cell`.

    Parameters
    ----------
    input_size : int or sympy.Expr
        Rows of ``v_t`` (e.g. D·H_out).
    output_size : int or sympy.Expr
        O, rows of ``y_t``.
    bias : bool, default True
        Whether ``b_y`` is present (``torch.nn.Linear(bias=...)``).
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
        Named ``"Linear"``; its parameters have group ``"y"`` (kinds ``"weight"``, ``"bias"``).
    """
    eq = Equations(input_size, output_size, output_size, bias, x_name="v_t", numeric=numeric)
    eq.inputs.remove(eq.h)  # no state: the output layer reads only v_t
    rhs = matmul(eq.weight("y", None, "y", output_size, input_size), eq.x)
    if bias:
        rhs = add(rhs, eq.vector("bias", "y", None, "b_{y}", rows=output_size))
    eq.let("y_t", rhs)
    return eq.cell("Linear", ("y",))


def _output_name(base: str, layer: object, direction: int) -> str:
    return f"output.{base}"


#: ``torch.nn.Linear`` as the output layer of a model whose attribute is ``output``:
#: ``output.weight`` (O, in_features), ``output.bias`` (O,).
LINEAR = Convention(
    name="torch.nn.Linear",
    tensors=(TensorLayout("weight", "weight", ("y",)), TensorLayout("bias", "bias", ("y",))),
    layer_name=_output_name,
    source="torch/nn/modules/linear.py (Linear.__init__)",
)


def _linear_name(base: str, layer: object, direction: int) -> str:
    return base


_LINEAR_MODULE = Convention(
    name="torch.nn.Linear",
    tensors=LINEAR.tensors,
    layer_name=_linear_name,
    source=LINEAR.source,
)


def output_module(input_size: Size, output_size: Size, bias: bool = True, *, numeric: bool = False) -> Module:
    """The output layer as the module ``output`` of a tree: ``weight`` (O, in_features), ``bias`` (O,).

    Parameters
    ----------
    input_size, output_size : int or sympy.Expr
        in_features and O.
    bias : bool, default True
    numeric : bool, default False
        The shape-only mode (int sizes).

    Returns
    -------
    derive.tree.Module

    Examples
    --------
    >>> [(p.name, p.shape) for p in output_module(256, 10, numeric=True).params]
    [('weight', (10, 256)), ('bias', (10,))]
    """
    cell = output_layer(input_size, output_size, bias, numeric=numeric)
    params = tuple(Param(t.name, t.shape) for t in _LINEAR_MODULE.layout(cell))
    return Module("output", "Linear", params)
