"""Zamba2 (``model_type`` ``zamba2``): Mamba-2 layers, and hybrid layers that add a shared transformer
block — its weights held once per memory block and reused, its LoRA-style adapters per invocation.

``Zamba2ForCausalLM`` (``models/zamba2/modeling_zamba2.py`` 91-106 the rotary embedding, 224-276
``Zamba2Attention``, 653-705 ``Zamba2MambaMixer``, 869-895 ``Zamba2MLP``, 911-920
``Zamba2AttentionDecoderLayer``, 965-970 ``Zamba2MambaDecoderLayer``, 1017-1024
``Zamba2HybridLayer``, 1124-1141 ``Zamba2Model``, 1221-1258 ``get_layers``, 1262-1269): layer i
is a Mamba-2 layer (``mamba``, ``input_layernorm``) or, where ``layers_block_type[i]`` is
``hybrid``, a ``linear`` Linear(D, D), a ``mamba_decoder`` and a ``shared_transformer``:
attention over the concatenation of the input and the original embedding (width 2D: ``q_proj``
Linear(2D, H·d), ``k_proj``/``v_proj`` Linear(2D, KV·d), ``o_proj`` Linear(H·d, D), d =
``attention_head_dim``, 2D // H unless ``head_dim`` is given), a gated MLP (``gate_up_proj``
Linear(D, 2F), ``down_proj`` Linear(F, D), F = ``intermediate_size`` or 4D), ``input_layernorm``
(2D) and ``pre_ff_layernorm`` (D).

The h-th hybrid layer's block has ``block_id`` = h mod ``num_mem_blocks``; its adapters — on
``gate_up_proj`` always, on q/k/v with ``use_shared_attention_adapter`` — are ``Sequential``
(Linear(in, r), Linear(r, out)), r = ``adapter_rank``, one for each hybrid layer j with j mod
``num_mem_blocks`` = ``block_id`` (an ``Identity`` for the others). With ``tie_word_embeddings``
the blocks of hybrid layers past the first ``num_mem_blocks`` are tied, whole, to those of the
first ones in turn (``_tied_weights_keys``, lines 1229-1243): counted once. Without it
transformers ties nothing, not even these blocks: each hybrid layer then holds its own block, as
``named_parameters()`` lists it. The tied blocks still run, and their attention still caches.

The mixer is :func:`derive.blocks.mamba2.mixer` (E = ``mamba_expand`` · D, H = ``n_mamba_heads``,
G = ``mamba_ngroups``; ``conv1d`` always biased, ``use_conv_bias`` is not read; ``in_proj`` and
``out_proj`` biased with ``add_bias_linear``, as are the MLP's). Its cache: a Mamba-2 layer's
``conv_states`` (batch, E + 2GN, K) and float32 ``recurrent_states`` (batch, H, E / H, N); a hybrid
layer (``LinearAttentionAndFullAttentionLayer``) those and keys and values (batch, KV, tokens, d).

>>> from derive.tree import count
>>> count(zamba2({}))   # Zamba2Config() as transformers builds it (the "Zamba2-2.7B style")
2481848336
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba2 import chunk_size, decode_flops, kept_chunk, mixer
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.norm import rms_norm
from ..layers.token_flops import matmul_flops, register
from ..tree import Dim, Module
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, floordiv, kv_heads, layer_list, rope_buffers, rotary_dim
from .family import Keys, register_family

__all__ = ["KEYS", "zamba2", "DEFAULT_PATTERN", "tied_whole", "block_types"]

#: ``Zamba2Config``'s default ``layers_block_type`` (configuration_zamba2.py 115-123): 54 layers, 9 hybrid.
DEFAULT_PATTERN = (
    ["linear_attention"]
    + (["linear_attention"] * 5 + ["hybrid"]) * 7
    + ["linear_attention"] * 4
    + ["hybrid"]
    + ["linear_attention"] * 3
    + ["hybrid"]
    + ["linear_attention"] * 2
)
_KINDS = {"linear_attention": "linear_attention", "mamba": "linear_attention", "hybrid": "hybrid"}

#: ``Zamba2Config``'s shape keys and defaults (configuration_zamba2.py 72-108).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 2560,
    "num_hidden_layers": 54,
    "layers_block_type": None,
    "mamba_d_state": 64,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_ngroups": 1,
    "n_mamba_heads": 8,
    "add_bias_linear": False,
    "intermediate_size": None,
    "num_attention_heads": 32,
    "num_key_value_heads": None,
    "num_mem_blocks": 1,
    "use_shared_attention_adapter": False,
    "adapter_rank": 128,
    "use_mem_rope": False,
    "tie_word_embeddings": True,
    "head_dim": None,
}
#: ``Zamba2Config``'s every key at transformers 5.23.0 (configuration_zamba2.py): the shape keys with their defaults,
#: the others with why they shape nothing (its ``attribute_map`` names, ``layer_types`` and ``head_dim``, are read
#: as the keys they name, below).
KEYS = Keys(
    "Zamba2Config",
    # attention_head_dim is the attribute head_dim maps to (read as head_dim); the three keys __post_init__ derives
    # and saves change the tensors when a saved value disagrees (a saved value wins): refused then, named (below)
    {
        **_DEFAULTS,
        "attention_head_dim": None,
        "attention_hidden_size": None,
        "mamba_headdim": None,
        "hybrid_layer_ids": None,
    },
    {
        "max_position_embeddings": DECODER_INERT["max_position_embeddings"],
        "time_step_min": DECODER_INERT["time_step_min"],
        "time_step_max": DECODER_INERT["time_step_max"],
        "time_step_floor": DECODER_INERT["time_step_floor"],
        "use_mamba_kernels": DECODER_INERT["use_mamba_kernels"],
        "use_conv_bias": "conv1d is built with bias=True whatever it says (modeling_zamba2.py): no tensor",
        "chunk_size": "the Mamba-2 scan's chunk length: no tensor",
        "use_mem_eff_path": "which fused kernel path the mixer runs: no tensor",
        "attention_dropout": DECODER_INERT["attention_dropout"],
        "rms_norm_eps": DECODER_INERT["rms_norm_eps"],
        "num_logits_to_keep": DECODER_INERT["num_logits_to_keep"],
        "use_long_context": "the rotary embedding's context scaling: buffers only",
        "rope_theta": DECODER_INERT["rope_theta"],
        "rope_parameters": DECODER_INERT["rope_parameters"],
        "rope_scaling": DECODER_INERT["rope_scaling"],
        "layer_types": "the attribute_map name of layers_block_type: read as it",
        "kv_channels": "derived by __post_init__ and saved with the config; no module reads it",
        "num_query_groups": "derived by __post_init__ and saved with the config; no module reads it",
    },
)
_SOURCE = (
    "transformers/models/zamba2/configuration_zamba2.py 72-131, modeling_zamba2.py 91-106, 224-276, 653-705, "
    "869-920, 965-970, 1017-1024, 1124-1141, 1221-1269"
)


def tied_whole(module: Module, prefix: str) -> Module:
    """``module`` with every parameter tied to the same name under ``prefix``: a shared block tied
    whole to its first copy (Zamba's and Zamba2's ``shared_transf``/``shared_transformer``).

    Parameters
    ----------
    module : derive.tree.Module
    prefix : str
        The first copy's dotted name (``"model.layers.2.shared_transformer"``).

    Returns
    -------
    derive.tree.Module
        Counted once (its parameters are the first copy's); its cache is still its own.
    """
    params = tuple(p if p.buffer else replace(p, tied_to=f"{prefix}.{p.name}") for p in module.params)
    children = tuple(tied_whole(child, f"{prefix}.{child.name}") for child in module.children)
    return module.replace(params=params, children=children)


def _adapters(name: str, hybrids: int, block: int, blocks: int, width: Dim, rank: Dim, out: Dim) -> Module:
    """An adapter list: ``Sequential(Linear(width, rank), Linear(rank, out))`` at j mod blocks = block."""
    entries = tuple(
        Module(
            str(j), "Sequential", children=(linear(width, rank, False, name="0"), linear(rank, out, False, name="1"))
        )
        for j in range(hybrids)
        if j % blocks == block
    )
    return Module(name, "ModuleList", children=entries)


def _adapted(module: Module, tokens: Dim) -> Any:
    """FLOPs of a shared block's part at one invocation: its own projections, and of each adapter list
    the one adapter that layer runs (``self.linear_q_adapter_list[adapter_layer_idx]``, lines 295-299,
    903); attention's scores and weighted values by the rule of :func:`self_attention`."""
    lists = [c for c in module.children if c.type == "ModuleList"]
    rest = tuple(c for c in module.children if c.type != "ModuleList")
    own = module.replace(type="Attention" if module.type == "Zamba2Attention" else "Module", children=rest)
    return matmul_flops(own, tokens) + sum((matmul_flops(a.children[0], tokens) for a in lists if a.children), 0)


register("Zamba2Attention", _adapted)
register("Zamba2MLP", _adapted)


def block_types(config: Mapping[str, Any], layers: Any, default: Sequence[str] = DEFAULT_PATTERN) -> list[str]:
    """Each layer's kind, ``"linear_attention"`` (a Mamba layer) or ``"hybrid"``, from
    ``layers_block_type`` or its attribute-map name ``layer_types`` (``"mamba"`` read as
    ``"linear_attention"``, as ``remap_legacy_layer_types`` reads it).

    Parameters
    ----------
    config : mapping
        The config as given.
    layers : int
        ``num_hidden_layers``.
    default : sequence of str
        The config class's pattern when neither key is given.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        The two keys disagree, a kind other than a Mamba or a hybrid layer, a pattern of the wrong length.
    """
    given = {k: config[k] for k in ("layers_block_type", "layer_types") if config.get(k) is not None}
    if len(given) == 2 and given["layers_block_type"] != given["layer_types"]:
        raise ValueError("config keys 'layers_block_type' and 'layer_types' disagree (the same attribute)")
    key, kinds = next(iter(given.items()), ("layers_block_type", default))
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or any(k not in _KINDS for k in kinds):
        raise ValueError(f"config key {key!r} must list {sorted(_KINDS)}, got {kinds!r:.80}")
    if len(kinds) != layers:
        raise ValueError(f"config key {key!r} has {len(kinds)} entries for num_hidden_layers={layers!r}")
    return [_KINDS[k] for k in kinds]


def _derived(config: Mapping[str, Any], key: str, value: Any) -> None:
    """A key ``__post_init__`` derives and saves: a saved value must be the derived one."""
    if key in config and config[key] != value:
        raise ValueError(f"config key {key!r} ({config[key]!r:.60}) is not the value transformers derives ({value!r:.60})")  # fmt: skip


def zamba2(config: Mapping[str, Any]) -> Module:
    """``Zamba2ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Zamba2Config``'s defaults (``layers_block_type`` its 54-layer pattern).
        Sizes may be SymPy symbols; ``num_hidden_layers`` and ``num_mem_blocks`` are numbers (they
        fix the pattern and the ties).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; a layer kind other than Mamba-2 or hybrid, a pattern of the wrong
        length; ``n_mamba_heads`` not dividing ``mamba_expand * hidden_size`` (the mixer's reshape
        fails); a saved ``attention_hidden_size``, ``mamba_headdim`` or ``hybrid_layer_ids`` other
        than the derived one; a rotary embedding derive does not know; naming the key.
    """
    config = dict(config)
    for key in ("head_dim", "attention_head_dim"):  # one attribute: set after __post_init__, it wins
        if config.get(key) is not None:
            config["head_dim"] = config[key]
    c = KEYS.resolve(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L, blocks = hf_config.size(c, "num_hidden_layers", 0), hf_config.size(c, "num_mem_blocks")
    if type(L) is not int or type(blocks) is not int:
        raise ValueError("config keys 'num_hidden_layers' and 'num_mem_blocks' must be numbers: they fix the pattern")
    kinds = block_types(config, L)
    hybrid_ids = [i for i, kind in enumerate(kinds) if kind == "hybrid"]
    F = 4 * D if not c["intermediate_size"] else hf_config.size(c, "intermediate_size")
    H = hf_config.size(c, "num_attention_heads")
    KV = kv_heads(c, H)
    d = floordiv(2 * D, H) if c["head_dim"] is None else hf_config.size(c, "head_dim")
    expand = hf_config.strict_int(c, "mamba_expand", "Zamba2Config")
    Hm, G = hf_config.size(c, "n_mamba_heads"), hf_config.size(c, "mamba_ngroups")
    N, K = hf_config.size(c, "mamba_d_state"), hf_config.size(c, "mamba_d_conv")
    E = expand * D
    if type(E) is int and type(Hm) is int and E % Hm:
        raise ValueError(f"config key 'n_mamba_heads' ({Hm}) must divide mamba_expand * hidden_size ({E})")
    P = floordiv(E, Hm)
    _derived(config, "attention_hidden_size", 2 * D)
    _derived(config, "mamba_headdim", P)
    _derived(config, "hybrid_layer_ids", hybrid_ids)
    r = hf_config.size(c, "adapter_rank")
    flags = {k: hf_config.flag(c, k) for k in ("add_bias_linear", "use_shared_attention_adapter", "use_mem_rope")}
    tie, bias = hf_config.flag(c, "tie_word_embeddings"), flags["add_bias_linear"]
    rotated = rotary_dim(config, d, 1.0, plain_reads_factor=False, given=True)  # head_dim is always set
    hybrids = len(hybrid_ids)

    def mamba_layer(name: str) -> Module:
        mamba = mixer(
            D, N, K, expand, P, ngroups=G, nheads=Hm, chunk=chunk_size(config, "chunk_size", 256), bias=bias,
            conv_bias=True, spelling="transformers",
            name="mamba", type="Zamba2MambaMixer", norm_type="Zamba2RMSNormGated",
        )  # fmt: skip
        norm = rms_norm((D,), name="input_layernorm", type="Zamba2RMSNorm")
        return Module(name, "Zamba2MambaDecoderLayer", children=(mamba, norm))

    def shared_block(block: int) -> Module:
        attn = self_attention(2 * D, H, KV, d)  # its FLOPs rule is "Attention"'s (see _adapted)
        children = attn.children[:3] + (linear(H * d, D, False, name="o_proj"),)
        if flags["use_shared_attention_adapter"]:
            children += tuple(
                _adapters(f"linear_{x}_adapter_list", hybrids, block, blocks, 2 * D, r, 2 * D) for x in "qkv"
            )
        mlp: tuple[Module, ...] = (linear(D, 2 * F, bias, name="gate_up_proj"), linear(F, D, bias, name="down_proj"))
        mlp += (_adapters("gate_up_proj_adapter_list", hybrids, block, blocks, D, r, 2 * F),)
        return Module(
            "shared_transformer", "Zamba2AttentionDecoderLayer",
            children=(
                attn.replace(type="Zamba2Attention", children=children),
                Module("feed_forward", "Zamba2MLP", children=mlp, part="MLP"),
                rms_norm((2 * D,), name="input_layernorm", type="Zamba2RMSNorm"),
                rms_norm((D,), name="pre_ff_layernorm", type="Zamba2RMSNorm"),
            ),
        )  # fmt: skip

    def make(kind: tuple[str, int]) -> Module:
        if kind[0] != "hybrid":
            return mamba_layer("")
        h = kind[1]
        shared = shared_block(h % blocks)
        if tie and h >= blocks:
            shared = tied_whole(shared, f"model.layers.{hybrid_ids[h % blocks]}.shared_transformer")
        # the hybrid layer's own projection of the shared block's output: counted with attention
        # (the shared block's attention is what that layer adds to the Mamba stream)
        projection = linear(D, D, False, name="linear").replace(part="attention")
        children = (projection, mamba_layer("mamba_decoder"), shared)
        return Module("", "Zamba2HybridLayer", children=children)

    pattern = [("hybrid", hybrid_ids.index(i)) if kind == "hybrid" else ("mamba", 0) for i, kind in enumerate(kinds)]
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L, "layers_block_type": kinds}
    shape.update(intermediate_size=F, num_attention_heads=H, num_key_value_heads=KV, head_dim=d)
    shape.update(mamba_d_state=N, mamba_d_conv=K, mamba_expand=expand, mamba_ngroups=G, n_mamba_heads=Hm)
    shape.update(num_mem_blocks=blocks, adapter_rank=r, **flags, tie_word_embeddings=tie)
    shape["_fixed"] = ("num_hidden_layers", "num_mem_blocks")
    shape.update(kept_chunk(config, shape, "chunk_size"))
    rope = config.get("rope_parameters")
    if isinstance(rope, Mapping):  # what shapes the buffers: the type and the factor
        shape["rope_parameters"] = {"rope_type": rope.get("rope_type", rope.get("type", "default"))}
        if "partial_rotary_factor" in rope:
            shape["rope_parameters"]["partial_rotary_factor"] = float(rope["partial_rotary_factor"])
    return causal_lm(
        "Zamba2", vocab=V, hidden=D, layers=layer_list(make, pattern, L), tie=tie, config=shape,
        norm=rms_norm((D,), name="final_layernorm", type="Zamba2RMSNorm"),
        rotary=rope_buffers(rotated) if flags["use_mem_rope"] else (),
    )  # fmt: skip


register("Zamba2MambaMixer", decode_flops)
register_family("zamba2", "Zamba2Config", "Zamba2ForCausalLM", zamba2, _SOURCE, keys=KEYS)
