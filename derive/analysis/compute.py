"""What a stack or a model computes: a recurrent stack's operations from its cells' equations, a token's FLOPs.

**A stack's compute**, derived from the same cell equations as its count. Nothing here is a
typed-in formula: :func:`derive.engine.operations.step_ops` walks the right-hand side of each of a
cell's update equations (:mod:`derive.cells`) and counts, for one time step of one sequence:

``mac``
    multiply-accumulates of matrix products: a product of an (m, n) matrix by an (n, p) one is
    m·n·p MACs (p = 1 for a weight times a vector, so m·n).
``add``
    element-wise additions and subtractions: a sum of k terms of (m, 1) is (k − 1)·m. The bias
    additions are here (``W x + b`` is m·n MACs and m adds); ``1 - z`` is m subtractions.
``mul``
    element-wise (Hadamard) products: a product of k factors of (m, 1) is (k − 1)·m.
``sigmoid``, ``tanh``, ``relu``
    evaluations of the element-wise nonlinearity, one per element.

``flops`` = 2·MACs + adds + muls + nonlinearity evaluations (each evaluation counted as one
operation, although it costs several in practice); ``matmul_flops`` = 2·MACs alone, which is
what ``torch.utils.flop_counter.FlopCounterMode`` reports for matrix products (it counts
``mm``/``addmm``/``bmm`` as 2·m·n·p and leaves out the bias of ``addmm`` and every element-wise
op). A stack's step cost is, per layer, its number of directions D times the cost of that
layer's cell (layer 0 reads I features, layers >= 1 read what the wiring gives them); with L
layers it is ``C_0 + (L − 1)·C_1``. A sequence of T steps costs T times a step; a batch of N
sequences, N times that (N is the batch-size symbol, :data:`derive.engine.symbols.T` the sequence length).

``activation_bytes`` (a stack, kept for training)
    Assumption: backpropagation through time keeps, for every time step, layer and direction,
    the left-hand side of every update equation — LSTM ``i_t, f_t, g_t, o_t, c_t, h_t`` (4H + H +
    H_out values), GRU ``r_t, z_t, n_t, h_t`` (4H), Elman ``h_t`` (H) — for each of the N
    sequences, at ``dtype``'s width. Not counted: the input sequence itself, the initial states,
    and intermediates inside one equation (pre-activations, ``tanh(c_t)``, the GRU's
    ``W_hn h + b_hn``, the LSTMP's unprojected ``o_t ⊙ tanh(c_t)``), which an implementation may
    keep as well or recompute; framework workspaces (cuDNN's reserve space) differ by such terms.

**A token's FLOPs** (a model, or a stack): the matmul FLOPs of the forward of one token that leaves T
tokens in the cache, by :func:`derive.layers.token_flops.matmul_flops` (:func:`token_flops`).

Verification: ``tests/analysis/test_cost.py`` holds ``matmul_flops`` to ``FlopCounterMode`` on torch's
modules (stacks and cells, random configurations among them).

>>> import derive.torch as dt
>>> c = Compute(dt.LSTM(10, 20), 7, 3, "float32")
>>> c.per_step["mac"], c.macs, c.flops_per_step, c.activation_bytes
(2400, 50400, 5220, 10080)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any

from ..tree import Module
from .figures import DTYPE_BYTES, plain

__all__ = ["Compute", "token_flops"]


def _kind_of(kind: str, cell: Any) -> Any:
    from ..engine.operations import step_ops

    return step_ops(cell)[kind]


@dataclass(frozen=True)
class Compute:
    """What ``batch`` sequences of ``seq_len`` time steps through a stack compute, and keep for training.

    Attributes
    ----------
    stack : derive.engine.stack.Stack
        Its layers' cells give the operations (:meth:`derive.engine.stack.Stack.step_sum`).
    seq_len, batch : int or sympy.Expr
        T (time steps) and N (sequences).
    dtype : str
        The width of the values kept for training (a name of :data:`derive.analysis.figures.DTYPE_BYTES`).
    """

    stack: Any
    seq_len: Any
    batch: Any
    dtype: str

    @cached_property
    def per_step(self) -> dict[str, Any]:
        """One time step of one sequence through every layer and direction, by kind (``mac``, ``add``,
        ``mul``, ``sigmoid``, ``tanh``, ``relu``; units: operations): :func:`derive.engine.operations.step_ops`
        of each cell, summed. A cell with an element-wise function of unknown cost raises ValueError."""
        from ..engine.operations import KINDS

        return {kind: plain(self.stack.step_sum(partial(_kind_of, kind))) for kind in KINDS}

    @cached_property
    def stored_per_step(self) -> Any:
        """Values kept for training per time step and sequence, every layer and direction (the module
        docstring's assumption: :func:`derive.engine.operations.stored_elements` of each cell)."""
        from ..engine.operations import stored_elements

        return plain(self.stack.step_sum(stored_elements))

    def _whole(self, value: Any) -> Any:
        return plain(value * self.seq_len * self.batch)

    @property
    def flops_per_step(self) -> Any:
        """FLOPs of one step of one sequence: 2·MACs plus each element-wise operation, one FLOP each."""
        return plain(2 * self.per_step["mac"] + sum(v for k, v in self.per_step.items() if k != "mac"))

    @property
    def macs(self) -> Any:
        """Multiply-accumulates of T steps of N sequences: T·N times a step's."""
        return self._whole(self.per_step["mac"])

    @property
    def matmul_flops(self) -> Any:
        """Twice :attr:`macs`: the FLOPs ``FlopCounterMode`` counts for ``mm``, ``addmm`` and ``bmm``."""
        return plain(2 * self.macs)

    @property
    def flops(self) -> Any:
        """T·N times :attr:`flops_per_step`."""
        return self._whole(self.flops_per_step)

    @property
    def ops(self) -> dict[str, Any]:
        """Each kind of :attr:`per_step`, T·N times (units: operations)."""
        return {k: self._whole(v) for k, v in self.per_step.items()}

    @property
    def activation_bytes(self) -> Any:
        """:attr:`stored_per_step` at ``dtype``'s width, T·N times (units: bytes)."""
        return self._whole(self.stored_per_step * DTYPE_BYTES[self.dtype])


def token_flops(module: Module, seq_len: Any, batch: Any) -> tuple[Any, str | None]:
    """Matmul FLOPs of the forward of one token that leaves ``seq_len`` tokens in the cache, as
    ``FlopCounterMode`` counts ``mm``/``addmm``/``bmm`` (:func:`derive.layers.token_flops.matmul_flops`), or
    why they are not derived.

    Parameters
    ----------
    module : derive.tree.Module
    seq_len, batch : int or sympy.Expr
        T and N: a module whose rule holds at a batch of one only is not derived at another.

    Returns
    -------
    (int or sympy.Expr or None, str or None)
        The FLOPs and None; or None and the reason (the class with no rule, or the batch its rule does
        not hold at).
    """
    from ..layers.token_flops import matmul_flops as rule
    from ..layers.token_flops import per_sequence

    try:
        per_sequence(module, batch)
        return plain(rule(module, seq_len)), None
    except ValueError as why:
        return None, str(why)
