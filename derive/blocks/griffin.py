"""Griffin and Hawk (RecurrentGemma): the RG-LRU recurrent block, local multi-query attention and the
gated MLP, as transformers' ``RecurrentGemmaForCausalLM`` and as DeepMind's ``recurrentgemma`` names them.

Symbols: D = ``hidden_size`` (DeepMind ``width``), W = ``lru_width`` (default D), H =
``num_attention_heads`` (DeepMind ``num_heads``: the attention heads *and* the RG-LRU's diagonal
blocks), K = ``conv1d_width`` (4), F = the MLP's inner width — transformers' ``intermediate_size // 2``
(``modeling_recurrent_gemma.py`` 479), DeepMind's ``mlp_expanded_width`` — and d = ``head_dim``.

- Recurrent block (HF 391–410, DeepMind ``modules.py`` 496–560): ``linear_x``, ``linear_y`` D → W and
  ``linear_out`` W → D, all biased; a depthwise causal Conv1d over W channels with bias; the RG-LRU
  (HF 280–297, DeepMind ``layers.py`` 233–280): ``recurrent_param`` / ``a_param`` (W) and two
  *block-diagonal* gates, weight (H, W/H, W/H) and bias (H, W/H) each (DeepMind's
  ``BlockDiagonalLinear``, ``layers.py`` 76–112) — 2W²/H, not 2W² — so 3DW + 2W²/H + W(K + 6) + D.
- Local attention (HF 197–217, DeepMind ``modules.py`` 294–367): q D → H·d, k and v D → H_kv·d, no
  bias (HF ``attention_bias``), output H·d → D *with* bias. DeepMind's block has a single key/value
  head (multi-query); HF's default ``num_key_value_heads`` is H (full K/V) and the released configs
  set 1.
- MLP (HF 474–483, DeepMind 683–722): gate and up D → F, down F → D, all biased: 3DF + 2F + D.
- Per layer two RMSNorms (D), a final one; the embedding is the output layer (HF ties ``lm_head`` by
  default; DeepMind has no head). Block types repeat ``block_types`` (recurrent, recurrent, attention):
  layer i is ``block_types[i % len(block_types)]`` (HF ``layers_block_type``, at most 100 repeats).

A token's matmul FLOPs at decode (transformers' classes, :func:`decode_flops`): the recurrent block's
three projections, 6DW, and the RG-LRU's two block-diagonal gates, each a ``torch.baddbmm`` of (H, 1,
W/H) by (H, W/H, W/H) per token: 4H⌊W/H⌋² (HF 311-315); the one-token convolution (446-450) and the
scan (365-375) are element-wise. The local attention costs its projections and 4·H·d·S over the S =
min(T, w) keys its cache hands back (the w - 1 kept and its own; every token when w = 1), as
:func:`derive.layers.lm_attention.attention_flops` counts it.

>>> from derive.tree import count
>>> count(recurrent_gemma_for_causal_lm(RECURRENTGEMMA_2B))
2682862080
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.conv import conv
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops
from ..layers.norm import rms_norm
from ..layers.token_flops import matmul_flops, projections
from ..layers.token_flops import register as register_flops
from ..tree import Dim, Module, Param, State
from . import register_config
from ._keys import config_constructor, flag, formula, is_int, recipe, size, value
from ._shapes import Inferred, Shapes, Unreadable, dims, layer_count, ratio, register_shapes, tied
from .hf_config import Keys

__all__ = ["SOURCE", "EQUATIONS", "RECURRENTGEMMA_2B", "floordiv", "rg_lru", "recurrent_block",
           "attention_block", "mlp_block", "layer_types", "recurrent_gemma_for_causal_lm", "LETTERS",
           "decode_flops"]  # fmt: skip

#: Where the tensors and conventions are read from (file and lines), shown on the site.
SOURCE = {
    "transformers": "transformers 5.23.0 models/recurrent_gemma/configuration_recurrent_gemma.py 59-104, "
    "modeling_recurrent_gemma.py 197-217, 280-297, 391-410, 474-498, 611-624, 686-693",
    "deepmind": "google-deepmind/recurrentgemma recurrentgemma/torch/layers.py 30-115, 233-280, 379-412; "
    "modules.py 294-367, 496-560, 683-722, 755-832; griffin.py 30-79; common.py 46-151",
}

#: The Griffin recurrent block (De et al. 2024, eqs. 1-4), in the tensors' names.
EQUATIONS = (
    r"y_t = \mathrm{GeLU}(W_y x_t + b_y),\quad u_t = \mathrm{Conv1D}_K(W_x x_t + b_x)\quad (W_x, W_y: W \times D)",
    r"r_t = \sigma(W_a u_t + b_a),\quad i_t = \sigma(W_i u_t + b_i)"
    r"\quad (W_a, W_i \text{ block-diagonal: } H \text{ blocks } \tfrac{W}{H} \times \tfrac{W}{H})",
    r"a_t = a^{c r_t},\ a = \sigma(\Lambda)\ (\Lambda: \texttt{a\_param},\ c = 8),\quad "
    r"h_t = a_t \odot h_{t-1} + \sqrt{1 - a_t^2} \odot (i_t \odot u_t)",
    r"o_t = W_o (h_t \odot y_t) + b_o \quad (W_o: D \times W)",
)


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b`` as Python computes it; ⌊a/b⌋ (SymPy's ``floor``) for symbols, exact either way.

    Parameters
    ----------
    a, b : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> floordiv(2560, 10), floordiv(66, 5)
    (256, 13)
    """
    if is_int(a) and is_int(b):
        return a // b
    import sympy

    return sympy.floor(a / b)


def rg_lru(width: Dim, num_heads: Dim, *, spelling: str = "transformers", name: str = "rg_lru") -> Module:
    """The Real-Gated Linear Recurrent Unit: a decay parameter per channel and two block-diagonal gates.

    Parameters
    ----------
    width, num_heads : int or sympy.Expr
        W and H; each block is ⌊W/H⌋ wide (``lru_width // num_attention_heads``, as both sources compute it).
    spelling : {"transformers", "deepmind"}
    name : str

    Returns
    -------
    derive.tree.Module
        W + 2H⌊W/H⌋² + 2H⌊W/H⌋ parameters (3W + 2W²/H when H divides W).
    """
    h, b = num_heads, floordiv(width, num_heads)
    if spelling == "deepmind":
        gates = tuple(
            Module(g, "BlockDiagonalLinear", (Param("w", (h, b, b)), Param("b", (h, b))))
            for g in ("input_gate", "a_gate")
        )
        return Module(name, "RGLRU", (Param("a_param", (width,)),), gates)
    params = (
        Param("recurrent_param", (width,)),
        Param("input_gate_weight", (h, b, b)),
        Param("input_gate_bias", (h, b)),
        Param("recurrent_gate_weight", (h, b, b)),
        Param("recurrent_gate_bias", (h, b)),
    )
    # recurrent_states: float32 always (``_rnn_scan``'s acc_dtype, modeling_recurrent_gemma.py 347, 380-385, 439-441)
    return Module(name, "RecurrentGemmaRglru", params, cache=(State("recurrent_states", ("batch", width), "float32"),))


def recurrent_block(width: Dim, num_heads: Dim, lru_width: Dim | None = None, conv1d_temporal_width: Dim = 4, *,
                    spelling: str = "transformers", name: str = "temporal_block") -> Module:  # fmt: skip
    """Griffin's recurrent block: two input branches, a causal depthwise convolution, the RG-LRU, the output.

    Parameters
    ----------
    width, num_heads : int or sympy.Expr
        D and H.
    lru_width : int or sympy.Expr, optional
        W (default D).
    conv1d_temporal_width : int or sympy.Expr, default 4
        K.
    spelling : {"transformers", "deepmind"}
        transformers: ``conv_1d`` a torch ``Conv1d`` (W, 1, K); DeepMind: its own ``Conv1D`` with
        ``w`` (K, W) and ``b`` (W) (``layers.py`` 379–412).
    name : str

    Returns
    -------
    derive.tree.Module
        3DW + 2W²/H + W(K + 6) + D parameters (H dividing W). transformers keeps its states on the
        modules, not in the cache object: ``conv1d_state`` (batch, W, K - 1) in the model's dtype on
        the block, ``rg_lru.recurrent_states`` (batch, W) in float32 always.
    """
    d, w, k = width, width if lru_width is None else lru_width, conv1d_temporal_width
    if spelling == "deepmind":
        conv_1d = Module("conv_1d", "Conv1D", (Param("w", (k, w)), Param("b", (w,))))
        type = "RecurrentBlock"
        states: tuple[State, ...] = ()
    else:
        conv_1d = conv(w, w, (k,), groups=w, name="conv_1d")
        type = "RecurrentGemmaRecurrentBlock"
        # the last K - 1 inputs of the convolution, on the module (modeling_recurrent_gemma.py 431-450)
        states = (State("conv1d_state", ("batch", w, k - 1)),)
    children = (linear(d, w, name="linear_y"), linear(d, w, name="linear_x"), linear(w, d, name="linear_out"), conv_1d)
    sizes = {"width": d, "num_heads": num_heads, "lru_width": w, "conv1d_temporal_width": k}
    letters = {"width": "D", "num_heads": "H", "lru_width": "W", "conv1d_temporal_width": "K"}
    return Module(name, type, children=(*children, rg_lru(w, num_heads, spelling=spelling)), cache=states,
                  formula=recipe(recurrent_block, sizes, letters, spelling=spelling))  # fmt: skip


def attention_block(width: Dim, num_heads: Dim, num_key_value_heads: Dim = 1, head_dim: Dim | None = None, *,
                    bias: bool = False, spelling: str = "transformers", name: str = "temporal_block",
                    rotary: int | None = None, attention_window_size: Dim = 2048) -> Module:  # fmt: skip
    """Local (sliding-window) attention: q, k, v without bias (``bias``), the output projection biased.

    Parameters
    ----------
    width, num_heads : int or sympy.Expr
        D and H.
    num_key_value_heads : int or sympy.Expr, default 1
        H_kv (DeepMind: always 1).
    head_dim : int or sympy.Expr, optional
        d (default ⌊D/H⌋).
    bias : bool, default False
        transformers' ``attention_bias`` on q, k, v.
    spelling : {"transformers", "deepmind"}
    name : str
    rotary : int, optional
        transformers: the rotary frequencies' length (buffers ``rotary_emb.inv_freq`` and
        ``original_inv_freq``, not parameters); None leaves them out.
    attention_window_size : int or sympy.Expr, default 2048
        w, transformers' ``sliding_window``: its cache layer is a ``DynamicSlidingWindowLayer``
        (``configuration_recurrent_gemma.py`` 97-101) keeping keys and values
        (batch, H_kv, min(T, w - 1), d) and a 0-d int64 tensor of w (``cache_utils.py`` 196-251).

    Returns
    -------
    derive.tree.Module
        2DHd + 2DH_kv·d + D (no q/k/v bias).
    """
    d, h, kv = width, num_heads, num_key_value_heads
    hd = floordiv(d, h) if head_dim is None else head_dim
    if spelling == "deepmind":
        projections = (linear(d, d, False, name="proj_q"), linear(d, hd, False, name="proj_k"),
                       linear(d, hd, False, name="proj_v"), linear(d, d, name="proj_final"))  # fmt: skip
        return Module(name, "LocalAttentionBlock", children=projections)
    children: tuple[Module, ...] = (linear(d, h * hd, bias, name="q_proj"), linear(d, kv * hd, bias, name="k_proj"),
                                    linear(d, kv * hd, bias, name="v_proj"), linear(h * hd, d, name="o_proj"))  # fmt: skip
    if rotary is not None:
        freqs = (Param("inv_freq", (rotary,), buffer=True), Param("original_inv_freq", (rotary,), buffer=True))
        children += (Module("rotary_emb", "RecurrentGemmaRotaryEmbedding", freqs),)
    # ``[:, :, -w + 1:]`` keeps w - 1 tokens, and every token when w is 1 (the slice ``[0:]``)
    kept = None if attention_window_size == 1 else attention_window_size - 1
    states = (
        State("keys", ("batch", kv, "tokens", hd), window=kept),
        State("values", ("batch", kv, "tokens", hd), window=kept),
        State("_sliding_window_tensor", (), "int64"),
    )
    # the keys a token attends to: the kept w - 1 and its own (every token when w = 1)
    config = {"num_heads": h, "num_kv_heads": kv, "head_dim": hd, "value_dim": hd,
              "window": None if kept is None else attention_window_size}  # fmt: skip
    return Module(name, "RecurrentGemmaAttention", children=children, config=config, cache=states)


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through transformers' ``RecurrentGemmaRglru`` (4H⌊W/H⌋², its two
    gates) or ``RecurrentGemmaRecurrentBlock`` (6DW and its RG-LRU's) at decode (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        :func:`rg_lru` or :func:`recurrent_block`, spelling "transformers".
    tokens : int or sympy.Expr
        Unused: the cost does not grow with the sequence.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).
    """
    if module.type == "RecurrentGemmaRglru":
        h, b, _ = module.params[1].shape  # input_gate_weight (H, W/H, W/H)
        return 2 * 2 * h * b * b
    return projections(module, tokens) + matmul_flops(module.child("rg_lru"), tokens)


for _cls in ("RecurrentGemmaRglru", "RecurrentGemmaRecurrentBlock"):
    register_flops(_cls, decode_flops)
register_flops("RecurrentGemmaAttention", attention_flops)


def mlp_block(width: Dim, expanded_width: Dim, *, spelling: str = "transformers", name: str = "mlp_block") -> Module:
    """The gated MLP: two biased maps D → F (gate, up), one F → D (down): 3DF + 2F + D.

    Parameters
    ----------
    width, expanded_width : int or sympy.Expr
        D and F (transformers: ``intermediate_size // 2``).
    spelling : {"transformers", "deepmind"}
        DeepMind's gate and up are one ``Einsum``: ``ffw_up.w`` (2, D, F), ``ffw_up.b`` (2, 1, 1, F).
    name : str

    Returns
    -------
    derive.tree.Module
    """
    d, f = width, expanded_width
    if spelling == "deepmind":
        up = Module("ffw_up", "Einsum", (Param("w", (2, d, f)), Param("b", (2, 1, 1, f))))
        return Module(name, "MLPBlock", children=(up, linear(f, d, name="ffw_down")), part="MLP")
    return Module(name, "RecurrentGemmaMlp", children=(linear(d, f, name="gate_proj"), linear(d, f, name="up_proj"),
                                                       linear(f, d, name="down_proj")), part="MLP")  # fmt: skip


def layer_types(block_types: Sequence[str], num_layers: Dim) -> list[str] | dict[int, Dim]:
    """Each layer's block type, as transformers repeats the pattern (``(block_types * 100)[:L]``).

    Parameters
    ----------
    block_types : sequence of {"recurrent", "attention"}
    num_layers : int or sympy.Expr

    Returns
    -------
    list of str, or dict of int -> sympy.Expr
        For an int L, the L types; for a symbolic L, how many layers each pattern position j has:
        ⌊(L - 1 - j)/p⌋ + 1 (p the pattern's length; exact for L up to 100·p).

    Raises
    ------
    ValueError
        An empty pattern, a type other than "recurrent" or "attention" (transformers would build
        attention for any other word), more layers than 100 repeats give (transformers fails).
    """
    types = list(block_types)
    for kind in types:
        if kind not in ("recurrent", "attention"):
            raise ValueError(
                f"config key 'block_types' holds {kind!r}: only 'recurrent' and 'attention' are block types"
            )
    p = len(types)
    if p == 0 and num_layers != 0:
        raise ValueError("config key 'block_types' is empty: transformers cannot build any layer")
    if is_int(num_layers):
        if num_layers > 100 * p:
            raise ValueError(
                f"config key 'num_hidden_layers' ({num_layers}) exceeds 100 repeats of 'block_types' ({p}): "
                "transformers' layers_block_type stops there"
            )
        return [types[i % p] for i in range(num_layers)]
    import sympy

    return {j: sympy.floor((num_layers - 1 - j) / p) + 1 for j in range(p)}


#: Config keys of RecurrentGemmaConfig and the letters of the closed form.
LETTERS = {"vocab_size": "V", "hidden_size": "D", "num_hidden_layers": "L", "intermediate_size": "F", "lru_width": "W",
           "num_attention_heads": "H", "num_key_value_heads": "H_kv", "conv1d_width": "K", "head_dim": "d"}  # fmt: skip

#: The recurrentgemma-2b config (google/recurrentgemma-2b ``config.json``; DeepMind's preset
#: ``RECURRENT_GEMMA_2B_V1``, ``common.py`` 90–101, with transformers' doubled ``intermediate_size``).
RECURRENTGEMMA_2B: dict[str, Any] = {
    "model_type": "recurrent_gemma",
    "vocab_size": 256000,
    "hidden_size": 2560,
    "intermediate_size": 15360,
    "num_hidden_layers": 26,
    "num_attention_heads": 10,
    "num_key_value_heads": 1,
    "head_dim": 256,
    "lru_width": 2560,
    "conv1d_width": 4,
    "attention_window_size": 2048,
    "block_types": ["recurrent", "recurrent", "attention"],
}


def _rotary(config: Mapping[str, Any], head_dim: Dim, attends: bool) -> int | None:
    """The length of the rotary buffers of the attention layers (``modeling_recurrent_gemma.py`` 64–97),
    None for a symbolic d or no attention layer; transformers' checks of the rotary settings."""
    rope = value(config, "rope_parameters", {})
    if not isinstance(rope, Mapping):
        raise ValueError(f"config key 'rope_parameters' must be a mapping, got {type(rope).__name__}")
    factor = rope.get("partial_rotary_factor", value(config, "partial_rotary_factor", 0.5))
    if not is_int(head_dim):
        return None
    if head_dim > 4 and head_dim % 2 and int(head_dim * factor) == head_dim:  # modeling_rope_utils.py 902-911
        raise ValueError(f"config key 'head_dim': RoPE requires an even rotary dimension, got {head_dim} fully rotated")
    if not attends:
        return None
    if rope.get("rope_type", "default") != "default":  # the rotary embedding of an attention layer refuses it
        raise ValueError(
            f"config key 'rope_parameters': RecurrentGemma supports rope_type 'default' only, got {rope['rope_type']!r}"
        )
    return len(range(0, int(head_dim * factor), 2))


#: ``RecurrentGemmaConfig``'s every key at transformers 5.23.0 (configuration_recurrent_gemma.py): the shape keys
#: with their defaults (None: derived by ``__post_init__``; ``head_dim``, set there to D // H, is overridden by a given
#: keyword; ``rope_parameters`` and ``partial_rotary_factor`` size the rotary buffers), the others with why they shape
#: nothing. Its ``attribute_map``: ``sliding_window`` is ``attention_window_size``; ``layer_types`` is
#: ``layers_block_type``, a property made of ``block_types`` that takes no value.
KEYS = Keys(
    "RecurrentGemmaConfig",
    {
        "vocab_size": 256000,
        "hidden_size": 2560,
        "intermediate_size": 3 * 2560,
        "num_hidden_layers": 26,
        "num_attention_heads": 10,
        "num_key_value_heads": None,
        "head_dim": None,
        "lru_width": None,
        "conv1d_width": 4,
        "attention_window_size": 2048,
        "block_types": ("recurrent", "recurrent", "attention"),
        "attention_bias": False,
        "tie_word_embeddings": True,
        "rope_parameters": None,
        "partial_rotary_factor": 0.5,
    },
    {
        "attention_dropout": "dropout, off at inference: no tensor",
        "hidden_activation": "the MLP's activation: no tensor",
        "logits_soft_cap": "a tanh cap on the logits: no tensor",
        "rms_norm_eps": "an epsilon of the norms",
        "w_init_variance_scale": "the recurrent block's initialisation: no tensor",
        "final_w_init_variance_scale": "derived by __post_init__ (2 / num_hidden_layers) for the initialisation: no tensor",
        "layers_block_type": "a property made of block_types (refused when given: no setter)",
    },
    {"sliding_window": "attention_window_size", "layer_types": "layers_block_type"},
)


@register_config("recurrent_gemma", architecture="RecurrentGemmaForCausalLM", source=SOURCE["transformers"], keys=KEYS)
def recurrent_gemma_for_causal_lm(config: Mapping[str, Any]) -> Module:
    """The model ``AutoModelForCausalLM.from_config(RecurrentGemmaConfig(**config))`` builds, named as
    transformers names it (``model.layers.0.temporal_block.rg_lru.input_gate_weight``).

    Parameters
    ----------
    config : mapping
        ``RecurrentGemmaConfig`` keys (``configuration_recurrent_gemma.py`` 59–97): ``vocab_size``
        (256000), ``hidden_size`` (2560), ``intermediate_size`` (7680: the MLP is half of it),
        ``num_hidden_layers`` (26), ``num_attention_heads`` (10), ``num_key_value_heads`` (= heads),
        ``head_dim`` (= hidden_size // heads), ``lru_width`` (= hidden_size), ``conv1d_width`` (4),
        ``block_types`` (recurrent, recurrent, attention), ``attention_bias`` (False),
        ``tie_word_embeddings`` (True), ``rope_parameters`` (buffers only).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key naming a value derive cannot use; more key/value heads than heads (as transformers
        refuses); a pattern transformers cannot repeat (:func:`layer_types`); ``layer_types`` (or
        ``layers_block_type``) given, which transformers refuses; ``sliding_window`` and
        ``attention_window_size`` disagreeing.
    """
    for key in ("layer_types", "layers_block_type"):
        if key in config:
            raise ValueError(
                f"config key {key!r} is RecurrentGemmaConfig's property, made of block_types: it takes no value "
                "(transformers refuses it)"
            )
    KEYS.resolve(config)  # an alias that disagrees with the key it names: refused
    if "sliding_window" in config:  # the attribute_map's name: transformers sets attention_window_size
        config = {
            **{k: v for k, v in config.items() if k != "sliding_window"},
            "attention_window_size": config["sliding_window"],
        }
    vocab, d = size(config, "vocab_size", 256000), size(config, "hidden_size", 2560)
    f_hf = size(config, "intermediate_size", 3 * 2560)
    layers = size(config, "num_hidden_layers", 26)  # 0 fails in the config (2.0 / num_hidden_layers)
    heads = size(config, "num_attention_heads", 10)
    kv = size(config, "num_key_value_heads", heads)
    if is_int(kv) and is_int(heads) and kv > heads:
        raise ValueError("The number of `num_key_value_heads` must be smaller than `num_attention_heads`")
    hd = size(config, "head_dim", floordiv(d, heads))
    w, k = size(config, "lru_width", d), size(config, "conv1d_width", 4)
    window = size(config, "attention_window_size", 2048)
    bias = flag(config, "attention_bias", False)
    pattern = value(config, "block_types", ["recurrent", "recurrent", "attention"])
    if isinstance(pattern, str) or not isinstance(pattern, Sequence):
        raise ValueError(f"config key 'block_types' must be a list of block types, got {pattern!r:.60}")
    kinds = layer_types(pattern, layers)
    attends = "attention" in (kinds if isinstance(kinds, list) else pattern)
    rotary = _rotary(config, hd, attends)

    def layer(kind: str, name: str) -> Module:
        if kind == "recurrent":
            temporal = recurrent_block(d, heads, w, k)
        else:
            temporal = attention_block(d, heads, kv, hd, bias=bias, rotary=rotary, attention_window_size=window)
        norm = lambda n: rms_norm((d,), name=n, type="RecurrentGemmaRMSNorm")  # noqa: E731
        return Module(name, "RecurrentGemmaDecoderLayer", children=(norm("temporal_pre_norm"), temporal,
                      norm("channel_pre_norm"), mlp_block(d, floordiv(f_hf, 2))), row=True)  # fmt: skip

    if isinstance(kinds, list):
        stack = tuple(layer(kind, str(i)) for i, kind in enumerate(kinds))
    else:  # a symbolic number of layers: the copies of each pattern position, counted, not listed
        p = len(pattern)
        stack = tuple(layer(pattern[j], f"[{j}::{p}]").with_repeat(n) for j, n in kinds.items())
    body = (embedding(vocab, d, name="embed_tokens"), Module("layers", "ModuleList", children=stack),
            rms_norm((d,), name="final_norm", type="RecurrentGemmaRMSNorm"))  # fmt: skip
    inner = Module("model", "RecurrentGemmaModel", (Param("normalizer", (), buffer=True, dtype="bfloat16"),), body)
    tie = "model.embed_tokens.weight" if flag(config, "tie_word_embeddings", True) else None
    head = Module("lm_head", "Linear", (Param("weight", (vocab, d), tied_to=tie),))
    shape = {"vocab_size": vocab, "hidden_size": d, "intermediate_size": f_hf, "num_hidden_layers": layers,
             "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": hd, "lru_width": w, "conv1d_width": k,
             "block_types": list(pattern), "attention_bias": bias, "tie_word_embeddings": tie is not None}  # fmt: skip
    return Module("", "RecurrentGemmaForCausalLM", children=(inner, head), config={**config, **shape},
                  formula=formula(recurrent_gemma_for_causal_lm, config, LETTERS))  # fmt: skip


register(
    Constructor(
        "transformers",
        "RecurrentGemmaConfig",
        config_constructor("RecurrentGemmaConfig", recurrent_gemma_for_causal_lm),
        prefixes=("", "transformers.", "transformers.models.recurrent_gemma."),
        module_types=("transformers.models.recurrent_gemma.configuration_recurrent_gemma",),
        source=SOURCE["transformers"],
    )
)


# --------------------------------------------------------------------------- the way back: a checkpoint's tensors -> the config


def _period(kinds: list[str]) -> list[str]:
    """The shortest pattern whose repeats give ``kinds`` (transformers repeats ``block_types``)."""
    return next(kinds[:p] for p in range(1, len(kinds) + 1) if all(k == kinds[i % p] for i, k in enumerate(kinds)))


@register_shapes("RecurrentGemmaForCausalLM")
def recurrent_gemma_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``RecurrentGemmaForCausalLM``: the block pattern from which layers hold an RG-LRU.

    Parameters
    ----------
    shapes : mapping of str -> tuple of int
        The checkpoint's tensors, by name.
    ties : mapping of str -> str
        Tensor name -> the name it shares its storage with.

    Returns
    -------
    Inferred or None
        The inferred config, or None when the tensors are not this model's.

    Raises
    ------
    Unreadable
        The tensors are this model's but do not give its config (the message says why).
    """
    if "model.embed_tokens.weight" not in shapes or "model.layers.0.temporal_pre_norm.weight" not in shapes:
        return None
    vocab, d = dims(shapes, "model.embed_tokens.weight", 2)
    layers = layer_count(shapes, "model.layers.")
    kinds = [
        "recurrent" if f"model.layers.{i}.temporal_block.rg_lru.recurrent_param" in shapes else "attention"
        for i in range(layers)
    ]
    recurrent = [i for i, kind in enumerate(kinds) if kind == "recurrent"]
    if not recurrent:
        raise Unreadable("no layer holds an RG-LRU: num_attention_heads cannot be told from attention layers alone")
    block = f"model.layers.{recurrent[0]}.temporal_block."
    heads = dims(shapes, block + "rg_lru.input_gate_weight", 3)[0]
    config: dict[str, Any] = {
        "model_type": "recurrent_gemma",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "lru_width": dims(shapes, block + "linear_x.weight", 2)[0],
        "conv1d_width": dims(shapes, block + "conv_1d.weight", 3)[2],
        "intermediate_size": 2 * dims(shapes, "model.layers.0.mlp_block.gate_proj.weight", 2)[0],
        "block_types": _period(kinds),
        "tie_word_embeddings": tied(shapes, ties, "lm_head.weight", "model.embed_tokens.weight"),
    }
    notes = [
        f"intermediate_size: the MLP is {config['intermediate_size'] // 2:,} wide, half of it (transformers halves "
        f"it, so {config['intermediate_size'] + 1:,} gives the same tensors)",
        f"block_types: the layers repeat {config['block_types']}",
    ]
    if "attention" in kinds:
        attention = f"model.layers.{kinds.index('attention')}.temporal_block."
        q, kv = dims(shapes, attention + "q_proj.weight", 2)[0], dims(shapes, attention + "k_proj.weight", 2)[0]
        head_dim = ratio(q, heads)
        if head_dim is None or kv % head_dim:
            raise Unreadable(f"{attention}q_proj.weight has {q} rows: not num_attention_heads ({heads}) × head_dim")
        config.update(head_dim=head_dim, num_key_value_heads=kv // head_dim)
        config["attention_bias"] = attention + "q_proj.bias" in shapes
    return Inferred("recurrent_gemma", config, notes, embedding="model.embed_tokens.weight")
