"""Every reader of whole models gives torch's total and tensors: live modules, state dicts, ``.pt``,
``.safetensors`` and ONNX of random stacks, ties and buffers; the truth is real torch's
(``sum(p.numel() for p in model.parameters())``, ``named_parameters()``, ``named_buffers()``)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from derive.read import explain  # noqa: E402


def params(module) -> int:
    return sum(p.numel() for p in module.parameters())


def plain_tensors(report) -> list[tuple[str, tuple]]:
    """The tensors listing: ``named_parameters()``."""
    return [(t["name"], tuple(t["shape"])) for t in report.tensors]


def named(module) -> list[tuple[str, tuple]]:
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


# One layer of a random stack: (kind, constructor of a module reading `width` features) -> (module, width out).
def _layer(kind: str, width: int, size: int, flag: bool):
    if kind == "Linear":
        return nn.Linear(width, size, bias=flag), size
    if kind == "LayerNorm":
        return nn.LayerNorm(width, elementwise_affine=flag), width
    if kind == "BatchNorm1d":
        return nn.BatchNorm1d(width, affine=flag), width
    if kind == "ReLU":
        return nn.ReLU(), width
    if kind == "Dropout":
        return nn.Dropout(0.1), width
    if kind == "Unknown":  # a module derive does not know, with its own parameter and a known child
        block = nn.Module()
        block.gain = nn.Parameter(torch.ones(width))
        block.proj = nn.Linear(width, size)
        return block, size
    cls = getattr(nn, kind)
    extra = {"proj_size": max(1, size // 2)} if kind == "LSTM" and flag and size > 1 else {}
    layer = cls(width, size, num_layers=1 + flag, bidirectional=flag, bias=not flag or kind != "GRU", **extra)
    out = (extra.get("proj_size") or size) * (2 if flag else 1)
    return layer, out


KINDS = ["Linear", "LayerNorm", "BatchNorm1d", "ReLU", "Dropout", "Unknown", "LSTM", "GRU", "RNN"]
stacks = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(1, 12), st.booleans()), min_size=1, max_size=6)


def build(spec, width: int = 5) -> nn.Module:
    model = nn.Module()
    for index, (kind, size, flag) in enumerate(spec):
        layer, width = _layer(kind, width, size, flag)
        model.add_module(f"m{index}", layer)
    return model


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stacks, st.booleans())
def test_random_stack_live_and_state_dict(spec, meta):
    with torch.device("meta" if meta else "cpu"):
        model = build(spec)
    live = explain(model)
    assert live.total == params(model)
    assert plain_tensors(live) == named(model)
    assert [t["name"] for t in live.buffers] == [n for n, _ in model.named_buffers()]
    assert sum(t["parameters"] for t in live.tensors) == live.total
    state = explain(model.state_dict())
    assert state.total == params(model)
    assert sorted(plain_tensors(state)) == sorted(named(model))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(stacks)
def test_random_stack_files(tmp_path, spec):
    from safetensors.torch import save_file

    model = build(spec)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    save_file(model.state_dict(), str(tmp_path / "m.safetensors"))
    for name in ("m.pt", "m.safetensors"):
        report = explain(str(tmp_path / name))
        assert report.total == params(model), name
        assert sorted(plain_tensors(report)) == sorted(named(model)), name
        assert not report.partial


class Tied(nn.Module):
    """A language model with its output layer tied to its embeddings (``decoder.weight = encoder.weight``)."""

    def __init__(self, vocab: int = 30, width: int = 8):
        super().__init__()
        self.encoder = nn.Embedding(vocab, width)
        self.rnn = nn.LSTM(width, width)
        self.norm = nn.BatchNorm1d(width)
        self.decoder = nn.Linear(width, vocab)
        self.decoder.weight = self.encoder.weight


def test_tied_and_buffers_live():
    model = Tied()
    report = explain(model)
    assert report.total == params(model) == sum(p.numel() for p in set(model.parameters()))
    assert plain_tensors(report) == named(model)
    (tie,) = report.ties
    assert (tie["name"], tie["tied_to"]) == ("decoder.weight", "encoder.weight")
    buffers = [t["name"] for t in report.buffers]
    assert buffers == [n for n, _ in model.named_buffers()]
    (decoder,) = [r for r in report.rows if r.name == "decoder"]
    assert decoder.params == model.decoder.bias.numel() and "encoder.weight" in decoder.note
    assert decoder.formula is None
    data = report.to_dict()
    assert data["partial"] is False and sum(t["parameters"] for t in data["tensors"]) == data["total"]
    assert [b["name"] for b in data["buffers"]] == buffers and data["ties"][0]["tied_to"] == "encoder.weight"


def test_tied_and_buffers_in_files(tmp_path):
    from safetensors.torch import load_file, save_model

    model = Tied()
    state = model.state_dict()
    assert state["decoder.weight"].data_ptr() == state["encoder.weight"].data_ptr()  # torch keeps the tie
    torch.save(state, tmp_path / "tied.pt")
    for report in (explain(state), explain(str(tmp_path / "tied.pt"))):
        assert report.total == params(model)
        assert {t["name"] for t in report.buffers} == {n for n, _ in model.named_buffers()}
        assert [(t["name"], t["tied_to"]) for t in report.ties] == [("decoder.weight", "encoder.weight")]
    with torch.device("meta"):  # the storage is shared on the meta device too
        on_meta = Tied()
    assert explain(on_meta.state_dict()).total == params(on_meta)
    save_model(model, str(tmp_path / "tied.safetensors"))  # keeps one name of the shared tensor
    kept = load_file(str(tmp_path / "tied.safetensors"))
    assert len(kept) == len(state) - 1
    report = explain(str(tmp_path / "tied.safetensors"))
    assert report.total == params(model)
    assert any("holds a tensor shared by several names once" in n for n in report.notes)


def test_batchnorm_buffers_are_not_parameters(tmp_path):
    model = nn.Sequential(nn.Conv1d(3, 4, 3), nn.BatchNorm1d(4), nn.GRU(4, 6))
    torch.save(model.state_dict(), tmp_path / "bn.pth")
    report = explain(str(tmp_path / "bn.pth"))
    assert report.total == params(model)
    (bn,) = [r for r in report.rows if r.name == "1"]
    assert bn.type == "BatchNorm" and bn.params == params(model[1])
    assert report.constructors == ["nn.GRU(4, 6)"]
    # An integer tensor the names do not tell is a buffer still (parameters are floating point).
    state = dict(model.state_dict()) | {"step": torch.tensor(3)}
    assert explain(state).total == params(model)


def test_prefixed_checkpoint_nests_under_the_prefix():
    model = nn.DataParallel(nn.Sequential(nn.LSTM(4, 5, 2)))
    report = explain(model.state_dict())
    assert report.constructors == ["nn.LSTM(4, 5, num_layers=2)"]
    assert [r.name for r in report.rows] == ["module.0"] and report.total == params(model)


@pytest.mark.parametrize(
    ("kind", "kwargs"),
    [
        ("GRU", {"num_layers": 2}),
        ("GRU", {"num_layers": 2, "bidirectional": True}),
        ("LSTM", {"num_layers": 3, "bias": False}),
        ("RNN", {"num_layers": 2, "bidirectional": True}),
        ("LSTM", {}),
    ],
)
def test_onnx_gives_back_the_module_written(tmp_path, kind, kwargs):
    model = getattr(nn, kind)(20, 40, **kwargs)
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():  # the legacy exporter's own warnings, around the export only
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(5, 1, 20),), str(path), dynamo=False)
    report = explain(str(path))
    written = f"nn.{kind}(20, 40" + "".join(f", {k}={v}" for k, v in kwargs.items()) + ")"
    assert report.constructors == [written]
    assert report.total == params(model)
    (row,) = [r for r in report.rows if r.type == kind]
    assert row.config["num_layers"] == kwargs.get("num_layers", 1)
    assert row.formula.subs(
        {__import__("sympy").Symbol(k, integer=True, positive=True): v for k, v in row.values.items()}
    ) == params(model)


class _TwoModules(nn.Module):
    """An encoder and a decoder of the same size, the decoder reading the encoder's state: not one module."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(8, 8)
        self.decoder = nn.LSTM(8, 8)
        self.norm = nn.BatchNorm1d(8)

    def forward(self, x):
        _, (h, _) = self.encoder(x)
        out, _ = self.decoder(h.repeat(3, 1, 1))
        return self.norm(out[-1])


def test_onnx_keeps_separate_modules_and_buffers(tmp_path):
    model = _TwoModules().eval()
    with torch.no_grad():  # statistics that differ from the affine parameters (no de-duplication)
        model.norm.running_mean.fill_(0.5)
        model.norm.running_var.fill_(2.0)
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(5, 1, 8),), str(path), dynamo=False)
    report = explain(str(path))
    assert report.constructors == ["nn.LSTM(8, 8)", "nn.LSTM(8, 8)"]
    assert report.total == params(model)
    assert {t["name"] for t in report.buffers} == {"norm.running_mean", "norm.running_var"}


@settings(max_examples=10, deadline=None)
@given(
    st.sampled_from(["LSTM", "GRU", "RNN"]), st.integers(1, 20), st.integers(1, 20), st.integers(1, 3), st.booleans()
)
def test_live_recurrent_formula_is_the_count(kind, i, h, layers, bidirectional):
    import sympy

    with torch.device("meta"):
        model = getattr(nn, kind)(i, h, layers, bidirectional=bidirectional)
    (row,) = explain(model).rows
    symbols = {name: sympy.Symbol(name, integer=True, positive=True) for name in row.values}
    assert row.formula.subs({symbols[k]: v for k, v in row.values.items()}) == row.params == params(model)


def test_lazy_module_is_a_part_not_counted():
    model = nn.Sequential(nn.LazyLinear(4), nn.Linear(4, 2))
    with pytest.raises(ValueError):  # torch cannot count it either before the first forward
        params(model)
    report = explain(model)
    assert report.partial and report.uncounted == ["0"] and report.total == params(model[1])
    model(torch.zeros(3, 5))
    report = explain(model)
    assert not report.partial and report.total == params(model)
