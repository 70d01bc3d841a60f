"""What a stack or a whole model costs: compute, the weights as stored, the cache as served, and what fits.

:func:`cost` answers one :class:`Cost` for a recurrent stack (``derive.torch.LSTM(...)``) and for
a whole model (a module tree, a report of one, a transformers config as a mapping) alike; the
fields that do not apply to one of them are None (each field's docstring says where).

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

**The inference cache** of a model (a stack's is the states it hands to its next call): every
:class:`~derive.tree.State` of its tree — keys and values per attention layer (a sliding-window
layer's ``window - 1`` tokens at most), conv and recurrent states, counters — each as transformers
holds it (its own dtype, e.g. float32 SSM states; None: the model's), unless the cache is asked as a
serving engine keeps it: ``kv_dtype`` for every tensor that grows with the tokens (keys, values,
MLA's latent, an indexer's keys), ``state_dtype`` for the recurrent and conv states; integer
counters stay int64 (:mod:`derive.analysis.served` for the formats, ggml's blocks among them).

**Weights as stored**: :mod:`derive.analysis.stored` (a ``quantization_config``'s tensors).
**What fits** a memory budget: :mod:`derive.analysis.fit` (weights as stored + the cache; not
activations, workspace or the CUDA context). **One GPU's share** under ``tp`` and ``pp``:
:mod:`derive.analysis.parallel` (each rank's tensors and cache as vLLM shards them; ``memory`` is then
one device's).

No SymPy is imported here until a closed form is asked for (a symbolic size, the default T and N,
:meth:`Cost.closed_forms`, a stack's equations): with int sizes every figure of a model is plain
integer arithmetic.

>>> import derive.torch as dt
>>> c = cost(dt.LSTM(10, 20), seq_len=7, batch=3)
>>> c.per_step["mac"], c.macs, c.matmul_flops
(2400, 50400, 100800)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..tree import Module, State, active, check_cache_known, count
from . import fit as _fit
from . import parallel as _parallel
from . import served as _served
from . import stored as _stored

if TYPE_CHECKING:  # made when first asked (module __getattr__): they need SymPy
    from ..engine.operations import KINDS, step_ops, stored_elements

    #: Batch size: sequences processed together (the symbol N).
    N: Any

__all__ = [
    "N",
    "KINDS",
    "DTYPE_BYTES",
    "STATE_BYTES",
    "COUNTED",
    "NOT_COUNTED",
    "step_ops",
    "stored_elements",
    "Cost",
    "cost",
    "model_cost",
]

#: Bytes per element of each supported dtype of the weights (``dtype``).
DTYPE_BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}

#: Bytes per entry of the dtypes a cache keeps its tensors in (a counter is int64).
STATE_BYTES = {**DTYPE_BYTES, "int64": 8}

#: What the memory answers count (said in the text and the JSON).
COUNTED = "the weights as stored and the inference cache (weights + cache)"
#: What the memory answers leave out (said in the text and the JSON): ``reserve`` holds memory back for it.
NOT_COUNTED = (
    "activations of the forward (prefill intermediates, logits), the framework's workspace and allocator "
    "slack, the CUDA context, a paged cache's page granularity: hold memory back for them with reserve"
)


def __getattr__(name: str) -> Any:
    """``N`` (the batch symbol), ``KINDS``, ``step_ops``, ``stored_elements``: imported when first asked
    (they need SymPy, which nothing else here imports)."""
    if name == "N":
        import sympy

        return sympy.Symbol("N", integer=True, positive=True)
    if name in ("KINDS", "step_ops", "stored_elements"):
        from ..engine import operations

        return getattr(operations, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Letter:
    """A default size meaning "the symbol": ``T`` for ``seq_len``, ``N`` for ``batch`` (made when used)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def symbol(self) -> Any:
        import sympy

        return sympy.Symbol(self.name, integer=True, positive=True)


#: The defaults of ``seq_len`` and ``batch``: the closed forms in T and N.
SYMBOLIC_T = _Letter("T")
SYMBOLIC_N = _Letter("N")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_sympy(value: Any) -> bool:
    return type(value).__module__.startswith("sympy")


def _check_length(name: str, value: Any) -> Any:
    if isinstance(value, _Letter):
        return value.symbol()
    if _is_sympy(value):
        import sympy

        if not isinstance(value, sympy.Expr) or value.is_integer is False or value.is_positive is False:
            raise TypeError(f"{name} must be a positive int or a SymPy integer expression, got {_shown(value)}")
        return int(value) if value.is_Integer else value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a positive int or a SymPy integer expression, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {_shown(value)}")
    return value


def _dtype_bytes(dtype: str) -> int:
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {dtype!r}")
    return DTYPE_BYTES[dtype]


def _plain(value: Any) -> Any:
    """A SymPy value expanded, an integer one as an int; an int or None unchanged."""
    if _is_sympy(value):
        import sympy

        value = sympy.expand(value)
        return int(value) if value.is_Integer else value
    return value


def _json(value: Any) -> Any:
    value = _plain(value)
    return value if value is None or type(value) is int else str(value)


def _times(entries: Any, per: Fraction) -> Any:
    """``entries`` × ``per`` bytes: an int for ints, SymPy for a symbolic count."""
    if type(entries) is int:
        total = entries * per
        assert total.denominator == 1, (entries, per)  # block widths are checked whole
        return int(total)
    if per.denominator == 1:
        return entries * int(per)
    import sympy

    return entries * sympy.Rational(per.numerator, per.denominator)


def _sum(terms: Any) -> Any:
    total: Any = 0
    for term in terms:
        total = total + term
    return _plain(total)


# --- what the tree keeps -------------------------------------------------------------------------------


def _held(module: Module, times: Any = 1, path: str = "") -> Iterator[tuple[Module, State, Any, str]]:
    """Every state of the tree with the module keeping it, how many copies hold it and its path."""
    times = times if module.repeat == 1 else times * module.repeat
    here = f"{path}{module.sep if path and module.name else ''}{module.name}" if module.name else path
    for state in module.cache:
        yield module, state, times, here
    for child in module.children:
        yield from _held(child, times, here)


def _counter(state: State) -> bool:
    return (state.dtype or "").startswith("int")


def _kind(module: Module) -> str:
    """The kind of layer a module's cache is: "full attention", "sliding attention" (keeps tokens, a
    window or not), or its class (a recurrent mixer's fixed-size state: ``JambaMambaMixer``)."""
    kept = [s for s in module.cache if not _counter(s)]
    grown = [s for s in kept if s.per_token]
    if any(s.stride is not None for s in grown):  # a compressor's entries (DeepSeek-V4's CSA and HCA)
        return "compressed attention"
    if grown:
        return "sliding attention" if any(s.window is not None for s in grown) else "full attention"
    return module.type


def _unwindowed(state: State) -> State:
    return replace(state, window=None)  # a compressor's stride kept: its entries come one per stride


# --- the one answer -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """What ``batch`` sequences of ``seq_len`` tokens (or time steps) cost a stack or a whole model.

    One class for both: :func:`cost` of a recurrent stack fills the compute fields derived from its
    cells' equations (``per_step``, ``macs``, ``flops``, ``activation_bytes`` ...), which are None for
    a model; every other field is filled for both (a stack's cache is the states it hands to its next
    call: torch's ``h_n``/``c_n``). Figures are ints for int sizes; a symbolic size (the default T and
    N) gives SymPy closed forms. Units are in each field's docstring.

    Attributes
    ----------
    module : derive.tree.Module
        The model's tree (a stack's: :meth:`derive.engine.stack.Stack.module`).
    seq_len, batch : int or sympy.Expr
        T (tokens in the cache; a stack's time steps) and N (sequences).
    dtype : str
        The model's dtype: of the parameters (``weight_bytes``), of the weights not quantized and of
        the states transformers keeps in the model's dtype.
    kv_dtype : str or None
        The format keys and values are served in (:mod:`derive.analysis.served`); None: as
        transformers holds them.
    state_dtype : str or None
        The format recurrent and conv states are served in; None: as transformers holds them
        (a State's own dtype, e.g. float32 SSM states, else ``dtype``).
    quantization_config : mapping or None
        The weights' ``quantization_config`` (:mod:`derive.analysis.stored`); None: not quantized.
    memory : int or None
        The memory budget, bytes (None: no budget, the fit fields None).
    reserve : int
        Bytes of ``memory`` held back (activations, workspace, the CUDA context).
    stack : derive.engine.stack.Stack or None
        The stack a stack's cost was asked of (None for a model).
    tp, pp : int
        Tensor-parallel size and pipeline stages (:mod:`derive.analysis.parallel`); with either > 1 the
        ``rank_*`` fields and :attr:`stages` give one device's share and a budget is one device's.
    ep : bool
        Routed experts whole on the ``tp`` devices (vLLM's ``--enable-expert-parallel``), not each split.
    """

    module: Module
    seq_len: Any
    batch: Any
    dtype: str
    kv_dtype: str | None = None
    state_dtype: str | None = None
    quantization_config: Mapping[str, Any] | None = None
    memory: int | None = None
    reserve: int = 0
    stack: Any = field(default=None, repr=False)
    tp: int = 1
    pp: int = 1
    ep: bool = False

    # --- a stack's compute (None for a model) ----------------------------------------------------------

    @cached_property
    def per_step(self) -> dict[str, Any] | None:
        """Operations of one time step of one sequence through every layer and direction, by kind
        (``mac``, ``add``, ``mul``, ``sigmoid``, ``tanh``, ``relu``); units: operations. None for a model."""
        if self.stack is None:
            return None
        from functools import partial

        from ..engine.operations import KINDS

        return {kind: _plain(self.stack.step_sum(partial(_kind_of, kind))) for kind in KINDS}

    @cached_property
    def stored_per_step(self) -> Any:
        """Values kept for training per time step and sequence (all layers and directions); units:
        values. None for a model."""
        if self.stack is None:
            return None
        from ..engine.operations import stored_elements

        return _plain(self.stack.step_sum(stored_elements))

    @property
    def macs_per_step(self) -> Any:
        """MACs of one time step of one sequence (None for a model)."""
        return None if self.per_step is None else self.per_step["mac"]

    @property
    def flops_per_step(self) -> Any:
        """2·MACs + element-wise operations of one time step of one sequence (None for a model)."""
        if self.per_step is None:
            return None
        return _plain(2 * self.per_step["mac"] + sum(v for k, v in self.per_step.items() if k != "mac"))

    def _whole(self, value: Any) -> Any:
        return _plain(value * self.seq_len * self.batch)

    @property
    def macs(self) -> Any:
        """MACs of the whole batch: T·N·MACs per step (None for a model)."""
        return None if self.per_step is None else self._whole(self.per_step["mac"])

    @property
    def matmul_flops(self) -> Any:
        """2·MACs of the whole batch: what FlopCounterMode reports for the matrix products (None for a model)."""
        return None if self.macs is None else _plain(2 * self.macs)

    @property
    def flops(self) -> Any:
        """FLOPs of the whole batch: 2·MACs plus every element-wise operation (None for a model)."""
        return None if self.per_step is None else self._whole(self.flops_per_step)

    @property
    def ops(self) -> dict[str, Any] | None:
        """Operations of the whole batch by kind (None for a model)."""
        return None if self.per_step is None else {k: self._whole(v) for k, v in self.per_step.items()}

    @property
    def activation_bytes(self) -> Any:
        """Bytes kept for training over the whole batch and sequence at ``dtype`` (the module
        docstring's assumption); None for a model."""
        if self.stored_per_step is None:
            return None
        return self._whole(self.stored_per_step * DTYPE_BYTES[self.dtype])

    # --- parameters and weights --------------------------------------------------------------------------

    @property
    def parameters(self) -> Any:
        """Parameters (:func:`derive.tree.count`; a stack's :attr:`~derive.engine.stack.Stack.count`)."""
        return self.stack.count if self.stack is not None else count(self.module)

    @property
    def total(self) -> Any:
        """Parameters: the same as :attr:`parameters`."""
        return self.parameters

    @property
    def active(self) -> Any:
        """Parameters one token uses (:func:`derive.tree.active`: the Hugging Face Hub's definition,
        huggingface.js PR #2182 — all but the routed experts a token does not visit, of which top_k /
        num_experts count; tied tensors once). A dense model's, and a stack's, is its total. None where
        the tree says it is not known (:attr:`derive.tree.Module.unknown`: a measured model that routes
        experts, :mod:`derive.read.measured`)."""
        return self.parameters if self.stack is not None else active(self.module)

    @property
    def weight_bytes(self) -> Any:
        """Bytes of the parameters at ``dtype`` (parameters × the dtype's size), quantized or not."""
        return _plain(self.parameters * DTYPE_BYTES[self.dtype])

    @cached_property
    def _weights(self) -> _stored.Stored | None:
        try:
            return _stored.stored(self.module, self.quantization_config, self.dtype)
        except ValueError:
            if self.quantization_config is not None:
                raise
            return None  # symbolic sizes or too many layers to list: weights_bytes is weight_bytes

    @property
    def stored_tensors(self) -> tuple[_stored.StoredTensor, ...] | None:
        """Every tensor the checkpoint holds for the parameters: name, stored dtype, stored shape
        (:func:`derive.analysis.stored.stored`); None where sizes are symbolic or too many to list."""
        return None if self._weights is None else self._weights.tensors

    @property
    def weights_bytes(self) -> Any:
        """Bytes of the weights as stored (units: bytes): the quantized checkpoint's tensors, else the
        parameters at ``dtype`` (then :attr:`weight_bytes`). An upper bound only where
        :attr:`weights_bound` says so."""
        return self.weight_bytes if self._weights is None else self._weights.nbytes

    @property
    def weights_by_dtype(self) -> dict[str, int] | None:
        """:attr:`weights_bytes` by stored dtype (units: bytes); None where not listed."""
        return None if self._weights is None else self._weights.by_dtype()

    @property
    def weights_bound(self) -> str | None:
        """Why :attr:`weights_bytes` is an upper bound and by how much at most; None: exact."""
        return None if self._weights is None else self._weights.bound

    @property
    def quant_method(self) -> str | None:
        """The ``quantization_config``'s ``quant_method`` (None: not quantized)."""
        return _stored.method_of(self.quantization_config)

    # --- the cache ---------------------------------------------------------------------------------------

    def _format(self, state: State) -> str:
        if _counter(state):
            return state.dtype or "int64"
        if state.per_token:
            return self.kv_dtype or state.dtype or self.dtype
        return self.state_dtype or state.dtype or self.dtype

    def _per_entry(self, state: State) -> Fraction:
        return _served.entry_bytes(self._format(state))

    def _cache(self, tokens: Any, batch: Any, which: str = "all") -> Any:
        terms = []
        for _, state, copies, _ in _held(self.module):
            if (which == "kv" and not state.per_token) or (which == "state" and state.per_token):
                continue
            terms.append(_times(state.elements(batch, tokens) * copies, self._per_entry(state)))
        return _sum(terms)

    @property
    def cache_bytes(self) -> Any:
        """Bytes the cache holds after ``seq_len`` tokens of ``batch`` sequences, as served
        (:attr:`kv_bytes` + :attr:`state_bytes`)."""
        return self._cache(self.seq_len, self.batch)

    @property
    def state_bytes(self) -> Any:
        """The bytes constant in the sequence length (recurrent and conv states, counters), for
        ``batch`` sequences."""
        return self._cache(1, self.batch, "state")

    @property
    def kv_bytes(self) -> Any:
        """The bytes that grow with the tokens (keys and values; a sliding window's capped at
        ``window - 1`` tokens), after ``seq_len`` tokens of ``batch`` sequences."""
        return self._cache(self.seq_len, self.batch, "kv")

    @property
    def kv_bytes_per_token(self) -> Any:
        """Bytes one more token of one sequence adds (below every window)."""
        terms = [
            _times(_unwindowed(s).elements(1, 1) * n, self._per_entry(s))
            for _, s, n, _ in _held(self.module)
            if s.per_token
        ]
        return _sum(terms)

    @property
    def cache_kinds(self) -> dict[str, dict[str, Any]]:
        """The cache by kind of layer: ``"full attention"``, ``"sliding attention"`` and each
        recurrent mixer's class (``"JambaMambaMixer"``), each ``{"layers", "kv_bytes",
        "state_bytes", "kv_bytes_per_token"}`` — layers: modules of that kind (copies counted); the
        bytes as :attr:`kv_bytes`, :attr:`state_bytes`, :attr:`kv_bytes_per_token` are, for those
        layers alone. They add up to the whole."""
        kinds: dict[str, dict[str, list[Any]]] = {}
        seen: dict[int, str] = {}
        for module, state, copies, path in _held(self.module):
            kind = _kind(module)
            entry = kinds.setdefault(kind, {"layers": [], "kv_bytes": [], "state_bytes": [], "kv_bytes_per_token": []})
            key = id(module)
            if seen.get(key) != path:
                seen[key] = path
                entry["layers"].append(copies)
            per = self._per_entry(state)
            if state.per_token:
                entry["kv_bytes"].append(_times(state.elements(self.batch, self.seq_len) * copies, per))
                entry["kv_bytes_per_token"].append(_times(_unwindowed(state).elements(1, 1) * copies, per))
            else:
                entry["state_bytes"].append(_times(state.elements(self.batch, 1) * copies, per))
        return {kind: {k: _sum(v) for k, v in entry.items()} for kind, entry in kinds.items()}

    # --- a token's FLOPs -----------------------------------------------------------------------------------

    @property
    def flops_per_token(self) -> Any:
        """Matmul FLOPs of the forward of one token that leaves ``seq_len`` tokens in the cache (a decode
        step attending over them), as ``torch.utils.flop_counter.FlopCounterMode`` counts
        ``mm``/``addmm``/``bmm`` (:func:`derive.layers.token_flops.matmul_flops`: the lm_head 2·V·D tied or
        not, the embedding 0, k of E routed experts; a stack's, 2 × its cells' step MACs); None when a
        module's FLOPs are not derived, or hold at a batch of one only and ``batch`` is not 1
        (:attr:`flops_not_derived` says why)."""
        return self._flops[0]

    @property
    def flops_not_derived(self) -> str | None:
        """Why :attr:`flops_per_token` is None (the class with no rule, or the batch its rule does not
        hold at); None when it is derived."""
        return self._flops[1]

    @cached_property
    def _flops(self) -> tuple[Any, str | None]:
        from ..layers.token_flops import matmul_flops, per_sequence

        try:
            per_sequence(self.module, self.batch)
            return _plain(matmul_flops(self.module, self.seq_len)), None
        except ValueError as why:
            return None, str(why)

    # --- what fits ---------------------------------------------------------------------------------------------

    @property
    def budget(self) -> int | None:
        """Bytes the weights and the cache may take: ``memory - reserve`` (None without a budget)."""
        return None if self.memory is None else self.memory - self.reserve

    def _ints(self, *values: Any) -> bool:
        return all(type(v) is int for v in values)

    def _need(self, tokens: int, batch: int) -> int:
        return int(self.weights_bytes) + int(self._cache(tokens, batch))

    @property
    def fits(self) -> bool | None:
        """Whether the weights as stored and the cache after ``seq_len`` tokens of ``batch`` sequences fit
        :attr:`budget` (None without a budget, or at a symbolic T or N); with ``tp``/``pp``, on every device."""
        if self.budget is None or not self._ints(self.seq_len, self.batch):
            return None
        if self._plan is not None:
            return all(e["fits"] for e in self.stages or ())
        return self._need(self.seq_len, self.batch) <= self.budget

    def _longest(self, states: Any = None) -> int | None:
        """The T past which the cache stops growing (the longest window kept), None if it grows forever."""
        longest = 1
        for state in states if states is not None else (s for _, s, _, _ in _held(self.module)):
            if not state.per_token:
                continue
            if state.stride is not None:  # a compressor's: its open window (< stride), its entries (one a stride)
                if state.remainder:
                    longest = max(longest, int(state.stride))
                    continue
                if state.window is None:
                    return None
                longest = max(longest, int(state.stride) * (int(state.window) + 1))
                continue
            if _unwindowed(state).elements(1, 1) == 0:
                continue
            if state.window is None:
                return None
            longest = max(longest, int(state.window))
        return longest

    @property
    def max_seq_len(self) -> int | None:
        """The largest number of tokens T whose weights + cache, at ``batch`` sequences, fit
        :attr:`budget` (checked at T and at T + 1); 0 when not even one token fits (the weights alone
        may not: :attr:`weights_bytes`). None: no budget, a symbolic batch, or every length fits
        (:attr:`fits_any_length`)."""
        if self.budget is None or not self._ints(self.batch):
            return None
        if self._plan is not None:
            return _least(e["max_seq_len"] for e in self.stages or ())
        return _fit.max_seq_len(lambda t: self._need(t, self.batch), self.budget, self._longest())

    @property
    def fits_any_length(self) -> bool | None:
        """True when the cache stops growing (only states, or every window capped) and it fits at its
        longest: :attr:`max_seq_len` is then None. None without a budget or at a symbolic batch."""
        if self.budget is None or not self._ints(self.batch):
            return None
        if self._plan is not None:
            return all(e["fits_any_length"] for e in self.stages or ())
        longest = self._longest()
        return longest is not None and self._need(longest, self.batch) <= self.budget

    @property
    def max_batch(self) -> int | None:
        """The largest number of sequences whose weights + cache, at ``seq_len`` tokens each, fit
        :attr:`budget` (checked at B and B + 1); 0 when not even one fits. None: no budget, a symbolic
        T, or a cache that does not grow with the batch."""
        if self.budget is None or not self._ints(self.seq_len):
            return None
        if self._plan is not None:
            return _least(e["max_batch"] for e in self.stages or ())
        return _fit.max_batch(lambda b: self._need(self.seq_len, b), self.budget)

    # --- one device's share (tp, pp) --------------------------------------------------------------------------

    @cached_property
    def _plan(self) -> _parallel.Plan | None:
        if self.tp == 1 and self.pp == 1:
            return None
        return _parallel.plan(self.module, self.tp, self.pp, ep=self.ep)

    def _stage_cache(self, stage: _parallel.Stage, tokens: Any, batch: Any, which: str = "all") -> Any:
        terms = [
            _times(s.elements(batch, tokens), self._per_entry(s))
            for s in stage.states
            if not ((which == "kv" and not s.per_token) or (which == "state" and s.per_token))
        ]
        return _sum(terms)

    @cached_property
    def stages(self) -> list[dict[str, Any]] | None:
        """One device's share on each pipeline stage (None with ``tp`` and ``pp`` 1): ``{"stage", "layers"
        ([start, end) of the decoder layers), "parameters", "weights_bytes", "kv_bytes", "state_bytes",
        "cache_bytes", "kv_bytes_per_token"}`` and, with a budget, ``"fits", "max_seq_len", "max_batch",
        "fits_any_length"`` for that device (units: bytes, tokens, sequences)."""
        if self._plan is None:
            return None
        out = []
        width = DTYPE_BYTES[self.dtype]
        for stage in self._plan.stages:
            weights = stage.parameters * width
            entry: dict[str, Any] = {
                "stage": stage.index,
                "layers": list(stage.layers),
                "parameters": stage.parameters,
                "weights_bytes": weights,
                "kv_bytes": self._stage_cache(stage, self.seq_len, self.batch, "kv"),
                "state_bytes": self._stage_cache(stage, 1, self.batch, "state"),
                "cache_bytes": self._stage_cache(stage, self.seq_len, self.batch),
                "kv_bytes_per_token": _sum(
                    _times(_unwindowed(s).elements(1, 1), self._per_entry(s)) for s in stage.states if s.per_token
                ),
            }
            if self.budget is not None:
                entry.update(self._stage_fit(stage, weights))
            out.append(entry)
        return out

    def _stage_fit(self, stage: _parallel.Stage, weights: int) -> dict[str, Any]:
        budget = int(self.budget or 0)

        def need(tokens: int, batch: int) -> int:
            return weights + int(self._stage_cache(stage, tokens, batch))

        fit: dict[str, Any] = {"fits": None, "max_seq_len": None, "max_batch": None, "fits_any_length": None}
        if self._ints(self.seq_len, self.batch):
            fit["fits"] = need(self.seq_len, self.batch) <= budget
        if self._ints(self.batch):
            longest = self._longest(stage.states)
            fit["max_seq_len"] = _fit.max_seq_len(lambda t: need(t, self.batch), budget, longest)
            fit["fits_any_length"] = longest is not None and need(longest, self.batch) <= budget
        if self._ints(self.seq_len):
            fit["max_batch"] = _fit.max_batch(lambda b: need(self.seq_len, b), budget)
        return fit

    def _rank(self, key: str) -> Any:
        return None if self.stages is None else max(e[key] for e in self.stages)

    @property
    def rank_weights_bytes(self) -> int | None:
        """Bytes of the weights on the most loaded device (the largest stage's, one of its ``tp`` ranks);
        None with ``tp`` and ``pp`` 1."""
        return self._rank("weights_bytes")

    @property
    def rank_cache_bytes(self) -> Any:
        """Bytes of the cache on the most loaded device, after ``seq_len`` tokens of ``batch`` sequences."""
        return self._rank("cache_bytes")

    @property
    def rank_kv_bytes(self) -> Any:
        """Bytes of keys and values on the most loaded device."""
        return self._rank("kv_bytes")

    @property
    def rank_state_bytes(self) -> Any:
        """Bytes constant in T on the most loaded device."""
        return self._rank("state_bytes")

    @property
    def rank_kv_bytes_per_token(self) -> Any:
        """Bytes one more token of one sequence adds on the most loaded device."""
        return self._rank("kv_bytes_per_token")

    # --- closed forms and JSON ---------------------------------------------------------------------------------

    def closed_forms(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The cache and token figures as closed forms in T, N and the model's own letters — a config's
        keys, where the model was read from one (its :attr:`~derive.tree.Module.formula` recipe rebuilt
        with letters) — and the letters' values.

        Returns
        -------
        (dict, dict)
            ``{"cache_bytes", "state_bytes", "kv_bytes", "kv_bytes_per_token", "flops_per_token"}`` ->
            SymPy expression (None: not derived); letter -> value.

        Examples
        --------
        >>> from derive.families.llama import llama
        >>> forms, values = model_cost(llama({}), 4, 1).closed_forms()
        >>> forms["cache_bytes"], forms["kv_bytes_per_token"]
        (1048576*N*T, 1048576)
        """
        symbolic, values = self.module, {}
        recipe = self.module.formula
        if recipe is not None and self.stack is None:
            made = recipe.build(*recipe.args, **dict(recipe.kwargs))
            if isinstance(made, Module):
                symbolic, values = made, dict(recipe.values)
        general = Cost(symbolic, SYMBOLIC_T.symbol(), SYMBOLIC_N.symbol(), self.dtype, self.kv_dtype, self.state_dtype)
        names = ("cache_bytes", "state_bytes", "kv_bytes", "kv_bytes_per_token", "flops_per_token")
        return {name: getattr(general, name) for name in names}, values

    def as_dict(self) -> dict[str, Any]:
        """Every figure as an int (or a string for a symbolic one), for JSON (the CLI's ``"cost"``).

        Returns
        -------
        dict
            The fields of :class:`Cost` by name (None where they do not apply), with
            ``stored_tensors`` as ``{"name", "of", "dtype", "shape", "bytes"}`` rows,
            ``closed_forms`` (strings in T, N and the model's letters), ``letters`` (their values),
            and with a budget ``memory``, ``reserve``, ``budget``, ``counted`` and ``not_counted``;
            ``tp`` and ``pp`` always, and with either > 1 one device's share: ``rank_weights_bytes``,
            ``rank_cache_bytes``, ``rank_kv_bytes``, ``rank_state_bytes``, ``rank_kv_bytes_per_token``,
            ``vocab_padded``, ``kv_heads_per_rank``, ``kv_head_replicas``, ``expert_mode`` and ``stages``
            (:attr:`stages`; None otherwise).
        """
        forms, values = self.closed_forms()
        listed = self.stored_tensors
        rows = None if listed is None else [
            {"name": t.name, "of": t.of, "dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes} for t in listed
        ]  # fmt: skip
        per_step = self.per_step
        ops = self.ops
        out = {
            "seq_len": _json(self.seq_len),
            "batch": _json(self.batch),
            "dtype": self.dtype,
            "kv_dtype": self.kv_dtype,
            "state_dtype": self.state_dtype,
            "parameters": _json(self.parameters),
            "active": _json(self.active),
            "per_step": None if per_step is None else {k: _json(v) for k, v in per_step.items()},
            "macs_per_step": _json(self.macs_per_step),
            "flops_per_step": _json(self.flops_per_step),
            "macs": _json(self.macs),
            "flops": _json(self.flops),
            "matmul_flops": _json(self.matmul_flops),
            "ops": None if ops is None else {k: _json(v) for k, v in ops.items()},
            "activation_bytes": _json(self.activation_bytes),
            "weight_bytes": _json(self.weight_bytes),
            "weights_bytes": _json(self.weights_bytes),
            "weights_bound": self.weights_bound,
            "quant_method": self.quant_method,
            "weights_by_dtype": self.weights_by_dtype,
            "stored_tensors": rows,
            "cache_bytes": _json(self.cache_bytes),
            "kv_bytes": _json(self.kv_bytes),
            "state_bytes": _json(self.state_bytes),
            "kv_bytes_per_token": _json(self.kv_bytes_per_token),
            "cache_kinds": {k: {n: _json(v) for n, v in e.items()} for k, e in self.cache_kinds.items()},
            "flops_per_token": _json(self.flops_per_token),
            "flops_not_derived": self.flops_not_derived,
            "memory": self.memory,
            "reserve": self.reserve if self.memory is not None else None,
            "budget": self.budget,
            "fits": self.fits,
            "max_seq_len": self.max_seq_len,
            "max_batch": self.max_batch,
            "fits_any_length": self.fits_any_length,
            "counted": COUNTED if self.memory is not None else None,
            "not_counted": NOT_COUNTED if self.memory is not None else None,
            "tp": self.tp,
            "pp": self.pp,
            "rank_weights_bytes": self.rank_weights_bytes,
            "rank_cache_bytes": _json(self.rank_cache_bytes),
            "rank_kv_bytes": _json(self.rank_kv_bytes),
            "rank_state_bytes": _json(self.rank_state_bytes),
            "rank_kv_bytes_per_token": _json(self.rank_kv_bytes_per_token),
            "vocab_padded": None if self._plan is None or self._plan.vocab is None else self._plan.vocab[1],
            "kv_heads_per_rank": None if self._plan is None or self._plan.kv_heads is None else self._plan.kv_heads[1],
            "kv_head_replicas": None if self._plan is None or self._plan.kv_heads is None else self._plan.kv_heads[2],
            "expert_mode": None
            if self._plan is None
            else _parallel.EXPERT_PARALLEL
            if self.ep
            else _parallel.EXPERT_MODE,
            "stages": None
            if self.stages is None
            else [
                {k: v if k == "layers" or v is None or isinstance(v, bool) else _json(v) for k, v in e.items()}
                for e in self.stages
            ],
            "closed_forms": {k: None if v is None else str(v) for k, v in forms.items()},
            "letters": values,
        }
        return out


def _least(values: Any) -> Any:
    """The smallest of the stages' answers, None (any length, or no growth) left out; None if all are."""
    known = [v for v in values if v is not None]
    return min(known) if known else None


def _kind_of(kind: str, cell: Any) -> Any:
    from ..engine.operations import step_ops

    return step_ops(cell)[kind]


# --- the one entry point ------------------------------------------------------------------------------------


def _model_tree(obj: Any) -> tuple[Module | None, Mapping[str, Any] | None, str | None]:
    """The module tree of a model (the tree itself, a report's, or the model a config mapping builds),
    with a config's ``quantization_config`` and ``torch_dtype`` (None for a tree or a report)."""
    if isinstance(obj, Module):
        return obj, None, None
    if isinstance(getattr(obj, "module", None), Module):
        return obj.module, None, None
    if isinstance(obj, Mapping) and "model_type" in obj:
        from ..blocks import config_model

        rest = {k: v for k, v in obj.items() if k not in ("model_type", "quantization_config")}
        return config_model(obj["model_type"]).build(rest), obj.get("quantization_config"), config_dtype(obj)
    return None, None, None


def config_dtype(config: Mapping[str, Any]) -> str | None:
    """A config's own dtype (``torch_dtype``, or transformers 5's ``dtype``), None when it names none.

    Parameters
    ----------
    config : mapping

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        A dtype derive does not price (named with the key).
    """
    for key in ("dtype", "torch_dtype"):
        value = config.get(key)
        if value is None or value == "auto":
            continue
        name = str(value).removeprefix("torch.")
        if name not in DTYPE_BYTES:
            raise ValueError(f"config key {key!r}: {str(value)[:40]!r} is not one of {sorted(DTYPE_BYTES)}")
        return name
    return None


def _check_blocks(model: Module, kv: str | None, state: str | None) -> None:
    """Refuse a block format for a state whose last axis is not a whole number of blocks."""
    for module, s, _, path in _held(model):
        if _counter(s) or not s.shape:
            continue
        fmt = kv if s.per_token else state
        _served.check_width(fmt, s.shape[-1], f"{path or module.type} {s.name}")


def cost(
    stack: Any,
    seq_len: Any = SYMBOLIC_T,
    batch: Any = SYMBOLIC_N,
    dtype: str | None = None,
    *,
    kv_dtype: str | None = None,
    state_dtype: str | None = None,
    quantization_config: Mapping[str, Any] | None = None,
    memory: int | str | None = None,
    reserve: int | str = 0,
    tp: int = 1,
    pp: int = 1,
    ep: bool = False,
) -> Cost:
    """What ``batch`` sequences of ``seq_len`` tokens cost a stack or a model (see :class:`Cost`).

    Parameters
    ----------
    stack : derive.engine.stack.Stack, derive.tree.Module, derive.read.Report or mapping
        A recurrent stack (``derive.torch.LSTM(32, 128, 2, bidirectional=True)``; sizes may be
        symbolic), a module tree, a report with one (``derive.explain("config.json")``) or a
        transformers config as a mapping (with its ``model_type``; its ``quantization_config`` and
        ``torch_dtype`` are read).
    seq_len : int or sympy.Expr, default T
        Time steps of a stack; tokens in a model's cache (1 for a single cell's call). The default is
        the symbol T (the closed form).
    batch : int or sympy.Expr, default N
        Sequences (default: the symbol N).
    dtype : {"float32", "float16", "bfloat16", "float64", "int8"}, optional
        The model's dtype; default the config's ``torch_dtype`` (or ``dtype``), else float32.
    kv_dtype : str, optional
        Keys and values as served (:data:`derive.analysis.served.SERVED`: float16, bfloat16,
        float32, fp8 e4m3/e5m2, int8, ggml's q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl); default as
        transformers holds them.
    state_dtype : str, optional
        Recurrent and conv states as served (vLLM's ``mamba_ssm_cache_dtype``); default as
        transformers holds them (float32 SSM states stay float32).
    quantization_config : mapping, optional
        The weights' quantization (a config mapping's own is read when this is not given).
    memory : int or str, optional
        A memory budget: bytes, or ``"24GB"`` (10^9 a GB), ``"80GiB"`` (2^30) ... (:func:`derive.analysis.fit.parse_size`).
    reserve : int or str, default 0
        Bytes of ``memory`` held back for what is not counted.
    tp : int, default 1
        Tensor-parallel size (vLLM's ``--tensor-parallel-size``): each device's weights and cache as vLLM
        shards them (:mod:`derive.analysis.parallel`); ``memory`` is then one device's budget.
    pp : int, default 1
        Pipeline stages (vLLM's ``--pipeline-parallel-size``): the decoder layers split as vLLM splits them.
    ep : bool, default False
        With ``tp``: routed experts whole, ceil(E / tp) on the most loaded device (vLLM's
        ``--enable-expert-parallel``), instead of each expert split ``tp`` ways (vLLM's default).

    Returns
    -------
    Cost

    Raises
    ------
    TypeError
        ``stack`` is none of these; ``seq_len`` or ``batch`` not an int or SymPy integer
        expression; ``memory`` or ``reserve`` neither an int nor a str.
    ValueError
        ``seq_len`` or ``batch`` < 1; unknown ``dtype``, ``kv_dtype`` or ``state_dtype``; a block
        format for a head width not divisible by 32; an unknown ``quant_method`` (named); a budget
        that is not a size, or a ``reserve`` above it; a budget with symbolic sizes; a cell with an
        element-wise function of unknown cost; ``tp`` or ``pp`` < 1, a size ``tp`` does not divide (named
        with its config key), a module without a tensor-parallel rule, ``tp``/``pp`` with a stack or a
        ``quantization_config``.

    Examples
    --------
    Llama-2-7B's shape (``LlamaConfig()``) in bfloat16, keys and values in llama.cpp's q8_0, on 24 GB:

    >>> from derive.families.llama import llama
    >>> c = cost(llama({}), seq_len=4096, batch=1, dtype="bfloat16", kv_dtype="q8_0", memory="24GB")
    >>> c.kv_bytes_per_token, c.max_seq_len, c.max_batch
    (278528, 37781, 9)
    """
    from ..engine.stack import Stack

    config_quant = None
    own_dtype = None
    tree: Module | None
    if isinstance(stack, Stack):
        tree = stack.module()
    else:
        tree, config_quant, own_dtype = _model_tree(stack)
        if tree is None:
            raise TypeError(
                "stack must be a derive stack (derive.torch.LSTM(...), derive.Stack(...), derive.frameworks.stack(...)), "
                f"a module tree, a report or a config mapping, got {type(stack).__name__}"
            )
    check_cache_known(tree)  # a measured model whose cache could not be read: never counted short
    dtype = dtype if dtype is not None else own_dtype or "float32"
    return _priced(
        tree,
        seq_len,
        batch,
        dtype,
        kv_dtype,
        state_dtype,
        quantization_config if quantization_config is not None else config_quant,
        memory,
        reserve,
        stack if isinstance(stack, Stack) else None,
        tp,
        pp,
        ep,
    )


def _priced(
    tree: Module,
    seq_len: Any,
    batch: Any,
    dtype: str,
    kv_dtype: Any,
    state_dtype: Any,
    quantization_config: Any,
    memory: Any,
    reserve: Any,
    stack: Any,
    tp: Any = 1,
    pp: Any = 1,
    ep: Any = False,
) -> Cost:
    seq_len = _check_length("seq_len", seq_len)
    batch = _check_length("batch", batch)
    if not isinstance(dtype, str):
        raise TypeError(f"dtype must be a str, got {type(dtype).__name__}")
    _dtype_bytes(dtype)
    kv = _served.served_format(kv_dtype, "kv_dtype")
    state = _served.served_format(state_dtype, "state_dtype")
    _check_blocks(tree, kv, state)
    if hasattr(quantization_config, "to_dict"):
        quantization_config = quantization_config.to_dict()
    _stored.method_of(quantization_config)
    budget = None if memory is None else _fit.parse_size(memory, "memory")
    held_back = _fit.parse_size(reserve, "reserve")
    if budget is not None and held_back > budget:
        raise ValueError(f"reserve ({held_back:,} B) is more than memory ({budget:,} B)")
    for name, value in (("tp", tp), ("pp", pp)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if tp * pp > 1 and (stack is not None or quantization_config is not None):
        what = "a recurrent stack" if stack is not None else "a quantization_config (packed shards are not derived)"
        raise ValueError(f"tp and pp apply to a language model's weights in one dtype, not to {what}")
    if not isinstance(ep, bool):
        raise TypeError(f"ep must be a bool, got {type(ep).__name__}")
    if ep and tp == 1:
        raise ValueError("ep places the experts on the tp devices: give tp > 1")
    made = Cost(tree, seq_len, batch, dtype, kv, state, quantization_config, budget, held_back, stack, tp, pp, ep)
    made._plan  # noqa: B018  (a size tp does not divide is refused now, naming its key)
    if quantization_config is not None:
        made._weights  # noqa: B018  (a quantization key derive cannot store is refused now, naming it)
    if budget is not None:
        if (
            type(made.weights_bytes) is not int
            or type(made.cache_bytes if made._ints(seq_len, batch) else 0) is not int
        ):
            raise ValueError("memory: a budget needs int sizes (the model's and seq_len or batch)")
    return made


def model_cost(
    model: Module, seq_len: Any = SYMBOLIC_T, batch: Any = SYMBOLIC_N, dtype: str = "float32", **served: Any
) -> Cost:
    """What ``batch`` sequences of ``seq_len`` tokens cost ``model``: :func:`cost` of a module tree.

    Parameters
    ----------
    model : derive.tree.Module
        A whole model's tree (``derive.explain(config).module``).
    seq_len, batch : int or sympy.Expr
        T and N (symbols by default: the closed forms).
    dtype : {"float32", "float16", "bfloat16", "float64", "int8"}
        The model's dtype (states transformers always keeps in float32 stay float32).
    **served
        ``kv_dtype``, ``state_dtype``, ``quantization_config``, ``memory``, ``reserve``, ``tp``, ``pp`` (as
        :func:`cost`).

    Returns
    -------
    Cost

    Raises
    ------
    TypeError
        ``model`` is not a module tree; ``seq_len`` or ``batch`` not an int or SymPy integer.
    ValueError
        ``seq_len`` or ``batch`` < 1; an unknown ``dtype`` (and as :func:`cost`).

    Examples
    --------
    >>> from derive.families.mistral import mistral
    >>> c = model_cost(mistral({}), seq_len=10, batch=1, dtype="bfloat16")
    >>> c.kv_bytes_per_token, c.cache_bytes
    (131072, 1310976)
    """
    if not isinstance(model, Module):
        raise TypeError(f"model must be a derive module tree, got {type(model).__name__}")
    return cost(model, seq_len, batch, dtype, **served)
