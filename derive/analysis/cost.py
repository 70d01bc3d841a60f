"""Compute and memory cost of a recurrent stack, derived from the same cell equations as its count.

Nothing here is a typed-in formula: :func:`step_ops` walks the right-hand side of each of a
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
sequences, N times that (:data:`N` is the batch-size symbol, :data:`derive.engine.symbols.T` the
sequence length).

Memory:

``weight_bytes``
    parameters × bytes per element of ``dtype`` (:data:`DTYPE_BYTES`).
``activation_bytes`` (kept for training)
    Assumption: backpropagation through time keeps, for every time step, layer and direction,
    the left-hand side of every update equation — LSTM ``i_t, f_t, g_t, o_t, c_t, h_t`` (4H + H +
    H_out values), GRU ``r_t, z_t, n_t, h_t`` (4H), Elman ``h_t`` (H) — for each of the N
    sequences, at ``dtype``'s width. Not counted: the input sequence itself, the initial states,
    and intermediates inside one equation (pre-activations, ``tanh(c_t)``, the GRU's
    ``W_hn h + b_hn``, the LSTMP's unprojected ``o_t ⊙ tanh(c_t)``), which an implementation may
    keep as well or recompute; framework workspaces (cuDNN's reserve space) differ by such terms.

>>> import derive.torch as dt
>>> c = cost(dt.LSTM(10, 20), seq_len=7, batch=3)
>>> c.per_step["mac"], c.macs, c.matmul_flops
(2400, 50400, 100800)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from .._sympy import sympy
from ..engine.operations import KINDS, step_ops, stored_elements
from ..engine.stack import Stack
from ..engine.symbols import Size, T, as_expr
from ..engine.validate import shown
from ..tree import Module, State, active, count

__all__ = ["N", "KINDS", "DTYPE_BYTES", "step_ops", "stored_elements", "Cost", "cost", "ModelCost", "model_cost"]

#: Batch size: sequences processed together.
N = sympy.Symbol("N", integer=True, positive=True)

#: Bytes per element of each supported dtype.
DTYPE_BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}


def _dtype_bytes(dtype: str) -> int:
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {dtype!r}")
    return DTYPE_BYTES[dtype]


def _check_length(name: str, value: Any) -> Size:
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr) or value.is_integer is False or value.is_positive is False:
            raise TypeError(f"{name} must be a positive int or a SymPy integer expression, got {shown(value)}")
        return int(value) if value.is_Integer else value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a positive int or a SymPy integer expression, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {shown(value)}")
    return value


@dataclass(frozen=True)
class Cost:
    """Compute and memory of a stack for sequences of ``seq_len`` steps in batches of ``batch``.

    Attributes
    ----------
    per_step : dict of str to sympy.Expr
        Operations of one time step of one sequence through every layer and direction, by kind.
    seq_len, batch : int or sympy.Expr
        T and N.
    dtype : str
    parameters : sympy.Expr
        The stack's parameter count.
    stored_per_step : sympy.Expr
        Values kept for training per time step and sequence (all layers and directions).
    kept : ModelCost or None
        The stack as a model (its tree, :meth:`derive.engine.stack.Stack.module`): what it keeps
        from one token to the next and a token's matmul FLOPs, the same fields a language model
        answers (:attr:`cache_bytes`, :attr:`state_bytes`, :attr:`kv_bytes_per_token`,
        :attr:`flops_per_token`, :attr:`active`).
    """

    per_step: dict
    seq_len: object
    batch: object
    dtype: str
    parameters: sympy.Expr
    stored_per_step: sympy.Expr
    kept: ModelCost | None = None

    @property
    def macs_per_step(self) -> sympy.Expr:
        """MACs of one time step of one sequence."""
        return self.per_step["mac"]

    @property
    def flops_per_step(self) -> sympy.Expr:
        """2·MACs + element-wise operations of one time step of one sequence."""
        return sympy.expand(2 * self.per_step["mac"] + sum(v for k, v in self.per_step.items() if k != "mac"))

    def _whole(self, value: Size) -> sympy.Expr:
        return sympy.expand(value * self.seq_len * self.batch)  # type: ignore[operator]

    @property
    def macs(self) -> sympy.Expr:
        """MACs of the whole batch: T·N·MACs per step."""
        return self._whole(self.per_step["mac"])

    @property
    def matmul_flops(self) -> sympy.Expr:
        """2·MACs of the whole batch: what FlopCounterMode reports for the matrix products."""
        return 2 * self.macs

    @property
    def flops(self) -> sympy.Expr:
        """FLOPs of the whole batch: 2·MACs plus every element-wise operation (see the module docstring)."""
        return self._whole(self.flops_per_step)

    @property
    def ops(self) -> dict:
        """Operations of the whole batch by kind."""
        return {k: self._whole(v) for k, v in self.per_step.items()}

    @property
    def weight_bytes(self) -> sympy.Expr:
        """Bytes of the parameters at ``dtype``."""
        return sympy.expand(self.parameters * DTYPE_BYTES[self.dtype])

    @property
    def cache_bytes(self) -> Any:
        """Bytes of the states the stack hands to its next call (torch's ``h_n`` and ``c_n``, Keras'
        ``return_state`` states) for ``batch`` sequences at ``dtype``: its inference cache, constant in
        ``seq_len`` (:class:`ModelCost`)."""
        return None if self.kept is None else self.kept.cache_bytes

    @property
    def state_bytes(self) -> Any:
        """The part of :attr:`cache_bytes` constant in ``seq_len``: all of it (a recurrent stack)."""
        return None if self.kept is None else self.kept.state_bytes

    @property
    def kv_bytes_per_token(self) -> Any:
        """Bytes one more token adds to the cache: 0 (no keys or values)."""
        return None if self.kept is None else self.kept.kv_bytes_per_token

    @property
    def flops_per_token(self) -> Any:
        """Matmul FLOPs of one token of one sequence (:meth:`derive.engine.stack.Stack.token_flops`):
        ``matmul_flops / (seq_len · batch)``, plus an output layer's."""
        return None if self.kept is None else self.kept.flops_per_token

    @property
    def active(self) -> Any:
        """Parameters one token uses: all of them (a dense stack)."""
        return self.parameters

    @property
    def activation_bytes(self) -> sympy.Expr:
        """Bytes kept for training over the whole batch and sequence at ``dtype`` (module docstring)."""
        return self._whole(self.stored_per_step * DTYPE_BYTES[self.dtype])

    def as_dict(self) -> dict[str, Any]:
        """Every figure as an int (or a string for a symbolic one), for JSON."""

        def plain(v: Size) -> int | str:
            v = as_expr(v)
            return int(v) if v.is_Integer else str(v)

        return {
            "seq_len": plain(self.seq_len),
            "batch": plain(self.batch),
            "dtype": self.dtype,
            "per_step": {k: plain(v) for k, v in self.per_step.items()},
            "macs_per_step": plain(self.macs_per_step),
            "flops_per_step": plain(self.flops_per_step),
            "macs": plain(self.macs),
            "flops": plain(self.flops),
            "matmul_flops": plain(self.matmul_flops),
            "weight_bytes": plain(self.weight_bytes),
            "activation_bytes": plain(self.activation_bytes),
            **(
                {}
                if self.kept is None
                else {
                    "cache_bytes": plain(self.cache_bytes),
                    "state_bytes": plain(self.state_bytes),
                    "kv_bytes_per_token": plain(self.kv_bytes_per_token),
                    "flops_per_token": plain(self.flops_per_token),
                }
            ),
        }


def _kind_of(kind: str, cell: Any) -> Any:
    return step_ops(cell)[kind]


def cost(stack: Any, seq_len: Size = T, batch: Size = N, dtype: str = "float32") -> Any:
    """Derive the compute and memory cost of ``stack`` from its cells' equations — or, for a whole
    model (a module tree, a report of one, a config mapping), what a sequence costs it
    (:func:`model_cost`).

    Parameters
    ----------
    stack : derive.engine.stack.Stack, derive.tree.Module, derive.read.Report or mapping
        E.g. ``derive.torch.LSTM(32, 128, 2, bidirectional=True)``; sizes may be symbolic. A
        module tree, a report with one (``derive.explain("config.json")``) or a transformers
        config as a mapping (with its ``model_type``) gives a :class:`ModelCost`.
    seq_len : int or sympy.Expr, default T
        Time steps per sequence (1 for a single cell's call).
    batch : int or sympy.Expr, default N
        Sequences per batch.
    dtype : {"float32", "float16", "bfloat16", "float64", "int8"}
        Element type of weights and stored activations.

    Returns
    -------
    Cost or ModelCost

    Raises
    ------
    TypeError
        ``stack`` is none of these; ``seq_len`` or ``batch`` not an int or SymPy integer
        expression.
    ValueError
        ``seq_len`` or ``batch`` < 1; unknown ``dtype``; a cell with an element-wise function of
        unknown cost.
    """
    tree = None if isinstance(stack, Stack) else _model_tree(stack)
    if tree is not None:
        return model_cost(tree, seq_len, batch, dtype)
    if not isinstance(stack, Stack):
        raise TypeError(
            "stack must be a derive stack (derive.torch.LSTM(...), derive.Stack(...), derive.frameworks.stack(...)), "
            f"got {type(stack).__name__}"
        )
    seq_len = _check_length("seq_len", seq_len)
    batch = _check_length("batch", batch)
    _dtype_bytes(dtype)
    per_step = {kind: stack.step_sum(partial(_kind_of, kind)) for kind in KINDS}
    stored = stack.step_sum(stored_elements)
    return Cost(per_step, seq_len, batch, dtype, stack.count, stored, ModelCost(stack.module(), seq_len, batch, dtype))


# --- a whole model: what a sequence costs to keep and what a token costs to compute -------------

#: Bytes per entry of the dtypes a cache keeps its tensors in (a counter is int64).
STATE_BYTES = {**DTYPE_BYTES, "int64": 8}


def _model_tree(obj: Any) -> Module | None:
    """The module tree of a model: the tree itself, a report's, or the model a config mapping builds."""
    if isinstance(obj, Module):
        return obj
    if isinstance(getattr(obj, "module", None), Module):
        return obj.module
    if isinstance(obj, Mapping) and "model_type" in obj:
        from ..blocks import config_model

        return config_model(obj["model_type"]).build({k: v for k, v in obj.items() if k != "model_type"})
    return None


def _held(module: Module, times: Any = 1) -> Iterator[tuple[State, Any]]:
    """Every state of the tree with how many copies hold it."""
    times = times if module.repeat == 1 else times * module.repeat
    for state in module.cache:
        yield state, times
    for child in module.children:
        yield from _held(child, times)


def _plain(value: Any) -> Any:
    value = sympy.expand(value) if isinstance(value, sympy.Basic) else value
    return int(value) if isinstance(value, sympy.Basic) and value.is_Integer else value


def _unwindowed(state: State) -> State:
    return dataclasses.replace(state, window=None)  # a compressor's stride kept: it grows by one entry per stride


def _bytes(state: State, dtype: str) -> int:
    return STATE_BYTES[state.dtype or dtype]


@dataclass(frozen=True)
class ModelCost:
    """What a batch of sequences costs a whole model: the inference cache it keeps and a token's FLOPs.

    Definitions (each a closed form when a size is a SymPy symbol: ``seq_len`` T and ``batch`` N
    default to symbols):

    ``cache_bytes``
        Bytes of every tensor transformers' cache holds after a forward of ``seq_len`` tokens of
        ``batch`` sequences: each module's :class:`~derive.tree.State` s (keys and values per
        attention layer — a sliding-window layer's ``window - 1`` tokens at most —, conv and
        recurrent states, counters), each in its own dtype (:attr:`State.dtype`; None: ``dtype``).
    ``state_bytes``
        The part of ``cache_bytes`` constant in T (the states without a token axis).
    ``kv_bytes_per_token``
        Bytes the cache grows by per token of one sequence, while T is below every window (and every
        compressor's stride: :attr:`State.stride`).
    ``flops_per_token``
        Matmul FLOPs of the forward of one token that leaves ``seq_len`` tokens in the cache
        (a decode step attending over them), as ``torch.utils.flop_counter.FlopCounterMode``
        counts ``mm``/``addmm``/``bmm`` (:func:`derive.layers.token_flops.matmul_flops`: the
        lm_head 2·V·D tied or not, the embedding 0, k of E routed experts); None when a module's
        FLOPs are not derived, or hold at a batch of one only and ``batch`` is not 1
        (:func:`derive.layers.token_flops.per_sequence`: transformers' RWKV).
    ``active``
        Parameters a token uses (:func:`derive.tree.active`: the Hugging Face Hub's definition,
        huggingface.js PR #2182 — everything but the routed experts a token does not visit, of
        which top_k / num_experts count; embeddings, head, routers, shared experts included;
        tied tensors once). A dense model's active count is its total.

    Attributes
    ----------
    module : derive.tree.Module
    seq_len, batch : int or sympy.Expr
    dtype : str
        The model's dtype (``"bfloat16"`` ...).
    """

    module: Module
    seq_len: Any
    batch: Any
    dtype: str

    @property
    def cache_bytes(self) -> Any:
        """Bytes the cache holds after ``seq_len`` tokens of ``batch`` sequences."""
        return _plain(
            sum((s.elements(self.batch, self.seq_len) * n * _bytes(s, self.dtype) for s, n in _held(self.module)), 0)
        )

    @property
    def state_bytes(self) -> Any:
        """The bytes constant in the sequence length (recurrent and conv states, counters)."""
        held = [(s, n) for s, n in _held(self.module) if not s.per_token]
        return _plain(sum((s.elements(self.batch, 1) * n * _bytes(s, self.dtype) for s, n in held), 0))

    @property
    def kv_bytes_per_token(self) -> Any:
        """Bytes one more token of one sequence adds (below every window)."""
        grown = [(s, n) for s, n in _held(self.module) if s.per_token]
        return _plain(sum((_unwindowed(s).elements(1, 1) * n * _bytes(s, self.dtype) for s, n in grown), 0))

    @property
    def flops_per_token(self) -> Any:
        """Matmul FLOPs of the token that leaves ``seq_len`` tokens in the cache (None: not derived, and
        :attr:`flops_not_derived` says why)."""
        return self._flops()[0]

    @property
    def flops_not_derived(self) -> str | None:
        """Why :attr:`flops_per_token` is None (the class with no rule, or the batch its rule does not
        hold at); None when it is derived."""
        return self._flops()[1]

    def _flops(self) -> tuple[Any, str | None]:
        from ..layers.token_flops import matmul_flops, per_sequence

        try:
            per_sequence(self.module, self.batch)
            return _plain(matmul_flops(self.module, self.seq_len)), None
        except ValueError as why:
            return None, str(why)

    @property
    def total(self) -> Any:
        """Parameters (:func:`derive.tree.count`)."""
        return count(self.module)

    @property
    def active(self) -> Any:
        """Parameters a token uses (:func:`derive.tree.active`; see the class docstring)."""
        return active(self.module)

    @property
    def weight_bytes(self) -> Any:
        """Bytes of the parameters at ``dtype``."""
        return _plain(self.total * DTYPE_BYTES[self.dtype])

    def closed_forms(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The four figures as closed forms in T (:data:`derive.engine.symbols.T`), N (:data:`N`) and the
        model's own letters — a config's keys, where the model was read from one (its
        :attr:`~derive.tree.Module.formula` recipe rebuilt with letters) — and the letters' values.

        Returns
        -------
        (dict, dict)
            ``{"cache_bytes", "state_bytes", "kv_bytes_per_token", "flops_per_token"}`` -> SymPy
            expression (None: not derived); letter -> value.

        Examples
        --------
        >>> from derive.families.llama import llama
        >>> forms, values = model_cost(llama({}), 4, 1).closed_forms()
        >>> forms["cache_bytes"], forms["kv_bytes_per_token"]
        (1048576*N*T, 1048576)
        """
        symbolic, values = self.module, {}
        recipe = self.module.formula
        if recipe is not None:
            made = recipe.build(*recipe.args, **dict(recipe.kwargs))
            if isinstance(made, Module):
                symbolic, values = made, dict(recipe.values)
        general = ModelCost(symbolic, T, N, self.dtype)
        names = ("cache_bytes", "state_bytes", "kv_bytes_per_token", "flops_per_token")
        return {name: getattr(general, name) for name in names}, values

    def as_dict(self) -> dict[str, Any]:
        """Every figure as an int (or a string for a symbolic one), for JSON (the CLI's ``"cost"``).

        Returns
        -------
        dict
            ``seq_len``, ``batch``, ``dtype``, ``cache_bytes``, ``state_bytes``,
            ``kv_bytes_per_token``, ``flops_per_token`` (None: not derived, ``flops_not_derived`` saying
            why; None when derived), ``weight_bytes``;
            ``closed_forms`` (each as a string in T, N and the model's letters) and ``letters``
            (their values).
        """

        def shown(v: Any) -> Any:
            v = _plain(v)
            return v if v is None or type(v) is int else str(v)

        forms, values = self.closed_forms()
        return {
            "seq_len": shown(self.seq_len),
            "batch": shown(self.batch),
            "dtype": self.dtype,
            "cache_bytes": shown(self.cache_bytes),
            "state_bytes": shown(self.state_bytes),
            "kv_bytes_per_token": shown(self.kv_bytes_per_token),
            "flops_per_token": shown(self.flops_per_token),
            "flops_not_derived": self.flops_not_derived,
            "weight_bytes": shown(self.weight_bytes),
            "closed_forms": {k: None if v is None else str(v) for k, v in forms.items()},
            "letters": values,
        }


def model_cost(model: Module, seq_len: Size = T, batch: Size = N, dtype: str = "float32") -> ModelCost:
    """What ``batch`` sequences of ``seq_len`` tokens cost ``model`` (see :class:`ModelCost`).

    Parameters
    ----------
    model : derive.tree.Module
        A whole model's tree (``derive.explain(config).module``).
    seq_len, batch : int or sympy.Expr
        T and N (symbols by default: the closed forms).
    dtype : {"float32", "float16", "bfloat16", "float64", "int8"}
        The model's dtype (states transformers always keeps in float32 stay float32).

    Returns
    -------
    ModelCost

    Raises
    ------
    TypeError
        ``model`` is not a module tree; ``seq_len`` or ``batch`` not an int or SymPy integer.
    ValueError
        ``seq_len`` or ``batch`` < 1; an unknown ``dtype``.

    Examples
    --------
    >>> from derive.families.mistral import mistral
    >>> c = model_cost(mistral({}), seq_len=10, batch=1, dtype="bfloat16")
    >>> c.kv_bytes_per_token, c.cache_bytes
    (131072, 1310976)
    """
    if not isinstance(model, Module):
        raise TypeError(f"model must be a derive module tree, got {type(model).__name__}")
    seq_len = _check_length("seq_len", seq_len)
    batch = _check_length("batch", batch)
    _dtype_bytes(dtype)
    return ModelCost(model, seq_len, batch, dtype)
