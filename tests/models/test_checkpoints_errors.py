"""Checkpoints written by the real frameworks read back to constructors; error messages from real torch/Keras."""

from __future__ import annotations

import os
import warnings

import pytest

torch = pytest.importorskip("torch")
keras = pytest.importorskip("keras")
from torch import nn  # noqa: E402

import derive  # noqa: E402
from derive.models import explain  # noqa: E402
from derive.models.source import SourceError  # noqa: E402

CONFIGS = [dict(num_layers=2, bidirectional=True), dict(proj_size=16), dict(bias=False, num_layers=3), {}]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("suffix", [".pt", ".safetensors"])
def test_checkpoint_back_to_constructor(tmp_path, kind, config, suffix):
    if kind != "LSTM" and "proj_size" in config:
        pytest.skip("proj_size is LSTM only")
    model = nn.Module()
    model.embed = nn.Embedding(50, 30)
    model.rnn = getattr(nn, kind)(30, 32, **config)
    path = str(tmp_path / f"m{suffix}")
    if suffix == ".pt":
        torch.save(model.state_dict(), path)
    else:
        from safetensors.torch import save_file

        save_file(model.state_dict(), path)
    report = explain(path)
    assert report.total == sum(p.numel() for p in model.parameters())
    (constructor,) = report.constructors
    rebuilt = explain(constructor, framework="torch")
    assert rebuilt.rows[0].tensors == [
        (f"rnn.{k}", v) for k, v in ((n, tuple(p.shape)) for n, p in model.rnn.named_parameters())
    ] or [(k, v) for k, v in rebuilt.rows[0].tensors] == [(n, tuple(p.shape)) for n, p in model.rnn.named_parameters()]


# torch's weights-only unpickler warns about the (legacy, non-zip) pickle's protocol before refusing it.
@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_pickle_with_code_is_refused_not_run(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = tmp_path / "evil.pt"
    torch.save({"weight": Evil()}, path, _use_new_zipfile_serialization=True) if False else None
    import pickle

    with open(path, "wb") as handle:
        pickle.dump({"x": Evil()}, handle)
    with pytest.raises(SourceError, match="not executed|refused|not a readable"):
        explain(str(path))
    assert not marker.exists()


def test_truncated_and_corrupt_files(tmp_path):
    good = tmp_path / "g.safetensors"
    from safetensors.torch import save_file

    save_file({"weight_ih_l0": torch.zeros(8, 3)}, str(good))
    (tmp_path / "t.safetensors").write_bytes(good.read_bytes()[:20])
    (tmp_path / "c.pt").write_bytes(b"PK\x03\x04garbage")
    (tmp_path / "c.keras").write_bytes(b"not a zip")
    (tmp_path / "c.onnx").write_bytes(b"\xff" * 64)
    for name in ("t.safetensors", "c.pt", "c.keras", "c.onnx"):
        with pytest.raises(SourceError):
            explain(str(tmp_path / name))


# Keras' torch backend (model.save) converting its own tensors; not our code.
@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")
def test_keras_file_and_object(tmp_path):
    model = keras.Sequential(
        [
            keras.Input((10, 8)),
            keras.layers.LSTM(16, return_sequences=True),
            keras.layers.Bidirectional(keras.layers.GRU(4)),
            keras.layers.Dense(2),
        ]
    )
    path = str(tmp_path / "m.keras")
    model.save(path)
    assert explain(path).total == model.count_params()
    assert [r.params for r in explain(model).rows] == [layer.count_params() for layer in model.layers]


def test_onnx_nodes(tmp_path):
    gru = nn.GRU(10, 20, 2, bidirectional=True)
    path = str(tmp_path / "g.onnx")
    # The legacy (TorchScript) exporter writes the LSTM/GRU/RNN nodes read here; it warns about itself
    # (deprecation, tracing, batch size) several ways. Silenced around the export call only, not explain().
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(gru, (torch.zeros(5, 1, 10),), path, dynamo=False)
    report = explain(path)
    assert report.total == sum(p.numel() for p in gru.parameters())
    assert report.constructors == ["nn.GRU(10, 20, num_layers=2, bidirectional=True)"]


def test_live_torch_on_meta_device():
    with torch.device("meta"):
        model = nn.Sequential(
            nn.Embedding(1000, 64), nn.LSTM(64, 128, 2, proj_size=32), nn.Linear(32, 4), nn.MultiheadAttention(32, 4)
        )
    report = explain(model)
    assert report.total == sum(p.numel() for p in model.parameters())
    assert any("numeric, not derived" in r.note for r in report.rows)


def test_partial_mapping_marks_unknowns():
    config = explain({"weight_hh_l0_reverse": (512, 128), "weight_ih_l1": (512, 256)}).rows[0].config
    assert config["mode"] == "LSTM" and config["hidden_size"] == 128 and config["bidirectional"] is True
    assert config["input_size"] == config["num_layers"] == config["bias"] == "unknown"


def real_error(fn) -> str:
    try:
        fn()
    except Exception as error:  # the framework's own message
        return str(error)
    raise AssertionError("no error")


def test_size_mismatch_from_real_torch():
    message = real_error(lambda: nn.LSTM(100, 128).load_state_dict(nn.LSTM(300, 128).state_dict()))
    assert "input_size=300, your model 100" in derive.explain_error(message)
    message = real_error(lambda: nn.LSTM(100, 128, 2).load_state_dict(nn.LSTM(100, 128, 3).state_dict()))
    assert "num_layers=3, your model 2" in derive.explain_error(message)
    message = real_error(lambda: nn.LSTM(100, 128).load_state_dict(nn.LSTM(100, 128, bidirectional=True).state_dict()))
    assert "bidirectional=True, your model False" in derive.explain_error(message)


def test_input_errors_from_real_frameworks():
    message = real_error(lambda: nn.LSTM(10, 20)(torch.zeros(5, 3, 7)))
    assert "input_size=10" in derive.explain_error(message) and "is 7" in derive.explain_error(message)
    message = real_error(lambda: keras.Sequential([keras.Input((10,)), keras.layers.LSTM(8)]))
    assert "expects ndim=3" in derive.explain_error(message)
    assert derive.explain_error("CUDA out of memory").startswith("not recognised")


def test_hostile_code():
    with pytest.raises(SourceError, match="longer than"):
        explain("x" * 10_000_001)
    deep = "nn.Sequential(" * 200 + "nn.LSTM(2, 3)" + ")" * 200
    with pytest.raises(SourceError, match="nested"):
        explain(deep, framework="torch")
    with pytest.raises(SourceError):
        explain("__import__('os').system('touch /tmp/derive_pwned')\nnn.Sequential(nn.Foo(1))", framework="torch")
    assert not os.path.exists("/tmp/derive_pwned")
    with pytest.raises(TypeError):
        explain(3.5)
