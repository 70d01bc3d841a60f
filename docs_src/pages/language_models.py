"""The "Language models" pages: one per family of transformers' decoder LMs (hybrid attention +
recurrent mixers + experts, and the plain-attention baselines), and memory against context length.

Each family page shows, for its released model (or, where no released config could be checked, the
config class's defaults, said to be no release): the layer pattern read from the config, each kind
of layer's tensors in transformers' names, the total and the parameters a token uses, and what a
sequence costs to keep (the recurrent state, constant in the sequence's length, and the keys and
values it grows by per token). Every number is computed by :func:`derive.explain` and
:func:`derive.cost` when the site is built; ``tests/site/test_language_models_site.py`` builds each
released model in transformers 5.23.0 on the ``meta`` device (every name and shape, the total, the
active count) and runs it there with ``use_cache=True`` (the bytes its cache holds), and compares.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import derive
from derive.analysis.cost import cost
from derive.blocks import griffin
from derive.families.family import release
from derive.render.latex import shape_latex
from derive.tree import Module

from ..site import Page, number

__all__ = [
    "Released",
    "SHIPPED",
    "RELEASED",
    "Family",
    "FAMILIES",
    "CONTEXTS",
    "FIT_CONTEXTS",
    "BUDGETS",
    "MEMORY_MODELS",
    "longest",
    "released",
    "layer_kinds",
    "family_context",
    "memory_context",
    "memory_svg",
]


#: The config of a :class:`Released` that derive ships: read from ``derive/families/data`` by the release's name.
SHIPPED: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Released:
    """A released model: its config (the keys that shape it) and its published size.

    Attributes
    ----------
    name : str
        The Hub's name, e.g. ``"ai21labs/Jamba-v0.1"``.
    config : mapping
        Its ``config.json``'s shape keys, with ``model_type``; :data:`SHIPPED` for a release derive ships,
        whose ``config.json`` as published is then read by its ``name`` (:func:`derive.families.family.release`),
        and its published size and source with it (given here, they would be a second copy: refused).
    published : str or None
        The size its authors publish (``"52B total, 12B active"``); None for a config class's defaults
        that no released model is known to have (the page says so).
    source : str
        Where: a paper or model card (Markdown link); for defaults, the config class.
    note : str
        Why derive's count differs from the published one, where it does (Markdown; shown under the
        page's table).
    """

    name: str
    config: Mapping[str, Any]
    published: str | None = None
    source: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.config is SHIPPED:
            if self.published is not None or self.source:
                raise ValueError(f"{self.name}: a shipped release's published size and source are its data's")
            shipped = release(self.name)
            object.__setattr__(self, "config", shipped.config)
            object.__setattr__(self, "published", shipped.published)
            object.__setattr__(self, "source", _link(shipped.published_source))


def _link(source: str) -> str:
    """A data file's ``published_source`` (``"URL (what it says: a quote)"``) as a Markdown link: the words
    before the quote (``model card``), or the URL's host where they run long."""
    url, _, said = source.partition(" ")
    words = said.removeprefix("(").split(")")[0].split(":")[0].strip()
    return f"[{words if 0 < len(words) <= 60 else urlsplit(url).netloc}]({url})"


#: Released models, keyed by a short id. A release derive ships gives its config as :data:`SHIPPED` (its whole
#: config.json is read from derive/families/data by its name); the others give the keys that shape them as their config.json
#: files set them (transformers 5.23.0's config classes default to several of them:
#: each class's docstring names the checkpoint its defaults reproduce). Where no released config of a family could be
#: checked, its config class's defaults stand in, ``published`` None: the page says it is no release.
RELEASED: dict[str, Released] = {
    "llama-2-7b": Released(
        "meta-llama/Llama-2-7b-hf",
        SHIPPED),
    "mistral-7b": Released(
        "mistralai/Mistral-7B-v0.1",
        SHIPPED),
    "mixtral-8x7b": Released(
        "mistralai/Mixtral-8x7B-v0.1",
        SHIPPED),
    "jamba-v0.1": Released(
        "ai21labs/Jamba-v0.1",
        {"model_type": "jamba", "vocab_size": 65536, "hidden_size": 4096, "intermediate_size": 14336,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16,
         "num_experts_per_tok": 2, "attn_layer_period": 8, "attn_layer_offset": 4, "expert_layer_period": 2,
         "expert_layer_offset": 1, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2,
         "mamba_dt_rank": 256, "tie_word_embeddings": False},
        "52B total, 12B active", "[Jamba, Table 1](https://arxiv.org/abs/2403.19887)"),
    "qwen3-next-80b-a3b": Released(
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        SHIPPED),
    "lfm2-8b-a1b": Released(
        "LiquidAI/LFM2-8B-A1B",
        {"model_type": "lfm2_moe", "num_hidden_layers": 24,
         "layer_types": ["conv", "conv", "full_attention"] * 8},
        "8.3B total, 1.5B active", "[LFM2 technical report](https://arxiv.org/abs/2511.23404)"),
    "xlstm-7b": Released(
        "NX-AI/xLSTM-7b",
        {"model_type": "xlstm", "vocab_size": 50304, "hidden_size": 4096, "num_hidden_layers": 32,
         "num_heads": 8, "weight_mode": "fused"},
        "7B", "[xLSTM 7B](https://arxiv.org/abs/2503.13427)"),
    "bamba-9b": Released(
        "ibm-ai-platform/Bamba-9B",
        {"model_type": "bamba", "attn_layer_indices": [9, 18, 27], "mamba_d_state": 128},
        "9.8B", "[Bamba (Hugging Face blog)](https://huggingface.co/blog/bamba)"),
    "nemotron-h-8b": Released(
        "nvidia/Nemotron-H-8B-Base-8K",
        SHIPPED),
    "zamba2-2.7b": Released(
        "Zyphra/Zamba2-2.7B",
        {"model_type": "zamba2", "num_mem_blocks": 2, "n_mamba_heads": 80},
        "2.7B", "[Zamba2 suite](https://arxiv.org/abs/2411.15242)"),
    "zamba-7b": Released(
        "Zyphra/Zamba-7B-v1",
        {"model_type": "zamba"},  # ZambaConfig's defaults are this model (configuration_zamba.py; 76 layers, 13 hybrid)
        "7B", "[Zamba](https://arxiv.org/abs/2405.16712)"),
    "lfm3-1.7b": Released(
        "LiquidAI/LFM3-1.7B",
        {"model_type": "lfm3"},  # Lfm3Config's defaults are this model (configuration_lfm3.py's auto_docstring checkpoint)
        "1.7B", "its name; `Lfm3Config`'s docstring names it"),
    "qwen4-exp-defaults": Released(
        "Qwen4ExpTextConfig() with an indexer",
        # Qwen4ExpTextConfig's defaults; its indexed-attention layers need the QSA indexer's keys, which it leaves
        # unset: these are the smallest its checks accept at the default head width (tests/families/test_qwen4_exp.py)
        {"model_type": "qwen4_exp_text", "indexer_n_heads": 1, "indexer_kv_heads": 1, "indexer_head_dim": 256,
         "indexer_budget": 4, "indexer_compress_ratio": 2},
        None, "`Qwen4ExpTextConfig` (`configuration_qwen4_exp.py`) — no released config of `Qwen/Qwen4-Exp`, "
        "which its docstring names, could be checked; the indexer's five keys are chosen, not read"),
    "minimax-m1": Released(
        "MiniMax-AI/MiniMax-M1",
        # config.json of github.com/MiniMax-AI/MiniMax-M1 (MiniMax-Text-01's architecture): its attn_type_list
        # (0 lightning, 1 softmax attention) as transformers' layer_types; rotary_dim 64 (RoPE on half of each
        # head) shapes only buffers; shared_intermediate_size 0 (no shared expert), postnorm and its alphas none
        {"model_type": "minimax", "vocab_size": 200064, "hidden_size": 6144, "intermediate_size": 9216,
         "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128,
         "num_local_experts": 32, "num_experts_per_tok": 2, "tie_word_embeddings": False,
         "layer_types": (["linear_attention"] * 7 + ["full_attention"]) * 10},
        "456B total, 45.9B active", "[MiniMax-M1 README](https://github.com/MiniMax-AI/MiniMax-M1)",
        "The 45.9B a token uses leave out the embedding and the untied head (2 × 200,064 × 6,144 = 2.46B): "
        "transformers' model and derive count them as used by every token."),
    "kimi-linear-48b-a3b": Released(
        "moonshotai/Kimi-Linear-48B-A3B-Instruct",
        # its config.json (as its quantized copies and Megatron-Bridge's Kimi-Linear test repeat it): the layer
        # pattern in linear_attn_config (1-indexed), which transformers reads
        {"model_type": "kimi_linear", "vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
         "moe_intermediate_size": 1024, "num_hidden_layers": 27, "num_attention_heads": 32,
         "num_key_value_heads": 32, "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128, "num_experts": 256, "num_experts_per_token": 8,
         "num_shared_experts": 1, "first_k_dense_replace": 1, "tie_word_embeddings": False,
         "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 27],
                                "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
                                "head_dim": 128, "num_heads": 32, "short_conv_kernel_size": 4}},
        "48B total, 3B active", "[model card](https://huggingface.co/moonshotai/Kimi-Linear-48B-A3B-Instruct)",
        "The card rounds: 49.1B in all; of the 3.48B a token uses, 0.75B are the embedding and the untied head "
        "(2 × 163,840 × 2,304), 2.73B without them."),
    "bailing-hybrid-defaults": Released(
        "BailingHybridConfig()",
        {"model_type": "bailing_hybrid"},
        None, "`BailingHybridConfig` (`configuration_bailing_hybrid.py`) — its docstring names "
        "`inclusionAI/Ling-3.0-Flash`, whose config.json could not be checked"),
    "olmo-hybrid-defaults": Released(
        "OlmoHybridConfig()",
        {"model_type": "olmo_hybrid"},
        None, "`OlmoHybridConfig` (`configuration_olmo_hybrid.py`) — its docstring calls it similar to "
        "`allenai/Olmo-Hybrid-7B`, whose config.json could not be checked"),
    "falcon-h1-0.5b": Released(
        "tiiuae/Falcon-H1-0.5B-Instruct",
        # its config.json's shape keys, as Megatron-Bridge's Falcon-H1 test copies it (FALCON_H1_500M_CONFIG;
        # transformers' doc table: 36 layers, 1,024 wide, 8 + 2 heads, 24 Mamba heads of 64, state 128); the copy
        # leaves out mamba_d_ssm: 24 × 64, the only width FalconH1Config's validate_architecture accepts
        {"model_type": "falcon_h1", "vocab_size": 32784, "hidden_size": 1024, "intermediate_size": 2048,
         "num_hidden_layers": 36, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
         "mamba_d_ssm": 1536, "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
         "mamba_d_conv": 4, "mamba_expand": 2, "mamba_conv_bias": True, "mamba_proj_bias": False,
         "mamba_rms_norm": False, "projectors_bias": False, "attention_bias": False, "mlp_bias": False,
         "tie_word_embeddings": False},
        "0.5B", "[Falcon-H1](https://arxiv.org/abs/2507.22448)"),
    "granite-4.0-h-small": Released(
        "ibm-granite/granite-4.0-h-small",
        SHIPPED),
    "gpt2": Released(
        "openai-community/gpt2",
        {"model_type": "gpt2"},  # GPT2Config's defaults are GPT-2 small
        "124M (117M in the paper's count)", "[model card](https://huggingface.co/openai-community/gpt2)"),
    "recurrentgemma-2b": Released(
        "google/recurrentgemma-2b", dict(griffin.RECURRENTGEMMA_2B),
        "2.7B", "[RecurrentGemma](https://arxiv.org/abs/2404.07839)"),
    "mamba-2.8b": Released(
        "state-spaces/mamba-2.8b-hf", SHIPPED),
}  # fmt: skip


@dataclass(frozen=True)
class Family:
    """One family page.

    Attributes
    ----------
    key : str
        The page's file name (``language-models/<key>.md``).
    title : str
    model_types : tuple of str
        The ``model_type`` values the page covers.
    source : str
        transformers' modelling file(s), as cited.
    intro : str
        The page's first paragraph (Markdown).
    released : tuple of str
        Keys of :data:`RELEASED` in its table; the first is the page's example.
    """

    key: str
    title: str
    model_types: tuple[str, ...]
    source: str
    intro: str
    released: tuple[str, ...] = field(default=())


FAMILIES: tuple[Family, ...] = (
    Family("jamba", "Jamba", ("jamba",), "models/jamba/modeling_jamba.py",
           "AI21's Jamba interleaves Mamba layers with attention (one attention layer in every "
           "`attn_layer_period`, at `attn_layer_offset`) and replaces every `expert_layer_period`-th MLP by "
           "a mixture of experts, of which a token visits `num_experts_per_tok`.",
           ("jamba-v0.1",)),
    Family("qwen3-next", "Qwen3-Next, Qwen3.5 and Qwen4-Exp",
           ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text"),
           "models/qwen3_next/modeling_qwen3_next.py, models/qwen4_exp/modeling_qwen4_exp.py",
           "Qwen3-Next alternates three Gated DeltaNet layers (linear attention with a delta rule, whose "
           "state is a matrix per head) with one gated full-attention layer (`layer_types`), each followed by "
           "a mixture of many small experts and one shared expert. Qwen4-Exp keeps that pattern "
           "(`full_attention_interval`), gives its attention layers a QSA token indexer (`indexer_*` keys) and "
           "replaces the layer norms by hyper-connections: `hc_count` residual streams mixed before and after "
           "each block.",
           ("qwen3-next-80b-a3b", "qwen4-exp-defaults")),
    Family("lfm2", "LFM2 and LFM3", ("lfm2", "lfm2_moe", "lfm3"),
           "models/lfm2/modeling_lfm2.py, models/lfm2_moe/modeling_lfm2_moe.py, models/lfm3/modeling_lfm3.py",
           "Liquid's LFM2 mixes gated short convolutions (a state of `conv_L_cache` − 1 inputs) with grouped-query "
           "attention (`layer_types`); LFM2-MoE adds experts after its first dense layers. LFM3 keeps the "
           "convolutions and makes some attention layers sliding-window (`\"sliding_attention\"` in "
           "`layer_types`, keeping the last `sliding_window` tokens), gates each attention head and adds "
           "sandwich norms.",
           ("lfm2-8b-a1b", "lfm3-1.7b")),
    Family("xlstm", "xLSTM", ("xlstm",), "models/xlstm/modeling_xlstm.py",
           "xLSTM-7B stacks mLSTM blocks only: matrix memory per head, no attention, so its cache is constant "
           "in the sequence's length.",
           ("xlstm-7b",)),
    Family("bamba", "Bamba", ("bamba",), "models/bamba/modeling_bamba.py",
           "IBM's Bamba is a stack of Mamba-2 layers with a few attention layers at `attn_layer_indices`; "
           "its cache grows only through those.",
           ("bamba-9b",)),
    Family("nemotron-h", "Nemotron-H", ("nemotron_h",), "models/nemotron_h/modeling_nemotron_h.py",
           "NVIDIA's Nemotron-H spells its layers out in `hybrid_override_pattern`: `M` a Mamba-2 layer, `*` "
           "attention, `-` an MLP, `E` a mixture of experts — each a layer of its own, so only the `*` layers "
           "keep keys and values (serving engines that gave every layer a KV cache over-counted it 8–10×).",
           ("nemotron-h-8b",)),
    Family("zamba2", "Zamba and Zamba2", ("zamba", "zamba2"),
           "models/zamba2/modeling_zamba2.py, models/zamba/modeling_zamba.py",
           "Zyphra's Zamba2 is a Mamba-2 stack into which a few *shared* transformer blocks are invoked again "
           "and again, each call with its own LoRA adapters: the shared weights count once, but every call "
           "keeps its own keys and values. Zamba (v1) did it first, with Mamba layers of `n_mamba_heads` "
           "heads and one shared block, run at every `hybrid` layer of `layers_block_type` (tied whole to "
           "the first with `tie_word_embeddings`).",
           ("zamba2-2.7b", "zamba-7b")),
    Family("falcon-h1", "Falcon-H1", ("falcon_h1",), "models/falcon_h1/modeling_falcon_h1.py",
           "TII's Falcon-H1 runs attention and a Mamba-2 mixer *side by side* in every layer and adds their "
           "outputs: there is no pattern to read, each layer keeps keys and values and a recurrent state. Its "
           "μP multipliers (`*_multiplier`, `ssm_multipliers`) are numbers and a buffer, no parameter.",
           ("falcon-h1-0.5b",)),
    Family("granite-4-hybrid", "Granite 4.0-H", ("granitemoehybrid",),
           "models/granitemoehybrid/modeling_granitemoehybrid.py",
           "IBM's Granite 4.0-H models put a Mamba-2 or an attention mixer in each layer by `layer_types` "
           "(`mamba` or `attention`; nine Mamba-2 layers to one attention layer in H-Small), and follow every "
           "mixer by a mixture of `num_local_experts` experts and a shared MLP of `shared_intermediate_size`, "
           "always active. No rotary embedding unless `position_embedding_type` is `rope`: Granite 4.0-H's attention "
           "layers have none.",
           ("granite-4.0-h-small",)),
    Family("kimi-linear", "Kimi-Linear and Ling 3.0", ("kimi_linear", "bailing_hybrid"),
           "models/kimi_linear/modeling_kimi_linear.py, models/bailing_hybrid/modeling_bailing_hybrid.py",
           "Moonshot's Kimi-Linear interleaves Kimi Delta Attention (a delta rule with a forget gate per "
           "channel, its state a matrix per head) with multi-head latent attention (MLA, caching a compressed "
           "latent per token), three to one; its released config lists the layers in `linear_attn_config` "
           "(`kda_layers`, `full_attn_layers`, counted from 1), or `layer_types` does. Every layer after the "
           "first `first_k_dense_replace` has DeepSeek-style experts with a shared expert. inclusionAI's "
           "Bailing-hybrid (Ling 3.0) builds the same from KDA and gated MLA, attention closing every group of "
           "`layer_group_size` layers.",
           ("kimi-linear-48b-a3b", "bailing-hybrid-defaults")),
    Family("minimax", "MiniMax", ("minimax",), "models/minimax/modeling_minimax.py",
           "MiniMax-01's architecture puts one softmax-attention layer after every seven lightning-attention "
           "layers (linear attention computed in blocks of `block_size`, its state a matrix per head), each "
           "followed by a mixture of `num_local_experts` experts of which a token visits "
           "`num_experts_per_tok`. transformers reads the pattern from `layer_types`; the released config's "
           "`attn_type_list` says the same (0 lightning, 1 softmax). Its cache keeps *every* token of the "
           "attention layers: `MiniMaxCache` is made without the config, so a `sliding_window` shapes only the "
           "mask.",
           ("minimax-m1",)),
    Family("olmo-hybrid", "OLMo-hybrid", ("olmo_hybrid",), "models/olmo_hybrid/modeling_olmo_hybrid.py",
           "Ai2's OLMo-hybrid replaces three attention layers in four by Gated DeltaNet (`layer_types`; by "
           "default attention at every fourth layer), with a dense MLP in every layer and OLMo 2's QK-norms "
           "over all heads. No released config could be checked here: the page shows `OlmoHybridConfig()`'s "
           "own defaults.",
           ("olmo-hybrid-defaults",)),
    Family("transformers", "Transformer baselines", ("llama", "mistral", "qwen2", "mixtral", "gemma2", "gemma3_text", "gpt2"),
           "models/llama/modeling_llama.py and its kin",
           "Plain decoder Transformers, the baseline the hybrids are measured against: every layer keeps "
           "keys and values for every token (a sliding-window layer for its window), and Mixtral's experts "
           "show what *active* means without any recurrence.",
           ("llama-2-7b", "mistral-7b", "mixtral-8x7b", "gpt2")),
)  # fmt: skip

#: Context lengths of the memory page (tokens).
CONTEXTS = (1024, 4096, 16384, 65536, 262144, 1048576)
#: Models on the memory page, in its legend's order.
MEMORY_MODELS = ("llama-2-7b", "mistral-7b", "mixtral-8x7b", "jamba-v0.1", "qwen3-next-80b-a3b",
                 "recurrentgemma-2b", "mamba-2.8b")  # fmt: skip
DTYPE = "bfloat16"
GIB = 2**30


def released(key: str) -> Any:
    """derive's report of the released model ``key`` (a key of :data:`RELEASED`).

    Parameters
    ----------
    key : str

    Returns
    -------
    derive.read.Report
    """
    return derive.explain(dict(RELEASED[key].config))


def _layers(model: Module) -> list[Module]:
    """The model's decoder layers, in order (a repeated run expanded to its copies)."""
    stack = [model]
    while stack:
        m = stack.pop(0)
        if m.type == "ModuleList" and m.name in ("layers", "blocks", "h"):
            out = []
            for child in m.children:
                n = child.repeat if type(child.repeat) is int else 1
                out += [child] * n
            return out
        stack += list(m.children)
    return []


def _signature(layer: Module) -> tuple:
    return (layer.type,) + tuple((c.name, c.type) for c in layer.children)


def layer_kinds(model: Module) -> tuple[list[int], list[dict]]:
    """The layer pattern: each layer's kind (an index into the kinds), and each kind of layer.

    Two layers are of one kind when they have the same class and the same children (by name and
    class): Jamba's Mamba layers with an MLP and with experts are two kinds.

    Parameters
    ----------
    model : derive.tree.Module
        A whole model (``derive.explain(config).module``).

    Returns
    -------
    pattern : list of int
        One entry per layer.
    kinds : list of dict
        ``type``, ``parts`` (``"name (Class)"`` of each child), ``count`` (layers of the kind),
        ``first`` (the first such layer's index).
    """
    kinds: list[tuple] = []
    pattern = []
    for layer in _layers(model):
        sig = _signature(layer)
        if sig not in kinds:
            kinds.append(sig)
        pattern.append(kinds.index(sig))
    out = []
    for i, sig in enumerate(kinds):
        out.append({"type": sig[0], "parts": [f"{n} ({t})" for n, t in sig[1:]], "count": pattern.count(i),
                    "first": pattern.index(i), "letter": chr(ord("A") + i)})  # fmt: skip
    return pattern, out


def _kind_tensors(report: Any, first: int) -> tuple[str, list[dict]]:
    """The tensors of layer ``first``: the path they share (``model.layers.4.``) and, after it, each
    one's name, shape and size."""
    rows = []
    prefix = ""
    pat = re.compile(rf"^(.*?(?:layers|blocks|h)\.{first}\.)(.+)$")
    for t in report.tensors:
        m = pat.match(t["name"])
        if m:
            prefix = m.group(1)
            rows.append({"name": m.group(2), "shape": shape_latex(tuple(t["shape"])), "numel": number(t["parameters"])})
    return prefix, rows


def _outside_layers(report: Any) -> list[dict]:
    pat = re.compile(r"^(?:.*\.)?(?:layers|blocks|h)\.\d+\.")
    return [{"name": t["name"], "shape": shape_latex(tuple(t["shape"])), "numel": number(t["parameters"])}
            for t in report.tensors if not pat.match(t["name"])]  # fmt: skip


#: The context lengths of a family page's "cache of one sequence" rows (tokens): 32K, and 256K (the Jamba paper's
#: Table 1 length, a long-context model's).
LONG_CONTEXTS = (32768, 262144)


def _row(key: str) -> dict:
    """A released model's row: total, active, state bytes per sequence and KV bytes per token (bf16)."""
    r = RELEASED[key]
    report = released(key)
    c = cost(report, 1, 1, DTYPE)
    long = [cost(report, t, 1, DTYPE).cache_bytes for t in LONG_CONTEXTS]
    return {"key": key, "name": r.name, "published": r.published, "source": r.source, "note": r.note,
            "total": number(report.total), "active": number(report.active),
            "state": number(c.state_bytes), "kv": number(c.kv_bytes_per_token),
            "long": [{"tokens": t, "bytes": number(b), "gib": f"{b / GIB:,.2f}"} for t, b in zip(LONG_CONTEXTS, long)],
            "model_type": r.config["model_type"]}  # fmt: skip


def family_context(family: Family) -> dict:
    """Everything a family page shows.

    Parameters
    ----------
    family : Family

    Returns
    -------
    dict
    """
    key = family.released[0]
    report = released(key)
    pattern, kinds = layer_kinds(report.module)
    for kind in kinds:
        kind["prefix"], kind["tensors"] = _kind_tensors(report, kind["first"])
    assert report.parts is not None, key  # every tensor of a family placed (tests/families: test_parts_*)
    parts = [{"part": p["part"], "parameters": number(p["parameters"]), "active": number(p["active"]),
              "share": f"{100 * p['parameters'] / report.total:.1f} %"} for p in report.parts]  # fmt: skip
    rows = [_row(k) for k in family.released]
    from .released import CONTEXT as STORED_CONTEXT  # the released-models table (released imports this module)
    from .released import rows as stored_rows

    return {
        "stored": [r for r in stored_rows() if r["model_type"] in family.model_types],
        "stored_context": STORED_CONTEXT,
        "family": family,
        "example": _row(key),
        "parts": parts,
        "sparse": report.active != report.total,
        "config": dict(RELEASED[key].config),
        "pattern": "".join(kinds[i]["letter"] for i in pattern),
        "kinds": kinds,
        "outside": _outside_layers(report),
        "rows": rows,
        "notes": [r for r in rows if r["note"]],
        "defaults": [r for r in rows if r["published"] is None],
    }


#: The context lengths of the memory page's "will it fit" table (tokens).
FIT_CONTEXTS = (8192, 32768, 131072)
#: Its budgets, GiB: a card sold as 24, 48 or 80 GB holds about 24, 48 or 80 GiB (an RTX 4090's 24,564 MiB, an A100's 81,920).
BUDGETS = (24, 48, 80)


def longest(report: Any, gib: int) -> str:
    """The longest context one sequence of the model holds in ``gib`` GiB with its bf16 weights, as shown:
    tokens, "any" where the cache stops growing and fits, "—" where the weights alone do not fit.

    Parameters
    ----------
    report : derive.read.report.Report or mapping
        The model (a report or a config mapping with its ``model_type``).
    gib : int
        The budget, GiB (weights + cache; activations and the framework's workspace not counted).

    Returns
    -------
    str
    """
    fit = cost(report, 1, 1, DTYPE, memory=gib * GIB)
    if fit.fits_any_length:
        return "any"
    tokens = fit.max_seq_len
    return "—" if not tokens else f"{tokens:,}"


def _memory_rows() -> list[dict]:
    rows = []
    for key in MEMORY_MODELS:
        report = released(key)
        cache = [cost(report, t, 1, DTYPE).cache_bytes for t in CONTEXTS]
        weights = cost(report, 1, 1, DTYPE).weight_bytes
        fit = [weights + cost(report, t, 1, DTYPE).cache_bytes for t in FIT_CONTEXTS]
        rows.append({"key": key, "name": RELEASED[key].name, "cache": cache, "weight_bytes": weights,
                     "gib": [f"{b / GIB:,.2f}" for b in cache],
                     "weights": f"{weights / GIB:,.1f}", "weights_gib": f"{weights / GIB:,.2f}",
                     "fit": fit, "fit_gib": [f"{b / GIB:,.2f}" for b in fit],
                     "longest": [longest(report, gib) for gib in BUDGETS]})  # fmt: skip
    return rows


#: Line colours of the plot, legible on the light and the dark scheme (Material's palette, 500s).
_COLOURS = ("#e53935", "#fb8c00", "#8e24aa", "#1e88e5", "#00897b", "#7cb342", "#a1887f")


def memory_svg(rows: list[dict]) -> str:
    """The cache against context length, one line per model, as an inline SVG (matplotlib, at build time).

    The drawing is reproducible (no date, a fixed id salt); its black, and the fill of what has none,
    is ``currentColor``, so axes and labels take the page's text colour in either scheme.

    Parameters
    ----------
    rows : list of dict
        :func:`memory_context`'s rows.

    Returns
    -------
    str
        An ``<svg>`` element with ``role="img"`` and an accessible name.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    with matplotlib.rc_context({"svg.hashsalt": "derive", "svg.fonttype": "path", "font.size": 11}):
        fig, ax = plt.subplots(figsize=(7.5, 5.4))
        for row, colour, marker in zip(rows, _COLOURS, "osD^vx+", strict=False):
            total = [(row["weight_bytes"] + b) / GIB for b in row["cache"]]
            ax.plot(CONTEXTS, total, marker=marker, color=colour, label=row["name"])
        for gib in BUDGETS:  # the budgets of the "will it fit" table, dashed, labelled at the left
            ax.axhline(gib, color="#000000", linestyle="--", linewidth=0.8, alpha=0.6)  # currentColor, below
            ax.annotate(f"{gib} GiB", (CONTEXTS[0], gib), xytext=(2, -11), textcoords="offset points", fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_xticks(CONTEXTS, [f"{t // 1024}K" if t < 2**20 else f"{t // 2**20}M" for t in CONTEXTS])
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("context length (tokens)")
        ax.set_ylabel("weights + cache of one sequence (GiB, bf16)")
        ax.grid(True, which="major", alpha=0.3)
        # below the axes: inside it would hide the budget lines' labels
        ax.legend(fontsize=10, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
        fig.patch.set_alpha(0)
        ax.patch.set_alpha(0)
        fig.tight_layout()
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    svg = out.getvalue()
    svg = svg[svg.index("<svg") :].replace("#000000", "currentColor").replace("#ffffff", "none")
    label = (
        "The weights and the cache of one sequence, against its length, with budget lines at 24, 48 and 80 GiB, for "
        + ", ".join(r["name"] for r in rows)
    )
    # an SVG element with no fill of its own (matplotlib's glyphs) is filled black: currentColor instead
    svg = svg.replace(
        "<svg ", f'<svg role="img" aria-label="{label}" class="memory-plot" style="fill: currentColor" ', 1
    )
    return re.sub(r"\n\s*\n", "\n", svg)


def memory_context() -> dict:
    """Everything the memory page shows.

    Returns
    -------
    dict
    """
    from . import released as every  # the released-models page's rows (released.py imports this module)

    rows = _memory_rows()
    jamba, mixtral, llama = (cost(released(k), 262144, 1, DTYPE) for k in ("jamba-v0.1", "mixtral-8x7b", "llama-2-7b"))
    return {
        "contexts": [f"{t // 1024}K" for t in CONTEXTS],
        "fit_contexts": [f"{t // 1024}K" for t in FIT_CONTEXTS],
        "budgets": BUDGETS,
        "rows": rows,
        "svg": memory_svg(rows),
        "released_rows": every.rows(),
        "released_contexts": every.CONTEXTS,
        "jamba_kv": number(jamba.kv_bytes_per_token * 262144 // GIB),
        "mixtral": number(mixtral.cache_bytes // GIB),
        "llama": number(llama.cache_bytes // GIB),
        "jamba_state": number(jamba.state_bytes),
        "jamba_gb": f"{jamba.kv_bytes_per_token * 262144 / 1e9:.2f}",
        "mixtral_gb": f"{mixtral.cache_bytes / 1e9:.2f}",
        "llama_gb": f"{llama.cache_bytes / 1e9:.2f}",
    }  # fmt: skip


ORDER = 47
PAGES = [
    Page(f"language-models/{f.key}.md", f.title, "language-model.md.j2", lambda f=f: family_context(f), (), "Language models")
    for f in FAMILIES
] + [Page("language-models/memory.md", "Memory against context", "language-models-memory.md.j2", memory_context, (), "Language models")]  # fmt: skip
