"""The output layer on top of a recurrent stack, written as its equation.

``y_t = W_y v_t + b_y``, where ``v_t`` is what the stack hands on at step t — for a
bidirectional stack the concatenation ``[h_fwd_t ; h_bwd_t]`` (D·H_out features),
plus K label inputs for a modified BRNN that places them there (see
:func:`derive.wirings.modified_brnn`). As for the cells, the parameters are the
symbols that appear in the equation, laid out as ``torch.nn.Linear`` stores them
(``torch/nn/modules/linear.py``, ``Linear.__init__``: ``weight`` (out_features,
in_features), ``bias`` (out_features,)).
"""

from __future__ import annotations

from sympy import MatAdd, MatMul, MatrixSymbol

from .conventions import Convention, TensorLayout
from .equations import Cell, Parameter, check_conformance
from .symbols import Size

__all__ = ["output_layer", "LINEAR"]


def output_layer(input_size: Size, output_size: Size, bias: bool = True) -> Cell:
    """The affine output layer ``y_t = W_y v_t + b_y`` as a one-equation :class:`~derive.cells.Cell`.

    Parameters
    ----------
    input_size : int or sympy.Expr
        Rows of ``v_t`` (e.g. D·H_out).
    output_size : int or sympy.Expr
        O, rows of ``y_t``.
    bias : bool, default True
        Whether ``b_y`` is present (``torch.nn.Linear(bias=...)``).

    Returns
    -------
    Cell
        Named ``"Linear"``; its parameters have group ``"y"`` (kinds ``"weight"``, ``"bias"``).
    """
    v = MatrixSymbol("v_t", input_size, 1)
    weight = MatrixSymbol("W_{y}", output_size, input_size)
    rhs = MatMul(weight, v)
    parameters = [Parameter(weight, "weight", "y", None)]
    if bias:
        b = MatrixSymbol("b_{y}", output_size, 1)
        rhs = MatAdd(rhs, b, evaluate=False)
        parameters.append(Parameter(b, "bias", "y", None))
    check_conformance(rhs)
    y = MatrixSymbol("y_t", *rhs.shape)
    appearing = rhs.atoms(MatrixSymbol)
    return Cell("Linear", ("y",), ((y, rhs),), (v,), y, tuple(p for p in parameters if p.symbol in appearing))


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
