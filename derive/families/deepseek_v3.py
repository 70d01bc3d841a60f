"""DeepSeek-V3 (``model_type`` ``deepseek_v3``; DeepSeek-R1, DeepSeek-V3.1 and Kimi-K2 are its releases):
multi-head latent attention in every layer, dense MLPs in the first ``first_k_dense_replace`` layers, a
mixture of experts with shared experts and group-limited routing after them — and the builder DeepSeek-V2
and DeepSeek-V3.2 share (:func:`mla_decoder`).

``DeepseekV3ForCausalLM`` (``models/deepseek_v3/modeling_deepseek_v3.py`` 36-55 ``DeepseekV3RMSNorm``,
57-91 the rotary embedding, 104-117 ``DeepseekV3MLP``, 120-158 ``DeepseekV3TopkRouter``, 161-198
``DeepseekV3Experts``, 201-222 ``DeepseekV3MoE``, 349-424 ``DeepseekV3Attention``, 485-498
``DeepseekV3DecoderLayer``, 532-579 ``DeepseekV3Model``, 640-654): every layer's ``self_attn`` is MLA
(:func:`derive.layers.lm_attention.latent_attention`: ``q_proj`` Linear(D, H·(n + r)) when
``q_lora_rank`` is None, else ``q_a_proj`` (biased with ``attention_bias``), ``q_a_layernorm`` (its rank)
and ``q_b_proj``; ``kv_a_proj_with_mqa`` Linear(D, c + r), ``kv_a_layernorm`` (c), ``kv_b_proj``
Linear(c, H·(n + v)), ``o_proj`` Linear(H·v, D), with c = ``kv_lora_rank``, n / r =
``qk_nope_head_dim`` / ``qk_rope_head_dim``, v = ``v_head_dim``); its ``mlp`` is ``DeepseekV3MLP``
(``intermediate_size``) for layer i < ``first_k_dense_replace`` (line 492), else ``DeepseekV3MoE`` —
``experts`` (E = ``n_routed_experts``, width ``moe_intermediate_size``, k = ``num_experts_per_tok``),
``gate`` (E, D) and its ``e_score_correction_bias`` (E,), a **buffer** (``nn.Buffer``, line 131: listed,
never counted, kept in float32 on load by ``_keep_in_fp32_modules_strict``), and ``shared_experts``, a
gated MLP of ``moe_intermediate_size`` · ``n_shared_experts`` (width 0 when there are none).
``n_group``, ``topk_group`` and ``norm_topk_prob`` choose experts (groups' top-2 sums, then top-k within
the chosen groups): no tensor, and no matrix product. The rotary embedding's buffers have
``qk_rope_head_dim`` / 2 entries (``__post_init__`` sets ``head_dim`` to ``qk_rope_head_dim``,
``configuration_deepseek_v3.py`` 119-125). ``lm_head`` is tied when ``tie_word_embeddings``.
``moe_layer_freq``, ``topk_method``, ``scoring_func`` of the releases are not keys of the class: the
releases' remote code reads them, transformers does not (a note says so).

**The cache** (``cache_utils.py`` 104-147 ``DynamicLayer``; the attention's ``past_key_values.update(kv_nope,
k_rot)``, modeling line 459): the compressed latent, not the per-head keys and values — keys (batch, 1,
tokens, c), values (batch, 1, tokens, r); ``expand_kv`` (407-424) up-projects every cached latent through
``kv_b_proj`` at each step, which costs 2·c·H·(n + v) FLOPs per attended token. DeepSeek-V3's 61 layers of
512 + 64 entries hold 70,272 bytes per token in bfloat16, LMCache PR #715's figure for vLLM's latent cache.

**Multi-token prediction.** ``num_nextn_predict_layers`` (``num_mtp_layers``) counts the MTP layers a
release's checkpoint ships after its last layer (``model.layers.61``, ignored on load:
``_keys_to_ignore_on_load_unexpected``, line 551). ``from_config`` does not build them, so they are not
counted; transformers builds them only for ``generate(..., use_mtp=True)``, as ``MtpModel``
(``modeling_layers.py`` 325-420: per layer ``enorm``, ``hnorm`` (D), ``eh_proj`` Linear(2D, D), a MoE decoder
layer ``mtp_block`` (``get_mtp_config`` sets ``first_k_dense_replace`` to 0, ``configuration_utils.py``
1596-1639) and ``post_norm`` (D); the embedding and head are the main model's). :func:`mtp_model` builds it,
and the report's note gives its size.

>>> from derive.tree import count, active
>>> model = deepseek_v3({})   # DeepseekV3Config(): DeepSeek-V3's shape
>>> count(model), active(model)
(671026404352, 37552282624)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.linear import linear
from ..layers.lm_attention import latent_attention
from ..layers.mlp import gated_mlp
from ..layers.moe import deepseek_moe
from ..layers.norm import rms_norm
from ..tree import Dim, Module, count
from .decoder import INERT as DECODER_INERT
from .decoder import causal_lm, check_rope, layer_list, rope_buffers
from .family import Keys, register_family

__all__ = [
    "KEYS",
    "MLA_INERT",
    "SOURCE",
    "deepseek_v3",
    "dense_first",
    "mla_decoder",
    "mla_sizes",
    "mtp_model",
    "mtp_note",
]

#: ``DeepseekV3Config``'s shape keys and their defaults (configuration_deepseek_v3.py 82-117).
DEFAULTS: dict[str, Any] = {
    "vocab_size": 129280,
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "n_shared_experts": 1,
    "n_routed_experts": 256,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "qk_nope_head_dim": 128,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "tie_word_embeddings": False,
    "attention_bias": False,
}
#: The keys the DeepSeek MLA configs share that shape no tensor, each with why.
MLA_INERT: dict[str, str] = {
    **{k: DECODER_INERT[k] for k in ("max_position_embeddings", "rms_norm_eps", "attention_dropout", "pretraining_tp")},
    **{k: DECODER_INERT[k] for k in ("rope_parameters", "rope_scaling", "rope_theta")},
    "num_key_value_heads": (
        "read only as num_attention_heads // num_key_value_heads, eager attention's repeat of the expanded keys "
        "(transformers' forward runs only where it is 1): no tensor, and the cache holds one latent per token"
    ),
    "n_group": "the router's expert groups (choosing experts, no tensor, no matrix product)",
    "topk_group": "the groups the router keeps (choosing experts, no tensor)",
    "norm_topk_prob": "whether the chosen experts' weights are renormalised (no tensor)",
    "routed_scaling_factor": "a scale of the routed experts' output (no tensor)",
    "output_router_logits": "whether the router's logits are returned (no tensor)",
    "head_dim": "set by __post_init__ to qk_rope_head_dim whatever it says (the rotary width)",
    "qk_head_dim": "set by __post_init__ to qk_nope_head_dim + qk_rope_head_dim",
}
#: ``attribute_map`` (configuration_deepseek_v3.py 77-80).
ALIASES = {"num_local_experts": "n_routed_experts", "num_mtp_layers": "num_nextn_predict_layers"}
#: ``DeepseekV3Config``'s every key: the shape keys, and the others with why they shape nothing.
KEYS = Keys(
    "DeepseekV3Config",
    DEFAULTS,
    {
        **MLA_INERT,
        "rope_interleave": "the rotary pairs' layout (interleaved or halves): no tensor",
        "num_nextn_predict_layers": (
            "the release's multi-token-prediction layers: from_config builds none (a note gives their size)"
        ),
    },
    aliases=ALIASES,
)
#: The transformers files and lines the family is read from.
SOURCE = (
    "transformers/models/deepseek_v3/configuration_deepseek_v3.py 77-125, modeling_deepseek_v3.py 36-222, 349-498, "
    "532-579, 640-654; cache_utils.py 104-147; modeling_layers.py 325-420 (MtpModel)"
)


def mla_sizes(c: Mapping[str, Any], cls: str, *, q_rank_optional: bool = True) -> dict[str, Any]:
    """The sizes the DeepSeek MLA models share, read off a resolved config and checked.

    Parameters
    ----------
    c : mapping
        The resolved config (``n_routed_experts``, ``num_experts_per_tok``, the MLA ranks ...).
    cls : str
        The config class, for messages.
    q_rank_optional : bool, default True
        ``q_lora_rank`` may be None (a full-rank ``q_proj``); DeepSeek-V3.2's is an int.

    Returns
    -------
    dict
        ``V``, ``D``, ``F``, ``Fe``, ``L``, ``H``, ``E``, ``k`` (None where the config has none),
        ``shared``, ``q_rank`` (None: ``q_proj``), ``first``, ``tie`` and ``mla`` (the four MLA widths).

    Raises
    ------
    ValueError
        A size that is not one, more experts per token than experts, ``first_k_dense_replace`` or
        ``num_hidden_layers`` not a number, naming the key.
    """
    L = hf_config.size(c, "num_hidden_layers", 0)
    first = c["first_k_dense_replace"]
    if type(L) is not int:
        raise ValueError("config key 'num_hidden_layers' must be a number: it fixes the layer pattern")
    if type(first) is not int:
        raise ValueError(
            f"config key 'first_k_dense_replace' must be an int (it fixes the layer pattern), got {first!r}"
        )
    E = hf_config.size(c, "n_routed_experts")
    k = None if c["num_experts_per_tok"] is None else hf_config.size(c, "num_experts_per_tok", 0)
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds n_routed_experts ({E})")
    if c["q_lora_rank"] is None and not q_rank_optional:
        raise ValueError(f"config key 'q_lora_rank' must be an int ({cls} is @strict: it refuses None)")
    return {
        "V": hf_config.size(c, "vocab_size"),
        "D": hf_config.size(c, "hidden_size"),
        "F": hf_config.size(c, "intermediate_size"),
        "Fe": hf_config.size(c, "moe_intermediate_size"),
        "L": L,
        "H": hf_config.size(c, "num_attention_heads"),
        "E": E,
        "k": k,
        "shared": hf_config.size(c, "n_shared_experts", 0),
        "q_rank": None if c["q_lora_rank"] is None else hf_config.size(c, "q_lora_rank"),
        "first": first,
        "tie": hf_config.flag(c, "tie_word_embeddings"),
        "mla": {
            key: hf_config.size(c, key)
            for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
        },
    }


def _check_pad(config: Mapping[str, Any], vocab: Dim) -> None:
    """torch's ``Embedding`` refuses a ``padding_idx`` outside the vocabulary (``pad_token_id``)."""
    pad = config.get("pad_token_id")
    if type(pad) is int and type(vocab) is int and not -vocab <= pad < vocab:
        raise ValueError(
            f"config key 'pad_token_id' ({pad}) must be below vocab_size ({vocab}): torch's Embedding refuses it"
        )


def mla_decoder(
    config: Mapping[str, Any],
    s: Mapping[str, Any],
    *,
    prefix: str,
    kinds: list[str],
    attention: Callable[[], Module],
    mlp_bias: bool = False,
    correction_bias: bool = True,
    moe_type: str | None = None,
    shape: Mapping[str, Any] | None = None,
    note: str = "",
) -> Module:
    """A DeepSeek MLA causal LM: each layer ``self_attn`` (``attention()``), ``mlp`` (a gated MLP of
    ``intermediate_size`` where ``kinds[i]`` is ``"dense"``, else the MoE of :func:`deepseek_moe`),
    ``input_layernorm``, ``post_attention_layernorm``; the rotary embedding of ``qk_rope_head_dim``.

    Parameters
    ----------
    config : mapping
        The config as given (for ``rope_parameters`` and ``pad_token_id``).
    s : mapping
        :func:`mla_sizes` of the resolved config.
    prefix : str
        The class prefix (``"DeepseekV3"``).
    kinds : list of str
        ``"dense"`` or ``"sparse"`` per layer.
    attention : callable () -> Module
        One layer's ``self_attn``.
    mlp_bias : bool, default False
        The dense and shared MLPs biased (DeepSeek-V2's ``mlp_bias``).
    correction_bias : bool, default True
        The router's ``e_score_correction_bias`` buffer.
    moe_type : str, optional
        The MoE block's class (default ``{prefix}MoE``).
    shape : mapping, optional
        More shape keys for the model's config.
    note : str
        The report's notes, one a line (what is counted and what not).

    Returns
    -------
    derive.tree.Module
    """
    check_rope(config)
    D = s["D"]
    _check_pad(config, s["V"])

    def make(kind: str) -> Module:
        if kind == "sparse":
            mlp = deepseek_moe(
                D, s["Fe"], s["E"], s["k"], s["shared"], prefix=prefix, correction_bias=correction_bias,
                bias=mlp_bias, type=moe_type,
            )  # fmt: skip
        else:
            mlp = gated_mlp(D, s["F"], bias=mlp_bias, type=f"{prefix}MLP")
        norm = lambda n: rms_norm((D,), name=n, type=f"{prefix}RMSNorm")  # noqa: E731
        children = (attention(), mlp, norm("input_layernorm"), norm("post_attention_layernorm"))
        return Module("", f"{prefix}DecoderLayer", children=children)

    L = s["L"]
    if len(set(kinds)) > 1:
        layers = layer_list(make, kinds, L)
    else:  # one kind (or none: no layers): one repeated layer
        layers = layer_list(lambda _: make(kinds[0] if kinds else "dense"), None, L)
    cfg: dict[str, Any] = {"vocab_size": s["V"], "hidden_size": D, "intermediate_size": s["F"]}
    cfg.update(moe_intermediate_size=s["Fe"], num_hidden_layers=L, num_attention_heads=s["H"])
    cfg.update(n_routed_experts=s["E"], num_experts_per_tok=s["k"], n_shared_experts=s["shared"])
    cfg.update(q_lora_rank=s["q_rank"], **s["mla"], first_k_dense_replace=s["first"])
    cfg.update(shape or {})
    cfg.update(tie_word_embeddings=s["tie"], _fixed=("num_hidden_layers", "first_k_dense_replace", "mlp_layer_types"))
    model = causal_lm(
        prefix, vocab=s["V"], hidden=D, layers=layers, tie=s["tie"], config=cfg,
        rotary=rope_buffers(s["mla"]["qk_rope_head_dim"]),
    )  # fmt: skip
    if s["k"] is None:
        note = "\n".join(
            n for n in (note, "num_experts_per_tok is None: the router cannot choose (torch.topk needs a k), so "
                        "every routed expert is counted active and a token's FLOPs are not derived") if n
        )  # fmt: skip
    return model.replace(note=note)


def dense_first(first: int, layers: int) -> list[str]:
    """``"dense"`` for the layers below ``first_k_dense_replace``, ``"sparse"`` after (a negative one: none dense).

    Parameters
    ----------
    first, layers : int

    Returns
    -------
    list of str
    """
    return ["dense" if i < first else "sparse" for i in range(layers)]


def _attention(s: Mapping[str, Any], bias: bool, prefix: str) -> Callable[[], Module]:
    return lambda: latent_attention(
        s["D"], s["H"], **s["mla"], q_lora_rank=s["q_rank"], bias=bias, norm_type=f"{prefix}RMSNorm",
        type=f"{prefix}Attention",
    )  # fmt: skip


def mtp_layers(config: Mapping[str, Any]) -> Any:
    """``num_nextn_predict_layers`` (or its alias ``num_mtp_layers``) as given, the class's default 1 if absent.

    Parameters
    ----------
    config : mapping

    Returns
    -------
    object
    """
    return config.get("num_nextn_predict_layers", config.get("num_mtp_layers", 1))


def mtp_model(config: Mapping[str, Any]) -> Module:
    """The multi-token-prediction layers transformers builds for ``generate(..., use_mtp=True)``: ``MtpModel``'s
    ``layers`` (``modeling_layers.py`` 325-420), its embedding and head being the main model's (not in it).

    Parameters
    ----------
    config : mapping
        A ``deepseek_v3`` config (absent keys at the class's defaults).

    Returns
    -------
    derive.tree.Module
        ``layers``: ``num_nextn_predict_layers`` copies of ``enorm``, ``hnorm`` (D), ``eh_proj`` Linear(2D, D),
        ``mtp_block`` (a MoE decoder layer: ``get_mtp_config`` sets ``first_k_dense_replace`` to 0) and
        ``post_norm`` (D).

    Raises
    ------
    ValueError
        What :func:`deepseek_v3` refuses; ``num_nextn_predict_layers`` not an int >= 0.
    """
    n = mtp_layers(config)
    if type(n) is not int or n < 0:
        raise ValueError(f"config key 'num_nextn_predict_layers' must be an int >= 0, got {n!r}")
    one = _build({**config, "first_k_dense_replace": 0, "num_hidden_layers": 1})
    block = one.child("model").child("layers").children[0].replace(name="mtp_block", repeat=1, row=False)
    D = one.config["hidden_size"]
    norm = lambda name: rms_norm((D,), name=name, type="DeepseekV3RMSNorm")  # noqa: E731
    parts = (norm("enorm"), norm("hnorm"), linear(2 * D, D, False, name="eh_proj"), block, norm("post_norm"))
    layer = Module("{k}", "MtpLayer", children=parts, repeat=n)
    return Module("", "MtpModel", children=(Module("layers", "ModuleList", children=(layer,)),))


def mtp_note(config: Mapping[str, Any], cls: str = "DeepseekV3") -> str:
    """The report's note on the release's multi-token-prediction layers (not counted: from_config builds none).

    Parameters
    ----------
    config : mapping
    cls : str
        The class prefix, named in the note.

    Returns
    -------
    str
        "" when the config has none.

    Raises
    ------
    ValueError
        ``num_nextn_predict_layers`` not an int >= 0; what :func:`mtp_model` refuses.
    """
    n = mtp_layers(config)
    if n == 0:
        return ""
    if type(n) is not int or n < 0:
        raise ValueError(f"config key 'num_nextn_predict_layers' must be an int >= 0, got {n!r}")
    size = count(mtp_model(config))
    shown = f"{size:,}" if type(size) is int else str(size)
    return (
        f"num_nextn_predict_layers={n}: the release's multi-token-prediction layer{'s' if n > 1 else ''} "
        f"(after model.layers, ignored on load) {'are' if n > 1 else 'is'} not built by from_config and not "
        f"counted; transformers builds {'them' if n > 1 else 'it'} only for generate(use_mtp=True) (MtpModel: "
        f"enorm, hnorm, eh_proj, a {cls} MoE decoder layer, post_norm; embedding and head shared), {shown} "
        f"parameters in all"
    )


def deepseek_v3(config: Mapping[str, Any]) -> Module:
    """``DeepseekV3ForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        The config's keys; absent ones at ``DeepseekV3Config``'s defaults; either name of an aliased key.
        Sizes may be SymPy symbols (not the layer count nor ``first_k_dense_replace``: they fix the pattern).

    Returns
    -------
    derive.tree.Module
        Its note names the multi-token-prediction layers it does not count.

    Raises
    ------
    ValueError
        A value transformers refuses or derive cannot map (a symbolic layer pattern, more experts per
        token than experts, a ``pad_token_id`` outside the vocabulary, an unknown RoPE), naming the key.
    """
    return _build(config).replace(note=mtp_note(config))


def _build(config: Mapping[str, Any]) -> Module:
    c = KEYS.resolve(config)
    s = mla_sizes(c, "DeepseekV3Config")
    bias = hf_config.flag(c, "attention_bias")
    return mla_decoder(
        config, s, prefix="DeepseekV3", kinds=dense_first(s["first"], s["L"]),
        attention=_attention(s, bias, "DeepseekV3"), shape={"attention_bias": bias},
    )  # fmt: skip


register_family("deepseek_v3", "DeepseekV3Config", "DeepseekV3ForCausalLM", deepseek_v3, SOURCE, keys=KEYS)
