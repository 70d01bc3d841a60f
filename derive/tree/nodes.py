"""The tree's types, :class:`Param` and :class:`Module`, the count, and closed forms built only when
asked (:class:`Formula`, with :func:`closed_form`, the one cache of derive) — see :mod:`derive.tree`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

__all__ = [
    "Dim",
    "Param",
    "State",
    "Module",
    "Formula",
    "Letter",
    "letters_to_symbols",
    "closed_form",
    "count",
    "numel",
    "is_partial",
]

#: A size: an int, or a SymPy expression (any dimension may be symbolic).
Dim = Any

_EMPTY: Mapping[str, Any] = MappingProxyType({})

#: What a tree may say it does not know (:attr:`Module.unknown`): its active count, its cache.
UNKNOWN = frozenset({"active", "cache"})


def _is_int(value: object) -> bool:
    return type(value) is int


def numel(shape: tuple[Dim, ...]) -> Dim:
    """Product of a shape's dimensions: an int when every dimension is one (1 for ``()``).

    Parameters
    ----------
    shape : tuple of int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
        Scalars (units: parameters).

    Examples
    --------
    >>> numel((4, 5)), numel(())
    (20, 1)
    """
    total: Any = 1
    for dim in shape:
        total = total * dim
    return _plain(total)


def _plain(value: Any) -> Any:
    """A SymPy integer as a Python int; anything else unchanged (no SymPy import for ints)."""
    if _is_int(value):
        return value
    if getattr(value, "is_Integer", False):
        return int(value)
    return value


@dataclass(frozen=True, slots=True)
class Param:
    """One tensor of a module: a parameter, a frozen parameter, a buffer, or a tie to another.

    Attributes
    ----------
    name : str
        The framework's own name within its module (``"weight_ih_l0"``, ``"kernel"``, ``"A_log"``);
        may hold ``{k}``, the copy's index, inside a repeated module.
    shape : tuple of int or sympy.Expr
        The framework's shape (a vector has one dimension, a scalar none).
    trainable : bool
        False for a parameter the framework creates frozen (Paddle's disabled bias, a Keras
        non-trainable weight such as ``moving_mean``): still counted, as
        ``model.parameters()`` / ``count_params()`` count it.
    buffer : bool
        A buffer (``running_mean``, ``num_batches_tracked``): listed, never counted.
    tied_to : str or None
        The full dotted name of the tensor this one shares its storage with (``lm_head.weight``
        tied to ``backbone.embeddings.weight``): listed as a tie, counted once, there.
    dtype : str or None
        Where known (``"float32"``, ``"complex64"``).
    complex : bool
        A complex-valued parameter: :attr:`numel` counts each entry once (as ``numel()`` does),
        :attr:`real_scalars` twice.
    """

    name: str
    shape: tuple[Dim, ...]
    trainable: bool = True
    buffer: bool = False
    tied_to: str | None = None
    dtype: str | None = None
    complex: bool = False

    @property
    def numel(self) -> Dim:
        """Entries of the tensor (units: parameters; a complex entry is one)."""
        return numel(self.shape)

    @property
    def real_scalars(self) -> Dim:
        """Real scalars it holds: :attr:`numel`, twice that for a complex tensor."""
        return self.numel * 2 if self.complex else self.numel

    @property
    def counted(self) -> bool:
        """Whether it adds to the total: a parameter that is neither a buffer nor a tie."""
        return not self.buffer and self.tied_to is None


@dataclass(frozen=True, slots=True)
class State:
    """A tensor a module keeps in the inference cache while it generates (a KV cache's keys, a
    recurrent layer's state), per batch of sequences.

    Attributes
    ----------
    name : str
        As the framework's cache names it (transformers: ``"keys"``, ``"values"``,
        ``"conv_states"``, ``"recurrent_states"``; an LSTM: ``"h"``, ``"c"``).
    shape : tuple of int, sympy.Expr or str
        The tensor's shape in the framework's layout; the strings ``"batch"`` and ``"tokens"``
        mark the batch axis and the cached-token axis (a KV cache's length), filled in by
        :meth:`elements`. A state without ``"tokens"`` is constant in the sequence length.
    dtype : str or None
        None: the model's dtype; else the dtype the framework always keeps it in (``"float32"``
        for RWKV's and RecurrentGemma's states in transformers, ``"int64"`` for a counter).
    window : int, sympy.Expr or None
        The most tokens kept (a sliding-window layer keeps ``window - 1``); None: every token.
    stride : int, sympy.Expr or None
        The ``"tokens"`` axis holds one entry per ``stride`` tokens, ⌊tokens / stride⌋ (a compressor's
        emitted entries: DeepSeek-V4's), or with :attr:`remainder` the tokens not yet compressed,
        tokens mod ``stride``; :attr:`window` then caps that count. None: one entry per token.
    remainder : bool
        With :attr:`stride`: the axis holds tokens mod ``stride`` (a compressor's open window).
    """

    name: str
    shape: tuple[Any, ...]
    dtype: str | None = None
    window: Dim | None = None
    stride: Dim | None = None
    remainder: bool = False

    @property
    def per_token(self) -> bool:
        """Whether it grows with the sequence (has a ``"tokens"`` axis)."""
        return "tokens" in self.shape

    @property
    def counter(self) -> bool:
        """Whether it is an integer counter (its dtype an int one: a sliding window's position, xLSTM's
        ``seqlen_offset``): no served format changes it, no tensor-parallel rule splits it, and it
        says nothing of the part that keeps it."""
        return (self.dtype or "").startswith("int")

    def elements(self, batch: Dim, tokens: Dim) -> Dim:
        """Entries held after ``tokens`` tokens of ``batch`` sequences (int for ints, else SymPy).

        Parameters
        ----------
        batch, tokens : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
            Units: tensor entries (multiply by the dtype's size for bytes).

        Examples
        --------
        >>> State("keys", ("batch", 8, "tokens", 128)).elements(2, 10)
        20480
        >>> State("keys", ("batch", 8, "tokens", 128), window=4095).elements(1, 10_000)
        4193280
        >>> State("compressed_kv", ("batch", "tokens", 64), stride=4).elements(1, 10)   # 2 entries of 4 tokens
        128
        >>> State("buffer_kv", ("batch", "tokens", 64), stride=4, remainder=True).elements(1, 10)   # 2 waiting
        128
        """
        kept: Any = tokens
        if self.stride is not None:
            if _is_int(tokens) and _is_int(self.stride):
                kept = tokens % self.stride if self.remainder else tokens // self.stride
            else:
                import sympy

                kept = sympy.Mod(tokens, self.stride) if self.remainder else sympy.floor(tokens / self.stride)
        if self.window is not None:
            if _is_int(kept) and _is_int(self.window):
                kept = min(kept, self.window)
            else:
                import sympy

                kept = sympy.Min(kept, self.window)
        dims = [batch if d == "batch" else kept if d == "tokens" else d for d in self.shape]
        return numel(tuple(dims))


@dataclass(frozen=True)
class Letter:
    """A size left as a letter in a recipe: a positive SymPy symbol made (SymPy imported) only when the
    closed form is built (:meth:`symbol`), so that a module built with int sizes holds its recipe
    without SymPy.

    Attributes
    ----------
    name : str
        The symbol's name (``"H"``, ``"hidden_size"``).
    integer : bool
        An integer symbol (every size); False for a positive real (a ratio such as ``proj_factor``).
    """

    name: str
    integer: bool = True

    def symbol(self) -> Any:
        """The SymPy symbol (``sympy.Symbol(name, integer=True, positive=True)``).

        Returns
        -------
        sympy.Symbol
        """
        from .._sympy import symbol

        return symbol(self.name, integer=self.integer)


def letters_to_symbols(value: Any) -> Any:
    """``value`` with every :class:`Letter` in it (alone, or in a tuple, list or dict) made its symbol.

    Parameters
    ----------
    value : object

    Returns
    -------
    object
    """
    if isinstance(value, Letter):
        return value.symbol()
    if isinstance(value, tuple):
        return tuple(letters_to_symbols(v) for v in value)
    if isinstance(value, list):
        return [letters_to_symbols(v) for v in value]
    if isinstance(value, dict):
        return {k: letters_to_symbols(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Formula:
    """How to get a module's closed form, built only when asked (:attr:`expr`).

    The recipe is the producer's own builder called again with letters (SymPy symbols) in place
    of the sizes: ``Linear(I, O)`` gives ``I*O + O``. Equal recipes share one cached result
    (:func:`closed_form`), so a 1,000-layer model derives each kind of layer once.

    Attributes
    ----------
    build : callable
        ``build(*args, **kwargs)`` -> :class:`Module` (or an int / SymPy count; None when there is
        no closed form, which :attr:`expr` then gives).
    args : tuple
        Positional arguments, sizes replaced by letters.
    kwargs : tuple of (str, value)
        Keyword arguments, sizes replaced by letters.
    values : tuple of (str, value)
        Each letter's value in the module it describes (``(("I", 256), ("O", 10))``).
    """

    build: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()
    values: tuple[tuple[str, Any], ...] = ()

    @property
    def expr(self) -> Any:
        """The closed form (a SymPy expression, expanded; an int for a count without letters)."""
        return closed_form(self, self._compute)

    def _compute(self) -> Any:
        import sympy

        try:
            made = self.build(*letters_to_symbols(self.args), **letters_to_symbols(dict(self.kwargs)))
        except (TypeError, ValueError):  # the builder refuses letters (a width rounded from a float: LFM2's)
            return None  # the numbers were built; with letters there is no closed form
        if made is None:  # the builder has no closed form for this part
            return None
        total = count(made) if isinstance(made, Module) else made
        return _plain(sympy.expand(total))


_FORMULAS: dict[Any, Any] = {}
_MAX_FORMULAS = 4096


def closed_form(key: Any, compute: Callable[[], Any]) -> Any:
    """A closed form computed once per ``key`` (the one formula cache of derive).

    Parameters
    ----------
    key : hashable
        Names the closed form (a :class:`Formula`, or a tuple of a producer's own); an
        unhashable key is computed every time.
    compute : callable () -> sympy.Expr

    Returns
    -------
    sympy.Expr or int
    """
    try:
        return _FORMULAS[key]
    except KeyError:
        pass
    except TypeError:
        return compute()
    value = compute()
    if len(_FORMULAS) >= _MAX_FORMULAS:
        _FORMULAS.clear()
    _FORMULAS[key] = value
    return value


@dataclass(frozen=True, slots=True, eq=False)
class Module:
    """A module (layer, block, model) as its framework names it, with its tensors and children.

    Attributes
    ----------
    name : str
        Its name in its parent (``"rnn"``, ``"0"``, ``"forward_lstm"``, ``"layers.{k}"``); ``""``
        for a group that adds nothing to the dotted path.
    type : str
        The class name (``"LSTM"``, ``"Linear"``, ``"MambaMixer"``, ``"Bidirectional"``).
    params : tuple of Param
        Its own tensors, in the framework's order.
    children : tuple of Module
        Its submodules, in the framework's order (their tensors come after :attr:`params`).
    repeat : int or sympy.Expr
        How many identical copies it stands for (1, or a symbolic number of layers); ``{k}`` in
        :attr:`name` and in its own parameters' names is the copy's index, from :attr:`start`.
    start : int
        The first copy's index.
    sep : str
        Between this module's path and its children's and parameters' names: ``"."`` (torch,
        Flax), ``"/"`` (Keras, TensorFlow, Haiku).
    config : mapping
        The constructor arguments it was made with (as given, for display and rebuilding).
    formula : Formula or None
        How to get its closed form (:attr:`Formula.expr`), built only when asked.
    counted : bool
        False for a part derive cannot count: shown as a "not counted" row, and every total that
        includes it is marked partial (:func:`is_partial`).
    note : str
        Shown beside its row ("numeric, not derived", "unknown module, not counted").
    output_shape : object
        Its output's shape where known (a tuple; a list for several outputs); None otherwise.
    row : bool
        Shown as one row of a per-layer table although it has children (Keras ``Bidirectional``,
        ``TimeDistributed``: one layer for the user).
    cache : tuple of State
        What it keeps in the inference cache per batch of sequences (an attention layer's keys
        and values, a recurrent mixer's states); each copy of a repeated module keeps its own.
        A module whose parameters are tied to another's (Zamba's shared block) still keeps its
        own cache at every place it is invoked.
    routed : (top_k, num_experts) or None
        The module holds ``num_experts`` routed experts of which a token visits ``top_k``
        (transformers' fused ``experts``): a token uses ``top_k / num_experts`` of its
        parameters (:func:`derive.tree.active`).
    part : str
        Where its parameters sit in a language model, one of :data:`derive.tree.PARTS`
        (``"attention"``, ``"MLP"``, ...), declared by the primitive that builds it; ``""`` for a
        module that is not one part (a decoder layer, a MoE block): its children say.
        :func:`derive.tree.parts` gives each parameter the part of its outermost declaring module.
    step_flops : callable or None
        ``step_flops()`` -> the matmul FLOPs of one token of one sequence through it (one copy),
        where its builder derives them itself — a recurrent stack from its cells' equations
        (:meth:`derive.engine.stack.Stack.token_flops`) — called only when asked; None: the rule
        registered for its class (:mod:`derive.layers.token_flops`).
    unknown : frozenset of str
        What is not known of it and everything under it, of :data:`UNKNOWN`: ``"active"`` (it routes
        experts, but which of them a token visits was not read: :func:`derive.tree.active` is None, never
        the total in its place), ``"cache"`` (its inference cache could not be read: every cache figure
        is refused rather than counted short). Set by :mod:`derive.read.measured`; :attr:`note` says why.
    """

    name: str
    type: str
    params: tuple[Param, ...] = ()
    children: tuple[Module, ...] = ()
    repeat: Dim = 1
    start: int = 0
    sep: str = "."
    config: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    formula: Formula | None = None
    counted: bool = True
    note: str = ""
    output_shape: Any = None
    row: bool = False
    cache: tuple[State, ...] = ()
    routed: tuple[Dim, Dim] | None = None
    part: str = ""
    step_flops: Callable[[], Any] | None = None
    unknown: frozenset[str] = frozenset()

    def replace(self, **changes: Any) -> Module:
        """A copy with ``changes`` (``name``, ``children``, ...).

        Parameters
        ----------
        **changes
            Attributes of :class:`Module`.

        Returns
        -------
        Module
        """
        return replace(self, **changes)

    def with_repeat(self, repeat: Dim, start: int = 0) -> Module:
        """The same module standing for ``repeat`` copies indexed from ``start``.

        Parameters
        ----------
        repeat : int or sympy.Expr
        start : int, default 0

        Returns
        -------
        Module
        """
        return replace(self, repeat=repeat, start=start)

    @property
    def count(self) -> Dim:
        """Parameters of the module (units: parameters); see :func:`count`."""
        return count(self)

    @property
    def own_count(self) -> Dim:
        """Parameters of its own tensors, children and repeats left out."""
        return _sum(p.numel for p in self.params if p.counted)

    def child(self, name: str) -> Module:
        """The child named ``name``.

        Parameters
        ----------
        name : str

        Returns
        -------
        Module

        Raises
        ------
        KeyError
            No such child.
        """
        for module in self.children:
            if module.name == name:
                return module
        raise KeyError(f"{self.type} has no child {name!r} (children: {[m.name for m in self.children]})")


def _sum(terms: Any) -> Any:
    total: Any = 0
    symbolic = False
    for term in terms:
        if not _is_int(term):
            symbolic = True
        total = total + term
    if symbolic:
        import sympy

        return _plain(sympy.expand(total))
    return total


def count(module: Module, *, trainable_only: bool = False, real: bool = False) -> Dim:
    """Parameters of ``module``: every counted tensor once, each repeated module ``repeat`` times.

    Buffers and ties are not counted (as ``model.parameters()`` counts); a part that is not
    counted (:attr:`Module.counted` False) adds nothing: see :func:`is_partial`.

    Parameters
    ----------
    module : Module
    trainable_only : bool, default False
        Leave out frozen parameters (:attr:`Param.trainable` False).
    real : bool, default False
        Count a complex entry as two real scalars (:attr:`Param.real_scalars`).

    Returns
    -------
    int or sympy.Expr
        An int when every size is an int (plain integer arithmetic); else the closed form, expanded.

    Examples
    --------
    >>> count(Module("fc", "Linear", (Param("weight", (10, 256)), Param("bias", (10,)))))
    2570
    """
    if not module.counted:
        return 0
    terms = [
        (p.real_scalars if real else p.numel)
        for p in module.params
        if p.counted and (p.trainable or not trainable_only)
    ]
    terms += [count(c, trainable_only=trainable_only, real=real) for c in module.children]
    subtotal = _sum(terms)
    if module.repeat == 1:
        return subtotal
    return _sum([subtotal * module.repeat])


def is_partial(module: Module) -> bool:
    """Whether some part of ``module`` is not counted (its total is then a lower bound).

    Parameters
    ----------
    module : Module

    Returns
    -------
    bool
    """
    return not module.counted or any(is_partial(c) for c in module.children)
