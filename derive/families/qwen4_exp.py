"""Qwen4-Exp's text model (``model_type`` ``qwen4_exp_text``): Gated DeltaNet layers and gated attention with a
QSA token indexer, a mixture of experts with a gated shared expert in every layer, and hyper-connections —
``hc_count`` residual streams mixed before and after each block — in place of the layer norms.

``Qwen4ExpForCausalLM`` (``models/qwen4_exp/modeling_qwen4_exp.py`` 74-113 the rotary embedding, 141-150
``Qwen4ExpTextRMSNorm``, 464-508 ``Qwen4ExpTextGatedDeltaNet``, 670-688 ``Qwen4ExpTextQSAIndexer``, 812-837
``Qwen4ExpTextAttention``, 898-995 the MLP, experts, router and sparse-MoE block, 997-1006
``Qwen4ExpTextGatedResidual``, 1254-1268 ``Qwen4ExpTextDecoderLayer``, 1360-1378 ``Qwen4ExpTextModel``,
1578-1590): layer i's mixer is ``linear_attn`` (:func:`derive.blocks.gated_deltanet.gated_deltanet`,
spelling ``qwen4_exp``) where ``layer_types[i]`` is ``"linear_attention"``, else ``self_attn`` —
``q_proj`` Linear(D, 2·H·d) (the query and its gate), ``k_proj``/``v_proj`` Linear(D, KV·d), ``o_proj``, all
biased with ``attention_bias``, ``q_norm``/``k_norm`` (d), and ``indexer``: ``index_qk_proj`` Linear(D,
(n + 1)·i) (n = ``indexer_n_heads`` query heads and one key head of i = ``indexer_head_dim``),
``q_layernorm``/``k_layernorm`` (i). Every layer's ``mlp`` is ``gate`` (E, D), ``experts`` (E =
``num_experts``, k = ``num_experts_per_tok``, width ``moe_intermediate_size``), ``shared_expert`` (a gated
MLP of ``shared_expert_intermediate_size``) and ``shared_expert_gate`` Linear(D, 1); then
``attn_hyper_connection`` and ``mlp_hyper_connection``: ``hc_norm`` (S = ``hc_count`` · D, normalised in
groups of D), ``input_mix_weight_down`` Linear(S, r), ``input_mix_weight_up`` Linear(r, S) (r =
``hc_lowrank``) and ``block_inject_weight`` Linear(S, ``hc_count``). The model ends with
``hyper_connection_mixer`` (the same without ``block_inject_weight``) and no final norm; ``lm_head``
untied by default.

The pattern, as ``Qwen4ExpTextConfig.__post_init__`` makes it (``configuration_qwen4_exp.py`` 159-177):
``layer_types`` as given ("full_attention" read as "indexed_attention"), else indexed attention where (i +
1) % ``full_attention_interval`` (default 4) = 0. An indexed layer needs every ``indexer_*`` key (without
them transformers cannot build the indexer). Per-layer n-gram embeddings (``ple_layer_ids``) are not
derived: refused, by name.

Its cache: ``conv_states`` (model dtype) and float32 ``recurrent_states`` per Gated DeltaNet layer; per
indexed layer (``DynamicIndexedLayer``, ``cache_utils.py`` 316-350) keys and values (batch, KV, tokens, d)
and the indexer's keys (batch, tokens, i); the first indexed layer also keeps every token's int64 rotary
positions, (3, batch, tokens), which all the indexers read (lines 1429-1436).

A token's matmul FLOPs (:func:`indexer_flops`): the Gated DeltaNet layers' by
:func:`derive.blocks.gated_deltanet.decode_flops`; the indexed layers' attention over all T keys (the
indexer's selection is a mask over full attention, not a gather: 4·H·d·T, as
:func:`derive.layers.lm_attention.attention_flops`) plus the indexer's scores against the ⌊T / c⌋
complete compressed blocks (c = ``indexer_compress_ratio``), 2·n·i·⌊T / c⌋; the top-k budget picks
blocks without a product. The routed experts' k of E, the shared expert, its gate, the router and the
hyper-connections' three (two in the mixer) Linears as any others. The first token (no state yet) adds the
Gated DeltaNet's chunked path.

>>> from derive.tree import count, active
>>> qsa = {"indexer_n_heads": 1, "indexer_kv_heads": 1, "indexer_head_dim": 256, "indexer_budget": 4,
...        "indexer_compress_ratio": 2}
>>> model = qwen4_exp_text(qsa)   # Qwen4ExpTextConfig() with the indexer's keys (not a released config)
>>> count(model), active(model)
(67332120192, 4165901952)
>>> from derive.analysis.cost import model_cost   # FlopCounterMode's counts of transformers' decode step
>>> model_cost(model, 4096, 1).flops_per_token, model_cost(model, 1, 1).flops_per_token
(7992934400, 16371220480)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.gated_deltanet import gated_deltanet
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.lm_attention import attention_flops, self_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..layers.token_flops import matmul_flops, register
from ..tree import Dim, Module, State
from .decoder import INERT as DECODER_INERT
from .decoder import ROPE_KEYS, floordiv, kv_heads, layer_list, rope_buffers, rotary_dim
from .family import Keys, register_family

__all__ = ["KEYS", "qwen4_exp_text", "indexer_flops"]

#: ``Qwen4ExpTextConfig``'s shape keys and defaults (configuration_qwen4_exp.py 101-157).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 248320,
    "hidden_size": 2048,
    "num_hidden_layers": 40,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "head_dim": 256,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "num_experts_per_tok": 10,
    "num_experts": 512,
    "layer_types": None,
    "full_attention_interval": 4,
    "hc_count": 4,
    "hc_lowrank": 320,
    "ple_layer_ids": None,
    "indexer_n_heads": None,
    "indexer_kv_heads": None,
    "indexer_head_dim": None,
    "indexer_budget": None,
    "indexer_compress_ratio": None,
    "output_gate_type": None,
}
_INDEXER = ("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget", "indexer_compress_ratio")
#: ``Qwen4ExpTextConfig``'s every key at transformers 5.23.0 (configuration_qwen4_exp.py 101-264): the shape keys with
#: their defaults, the others with why they shape nothing.
KEYS = Keys(
    "Qwen4ExpTextConfig",
    _DEFAULTS,
    {
        **{
            k: DECODER_INERT[k]
            for k in (
                "max_position_embeddings",
                "rms_norm_eps",
                "attention_dropout",
                "output_router_logits",
                "router_aux_loss_coef",
                *ROPE_KEYS,
            )
        },
        "norm_topk_prob": "whether the chosen experts' weights are renormalised: no tensor",
        "number_of_conv_states": "derived by __post_init__ from ple_layer_ids and saved: read as that is",
        **dict.fromkeys(
            (
                "ple_embed_dim",
                "ple_conv_kernel_size",
                "ngram_size",
                "heads_per_ngram",
                "ngram_vocab_size_base",
                "make_ngram_vocab_size_divisible_by",
                "seed",
                "split_ngram_parts",
            ),
            "a key of the n-gram (per-layer) embeddings: with no ple_layer_ids (the only case derived; others are "
            "refused) no module reads it",
        ),
    },
)
_LEGACY = {"full_attention": "indexed_attention", "qwen_sparse_attention": "indexed_attention"}
_SOURCE = (
    "transformers/models/qwen4_exp/configuration_qwen4_exp.py 101-264, modeling_qwen4_exp.py 74-113, 141-150, "
    "464-508, 670-688, 812-837, 898-1006, 1254-1268, 1360-1378, 1578-1590; cache_utils.py 316-350"
)


def _kinds(c: Mapping[str, Any], layers: int) -> list[str]:
    kinds = c["layer_types"]
    if kinds is None:
        interval = hf_config.size(c, "full_attention_interval")
        if type(interval) is not int:
            raise ValueError("config key 'full_attention_interval' must be a number: it fixes the layer pattern")
        return ["linear_attention" if (i + 1) % interval else "indexed_attention" for i in range(layers)]
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or len(kinds) != layers:
        raise ValueError(f"config key 'layer_types' must list num_hidden_layers ({layers}) types, got {kinds!r:.60}")
    kinds = [_LEGACY.get(k, k) for k in kinds]
    if any(k not in ("linear_attention", "indexed_attention") for k in kinds):
        raise ValueError(f"config key 'layer_types' must hold linear_attention or indexed_attention, got {kinds!r:.80}")
    return kinds


def _indexer(c: Mapping[str, Any], rotated: Dim) -> dict[str, Any]:
    """The QSA keys, checked as ``validate_architecture`` checks them (configuration_qwen4_exp.py 225-246)."""
    missing = [k for k in _INDEXER if c[k] is None]
    if missing:
        raise ValueError(f"config keys {missing} are needed: an indexed_attention layer builds the QSA indexer")
    sizes = {k: hf_config.size(c, k) for k in _INDEXER}
    if sizes["indexer_kv_heads"] != 1:
        raise ValueError("config key 'indexer_kv_heads' must be 1 (Qwen4-Exp's QSA has one key head)")
    budget, ratio = sizes["indexer_budget"], sizes["indexer_compress_ratio"]
    if type(budget) is int and type(ratio) is int and budget % ratio:
        raise ValueError(f"config key 'indexer_budget' ({budget}) must be a multiple of indexer_compress_ratio ({ratio})")  # fmt: skip
    if type(rotated) is int and type(sizes["indexer_head_dim"]) is int and rotated > sizes["indexer_head_dim"]:
        raise ValueError(f"config key 'indexer_head_dim' must hold the rotated width ({rotated})")
    return sizes


def indexer_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through ``Qwen4ExpTextQSAIndexer``: ``index_qk_proj``'s 2·D·(n + 1)·i and
    the scores of its n query heads against the ⌊T / c⌋ compressed blocks, 2·n·i·⌊T / c⌋.

    ``modeling_qwen4_exp.py`` 690-772: per sequence and per query (the loops at 726-727) the visible
    tokens are those the causal mask leaves (718, 728-730: all T cached ones, none padded); their first
    ⌊T / c⌋·c tokens make ⌊T / c⌋ complete blocks of c = ``indexer_compress_ratio`` (731-736), whose
    keys are averaged, normalised and rotated (738-747: element-wise, no product); ``scores =
    torch.matmul(q[batch_idx, query_idx].float(), block_key_states.float().transpose(-1, -2))`` (749-751)
    is one ``mm`` of (n, i) by (i, ⌊T / c⌋), n = ``indexer_n_heads``, i = ``indexer_head_dim``. The
    budget (``scores.topk(min(block_topk, num_complete_blocks))``, 754) and the tail of fewer than c
    tokens only choose indices: no product. With no complete block (T < c: the first token, unless c = 1) no
    ``matmul`` runs at all.

    The selection is then a mask, not a gather: ``Qwen4ExpTextAttention.forward`` (840-895) fills the
    unselected keys' scores with the dtype's minimum (854) and runs the eager attention over every
    cached key (``eager_attention_forward``, 787-809: ``query @ key^T`` and ``weights @ value``, 800 and
    806), so ``Qwen4ExpTextAttention`` costs :func:`derive.layers.lm_attention.attention_flops` over all T
    keys (its projections, this indexer's included, and 4·H·d·T) whatever ``indexer_budget`` is.

    Parameters
    ----------
    module : derive.tree.Module
        The indexer, its :attr:`~derive.tree.Module.config` giving ``n_heads``, ``head_dim`` and
        ``compress_ratio``.
    tokens : int or sympy.Expr
        T, the tokens in the cache once this one is in (1: a sequence's first token).

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs; ``floor(T/c)`` in a closed form.

    Examples
    --------
    >>> model = qwen4_exp_text({"indexer_n_heads": 2, "indexer_kv_heads": 1, "indexer_head_dim": 256,
    ...                         "indexer_budget": 8, "indexer_compress_ratio": 4})
    >>> indexer = model.child("model").child("layers").children[-1].child("self_attn").child("indexer")
    >>> indexer_flops(indexer, 1), indexer_flops(indexer, 4096) - indexer_flops(indexer, 1)   # 2·2·256·1024
    (3145728, 1048576)
    """
    c = module.config
    own = sum((matmul_flops(child, tokens) for child in module.children), 0)
    return own + 2 * c["n_heads"] * c["head_dim"] * floordiv(tokens, c["compress_ratio"])


register("Qwen4ExpTextQSAIndexer", indexer_flops)
register("Qwen4ExpTextAttention", attention_flops)


def _hyper(name: str, streams: Dim, rank: Dim, count: Dim, combine: bool = True) -> Module:
    """``Qwen4ExpTextGatedResidual``: a grouped norm of the streams, a low-rank mix and (``combine``) the block's injection."""
    children: tuple[Module, ...] = (
        rms_norm((streams,), name="hc_norm", type="Qwen4ExpTextRMSNorm"),
        linear(streams, rank, False, name="input_mix_weight_down"),
        linear(rank, streams, False, name="input_mix_weight_up"),
    )
    if combine:
        children += (linear(streams, count, False, name="block_inject_weight"),)
    return Module(name, "Qwen4ExpTextGatedResidual", children=children, part="hyper-connections")


def qwen4_exp_text(config: Mapping[str, Any]) -> Module:
    """``Qwen4ExpForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it from a ``qwen4_exp_text`` config.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen4ExpTextConfig``'s defaults (whose indexed layers need the ``indexer_*``
        keys given: its defaults alone do not build).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map; ``ple_layer_ids`` (the n-gram embeddings are not derived); an
        indexed layer without the ``indexer_*`` keys or with values transformers refuses; ``hc_count``
        below 2; more experts per token than experts; an output gate other than sigmoid or SiLU;
        naming the key.
    """
    config = dict(config)
    if config.get("ple_layer_ids"):
        raise ValueError("config key 'ple_layer_ids': Qwen4-Exp's per-layer n-gram embeddings (PLE) are not derived")
    c = KEYS.resolve(config)
    V, D = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size")
    L = hf_config.size(c, "num_hidden_layers", 0)
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    H, d = hf_config.size(c, "num_attention_heads"), hf_config.size(c, "head_dim")
    KV = kv_heads(c, H)
    lin = {k: hf_config.size(c, k) for k in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim", "linear_conv_kernel_dim")}  # fmt: skip
    E, k = hf_config.size(c, "num_experts"), hf_config.size(c, "num_experts_per_tok")
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds num_experts ({E})")
    Fe, Fs = hf_config.size(c, "moe_intermediate_size"), hf_config.size(c, "shared_expert_intermediate_size")
    hc, r = hf_config.size(c, "hc_count", 2), hf_config.size(c, "hc_lowrank")
    gate_act = c["output_gate_type"] or config.get("hidden_act", "silu")
    if gate_act not in ("sigmoid", "silu"):
        raise ValueError(f"config key 'output_gate_type' (or hidden_act): {gate_act!r} is not sigmoid or silu")
    bias, tie = hf_config.flag(c, "attention_bias"), hf_config.flag(c, "tie_word_embeddings")
    kinds = _kinds(c, L)
    rotated = rotary_dim(config, d, 1.0, given=True)
    qsa = _indexer(c, rotated) if "indexed_attention" in kinds else {}
    first_indexed = kinds.index("indexed_attention") if qsa else -1

    def attention(first: bool) -> Module:
        attn = self_attention(D, H, KV, d, bias=bias, qk_norm=True, gated=True, norm_type="Qwen4ExpTextRMSNorm")
        i, n = qsa["indexer_head_dim"], qsa["indexer_n_heads"]
        indexer = Module(
            "indexer", "Qwen4ExpTextQSAIndexer",
            children=(
                linear(D, (n + 1) * i, False, name="index_qk_proj"),
                rms_norm((i,), name="q_layernorm", type="Qwen4ExpTextRMSNorm"),
                rms_norm((i,), name="k_layernorm", type="Qwen4ExpTextRMSNorm"),
            ),
            config={"n_heads": n, "head_dim": i, "compress_ratio": qsa["indexer_compress_ratio"]},
        )  # fmt: skip
        # its own class (its FLOPs: attention's over every cached key, the indexer's by indexer_flops)
        cache = attn.cache + (State("indexer_keys", ("batch", "tokens", i)),)
        if first:  # the positions every indexer reads, kept once (modeling_qwen4_exp.py 1429-1436)
            cache += (State("indexer_position_ids", (3, "batch", "tokens"), "int64"),)
        return attn.replace(type="Qwen4ExpTextAttention", children=attn.children + (indexer,), cache=cache)

    def make(layer: tuple[str, bool]) -> Module:
        kind, first = layer
        if kind == "linear_attention":
            mixer = gated_deltanet(
                D, lin["linear_num_key_heads"], lin["linear_num_value_heads"], lin["linear_key_head_dim"],
                lin["linear_value_head_dim"], lin["linear_conv_kernel_dim"], spelling="qwen4_exp",
            )  # fmt: skip
        else:
            mixer = attention(first)
        mlp = moe_block(
            router(D, E, name="gate", type="Qwen4ExpTextTopKRouter"),
            routed_experts(D, Fe, E, k, type="Qwen4ExpTextExperts"),
            gated_mlp(D, Fs, name="shared_expert", type="Qwen4ExpTextMLP"),
            linear(D, 1, False, name="shared_expert_gate").replace(part="shared experts"),
            type="Qwen4ExpTextSparseMoeBlock",
        )
        hyper = (_hyper("attn_hyper_connection", hc * D, r, hc), _hyper("mlp_hyper_connection", hc * D, r, hc))
        return Module("", "Qwen4ExpTextDecoderLayer", children=(mixer, mlp, *hyper))

    body = (
        embedding(V, D, name="embed_tokens"),
        layer_list(make, [(kind, i == first_indexed) for i, kind in enumerate(kinds)], L),
        Module("rotary_emb", "Qwen4ExpTextRotaryEmbedding", rope_buffers(rotated)),
        _hyper("hyper_connection_mixer", hc * D, r, hc, combine=False),
    )
    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "num_hidden_layers": L, "num_attention_heads": H}
    shape.update(num_key_value_heads=KV, head_dim=d, **lin, num_experts=E, num_experts_per_tok=k)
    shape.update(moe_intermediate_size=Fe, shared_expert_intermediate_size=Fs, hc_count=hc, hc_lowrank=r, **qsa)
    shape.update(attention_bias=bias, tie_word_embeddings=tie, layer_types=kinds)
    shape["_fixed"] = ("num_hidden_layers", "layer_types", "indexer_kv_heads")  # the last is 1: no letter
    model = Module("model", "Qwen4ExpTextModel", children=body)
    head = hf_config.lm_head(D, V, "model.embed_tokens.weight" if tie else None)
    return Module("", "Qwen4ExpForCausalLM", children=(model, head), config=shape)


register_family(
    "qwen4_exp_text",
    "Qwen4ExpTextConfig",
    "Qwen4ExpForCausalLM",
    qwen4_exp_text,
    _SOURCE,
    package="qwen4_exp",
    keys=KEYS,
)
