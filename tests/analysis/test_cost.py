"""The cost model (derive.cost) against what torch reports for the real modules."""

from __future__ import annotations

import doctest
import random

import derive.torch as dt
import pytest
import sympy
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

import derive.analysis.cost
from derive import H, I, L, P, T
from derive.analysis.cost import DTYPE_BYTES, N, cost, step_ops, stored_elements


def torch_flops(module: nn.Module, seq_len: int, batch: int) -> int:
    """FlopCounterMode's total for one forward on CPU, oneDNN off (its fused RNN kernels are not counted)."""
    input_size = module.input_size
    cell = isinstance(module, nn.RNNCellBase)
    x = torch.randn(batch, input_size) if cell else torch.randn(seq_len, batch, input_size)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        module(x)
    return counter.get_total_flops()


CONFIGS = [
    ("LSTM", (10, 20), {}),
    ("LSTM", (32, 128, 2), {"bidirectional": True}),
    ("LSTM", (20, 50, 3), {"bias": False}),
    ("LSTM", (10, 20, 2), {"proj_size": 5, "bidirectional": True}),
    ("GRU", (10, 20), {}),
    ("GRU", (10, 20, 3), {"bias": False, "bidirectional": True}),
    ("RNN", (25, 50, 4), {"bidirectional": True}),
    ("RNN", (10, 20, 2), {"nonlinearity": "relu"}),
]


def test_docstring_examples():
    assert doctest.testmod(derive.analysis.cost).failed == 0


@pytest.mark.parametrize("cls,args,kwargs", CONFIGS, ids=lambda v: str(v))
def test_matrix_products_match_flop_counter(cls, args, kwargs):
    seq_len, batch = 7, 3
    ours = cost(getattr(dt, cls)(*args, **kwargs), seq_len, batch)
    assert ours.matmul_flops == torch_flops(getattr(nn, cls)(*args, **kwargs), seq_len, batch)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_flop_counter(cls):
    ours = cost(getattr(dt, cls)(10, 20), 1, 5)
    assert ours.matmul_flops == torch_flops(getattr(nn, cls)(10, 20), 1, 5)


def test_random_configurations_match_flop_counter():
    rng = random.Random(11)
    for _ in range(12):
        cls = rng.choice(["LSTM", "GRU", "RNN"])
        args = (rng.randint(1, 40), rng.randint(2, 40), rng.randint(1, 3))
        kwargs = {"bidirectional": rng.random() < 0.5, "bias": rng.random() < 0.5}
        if cls == "LSTM" and rng.random() < 0.4:
            kwargs["proj_size"] = rng.randint(1, args[1] - 1)
        seq_len, batch = rng.randint(1, 6), rng.randint(1, 4)
        ours = cost(getattr(dt, cls)(*args, **kwargs), seq_len, batch)
        assert ours.matmul_flops == torch_flops(getattr(nn, cls)(*args, **kwargs), seq_len, batch), (cls, args, kwargs)


def test_onednn_lstm_is_invisible_to_the_flop_counter():
    """Why the tests switch oneDNN off: by default nn.LSTM on CPU runs a fused oneDNN kernel that
    FlopCounterMode does not count (it reports 0). If torch starts counting it, the page must change."""
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        nn.LSTM(10, 20)(torch.randn(7, 3, 10))
    assert counter.get_total_flops() in (0, cost(dt.LSTM(10, 20), 7, 3).matmul_flops)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_weight_bytes_match_torch(dtype):
    module = nn.LSTM(32, 128, 2, bidirectional=True).to(getattr(torch, dtype))
    expected = sum(p.numel() * p.element_size() for p in module.parameters())
    assert cost(dt.LSTM(32, 128, 2, bidirectional=True), dtype=dtype).weight_bytes == expected
    assert DTYPE_BYTES[dtype] == torch.empty(0, dtype=getattr(torch, dtype)).element_size()


def test_int8_is_one_byte():
    assert DTYPE_BYTES["int8"] == torch.empty(0, dtype=torch.int8).element_size()


def test_stored_values_are_the_equations_left_hand_sides():
    """The LSTM keeps i, f, g, o, c (H each) and h (H_out); GRU r, z, n, h; Elman h."""
    from derive.cells import elman, gru, lstm

    assert stored_elements(lstm(I, H)) == 6 * H
    assert stored_elements(lstm(I, H, True, P)) == 5 * H + P
    assert stored_elements(gru(I, H)) == 4 * H
    assert stored_elements(elman(I, H)) == H
    # and those left-hand sides are the outputs torch's LSTMCell computes: 4H gates + c + h
    cell = nn.LSTMCell(3, 5)
    h, c = cell(torch.randn(1, 3))
    gates = cell.weight_ih.shape[0]
    assert stored_elements(lstm(3, 5)) == gates + c.shape[1] + h.shape[1]


def test_elementwise_counts_by_hand():
    """Each element-wise count, read off the equations: LSTM gate pre-activations have 4 terms
    (3 adds), c_t = f*c + i*g (1 add, 2 products), h_t = o*tanh(c) (1 product)."""
    from derive.cells import gru, lstm

    ops = step_ops(lstm(I, H))
    assert ops == {"mac": 4 * H * I + 4 * H**2, "add": 13 * H, "mul": 3 * H, "sigmoid": 3 * H, "tanh": 2 * H, "relu": 0}
    ops = step_ops(gru(I, H))
    assert ops["add"] == 11 * H and ops["mul"] == 3 * H and ops["sigmoid"] == 2 * H and ops["tanh"] == H
    no_bias = step_ops(lstm(I, H, False))
    assert ops["mac"] == 3 * H * I + 3 * H**2 and no_bias["add"] == 5 * H


def test_symbolic_stack_cost():
    c = cost(dt.LSTM(I, H, L))
    assert c.macs == sympy.expand(T * N * (4 * H * I + 4 * H**2 + (L - 1) * 8 * H**2))
    assert c.activation_bytes == sympy.expand(4 * T * N * L * 6 * H)
    for layers in (1, 2, 5):
        numeric = cost(dt.LSTM(7, 9, layers), 3, 2)
        assert numeric.macs == c.macs.subs({I: 7, H: 9, L: layers, T: 3, N: 2})


def test_bad_arguments():
    stack = dt.LSTM(10, 20)
    with pytest.raises(ValueError, match="dtype must be one of"):
        cost(stack, dtype="float8")
    with pytest.raises(ValueError, match="seq_len must be >= 1"):
        cost(stack, 0)
    with pytest.raises(TypeError, match="batch must be a positive int"):
        cost(stack, 5, 2.5)
