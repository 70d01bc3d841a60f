"""What a stack or a whole model costs: compute, the weights as stored, the cache as served, and what fits.

:func:`cost` answers one :class:`Cost` for a recurrent stack (``derive.torch.LSTM(...)``) and for
a whole model (a module tree, a report of one, a transformers config as a mapping) alike; the
fields that do not apply to one of them are None (each field's docstring says where). Here the
arguments are checked and the tree is built; each figure is derived, and explained, where its
concern is:

:mod:`derive.analysis.compute`
    A stack's compute from its cells' equations (``per_step``, ``macs``, ``flops``, ``ops``;
    ``activation_bytes`` and the assumption it rests on) and a token's FLOPs (``flops_per_token``).
:mod:`derive.analysis.stored`
    The weights as stored (``weights_bytes``, ``stored_tensors``, ``weights_by_dtype``, ``quant_method``).
:mod:`derive.analysis.cache`, :mod:`derive.analysis.served`
    The inference cache (``cache_bytes``, ``kv_bytes``, ``state_bytes``, ``kv_bytes_per_token``,
    ``cache_kinds``) and the formats it is served in (``kv_dtype``, ``state_dtype``).
:mod:`derive.analysis.fit`
    What fits a memory budget (``fits``, ``max_seq_len``, ``max_batch``, ``fits_any_length``): the
    weights as stored + the cache, not activations, workspace or the CUDA context.
:mod:`derive.analysis.parallel`
    One GPU's share under ``tp`` and ``pp`` (``stages``, ``rank_*``): each rank's tensors and cache as
    vLLM shards them; ``memory`` is then one device's.
:mod:`derive.analysis.figures`
    The dtypes' widths, exact arithmetic (ints for int sizes, SymPy once a size is symbolic), the
    model's letters of the closed forms (:meth:`Cost.closed_forms`) and the rule that no SymPy is
    imported until a closed form is asked for.

>>> import derive.torch as dt
>>> c = cost(dt.LSTM(10, 20), seq_len=7, batch=3)
>>> c.per_step["mac"], c.macs, c.matmul_flops
(2400, 50400, 100800)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..tree import Module, active, check_cache_known, count
from . import cache as _cache
from . import compute as _compute
from . import figures as _figures
from . import fit as _fit
from . import parallel as _parallel
from . import serialized as _serialized
from . import served as _served
from . import stored as _stored
from .figures import DTYPE_BYTES, STATE_BYTES, is_sympy
from .fit import COUNTED, NOT_COUNTED

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

    # --- a stack's compute (None for a model): derive.analysis.compute ----------------------------------

    @cached_property
    def _run(self) -> _compute.Compute | None:
        return None if self.stack is None else _compute.Compute(self.stack, self.seq_len, self.batch, self.dtype)

    @cached_property
    def per_step(self) -> dict[str, Any] | None:
        """Operations of one time step of one sequence through every layer and direction, by kind
        (``mac``, ``add``, ``mul``, ``sigmoid``, ``tanh``, ``relu``); units: operations. None for a model."""
        return None if self._run is None else self._run.per_step

    @cached_property
    def stored_per_step(self) -> Any:
        """Values kept for training per time step and sequence (all layers and directions); units:
        values. None for a model."""
        return None if self._run is None else self._run.stored_per_step

    @property
    def macs_per_step(self) -> Any:
        """MACs of one time step of one sequence (None for a model)."""
        return None if self.per_step is None else self.per_step["mac"]

    @property
    def flops_per_step(self) -> Any:
        """2·MACs + element-wise operations of one time step of one sequence (None for a model)."""
        return None if self._run is None else self._run.flops_per_step

    @property
    def macs(self) -> Any:
        """MACs of the whole batch: T·N·MACs per step (None for a model)."""
        return None if self._run is None else self._run.macs

    @property
    def matmul_flops(self) -> Any:
        """2·MACs of the whole batch: what FlopCounterMode reports for the matrix products (None for a model)."""
        return None if self._run is None else self._run.matmul_flops

    @property
    def flops(self) -> Any:
        """FLOPs of the whole batch: 2·MACs plus every element-wise operation (None for a model)."""
        return None if self._run is None else self._run.flops

    @property
    def ops(self) -> dict[str, Any] | None:
        """Operations of the whole batch by kind (None for a model)."""
        return None if self._run is None else self._run.ops

    @property
    def activation_bytes(self) -> Any:
        """Bytes kept for training over the whole batch and sequence at ``dtype`` (the module
        docstring's assumption); None for a model."""
        return None if self._run is None else self._run.activation_bytes

    # --- parameters and weights: derive.analysis.stored ----------------------------------------------------

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
        return _stored.weight_bytes(self.parameters, self.dtype)

    @cached_property
    def _weights(self) -> _stored.Stored | None:
        return _stored.listed(self.module, self.quantization_config, self.dtype)

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

    # --- the cache: derive.analysis.cache, in the formats of derive.analysis.served -----------------------

    @cached_property
    def _formats(self) -> _served.Served:
        return _served.Served(self.dtype, self.kv_dtype, self.state_dtype)

    def _bytes(self, tokens: Any, batch: Any, which: str = "all") -> Any:
        return _cache.nbytes(_cache.copies(self.module), self._formats, tokens, batch, which)

    @property
    def cache_bytes(self) -> Any:
        """Bytes the cache holds after ``seq_len`` tokens of ``batch`` sequences, as served
        (:attr:`kv_bytes` + :attr:`state_bytes`)."""
        return self._bytes(self.seq_len, self.batch)

    @property
    def state_bytes(self) -> Any:
        """The bytes constant in the sequence length (recurrent and conv states, counters), for
        ``batch`` sequences."""
        return self._bytes(1, self.batch, "state")

    @property
    def kv_bytes(self) -> Any:
        """The bytes that grow with the tokens (keys and values; a sliding window's capped at
        ``window - 1`` tokens), after ``seq_len`` tokens of ``batch`` sequences."""
        return self._bytes(self.seq_len, self.batch, "kv")

    @property
    def kv_bytes_per_token(self) -> Any:
        """Bytes one more token of one sequence adds (below every window)."""
        return _cache.per_token(_cache.copies(self.module), self._formats)

    @property
    def cache_kinds(self) -> dict[str, dict[str, Any]]:
        """The cache by kind of layer: ``"full attention"``, ``"sliding attention"`` and each
        recurrent mixer's class (``"JambaMambaMixer"``), each ``{"layers", "kv_bytes",
        "state_bytes", "kv_bytes_per_token"}`` — layers: modules of that kind (copies counted); the
        bytes as :attr:`kv_bytes`, :attr:`state_bytes`, :attr:`kv_bytes_per_token` are, for those
        layers alone. They add up to the whole."""
        return _cache.kinds(self.module, self._formats, self.seq_len, self.batch)

    # --- a token's FLOPs: derive.analysis.compute -------------------------------------------------------------

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
        return _compute.token_flops(self.module, self.seq_len, self.batch)

    # --- what fits: derive.analysis.fit ------------------------------------------------------------------------

    @property
    def budget(self) -> int | None:
        """Bytes the weights and the cache may take: ``memory - reserve`` (None without a budget)."""
        return None if self.memory is None else self.memory - self.reserve

    @cached_property
    def _budgeted(self) -> _fit.Fit | None:
        if self.budget is None:
            return None
        if self._shares is not None:  # one rank of every stage
            devices = tuple(share.device for share in self._shares)
        else:
            whole = _fit.Device(
                lambda tokens, batch: int(self.weights_bytes) + int(self._bytes(tokens, batch)),
                lambda: _cache.longest(s for s, _ in _cache.copies(self.module)),
            )
            devices = (whole,)
        return _fit.Fit(self.budget, self.seq_len, self.batch, devices)

    @property
    def fits(self) -> bool | None:
        """Whether the weights as stored and the cache after ``seq_len`` tokens of ``batch`` sequences fit
        :attr:`budget` (None without a budget, or at a symbolic T or N); with ``tp``/``pp``, on every device."""
        return None if self._budgeted is None else self._budgeted.fits

    @property
    def max_seq_len(self) -> int | None:
        """The largest number of tokens T whose weights + cache, at ``batch`` sequences, fit
        :attr:`budget` (checked at T and at T + 1); 0 when not even one token fits (the weights alone
        may not: :attr:`weights_bytes`). None: no budget, a symbolic batch, or every length fits
        (:attr:`fits_any_length`)."""
        return None if self._budgeted is None else self._budgeted.max_seq_len

    @property
    def fits_any_length(self) -> bool | None:
        """True when the cache stops growing (only states, or every window capped) and it fits at its
        longest: :attr:`max_seq_len` is then None. None without a budget or at a symbolic batch."""
        return None if self._budgeted is None else self._budgeted.fits_any_length

    @property
    def max_batch(self) -> int | None:
        """The largest number of sequences whose weights + cache, at ``seq_len`` tokens each, fit
        :attr:`budget` (checked at B and B + 1); 0 when not even one fits. None: no budget, a symbolic
        T, or a cache that does not grow with the batch."""
        return None if self._budgeted is None else self._budgeted.max_batch

    # --- one device's share (tp, pp): derive.analysis.parallel ---------------------------------------------------

    @cached_property
    def _plan(self) -> _parallel.Plan | None:
        if self.tp == 1 and self.pp == 1:
            return None
        return _parallel.plan(self.module, self.tp, self.pp, ep=self.ep)

    @cached_property
    def _shares(self) -> tuple[_parallel.Share, ...] | None:
        if self._plan is None:
            return None
        return tuple(_parallel.Share(stage, self.dtype, self._formats) for stage in self._plan.stages)

    @cached_property
    def stages(self) -> list[dict[str, Any]] | None:
        """One device's share on each pipeline stage (None with ``tp`` and ``pp`` 1): ``{"stage", "layers"
        ([start, end) of the decoder layers), "parameters", "weights_bytes", "kv_bytes", "state_bytes",
        "cache_bytes", "kv_bytes_per_token"}`` and, with a budget, ``"fits", "max_seq_len", "max_batch",
        "fits_any_length"`` for that device (units: bytes, tokens, sequences)."""
        if self._shares is None:
            return None
        return [share.as_dict(self.seq_len, self.batch, self.budget) for share in self._shares]

    @property
    def rank_weights_bytes(self) -> int | None:
        """Bytes of the weights on the most loaded device (the largest stage's, one of its ``tp`` ranks);
        None with ``tp`` and ``pp`` 1."""
        return _parallel.most_loaded(self.stages, "weights_bytes")

    @property
    def rank_cache_bytes(self) -> Any:
        """Bytes of the cache on the most loaded device, after ``seq_len`` tokens of ``batch`` sequences."""
        return _parallel.most_loaded(self.stages, "cache_bytes")

    @property
    def rank_kv_bytes(self) -> Any:
        """Bytes of keys and values on the most loaded device."""
        return _parallel.most_loaded(self.stages, "kv_bytes")

    @property
    def rank_state_bytes(self) -> Any:
        """Bytes constant in T on the most loaded device."""
        return _parallel.most_loaded(self.stages, "state_bytes")

    @property
    def rank_kv_bytes_per_token(self) -> Any:
        """Bytes one more token of one sequence adds on the most loaded device."""
        return _parallel.most_loaded(self.stages, "kv_bytes_per_token")

    # --- closed forms (derive.analysis.figures) and JSON ----------------------------------------------------------

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
        symbolic, values = (self.module, {}) if self.stack is not None else _figures.lettered(self.module)
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
        return _serialized.as_dict(self, self._plan)


# --- the one entry point ------------------------------------------------------------------------------------


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


def _check_length(name: str, value: Any) -> Any:
    if isinstance(value, _Letter):
        return value.symbol()
    if is_sympy(value):
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
    text = config.get("text_config")
    for where, part in (("", config), ("text_config.", text if isinstance(text, Mapping) else {})):
        for key in ("dtype", "torch_dtype"):
            value = part.get(key)
            if value is None or value == "auto":
                continue
            name = str(value).removeprefix("torch.")
            if name not in DTYPE_BYTES:
                raise ValueError(f"config key {where + key!r}: {str(value)[:40]!r} is not one of {sorted(DTYPE_BYTES)}")
            return name
    return None


#: Why the weights as stored and a budget's answer are refused for a config that names no dtype (:func:`cost`).
NO_DTYPE = (
    "the config names no dtype (no 'dtype' or 'torch_dtype', nor in its text_config): its weights as stored and what "
    "fits a budget follow the dtype its checkpoint stores, which transformers' from_pretrained reads from the "
    "checkpoint's tensors (dtype='auto': modeling_utils.py _get_dtype) and vLLM from its safetensors header "
    "(model_arch_config_convertor.py get_torch_dtype, 201-239); derive has only the config, and float32 (what "
    "from_config builds) would be a guess: give dtype (--dtype), e.g. bfloat16"
)


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
    config: Mapping[str, Any] | None = None,
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
        The model's dtype; default the config's ``torch_dtype`` (or ``dtype``), else float32 (torch's default, as
        a live module or ``from_config`` builds it) — but for a config that names none, the weights as stored
        (a ``quantization_config``) and a ``memory`` budget's answer are refused without it (:data:`NO_DTYPE`).
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
    config : mapping, optional
        The config a tree or report was built from (``config.json``'s dict), whose dtype is then read as a
        config mapping's is.

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
        ``quantization_config``; a ``quantization_config`` or a ``memory`` budget without ``dtype`` for a config
        that names no dtype (:data:`NO_DTYPE`).

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
    if config is not None:
        own_dtype = config_dtype(config)
    from_config = config is not None or isinstance(stack, Mapping)
    assumed = from_config and dtype is None and own_dtype is None
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
        assumed,
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
    assumed: bool = False,
) -> Cost:
    seq_len = _check_length("seq_len", seq_len)
    batch = _check_length("batch", batch)
    if not isinstance(dtype, str):
        raise TypeError(f"dtype must be a str, got {type(dtype).__name__}")
    _dtype_bytes(dtype)
    kv = _served.served_format(kv_dtype, "kv_dtype")
    state = _served.served_format(state_dtype, "state_dtype")
    _cache.check_blocks(tree, kv, state)
    if hasattr(quantization_config, "to_dict"):
        quantization_config = quantization_config.to_dict()
    _stored.method_of(quantization_config)
    budget = None if memory is None else _fit.parse_size(memory, "memory")
    held_back = _fit.parse_size(reserve, "reserve")
    if budget is not None and held_back > budget:
        raise ValueError(f"reserve ({held_back:,} B) is more than memory ({budget:,} B)")
    _parallel.check_sizes(tp, pp)
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
            or type(made.cache_bytes if _figures.ints(seq_len, batch) else 0) is not int
        ):
            raise ValueError("memory: a budget needs int sizes (the model's and seq_len or batch)")
    if assumed and (budget is not None or quantization_config is not None):
        raise ValueError(NO_DTYPE)
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
