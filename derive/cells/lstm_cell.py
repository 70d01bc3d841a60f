"""LSTM, optionally with a projection of the hidden state (LSTMP) and with peepholes.

* S. Hochreiter, J. Schmidhuber, "Long short-term memory", Neural Computation 9 (1997),
  with the forget gate of F. Gers, J. Schmidhuber, F. Cummins (2000).
* Projection: H. Sak, A. Senior, F. Beaufays, "Long short-term memory recurrent neural network
  architectures for large scale acoustic modeling", Interspeech 2014 (arXiv:1402.1128).
* Peepholes: F. Gers, J. Schmidhuber, "Recurrent nets that time and count", IJCNN 2000; the
  peepholes are diagonal weights from the cell state to the gates, written as element-wise
  products ``p_i * c_{t-1}``, ``p_f * c_{t-1}``, ``p_o * c_t`` (ONNX ``LSTM`` input ``P``, TF1
  ``LSTMCell(use_peepholes=True)``).
"""

from __future__ import annotations

from functools import lru_cache

from .._sympy import sympy
from ..engine.equations import Cell, Equations, add, elementwise, matmul, odot, sigma
from ..engine.symbols import Size
from . import register

__all__ = ["lstm"]


@register(
    "LSTM",
    options=("proj_size", "peepholes"),
    title="LSTM",
    generic="lstm",
    source="Hochreiter & Schmidhuber, Neural Computation 9 (1997); Gers et al. (2000); Sak et al. (2014, arXiv:1402.1128)",
)
@lru_cache(maxsize=4096)
def lstm(
    input_size: Size,
    hidden_size: Size,
    bias: bool | str = True,
    proj_size: Size = 0,
    peepholes: bool = False,
    numeric: bool = False,
) -> Cell:
    """LSTM, optionally with a projection of the hidden state (LSTMP) and with peepholes.

    ``i, f, o = sigma(...)``, ``g = tanh(...)``, ``c_t = f * c_{t-1} + i * g``,
    ``h_t = o * tanh(c_t)``; with ``proj_size > 0``, ``h_t = W_hr (o * tanh(c_t))``
    and ``h_t`` (so also ``h_{t-1}``) has ``proj_size`` rows.

    With ``peepholes`` (Gers & Schmidhuber 2000) the gates also read the cell state through
    diagonal weights, written as element-wise products with vectors (H, 1): ``p_i * c_{t-1}``
    and ``p_f * c_{t-1}`` in the input and forget gates, ``p_o * c_t`` (the new cell state) in
    the output gate, as in ONNX ``LSTM`` (``onnx/defs/rnn/defs.cc``) and TF1 ``LSTMCell``
    (``tensorflow/python/ops/rnn_cell_impl.py``). The output gate is then computed after ``c_t``.

    Parameters
    ----------
    input_size, hidden_size : int or sympy.Expr
    bias : bool or str
        True, False or a bias policy (see :data:`BIAS_POLICIES`).
    proj_size : int or sympy.Expr
        0 for no projection.
    peepholes : bool, default False
    numeric : bool, default False
        The shape-only mode (int sizes; see :class:`~derive.engine.equations.Equations`).

    Returns
    -------
    Cell
    """
    projected = proj_size != 0
    out = proj_size if projected else hidden_size
    eq = Equations(input_size, hidden_size, out, bias, numeric=numeric)
    c_prev = eq.state("c_{t-1}", hidden_size)
    peep = c_prev if peepholes else None
    i = eq.let("i_t", elementwise(sigma, eq.pre_activation("i", peep)))
    f = eq.let("f_t", elementwise(sigma, eq.pre_activation("f", peep)))
    g = eq.let("g_t", elementwise(sympy.tanh, eq.pre_activation("g")))
    if peepholes:
        c = eq.let("c_t", add(odot(f, c_prev), odot(i, g)))
        o = eq.let("o_t", elementwise(sigma, eq.pre_activation("o", c)))
    else:
        o = eq.let("o_t", elementwise(sigma, eq.pre_activation("o")))
        c = eq.let("c_t", add(odot(f, c_prev), odot(i, g)))
    if projected:
        w_hr = eq.weight("hr", None, "hr", proj_size, hidden_size)
        eq.let("h_t", matmul(w_hr, odot(o, elementwise(sympy.tanh, c))))
    else:
        eq.let("h_t", odot(o, elementwise(sympy.tanh, c)))
    return eq.cell("LSTM", ("i", "f", "g", "o"))
