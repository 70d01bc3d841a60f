"""xLSTM (``model_type`` ``xlstm``): transformers' ``xLSTMForCausalLM``, the model of NX-AI's xLSTM-7B, a
stack of mLSTM blocks and nothing else.

``xLSTMForCausalLM`` (``models/xlstm/modeling_xlstm.py`` 1394-1400, 1517-1521): ``backbone``
(``embeddings`` (V, D), ``blocks``, ``out_norm``) and ``lm_head`` Linear(D, V) — never tied:
the class declares no tied weights, whatever ``tie_word_embeddings`` says. With the ``xlstm``
package installed (as here; ``is_xlstm_available``, ``modeling_xlstm.py`` 33-40) each block is
its ``mLSTMBlock`` (``xlstm/xlstm_large/model.py`` 232-270, 310-377, 455-497, xlstm 2.0.6; the
fallback inside transformers, 989-1191, builds the same tensors): ``norm_mlstm``, ``mlstm_layer``,
``norm_ffn``, ``ffn``, every norm an RMSNorm of a weight (and a bias with ``use_bias``).

The mLSTM layer, D = ``hidden_size``, H = ``num_heads``, q = ``int(D · qk_dim_factor)``, v =
``int(D · v_dim_factor)``: ``weight_mode`` "single" — ``q``, ``k`` D → q, ``v``, ``ogate_preact``
D → v, ``igate_preact``, ``fgate_preact`` D → H (always biased); "fused" — ``qkv_opreact`` D → 2q +
2v, ``ifgate_preact`` D → 2H; then ``multihead_norm`` (H · ⌊v/H⌋) and ``out_proj`` v → D. The
feed-forward: F = ``ffn_proj_factor`` · D rounded up to a multiple of ``ffn_round_up_to_multiple_of``,
``proj_up_gate`` and ``proj_up`` D → F (fused: ``proj_up_gate_z`` D → 2F), ``proj_down`` F → D.
Every projection but the gates' is biased only with ``use_bias``.

Its cache, ``xLSTMCache`` (``modeling_xlstm.py`` 1305-1366), allocated in the model's dtype for
``num_hidden_layers`` layers: per layer the matrix memory C (batch, H, q', v'), the normaliser n
(batch, H, q') and the stabiliser m (batch, H, 1), where q' = ``config.qk_dim // num_heads`` and
v' = ``config.v_dim // num_heads`` *round the dimensions up to a multiple of 64* (the config's
``qk_dim``/``v_dim`` properties, ``configuration_xlstm.py`` 160-180) — a layer whose q or v is not
already a multiple of 64 then cannot write its state into the cache (transformers fails); plus
one int64 counter ``seqlen_offset`` (1,).

A token's matmul FLOPs at decode (:func:`decode_flops`): the projections, and per head the three
products of the mLSTM's step (``mlstm_recurrent_step__native_fw``, ``mlstm_kernels/torch/recurrent/
native_step.py`` 79-88, mlstm_kernels 2.0.6; the same in transformers' fallback,
``modeling_xlstm.py`` 431-438): the outer product k·v^T into C, the query's readout q^T·C and
q^T·n, 4·q_h·v_h + 2·q_h with q_h = q / H and v_h = v / H — so 4qv/H + 2q per layer. One token with
a state held runs the step kernel (``kernel_wrappers.py`` 321-360: ``S > 1`` runs the chunkwise
kernel, padded to ``chunk_size``), the default ``step_kernel`` "native" (``configuration_xlstm.py``
135; the Triton one needs a GPU).

>>> from derive.tree import count
>>> count(xlstm({"vocab_size": 50304, "hidden_size": 4096, "num_heads": 8, "num_hidden_layers": 32}))
6865424896
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.token_flops import matmul_flops, projections, register
from ..tree import Dim, Module, Param, State
from .family import Keys, register_family

__all__ = ["KEYS", "xlstm", "mlstm_block", "round_up", "decode_flops"]

#: ``xLSTMConfig``'s shape keys and defaults (configuration_xlstm.py 120-151).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 50304,
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_heads": 8,
    "use_bias": False,
    "tie_word_embeddings": False,
    "qk_dim_factor": 0.5,
    "v_dim_factor": 1.0,
    "ffn_proj_factor": 2.667,
    "ffn_round_up_to_multiple_of": 64,
    "weight_mode": "single",
}
#: Keys that shape no tensor: kernels, precision, capping, generation (``add_out_norm``:
#: ``xLSTMModel`` builds ``out_norm`` whatever it says).
_SAME_AS = {"embedding_dim": "hidden_size", "num_blocks": "num_hidden_layers"}
#: ``xLSTMConfig``'s every key at transformers 5.23.0 (configuration_xlstm.py 120-180): the shape keys with their
#: defaults, the others with why they shape nothing; ``embedding_dim`` and ``num_blocks`` are read by the model too
#: (``modeling_xlstm.py`` 1398-1399) and must agree with ``hidden_size`` / ``num_hidden_layers`` (:data:`_SAME_AS`).
KEYS = Keys(
    "xLSTMConfig",
    _DEFAULTS,
    {
        "norm_reduction_force_float32": "the norms' reduction precision: no tensor",
        "add_out_norm": "xLSTMModel builds out_norm whatever it says: no tensor",
        "norm_eps": "an epsilon of the norms",
        "chunkwise_kernel": "which kernel the forward runs: no tensor",
        "sequence_kernel": "which kernel the forward runs: no tensor",
        "step_kernel": "which kernel the forward runs: no tensor",
        "mode": "training or inference mode of the kernels: no tensor",
        "chunk_size": "the chunkwise kernel's chunk: no tensor",
        "return_last_states": "whether the kernels return their last states: no tensor",
        "autocast_kernel_dtype": "the kernels' compute dtype: no tensor",
        "eps": "an epsilon of the kernels",
        "inference_state_dtype": "the dtype of the states in the forward: no tensor",
        "gate_soft_cap": "a cap on the gates' pre-activations: no tensor",
        "output_logit_soft_cap": "a cap on the logits: no tensor",
        "max_inference_chunksize": "how many tokens a forward runs at once: no tensor",
    },
    same_as=_SAME_AS,
)
_SOURCE = (
    "transformers/models/xlstm/configuration_xlstm.py 120-180, modeling_xlstm.py 33-40, 1305-1366, 1394-1400, "
    "1517-1521; xlstm/xlstm_large/model.py 232-270, 310-377, 455-497 (xlstm 2.0.6)"
)


def round_up(x: Any, multiple: Dim) -> Dim:
    """``round_up_to_next_multiple_of``: ``int(((x + m - 1) // m) * m)`` (``xlstm_large/utils.py`` 5-7).

    Parameters
    ----------
    x : int, float or sympy.Expr
    multiple : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
        ``multiple · ceiling(x / multiple)`` for a symbolic ``x``.

    Examples
    --------
    >>> round_up(4096 * 2.667, 64), round_up(64 * 0.5, 64)
    (10944, 64)
    """
    if isinstance(x, (int, float)) and type(multiple) is int:
        return int(((x + multiple - 1) // multiple) * multiple)
    import sympy

    return multiple * sympy.ceiling(x / multiple)


def _scaled(width: Dim, factor: Any) -> Dim:
    """``int(width * factor)`` (a float factor truncated, as the layer computes it)."""
    if type(width) is int and isinstance(factor, (int, float)):
        return int(width * factor)
    import sympy

    exact = sympy.Rational(str(factor)) if isinstance(factor, float) else factor
    return sympy.floor(width * exact)


def _norm(width: Dim, bias: bool, name: str, type: str = "RMSNorm") -> Module:
    params = (Param("weight", (width,)),) + ((Param("bias", (width,)),) if bias else ())
    return Module(name, type, params, part="norms")


def mlstm_block(
    D: Dim, heads: Dim, qk: Dim, v: Dim, ffn: Dim, *, bias: bool, fused: bool, state: tuple[Dim, Dim]
) -> Module:
    """One ``mLSTMBlock``: ``norm_mlstm``, ``mlstm_layer``, ``norm_ffn``, ``ffn``.

    Parameters
    ----------
    D, heads, qk, v, ffn : int or sympy.Expr
        hidden_size, num_heads, the q/k width, the v width, the feed-forward width.
    bias : bool
        ``use_bias``.
    fused : bool
        ``weight_mode == "fused"``.
    state : (int or sympy.Expr, int or sympy.Expr)
        The cache's per-head widths (q', v'), rounded as ``xLSTMCache`` rounds them.

    Returns
    -------
    derive.tree.Module
    """
    projections: tuple[Module, ...]
    if fused:
        projections = (
            linear(D, 2 * qk + 2 * v, bias, name="qkv_opreact"),
            linear(D, 2 * heads, True, name="ifgate_preact"),
        )
    else:
        projections = (
            linear(D, qk, bias, name="q"),
            linear(D, qk, bias, name="k"),
            linear(D, v, bias, name="v"),
            linear(D, v, bias, name="ogate_preact"),
            linear(D, heads, True, name="igate_preact"),
            linear(D, heads, True, name="fgate_preact"),
        )
    head_v = v // heads if type(v) is int and type(heads) is int else v / heads
    qh, vh = state
    cache = (
        State("rnn_state[0]", ("batch", heads, qh, vh)),
        State("rnn_state[1]", ("batch", heads, qh)),
        State("rnn_state[2]", ("batch", heads, 1)),
    )
    layer = Module(
        "mlstm_layer",
        "mLSTMLayer",
        children=(
            *projections,
            _norm(heads * head_v, bias, "multihead_norm", "MultiHeadLayerNorm"),
            linear(v, D, bias, name="out_proj"),
        ),
        config={"num_heads": heads, "qk_dim": qk, "v_dim": v},
        cache=cache,
    )
    up = (linear(D, 2 * ffn, bias, name="proj_up_gate_z"),) if fused else (
        linear(D, ffn, bias, name="proj_up_gate"), linear(D, ffn, bias, name="proj_up"))  # fmt: skip
    feed = Module("ffn", "FeedForward", children=(*up, linear(ffn, D, bias, name="proj_down")), part="MLP")
    return Module("", "xLSTMBlock", children=(_norm(D, bias, "norm_mlstm"), layer, _norm(D, bias, "norm_ffn"), feed))


def xlstm(config: Mapping[str, Any]) -> Module:
    """``xLSTMForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it (with ``xlstm`` installed).

    Parameters
    ----------
    config : mapping
        Absent keys at ``xLSTMConfig``'s defaults. Sizes may be SymPy symbols (the factors stay numbers).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; ``embedding_dim`` or ``num_blocks`` disagreeing with
        ``hidden_size`` / ``num_hidden_layers`` (transformers would build an embedding, or a cache,
        that the blocks do not fit); an unknown ``weight_mode``; a factor that is not a number.
    """
    c = KEYS.resolve(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L, H = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_heads")
    multiple = hf_config.size(c, "ffn_round_up_to_multiple_of")
    bias = hf_config.flag(c, "use_bias")
    tie = hf_config.flag(c, "tie_word_embeddings")
    if c["weight_mode"] not in ("single", "fused"):
        raise ValueError(f"config key 'weight_mode' must be 'single' or 'fused', got {c['weight_mode']!r}")
    for key in ("qk_dim_factor", "v_dim_factor", "ffn_proj_factor"):
        if isinstance(c[key], bool) or not isinstance(c[key], (int, float)):
            raise ValueError(f"config key {key!r} must be a number, got {c[key]!r}")
    qk, v = _scaled(D, c["qk_dim_factor"]), _scaled(D, c["v_dim_factor"])
    F = round_up(D * c["ffn_proj_factor"], multiple)
    state = (
        _div(round_up(D * c["qk_dim_factor"], 64), H),
        _div(round_up(D * c["v_dim_factor"], 64), H),
    )
    block = mlstm_block(D, H, qk, v, F, bias=bias, fused=c["weight_mode"] == "fused", state=state)
    blocks = Module("blocks", "ModuleList", children=(block.replace(name="{k}", repeat=L, row=True),))
    backbone = Module(
        "backbone",
        "xLSTMModel",
        children=(embedding(V, D, name="embeddings"), blocks, _norm(D, False, "out_norm")),
        cache=(State("seqlen_offset", (1,), "int64"),),
    )
    shape = {k: c[k] for k in _DEFAULTS}
    shape.update(vocab_size=V, hidden_size=D, num_hidden_layers=L, num_heads=H, use_bias=bias)
    shape["tie_word_embeddings"] = tie  # read, and without effect: the head is never tied
    return Module("", "xLSTMForCausalLM", children=(backbone, hf_config.lm_head(D, V)), config=shape)


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through an ``mLSTMLayer`` at decode: its projections and 4qv/H + 2q
    (see the module's docstring); through ``xLSTMModel``, its children's (its cache is a counter).

    Parameters
    ----------
    module : derive.tree.Module
        The layer (:func:`mlstm_block`'s ``mlstm_layer``) or the backbone.
    tokens : int or sympy.Expr
        Unused: the cost does not grow with the sequence.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).

    Raises
    ------
    ValueError
        The heads do not divide q or v, or the cache's per-head widths (rounded up to a multiple of
        64) are not q / H and v / H: transformers cannot run that layer's step.
    """
    if module.type == "xLSTMModel":
        return sum((matmul_flops(c, tokens) for c in module.children), 0)
    H, qk, v = (module.config[k] for k in ("num_heads", "qk_dim", "v_dim"))
    if all(type(x) is int for x in (H, qk, v, *module.cache[0].shape[2:])):
        if qk % H or v % H or (qk // H, v // H) != module.cache[0].shape[2:]:
            raise ValueError(
                f"mLSTM layer of q = {qk}, v = {v} and {H} heads keeps a state of per-head widths "
                f"{module.cache[0].shape[2:]}: transformers cannot run its step"
            )
        return projections(module, tokens) + 4 * qk * v // H + 2 * qk
    return projections(module, tokens) + 4 * qk * v / H + 2 * qk


for _cls in ("mLSTMLayer", "xLSTMModel"):
    register(_cls, decode_flops)


def _div(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a // b
    import sympy

    return sympy.floor(a / b)


register_family("xlstm", "xLSTMConfig", "xLSTMForCausalLM", xlstm, _SOURCE, keys=KEYS)
