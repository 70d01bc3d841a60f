"""The recurrent mixers of hybrid language models — Gated DeltaNet, KDA, lightning attention, LFM2's
short convolution — held against transformers 5.23.0's own modules on the meta device.

Each case builds the real mixer class from its family's config (``XConfig(**sizes)``, the module
``XMixer(config, layer_idx)`` of a layer whose ``layer_types`` entry is the mixer's) under
``torch.device("meta")`` and compares every parameter's and buffer's name and shape, and the total,
with derive's tree of the same sizes. The cache States are held against running models in
``test_cache_states.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import hf_live
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.blocks.gated_deltanet import gated_deltanet
from derive.blocks.kda import kda
from derive.blocks.lightning import lightning_attention
from derive.blocks.short_conv import short_conv
from derive.tree import count, named_buffers, named_parameters

PROPERTY = settings(max_examples=25, deadline=None)


def real(family: str, cls: str, config_cls: str, layer_idx: int, **config: Any) -> Any:
    """``transformers.models.<family>.modeling_<family>.<cls>(<config_cls>(**config), layer_idx)`` on meta."""
    import torch

    modeling = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    configuration = importlib.import_module(f"transformers.models.{family}.configuration_{family}")
    cfg = getattr(configuration, config_cls)(**config)
    with torch.device("meta"):
        return getattr(modeling, cls)(cfg, layer_idx)


def same(module: Any, tree: Any, cls: str) -> None:
    """Every parameter and buffer, by name and shape, and the total."""
    tree = tree.replace(name="")
    assert [(n, tuple(p.shape)) for n, p in named_parameters(tree)] == [
        (n, tuple(p.shape)) for n, p in module.named_parameters()
    ]
    assert [(n, tuple(b.shape)) for n, b in named_buffers(tree)] == [
        (n, tuple(b.shape)) for n, b in module.named_buffers()
    ]
    assert count(tree) == sum(p.numel() for p in module.parameters())
    assert tree.type == type(module).__name__
    hf_live.record("transformers", cls)


# --------------------------------------------------------------------------- Gated DeltaNet

#: spelling -> (family, mixer class, config class, index of a linear-attention layer of the default pattern)
GDN = {
    "qwen3_next": ("qwen3_next", "Qwen3NextGatedDeltaNet", "Qwen3NextConfig", 0),
    "qwen3_5": ("qwen3_5", "Qwen3_5GatedDeltaNet", "Qwen3_5TextConfig", 0),
    "qwen3_5_moe": ("qwen3_5_moe", "Qwen3_5MoeGatedDeltaNet", "Qwen3_5MoeTextConfig", 0),
    "qwen4_exp": ("qwen4_exp", "Qwen4ExpTextGatedDeltaNet", "Qwen4ExpTextConfig", 0),
    "olmo_hybrid": ("olmo_hybrid", "OlmoHybridGatedDeltaNet", "OlmoHybridConfig", 0),
}
sizes = st.integers(1, 12)


@pytest.mark.slow
@pytest.mark.parametrize("spelling", sorted(GDN))
@PROPERTY
@given(d=st.integers(1, 40), hk=sizes, hv=sizes, dk=sizes, dv=sizes, k=st.integers(1, 6))
def test_gated_deltanet(spelling: str, d: int, hk: int, hv: int, dk: int, dv: int, k: int) -> None:
    family, cls, config_cls, idx = GDN[spelling]
    keys = {
        "hidden_size": d,
        "linear_num_key_heads": hk,
        "linear_num_value_heads": hv,
        "linear_key_head_dim": dk,
        "linear_value_head_dim": dv,
        "linear_conv_kernel_dim": k,
        "num_hidden_layers": 4,
    }
    if spelling == "olmo_hybrid":
        keys["pad_token_id"] = 0
    module = real(family, cls, config_cls, idx, **keys)
    same(module, gated_deltanet(d, hk, hv, dk, dv, k, spelling=spelling), cls)


def test_gated_deltanet_refuses_an_unknown_spelling() -> None:
    with pytest.raises(ValueError, match="spelling"):
        gated_deltanet(8, 1, 1, 2, 2, spelling="qwen3")


# --------------------------------------------------------------------------- KDA

KDA = {
    "kimi_linear": ("kimi_linear", "KimiLinearDeltaAttention", "KimiLinearConfig"),
    "bailing_hybrid": ("bailing_hybrid", "BailingHybridDeltaAttention", "BailingHybridConfig"),
}


@pytest.mark.slow
@pytest.mark.parametrize("spelling", sorted(KDA))
@PROPERTY
@given(d=st.integers(1, 40), h=sizes, hd=sizes, k=st.integers(1, 6))
def test_kda(spelling: str, d: int, h: int, hd: int, k: int) -> None:
    family, cls, config_cls = KDA[spelling]
    keys = {"hidden_size": d, "linear_num_heads": h, "linear_head_dim": hd, "linear_conv_kernel_dim": k}
    keys.update(num_hidden_layers=2, layer_types=["linear_attention", "full_attention"], pad_token_id=0)
    module = real(family, cls, config_cls, 0, **keys)
    same(module, kda(d, h, hd, k, spelling=spelling), cls)


def test_kda_refuses_an_unknown_spelling() -> None:
    with pytest.raises(ValueError, match="spelling"):
        kda(8, 1, 2, spelling="kimi")


# --------------------------------------------------------------------------- lightning attention


@pytest.mark.slow
@PROPERTY
@given(d=st.integers(1, 40), h=st.integers(1, 8), hd=st.integers(1, 6).map(lambda n: 2 * n), block=st.integers(1, 16))
def test_lightning_attention(d: int, h: int, hd: int, block: int) -> None:
    keys = {"hidden_size": d, "num_attention_heads": h, "head_dim": hd, "block_size": block, "num_hidden_layers": 2}
    keys["layer_types"] = ["linear_attention", "full_attention"]
    module = real("minimax", "MiniMaxLightningAttention", "MiniMaxConfig", 0, **keys)
    same(module, lightning_attention(d, h, hd, block), "MiniMaxLightningAttention")


# --------------------------------------------------------------------------- LFM2's short convolution

SHORT = {
    "lfm2": ("lfm2", "Lfm2ShortConv", "Lfm2Config"),
    "lfm2_moe": ("lfm2_moe", "Lfm2MoeShortConv", "Lfm2MoeConfig"),
    "lfm3": ("lfm3", "Lfm3ShortConv", "Lfm3Config"),
}


@pytest.mark.slow
@pytest.mark.parametrize("spelling", sorted(SHORT))
@PROPERTY
@given(d=st.integers(1, 40), length=st.integers(1, 8), bias=st.booleans())
def test_short_conv(spelling: str, d: int, length: int, bias: bool) -> None:
    family, cls, config_cls = SHORT[spelling]
    keys: dict[str, Any] = {"hidden_size": d, "conv_L_cache": length, "conv_bias": bias, "num_hidden_layers": 2}
    keys["layer_types"] = ["conv", "full_attention"]
    module = real(family, cls, config_cls, 0, **keys)
    same(module, short_conv(d, length, conv_bias=bias, spelling=spelling), cls)


def test_short_conv_refuses_an_unknown_spelling() -> None:
    with pytest.raises(ValueError, match="spelling"):
        short_conv(8, spelling="lfm")


#: The released sizes the docstrings quote, held against the real modules.
RELEASED: list[tuple[Callable[[], Any], Callable[[], Any]]] = []


def test_released_sizes_in_the_docstrings() -> None:
    """Qwen3-Next-80B's linear_attn, Kimi-Linear's KDA, MiniMax-Text-01's lightning layer, LFM2-1.2B's conv."""
    pairs = [
        (real("qwen3_next", "Qwen3NextGatedDeltaNet", "Qwen3NextConfig", 0), gated_deltanet(2048, 16, 32, 128, 128, 4)),
        (
            real(
                "kimi_linear",
                "KimiLinearDeltaAttention",
                "KimiLinearConfig",
                0,
                hidden_size=2304,
                linear_num_heads=32,
                linear_head_dim=128,
                num_hidden_layers=2,
                layer_types=["linear_attention", "full_attention"],
            ),
            kda(2304, 32, 128, 4),
        ),  # fmt: skip
        (
            real(
                "minimax",
                "MiniMaxLightningAttention",
                "MiniMaxConfig",
                0,
                hidden_size=6144,
                num_attention_heads=64,
                head_dim=128,
                block_size=256,
                num_hidden_layers=2,
                layer_types=["linear_attention", "full_attention"],
            ),
            lightning_attention(6144, 64, 128, 256),
        ),  # fmt: skip
        (
            real(
                "lfm2",
                "Lfm2ShortConv",
                "Lfm2Config",
                0,
                hidden_size=2048,
                conv_L_cache=3,
                num_hidden_layers=2,
                layer_types=["conv", "full_attention"],
            ),
            short_conv(2048, 3),
        ),  # fmt: skip
    ]
    for module, tree in pairs:
        assert count(tree) == sum(p.numel() for p in module.parameters())


# --------------------------------------------------------------------------- the mixers' caches, run

#: model type -> (tiny config, the mixer derive builds from it, its layers' indices)
RUNS: dict[str, tuple[dict[str, Any], Any, list[int]]] = {
    "qwen3_next": (
        {"hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 2,
         "num_key_value_heads": 1, "head_dim": 8, "linear_conv_kernel_dim": 3, "linear_key_head_dim": 4,
         "linear_value_head_dim": 6, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
         "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8, "num_experts": 4, "num_experts_per_tok": 2},
        gated_deltanet(16, 2, 4, 4, 6, 3),
        [0, 1, 2],
    ),
    "olmo_hybrid": (
        {"pad_token_id": 0, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4,
         "num_attention_heads": 2, "num_key_value_heads": 1, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 4,
         "linear_value_head_dim": 6, "linear_num_key_heads": 2, "linear_num_value_heads": 2},
        gated_deltanet(16, 2, 2, 4, 6, 4, spelling="olmo_hybrid"),
        [0, 1, 2],
    ),
    "kimi_linear": (
        {"pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0, "hidden_size": 16, "intermediate_size": 24,
         "moe_intermediate_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 2,
         "kv_lora_rank": 8, "qk_rope_head_dim": 4, "v_head_dim": 6, "qk_nope_head_dim": 4, "num_experts": 4,
         "num_experts_per_token": 2, "linear_head_dim": 4, "linear_num_heads": 2, "linear_conv_kernel_dim": 3,
         "layer_types": ["linear_attention", "full_attention", "linear_attention"]},
        kda(16, 2, 4, 3),
        [0, 2],
    ),
    "bailing_hybrid": (
        {"pad_token_id": 0, "eos_token_id": 0, "hidden_size": 16, "intermediate_size": 24,
         "moe_intermediate_size": 8, "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 2,
         "kv_lora_rank": 8, "qk_rope_head_dim": 4, "v_head_dim": 6, "qk_nope_head_dim": 4, "num_experts": 4,
         "num_experts_per_token": 2, "linear_head_dim": 4, "linear_num_heads": 2, "linear_conv_kernel_dim": 2,
         "num_expert_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "layer_group_size": 2},
        kda(16, 2, 4, 2, spelling="bailing_hybrid"),
        [0, 2],
    ),
    "minimax": (
        {"hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 2,
         "num_key_value_heads": 1, "num_local_experts": 4, "num_experts_per_tok": 2, "block_size": 4},
        lightning_attention(16, 2, 8, 4),
        [1, 3],
    ),
    "lfm2": (
        {"hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 2,
         "num_key_value_heads": 1, "conv_L_cache": 3, "block_multiple_of": 8,
         "layer_types": ["conv", "full_attention", "conv", "conv"]},
        short_conv(16, 3),
        [0, 2, 3],
    ),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(RUNS))
@pytest.mark.parametrize(("dtype", "batch", "prefill", "steps"), [("float32", 2, 9, 1), ("bfloat16", 3, 2, 2)])
def test_mixer_caches(model_type: str, dtype: str, batch: int, prefill: int, steps: int) -> None:
    """Each linear layer's cache in a tiny model run with ``use_cache=True``, against the mixer's States."""
    import cache_live

    config, mixer, layers = RUNS[model_type]
    built = cache_live.model(model_type, {"vocab_size": 40, **config}, dtype)
    assert all(built.config.layer_types[i] in ("linear_attention", "conv") for i in layers)
    cache = cache_live.run(built, batch, prefill, steps)
    want = cache_live.derived_bytes(mixer, batch, prefill + steps, dtype)
    for layer in layers:
        assert cache_live.layer_bytes(cache, layer) == want, layer
