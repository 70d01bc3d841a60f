"""What every decoder language model of transformers shares: the embedding, the list of layers, the
final norm, the rotary embedding's buffers and the head.

``XForCausalLM`` holds ``model`` (``XModel``: ``embed_tokens``, ``layers``, ``norm``,
``rotary_emb``) and ``lm_head`` Linear(D, V) without bias, its weight tied to
``model.embed_tokens.weight`` when ``tie_word_embeddings`` (``models/llama/modeling_llama.py``
336–347, 410–420). The rotary embedding keeps two float32 buffers, ``inv_freq`` and
``original_inv_freq``, of ⌈d'/2⌉ entries, d' = head_dim (``modeling_rope_utils.py``
``_compute_default_rope_parameters``: ``torch.arange(0, dim, 2)``); they are buffers, never counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..tree import Dim, Module, Param

__all__ = [
    "INERT",
    "not_built_tower",
    "decoder",
    "ROPE_TYPES",
    "ROPE_KEYS",
    "rope_buffers",
    "check_rope",
    "rotary_dim",
    "layer_list",
    "causal_lm",
    "head_dim",
    "floordiv",
    "kv_heads",
    "layer_types",
    "kinds_of",
    "mamba2_heads",
    "refuse_property",
]

#: RoPE types whose inverse frequencies have ⌈head_dim / 2⌉ entries (``modeling_rope_utils.py``).
ROPE_TYPES = frozenset({"default", "linear", "dynamic", "llama3", "yarn"})
#: Config keys of the rotary embedding: no parameter depends on them (checked by :func:`check_rope`).
ROPE_KEYS = ("rope_parameters", "rope_scaling", "rope_theta")

#: The keys decoder configs share that change no tensor, each with why (a family's
#: :class:`~derive.blocks.hf_config.Keys` ``inert`` starts from these).
INERT: dict[str, str] = {
    "max_position_embeddings": "the longest context the rotary embedding is meant for: no tensor",
    "rms_norm_eps": "an epsilon of the norms",
    "layer_norm_eps": "an epsilon of the norms",
    "attention_dropout": "dropout, off at inference: no tensor",
    "pretraining_tp": "tensor-parallel ranks of pretraining (a slicing of the same products): no tensor",
    "rope_parameters": "the rotary embedding's frequencies: buffers only (checked: check_rope)",
    "rope_scaling": "the legacy spelling of rope_parameters, which the class converts",
    "rope_theta": "the legacy spelling of rope_parameters' rope_theta, which the class converts",
    # the hybrids' (Bamba, Falcon-H1, GraniteMoeHybrid, Zamba, LFM2 ...)
    "norm_eps": "an epsilon of the norms",
    "num_logits_to_keep": "how many final positions the forward computes logits for: no tensor",
    "time_step_limit": "the clamp of dt in the Mamba-2 forward: no tensor",
    "time_step_min": "dt's initialisation: no tensor",
    "time_step_max": "dt's initialisation: no tensor",
    "time_step_floor": "dt's initialisation: no tensor",
    "z_loss_coefficient": "a training loss's weight: no tensor",
    "output_router_logits": "whether the forward returns the router's logits (for the auxiliary loss): no tensor",
    "router_aux_loss_coef": "the load-balancing loss's weight, in training: no tensor",
    "use_mamba_kernels": "which Mamba kernel the forward runs (chosen at run time): no tensor",
}


def not_built_tower(key: str, architecture: str) -> Module:
    """A tower a multimodal config describes (``vision_config``, ``audio_config``) that the causal-LM class
    ``AutoModelForCausalLM`` builds leaves out (``Llama4ForCausalLM``, ``Qwen3_5ForCausalLM``,
    ``MllamaForCausalLM``): a part shown as not counted, so every total that includes it is marked partial
    (:func:`derive.tree.is_partial`), never dropped without a word.

    Parameters
    ----------
    key : str
        The config key that describes it (``"vision_config"``).
    architecture : str
        The class built without it.

    Returns
    -------
    derive.tree.Module
        ``<kind>_tower``, type "not built", :attr:`~derive.tree.Module.counted` False, no FLOPs (a text
        token does not pass through it) and no cache.
    """
    kind = key.removesuffix("_config")
    return Module(
        f"{kind}_tower",
        "not built",
        counted=False,
        note=f"{key}: {architecture} does not build this tower; not counted",
        step_flops=_no_flops,
    )


def _no_flops() -> int:
    return 0  # a text token passes through no tower the model does not build


def refuse_property(config: Mapping[str, Any], cls: str, keys: Sequence[str], made_of: str) -> None:
    """Refuse a key that names a property of the config class without a setter (transformers raises
    ``AttributeError`` on it).

    Parameters
    ----------
    config : mapping
        The config as given.
    cls : str
        The config class.
    keys : sequence of str
        The property and its ``attribute_map`` aliases.
    made_of : str
        The keys the property is computed from, for the message.

    Raises
    ------
    ValueError
        One of ``keys`` in ``config``, naming it.
    """
    for key in keys:
        if key in config:
            raise ValueError(
                f"config key {key!r} is {cls}'s property, made of {made_of}: it takes no value (transformers refuses it)"
            )


def _ceil_half(dim: Dim) -> Dim:
    if type(dim) is int:
        return (dim + 1) // 2
    import sympy

    return sympy.ceiling(dim / 2)


def check_rope(config: Mapping[str, Any], key: str = "rope_parameters") -> None:
    """Refuse a RoPE whose buffers derive does not know (a partial rotary factor, an unknown type).

    Parameters
    ----------
    config : mapping
    key : str
        ``rope_parameters`` (or the legacy ``rope_scaling``).

    Raises
    ------
    ValueError
        Naming the key.
    """
    for name in (key, "rope_scaling"):
        rope = config.get(name)
        if rope is None:
            continue
        if not isinstance(rope, Mapping):
            raise ValueError(f"config key {name!r} must be an object, got {rope!r:.60}")
        kind = rope.get("rope_type", rope.get("type", "default"))
        if kind not in ROPE_TYPES:
            raise ValueError(f"config key {name!r}: rope_type {kind!r} is not one derive maps ({sorted(ROPE_TYPES)})")
        factor = rope.get("partial_rotary_factor", 1.0)
        if factor != 1.0:
            raise ValueError(f"config key {name!r}: partial_rotary_factor {factor!r} is not derived (only 1.0)")


def rope_object(config: Mapping[str, Any]) -> tuple[str, Mapping[str, Any], str]:
    """The RoPE object a config's rotary embedding reads, as ``convert_rope_params_to_dict`` picks it
    (``modeling_rope_utils.py`` 775-804): ``rope_scaling`` when it is set, else ``rope_parameters``.

    Parameters
    ----------
    config : mapping
        The config as given.

    Returns
    -------
    tuple of (str, mapping, str)
        The key read, its object (empty when neither is set) and its ``rope_type`` (the legacy ``type``, else
        ``"default"``).

    Raises
    ------
    ValueError
        The key's value is not an object, naming the key.
    """
    key = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    rope = config.get(key)
    if rope is None:
        rope = {}
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key {key!r} must be an object, got {rope!r:.60}")
    return key, rope, rope.get("rope_type", rope.get("type", "default"))


def rotary_factor(config: Mapping[str, Any], key: str, rope: Mapping[str, Any], default: float) -> tuple[float, str]:
    """``partial_rotary_factor``: the RoPE object's, else the config's own, else the family's ``default``
    (``convert_rope_params_to_dict`` moves a top-level one in when the object sets none).

    Parameters
    ----------
    config : mapping
        The config as given.
    key, rope : str, mapping
        The RoPE object and its key (:func:`rope_object`).
    default : float
        The factor of the family's config class when neither sets one.

    Returns
    -------
    tuple of (float, str)
        The factor, in [0, 1] (0 turns nothing: the slicing rotary embeddings pass the whole head), and the key it
        came from.

    Raises
    ------
    ValueError
        A factor that is not a number in [0, 1], naming the key it came from.
    """
    where = key if "partial_rotary_factor" in rope else "partial_rotary_factor"
    factor = rope.get("partial_rotary_factor", config.get("partial_rotary_factor", default))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 <= factor <= 1:
        raise ValueError(f"config key {where!r}: partial_rotary_factor must be in [0, 1], got {factor!r}")
    return factor, where


def refuse_odd_whole(head_dim: Any, factor: float) -> None:
    """transformers' ``validate_rope`` refuses a config's own odd ``head_dim`` above 4 that the factor rotates whole
    (``modeling_rope_utils.py`` 902-915), even in a model that builds no rotary embedding.

    Parameters
    ----------
    head_dim : object
        The config's ``head_dim`` as given (anything but an int passes).
    factor : float
        ``partial_rotary_factor``.

    Raises
    ------
    ValueError
        Naming ``head_dim``.
    """
    if type(head_dim) is int and head_dim > 4 and head_dim % 2 and int(head_dim * factor) == head_dim:
        raise ValueError(
            f"config key 'head_dim' ({head_dim}) is odd and rotated whole: transformers' validate_rope refuses it"
        )


def rotary_dim(
    config: Mapping[str, Any], head_dim: Dim, default: float, *, plain_reads_factor: bool = True, given: bool = False
) -> Dim:
    """The rotated width of a head, ``int(head_dim * partial_rotary_factor)`` (Bamba's default RoPE,
    ``modeling_bamba.py`` 79-81, and the scaled RoPE types of ``modeling_rope_utils.py``); the whole
    head where the family's own default RoPE reads no factor (``modeling_falcon_h1.py`` 79-80).

    Parameters
    ----------
    config : mapping
        The config as given: ``rope_parameters`` (an object) may set ``rope_type`` and
        ``partial_rotary_factor``; a legacy ``rope_scaling`` must be None.
    head_dim : int or sympy.Expr
        d.
    default : float
        The family's factor when ``rope_parameters`` sets none (Bamba hardcodes 0.5, most families 1.0).
    plain_reads_factor : bool, default True
        False: the ``default`` RoPE type rotates the whole head whatever the factor (Falcon-H1,
        GraniteMoeHybrid).
    given : bool, default False
        ``head_dim`` is the config's own key: transformers' ``validate_rope`` then refuses an odd
        ``head_dim`` > 4 that the factor rotates whole (``modeling_rope_utils.py`` 902-915), even
        in a model that builds no rotary embedding.

    Returns
    -------
    int or sympy.Expr
        With a symbolic ``head_dim``, a closed form for a binary-fraction factor (:func:`rotated`).

    Raises
    ------
    ValueError
        An unknown ``rope_type``, a factor outside (0, 1], ``rope_scaling`` set, an odd whole
        ``head_dim`` (see ``given``), naming the key.
    """
    if config.get("rope_scaling") is not None:
        raise ValueError("config key 'rope_scaling' is the legacy spelling: write rope_parameters")
    rope = config.get("rope_parameters")
    factor: Any = default
    if rope is not None:
        if not isinstance(rope, Mapping):
            raise ValueError(f"config key 'rope_parameters' must be an object, got {rope!r:.60}")
        kind = rope.get("rope_type", rope.get("type", "default"))
        if kind not in ROPE_TYPES:
            raise ValueError(f"config key 'rope_parameters': rope_type {kind!r} is not one derive maps")
        factor = rope.get("partial_rotary_factor", default)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1:
        raise ValueError(f"config key 'rope_parameters': partial_rotary_factor must be in (0, 1], got {factor!r}")
    if given:
        refuse_odd_whole(head_dim, factor)
    if rope is not None and not plain_reads_factor and rope.get("rope_type", rope.get("type", "default")) == "default":
        factor = 1
    return rotated(head_dim, factor, "rope_parameters")


def rotated(head_dim: Dim, factor: float, key: str) -> Dim:
    """``int(head_dim * factor)``, as the rotary embeddings compute the width they turn; a closed form
    ``floor(p · head_dim / 2^m)`` for a symbolic ``head_dim`` when the factor is a binary fraction p / 2^m
    (0.25, 0.5, 0.75, 1: the float product is then exact, so ``int`` is the floor of the exact one).

    Parameters
    ----------
    head_dim : int or sympy.Expr
        d.
    factor : float
        ``partial_rotary_factor``, in [0, 1] (0: nothing turned, as Phi-3's and GLM-4's slicing rotary embeddings
        take it).
    key : str
        The config key the factor came from, named in the error.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A symbolic ``head_dim`` with a factor that is no binary fraction (0.1: ``int`` of a rounded
        float product has no closed form), naming the key.

    Examples
    --------
    >>> import sympy
    >>> d = sympy.Symbol("head_dim", integer=True, positive=True)
    >>> rotated(256, 0.25, "partial_rotary_factor"), rotated(d, 0.25, "partial_rotary_factor")
    (64, floor(head_dim/4))
    """
    if type(head_dim) is int:
        return int(head_dim * factor)
    from fractions import Fraction

    exact = Fraction(factor)
    if exact == 0:
        return 0
    q = exact.denominator
    if q & (q - 1) or q > 1 << 16:
        raise ValueError(
            f"config key {key!r}: partial_rotary_factor {factor} with a symbolic head_dim (only a binary fraction "
            f"such as 0.25 or 0.5 has a closed form)"
        )
    return head_dim if q == 1 else floordiv(exact.numerator * head_dim, q)


def rope_buffers(head_dim: Dim, prefix: str = "") -> tuple[Param, ...]:
    """``{prefix}inv_freq`` and ``{prefix}original_inv_freq``: float32 buffers of ⌈head_dim / 2⌉.

    Parameters
    ----------
    head_dim : int or sympy.Expr
    prefix : str
        Gemma 3 keeps one pair per layer type (``sliding_attention_``, ``full_attention_``).

    Returns
    -------
    tuple of derive.tree.Param
    """
    n = _ceil_half(head_dim)
    return (
        Param(f"{prefix}inv_freq", (n,), buffer=True, dtype="float32"),
        Param(f"{prefix}original_inv_freq", (n,), buffer=True, dtype="float32"),
    )


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b`` for ints, SymPy's ``floor(a / b)`` otherwise.

    Parameters
    ----------
    a, b : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
    """
    if type(a) is int and type(b) is int:
        return a // b
    import sympy

    return sympy.floor(a / b)


def head_dim(c: Mapping[str, Any], hidden: Dim, heads: Dim) -> Dim:
    """``head_dim`` when the config sets it, else ``hidden_size // num_attention_heads``.

    Parameters
    ----------
    c : mapping
        The resolved config.
    hidden, heads : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        A ``head_dim`` that is not a size.
    """
    if c.get("head_dim") is None:
        return floordiv(hidden, heads)
    return hf_config.size(c, "head_dim")


def kv_heads(c: Mapping[str, Any], heads: Dim) -> Dim:
    """``num_key_value_heads``, ``num_attention_heads`` when None (every config's ``__post_init__``).

    Parameters
    ----------
    c : mapping
    heads : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Not a size, or more key/value heads than heads, or heads not a multiple of them.
    """
    if c.get("num_key_value_heads") is None:
        return heads
    kv = hf_config.size(c, "num_key_value_heads")
    if type(kv) is int and type(heads) is int and heads % kv:
        raise ValueError(f"config key 'num_key_value_heads' ({kv}) must divide num_attention_heads ({heads})")
    return kv


def layer_types(c: Mapping[str, Any], layers: Dim, allowed: Sequence[str]) -> list[str] | None:
    """The config's ``layer_types`` list, checked (None when absent).

    Parameters
    ----------
    c : mapping
    layers : int
        ``num_hidden_layers``.
    allowed : sequence of str

    Returns
    -------
    list of str or None

    Raises
    ------
    ValueError
        Not a list of ``num_hidden_layers`` allowed names.
    """
    kinds = c.get("layer_types")
    return None if kinds is None else kinds_of("layer_types", kinds, layers, allowed)


def kinds_of(key: str, kinds: Any, layers: Dim, allowed: Sequence[str]) -> list[str]:
    """A config's list of one kind per layer (``layer_types``, ``mlp_layer_types``), checked.

    Parameters
    ----------
    key : str
        The config key, named in a refusal.
    kinds : object
        Its value (or the pattern the config class makes when it is absent).
    layers : int
        ``num_hidden_layers``.
    allowed : sequence of str

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        Not a list of ``num_hidden_layers`` allowed names.
    """
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or any(k not in allowed for k in kinds):
        raise ValueError(f"config key {key!r} must be a list of {sorted(allowed)}, got {kinds!r:.80}")
    if type(layers) is not int or len(kinds) != layers:
        raise ValueError(f"config key {key!r} has {len(kinds)} entries for num_hidden_layers={layers!r}")
    return list(kinds)


def layer_list(make: Callable[[Any], Module], kinds: Sequence[Any] | None, layers: Dim) -> Module:
    """``layers``, a ``ModuleList``: one layer repeated ``layers`` times when ``kinds`` is None, else
    one per kind of ``kinds`` with runs of equal kinds as one repeated module.

    Parameters
    ----------
    make : callable (kind) -> Module
        The decoder layer of a kind (its name is replaced).
    kinds : sequence or None
        Each layer's kind (hashable), in order; None: every layer is ``make(None)``.
    layers : int or sympy.Expr
        ``num_hidden_layers`` (a symbol only when ``kinds`` is None).

    Returns
    -------
    derive.tree.Module
    """
    if kinds is None:
        return Module("layers", "ModuleList", children=(make(None).replace(name="{k}", repeat=layers, row=True),))
    children: list[Module] = []
    start = 0
    while start < len(kinds):
        end = start
        while end < len(kinds) and kinds[end] == kinds[start]:
            end += 1
        layer = make(kinds[start]).replace(row=True)
        name = str(start) if end - start == 1 else "{k}"
        children.append(layer.replace(name=name, repeat=end - start, start=start if name == "{k}" else 0))
        start = end
    return Module("layers", "ModuleList", children=tuple(children))


def causal_lm(
    prefix: str,
    *,
    vocab: Dim,
    hidden: Dim,
    layers: Module,
    tie: bool,
    config: Mapping[str, Any],
    embed: Module | None = None,
    norm: Module | None = None,
    rotary: tuple[Param, ...] = (),
    architecture: str | None = None,
    base: str | None = None,
) -> Module:
    """``{prefix}ForCausalLM``: ``model`` (embed_tokens, layers, norm, rotary_emb) and ``lm_head``.

    Parameters
    ----------
    prefix : str
        The family's class prefix (``"Llama"``).
    vocab, hidden : int or sympy.Expr
        V and D.
    layers : derive.tree.Module
        The ``layers`` list (:func:`layer_list`).
    tie : bool
        ``tie_word_embeddings``: ``lm_head.weight`` is ``model.embed_tokens.weight``.
    config : mapping
        The resolved shape keys (the module's :attr:`~derive.tree.Module.config`).
    embed, norm : derive.tree.Module, optional
        The family's own embedding (Gemma's scaled one) and final norm (default ``{prefix}RMSNorm``
        ``norm``).
    rotary : tuple of derive.tree.Param
        The rotary embedding's buffers (none: no ``rotary_emb``, as Jamba).
    architecture : str, optional
        The class name (default ``{prefix}ForCausalLM``).
    base : str, optional
        The base model's class name (default ``{prefix}Model``).

    Returns
    -------
    derive.tree.Module
    """
    embed = embed or embedding(vocab, hidden, name="embed_tokens")
    norm = norm or rms_norm((hidden,), name="norm", type=f"{prefix}RMSNorm")
    body: tuple[Module, ...] = (embed, layers, norm)
    if rotary:
        body += (Module("rotary_emb", f"{prefix}RotaryEmbedding", rotary),)
    model = Module("model", base or f"{prefix}Model", children=body)
    head = hf_config.lm_head(hidden, vocab, "model.embed_tokens.weight" if tie else None)
    return Module("", architecture or f"{prefix}ForCausalLM", children=(model, head), config=dict(config))


def mamba2_heads(c: Mapping[str, Any], hidden: Dim, config_class: str) -> tuple[Dim, Dim, Dim, Dim, Dim, Dim]:
    """The Mamba-2 mixer's sizes from the ``mamba_*`` keys Bamba and GraniteMoeHybrid share:
    ``mamba_expand``, heads, groups, state, conv width and head width (``mamba_d_head``, ``"auto"``
    for ``mamba_expand * hidden_size`` / heads; ``configuration_bamba.py``).

    Parameters
    ----------
    c : mapping
        The resolved config.
    hidden : int or sympy.Expr
        ``hidden_size``.
    config_class : str
        Named in the refusal of a non-integer ``mamba_expand``.

    Returns
    -------
    tuple
        (``mamba_expand``, ``mamba_n_heads``, ``mamba_n_groups``, ``mamba_d_state``, ``mamba_d_conv``,
        head width).

    Raises
    ------
    ValueError
        Heads not dividing the inner width, or a ``mamba_d_head`` that is not inner width / heads.
    """
    expand = hf_config.strict_int(c, "mamba_expand", config_class)
    heads, groups = hf_config.size(c, "mamba_n_heads"), hf_config.size(c, "mamba_n_groups")
    state, conv = hf_config.size(c, "mamba_d_state"), hf_config.size(c, "mamba_d_conv")
    inner = expand * hidden
    if type(inner) is int and type(heads) is int and inner % heads:
        raise ValueError(f"config key 'mamba_n_heads' ({heads}) must divide mamba_expand * hidden_size ({inner})")
    head = floordiv(inner, heads)
    if c["mamba_d_head"] != "auto":
        given = hf_config.size(c, "mamba_d_head")
        if type(given) is int and type(head) is int and given != head:
            raise ValueError(f"config key 'mamba_d_head' ({given}) must be mamba_expand * hidden_size / mamba_n_heads ({head})")  # fmt: skip
    return expand, heads, groups, state, conv, head


def decoder(
    c: Mapping[str, Any],
    *,
    prefix: str,
    qkv_bias: bool,
    o_bias: bool,
    mlp_bias: bool = False,
    windows: list[Any] | None = None,
    window: Dim | None = None,
    ffn: Callable[[Dim, Dim], Module] | None = None,
    shape: Mapping[str, Any] | None = None,
) -> Module:
    """A Llama-like causal LM from a resolved config: attention, a gated MLP (or ``ffn``), two RMSNorms per layer.

    Parameters
    ----------
    c : mapping
        The resolved config (:func:`derive.blocks.hf_config.resolve`).
    prefix : str
        The family's class prefix (``"Mistral"``).
    qkv_bias, o_bias, mlp_bias : bool
    windows : list, optional
        Each layer's sliding window (None for a full-attention layer): the ``layer_types`` pattern.
    window : int or sympy.Expr, optional
        One window for every layer (Mistral's ``sliding_window``).
    ffn : callable (hidden, intermediate) -> Module, optional
        The layer's feed-forward block named ``mlp`` (Mixtral's sparse MoE); default a gated MLP.
    shape : mapping, optional
        Extra shape keys for the model's config.

    Returns
    -------
    derive.tree.Module
    """
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    F, L = hf_config.size(c, "intermediate_size"), hf_config.size(c, "num_hidden_layers", 0)
    H = hf_config.size(c, "num_attention_heads")
    KV, d = kv_heads(c, H), head_dim(c, D, H)
    tie = hf_config.flag(c, "tie_word_embeddings")

    def make(w: Any) -> Module:
        attn = self_attention(
            D, H, KV, d, bias=qkv_bias, output_bias=o_bias, window=w if windows is not None else window,
            type=f"{prefix}Attention",
        )  # fmt: skip
        mlp = ffn(D, F) if ffn else gated_mlp(D, F, bias=mlp_bias, type=f"{prefix}MLP")
        norm = lambda n: rms_norm((D,), name=n, type=f"{prefix}RMSNorm")  # noqa: E731
        children = (attn, mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", f"{prefix}DecoderLayer", children=children)

    config = {"vocab_size": V, "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L}
    config.update(num_attention_heads=H, num_key_value_heads=KV)
    if c.get("head_dim") is not None:
        config["head_dim"] = d
    config.update(shape or {})
    config["tie_word_embeddings"] = tie
    layers = layer_list(make, windows if windows is not None and len(set(windows)) > 1 else None, L)
    if windows is not None and len(set(windows)) == 1:
        layers = layer_list(lambda _: make(windows[0]), None, L)
    return causal_lm(prefix, vocab=V, hidden=D, layers=layers, tie=tie, config=config, rotary=rope_buffers(d))
