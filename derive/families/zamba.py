"""Zamba (``model_type`` ``zamba``, Zamba-7B v1): Mamba layers with multi-head mixers, and hybrid layers that
run one shared transformer block — its weights held once, its attention invoked (and cached) at every
hybrid layer.

``ZambaForCausalLM`` (``models/zamba/modeling_zamba.py`` 114-144 ``ZambaAttention``, 439-484
``ZambaMambaMixer``, 617-628 ``ZambaMLP``, 631-638 ``ZambaAttentionDecoderLayer``, 678-683
``ZambaMambaDecoderLayer``, 725-730 ``ZambaHybridLayer``, 841-863 ``ZambaModel``, 937-944): layer i is
a Mamba layer (``mamba``, ``input_layernorm``) or, where ``layers_block_type[i]`` is ``hybrid``, a
``shared_transf``, a ``linear`` Linear(D, D) and a ``mamba_decoder``. The shared block is attention
over the concatenation of the layer's input and the original embedding (``q_proj`` Linear(A, H·d),
``k_proj``/``v_proj`` Linear(A, KV·d), ``o_proj`` Linear(H·d, D), A = ``attention_hidden_size``
(2D unless given), d = ``attention_head_dim`` (2D // H unless given)), a gated MLP (``gate_proj``,
``up_proj`` Linear(D, F), ``down_proj`` Linear(F, D)), ``input_layernorm`` (A) and
``pre_ff_layernorm`` (D). With ``tie_word_embeddings`` every hybrid layer's block after the first
is tied, whole, to the first's (``_tied_weights_keys``, lines 855-858): counted once; with exactly
one hybrid layer that tie finds nothing to tie and transformers refuses to build. Without it
transformers ties nothing: each hybrid layer holds its own block, as ``named_parameters()`` lists it.

The pattern, as ``ZambaConfig.__post_init__`` makes it (``configuration_zamba.py`` 98-115):
``layers_block_type`` (or ``layer_types``) as given, else two Mamba layers, a hybrid layer, then
layer 3 + i hybrid when i % ``attn_layer_period`` = ``attn_layer_offset``.

The mixer splits the inner width E = ``mamba_expand`` · D into H = ``n_mamba_heads`` heads of P =
E / H, each with its own selection and time step (``x_proj_weight`` (H, R + 2N, P),
``dt_proj_weight`` (H, P, R), ``dt_proj_bias``, ``A_log`` (H, P, N), ``D`` (H, P)); ``conv1d`` (E, 1,
K), biased with ``mamba_conv_bias``; ``in_proj`` Linear(D, 2E) and ``out_proj`` Linear(E, D), biased
with ``mamba_proj_bias``; R = ``mamba_dt_rank`` ("auto": ⌈D / 16⌉). Its cache: a Mamba layer's
``conv_states`` (batch, E, K) and float32 ``recurrent_states`` (batch, H, P, N) (the per-head final
states stacked, lines 608-609); a hybrid layer (``LinearAttentionAndFullAttentionLayer``) those and
keys and values (batch, KV, tokens, d) — the shared block's attention caches at every invocation,
tied or not. No rotary embedding.

A token's matmul FLOPs through the mixer at decode: ``in_proj`` and ``out_proj``, each head's
selection ``x_proj_weight @ x`` and time step ``dt_proj_weight @ dt`` (2·H·P·(R + 2N) and
2·H·P·R), and each head's state readout ``torch.matmul(state, C)`` (2·P·N per head, 2·E·N in all;
``mamba_selective_state_update``, lines 240-273, 539-574).

>>> from derive.tree import count
>>> count(zamba({}))   # ZambaConfig(): Zamba-7B v1's shape
7232490496
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba import dt_rank_auto
from ..layers.conv import conv
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.mlp import gated_mlp
from ..layers.norm import rms_norm
from ..layers.token_flops import projections, register
from ..tree import Dim, Module, Param, State
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, floordiv, kv_heads, layer_list
from .family import Keys, register_family
from .zamba2 import block_types, tied_whole

__all__ = ["KEYS", "zamba", "zamba_mixer"]

#: ``ZambaConfig``'s shape keys and defaults (configuration_zamba.py 62-96).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "tie_word_embeddings": True,
    "hidden_size": 3712,
    "attention_hidden_size": None,
    "intermediate_size": 14848,
    "num_hidden_layers": 76,
    "num_attention_heads": 16,
    "attention_head_dim": None,
    "num_key_value_heads": 16,
    "n_mamba_heads": 2,
    "attn_layer_period": 6,
    "attn_layer_offset": 4,
    "mamba_d_state": 16,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_dt_rank": "auto",
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
    "layers_block_type": None,
}
#: ``ZambaConfig``'s every key at transformers 5.23.0 (configuration_zamba.py): the shape keys with their defaults,
#: the others with why they shape nothing (its ``attribute_map`` names, ``layer_types`` and ``head_dim``, are read
#: as the keys they name, below).
KEYS = Keys(
    "ZambaConfig",
    _DEFAULTS,
    {
        "hidden_mamba_act": "the mixer's activation: no tensor",
        "rms_norm_eps": DECODER_INERT["rms_norm_eps"],
        "num_logits_to_keep": DECODER_INERT["num_logits_to_keep"],
        "max_position_embeddings": DECODER_INERT["max_position_embeddings"],
        "attention_dropout": DECODER_INERT["attention_dropout"],
        "use_mamba_kernels": DECODER_INERT["use_mamba_kernels"],
        "use_associative_scan": "the scan's implementation on the torch path: no tensor",
        "time_step_min": DECODER_INERT["time_step_min"],
        "time_step_max": DECODER_INERT["time_step_max"],
        "time_step_floor": DECODER_INERT["time_step_floor"],
        "layer_types": "the attribute_map name of layers_block_type: read as it",
        "head_dim": "the attribute_map name of attention_head_dim: read as it",
    },
)
_SOURCE = (
    "transformers/models/zamba/configuration_zamba.py 62-120, modeling_zamba.py 114-144, 439-484, 539-609, "
    "617-638, 678-683, 725-730, 841-863, 937-944"
)


def _mixer_flops(module: Module, tokens: Dim) -> Any:
    """In and out projections, each head's selection and time step, and its state readout (module docstring)."""
    per_head = sum((2 * p.numel for p in module.params if p.name in ("x_proj_weight", "dt_proj_weight")), 0)
    _, H, P, N = module.cache[1].shape
    return projections(module, tokens) + per_head + 2 * H * P * N


register("ZambaMambaMixer", _mixer_flops)


def zamba_mixer(D: Dim, E: Dim, N: Dim, K: Dim, R: Dim, H: Dim, *, conv_bias: bool, bias: bool) -> Module:
    """``ZambaMambaMixer``: a Mamba mixer whose selection and time step are per head, with its cache.

    Parameters
    ----------
    D, E, N, K, R, H : int or sympy.Expr
        hidden_size, the inner width (``mamba_expand`` · D), ``mamba_d_state``, ``mamba_d_conv``, the
        dt rank and ``n_mamba_heads`` (dividing E).
    conv_bias, bias : bool
        ``mamba_conv_bias``, ``mamba_proj_bias``.

    Returns
    -------
    derive.tree.Module
        2ED + E(R + 2N) + ER + E + EN + E + EK + cb·E + ED + b·(2E + D) parameters.
    """
    P = floordiv(E, H)
    params = (
        Param("x_proj_weight", (H, R + 2 * N, P)),
        Param("dt_proj_weight", (H, P, R)),
        Param("dt_proj_bias", (H, P)),
        Param("A_log", (H, P, N)),
        Param("D", (H, P)),
    )
    children = (
        conv(E, E, (K,), groups=E, bias=conv_bias, name="conv1d"),
        linear(D, 2 * E, bias, name="in_proj"),
        linear(E, D, bias, name="out_proj"),
    )
    cache = (State("conv_states", ("batch", E, K)), State("recurrent_states", ("batch", H, P, N), "float32"))
    return Module("mamba", "ZambaMambaMixer", params, children, cache=cache)


def _default_pattern(c: Mapping[str, Any], layers: int) -> list[str]:
    period, offset = (
        hf_config.size(c, k, 0 if k.endswith("offset") else 1) for k in ("attn_layer_period", "attn_layer_offset")
    )
    if type(period) is not int or type(offset) is not int:
        raise ValueError(
            "config keys 'attn_layer_period' and 'attn_layer_offset' must be numbers: they fix the pattern"
        )
    if layers < 3:
        raise ValueError(
            f"config key 'num_hidden_layers' ({layers}): ZambaConfig's own pattern has 3 layers or more (give layers_block_type)"
        )
    rest = ["hybrid" if i % period == offset else "linear_attention" for i in range(layers - 3)]
    return ["linear_attention", "linear_attention", "hybrid", *rest]


def zamba(config: Mapping[str, Any]) -> Module:
    """``ZambaForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``ZambaConfig``'s defaults (Zamba-7B v1). Sizes may be SymPy symbols;
        ``num_hidden_layers`` and the pattern keys are numbers (they fix the pattern and the ties).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; a layer kind other than Mamba or hybrid, a pattern of the wrong
        length; ``n_mamba_heads`` not dividing ``mamba_expand * hidden_size``; ``head_dim`` and
        ``attention_head_dim`` (one attribute) disagreeing; one hybrid layer with
        ``tie_word_embeddings`` (transformers refuses to build it); naming the key.
    """
    config = dict(config)
    named = {k: config[k] for k in ("head_dim", "attention_head_dim") if config.get(k) is not None}
    if len(set(named.values())) > 1:
        raise ValueError("config keys 'head_dim' and 'attention_head_dim' disagree (the same attribute)")
    config["attention_head_dim"] = next(iter(named.values()), None)
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the pattern")
    given = config.get("layers_block_type") is not None or config.get("layer_types") is not None
    kinds = block_types(config, L, () if given else _default_pattern(c, L))
    hybrid_ids = [i for i, kind in enumerate(kinds) if kind == "hybrid"]
    tie = hf_config.flag(c, "tie_word_embeddings")
    if tie and len(hybrid_ids) == 1:
        raise ValueError(
            "config key 'tie_word_embeddings': with one hybrid layer transformers' tie of the shared block "
            "finds no other copy and refuses to build (set it false, or give more hybrid layers)"
        )
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    A = 2 * D if not c["attention_hidden_size"] else hf_config.size(c, "attention_hidden_size")
    d = floordiv(2 * D, H) if not c["attention_head_dim"] else hf_config.size(c, "attention_head_dim")
    expand = hf_config.strict_int(c, "mamba_expand", "ZambaConfig")
    Hm, N, K = hf_config.size(c, "n_mamba_heads"), hf_config.size(c, "mamba_d_state"), hf_config.size(c, "mamba_d_conv")
    E = expand * D
    if type(E) is int and type(Hm) is int and E % Hm:
        raise ValueError(f"config key 'n_mamba_heads' ({Hm}) must divide mamba_expand * hidden_size ({E})")
    R = dt_rank_auto(D) if c["mamba_dt_rank"] == "auto" else hf_config.size(c, "mamba_dt_rank")
    flags = {k: hf_config.flag(c, k) for k in ("mamba_conv_bias", "mamba_proj_bias")}

    def mamba_layer(name: str) -> Module:
        mixer = zamba_mixer(D, E, N, K, R, Hm, conv_bias=flags["mamba_conv_bias"], bias=flags["mamba_proj_bias"])
        norm = rms_norm((D,), name="input_layernorm", type="ZambaRMSNorm")
        return Module(name, "ZambaMambaDecoderLayer", children=(mixer, norm))

    def shared_block() -> Module:
        attn = self_attention(A, H, KV, d, type="ZambaAttention")
        attn = attn.replace(children=attn.children[:3] + (linear(H * d, D, False, name="o_proj"),))
        return Module(
            "shared_transf", "ZambaAttentionDecoderLayer",
            children=(
                attn,
                gated_mlp(D, F, name="feed_forward", type="ZambaMLP"),
                rms_norm((A,), name="input_layernorm", type="ZambaRMSNorm"),
                rms_norm((D,), name="pre_ff_layernorm", type="ZambaRMSNorm"),
            ),
        )  # fmt: skip

    def make(kind: tuple[str, bool]) -> Module:
        if kind[0] != "hybrid":
            return mamba_layer("")
        shared = shared_block()
        if kind[1]:  # a later hybrid layer's block, tied whole to the first's
            shared = tied_whole(shared, f"model.layers.{hybrid_ids[0]}.shared_transf")
        # the hybrid layer's projection of the shared block's output: counted with attention
        projection = linear(D, D, False, name="linear").replace(part="attention")
        return Module("", "ZambaHybridLayer", children=(shared, projection, mamba_layer("mamba_decoder")))

    pattern = [(kind, tie and i != (hybrid_ids or [i])[0]) for i, kind in enumerate(kinds)]
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L, "layers_block_type": kinds}
    shape.update(intermediate_size=F, num_attention_heads=H, num_key_value_heads=KV, attention_hidden_size=A)
    shape.update(attention_head_dim=d, mamba_d_state=N, mamba_d_conv=K, mamba_expand=expand, n_mamba_heads=Hm)
    shape.update(mamba_dt_rank=R, **flags, tie_word_embeddings=tie, _fixed=("num_hidden_layers", "layers_block_type"))
    return causal_lm(
        "Zamba", vocab=V, hidden=D, layers=layer_list(make, pattern, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="final_layernorm", type="ZambaRMSNorm"),
    )  # fmt: skip


register_family("zamba", "ZambaConfig", "ZambaForCausalLM", zamba, _SOURCE, keys=KEYS)
