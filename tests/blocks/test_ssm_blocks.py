"""The state-space and fla blocks' refusals, options, letters and constructors (the live and reference
comparisons are in ``test_fla_layers_live.py`` and ``test_ssm_reference.py``)."""

from __future__ import annotations

import sys
import types

import pytest
import sympy

from derive.blocks import _ssm_common as common
from derive.blocks import fla, fla_recurrent, lru, s4, s4_kernel, s5
from derive.engine.constructors import find, lookup
from derive.engine.symbols import size_symbols
from derive.tree import count, named_buffers, named_parameters

D, H, N = size_symbols("D H N")


def test_common_checks() -> None:
    with pytest.raises(TypeError, match="d_state must be an int"):
        common.size(6.0, "d_state")
    with pytest.raises(TypeError):
        common.size(True, "d_state")
    with pytest.raises(ValueError, match="at least 1"):
        common.size(0, "d_model")
    assert common.size(N, "d_state") is N
    with pytest.raises(TypeError, match="must be a bool"):
        common.flag("False", "bidirectional")
    assert common.flag(None, "x") is False and common.flag(1, "x") is True
    with pytest.raises(TypeError, match="must be a number"):
        common.ratio_of("0.5", "expand_k")
    with pytest.raises(ValueError, match="must be an integer"):
        common.times_ratio(100, 0.335, "expand_k")
    assert common.times_ratio(D, 0.5, "expand_k") == D / 2
    assert common.half(N) == N / 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"kernel": "dss"}, ValueError, "kernel_registry"),
        ({"lr": 0}, TypeError, "lr must be None"),
        ({"dt_transform": "tanh"}, ValueError, "dt_transform"),
        ({"backend": "gpu"}, ValueError, "backend"),
        ({"foo": 1}, TypeError, "unexpected keyword argument 'foo'"),
        ({"n_ssm": 3}, ValueError, "must divide"),
        ({"measure": "legs"}, ValueError, "cannot both"),
        ({"init": None}, ValueError, "must be a string"),
        ({"init": "diag", "n_ssm": 1}, ValueError, "multiple of 2"),
        ({"init": "diagonal"}, ValueError, "not one s4.py knows"),
        ({"init": "diag-foo"}, ValueError, "not one s4.py knows"),
        ({"init": "lagt"}, ValueError, "not one s4.py knows"),
        ({"init": "legt"}, ValueError, "rank >= 2"),
        ({"init": "fourier", "d_state": 6 + 1}, ValueError, "even d_state"),
        ({"d_state": 2}, ValueError, "at least 4"),
        ({"real_random": True}, TypeError, "unexpected keyword argument 'real_random'"),
        ({"init": "diag-lin", "B_init": "alternating"}, ValueError, "B_init"),
    ],
)
def test_s4_kernel_refuses_what_the_reference_refuses(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        s4_kernel.ssm_kernel(4, **kwargs)


def test_s4_kernel_options() -> None:
    assert count(s4_kernel.ssm_kernel(4, measure="legs", init=None)) == count(s4_kernel.ssm_kernel(4))
    assert count(s4_kernel.ssm_kernel(4, init="diag-lin", d_state=2, real_random=True, B_init="random")) > 0
    assert count(s4_kernel.ssm_kernel(4, init="legs", diagonalize_precision=False, dt_min=0.01)) > 0
    real = s4_kernel.ssm_kernel(4, kernel="diag", d_state=8, is_real=True)
    assert [(p.name, p.shape) for p in real.params] == [
        ("inv_dt", (4, 1)),
        ("C", (1, 4, 8)),
        ("B", (1, 4, 8)),
        ("A_real", (4, 8)),
    ]
    assert [p.shape for p in s4_kernel.ssm_kernel(4, kernel="diag", is_real=True).params][1] == (1, 4, 32)
    frozen = s4_kernel.ssm_kernel(4, lr={"C": 0.0})
    assert [p.name for p in frozen.params if p.buffer] == ["C", "l_kernel"]
    assert s4_kernel.frozen(0.0) and not s4_kernel.frozen(None) and not s4_kernel.frozen({"dt": 0.0})
    assert count(s4_kernel.ssm_kernel(H, d_state=N, n_ssm=H)) == count(s4_kernel.ssm_kernel(H, d_state=N))


def test_s4d_and_s4_block_refusals_and_options() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        s4.s4d(4, dropout=1.0)
    with pytest.raises(ValueError, match="line 1851"):
        s4.s4_block(4, gate=2)
    with pytest.raises(ValueError, match="final_act=None"):
        s4.s4_block(4, postact="glu")
    assert count(s4.s4_block(4, postact="glu", final_act=None)) == count(s4.s4_block(4))
    with pytest.raises(ValueError, match="mult_act"):
        s4.s4_block(4, mult_act="swiglu")
    with pytest.raises(ValueError, match="either mode or kernel"):
        s4.fft_conv(4, kernel="diag")
    assert count(s4.fft_conv(4, mode=None, kernel="diag")) == count(s4.fft_conv(4, mode="diag"))
    with pytest.raises(ValueError, match="dropout"):
        s4.fft_conv(4, dropout=1.0, tie_dropout=True)
    with pytest.raises(ValueError, match="drop_kernel"):
        s4.fft_conv(4, drop_kernel=1.5)
    assert count(s4.s4_block(H, bottleneck=2, d_state=N)) == count(s4.s4_block(H, bottleneck=2, d_state=N))
    assert s4.s4d(H, N).formula.expr == 2 * H**2 + 2 * H * N + 4 * H
    assert s4.s4_block(8).formula.expr == 2 * H**2 + 260 * H  # d_state not given: 64, no letter


def test_s5_and_lru_refusals_and_options() -> None:
    with pytest.raises(ValueError, match="C_init"):
        s5.s5_ssm(4, 4, C_init="normal")
    with pytest.raises(ValueError, match="Discretization"):
        s5.s5_ssm(4, 4, discretization="euler")
    with pytest.raises(ValueError, match="Activation"):
        s5.s5_layer(4, 8, activation="relu")
    assert s5.state_size(12, 3, conj_sym=False) == 12 and s5.state_size(N) == N / 2
    complex_bi = s5.s5_ssm(4, 3, "complex_normal", bidirectional=True, complex_params=True)
    assert [(n, p.shape, p.complex) for n, p in named_parameters(complex_bi)][:3] == [
        ("Lambda", (3,), True),
        ("B", (3, 4), True),
        ("C", (4, 6), True),
    ]
    assert count(complex_bi, real=True) == count(s5.s5_ssm(4, 3, "complex_normal", bidirectional=True))
    assert [n for n, _ in named_buffers(s5.s5_layer(4, 8, batchnorm=True))] == ["norm/mean", "norm/var"]
    assert lru.lru(N, H).formula.expr == 4 * N * H + 3 * N + H
    assert [n for n, _ in named_parameters(lru.lru(2, 3, complex_params=True))][3:5] == ["B", "C"]


@pytest.mark.parametrize(
    ("build", "kwargs", "match"),
    [
        (fla.gated_linear_attention, {"num_heads": 4, "num_kv_heads": 3}, "num_kv_heads"),
        (fla.gated_linear_attention, {"hidden_size": 100, "expand_k": 0.335}, "integer"),
        (fla.gated_linear_attention, {"mode": "parallel"}, "Not supported mode"),
        (fla.gated_linear_attention, {"feature_map": "elu"}, "ACT2FN"),
        (fla.gated_linear_attention, {"hidden_size": 100, "num_heads": 3}, "divisible by num_heads"),
        (fla.gated_linear_attention, {"gate_fn": "tanh", "fuse_norm": False}, "ACT2FN"),
        (fla.multiscale_retention, {"hidden_size": 1024, "num_heads": 2}, "256"),
        (fla.multiscale_retention, {"feature_map": "elu"}, "transformers"),
        (fla_recurrent.hgrn_attention, {"mode": "parallel"}, "Not supported mode"),
        (fla_recurrent.hgrn2_attention, {"expand_ratio": None}, "should be provided"),
        (fla_recurrent.hgrn2_attention, {"hidden_size": 64}, "no head"),
        (fla_recurrent.hgrn2_attention, {"hidden_size": 100, "expand_ratio": 32}, "input dim"),
        (fla_recurrent.delta_net, {"qk_activation": "tanh"}, "qk_activation"),
        (fla_recurrent.delta_net, {"qk_norm": "l1"}, "qk_norm"),
        (fla_recurrent.delta_net, {"mode": "fused_chunk"}, "deprecated"),
    ],
)
def test_fla_refusals(build, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        build(**kwargs)


def test_fla_letters_and_options() -> None:
    assert (
        fla.gated_linear_attention(hidden_size=D, num_heads=H, num_kv_heads=H).count
        == fla.gated_linear_attention(hidden_size=D, num_heads=H).count
    )
    grouped = fla.gated_linear_attention(hidden_size=D, num_heads=H, num_kv_heads=sympy.Integer(1) * H / 2)
    assert grouped.count.free_symbols == {D, H}
    assert fla_recurrent.hgrn_attention(hidden_size=D, expand_ratio=2).count == 8 * D**2 + 2 * D
    assert fla_recurrent.hgrn2_attention(hidden_size=D, num_heads=H, expand_ratio=None).count == 4 * D**2 + D
    assert fla_recurrent.hgrn2_attention(hidden_size=D).formula.expr == 4 * D**2 + D
    retnet = fla.multiscale_retention(feature_map="prelu", gate_fn="xielu", fuse_norm=False, hidden_size=D, num_heads=H)
    assert [n for n, _ in named_parameters(retnet)][0] == "feature_map_fn.weight"
    assert [n for n, _ in named_buffers(retnet)] == ["gate_fn.beta", "gate_fn.eps", "rotary.inv_freq"]


def test_constructors_are_registered() -> None:
    s4d = lookup("s4", "S4D")
    assert count(s4d.make(64)) == 16640
    with pytest.raises(TypeError, match="multiple values"):
        s4d.make(64, N=8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        s4d.make(64, mode="diag")
    with pytest.raises(TypeError, match="complex_params"):
        lookup("s4", "S4Block").make(64, complex_params=True)
    assert count(lookup("s4", "FFTConv").make(8, d_state=4)) == count(s4.fft_conv(8, d_state=4))
    ssm = lookup("s5", "S5SSM").make(None, None, None, None, 4, 2, "lecun_normal", "zoh", 0.001, 0.1)
    assert count(ssm) == 4 * 2 * 4 + 3 * 2 + 4
    assert count(lookup("lru", "LRU").make(2, 3)) == count(lru.lru(2, 3))
    assert [c.name for c in find("fla.layers.DeltaNet")] == ["DeltaNet"]
    assert lookup("fla", "GatedLinearAttention").letters == {"hidden_size": "D", "num_heads": "H"}


class _Linear:
    def __init__(self, out_features: int) -> None:
        self.out_features = out_features


class _Norm:
    def __init__(self, weight: object) -> None:
        self.weight = weight


def test_the_fla_reader_on_stand_ins(monkeypatch) -> None:
    """``read`` maps a live layer's attributes back to arguments (held on real fla objects live)."""

    def swish(x):  # pragma: no cover - only its identity matters
        return x

    fake = types.ModuleType("fla.modules.activations")
    fake.ACT2FN = {"relu": len, "silu": swish, "swish": swish}
    monkeypatch.setitem(sys.modules, "fla.modules.activations", fake)
    gla = types.SimpleNamespace(
        mode="chunk",
        hidden_size=64,
        expand_k=0.5,
        expand_v=1.0,
        num_heads=4,
        num_kv_heads=4,
        use_short_conv=False,
        conv_size=4,
        conv_bias=False,
        use_output_gate=True,
        fuse_norm_and_gate=False,
        g_norm=_Norm(None),
        gate_fn=swish,
        feature_map_fn=len,
        gk_proj=[_Linear(8)],
    )
    args, kwargs = lookup("fla", "GatedLinearAttention").read(gla)
    assert kwargs | {} == kwargs and kwargs["gate_fn"] == "silu" and kwargs["feature_map"] == "relu"
    assert kwargs["elementwise_affine"] is False and kwargs["gate_low_rank_dim"] == 8
    from transformers.activations import ACT2FN

    retnet = types.SimpleNamespace(**{**vars(gla), "gate_fn": ACT2FN["prelu"], "feature_map_fn": None})
    del retnet.gk_proj
    _, kwargs = lookup("fla", "MultiScaleRetention").read(retnet)
    assert kwargs["gate_fn"] == "prelu" and kwargs["feature_map"] is None
    hgrn = type("HGRNAttention", (), {})()
    hgrn.__dict__.update(mode="chunk", hidden_size=64, expand_ratio=1, use_short_conv=False, conv_size=4)
    hgrn.__dict__.update(conv_bias=False, g_norm=_Norm(1))
    assert lookup("fla", "HGRNAttention").read(hgrn)[1]["elementwise_affine"] is True


@pytest.mark.parametrize("text", ["Mamba(d_model=18)", "Mamba2(d_model=256, headdim=64)", "LRU(16, 8)"])
def test_a_formula_letter_is_never_a_tensor_name_of_its_block(text):
    """Issue 26: D was d_model in Mamba's formula and the mixer's skip tensor ``D`` at once."""
    from derive.cli import describe
    from derive.tree import named_parameters

    shown = describe(text)
    tensors = {name.rsplit(".", 1)[-1] for name, _ in named_parameters(shown["object"])}
    letters = {str(s) for s in shown["formula"].free_symbols}
    assert letters and not letters & tensors, letters & tensors
