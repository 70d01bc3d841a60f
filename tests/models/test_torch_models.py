"""PyTorch models pasted as code, counted by derive and by real torch (modules built on the meta device)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
nn = torch.nn

from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

size = st.integers(1, 40)


@st.composite
def module(draw):
    """(source text, constructor name, args, kwargs) of one module."""
    kind = draw(
        st.sampled_from(
            [
                "LSTM",
                "GRU",
                "RNN",
                "Linear",
                "Embedding",
                "LayerNorm",
                "BatchNorm1d",
                "Conv1d",
                "Dropout",
                "ReLU",
                "LSTMCell",
                "GRUCell",
                "RNNCell",
            ]
        )
    )
    if kind in ("LSTM", "GRU", "RNN"):
        h = draw(st.integers(2, 40))
        kwargs = {
            "num_layers": draw(st.integers(1, 3)),
            "bidirectional": draw(st.booleans()),
            "bias": draw(st.booleans()),
            "batch_first": draw(st.booleans()),
        }
        if kind == "LSTM" and draw(st.booleans()):
            kwargs["proj_size"] = draw(st.integers(1, h - 1))
        return kind, (draw(size), h), kwargs
    if kind.endswith("Cell"):
        return kind, (draw(size), draw(size)), {"bias": draw(st.booleans())}
    if kind == "Linear":
        return kind, (draw(size), draw(size)), {"bias": draw(st.booleans())}
    if kind == "Embedding":
        return kind, (draw(st.integers(1, 500)), draw(size)), {}
    if kind == "LayerNorm":
        return kind, (draw(size),), {"elementwise_affine": draw(st.booleans())}
    if kind == "BatchNorm1d":
        return kind, (draw(size),), {"affine": draw(st.booleans())}
    if kind == "Conv1d":
        groups = draw(st.integers(1, 3))
        return (
            kind,
            (groups * draw(size), groups * draw(size), draw(st.integers(1, 5))),
            {"groups": groups, "bias": draw(st.booleans())},
        )
    if kind == "Dropout":
        return kind, (), {"p": draw(st.floats(0, 1))}
    return kind, (), {}


def source(kind, args, kwargs) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"nn.{kind}({', '.join(parts)})"


def real(kind, args, kwargs):
    with torch.device("meta"):
        return getattr(nn, kind)(*args, **kwargs)


def leaf_counts(model) -> dict[str, int]:
    return {
        name: sum(p.numel() for p in m.parameters())
        for name, m in model.named_modules()
        if not list(m.children()) and not isinstance(m, (nn.ModuleList, nn.Sequential))
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(module(), min_size=1, max_size=6))
def test_sequential_equals_torch(modules):
    text = "nn.Sequential(" + ", ".join(source(*m) for m in modules) + ")"
    report = explain(text)
    model = nn.Sequential(*[real(*m) for m in modules])
    assert report.total == sum(p.numel() for p in model.parameters())
    assert {r.name: r.params for r in report.rows} == leaf_counts(model)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["embed", "lstm", "fc", "norm", "head", "rnn"]), module()),
        min_size=1,
        max_size=5,
        unique_by=lambda x: x[0],
    ),
    st.integers(0, 3),
)
def test_module_class_equals_torch(attributes, repeats):
    lines = ["import torch.nn as nn", "class Net(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    for name, m in attributes:
        lines.append(f"        self.{name} = {source(*m)}")
    lstm = ("LSTM", (8, 8), {})
    lines.append(f"        self.stack = nn.ModuleList([{source(*lstm)} for _ in range({repeats})])")
    lines.append("    def forward(self, x):\n        return x")
    report = explain("\n".join(lines))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            for name, m in attributes:
                setattr(self, name, real(*m))
            self.stack = nn.ModuleList([real(*lstm) for _ in range(repeats)])

    model = Net()
    assert report.total == sum(p.numel() for p in model.parameters())
    assert {r.name: r.params for r in report.rows} == leaf_counts(model)


def test_instantiated_class_binds_arguments():
    code = """
class Tagger(nn.Module):
    def __init__(self, vocab_size, embed_dim=100, hidden=128, tags=17):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(hidden * 2, tags)
model = Tagger(5000, hidden=64)
"""

    class Tagger(nn.Module):
        def __init__(self, vocab_size, embed_dim=100, hidden=128, tags=17):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
            self.lstm = nn.LSTM(embed_dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
            self.fc = nn.Linear(hidden * 2, tags)

    assert explain(code).total == sum(p.numel() for p in Tagger(5000, hidden=64).parameters())


def test_uninstantiated_class_is_symbolic_and_exact_when_substituted():
    code = """
class Net(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, 300)
        self.lstm = nn.LSTM(300, hidden, 2)
        self.fc = nn.Linear(hidden, 1)
"""
    total = explain(code).total
    symbols = {s.name: s for s in total.free_symbols}
    for vocab, hidden in ((10, 3), (1000, 64)):
        model = nn.Module()
        model.embed, model.lstm, model.fc = nn.Embedding(vocab, 300), nn.LSTM(300, hidden, 2), nn.Linear(hidden, 1)
        expected = sum(p.numel() for p in model.parameters())
        assert total.subs({symbols["vocab_size"]: vocab, symbols["hidden"]: hidden}) == expected


def test_unknown_module_refused_with_line_and_list():
    assert not hasattr(nn, "Mamba")  # not a torch.nn class: unknown to torch too
    with pytest.raises(SourceError, match=r"line 1: unknown name 'nn.Mamba'.*supported: .*LSTM.*Transformer"):
        explain("nn.Sequential(nn.Mamba(64), nn.LSTM(64, 128))")


def test_partial_counts_the_rest():
    report = explain("nn.Sequential(nn.Mamba(64), nn.LSTM(64, 128))", partial=True)
    assert [r.params for r in report.rows] == [None, sum(p.numel() for p in nn.LSTM(64, 128).parameters())]
    assert "not counted" in report.rows[0].note


def test_torch_refusals_are_torch_errors():
    with pytest.raises(SourceError, match="proj_size has to be smaller than hidden_size"):
        explain("nn.Sequential(nn.LSTM(10, 20, proj_size=20))")
    with pytest.raises(ValueError):
        nn.LSTM(10, 20, proj_size=20)
