"""Property: a random model written as code (loops, lists, add_module, flags, parameters, ties) has the
tensors, buffers and total of the same code built by torch (meta device)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from derive.read.code.pytorch.reader import explain_torch  # noqa: E402
from derive.tree import named_buffers  # noqa: E402

small = st.integers(1, 6)
flag = st.booleans()


@st.composite
def layer(draw) -> str:
    """One torch.nn constructor call as code."""
    kind = draw(st.integers(0, 15))
    a, b = draw(small), draw(small)
    if kind == 0:
        return f"nn.Linear({a}, {b}, bias={draw(flag)})"
    if kind == 1:
        g = draw(st.integers(1, 3))
        n = draw(st.integers(1, 3))
        return f"nn.Conv{n}d({a * g}, {b * g}, {draw(st.integers(1, 3))}, groups={g}, bias={draw(flag)})"
    if kind == 2:
        return f"nn.ConvTranspose{draw(st.integers(1, 3))}d({a}, {b}, 2, bias={draw(flag)})"
    if kind == 3:
        return f"nn.BatchNorm{draw(st.integers(1, 3))}d({a}, affine={draw(flag)}, track_running_stats={draw(flag)})"
    if kind == 4:
        return f"nn.InstanceNorm{draw(st.integers(1, 3))}d({a}, affine={draw(flag)}, track_running_stats={draw(flag)})"
    if kind == 5:
        return f"nn.LayerNorm([{a}, {b}], elementwise_affine={draw(flag)})"
    if kind == 6:
        return f"nn.GroupNorm({a}, {a * b})"
    if kind == 7:
        return f"nn.Embedding({a * 10}, {b})"
    if kind == 8:
        cell = draw(st.sampled_from(["LSTM", "GRU", "RNN"]))
        return f"nn.{cell}({a}, {b + 1}, {draw(st.integers(1, 3))}, bidirectional={draw(flag)})"
    if kind == 9:
        heads = draw(st.integers(1, 3))
        extra = f", kdim={b}, vdim={a}" if draw(flag) else ""
        return f"nn.MultiheadAttention({a * heads}, {heads}, bias={draw(flag)}, add_bias_kv={draw(flag)}{extra})"
    if kind == 10:
        heads = draw(st.integers(1, 2))
        return f"nn.TransformerEncoderLayer({a * heads * 2}, {heads}, {b * 4}, bias={draw(flag)})"
    if kind == 11:
        return f"nn.Sequential(nn.Linear({a}, {b}), nn.ReLU(), nn.Dropout(0.1))"
    if kind == 12:
        return f"nn.PReLU({a})"
    if kind == 13:
        return f"nn.RMSNorm({a})"
    if kind == 14:
        return f"nn.Bilinear({a}, {b}, {a + b})"
    return draw(st.sampled_from(["nn.ReLU()", "nn.Identity()", "nn.Dropout(0.2)", "nn.MaxPool2d(2)", "nn.GELU()"]))


@st.composite
def program(draw) -> str:
    """A class whose __init__ builds modules the ways model code does."""
    n, k, m = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 2))
    lines = [
        "import torch",
        "import torch.nn as nn",
        "",
        "",
        "def block(width, deep=False):",
        "    layers = [nn.Linear(width, width)]",
        "    if deep:",
        "        layers += [nn.ReLU(), nn.Linear(width, width * 2)]",
        "    return nn.Sequential(*layers)",
        "",
        "",
        "class Net(nn.Module):",
        f"    def __init__(self, n={n}, k={k}, width={draw(small)}, flag={draw(flag)}):",
        "        super().__init__()",
        f"        self.first = {draw(layer())}",
        "        layers = []",
        "        for i in range(n):",
        f"            layers.append({draw(layer())} if i % 2 else {draw(layer())})",
        "        self.seq = nn.Sequential(*layers)",
        f"        self.blocks = nn.ModuleList([{draw(layer())} for _ in range(k)])",
        "        self.helpers = nn.ModuleDict({f'h{j}': block(width, deep=j > 0) for j in range(2)})",
        f"        for i in range({m}):",
        f"            self.add_module(f'extra{{i}}', {draw(layer())})",
        "        if flag:",
        f"            self.optional = {draw(layer())}",
        "        else:",
        "            self.optional = None",
        f"        self.scale = nn.Parameter(torch.ones({draw(small)}, width))",
        "        self.register_buffer('steps', torch.zeros(()))",
    ]
    if draw(flag):
        lines += [
            "        self.head = nn.Linear(width, width)",
            "        self.helpers['h0'][0].weight = self.head.weight",
        ]
    if draw(flag):
        lines += ["        setattr(self, 'named_' + str(width), " + draw(layer()) + ")"]
    lines += ["", "", "model = Net()"]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_model_code_equals_torch(text):
    namespace: dict = {}
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(text, namespace)  # the test's own generated code, built by torch
    model = namespace["model"]
    report = explain_torch(text)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == [
        (n, tuple(p.shape)) for n, p in model.named_parameters()
    ]
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == [
        (n, tuple(p.shape)) for n, p in model.named_buffers()
    ]
    assert report.total == sum(p.numel() for p in model.parameters())
