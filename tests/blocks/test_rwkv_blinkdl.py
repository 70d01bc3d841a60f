"""RWKV-5/6/7 as BlinkDL's RWKV-LM declares them (it cannot run here: CUDA kernels are compiled at
import; cited file:line in ``derive.blocks.rwkv6`` / ``rwkv7``; fla's in ``rwkv6_fla`` / ``rwkv7_fla``): checkpoint names, the per-block counts
the REFERENCE cites (v5 time mix 5CA + 4C + 4A, v6 adds the LoRAs of ranks 32 and 64), the FFN and
LoRA-rank rules, layer 0, the refusals; and the config keys' checks. Counts of RWKV-6/7 are held
live against flash-linear-attention in ``test_rwkv_fla.py``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import sympy
from blocks_live import tensors

from derive.blocks import _keys
from derive.blocks.rwkv6 import channel_mix, rwkv5_blinkdl, rwkv5_time_mix, rwkv6_blinkdl, rwkv6_time_mix
from derive.blocks.rwkv6_fla import _read_rwkv6, rwkv6_attention, rwkv6_for_causal_lm, scaled
from derive.blocks.rwkv7 import lora_rank, rwkv7_blinkdl, rwkv7_channel_mix, rwkv7_time_mix
from derive.blocks.rwkv7_fla import _read_rwkv7, rwkv7_attention, rwkv7_for_causal_lm
from derive.tree import count

C, A = sympy.symbols("C A", integer=True, positive=True)


def own(module) -> dict:
    """The module's tensors named within it."""
    return dict(tensors(module.replace(name="")))


def test_rwkv5_time_mix_names_and_count() -> None:
    att = rwkv5_time_mix(C, A, 64)
    assert sympy.expand(count(att) - (5 * C * A + 4 * C + 4 * A)) == 0  # REFERENCE: v5 time-mix 5CA + 4C + 4A
    names = own(rwkv5_time_mix(128, 128))
    assert names["time_decay"] == (2, 64) and names["time_faaaa"] == (2, 64) and names["time_mix_g"] == (1, 1, 128)
    assert names["gate.weight"] == (128, 128) and names["ln_x.weight"] == (128,)


def test_rwkv6_time_mix_names_and_count() -> None:
    att = rwkv6_time_mix(C, A, 64)
    assert sympy.expand(count(att) - (5 * C * A + 390 * C + 68 * A)) == 0
    names = own(rwkv6_time_mix(256, 256))
    assert names["time_maa_w1"] == (256, 160) and names["time_maa_w2"] == (5, 32, 256)
    assert (
        names["time_decay_w1"] == (256, 64)
        and names["time_decay_w2"] == (64, 256)
        and names["time_decay"] == (1, 1, 256)
    )


def test_channel_mixes() -> None:
    assert list(own(channel_mix(64, 224, "5")))[:2] == ["time_mix_k", "time_mix_r"]
    assert list(own(channel_mix(64, 224, "6")))[:2] == ["time_maa_k", "time_maa_r"]
    assert channel_mix(64, 224).count == 2 * 64 * 224 + 64 * 64 + 2 * 64
    assert rwkv7_channel_mix(64).count == 8 * 64 * 64 + 64  # 4·C, not dim_ffn


def test_models_and_layer_zero() -> None:
    names = [n for n, _ in tensors(rwkv5_blinkdl(100, 64, 2))]
    assert names[:1] == ["emb.weight"] and "blocks.0.ln0.weight" in names and "blocks.1.ln0.weight" not in names
    assert "blocks.1.att.time_faaaa" in names and names[-3:] == ["ln_out.weight", "ln_out.bias", "head.weight"]
    # dim_ffn = int(64 * 3.5) // 32 * 32 = 224
    assert dict(tensors(rwkv6_blinkdl(100, 64, 2)))["blocks.1.ffn.key.weight"] == (224, 64)
    full, released = rwkv7_blinkdl(100, 64, 3), rwkv7_blinkdl(100, 64, 3, layer0_value_lora=False)
    missing = {n for n, _ in tensors(full)} - {n for n, _ in tensors(released)}
    assert missing == {"blocks.0.att.v0", "blocks.0.att.v1", "blocks.0.att.v2"}  # BlinkDL/RWKV-LM#285


def test_symbolic_closed_forms() -> None:
    v, c, n = sympy.symbols("V C L", integer=True, positive=True)
    f = sympy.Symbol("F", integer=True, positive=True)
    six = rwkv6_blinkdl(v, c, n, dim_ffn=f)
    per_block = 5 * c * c + 68 * c + 2 * c * f + c * c + 396 * c
    assert sympy.expand(count(six) - (n * per_block + 2 * c + 2 * v * c + 2 * c)) == 0
    r = sympy.symbols("R_w R_a R_v R_g", integer=True, positive=True)
    seven = rwkv7_blinkdl(v, c, n, decay_rank=r[0], a_rank=r[1], v_rank=r[2], gate_rank=r[3])
    block = 12 * c**2 + 2 * c * sum(r) + 19 * c
    assert sympy.expand(count(seven) - (n * block + 2 * c + 2 * v * c + 2 * c)) == 0
    assert (
        sympy.expand(count(rwkv5_time_mix(c, c, sympy.Symbol("N", positive=True, integer=True))) - (5 * c**2 + 8 * c))
        == 0
    )


def test_lora_rank_rule() -> None:
    # train_temp/src/model.py 547-563; Python's round() halves to even: C = 1024 gives 64 (2.5·32/32 = 2.5)
    assert [lora_rank(c, 2.5) for c in (768, 1024, 2048, 2560, 4096)] == [64, 64, 128, 128, 160]
    assert [lora_rank(c, 1.7) for c in (768, 1024, 2048, 4096)] == [32, 64, 64, 96]
    assert [lora_rank(c, 5) for c in (768, 1024, 2048, 4096)] == [128, 160, 224, 320]
    assert lora_rank(768, 2.5, factor=2.0) == 128
    with pytest.raises(ValueError, match="symbolic C"):
        lora_rank(C, 2.5)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rwkv5_blinkdl(10, 48, 2), "n_embd \\(48\\) must be a multiple of 32"),
        (lambda: rwkv6_blinkdl(10, 64, 2, dim_ffn=100), "dim_ffn \\(100\\) must be a multiple of 32"),
        (lambda: rwkv6_blinkdl(10, 64, 2, dim_att=96), "dim_att \\(96\\) must be a multiple of head_size_a"),
        (lambda: rwkv6_blinkdl(10, C, 2), "needs an integer n_embd"),
        (lambda: rwkv7_blinkdl(10, 48, 2), "n_embd \\(48\\) must be a multiple of 32"),
        (lambda: rwkv7_time_mix(96, 64), "multiple of head_size"),
        (lambda: rwkv7_blinkdl(10, C, 2), "symbolic C"),
    ],
)
def test_blinkdl_refusals(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rwkv6_attention(mode="parallel"), "Not supported mode"),
        (lambda: rwkv7_attention(mode="parallel"), "Not supported mode"),
        (lambda: rwkv6_attention(hidden_size=65, num_heads=1), "must be an integer, got 32.5"),
        (lambda: rwkv6_attention(hidden_size=64, num_heads=3), "key dim must be divisible by num_heads of 3"),
        (lambda: rwkv7_attention(head_dim=None), "Either `head_dim` or `num_heads`"),
        (lambda: rwkv7_attention(hidden_size=96, head_dim=64), "divisible by `head_dim`"),
        (lambda: rwkv7_attention(hidden_size=96, head_dim=None, num_heads=5), "divisible by `num_heads`"),
        (lambda: rwkv7_attention(hidden_size=128, value_dim=99), "`value_dim` must be divisible"),
        (lambda: rwkv7_attention(layer_idx=2), "num_hidden_layers must be given"),
        (lambda: rwkv7_attention(hidden_size=64, head_dim=1, layer_idx=2, num_hidden_layers=4), "exceed 1"),
        (lambda: rwkv7_attention(layer_idx=2, num_hidden_layers=4, elementwise_affine=False), "elementwise_affine"),
        (lambda: rwkv7_attention(head_dim=C), "head_dim/64"),
        (lambda: rwkv6_for_causal_lm({"hidden_size": C}), "needs an integer hidden_size"),
        (lambda: rwkv6_for_causal_lm({"hidden_ratio": "3.5"}), "'hidden_ratio' must be a positive number"),
        (lambda: rwkv7_for_causal_lm({"head_dim": None}), "both null"),
        (lambda: rwkv7_for_causal_lm({"value_dim": [2048]}), "num_hidden_layers \\(24\\) entries"),
        (lambda: rwkv7_for_causal_lm({"value_dim": 1000}), "multiple of hidden_size"),
        (
            lambda: rwkv7_for_causal_lm(
                {"hidden_size": C, "head_dim": C / 64, "intermediate_size": 7, "decay_low_rank_dim": None}
            ),
            "head_dim/64",
        ),
    ],
)
def test_fla_refusals(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_symbolic_fla_layers() -> None:
    d = sympy.Symbol("D", integer=True, positive=True)
    six = rwkv6_attention(hidden_size=d, expand_k=0.5, num_heads=4)
    assert sympy.expand(count(six) - (4 * d**2 + 96 * d + 320 * d + 9 * d)) == 0  # g = 64, r = 32, K = D/2
    assert scaled(d, 0.3, "expand_k") == 3 * d / 10
    heads = sympy.Symbol("H", integer=True, positive=True)
    seven = rwkv7_attention(hidden_size=d, head_dim=None, num_heads=heads, decay_low_rank_dim=1, a_low_rank_dim=1,
                            v_low_rank_dim=1, gate_low_rank_dim=1)  # fmt: skip
    assert sympy.expand(count(seven) - (4 * d**2 + 8 * d + 14 * d)) == 0
    by_dim = rwkv7_attention(hidden_size=d, head_dim=sympy.Symbol("N", integer=True, positive=True),
                             decay_low_rank_dim=1, a_low_rank_dim=1, v_low_rank_dim=1, gate_low_rank_dim=1)  # fmt: skip
    assert count(by_dim) == count(seven)
    config = {"hidden_size": d, "num_hidden_layers": 2, "vocab_size": 9, "intermediate_size": 7, "head_dim": None,
              "num_heads": heads}  # fmt: skip
    assert count(rwkv7_for_causal_lm(config)).free_symbols == {d}


def test_closed_forms_of_the_constructors() -> None:
    six = rwkv6_attention(hidden_size=64, num_heads=2)
    assert str(six.formula.expr) == "4*D**2 + 3*D*g/2 + 10*D*r + 9*D" and dict(six.formula.values)["D"] == 64
    first = rwkv7_attention(hidden_size=128, layer_idx=0, num_hidden_layers=4)
    assert str(first.formula.expr) == "4*D**2 + 2*D*R_a + 2*D*R_g + 2*D*R_w + 13*D"
    wide = rwkv7_attention(hidden_size=128, value_dim=256)
    assert "V" in str(wide.formula.expr) and count(wide) == int(wide.formula.expr.subs(
        {sympy.Symbol(k, integer=True, positive=True): v for k, v in wide.formula.values}))  # fmt: skip


def test_read_live_attributes() -> None:
    # the attributes fla keeps (names as in fla/layers/rwkv6.py 50-56, rwkv7.py 54-101); checked on real
    # objects in test_rwkv_fla.py::test_read_remakes_live_layers
    six = SimpleNamespace(mode="chunk", hidden_size=64, expand_k=0.5, expand_v=1.0, num_heads=2, proj_low_rank_dim=8,
                          gate_low_rank_dim=16, layer_idx=None, g_norm=SimpleNamespace(elementwise_affine=False))  # fmt: skip
    args, kwargs = _read_rwkv6(six)
    assert args == () and kwargs["elementwise_affine"] is False and rwkv6_attention(**kwargs).count > 0
    seven = SimpleNamespace(mode="chunk", hidden_size=64, head_dim=32, decay_low_rank_dim=8, gate_low_rank_dim=8,
                            a_low_rank_dim=8, v_low_rank_dim=8, layer_idx=None, fuse_norm=False, value_dim=64,
                            num_hidden_layers=None, g_norm=SimpleNamespace(affine=True))  # fmt: skip
    assert _read_rwkv7(seven)[1]["elementwise_affine"] is True


def test_config_keys() -> None:
    assert _keys.value({"a": None}, "a", 3) == 3
    assert _keys.number({"r": 2}, "r", 1.0) == 2
    with pytest.raises(ValueError, match="'r' must be a positive number"):
        _keys.number({"r": float("inf")}, "r", 1.0)
    with pytest.raises(ValueError, match="must be an integer size"):
        _keys.size({"d": sympy.Rational(1, 2)}, "d", 1)
    assert _keys.size({"d": C}, "d", 1) is C
    recipe = _keys.formula(
        lambda config: rwkv7_channel_mix(config["n"]), {"n": 64, "zero": 0, "names": ["a"]}, {"n": "C", "zero": "Z"}
    )
    assert dict(recipe.values) == {"C": 64} and str(recipe.expr) == "8*C**2 + C"
