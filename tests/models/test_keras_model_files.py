"""Real Keras model files, as their authors write them, read by derive and built by Keras 3.

Each file under ``files/keras/`` is a model definition in the style of a well-known example
(keras.io, papers' reference code): constants and configs with defaults, helper functions, loops,
flags, aliases, custom layers and subclassed models. The truth is the file itself run by Keras 3
(torch backend) in a fresh session — the test runs its own trusted files; derive never runs
anything: every weight path and shape of ``model.weights``, every layer's name and
``count_params()``, and the total. A file derive cannot read exactly is refused with the line and
the reason — never a wrong total. The share answered is printed by
``test_share_answered`` (``-s``).
"""

from __future__ import annotations

import builtins
import types
import warnings
from pathlib import Path

import pytest

keras = pytest.importorskip("keras")

from derive.read.code.keras.reader import explain_keras  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

FILES = Path(__file__).parent / "files" / "keras"

#: file -> the expression (in the file's namespace) that is the model derive must choose
ANSWERED = {
    "lstm_text_classifier.py": "model",
    "seq2seq_char.py": "model",
    "cnn_lstm_video.py": "model",
    "bilstm_crf_tagger.py": "model",
    "transformer_classifier.py": "model",
    "wavenet.py": "model",
    "resnet_cifar.py": "model",
    "conv_autoencoder.py": "model",
    "subclassed_mlp.py": "model",
    "rnn_aliases.py": "model",
    "vae.py": "model",
    "unet_segmentation.py": "model",
    "mobilenet_blocks.py": "model",
    "attention_gru.py": "model",
    "convlstm_forecaster.py": "model",
    "deepspeech2.py": "model",
    "timeseries_groupnorm.py": "model",
    "siamese.py": "siamese",
    "stock_lstm.py": "regressor",
    "sentiment_main.py": "model",
}
#: file -> (the code on the line refused, words of the refusal)
REFUSED = {
    "config_from_file.py": ("layers.Embedding(", "cfg['vocab_size']"),
    "unknown_condition.py": ("if USE_ATTENTION:", "`USE_ATTENTION`"),
    "external_crf.py": ("outputs = crf(x)", "'CRF' may be a layer, and derive cannot count it"),
}


def _importer():
    """``__import__`` for the files: ``tensorflow.keras`` (TF 2 style) is Keras 3 itself, nothing else changes."""
    real = builtins.__import__

    def load(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "tensorflow" or name.startswith("tensorflow."):
            rest = name.removeprefix("tensorflow").removeprefix(".")
            if not rest:
                return types.SimpleNamespace(keras=keras)
            target = real(rest, globals, locals, fromlist, level)
            return target if fromlist else types.SimpleNamespace(keras=keras)
        return real(name, globals, locals, fromlist, level)

    return load


def build(name: str, expression: str):
    """Run the file with Keras 3 in a fresh session and give back the object ``expression`` names."""
    text = (FILES / name).read_text()
    keras.backend.clear_session(free_memory=False)
    namespace = {
        "__name__": "__main__",
        "__builtins__": {**vars(builtins), "__import__": _importer(), "print": lambda *a, **k: None},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(text, str(FILES / name), "exec"), namespace)  # our own test file, run by Keras
        return eval(expression, namespace)


def weights(model) -> list[tuple[str, tuple[int, ...]]]:
    return [(w.path, tuple(w.shape)) for w in model.weights]


def test_every_file_is_listed():
    assert sorted(p.name for p in FILES.glob("*.py") if p.name != "conftest.py") == sorted({*ANSWERED, *REFUSED})


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_files_are_answered_exactly(name):
    report = explain_keras((FILES / name).read_text())
    model = build(name, ANSWERED[name])
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == weights(model)
    assert report.total == model.count_params()
    layers = [layer for layer in model.layers if type(layer).__name__ != "InputLayer"]
    assert [(r.name, r.params) for r in report.rows if r.note != "its own weights"] == [
        (layer.name, layer.count_params()) for layer in layers
    ]
    assert not report.partial


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_files_are_refused_with_the_line_and_the_reason(name):
    code, words = REFUSED[name]
    text = (FILES / name).read_text()
    line = f"line {next(i for i, t in enumerate(text.splitlines(), 1) if code in t)}"
    with pytest.raises(SourceError) as refused:
        explain_keras(text)
    assert str(refused.value).startswith(line + ":") and words in str(refused.value), str(refused.value)


def test_share_answered(capsys):
    total = len(ANSWERED) + len(REFUSED)
    with capsys.disabled():
        print(f"\nKeras model files: {len(ANSWERED)} of {total} answered exactly, {len(REFUSED)} refused, 0 wrong")
    assert len(ANSWERED) >= 15 and total >= 15
