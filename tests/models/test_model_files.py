"""Real model files, as their authors write them, read by derive and built by torch.

Each file under ``files/`` is a model definition in the style of a well-known project (defaults,
loops, flags, helpers, configs passed as arguments). The truth is the file itself run by torch on
the meta device (the test runs its own trusted files; derive never runs anything): every tensor
name and shape of ``named_parameters()``, every buffer, and the total must be derive's. A file
derive cannot read exactly must be refused with the line and the reason — never a wrong total.
"""

from __future__ import annotations

import json
import os
import re
import sys
import types
import unittest.mock
import warnings
from pathlib import Path

import pytest
import sympy

torch = pytest.importorskip("torch")

from derive.read.code.pytorch.reader import explain_torch  # noqa: E402
from derive.read.source import SourceError  # noqa: E402
from derive.tree import named_buffers  # noqa: E402

FILES = Path(__file__).parent / "files"

#: file -> the expression (in the file's namespace) that is the model derive must choose
ANSWERED = {
    "char_rnn.py": "model",
    "word_language_model.py": "model",
    "seq2seq_attention.py": "model",
    "crnn.py": "model",
    "deepspeech2.py": "model",
    "transformer_classifier.py": "model",
    "tcn.py": "model",
    "resnet.py": "model",
    "unet.py": "model",
    "vae.py": "model",
    "grud.py": "model",
    "hparams_dict.py": "model",
    "nanogpt.py": "model",
    "bilstm_crf.py": "model",
    "awd_lstm.py": "model",
    "actor_critic.py": "model",
    "seq2seq_transformer.py": "transformer",
    "dcgan.py": "netD",
    "pix2pix_resnet.py": "net",
    "mnist_cnn.py": "Net()",
    "wavenet.py": "model",
    "vq_vae.py": "model",
}
#: file -> the model it builds under ``if __name__ == "__main__":`` (run as a script: the truth)
MAIN = {"tagger_main.py": "model", "gru_classifier_main.py": "model"}
#: file -> (the code on the line refused, words of the refusal)
REFUSED = {
    "vit.py": ("self.to_patch_embedding = nn.Sequential(", "'Rearrange' may be a module"),
    "config_from_file.py": ("self.embed = nn.Embedding(", "cfg['vocab_size']"),
    "unknown_condition.py": ("if USE_ATTENTION:", "`USE_ATTENTION`"),
}
#: an uninstantiated class: its closed form at sizes, against torch built at those sizes
SYMBOLIC = {
    "symbolic_classifier.py": (
        "SentimentLSTM",
        [
            {"vocab_size": 25002, "embedding_dim": 100, "hidden_dim": 256, "output_dim": 1},
            {"vocab_size": 50, "embedding_dim": 7, "hidden_dim": 3, "output_dim": 4},
        ],
    )
}


def build(name: str, expression: str, tmp_path: Path, script: bool = False):
    """Run the file with torch (meta device) and give back the object ``expression`` names
    (``script``: run as ``python file.py`` runs it, its main guard too)."""
    text = (FILES / name).read_text()
    module = types.ModuleType("__main__" if script else "model_file")  # dataclasses look their module up
    namespace = module.__dict__
    cwd = os.getcwd()
    os.chdir(tmp_path)
    saved = sys.modules.get(module.__name__)
    sys.modules[module.__name__] = module
    try:
        with (
            torch.device("meta"),
            warnings.catch_warnings(),
            unittest.mock.patch.object(torch.nn.Module, "to", lambda self, *a, **k: self),
            unittest.mock.patch("builtins.print"),
        ):
            warnings.simplefilter("ignore")
            exec(compile(text, str(FILES / name), "exec"), namespace)  # our own test file, run by torch
            return eval(expression, namespace)
    finally:
        os.chdir(cwd)
        sys.modules.pop(module.__name__, None)
        if saved is not None:
            sys.modules[module.__name__] = saved


def tensors(model):
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def buffers(model):
    return [(n, tuple(p.shape)) for n, p in model.named_buffers()]


def test_every_file_is_listed():
    assert sorted(p.name for p in FILES.glob("*.py") if p.name != "conftest.py") == sorted(
        {*ANSWERED, *MAIN, *REFUSED, *SYMBOLIC, "argparse_main.py"}
    )
    assert len(ANSWERED) + len(SYMBOLIC) + len(REFUSED) >= 20


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_files_are_answered_exactly(name, tmp_path):
    model = build(name, ANSWERED[name], tmp_path)
    report = explain_torch((FILES / name).read_text())
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == tensors(model)
    assert [(n, tuple(p.shape)) for n, p in named_buffers(report.module)] == buffers(model)
    assert report.total == sum(p.numel() for p in model.parameters())
    assert not report.partial
    assert report.title == f"{type(model).__name__} (nn.Module)"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_files_are_refused_with_the_line_and_the_reason(name, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"vocab_size": 5000, "num_tags": 9}))
    model = build(name, "model", tmp_path)  # torch builds it: derive cannot know all it needs
    code, words = REFUSED[name]
    text = (FILES / name).read_text()
    line = f"line {next(i for i, t in enumerate(text.splitlines(), 1) if code in t)}"
    with pytest.raises(SourceError) as refused:
        explain_torch((FILES / name).read_text())
    assert str(refused.value).startswith(line + ":") and words in str(refused.value), str(refused.value)
    assert sum(p.numel() for p in model.parameters()) > 0


def test_partial_counts_the_rest_of_the_vit(tmp_path):
    model = build("vit.py", "model", tmp_path)
    report = explain_torch((FILES / "vit.py").read_text(), partial=True)
    # einops installed: its source is read, and the class Rearrange builds on is what derive cannot count
    assert report.partial and any(re.search(r"Rearrange(Mixin)? is not known", n) for n in report.notes)
    assert report.total == sum(p.numel() for p in model.parameters())  # einops' Rearrange holds no tensor
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == tensors(model)
    assert [r.params for r in report.rows if r.type in ("Rearrange", "RearrangeMixin")] == [None]


@pytest.mark.parametrize("name", sorted(SYMBOLIC))
def test_an_uninstantiated_class_is_a_closed_form(name, tmp_path):
    cls, sizes = SYMBOLIC[name]
    report = explain_torch((FILES / name).read_text())
    total = report.total
    assert isinstance(total, sympy.Expr) and report.title == f"{cls} (nn.Module)"
    for values in sizes:
        model = build(name, f"{cls}(**{values!r})", tmp_path)
        symbols = {s: values[s.name] for s in total.free_symbols}
        assert total.subs(symbols) == sum(p.numel() for p in model.parameters())
        for row in report.rows:
            child = dict(model.named_children())[row.name]
            assert sympy.sympify(row.params).subs(symbols) == sum(p.numel() for p in child.parameters())


@pytest.mark.parametrize("name", sorted(MAIN))
def test_the_model_built_under_the_main_guard_is_answered(name, tmp_path):
    model = build(name, MAIN[name], tmp_path, script=True)
    report = explain_torch((FILES / name).read_text())
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == tensors(model)
    assert report.total == sum(p.numel() for p in model.parameters())
    assert not report.partial and report.title == f"{type(model).__name__} (nn.Module)"


def test_the_class_closed_form_is_given_beside_the_model_the_file_builds(tmp_path):
    """The note's closed form (the class's sizes as letters, the rest at defaults) against torch at other sizes."""
    report = explain_torch((FILES / "tagger_main.py").read_text())
    (note,) = [n for n in report.notes if n.startswith("BiLSTMTagger(")]
    assert note.startswith("BiLSTMTagger(vocab_size, tagset_size, embedding_dim, hidden_dim), ")
    formula = sympy.parse_expr(note.split(": ", 1)[1].split(" (the model above")[0])  # derive's own text
    for sizes in (
        {"vocab_size": 5000, "tagset_size": 17, "embedding_dim": 100, "hidden_dim": 300},
        {"vocab_size": 7, "tagset_size": 2, "embedding_dim": 3, "hidden_dim": 5},
    ):
        model = build("tagger_main.py", f"BiLSTMTagger(**{sizes!r})", tmp_path, script=True)
        values = {s: sizes[s.name] for s in formula.free_symbols}
        assert formula.subs(values) == sum(p.numel() for p in model.parameters())


def test_a_class_built_only_outside_the_guard_has_no_closed_form_note():
    report = explain_torch((FILES / "char_rnn.py").read_text())
    assert not any("its other parameters at their defaults" in n for n in report.notes)


def test_sizes_from_the_command_line_are_refused_naming_the_argument(tmp_path):
    model = build("argparse_main.py", "RNNModel(33278, 200, 200, 2)", tmp_path)  # torch builds it at the defaults
    assert sum(p.numel() for p in model.parameters()) > 0
    with pytest.raises(SourceError) as refused:
        explain_torch((FILES / "argparse_main.py").read_text())
    assert str(refused.value).startswith("line 12:") and "'args.emsize'" in str(refused.value)
    assert "argparse.ArgumentParser(...) is not read" in str(refused.value)
