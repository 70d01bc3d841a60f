"""xLSTM's layers held against the package that builds them: ``xlstm`` (``sLSTMLayer`` with the
vanilla backend, which runs on CPU, and ``mLSTMLayer``), random sizes and options.

The real parameters are ``named_parameters()`` of the real modules (the names torch prints),
compared in order with ``derive.frameworks.tensors``; the total with ``derive.frameworks.count``.
"""

from __future__ import annotations

import pytest

xlstm = pytest.importorskip("xlstm", reason="the xlstm package does not import here")
import live_record  # noqa: E402
import torch  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from derive import frameworks  # noqa: E402

PROPERTY = settings(max_examples=20, deadline=None)


def params(module: torch.nn.Module) -> list[tuple[str, tuple]]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def check(cls: str, module: torch.nn.Module, h: int, **kwargs) -> None:
    assert [(r.name, r.shape) for r in frameworks.tensors("xlstm", cls, h, h, **kwargs)] == params(module)
    assert frameworks.count("xlstm", cls, h, h, **kwargs) == sum(p.numel() for p in module.parameters())
    live_record.checked("xlstm", cls)


def slstm_layer(h: int, **kwargs) -> torch.nn.Module:
    return xlstm.sLSTMLayer(xlstm.sLSTMLayerConfig(embedding_dim=h, backend="vanilla", **kwargs))


def mlstm_layer(h: int, **kwargs) -> torch.nn.Module:
    return xlstm.mLSTMLayer(xlstm.mLSTMLayerConfig(embedding_dim=h, context_length=2, **kwargs))


def test_slstm_recorded_names() -> None:
    module = slstm_layer(8, num_heads=2)
    assert params(module) == [
        ("conv1d.conv.weight", (8, 1, 4)),
        ("conv1d.conv.bias", (8,)),
        ("fgate.weight", (2, 4, 4)),
        ("igate.weight", (2, 4, 4)),
        ("zgate.weight", (2, 4, 4)),
        ("ogate.weight", (2, 4, 4)),
        ("slstm_cell._recurrent_kernel_", (2, 16, 4)),
        ("slstm_cell._bias_", (32,)),
        ("group_norm.weight", (8,)),
    ]
    assert module(torch.zeros(1, 3, 8)).shape == (1, 3, 8)  # it runs on CPU
    check("sLSTMLayer", module, 8, num_heads=2)


def test_mlstm_recorded_names() -> None:
    module = mlstm_layer(8, num_heads=2)
    assert params(module) == [
        ("learnable_skip", (64,)),
        ("proj_up.weight", (128, 8)),
        ("q_proj.weight", (16, 4, 4)),
        ("k_proj.weight", (16, 4, 4)),
        ("v_proj.weight", (16, 4, 4)),
        ("conv1d.conv.weight", (64, 1, 4)),
        ("conv1d.conv.bias", (64,)),
        ("mlstm_cell.igate.weight", (2, 192)),
        ("mlstm_cell.igate.bias", (2,)),
        ("mlstm_cell.fgate.weight", (2, 192)),
        ("mlstm_cell.fgate.bias", (2,)),
        ("mlstm_cell.outnorm.weight", (64,)),
        ("proj_down.weight", (8, 64)),
    ]
    assert module(torch.zeros(1, 2, 8)).shape == (1, 2, 8)
    check("mLSTMLayer", module, 8, num_heads=2)


@PROPERTY
@given(
    heads=st.integers(1, 4),
    per_head=st.integers(1, 4),
    kernel=st.integers(0, 4),
    gain=st.booleans(),
)
def test_slstm_random(heads, per_head, kernel, gain) -> None:
    h = heads * per_head
    kwargs = {"num_heads": heads, "conv1d_kernel_size": kernel, "group_norm_weight": gain}
    check("sLSTMLayer", slstm_layer(h, **kwargs), h, **kwargs)


@PROPERTY
@given(
    h=st.integers(1, 40),
    heads=st.sampled_from([1, 2, 4, 8]),
    block=st.sampled_from([1, 2, 4, 8, 16]),
    kernel=st.integers(1, 4),
    factor=st.sampled_from([1.0, 1.3, 2.0, 0.5]),
    up=st.booleans(),
    multiple=st.sampled_from([8, 16, 64]),
    bias=st.booleans(),
)
def test_mlstm_random(h, heads, block, kernel, factor, up, multiple, bias) -> None:
    kwargs = {
        "num_heads": heads,
        "conv1d_kernel_size": kernel,
        "qkv_proj_blocksize": block,
        "proj_factor": factor,
        "round_proj_up_dim_up": up,
        "round_proj_up_to_multiple_of": multiple,
        "bias": bias,
    }
    config = xlstm.mLSTMLayerConfig(embedding_dim=h, **kwargs)
    inner = config._inner_embedding_dim
    blocks = inner // block  # xlstm/blocks/mlstm/layer.py: num_proj_heads
    if blocks < 1 or inner % blocks or inner % heads:  # xlstm cannot build or run it: derive refuses it
        with pytest.raises(ValueError):
            frameworks.count("xlstm", "mLSTMLayer", h, h, **kwargs)
        return
    check("mLSTMLayer", mlstm_layer(h, **kwargs), h, **kwargs)


def test_refusals_worded_as_xlstm() -> None:
    with pytest.raises(ValueError, match="Hidden Size 6 must be divisible by head num 4"):
        frameworks.count("xlstm", "sLSTMLayer", 6, 6)
    with pytest.raises(AssertionError, match="in_features must be a multiple of num_heads"):
        slstm_layer(6)
    with pytest.raises(ValueError, match="input_size must equal hidden_size"):
        frameworks.count("xlstm", "sLSTMLayer", 4, 8)
    with pytest.raises(ValueError, match=r"bias must be one of \[True\]"):
        frameworks.count("xlstm", "sLSTMLayer", 8, 8, bias=False)
