"""One GPU's share: each rank's tensors and cache under tensor parallelism (``tp``) and pipeline stages (``pp``).

A model served on ``tp`` × ``pp`` devices holds on each one a slice of its weights and of its cache.
:func:`plan` gives each rank's tensors (named as transformers names them, with their shape on the
rank) and each rank's cache states, sharded **as vLLM shards them**: the transformers names are
matched by the part of the model each module is (:attr:`derive.tree.Module.part`) and its
children's names, the rules those of transformers' ``base_model_tp_plan`` where it has them
(``"layers.*.self_attn.q_proj": "colwise"`` ...), completed from vLLM where transformers does not
share them. Every rank of a stage holds the same sizes (a size ``tp`` does not divide is refused).

==========================  =================================================================================
tensors                     on one rank (vLLM's layer; transformers 5.23.0's style)
==========================  =================================================================================
``q_proj``, attention       ``ColumnParallelLinear`` / ``QKVParallelLinear``: H / tp heads (weight rows,
``sinks``                   bias); transformers ``colwise``
``k_proj``, ``v_proj``      ``QKVParallelLinear``: KV / tp heads; with tp >= KV one head a rank, each head
                            replicated on tp / KV ranks (``num_kv_heads = 1``, ``num_kv_head_replicas =
                            divide(tp_size, total_num_kv_heads)``, ``vllm/model_executor/layers/linear.py``,
                            ``QKVParallelLinear.__init__``). transformers' ``colwise`` splits the rows of
                            ``k_proj`` instead, inside a head when tp > KV (transformers #48307): derive
                            follows vLLM
``qkv_proj`` (Phi-3)        ``QKVParallelLinear``'s three segments: (H / tp + 2 · KV on a rank) · d rows
``o_proj``                  ``RowParallelLinear``: the input columns / tp, the bias whole; ``rowwise``
``q_norm``, ``k_norm``      replicated (one head's width); ``replicated_with_grad_allreduce``
``gate_proj``, ``up_proj``  ``MergedColumnParallelLinear``: F / tp rows (Phi-3's fused ``gate_up_proj``
                            2F / tp); ``colwise``
``down_proj``               ``RowParallelLinear``: F / tp columns; ``rowwise`` (StarCoder2's ``c_fc``,
                            ``c_proj``, and Granite-4.0-H's shared MLP ``input_linear``, ``output_linear``:
                            vLLM's ``GraniteMoeSharedMLP``, ``models/granitemoeshared.py`` 53-66, the same two)
routed experts              ``FusedMoE`` with tensor parallelism inside each expert (vLLM's default,
                            ``enable_expert_parallel`` off): every rank holds all E experts, each F / tp
                            wide — ``w13`` (E, 2F / tp, D), ``w2`` (E, D, F / tp)
                            (``vllm/model_executor/layers/fused_moe/layer.py``,
                            ``intermediate_size_per_partition``); transformers ``packed_colwise`` on
                            ``gate_up_proj``, ``rowwise`` on ``down_proj`` (``moe_tp_experts``)
Mamba mixers                ``MambaMixer`` (``vllm/model_executor/layers/mamba/mamba_mixer.py``): the
                            intermediate size E / tp — ``in_proj`` ``MergedColumnParallelLinear`` (2E / tp
                            rows), ``conv1d`` ``ColumnParallelLinear`` (E / tp channels), ``x_proj`` and
                            ``out_proj`` ``RowParallelLinear`` (E / tp columns), ``dt_proj``
                            ``ColumnParallelLinear``, ``A`` (E / tp, N) and ``D`` (E / tp); the conv and SSM
                            states E / tp channels (kept in transformers' layout). transformers has no plan
                            for them
Mamba-2 mixers (Mamba-2,    ``MambaMixer2`` (``vllm/model_executor/layers/mamba/mamba_mixer2.py``, vLLM 0.33.0,
Bamba, Nemotron-H,          commit 4ba787ec9): H / tp heads (``assert num_heads % self.tp_size == 0``, line 316)
Falcon-H1, Granite-4.0-H,   with B and C's G groups / tp, or, when tp does not divide G, one group only
Zamba2's mixer)             (``assert (n_groups % self.tp_size) == 0 or n_groups == 1``, 320) replicated to
                            follow the head shards: G' = G + ``extra_groups_for_head_shards`` = tp
                            (333-341; ``mamba_utils.py`` 261-269). conv_dim' = I + 2G'N (I the intermediate
                            size, N the state): ``conv1d`` conv_dim' / tp channels, ``in_proj`` (I + conv_dim' +
                            H) / tp rows — ``MergedColumnParallelLinear`` when G divides (346-371),
                            ``ColumnParallelLinear`` with ``mamba_v2_sharded_weight_loader`` otherwise (376-390,
                            style ``groups_colwise``); ``dt_bias``, ``A_log``, ``D`` H / tp (481-488); the gated
                            norm I / tp (``Mixer2RMSNormGated``, 105, 112); ``out_proj`` ``RowParallelLinear``
                            (498). States (``mamba2_state_shape``, ``mamba_utils.py`` 186-211): conv_dim' / tp
                            conv channels, the SSM state (H / tp, P, N), kept in transformers' layout (K wide;
                            vLLM keeps K - 1). With a replicated group the tp ranks together hold more than the
                            model (each its copy of B and C). Bamba: vLLM 0.23.0 was the last to serve it
                            (``_PREVIOUSLY_SUPPORTED_MODELS``, ``models/registry.py`` 860), with the same
                            ``MambaMixer2`` (``models/bamba.py``, commit 7e1c150e). An older ``mamba_mixer2.py``
                            (commit 004d4e4c) replicated any G (tp - G mod tp more); derive follows 0.33.0.
                            transformers has no plan for them
Gated DeltaNet              ``QwenGatedDeltaNetAttention`` (``vllm/model_executor/layers/mamba/gdn/``
(Qwen3-Next, Qwen3.5)       ``qwen_gdn_linear_attn.py``, vLLM 0.33.0; Qwen3-Next's and Qwen3.5's decoder layers
                            build it: ``models/qwen3_next.py`` 501, ``qwen3_5.py`` 150): H_k / tp key heads a
                            rank, each with its H_v / H_k value heads — ``in_proj_qkvz`` (Qwen3.5:
                            ``in_proj_qkv``, ``in_proj_z``) and ``in_proj_ba`` (``in_proj_b``, ``in_proj_a``)
                            ``MergedColumnParallelLinear`` rows / tp (803-851), ``conv1d``
                            ``ColumnParallelLinear`` (2H_k·d_k + H_v·d_v) / tp channels (597), ``dt_bias`` and
                            ``A_log`` H_v / tp (646-655), ``out_proj`` ``RowParallelLinear`` (675); the gated
                            norm (d_v) whole (``RMSNormGated``, 666). A tp that does not divide H_k is refused,
                            naming ``linear_num_key_heads``: each rank views its rows as ``num_k_heads //
                            tp_size`` key-head groups (888, 957), none replicated. States
                            (``gated_delta_net_state_shape``, ``mamba_utils.py`` 272-293): conv (2H_k·d_k +
                            H_v·d_v) / tp channels, recurrent (H_v / tp, d_k, d_v) (vLLM's (d_v, d_k), the same
                            size). transformers' plan differs (``colwise_gather_output`` on the input
                            projections and on ``out_proj``, ``conv1d`` and the state whole): derive follows vLLM
routed experts, ``ep``      ``--enable-expert-parallel`` (EP size = tp): whole experts, E // tp each and one
                            more on the first E mod tp ranks (``determine_expert_map``, linear placement,
                            ``fused_moe/layer.py``); a stage's tensors are its first rank's, the most loaded.
                            transformers' ``base_model_ep_plan`` (``grouped_gemm``) with ``ep_size`` = tp
latent attention (MLA)      ``DeepseekV2MLAAttention`` (``vllm/model_executor/models/deepseek_v2.py``):
                            ``q_a_proj``, ``kv_a_proj_with_mqa`` ``ReplicatedLinear``, their norms whole;
                            ``q_b_proj`` (or ``q_proj``), ``kv_b_proj`` ``ColumnParallelLinear`` (H / tp
                            heads), ``o_proj`` ``RowParallelLinear``; the latent cache (``kv_lora_rank`` +
                            ``qk_rope_head_dim`` a token) whole on every rank: one latent "head", no head
                            to split (vLLM's MLA layers keep ``num_kv_heads`` 1). transformers' plan for
                            DeepSeek-V3 leaves the attention whole
DeepSeek-V3.2's indexer     ``Indexer`` (``vllm/model_executor/models/deepseek_v2.py``, vLLM 0.33.0): whole on
                            every rank — ``wq_b`` ``ReplicatedLinear`` ("no tensor parallel, just replicated",
                            lines 702-709), ``wk`` and ``weights_proj`` fused in one
                            ``MergedColumnParallelLinear`` with ``disable_tp=True`` (712-719), ``k_norm`` (720);
                            its key cache one head on every rank (``DeepseekV32IndexerCache``: ``num_kv_heads=1,
                            max_tp_shards=1``, 658-666). vLLM keeps it in fp8 with a float32 scale per 128
                            entries (731-732): a format, not a share; derive counts it as transformers holds it
Kimi-Linear's KDA          ``KimiGatedDeltaNetAttention`` (``vllm/model_executor/layers/mamba/gdn/``
                            ``kimi_gdn_linear_attn.py``, vLLM 0.33.0; Kimi-Linear's decoder layer builds it without
                            a full-rank gate: ``vllm/models/kimi_k3/nvidia/model.py`` 715-734): H / tp heads of d
                            (P = H·d; ``assert self.num_heads % self.tp_size == 0``, 189) — ``q_proj``, ``k_proj``,
                            ``v_proj``, ``b_proj`` and ``f_a_proj`` loaded into one merged projection
                            (``in_proj_qkvgfab``, 212-226; the mapping ``model.py`` 1256-1263): P / tp rows each,
                            ``b_proj`` H / tp, ``f_a_proj`` (d) whole on every rank (``replicated_shard_id=4``:
                            its rows reserved tp times and loaded from rank 0, 95-113); ``f_b_proj``, ``g_b_proj``
                            ``ColumnParallelLinear`` P / tp rows (230-236, 297-303); ``g_a_proj``
                            ``ReplicatedLinear`` (290-296); ``dt_bias`` P / tp (237-241), ``A_log`` H / tp (265-268;
                            kept in transformers' (1, 1, H, 1)); ``conv1d`` a ``ColumnParallelLinear`` of 3P
                            outputs, each of q, k, v split (245-263: 3P / tp channels); ``o_norm`` (d) whole
                            (304), ``o_proj`` ``RowParallelLinear`` (305-311). States (``kda_state_shape``,
                            ``mamba_utils.py`` 296-318): conv 3P / tp channels (K wide in transformers' layout;
                            vLLM keeps K - 1), recurrent (H / tp, d, d). vLLM holds ``conv1d`` and ``dt_bias`` in
                            float32 (a format: derive counts them at the model's dtype). Its MLA layers
                            (``vllm/models/kimi_k3/nvidia/mla.py`` 262-303) as latent attention below, its MLPs
                            split (``KimiMLP`` replicates them only under sequence parallelism, which needs data
                            parallelism or DeepGEMM's MegaMoE: ``model.py`` 708-713). transformers has no plan
LFM2's short convolutions  ``ShortConv`` (``vllm/model_executor/layers/mamba/short_conv.py``, vLLM 0.33.0; built by
(LFM2, LFM2-MoE)            ``models/lfm2.py`` 354-362 with ``config.conv_dim``, ``models/lfm2_moe.py`` 343-351 with
                            ``hidden_size``): D / tp channels — ``conv`` a ``ColumnParallelLinear`` of D outputs
                            (57-62, its weight (D / tp, 1, L)), ``in_proj`` a ``MergedColumnParallelLinear`` of
                            three D outputs, B, C and x (69-75: 3D / tp rows), ``out_proj`` ``RowParallelLinear``
                            (76-82: D / tp columns, the bias whole); the conv state D / tp channels
                            (``short_conv_state_shape``: ``divide(intermediate_size, tp_world_size)``,
                            ``mamba_utils.py`` 249-258; kept in transformers' layout, L wide: vLLM keeps L - 1).
                            transformers has no plan for them. LFM3 (no vLLM model in 0.33.0) is refused
LFM2's attention and MLP    ``Lfm2Attention``, ``Lfm2MoeAttention``: ``q_proj``, ``k_proj``, ``v_proj`` loaded into
                            one ``QKVParallelLinear`` (``models/lfm2.py`` 142-150, the mapping 404-413), ``out_proj``
                            ``RowParallelLinear`` (151-157), ``q_layernorm``, ``k_layernorm`` a head's width whole
                            (173-174; ``lfm2_moe.py`` 212-243 the same): split as ``q_proj`` ... ``o_proj`` above.
                            ``Lfm2MLP``, ``Lfm2MoeMLP``: ``w1``, ``w3`` loaded into ``w13``, a
                            ``MergedColumnParallelLinear`` (F / tp rows each), ``w2`` ``RowParallelLinear``
                            (``lfm2.py`` 80-93, ``lfm2_moe.py`` 73-86); LFM2-MoE's experts as routed experts
                            above, its router ``GateLinear`` a ``ReplicatedLinear``
                            (``fused_moe/router/gate_linear.py`` 22), and a tp above ``num_experts`` refused
                            (``Lfm2MoeSparseMoeBlock``, ``lfm2_moe.py`` 110-114)
Zamba2's shared block       ``models/zamba2.py`` (vLLM 0.33.0): the shared attention (``Zamba2Attention``,
                            ``QKVParallelLinear`` of H heads, as many KV, 165-172; ``o_proj`` ``RowParallelLinear``,
                            173-179; H / tp heads, 149-150) and MLP (``Zamba2MLP``: ``gate_up_proj``
                            ``MergedColumnParallelLinear``, ``down_proj`` ``RowParallelLinear``, 334-348) split as
                            above, their norms whole (455-457); each LoRA adapter (``Zamba2LoRA``, 79-104; one an
                            entry of ``linear_{q,k,v}_adapter_list``, 208-243, ``gate_up_proj_adapter_list``,
                            359-371): A (transformers' ``0``) a ``ColumnParallelLinear`` of ``adapter_rank`` / tp
                            rows (``gather_output=True``), B (``1``) a ``ColumnParallelLinear`` (the MLP's a
                            ``MergedColumnParallelLinear`` of 2 · F) of rows / tp; the hybrid layer's ``linear``
                            a ``ReplicatedLinear``, whole (635-641). Each hybrid layer's KV cache H / tp heads
                            (its own ``Attention`` in ``dpa_list``, 187-205). The shared tensors counted once, on
                            the first hybrid layer; pipeline stages refused (``Zamba2ForCausalLM`` has no
                            ``SupportsPP``, 833; ``vllm/config/model.py`` 1569-1576)
router, shared-expert gate  replicated (``ReplicatedLinear``)
norms                       replicated
``embed_tokens``            ``VocabParallelEmbedding``: the vocabulary padded to a multiple of 64
``lm_head``                 (``DEFAULT_VOCAB_PADDING_SIZE = 64``, ``pad_vocab_size``: lines 16–22 of
                            ``vllm/model_executor/layers/vocab_parallel_embedding.py`` at commit
                            7f5d141a), then divided by tp (``num_embeddings_per_partition =
                            divide(num_embeddings_padded, tp_size)``, which refuses a padded vocabulary tp
                            does not divide); ``ParallelLMHead`` likewise, tied to the embedding where the
                            config ties them. transformers pads nothing (``colwise_gather_output`` on
                            ``lm_head``)
==========================  =================================================================================

The cache of an attention layer on a rank: its keys and values of KV / tp heads (one head with tp >=
KV: vLLM's ``num_kv_heads``, which sizes its KV cache), a sliding window's int64 scalar whole.

**Pipeline stages** (``pp``): the decoder layers split as vLLM's ``get_pp_indices``
(``vllm/distributed/utils.py``): L // pp layers each, the L mod pp left over given one each to the
stages before the last, from the second-to-last backwards; the embedding on the first stage, the
final norm and the head on the last (with tied embeddings the last stage holds the embedding too,
as ``LlamaModel.__init__`` builds ``embed_tokens`` on the last rank when ``tie_word_embeddings``).
Stages differ: :class:`Plan` gives each; a memory budget must hold on every stage.

**Each device's bytes** (:class:`Share`, :attr:`derive.analysis.cost.Cost.stages`): a stage's rank holds
its tensors at the model's dtype (:func:`derive.analysis.stored.weight_bytes`) and its states as served
(:func:`derive.analysis.cache.nbytes`); the ``rank_*`` figures are the most loaded stage's
(:func:`most_loaded`), and a memory budget is one device's, held on every stage
(:attr:`Share.device`, :class:`derive.analysis.fit.Fit`).

Refused (ValueError, naming the config key or the module): a size tp does not divide
(``num_attention_heads``, ``num_key_value_heads``, ``intermediate_size``, the experts' width, the
padded ``vocab_size``, a Mamba-2 mixer's heads — ``num_heads``, ``mamba_n_heads`` (Bamba, Falcon-H1,
Granite-4.0-H), ``mamba_num_heads`` (Nemotron-H), ``n_mamba_heads`` (Zamba2) — or its groups when more
than one, ``linear_num_key_heads``, a short convolution's channels ``hidden_size``, Zamba2's ``adapter_rank``,
LFM2-MoE's ``num_experts`` below tp, Kimi-Linear's ``linear_num_heads``); a module derive has no rule for
(GPT-2's fused ``c_attn``, other recurrent and linear-attention mixers — RWKV, xLSTM, Bailing-hybrid's KDA,
MiniMax's lightning attention (vLLM 0.33.0 no longer serves MiniMax-Text-01 or MiniMax-M1), LFM3's short
convolutions, OLMo-hybrid's Gated DeltaNet —, Nemotron-3's latent experts, vision towers...: never guessed, each
named as what it is), symbolic sizes, more stages than layers, pipeline stages of Zamba2.

Verification: ``tests/analysis/test_parallel.py`` holds each rank's tensors against transformers'
own tensor parallelism run on CPU (``torch.distributed`` with gloo, 2 and 4 processes,
``PreTrainedModel.maybe_distribute_model`` — what ``from_pretrained(..., tp_plan="auto")`` calls —
each rank's ``DTensor.to_local()`` shapes and its cache after a forward) where the rules agree, and
checks vLLM's own rules (vocabulary padding, KV-head replication, stages, the Mamba-2 and Gated DeltaNet
mixers, KDA, the indexer, LFM2's short convolutions, Zamba2's shared block) by hand-computed cases from the cited
lines.

>>> from derive.families.llama import llama
>>> p = plan(llama({"num_hidden_layers": 2, "num_key_value_heads": 8}), tp=16)
>>> p.kv_heads, p.vocab
((8, 1, 2), (32000, 32000))
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..tree import Module, Param, State, named_modules
from . import cache as _cache
from . import fit as _fit
from . import stored as _stored
from .served import Served

__all__ = [
    "VOCAB_PADDING",
    "EXPERT_MODE",
    "pad_vocab_size",
    "pp_indices",
    "RankTensor",
    "Stage",
    "Plan",
    "check_sizes",
    "plan",
    "Share",
    "most_loaded",
    "described",
]

#: vLLM's ``DEFAULT_VOCAB_PADDING_SIZE``: the vocabulary of the embedding and the head is padded to a multiple of it.
VOCAB_PADDING = 64

#: How routed experts are split (said in the JSON): vLLM's default, and with ``ep`` its expert parallelism.
EXPERT_MODE = "tensor parallel inside each expert (vLLM's default FusedMoE, enable_expert_parallel off)"
EXPERT_PARALLEL = (
    "expert parallel: ceil(E / tp) whole experts on the most loaded device (vLLM's --enable-expert-parallel, "
    "determine_expert_map's linear placement)"
)

_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)(?:\.|$)")


def pad_vocab_size(vocab_size: int, pad_to: int = VOCAB_PADDING) -> int:
    """The vocabulary padded as vLLM pads it: up to a multiple of ``pad_to``.

    Parameters
    ----------
    vocab_size : int
    pad_to : int, default 64

    Returns
    -------
    int

    Examples
    --------
    >>> pad_vocab_size(32000), pad_vocab_size(151936), pad_vocab_size(50257)
    (32000, 151936, 50304)
    """
    return -(-vocab_size // pad_to) * pad_to


def pp_indices(num_layers: int, stage: int, pp: int) -> tuple[int, int]:
    """The layers [start, end) of pipeline stage ``stage`` of ``pp``, as vLLM's ``get_pp_indices`` gives them.

    Parameters
    ----------
    num_layers, stage, pp : int

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> [pp_indices(10, s, 4) for s in range(4)]
    [(0, 2), (2, 5), (5, 8), (8, 10)]
    """
    partitions = [num_layers // pp] * pp
    for i in range(2, num_layers % pp + 2):
        partitions[-i] += 1
    start = sum(partitions[:stage])
    return start, start + partitions[stage]


@dataclass(frozen=True, slots=True)
class RankTensor:
    """One tensor on one rank.

    Attributes
    ----------
    name : str
        Its full name, as transformers names it (``model.layers.0.self_attn.q_proj.weight``).
    shape : tuple of int
        The whole tensor's shape.
    rank_shape : tuple of int
        Its shape on one rank.
    style : str
        How it is split: ``colwise``, ``rowwise``, ``kv_colwise`` (heads, replicated when tp > KV),
        ``groups_colwise`` (a Mamba-2 mixer's heads, its one group of B and C replicated on every rank),
        ``vocab`` (padded), ``experts_colwise``, ``experts_rowwise``, ``experts_ep``, ``replicated``.
    """

    name: str
    shape: tuple[int, ...]
    rank_shape: tuple[int, ...]
    style: str

    @property
    def numel(self) -> int:
        """Entries on one rank."""
        total = 1
        for d in self.rank_shape:
            total *= d
        return total


@dataclass(frozen=True, slots=True)
class Stage:
    """One pipeline stage: what each of its tp ranks holds.

    Attributes
    ----------
    index : int
    layers : (int, int)
        The decoder layers [start, end) it runs.
    tensors : tuple of RankTensor
    states : tuple of derive.tree.State
        Its cache states on one rank (one entry per layer copy).
    """

    index: int
    layers: tuple[int, int]
    tensors: tuple[RankTensor, ...]
    states: tuple[State, ...]

    @property
    def parameters(self) -> int:
        """Parameters one rank of the stage holds."""
        return sum(t.numel for t in self.tensors)


@dataclass(frozen=True)
class Plan:
    """Each stage's share under ``tp`` × ``pp`` devices (:func:`plan`).

    Attributes
    ----------
    tp, pp : int
    stages : tuple of Stage
    vocab : (int, int) or None
        The vocabulary and its padded size (None: no embedding or head split).
    kv_heads : (int, int, int) or None
        KV heads of the model, on one rank, and the ranks each one is replicated on (None: no attention).
    """

    tp: int
    pp: int
    stages: tuple[Stage, ...]
    vocab: tuple[int, int] | None
    kv_heads: tuple[int, int, int] | None


def _split(size: int, tp: int, what: str) -> int:
    if size % tp:
        raise ValueError(f"tp={tp} does not divide {what} = {size:,}: vLLM refuses it (divide() asserts it divides)")
    return size // tp


def _ints(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if not all(type(d) is int for d in shape):
        raise ValueError("tp and pp need int sizes (a model read from a config, not a symbolic one)")
    return shape


def _heads(module: Module, path: str, tp: int) -> tuple[int, int, int, int]:
    """(H / tp, KV on a rank, replicas, d) of an attention module, checked as vLLM checks them."""
    c = module.config
    heads, kv, d = c.get("num_heads"), c.get("num_kv_heads"), c.get("head_dim")
    if not (type(heads) is int and type(kv) is int and type(d) is int):
        raise ValueError(f"{module.type} {path}: its heads are not known as ints, no tensor-parallel share derived")
    per_rank = _split(heads, tp, f"num_attention_heads of {path}")
    if tp >= kv:
        if tp % kv:
            raise ValueError(
                f"tp={tp} is not a multiple of num_key_value_heads ({kv}) of {path}: vLLM replicates a KV head "
                "on tp / num_key_value_heads ranks (QKVParallelLinear), which must divide"
            )
        return per_rank, 1, tp // kv, d
    return per_rank, _split(kv, tp, f"num_key_value_heads of {path}"), 1, d


#: What derive splits (said when it refuses a module).
_SPLIT = (
    "derive splits attention (latent attention and DeepSeek-V3.2's indexer too), MLPs, routed experts, Mamba and "
    "Mamba-2 mixers, Qwen's Gated DeltaNet, Kimi-Linear's KDA, LFM2's short convolutions, Zamba2's shared block, "
    "embeddings, the head and norms as vLLM does; not yet other recurrent, linear-attention or convolution mixers (RWKV, "
    "xLSTM, Bailing-hybrid's KDA, lightning attention, LFM3's short convolutions, OLMo-hybrid's Gated DeltaNet...), "
    "or vision towers"
)
_ATTENTION = {"q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm", "qkv_proj"}
#: Attention whose children transformers names otherwise, by its class: its names for o_proj, q_norm, k_norm (vLLM's
#: Lfm2Attention and Lfm2MoeAttention: ``out_proj`` a RowParallelLinear, ``q_layernorm``, ``k_layernorm`` RMSNorm of a
#: head's width, ``models/lfm2.py`` 151-157, 173-174; ``models/lfm2_moe.py`` 221-227, 242-243).
_LFM2_NAMES = {"out_proj": "o_proj", "q_layernorm": "q_norm", "k_layernorm": "k_norm"}
_RENAMED = {"Lfm2Attention": _LFM2_NAMES, "Lfm2MoeAttention": _LFM2_NAMES}
#: Zamba2's shared attention's LoRA adapters (vLLM's Zamba2LoRA on q, k and v, ``models/zamba2.py`` 208-243).
_ZAMBA2_ADAPTERS = ("linear_q_adapter_list", "linear_k_adapter_list", "linear_v_adapter_list")
#: Kimi-Linear's KDA (vLLM's KimiGatedDeltaNetAttention, ``layers/mamba/gdn/kimi_gdn_linear_attn.py``): each child's
#: style and its rows in H·d (P) and H, or None (whole).
_KdaRows = dict[str, tuple[int, int] | str | None]
_KDA: _KdaRows = {"q_proj": (1, 0), "k_proj": (1, 0), "v_proj": (1, 0), "b_proj": (0, 1), "conv1d": (3, 0),
                  "g_a_proj": None, "g_b_proj": (1, 0), "o_norm": None, "o_proj": "rowwise"}  # fmt: skip
_KDA_GATE: _KdaRows = {"f_a_proj": None, "f_b_proj": (1, 0)}
#: LFM2's short convolutions (vLLM's ShortConv, ``vllm/model_executor/layers/mamba/short_conv.py``).
_SHORT_CONV = ("Lfm2ShortConv", "Lfm2MoeShortConv")
#: MLPs of w1 (gate), w3 (up) and w2 (down): vLLM's Lfm2MLP and Lfm2MoeMlp (``w13`` a MergedColumnParallelLinear of the
#: two, ``w2`` a RowParallelLinear: ``models/lfm2.py`` 80-93, ``models/lfm2_moe.py`` 73-86).
_W13_MLPS = ("Lfm2MLP", "Lfm2MoeMLP")
_W13 = {"w1": "colwise", "w3": "colwise", "w2": "rowwise"}
#: Latent attention's tensors (vLLM's DeepseekV2MLAAttention, ``vllm/model_executor/models/deepseek_v2.py``).
_LATENT = {"q_a_proj": "replicated", "q_a_layernorm": "replicated", "q_b_proj": "colwise", "q_proj": "colwise",
           "kv_a_proj_with_mqa": "replicated", "kv_a_layernorm": "replicated", "kv_b_proj": "colwise",
           "o_proj": "rowwise"}  # fmt: skip
#: DeepSeek-V3.2's indexer's projections (vLLM's Indexer: each replicated).
_INDEXER = ("wq_b", "wk", "weights_proj")
#: Mamba (1) mixers: transformers' MambaMixer, FalconMambaMixer, JambaMambaMixer (vLLM's MambaMixer).
_MAMBA = ("MambaMixer", "FalconMambaMixer", "JambaMambaMixer")
_MAMBA_CHILDREN = {"in_proj": "colwise", "conv1d": "colwise", "x_proj": "rowwise", "dt_proj": "colwise",
                   "out_proj": "rowwise"}  # fmt: skip
_MAMBA_WIDTH = "the Mamba mixer's intermediate size (intermediate_size, or mamba_expand x hidden_size)"
#: Mamba-2 mixers (vLLM's MambaMixer2), by transformers' class: the config's keys of their heads and their groups.
_MAMBA2 = {
    "Mamba2Mixer": ("num_heads", "n_groups"),
    "BambaMixer": ("mamba_n_heads", "mamba_n_groups"),
    "GraniteMoeHybridMambaLayer": ("mamba_n_heads", "mamba_n_groups"),
    "FalconH1Mixer": ("mamba_n_heads", "mamba_n_groups"),
    "NemotronHMamba2Mixer": ("mamba_num_heads", "n_groups"),
    "Zamba2MambaMixer": ("n_mamba_heads", "mamba_ngroups"),
}
#: Gated DeltaNet as vLLM's QwenGatedDeltaNetAttention holds it, by the block's spelling (its class is
#: :data:`derive.blocks.gated_deltanet.SPELLINGS`): each projection's rows, in key heads (H_k·d_k = K), value heads
#: (H_v·d_v = V) and H_v — Qwen3-Next's fused in_proj_qkvz and in_proj_ba; Qwen3.5's four projections, loaded into
#: the same two.
_QWEN3_5_ROWS = {"in_proj_qkv": (2, 1, 0), "in_proj_z": (0, 1, 0), "in_proj_b": (0, 0, 1), "in_proj_a": (0, 0, 1)}
_GATED_DELTANET_ROWS = {
    "qwen3_next": {"in_proj_qkvz": (2, 2, 0), "in_proj_ba": (0, 0, 2)},
    "qwen3_5": _QWEN3_5_ROWS,
    "qwen3_5_moe": _QWEN3_5_ROWS,
}


@functools.cache
def _gated_deltanet() -> dict[str, dict[str, tuple[int, int, int]]]:
    """:data:`_GATED_DELTANET_ROWS` by the mixer's class (the block imported when a plan first asks)."""
    from ..blocks.gated_deltanet import SPELLINGS

    return {SPELLINGS[spelling][0]: rows for spelling, rows in _GATED_DELTANET_ROWS.items()}


_MLP = {"gate_proj": "colwise", "up_proj": "colwise", "gate_up_proj": "colwise", "down_proj": "rowwise",
        "c_fc": "colwise", "c_proj": "rowwise", "input_linear": "colwise", "output_linear": "rowwise"}  # fmt: skip
#: The fused gate and up projections (vLLM's MergedColumnParallelLinear of two: each half split).
_GATE_UP = (".gate_up_proj", ".input_linear")


@dataclass(frozen=True, slots=True)
class _Rows:
    """A child's rows on a rank as its mixer's rule worked them out: ``whole`` rows in the model, ``rank`` on each."""

    whole: int
    rank: int


class _Rules:
    """The style of every parameter of the tree, module by module (parents before children)."""

    def __init__(self, tp: int, ep: bool = False) -> None:
        self.tp = tp
        self.ep = ep
        self.styles: dict[str, tuple[str, Any]] = {}  # a child's path -> (style, argument)
        self.kv: tuple[int, int, int] | None = None
        self.vocab: tuple[int, int] | None = None
        self.heads_of: dict[str, tuple[int, int]] = {}  # an attention's path -> (KV, KV on a rank)
        self.mixers: dict[str, str] = {}  # a recurrent mixer's path -> what its own tensors' rows are (split by tp)
        self.states_of: dict[str, dict[str, tuple[Any, ...]]] = {}  # a mixer's path -> its states' shapes on a rank
        self.no_pp: str | None = None  # why vLLM serves the model in one pipeline stage only
        self.own_of: dict[str, dict[str, tuple[int, ...]]] = {}  # a module's path -> its own tensors' shapes on a rank

    def module(self, path: str, module: Module) -> Iterator[tuple[str, Param, str, tuple[int, ...]]]:
        """Each own counted tensor of ``module``: (name, param, style, shape on a rank)."""
        own = [p for p in module.params if p.counted]
        if not module.counted:
            raise ValueError(f"{module.type} {path} is not counted: no tensor-parallel share derived")
        given = self.styles.pop(path, None)
        if module.part == "attention" and given is None:
            self._attention(path, module)
        elif module.part in ("MLP", "shared experts") and module.children:
            self._mlp(path, module)
        elif module.type in _MAMBA:
            self._mamba(path, module)
        elif module.type in _MAMBA2:
            self._mamba2(path, module)
        elif module.type in _gated_deltanet():
            self._gated_deltanet(path, module)
        elif module.type == "KimiLinearDeltaAttention":
            self._kda(path, module)
        elif module.type == "MiniMaxLightningAttention":
            raise ValueError(
                f"no tensor-parallel rule for {module.type} ({path}), MiniMax's lightning attention: vLLM 0.33.0 no "
                "longer serves MiniMax-Text-01 or MiniMax-M1 (_PREVIOUSLY_SUPPORTED_MODELS, "
                "vllm/model_executor/models/registry.py 861-863: last served by vLLM 0.23.0)"
            )
        elif module.type in _SHORT_CONV:
            self._short_conv(path, module)
        elif module.type == "Zamba2HybridLayer":
            self._hybrid(path, module)
        elif module.type == "Lfm2MoeSparseMoeBlock":
            self._lfm2_moe(path, module)
        if given is None and module.cache and module.part != "attention" and path not in self.states_of:
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}) and its cache: {_SPLIT}")
        for p in own:
            name = f"{path}.{p.name}" if path else p.name
            shape = _ints(p.shape)
            style, rank = self._param(path, module, p, shape, given)
            yield name, p, style, rank

    def _latent(self, path: str, module: Module) -> None:
        """Multi-head latent attention as vLLM's DeepseekV2MLAAttention splits it: the A projections and their
        norms replicated, q_b_proj (or q_proj) and kv_b_proj H / tp heads, o_proj's columns; the latent cache whole."""
        heads = module.config.get("num_heads")
        if type(heads) is not int:
            raise ValueError(f"{module.type} {path}: its heads are not known as ints, no tensor-parallel share derived")
        _split(heads, self.tp, f"num_attention_heads of {path}")
        if self.kv is not None and self.kv != (1, 1, self.tp):
            raise ValueError(f"the attention layers differ in KV heads ({path}): no tensor-parallel share derived")
        self.kv = (1, 1, self.tp)
        self.heads_of[path] = (1, 1)
        for child in module.children:
            if child.name == "indexer":
                self._indexer(f"{path}.indexer", child)
                continue
            style = _LATENT[child.name]
            self.styles[f"{path}.{child.name}"] = (style, None)

    def _indexer(self, path: str, module: Module) -> None:
        """DeepSeek-V3.2's indexer as vLLM's Indexer holds it: whole on every rank (wq_b a ReplicatedLinear, wk and
        weights_proj one MergedColumnParallelLinear with disable_tp, k_norm), its key cache one head, whole."""
        kids = {c.name: c for c in module.children}
        linears = {n for n, c in kids.items() if c.part != "norms"}
        if (
            module.type != "DeepseekV32Indexer"
            or linears != set(_INDEXER)
            or any(kids[n].type != "Linear" for n in linears)
            or any(p.counted for p in module.params)
            or [s.name for s in module.cache] != ["indexer_keys"]
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its tensors are not the indexer's")
        for name in _INDEXER:
            self.styles[f"{path}.{name}"] = ("replicated", None)
        self.states_of[path] = {s.name: s.shape for s in module.cache}

    def _attention(self, path: str, module: Module) -> None:
        rename = _RENAMED.get(module.type, {})
        adapters = {
            c.name: c for c in module.children if module.type == "Zamba2Attention" and c.name in _ZAMBA2_ADAPTERS
        }
        names = {rename.get(c.name, c.name) for c in module.children if c.name not in adapters}
        latent = names - {"indexer"}  # DeepSeek-V3.2's indexer beside the latent attention
        if latent <= set(_LATENT) and {"kv_a_proj_with_mqa", "kv_b_proj", "o_proj"} <= latent:
            return self._latent(path, module)
        split = {"q_proj", "k_proj", "v_proj", "o_proj"} <= names and "qkv_proj" not in names
        fused = {"qkv_proj", "o_proj"} <= names and not names & {"q_proj", "k_proj", "v_proj"}
        if not names <= _ATTENTION or not (split or fused):
            what = f"attention of {', '.join(sorted(names))}" if names else "a bare module counted as attention"
            raise ValueError(
                f"no tensor-parallel rule for {module.type} ({path}), {what}: derive splits attention of q_proj, "
                "k_proj, v_proj, o_proj (and q_norm, k_norm) as vLLM does"
            )
        per_rank, kv_rank, replicas, d = _heads(module, path, self.tp)
        kv = module.config["num_kv_heads"]
        if self.kv is not None and self.kv != (kv, kv_rank, replicas):
            raise ValueError(f"the attention layers differ in KV heads ({path}): no tensor-parallel share derived")
        self.kv = (kv, kv_rank, replicas)
        self.heads_of[path] = (kv, kv_rank)
        for name, adapter in adapters.items():  # Zamba2LoRA(attention_hidden_size, adapter_rank, attention_hidden_size)
            self._lora(f"{path}.{name}", adapter, f"num_attention_heads x attention_head_dim of {path}", 1)
        for child in module.children:
            if child.name in adapters:
                continue
            role = rename.get(child.name, child.name)
            style = "replicated" if role in ("q_norm", "k_norm") else "colwise"
            arg: Any = None
            if role == "qkv_proj":  # Phi-3's fused q, k, v: QKVParallelLinear's three segments
                heads = module.config["num_heads"]
                style, arg = "kv_colwise", ((heads + 2 * kv) * d, (per_rank + 2 * kv_rank) * d)
            elif role in ("k_proj", "v_proj"):
                width = d if role == "k_proj" else module.config.get("value_dim", d)
                style, arg = "kv_colwise", (kv * width, kv_rank * width)
            elif role == "o_proj":
                style = "rowwise"
            self.styles[f"{path}.{child.name}"] = (style, arg)

    def _lora(self, path: str, module: Module, width: str, halves: int) -> None:
        """Zamba2's LoRA adapters as vLLM's Zamba2LoRA holds them (``models/zamba2.py`` 79-104): each entry's A
        (transformers' ``0``) a ColumnParallelLinear of adapter_rank / tp rows (gathered after), its B (``1``) a
        ColumnParallelLinear (the MLP's a MergedColumnParallelLinear of the gate's and the up's halves) of rows / tp."""
        tp = self.tp
        for entry in module.children:
            kids = {c.name: c for c in entry.children}
            if (
                module.type != "ModuleList"
                or entry.type != "Sequential"
                or set(kids) != {"0", "1"}
                or any(c.type != "Linear" or [p.name for p in c.params] != ["weight"] for c in kids.values())
            ):
                raise ValueError(
                    f"no tensor-parallel rule for {entry.type} ({path}.{entry.name}): not a LoRA adapter of Zamba2's "
                    "(a Linear A then a Linear B, no bias)"
                )
            rank = _ints(_weight(kids["0"]).shape)[0]
            rows = _ints(_weight(kids["1"]).shape)[0]
            at = f"{path}.{entry.name}"
            _split(rank, tp, f"adapter_rank (the rows of {at}.0, Zamba2LoRA's A)")
            _split(rows // halves, tp, f"{width} (the rows of {at}.1, Zamba2LoRA's B)")
            self.styles[f"{at}.0"] = ("colwise", _Rows(rank, rank // tp))
            self.styles[f"{at}.1"] = ("colwise", _Rows(rows, rows // tp))

    def _hybrid(self, path: str, module: Module) -> None:
        """Zamba2's hybrid layer: its ``linear`` (D -> D, after the shared block) a ReplicatedLinear, whole on every
        rank (``models/zamba2.py`` 635-641); vLLM serves Zamba2 without pipeline stages (no SupportsPP, 833)."""
        linear = next((c for c in module.children if c.name == "linear"), None)
        if (
            linear is None
            or linear.type != "Linear"
            or linear.children
            or any(p.name != "weight" for p in linear.params)
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its linear is not Zamba2's")
        self.styles[f"{path}.linear"] = ("replicated", None)
        self.no_pp = (
            "vLLM serves Zamba2 in one pipeline stage: Zamba2ForCausalLM does not implement SupportsPP "
            "(models/zamba2.py 833; vllm/config/model.py 1569-1576 refuses pipeline_parallel_size > 1)"
        )

    def _lfm2_moe(self, path: str, module: Module) -> None:
        """vLLM's Lfm2MoeSparseMoeBlock refuses a tp above the experts (``models/lfm2_moe.py`` 110-114)."""
        experts = next((c for c in module.children if c.part == "routed experts"), None)
        sizes = [] if experts is None else [_ints(p.shape)[0] for p in experts.params if p.name == "gate_up_proj"]
        if len(sizes) != 1:
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its experts are not LFM2-MoE's")
        if self.tp > sizes[0]:
            raise ValueError(
                f"tp={self.tp} is more than num_experts = {sizes[0]} of {path}: vLLM's Lfm2MoeSparseMoeBlock refuses "
                "a tensor-parallel size greater than the number of experts"
            )

    def _kda(self, path: str, module: Module) -> None:
        """Kimi-Linear's KDA as vLLM's KimiGatedDeltaNetAttention splits it: H / tp heads a rank in q, k, v, b and the
        gates' B projections, the conv (3·H·d channels) and the states; f_a_proj, g_a_proj and the norm whole."""
        kids = {c.name: c for c in module.children}
        gate = kids.get("forget_gate")
        gate_kids = {} if gate is None else {c.name: c for c in gate.children}
        states = {s.name: s.shape for s in module.cache}
        gate_own = {} if gate is None else {p.name: _ints(p.shape) for p in gate.params if p.counted}
        if (
            set(kids) != {*_KDA, "forget_gate"}
            or any(kids[n].type != "Linear" for n in _KDA if n not in ("conv1d", "o_norm"))
            or kids["conv1d"].type != "Conv1d"
            or kids["o_norm"].part != "norms"
            or set(gate_kids) != set(_KDA_GATE)
            or any(c.type != "Linear" for c in gate_kids.values())
            or set(gate_own) != {"dt_bias", "A_log"}
            or any(p.counted for p in module.params)
            or set(states) != {"conv_states", "recurrent_states"}
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its tensors are not KDA's")
        heads, d, d_v = _ints(tuple(states["recurrent_states"][1:]))
        width = heads * d
        conv = _ints(_weight(kids["conv1d"]).shape)
        if (
            d_v != d
            or conv[:2] != (3 * width, 1)
            or tuple(states["conv_states"][1:]) != (3 * width, conv[2])
            or gate_own["dt_bias"] != (width,)
            or gate_own["A_log"] != (1, 1, heads, 1)
            or _ints(_weight(kids["o_proj"]).shape)[1] != width
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its sizes are not KDA's")
        tp = self.tp
        key = f"linear_num_heads (linear_attn_config's num_heads), the KDA heads of {path}"
        _split(heads, tp, key)
        for name, rows in (*_KDA.items(), *((f"forget_gate.{n}", r) for n, r in _KDA_GATE.items())):
            if isinstance(rows, tuple):
                whole = rows[0] * width + rows[1] * heads
                self.styles[f"{path}.{name}"] = ("colwise", _Rows(whole, whole // tp))
            else:
                self.styles[f"{path}.{name}"] = ("replicated", None) if rows is None else ("rowwise", key)
        self.own_of[f"{path}.forget_gate"] = {"dt_bias": (width // tp,), "A_log": (1, 1, heads // tp, 1)}
        batch = states["conv_states"][0]
        self.states_of[path] = {
            "conv_states": (batch, 3 * width // tp, conv[2]),
            "recurrent_states": (batch, heads // tp, d, d),
        }

    def _short_conv(self, path: str, module: Module) -> None:
        """LFM2's short convolution as vLLM's ShortConv splits it: its D channels / tp in ``conv``, each of the B, C, x
        thirds of ``in_proj`` and the columns of ``out_proj``; its conv state likewise."""
        kids = {c.name: c for c in module.children}
        states = {s.name: s.shape for s in module.cache}
        if (
            {n: c.type for n, c in kids.items()} != {"conv": "Conv1d", "in_proj": "Linear", "out_proj": "Linear"}
            or any(p.counted for p in module.params)
            or set(states) != {"conv_states"}
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its tensors are not ShortConv's")
        conv = _ints(_weight(kids["conv"]).shape)
        dim = conv[0]
        if (
            conv[1] != 1
            or _ints(_weight(kids["in_proj"]).shape) != (3 * dim, dim)
            or _ints(_weight(kids["out_proj"]).shape) != (dim, dim)
            or tuple(states["conv_states"][1:]) != (dim, conv[2])
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its sizes are not ShortConv's")
        tp = self.tp
        key = f"hidden_size, the channels of {path} (vLLM's ShortConv dim)"
        _split(dim, tp, key)
        self.styles[f"{path}.conv"] = ("colwise", _Rows(dim, dim // tp))
        self.styles[f"{path}.in_proj"] = ("colwise", _Rows(3 * dim, 3 * dim // tp))
        self.styles[f"{path}.out_proj"] = ("rowwise", key)
        self.states_of[path] = {"conv_states": (states["conv_states"][0], dim // tp, conv[2])}

    def _mlp(self, path: str, module: Module) -> None:
        names = [c.name for c in module.children if c.params]
        if module.type in _W13_MLPS:
            if set(names) != set(_W13) or len(names) != len(module.children):
                raise ValueError(
                    f"no tensor-parallel rule for {module.type} ({path}): derive splits its MLP of w1, w3, w2 as vLLM does"
                )
            for name in names:
                self.styles[f"{path}.{name}"] = (_W13[name], "intermediate_size")
            return
        if module.type == "Zamba2MLP":  # Zamba2MLP: gate_up_proj, down_proj and a LoRA adapter of gate_up_proj's
            adapters = [c for c in module.children if c.name == "gate_up_proj_adapter_list"]
            for adapter in adapters:  # Zamba2LoRA(hidden_size, adapter_rank, 2 * [intermediate_size]), 359-371
                self._lora(f"{path}.{adapter.name}", adapter, "intermediate_size", 2)
            if [c.name for c in module.children if not c.params] != [a.name for a in adapters]:
                raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): not Zamba2's MLP")
        if not names or any(n not in _MLP for n in names) or not {"down_proj", "c_proj", "output_linear"} & set(names):
            raise ValueError(
                f"no tensor-parallel rule for {module.type} ({path}): derive splits an MLP of gate_proj, up_proj, "
                "down_proj as vLLM does"
            )
        for name in names:
            self.styles[f"{path}.{name}"] = (_MLP[name], "intermediate_size" if module.part == "MLP" else
                                             "the shared experts' intermediate size")  # fmt: skip

    def _mamba(self, path: str, module: Module) -> None:
        names = {c.name for c in module.children if c.part != "norms"}
        own = {p.name for p in module.params}
        if names != set(_MAMBA_CHILDREN) or own != {"A_log", "D"}:
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its tensors are not Mamba's")
        width = _ints(next(p.shape for p in module.params if p.name == "D"))[0]
        _split(width, self.tp, f"{_MAMBA_WIDTH} of {path}")
        self.mixers[path] = _MAMBA_WIDTH
        # its channels (batch, E, K) and (batch, E, N), split as its weights
        self.states_of[path] = {s.name: (s.shape[0], width // self.tp, *s.shape[2:]) for s in module.cache}
        for name, style in _MAMBA_CHILDREN.items():
            self.styles[f"{path}.{name}"] = (style, _MAMBA_WIDTH)

    def _mamba2(self, path: str, module: Module) -> None:
        """Mamba-2 as vLLM's MambaMixer2 splits it: H / tp heads a rank, with B and C's groups G / tp, or with one
        group replicated on every rank (G' = tp); the conv and SSM states likewise."""
        heads_key, groups_key = _MAMBA2[module.type]
        kids = {c.name: c for c in module.children}
        own = {p.name: _ints(p.shape) for p in module.params if p.counted}
        states = {s.name: s.shape for s in module.cache}
        types = {n: kids[n].type for n in kids if n != "norm"}
        if (
            types != {"in_proj": "Linear", "conv1d": "Conv1d", "out_proj": "Linear"}
            or set(own) != {"dt_bias", "A_log", "D"}
            or set(states) != {"conv_states", "recurrent_states"}
            or ("norm" in kids and kids["norm"].part != "norms")
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its tensors are not Mamba-2's")
        heads, head_dim, d_state = _ints(tuple(states["recurrent_states"][1:]))
        conv = _ints(_weight(kids["conv1d"]).shape)
        inner = _ints(_weight(kids["out_proj"]).shape)[1]
        rows = _ints(_weight(kids["in_proj"]).shape)[0]
        groups = (conv[0] - inner) // (2 * d_state)
        if (
            {own["dt_bias"], own["A_log"], own["D"]} != {(heads,)}
            or inner != heads * head_dim
            or groups < 1
            or conv[0] != inner + 2 * groups * d_state
            or rows != inner + conv[0] + heads
            or tuple(states["conv_states"][1:]) != (conv[0], conv[2])
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its sizes are not Mamba-2's")
        tp = self.tp
        _split(heads, tp, f"{heads_key}, the heads of {path}")
        if groups % tp and groups != 1:
            raise ValueError(
                f"tp={tp} does not divide {groups_key} = {groups} of {path}: vLLM's MambaMixer2 replicates B and C's "
                "groups to follow the head shards only when there is one (it asserts n_groups % tp == 0 or n_groups == 1)"
            )
        kept = groups if groups % tp == 0 else tp  # n_groups + extra_groups_for_head_shards(n_groups, tp)
        channels = (inner + 2 * kept * d_state) // tp  # conv_dim / tp, conv_dim = intermediate + 2 n_groups' N
        style = "colwise" if kept == groups else "groups_colwise"
        self.styles[f"{path}.in_proj"] = (style, _Rows(rows, inner // tp + channels + heads // tp))
        self.styles[f"{path}.conv1d"] = (style, _Rows(conv[0], channels))
        if "norm" in kids:  # Mixer2RMSNormGated: intermediate / tp
            self.styles[f"{path}.norm"] = ("colwise", _Rows(inner, inner // tp))
        self.styles[f"{path}.out_proj"] = ("rowwise", f"{heads_key} x the head width of {path}")
        self.mixers[path] = f"{heads_key}, the heads of {path}"
        batch = states["conv_states"][0]
        self.states_of[path] = {
            "conv_states": (batch, channels, conv[2]),
            "recurrent_states": (batch, heads // tp, head_dim, d_state),
        }

    def _gated_deltanet(self, path: str, module: Module) -> None:
        """Gated DeltaNet as vLLM's QwenGatedDeltaNetAttention splits it: H_k / tp key heads a rank, each with its
        H_v / H_k value heads, in every projection, the convolution and the states; the gated norm (d_v) whole."""
        layout = _gated_deltanet()[module.type]
        kids = {c.name: c for c in module.children}
        own = {p.name: _ints(p.shape) for p in module.params if p.counted}
        states = {s.name: s.shape for s in module.cache}
        linears = {n for n, c in kids.items() if c.type == "Linear"}
        if (
            linears != {*layout, "out_proj"}
            or set(kids) != {*linears, "conv1d", "norm"}
            or kids["conv1d"].type != "Conv1d"
            or kids["norm"].part != "norms"
            or set(own) != {"dt_bias", "A_log"}
            or set(states) != {"conv_states", "recurrent_states"}
        ):
            raise ValueError(
                f"no tensor-parallel rule for {module.type} ({path}): its tensors are not Gated DeltaNet's"
            )
        v_heads, dk, dv = _ints(tuple(states["recurrent_states"][1:]))
        conv = _ints(_weight(kids["conv1d"]).shape)
        value = v_heads * dv
        k_heads = (conv[0] - value) // (2 * dk)
        key = k_heads * dk
        if (
            k_heads < 1
            or conv[0] != 2 * key + value
            or {own["dt_bias"], own["A_log"]} != {(v_heads,)}
            or _ints(_weight(kids["out_proj"]).shape)[1] != value
            or tuple(states["conv_states"][1:]) != (conv[0], conv[2])
        ):
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): its sizes are not Gated DeltaNet's")
        tp = self.tp
        if k_heads % tp:
            raise ValueError(
                f"tp={tp} does not divide linear_num_key_heads = {k_heads} of {path}: vLLM's Gated DeltaNet holds "
                "linear_num_key_heads / tp key heads a rank, each with its value heads (num_k_heads // tp_size), "
                "none replicated"
            )
        _split(v_heads, tp, f"linear_num_value_heads of {path}")
        for name, (k, v, h) in layout.items():
            whole = k * key + v * value + h * v_heads
            self.styles[f"{path}.{name}"] = ("colwise", _Rows(whole, whole // tp))
        self.styles[f"{path}.conv1d"] = ("colwise", _Rows(conv[0], conv[0] // tp))
        self.styles[f"{path}.out_proj"] = ("rowwise", f"linear_num_value_heads x linear_value_head_dim of {path}")
        self.mixers[path] = f"linear_num_value_heads of {path}"
        batch = states["conv_states"][0]
        self.states_of[path] = {
            "conv_states": (batch, conv[0] // tp, conv[2]),
            "recurrent_states": (batch, v_heads // tp, dk, dv),
        }

    def _param(
        self, path: str, module: Module, p: Param, shape: tuple[int, ...], given: tuple[str, Any] | None
    ) -> tuple[str, tuple[int, ...]]:
        tp = self.tp
        if given is not None:
            style, arg = given
            if isinstance(arg, _Rows):  # rows its mixer's rule worked out (checked there: a Linear, Conv1d or norm)
                if shape[0] != arg.whole:
                    raise ValueError(
                        f"{path}.{p.name} has {shape[0]:,} rows, not its mixer's {arg.whole:,}: not derived"
                    )
                return style, (arg.rank, *shape[1:])
            if (
                module.type not in ("Linear", "Conv1d")
                and style != "replicated"
                or (module.type == "Conv1d" and not (style == "colwise" and arg == _MAMBA_WIDTH))
            ):
                raise ValueError(f"no tensor-parallel rule for {module.type} ({path}): derive splits nn.Linear")
            if style == "replicated":
                return style, shape
            key = arg if isinstance(arg, str) else "num_attention_heads"
            if style == "kv_colwise":  # (KV·d rows of the whole, KV on a rank · d)
                if shape[0] != arg[0]:
                    raise ValueError(f"{path}.{p.name} has {shape[0]:,} rows, not KV heads × their width: not derived")
                return style, (arg[1], *shape[1:])
            if style == "colwise":
                if path.endswith(_GATE_UP):  # MergedColumnParallelLinear: gate and up each split
                    _split(shape[0] // 2, tp, f"{key} (half the rows of {path}.{p.name})")
                return style, (_split(shape[0], tp, f"{key} (the rows of {path}.{p.name})"), *shape[1:])
            if p.name == "bias":  # rowwise: the bias whole on every rank
                return style, shape
            return style, (shape[0], _split(shape[1], tp, f"{key} (the columns of {path}.{p.name})"))
        part = module.part
        if path in self.own_of:  # shapes its module's rule worked out (KDA's forget gate)
            return "colwise", self.own_of[path][p.name]
        if part in ("norms", "routers") or (part == "shared experts" and not module.children):
            return "replicated", shape
        if path in self.mixers:  # Mamba's A_log (E, N), D (E,); Mamba-2's and Gated DeltaNet's one a head
            return "colwise", (_split(shape[0], tp, f"{self.mixers[path]} ({path}.{p.name})"), *shape[1:])
        if part == "attention" and p.name == "sinks":  # one per head: vLLM's num_attention_heads // tp_size
            return "colwise", (_split(shape[0], tp, f"num_attention_heads ({path}.sinks)"),)
        if part == "head" and module.type == "Linear" and p.name == "bias" and self.vocab is not None:
            return "vocab", (self.vocab[1] // tp,)  # ParallelLMHead's bias: the padded vocabulary / tp
        if part in ("embeddings", "head") and module.type.endswith(("Embedding", "Linear")) and p.name == "weight":
            vocab = shape[0]
            padded = pad_vocab_size(vocab)
            if self.vocab is not None and self.vocab[0] != vocab:
                raise ValueError(f"the embedding and the head differ in vocabulary ({path}): not derived")
            self.vocab = (vocab, padded)
            rows = _split(padded, tp, f"vocab_size {vocab:,} padded to a multiple of {VOCAB_PADDING}")
            return "vocab", (rows, *shape[1:])
        if part == "routed experts":
            return self._experts(path, module, p, shape)
        raise ValueError(f"no tensor-parallel rule for {module.type} ({path}, {p.name}): {_SPLIT}")

    def _experts(self, path: str, module: Module, p: Param, shape: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
        tensors = {q.name: _ints(q.shape) for q in module.params}
        width = "the experts' intermediate size (moe_intermediate_size; Mixtral's intermediate_size)"
        tp = self.tp
        if module.type in ("GptOssExperts", "Llama4TextExperts"):  # (E, D, 2F), (E, 2F), (E, F, D), (E, D)
            up, down = tensors.get("gate_up_proj"), tensors.get("down_proj")
            if up is None or down is None or up[2] != 2 * down[1] or up[1] != down[2]:
                raise ValueError(f"no tensor-parallel rule for the experts {module.type} ({path}): not derived")
            layout = {"gate_up_proj": 2, "gate_up_proj_bias": 1, "down_proj": 1, "down_proj_bias": None}
        else:  # derive.layers.moe.routed_experts: (E, 2F, D) or (E, F, D) ungated, (E, D, F)
            down, up = tensors.get("down_proj"), tensors.get("gate_up_proj") or tensors.get("up_proj")
            gated = "gate_up_proj" in tensors
            if set(tensors) - {"gate_up_proj", "up_proj", "down_proj"} or down is None or up is None or (
                up[1] != (2 if gated else 1) * down[2] or up[2] != down[1]
            ):  # fmt: skip
                raise ValueError(f"no tensor-parallel rule for the experts {module.type} ({path}): not derived")
            layout = {"gate_up_proj": 1, "up_proj": 1, "down_proj": 2}
        if p.name not in layout:
            raise ValueError(f"no tensor-parallel rule for {module.type} ({path}, {p.name}): not derived")
        if self.ep:  # whole experts: the first rank holds ceil(E / tp) of them
            return "experts_ep", (-(-shape[0] // tp), *shape[1:])
        dim = layout[p.name]
        if dim is None:
            return "replicated", shape
        size = shape[dim]
        packed = 2 if p.name.startswith("gate_up_proj") else 1  # gate and up each split: vLLM's w13
        _split(size // packed, tp, f"{width}, {path}.{p.name}")
        rank = list(shape)
        rank[dim] = size // tp
        return ("experts_rowwise" if p.name.startswith("down_proj") else "experts_colwise"), tuple(rank)


def _weight(module: Module) -> Param:
    for p in module.params:
        if p.name == "weight":
            return p
    raise ValueError(f"{module.type} {module.name} has no weight: no tensor-parallel share derived")


def _rank_state(state: State, kv: tuple[int, int] | None, path: str) -> State:
    if state.counter or kv is None:  # a window's position counter: whole on every rank
        return state
    shape = state.shape
    if state.name not in ("keys", "values") or len(shape) != 4 or shape[1] != kv[0]:
        raise ValueError(f"no tensor-parallel rule for the cache {state.name!r} of {path}: not derived")
    return replace(state, shape=(shape[0], kv[1], *shape[2:]))


def check_sizes(tp: Any, pp: Any) -> None:
    """Refuse a tensor-parallel size or a number of pipeline stages that is not a positive int.

    Parameters
    ----------
    tp, pp : int

    Raises
    ------
    TypeError
        ``tp`` or ``pp`` not an int (a bool is not one).
    ValueError
        ``tp`` or ``pp`` < 1.
    """
    for name, value in (("tp", tp), ("pp", pp)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")


def plan(model: Module, tp: int = 1, pp: int = 1, *, ep: bool = False) -> Plan:
    """Each pipeline stage's tensors and cache on one of its ``tp`` ranks (see the module docstring).

    Parameters
    ----------
    model : derive.tree.Module
        A language model's tree with int sizes (``derive.explain(config).module``).
    tp : int, default 1
        Tensor-parallel size (vLLM's ``--tensor-parallel-size``).
    pp : int, default 1
        Pipeline stages (vLLM's ``--pipeline-parallel-size``).
    ep : bool, default False
        Routed experts whole on tp devices (vLLM's ``--enable-expert-parallel``) instead of each split tp ways.

    Returns
    -------
    Plan

    Raises
    ------
    TypeError
        ``tp`` or ``pp`` not an int.
    ValueError
        ``tp`` or ``pp`` < 1; a size ``tp`` does not divide (named with its config key); a module or cache
        derive has no rule for; symbolic sizes; ``pp`` more than the decoder layers, or a tensor outside
        the layers that no stage is known to hold.

    Examples
    --------
    >>> from derive.families.llama import llama
    >>> p = plan(llama({"num_hidden_layers": 3}), tp=2, pp=2)
    >>> [s.layers for s in p.stages], [t.rank_shape for t in p.stages[0].tensors[:2]]
    ([(0, 2), (2, 3)], [(16000, 4096), (2048, 4096)])
    """
    check_sizes(tp, pp)
    rules = _Rules(tp, ep)
    placed: list[tuple[int | None, RankTensor, str]] = []
    states: list[tuple[int | None, State]] = []
    tied: set[str] = set()
    for path, module in named_modules(model):
        layer = _layer(path)
        for name, p, style, rank in rules.module(path, module):
            placed.append((layer, RankTensor(name, tuple(p.shape), rank, style), module.part))
        for state in module.cache:
            if path in rules.states_of:  # a recurrent mixer's states, split as its weights
                states.append((layer, replace(state, shape=rules.states_of[path][state.name])))
                continue
            kv = rules.heads_of.get(path)
            states.append((layer, _rank_state(state, kv, path)))
        for p in module.params:
            if p.tied_to is not None and not p.buffer:
                tied.add(p.tied_to)
    if pp > 1 and rules.no_pp is not None:
        raise ValueError(f"pp={pp}: {rules.no_pp}")
    layers = 1 + max((i for i, _, _ in placed if i is not None), default=-1)
    if pp > 1 and pp > layers:
        raise ValueError(f"pp={pp} is more than the {layers} decoder layers (num_hidden_layers)")
    if pp > 1 and any(i is None for i, _ in states):
        raise ValueError("a cache outside the decoder layers: no pipeline stage is known to hold it")
    stages = []
    for s in range(pp):
        start, end = pp_indices(layers, s, pp) if pp > 1 else (0, layers)
        held = tuple(t for i, t, part in placed if _on_stage(i, t, s, pp, start, end, tied, part))
        kept = tuple(st for i, st in states if i is None and pp == 1 or i is not None and start <= i < end)
        stages.append(Stage(s, (start, end), held, kept))
    return Plan(tp, pp, tuple(stages), rules.vocab, rules.kv)


def _layer(path: str) -> int | None:
    match = _LAYER.search(path)
    return None if match is None else int(match.group(1))


def _on_stage(
    layer: int | None, tensor: RankTensor, stage: int, pp: int, start: int, end: int, tied: set[str], part: str
) -> bool:
    if pp == 1:
        return True
    if layer is not None:
        return start <= layer < end
    first, last = stage == 0, stage == pp - 1
    if part == "embeddings":
        return first or (last and tensor.name in tied)
    if part in ("head", "norms"):
        return last
    raise ValueError(f"{tensor.name} is outside the decoder layers: no pipeline stage is known to hold it")


@dataclass(frozen=True)
class Share:
    """One device's share on a pipeline stage: the bytes one of its ``tp`` ranks holds.

    Attributes
    ----------
    stage : Stage
        The stage of :func:`plan`: its tensors and cache states on one rank.
    dtype : str
        The model's dtype, of the rank's tensors (:func:`derive.analysis.stored.weight_bytes`).
    served : derive.analysis.served.Served
        The formats of the rank's cache (:func:`derive.analysis.cache.nbytes`).
    """

    stage: Stage
    dtype: str
    served: Served

    @property
    def weights_bytes(self) -> int:
        """Bytes of the rank's tensors at ``dtype``."""
        return int(_stored.weight_bytes(self.stage.parameters, self.dtype))

    @property
    def device(self) -> _fit.Device:
        """The rank against a memory budget: its weights and its cache (:class:`derive.analysis.fit.Fit`)."""
        weights, states = self.weights_bytes, [(s, 1) for s in self.stage.states]
        return _fit.Device(
            lambda tokens, batch: weights + int(_cache.nbytes(states, self.served, tokens, batch)),
            lambda: _cache.longest(self.stage.states),
        )

    def as_dict(self, seq_len: Any, batch: Any, budget: int | None = None) -> dict[str, Any]:
        """The rank's figures after ``seq_len`` tokens of ``batch`` sequences, and with a budget what fits on it.

        Parameters
        ----------
        seq_len, batch : int or sympy.Expr
            T and N.
        budget : int or None
            One device's budget, bytes (None: none).

        Returns
        -------
        dict
            ``{"stage", "layers" ([start, end) of the decoder layers), "parameters", "weights_bytes",
            "kv_bytes", "state_bytes", "cache_bytes", "kv_bytes_per_token"}`` and, with a budget, ``"fits",
            "max_seq_len", "max_batch", "fits_any_length"`` (:meth:`derive.analysis.fit.Device.answers`).
            Units: bytes, tokens, sequences.
        """
        states = [(s, 1) for s in self.stage.states]
        entry: dict[str, Any] = {
            "stage": self.stage.index,
            "layers": list(self.stage.layers),
            "parameters": self.stage.parameters,
            "weights_bytes": self.weights_bytes,
            "kv_bytes": _cache.nbytes(states, self.served, seq_len, batch, "kv"),
            "state_bytes": _cache.nbytes(states, self.served, 1, batch, "state"),
            "cache_bytes": _cache.nbytes(states, self.served, seq_len, batch),
            "kv_bytes_per_token": _cache.per_token(states, self.served),
        }
        if budget is not None:
            entry.update(self.device.answers(budget, seq_len, batch))
        return entry


def most_loaded(shares: list[dict[str, Any]] | None, key: str) -> Any:
    """A figure of the most loaded device: the largest of the stages' (:meth:`Share.as_dict`); None without them.

    Parameters
    ----------
    shares : list of dict or None
    key : str
        ``"weights_bytes"``, ``"cache_bytes"``, ``"kv_bytes"``, ``"state_bytes"``, ``"kv_bytes_per_token"``.

    Returns
    -------
    int or None
    """
    return None if shares is None else max(e[key] for e in shares)


def described(plan: Plan | None, ep: bool = False) -> dict[str, Any]:
    """What a plan says beside its stages (the JSON's ``"vocab_padded"``, ``"kv_heads_per_rank"``,
    ``"kv_head_replicas"``, ``"expert_mode"``); each None without a plan, or without an embedding or attention.

    Parameters
    ----------
    plan : Plan or None
    ep : bool, default False
        Routed experts whole (:data:`EXPERT_PARALLEL`) or each split (:data:`EXPERT_MODE`).

    Returns
    -------
    dict
    """
    return {
        "vocab_padded": None if plan is None or plan.vocab is None else plan.vocab[1],
        "kv_heads_per_rank": None if plan is None or plan.kv_heads is None else plan.kv_heads[1],
        "kv_head_replicas": None if plan is None or plan.kv_heads is None else plan.kv_heads[2],
        "expert_mode": None if plan is None else EXPERT_PARALLEL if ep else EXPERT_MODE,
    }
