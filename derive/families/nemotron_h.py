"""Nemotron-H (``model_type`` ``nemotron_h``): one mixer per layer — Mamba-2, attention, an MLP or a
mixture of experts — picked by the layer pattern.

``NemotronHForCausalLM`` (``models/nemotron_h/modeling_nemotron_h.py`` 389-447
``NemotronHMamba2Mixer``, 637-644 ``NemotronHMLP``, 652-673 ``NemotronHExperts``, 713-739
``NemotronHMoE``, 757-768 ``NemotronHTopkRouter``, 869-884 ``NemotronHAttention``, 931-955
``NemotronHBlock``, 1076-1083 ``NemotronHModel``, 1157-1164): every layer is ``norm`` then
``mixer``, the kind read from ``layers_block_type`` (``layer_types``; the legacy names ``mamba``
and ``attention`` remapped, ``configuration_utils.py`` 94-99) or else the string
``hybrid_override_pattern`` — ``M`` Mamba-2, ``*`` attention, ``-`` MLP, ``E`` MoE
(``configuration_nemotron_h.py`` 169-177, 275-279); with neither, the four layers ``M E * -``.
``num_hidden_layers`` is ignored: the pattern's length is the layer count (its setter does nothing).

- Mamba-2 (:func:`derive.blocks.mamba2.mixer`): E = ``mamba_num_heads`` · ``mamba_head_dim``
  (``expand`` is not read), G = ``n_groups``, N = ``ssm_state_size``, K = ``conv_kernel``;
  ``in_proj``/``out_proj`` biased with ``use_bias``.
- attention: q/k/v/o never biased (``attention_bias`` is not read), head width ``head_dim``; no
  rotary embedding.
- MLP: ``up_proj``, ``down_proj`` (squared ReLU, no gate), biased with ``mlp_bias``.
- MoE: ``experts`` (``up_proj`` (E, F, D'), ``down_proj`` (E, D', F), E = ``n_routed_experts``, F =
  ``moe_intermediate_size``, D' = ``moe_latent_size`` or D), ``gate`` (E, D) with the buffer
  ``e_score_correction_bias``, one ``shared_experts`` MLP of ``moe_shared_expert_intermediate_size``
  whatever ``n_shared_experts`` says, and ``fc1_latent_proj``/``fc2_latent_proj`` with a latent size
  (the routed experts' projections into and out of D', placed with them and used whole by every token).

``lm_head`` is never tied: ``_tied_weights_keys = {}`` (line 1158) whatever
``tie_word_embeddings`` says. Its cache: a Mamba-2 layer keeps ``conv_states`` (batch, E + 2GN, K)
in the model's dtype and ``recurrent_states`` (batch, H, P, N) in float32
(:func:`derive.blocks.mamba2.cache`; ``mamba_ssm_cache_dtype`` is not read by transformers); an
attention layer keys and values; an MLP or MoE layer an empty ``DummyLayer``.

>>> from derive.tree import count, active
>>> model = nemotron_h({"hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"})
>>> count(model)   # Nemotron-H-8B's layout
8100852736
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..blocks import hf_config
from ..blocks.mamba2 import chunk_size, decode_flops, kept_chunk, mixer
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.lm_attention import self_attention
from ..layers.mlp import plain_mlp
from ..layers.moe import moe_block, routed_experts, router
from ..layers.norm import rms_norm
from ..layers.token_flops import register
from ..tree import Module
from .decoder import causal_lm, kv_heads, layer_list
from .family import Keys, register_family

__all__ = ["nemotron_h", "PATTERN", "KEYS"]

#: ``hybrid_override_pattern``'s letters (configuration_nemotron_h.py 275-279).
PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
_LEGACY = {"mamba": "linear_attention", "attention": "full_attention"}

#: ``NemotronHConfig``'s shape keys and defaults (configuration_nemotron_h.py 97-151).
_DEFAULTS: dict[str, Any] = {
    "vocab_size": 131072,
    "hidden_size": 4096,
    "layers_block_type": None,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "intermediate_size": 21504,
    "mlp_bias": False,
    "ssm_state_size": 128,
    "mamba_num_heads": 128,
    "mamba_head_dim": 64,
    "n_groups": 8,
    "conv_kernel": 4,
    "use_conv_bias": True,
    "use_bias": False,
    "n_routed_experts": 8,
    "moe_intermediate_size": 7688,
    "moe_shared_expert_intermediate_size": 7688,
    "moe_latent_size": None,
    "num_experts_per_tok": 2,
}
#: Legacy keys ``__post_init__`` pops into the key it reads (configuration_nemotron_h.py 160-168).
_ALIASES = {"mamba_n_groups": "n_groups", "mamba_d_conv": "conv_kernel", "mamba_conv_bias": "use_conv_bias"}
#: ``NemotronHConfig``'s other keys (configuration_nemotron_h.py 97-168), each with why it shapes nothing.
_INERT: dict[str, str] = {
    "num_logits_to_keep": "how many positions' logits the forward returns: no tensor",
    "num_hidden_layers": "the pattern's length is the layer count (read with it)",
    "hybrid_override_pattern": "the legacy pattern, read into layers_block_type",
    "tie_word_embeddings": "never tied (_tied_weights_keys = {})",
    "max_position_embeddings": "a length limit: no tensor (no rotary embedding)",
    "attention_bias": "q/k/v/o are built bias=False whatever it says",
    "attention_dropout": "dropout, off at inference: no tensor",
    "sliding_window": "not read by NemotronHAttention (full attention on every attention layer)",
    "mlp_hidden_act": "an activation: no tensor",
    "use_mamba_kernels": "which kernel runs the mixer: no tensor",
    "mamba_hidden_act": "an activation: no tensor",
    "expand": "the mixer's width is mamba_num_heads x mamba_head_dim, not expand x hidden_size",
    "mamba_expand": "a legacy spelling of expand (not read)",
    "time_step_min": "an initialization range: no tensor",
    "time_step_max": "an initialization range: no tensor",
    "time_step_limit": "a clamp of dt at run time: no tensor",
    "time_step_floor": "an initialization floor: no tensor",
    "mamba_dt_min": "a legacy spelling of time_step_min (initialization)",
    "mamba_dt_max": "a legacy spelling of time_step_max (initialization)",
    "mamba_dt_limit": "a legacy spelling of time_step_limit (a clamp)",
    "mamba_dt_init_floor": "a legacy spelling of time_step_floor (initialization)",
    "chunk_size": "the scan's chunk length: no tensor",
    "mamba_chunk_size": "a legacy spelling of chunk_size",
    "mamba_proj_bias": "not read by the mixer (use_bias is)",
    "mamba_ssm_cache_dtype": "the dtype of the cache's SSM state as served: the cost's --state-dtype, no tensor",
    "output_router_logits": "whether the forward returns the router's logits: no tensor",
    "n_shared_experts": "one shared_experts MLP of moe_shared_expert_intermediate_size whatever its value",
    "moe_shared_expert_overlap": "a scheduling choice: no tensor",
    "routed_scaling_factor": "a scale on the routed experts' output: no tensor",
    "n_group": "the router's expert groups: which experts run, not their tensors",
    "topk_group": "the router's expert groups: which experts run, not their tensors",
    "norm_topk_prob": "whether the top-k weights are renormalized: no tensor",
    "num_nextn_predict_layers": "no multi-token-prediction module is built by from_config",
    "mtp_layers_block_type": "the multi-token-prediction layers' pattern, not built",
    "mtp_hybrid_override_pattern": "the multi-token-prediction layers' legacy pattern, not built",
    "layer_norm_epsilon": "an epsilon: no tensor",
    "residual_in_fp32": "the residual's dtype at run time: no tensor",
    "hidden_dropout": "dropout, off at inference: no tensor",
    "rescale_prenorm_residual": "an initialization rule: no tensor",
    "rope_theta": "no rotary embedding is built",
    "rope_parameters": "no rotary embedding is built",
}
#: ``NemotronHConfig``'s every key: a key outside it (a release's ``rms_norm_eps``) is answered with a note.
KEYS = Keys(
    "NemotronHConfig",
    _DEFAULTS,
    _INERT,
    aliases={"layer_types": "layers_block_type", "num_local_experts": "n_routed_experts", **_ALIASES},
)
_SOURCE = (
    "transformers/models/nemotron_h/configuration_nemotron_h.py 84-285, modeling_nemotron_h.py 389-447, "
    "637-768, 869-955, 1076-1083, 1157-1164"
)


def _kinds(config: Mapping[str, Any]) -> list[str]:
    """Each layer's kind: ``layers_block_type`` (or ``layer_types``), else ``hybrid_override_pattern``."""
    # layer_types (the attribute map's name) is set after layers_block_type: it wins
    lists = [k for k in ("layer_types", "layers_block_type") if config.get(k) is not None][:1]
    if lists:
        kinds = config[lists[0]]
        if isinstance(kinds, str) or not isinstance(kinds, Sequence):
            raise ValueError(f"config key {lists[0]!r} must be a list, got {kinds!r:.60}")
        kinds = [_LEGACY.get(k, k) if isinstance(k, str) else k for k in kinds]
        if any(k not in PATTERN.values() for k in kinds):
            raise ValueError(f"config key {lists[0]!r} must hold {sorted(PATTERN.values())}, got {kinds!r:.80}")
        return kinds
    if "hybrid_override_pattern" in config:
        pattern = config["hybrid_override_pattern"]
        if not isinstance(pattern, str) or any(ch not in PATTERN for ch in pattern):
            raise ValueError(f"config key 'hybrid_override_pattern' must be a string of {''.join(PATTERN)}, got {pattern!r:.60}")  # fmt: skip
        return [PATTERN[ch] for ch in pattern]
    return ["linear_attention", "moe", "full_attention", "mlp"]


def nemotron_h(config: Mapping[str, Any]) -> Module:
    """``NemotronHForCausalLM`` as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``NemotronHConfig``'s defaults (the legacy names ``mamba_n_groups``,
        ``mamba_d_conv``, ``mamba_conv_bias`` read as transformers reads them). Sizes may be SymPy
        symbols; the pattern is data.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A key derive cannot map, a pattern letter or layer kind transformers does not know, more
        experts per token than experts; naming the key.
    """
    config = dict(config)
    for alias, key in _ALIASES.items():  # the popped name wins (configuration_nemotron_h.py 160-168)
        if alias in config:
            config[key] = config.pop(alias)
    if "num_local_experts" in config:  # the attribute map's name for n_routed_experts, set after it: it wins
        config["n_routed_experts"] = config.pop("num_local_experts")
    kinds = _kinds(config)
    config.pop("layer_types", None)
    c = KEYS.resolve(config)
    V, D, F = hf_config.size(c, "vocab_size"), hf_config.size(c, "hidden_size"), hf_config.size(c, "intermediate_size")
    H, d = hf_config.size(c, "num_attention_heads"), hf_config.size(c, "head_dim")
    KV = kv_heads(c, H)
    Hm, P = hf_config.size(c, "mamba_num_heads"), hf_config.size(c, "mamba_head_dim")
    G, N, K = hf_config.size(c, "n_groups"), hf_config.size(c, "ssm_state_size"), hf_config.size(c, "conv_kernel")
    # mamba_chunk_size, when given, replaces chunk_size (configuration_nemotron_h.py 167)
    chunk = chunk_size(config, "mamba_chunk_size" if "mamba_chunk_size" in config else "chunk_size", 128)
    E, k = hf_config.size(c, "n_routed_experts"), hf_config.size(c, "num_experts_per_tok")
    if type(E) is int and type(k) is int and k > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({k}) exceeds n_routed_experts ({E})")
    Fe, Fs = hf_config.size(c, "moe_intermediate_size"), hf_config.size(c, "moe_shared_expert_intermediate_size")
    latent = None if c["moe_latent_size"] is None else hf_config.size(c, "moe_latent_size")
    flags = {f: hf_config.flag(c, f) for f in ("mlp_bias", "use_conv_bias", "use_bias")}
    mlp_bias = flags["mlp_bias"]

    def moe() -> Module:
        parts: tuple[Module, ...] = (
            routed_experts(latent or D, Fe, E, k, gated=False, type="NemotronHExperts"),
            router(D, E, correction_bias=True, name="gate", type="NemotronHTopkRouter"),
            plain_mlp(D, Fs, bias=mlp_bias, name="shared_experts", type="NemotronHMLP"),
        )
        if latent is not None:  # the routed experts' way into and out of the latent width (every token's)
            parts += (
                linear(D, latent, mlp_bias, name="fc1_latent_proj").replace(part="routed experts"),
                linear(latent, D, mlp_bias, name="fc2_latent_proj").replace(part="routed experts"),
            )
        return moe_block(*parts, name="mixer", type="NemotronHMoE")

    def make(kind: str) -> Module:
        if kind == "linear_attention":
            mix = mixer(
                D, N, K, 1, P, d_inner=Hm * P, ngroups=G, nheads=Hm, chunk=chunk, bias=flags["use_bias"],
                conv_bias=flags["use_conv_bias"], spelling="transformers", name="mixer",
                type="NemotronHMamba2Mixer", norm_type="NemotronHRMSNormGated",
            )  # fmt: skip
        elif kind == "full_attention":
            mix = self_attention(D, H, KV, d, name="mixer", type="NemotronHAttention")
        elif kind == "mlp":
            mix = plain_mlp(D, F, bias=mlp_bias, name="mixer", type="NemotronHMLP")
        else:
            mix = moe()
        return Module("", "NemotronHBlock", children=(rms_norm((D,), name="norm", type="NemotronHRMSNorm"), mix))

    shape: dict[str, Any] = {"vocab_size": V, "hidden_size": D, "layers_block_type": kinds}
    shape.update(num_attention_heads=H, num_key_value_heads=KV, head_dim=d, intermediate_size=F)
    shape.update(ssm_state_size=N, mamba_num_heads=Hm, mamba_head_dim=P, n_groups=G, conv_kernel=K)
    shape.update(n_routed_experts=E, num_experts_per_tok=k, moe_intermediate_size=Fe)
    shape.update(moe_shared_expert_intermediate_size=Fs, moe_latent_size=latent, **flags)
    shape.update(kept_chunk(config, shape, "chunk_size", "mamba_chunk_size"))
    return causal_lm(
        "NemotronH", vocab=V, hidden=D, layers=layer_list(make, kinds, len(kinds)), tie=False, config=shape,
        embed=embedding(V, D, name="embeddings"), norm=rms_norm((D,), name="norm_f", type="NemotronHRMSNorm"),
    )  # fmt: skip


register("NemotronHMamba2Mixer", decode_flops)
register_family("nemotron_h", "NemotronHConfig", "NemotronHForCausalLM", nemotron_h, _SOURCE, keys=KEYS)
