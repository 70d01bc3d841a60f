"""A torch model's printed form, ``print(model)``'s output (derive.read.code.pytorch.printed), read by
derive.explain, the command line and stdin; every total, name and shape held against the real model's
parameters() and named_parameters()."""

from __future__ import annotations

import io
import json
from collections import OrderedDict

import pytest
import torch
from torch import nn

import derive
from derive.cli.app import main
from derive.cli.options import EXIT_OK, EXIT_PARTIAL
from derive.read import SourceError
from derive.read.code.pytorch.printed import is_printed


class LSTMModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(1000, 64, padding_idx=0)
        self.lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(256, 10)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = nn.Sequential(nn.Linear(16, 16, bias=False), nn.Dropout(p=0.1))
        self.norm = nn.LayerNorm(16)
        self.mlp = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16))


class Stack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.blocks = nn.ModuleList([Block() for _ in range(3)])
        self.head = nn.Linear(16, 50, bias=False)


class Heads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv1d(3, 8, 3), nn.BatchNorm1d(8), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 4), "box": nn.GRU(8, 6, bidirectional=True)})


class Scaled(nn.Module):
    """A class holding a parameter of its own, which print(model) does not show."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(16))
        self.fc = nn.Linear(16, 16)


class WithOwn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Linear(4, 16)
        self.scaled = Scaled()


def _torch_only() -> nn.Module:
    return nn.Sequential(
        nn.Conv1d(3, 16, kernel_size=3),
        nn.BatchNorm1d(16),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(16, 10),
        nn.LayerNorm(10, eps=1e-6),
        nn.RNN(10, 12, num_layers=2),
    )


def _ordered() -> nn.Module:
    return nn.Sequential(
        OrderedDict([("embed", nn.Embedding(20, 8)), ("rnn", nn.LSTM(8, 8, proj_size=4)), ("out", nn.Linear(4, 2))])
    )


def _expected(model: nn.Module, own: tuple[str, ...] = ()) -> tuple[int, list[tuple[str, tuple[int, ...]]]]:
    """torch's total and tensors, less the parameters ``own`` a printout does not show."""
    tensors = [(name, tuple(p.shape)) for name, p in model.named_parameters() if name not in own]
    total = sum(p.numel() for name, p in model.named_parameters() if name not in own)
    return total, tensors


COMPLETE = [LSTMModel, Stack, Heads, _torch_only, _ordered]


def _check(report_dict: dict, model: nn.Module, own: tuple[str, ...], custom: bool) -> None:
    total, tensors = _expected(model, own)
    assert report_dict["total"] == total
    assert [(t["name"], tuple(t["shape"])) for t in report_dict["tensors"]] == tensors
    assert report_dict["partial"] is custom


@pytest.mark.parametrize("make", COMPLETE + [WithOwn])
def test_printed_model(make, capsys, monkeypatch):
    model = make()
    text = str(model)  # what print(model) shows
    assert is_printed(text)
    # not shown: the parameters a user's class holds itself; not known: whether the head is tied to
    # the embedding, of the same shape (print(model) shows no ties)
    own = {WithOwn: ("scaled.scale",), Stack: ("head.weight",)}.get(make, ())
    custom = not isinstance(model, nn.Sequential)  # a class of the user's: its own parameters unknown
    report = derive.explain(text)
    _check(report.to_dict(), model, own, custom)
    if custom:
        assert report.partial and any("does not show the parameters it holds itself" in n for n in report.notes)
    else:
        assert report.total == sum(p.numel() for p in model.parameters()) and not report.partial
    code = EXIT_PARTIAL if custom else EXIT_OK  # the command line's exit status for a lower bound
    assert main([text, "--json"]) == code
    _check(json.loads(capsys.readouterr().out), model, own, custom)
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    assert main(["-", "--json"]) == code
    _check(json.loads(capsys.readouterr().out), model, own, custom)


def test_repeated_blocks_are_collapsed_by_torch():
    text = str(Stack())
    assert "(0-2): 3 x Block(" in text
    report = derive.explain(text)
    assert sorted(report.uncounted) == ["Stack", "blocks.0", "blocks.1", "blocks.2", "head"]
    assert [n for n in report.notes if "Block is not a torch.nn class" in n]


def test_the_class_holding_a_parameter_is_not_counted():
    model = WithOwn()
    report = derive.explain(str(model))
    assert report.total == sum(p.numel() for p in model.parameters()) - model.scaled.scale.numel()
    assert report.partial and "scaled" in report.uncounted
    assert any(n.startswith("Scaled is not a torch.nn class") for n in report.notes)


UNKNOWN = """LlamaModel(
  (embed_tokens): Embedding(100, 16)
  (layers): ModuleList(
    (0-1): 2 x LlamaDecoderLayer(
      (self_attn): MultiheadAttention(
        (out_proj): NonDynamicallyQuantizableLinear(in_features=16, out_features=16, bias=True)
      )
      (mlp): Linear(in_features=16, out_features=16, bias=True)
      (input_layernorm): LlamaRMSNorm((16,), eps=1e-06)
    )
  )
  (norm): LlamaRMSNorm((16,), eps=1e-06)
)"""


def test_unknown_classes_refused_or_not_counted():
    with pytest.raises(SourceError, match=r"line 5: MultiheadAttention printed with its children"):
        derive.explain(UNKNOWN)
    without_attention = UNKNOWN.replace(UNKNOWN.splitlines()[4] + "\n", "").replace(
        UNKNOWN.splitlines()[5] + "\n" + UNKNOWN.splitlines()[6] + "\n", ""
    )
    with pytest.raises(SourceError, match=r"line 6: LlamaRMSNorm is not a torch.nn class"):
        derive.explain(without_attention)
    report = derive.explain(UNKNOWN, partial=True)
    embed, mlp = nn.Embedding(100, 16), nn.Linear(16, 16)
    assert report.total == sum(p.numel() for m in (embed, mlp, mlp) for p in m.parameters())
    assert report.partial
    assert {"layers.0.self_attn", "layers.1.input_layernorm", "norm"} <= set(report.uncounted)
    assert [t["name"] for t in report.tensors] == [
        "embed_tokens.weight",
        "layers.0.mlp.weight",
        "layers.0.mlp.bias",
        "layers.1.mlp.weight",
        "layers.1.mlp.bias",
    ]
    assert "line 12: LlamaRMSNorm is not a torch.nn class" in " ".join(report.notes)


@pytest.mark.parametrize(
    "text,match",
    [
        ("Net(\n  (fc): Linear(in_features=2, out_features=3, bias=True)\n  (g): foo bar\n)", r"line 3: not a module"),
        ("Net(\n  (fc): Linear(in_features=2 out_features=3)\n)", r"line 2: Linear's printed arguments are not Python"),
        ("Net(\n  (fc): Linear(in_features=2), print(1)\n)", r"line 2: .*not one call"),
        ("Net(\n  (a): Sequential(\n    (0): ReLU()\n)", r"line 4: expected a child of Sequential indented by 4"),
        ("Net(\n  (fc): Linear(in_features=2, out_features=-3, bias=True)\n)", r"line 2: Linear: out_features must be"),
        (
            "Net(\n  (fc): LazyLinear(in_features=0, out_features=3, bias=True)\n)",
            r"line 2: LazyLinear is a lazy module",
        ),
        ("Net(\n  (m): ModuleList(\n    (0-1): 3 x ReLU()\n  )\n)", r"line 3: 0-1 is not 3 items"),
    ],
)
def test_lines_that_are_not_modules_refused(text, match):
    with pytest.raises(SourceError, match=match):
        derive.explain(text)


def test_one_line_constructor_is_left_to_the_constructor_reader():
    assert not is_printed("LSTM(10, 20, num_layers=2, batch_first=True)")
    assert derive.explain("LSTM(10, 20, num_layers=2, batch_first=True)").total == sum(
        p.numel() for p in nn.LSTM(10, 20, num_layers=2, batch_first=True).parameters()
    )


def test_a_class_named_as_the_generated_code_names_is_kept_apart():
    text = "nn(\n  (fc): Linear(in_features=2, out_features=3, bias=True)\n)"
    report = derive.explain(text)
    assert report.total == sum(p.numel() for p in nn.Linear(2, 3).parameters())
    assert report.uncounted == ["nn"] and report.title == "nn (nn.Module)"


class Tied(nn.Module):
    def __init__(self, tie: bool) -> None:
        super().__init__()
        self.emb = nn.Embedding(100, 8)
        self.out = nn.Linear(8, 100, bias=False)
        if tie:
            self.out.weight = self.emb.weight


@pytest.mark.parametrize("tie", [True, False])
def test_a_head_of_the_embeddings_shape_is_not_counted(tie):
    """Tied or not, print(model) shows the same text: the head is not counted, so the total is a
    lower bound of both (equal to the tied model's parameters())."""
    model = Tied(tie)
    text = str(model)
    assert text == str(Tied(not tie))
    report = derive.explain(text)
    real = sum(p.numel() for p in model.parameters())  # counts a tied tensor once
    assert report.total == (real if tie else real - model.out.weight.numel())
    assert report.partial and "out" in report.uncounted
    assert any(n.startswith("out: its weight has the shape of emb.weight") for n in report.notes)


def test_a_printout_saved_as_a_text_file(tmp_path, capsys):
    model = _torch_only()
    path = tmp_path / "printed.txt"
    path.write_text(str(model) + "\n")
    assert main([str(path), "--json"]) == EXIT_OK
    _check(json.loads(capsys.readouterr().out), model, (), False)
    (tmp_path / "line.txt").write_text("nn.GRU(10, 20, 2)\n")  # a .txt holds text as it would be pasted
    assert derive.explain(str(tmp_path / "line.txt")).total == sum(p.numel() for p in nn.GRU(10, 20, 2).parameters())
