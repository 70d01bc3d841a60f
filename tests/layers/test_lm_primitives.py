"""The decoder-LM primitives of derive.layers held against transformers 5.23.0's own modules, built
alone on the meta device (names and shapes from ``named_parameters``/``named_buffers``), and a
latent attention's cache and decode FLOPs against a tiny Kimi-Linear run."""

from __future__ import annotations

import pytest
import sympy
import torch
import transformers
from torch.utils.flop_counter import FlopCounterMode

from derive.layers.lm_attention import attended, latent_attention, self_attention
from derive.layers.mlp import gated_mlp, plain_mlp
from derive.layers.moe import routed_experts, router
from derive.layers.token_flops import BATCH_ONE, matmul_flops, per_sequence, register
from derive.tree import Module, Param, State, active, count, named_buffers, named_parameters


def _live(module: torch.nn.Module) -> list[tuple[str, tuple[int, ...]]]:
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


def _mine(module: Module) -> list[tuple[str, tuple[int, ...]]]:
    return [(n, tuple(p.shape)) for n, p in named_parameters(module.replace(name=""))]


KIMI = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4, "kv_lora_rank": 16,
        "qk_rope_head_dim": 8, "qk_nope_head_dim": 12, "v_head_dim": 10, "vocab_size": 50,
        "num_hidden_layers": 1, "intermediate_size": 32, "moe_intermediate_size": 8, "num_local_experts": 4,
        "num_experts_per_tok": 2, "linear_head_dim": 8, "linear_num_heads": 2}  # fmt: skip


@pytest.mark.parametrize(("q_lora_rank", "bias"), [(None, False), (24, True)])
def test_latent_attention_is_kimi_linear_attention(q_lora_rank: int | None, bias: bool) -> None:
    from transformers.models.kimi_linear.modeling_kimi_linear import KimiLinearAttention

    config = transformers.KimiLinearConfig(**KIMI, q_lora_rank=q_lora_rank, attention_bias=bias)
    with torch.device("meta"):
        live = KimiLinearAttention(config, 0)
    mine = latent_attention(64, 4, kv_lora_rank=16, qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10,
                            q_lora_rank=q_lora_rank, bias=bias, type="KimiLinearAttention")  # fmt: skip
    assert _mine(mine) == _live(live)
    assert count(mine) == sum(p.numel() for p in live.parameters())


def test_latent_attention_cache_and_flops_as_kimi_runs_it() -> None:
    """The latent cache (B, 1, T, c) and (B, 1, T, r), and one decode step's matmul FLOPs."""
    from transformers.cache_utils import DynamicCache
    from transformers.models.kimi_linear.modeling_kimi_linear import KimiLinearAttention

    config = transformers.KimiLinearConfig(**KIMI)
    config._attn_implementation = "eager"
    attn = KimiLinearAttention(config, 0).eval()
    mine = latent_attention(64, 4, kv_lora_rank=16, qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10)
    cache = DynamicCache()
    batch, tokens = 2, 5
    with torch.no_grad():
        attn(torch.randn(batch, tokens, 64), None, past_key_values=cache)
        layer = cache.layers[0]
        assert [tuple(layer.keys.shape), tuple(layer.values.shape)] == [
            tuple(batch if d == "batch" else tokens if d == "tokens" else d for d in s.shape) for s in mine.cache
        ]
        with FlopCounterMode(display=False) as counter:
            attn(torch.randn(batch, 1, 64), None, past_key_values=cache)
    flops = sum(v for k, v in counter.get_flop_counts()["Global"].items() if str(k) in ("aten.mm", "aten.bmm"))
    assert flops == batch * matmul_flops(mine, tokens + 1)


def test_gated_and_plain_mlp_and_experts_as_transformers_builds_them() -> None:
    from transformers.models.nemotron_h.modeling_nemotron_h import NemotronHExperts, NemotronHMLP

    config = transformers.NemotronHConfig(hidden_size=32, intermediate_size=24, moe_intermediate_size=8,
                                          n_routed_experts=5, num_experts_per_tok=2)  # fmt: skip
    with torch.device("meta"):
        experts, mlp = NemotronHExperts(config), NemotronHMLP(config)
    assert _mine(routed_experts(32, 8, 5, 2, gated=False)) == _live(experts)
    assert _mine(plain_mlp(32, 24, bias=config.mlp_bias)) == _live(mlp)
    from transformers.models.llama.modeling_llama import LlamaMLP

    with torch.device("meta"):
        llama = LlamaMLP(transformers.LlamaConfig(hidden_size=32, intermediate_size=24, mlp_bias=True))
    assert _mine(gated_mlp(32, 24, bias=True)) == _live(llama)


def test_router_with_a_correction_bias_keeps_it_as_a_buffer() -> None:
    from transformers.models.kimi_linear.modeling_kimi_linear import KimiLinearTopkRouter

    with torch.device("meta"):
        live = KimiLinearTopkRouter(transformers.KimiLinearConfig(**KIMI))
    mine = router(64, 4, correction_bias=True, type="KimiLinearTopkRouter")
    assert _mine(mine) == _live(live)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(mine.replace(name=""))] == [
        (n, tuple(b.shape)) for n, b in live.named_buffers()
    ]


def test_symbolic_sizes_and_windows() -> None:
    T, W, D, k, E = sympy.symbols("T W D k E", integer=True, positive=True)
    attn = self_attention(D, 4, 2, 8, window=W, gated=True, qk_norm=True)
    assert attn.child("q_proj").params[0].shape == (64, D)
    assert matmul_flops(attn, T) == 2 * (64 * D + 2 * 16 * D + 32 * D) + 2 * 4 * 16 * sympy.Min(T, W)
    assert attended(T, None) == T
    experts = routed_experts(D, 8, E, k)
    assert active(experts) == sympy.expand(3 * 8 * D * k)
    assert matmul_flops(experts, 1) == sympy.expand(2 * 3 * 8 * D * k)
    with pytest.raises(ValueError, match="multiple"):
        self_attention(10, 3)


def test_flops_refuse_what_they_cannot_count() -> None:
    with pytest.raises(ValueError, match="not derived"):
        matmul_flops(Module("mixer", "Unknown", (Param("A", (4, 4)),)), 1)
    with pytest.raises(ValueError, match="not derived"):
        matmul_flops(Module("mixer", "Unknown", cache=(State("h", ("batch", 4)),)), 1)
    with pytest.raises(ValueError, match="not counted"):
        matmul_flops(Module("x", "Linear", counted=False), 1)
    register("ATestRule", matmul_flops)
    with pytest.raises(ValueError, match="registered already"):
        register("ATestRule", lambda m, t: 0)
    repeated = Module("layers", "Linear", (Param("weight", (3, 2)),), repeat=4)
    assert matmul_flops(repeated, 1) == 48


def test_a_rule_for_one_sequence_refuses_another_batch() -> None:
    """transformers' RWKV is registered for a batch of one (its step broadcasts N sequences to N x N rows)."""
    import derive.blocks.rwkv  # noqa: F401  (registers its rules)

    assert set(BATCH_ONE) == {"RwkvSelfAttention", "RwkvFeedForward"}
    stack = Module("model", "RwkvModel", children=(Module("blocks", "ModuleList", children=(
        Module("attention", "RwkvSelfAttention"),)),))  # fmt: skip
    per_sequence(stack, 1)
    with pytest.raises(ValueError, match="RwkvSelfAttention 'attention' at a batch of 2: .*N x N rows"):
        per_sequence(stack, 2)
    with pytest.raises(ValueError, match="at a batch of N"):
        per_sequence(stack, sympy.Symbol("N"))
    per_sequence(Module("mlp", "MLP", children=(Module("up", "Linear"),)), 5)
