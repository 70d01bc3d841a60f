"""Checkpoints written by the real frameworks read back to constructors; error messages from real torch/Keras."""

from __future__ import annotations

import os
import warnings

import pytest

torch = pytest.importorskip("torch")
keras = pytest.importorskip("keras")
from torch import nn  # noqa: E402

import derive  # noqa: E402
from derive.read import explain  # noqa: E402
from derive.read.source import SourceError  # noqa: E402

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


def test_keras_model_json(tmp_path, capsys, monkeypatch):
    """A Keras model's ``model.to_json()`` — the same serialization as a ``.keras`` archive's config.json —
    as a ``.json`` file, pasted text, on stdin and as a dict: the count Keras gives."""
    import io
    import json

    from derive.cli.app import main

    inputs = keras.Input((None, 8))
    functional = keras.Model(inputs, keras.layers.Dense(3)(keras.layers.GRU(16)(inputs)))
    sequential = keras.Sequential(
        [keras.Input((10, 28)), keras.layers.Bidirectional(keras.layers.LSTM(128)), keras.layers.Dense(1)]
    )
    for model in (sequential, functional):
        text = model.to_json()
        path = tmp_path / "model.json"
        path.write_text(text)
        assert main([str(path), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["total"] == model.count_params()
        assert main([text, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["total"] == model.count_params()
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        assert main(["-", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["total"] == model.count_params()
        assert explain(json.loads(text)).total == explain(text).total == model.count_params()


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
    part = {"weight_hh_l0_reverse": (512, 128), "weight_ih_l1": (512, 256)}
    config = explain(part, partial=True).rows[0].config
    assert config["mode"] == "LSTM" and config["hidden_size"] == 128 and config["bidirectional"] is True
    assert config["input_size"] == config["num_layers"] == config["bias"] == "unknown"
    with pytest.raises(SourceError, match=r"input_size not fixed by them.*partial=True"):
        explain(part)  # a mapping is a whole state dict unless partial=True: a layer's tensors are missing


@pytest.mark.parametrize(
    "build",
    [
        lambda: nn.LSTM(10, 20),
        lambda: nn.LSTM(32, 64, 3, bidirectional=True, proj_size=16),
        lambda: nn.GRU(7, 5, 2, bias=False),
        lambda: nn.Sequential(nn.Embedding(100, 16), nn.RNN(16, 8, nonlinearity="relu"), nn.Linear(8, 3)),
    ],
)
def test_shapes_and_tensors_of_one_state_dict_give_one_answer(build):
    """Issue 26: a {name: shape} dict was read as part of a state dict, a {name: tensor} dict as a whole one."""
    state = build().state_dict()
    by_tensor = explain(dict(state))
    by_shape = explain({k: tuple(v.shape) for k, v in state.items()})
    assert by_shape.total == by_tensor.total == sum(v.numel() for v in state.values())
    assert not by_shape.partial and not by_tensor.partial
    assert [(r.name, r.params, r.config) for r in by_shape.rows] == [
        (r.name, r.params, r.config) for r in by_tensor.rows
    ]
    assert by_shape.notes == by_tensor.notes and by_shape.tensors == by_tensor.tensors


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


@pytest.mark.parametrize(
    "inputs,layer,want,got",
    [
        ((1, 60), keras.layers.LSTM(50, name="lstm_a"), 3, 2),  # a sample without its time axis
        ((2, 64, 4, 850), keras.layers.LSTM(8, name="encoder1_"), 3, 4),  # an axis too many
        ((2, 3), keras.layers.ConvLSTM1D(2, 1, name="conv_lstm"), 4, 2),
    ],
)
def test_keras_rank_error_in_each_keras_wording(inputs, layer, want, got):
    """Keras 3's own message, and the same refusal as TF 2.0-2.5's tf.keras (the name unquoted) and
    Keras 2.0-2.3 (``is incompatible with layer NAME``, no shape) worded it (``derive.read.errors.messages``
    cites each): the ranks Keras gives, and the shape where the message has it (issue 26)."""
    message = real_error(lambda: layer(keras.ops.zeros(inputs)))
    name, shape = layer.name, str(inputs)
    assert f"of layer '{name}' is incompatible" in message and f"Full shape received: {shape}" in message
    tf2 = (  # tensorflow/python/keras/engine/input_spec.py (TF 2.4), assert_input_compatibility
        f"Input 0 of layer {name} is incompatible with the layer: expected ndim={want}, found ndim={got}. "
        f"Full shape received: {shape}"
    )
    keras2 = f"ValueError: Input 0 is incompatible with layer {name}: expected ndim={want}, found ndim={got}"
    for text, shown in ((message, shape), (tf2, shape), (keras2, None)):
        answer = derive.explain_error(text)
        assert answer.startswith(f"layer {name} expects ndim={want}"), answer
        assert f"got ndim={got} {shown}:" in answer if shown else f"got ndim={got}:" in answer, answer
        assert ("time axis" in answer) == (got < want == 3) and ("too many" in answer) == (got > want), answer


@pytest.mark.parametrize(
    "text",
    [
        "Input 0 of layer lstm is incompatible with the layer: expected ndims=3, found ndim=2",  # not Keras' words
        "Input 0 of layer lstm is incompatible with the layer: expected min_ndim=3, found ndim=2",  # another check
        "Input 0 of layer  is incompatible with the layer: expected ndim=3, found ndim=2",  # no name
    ],
)
def test_near_misses_of_the_keras_rank_error_are_not_recognised(text):
    assert derive.explain_error(text).startswith("not recognised")


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


# ---------------------------------------------------------------- every argument, both values, from real torch

BASE = {"input_size": 10, "hidden_size": 20, "num_layers": 2, "bias": True, "bidirectional": False}
CHANGES = [
    ("bias", False),
    ("bidirectional", True),
    ("num_layers", 3),
    ("num_layers", 1),
    ("hidden_size", 24),
    ("input_size", 12),
    ("proj_size", 5),
]


def _rnn(kind, **config):
    config = {**config}
    return getattr(nn, kind)(config.pop("input_size"), config.pop("hidden_size"), **config)


class Net(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.encoder = nn.Embedding(30, rnn.input_size)
        self.rnn = rnn


@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize(("argument", "value"), CHANGES)
def test_each_argument_named_with_both_values(argument, value, swap, nested):
    ckpt_config, model_config = {**BASE, argument: value}, dict(BASE)
    if swap:
        ckpt_config, model_config = model_config, ckpt_config
    checkpoint, model = _rnn("LSTM", **ckpt_config), _rnn("LSTM", **model_config)
    if nested:
        checkpoint, model = Net(checkpoint), Net(model)
    message = real_error(lambda: model.load_state_dict(checkpoint.state_dict()))
    explained = derive.explain_error(message)
    default = {"proj_size": 0}.get(argument)
    mine, theirs = ckpt_config.get(argument, default), model_config.get(argument, default)
    module = "rnn" if nested else "(top level)"
    assert f"{module}: checkpoint has {argument}={mine}, your model {theirs}" in explained, (message, explained)
    assert not any("num_layers" in line for line in explained.splitlines() if argument != "num_layers")


@pytest.mark.parametrize(("saved", "loaded"), [("GRU", "LSTM"), ("LSTM", "RNN"), ("RNN", "GRU")])
def test_cell_type_named(saved, loaded):
    message = real_error(lambda: _rnn(loaded, **BASE).load_state_dict(_rnn(saved, **BASE).state_dict()))
    assert f"checkpoint has an nn.{saved}, your model an nn.{loaded}" in derive.explain_error(message)


class Wrapper(nn.Module):
    """As a Lightning module holds its network: ``self.model``."""

    def __init__(self, model):
        super().__init__()
        self.model = model


# torch.compile's first use imports TorchScript, which warns about its own deprecation.
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("wrap", ["DataParallel", "compile", "model"])
@pytest.mark.parametrize("bias", [True, False])
def test_wrapper_prefixes(wrap, bias):
    plain = nn.Sequential(nn.LSTM(10, 20, bias=bias))
    wrapped = {"DataParallel": nn.DataParallel, "compile": torch.compile, "model": Wrapper}[wrap](plain)
    prefix = {"DataParallel": "module.", "compile": "_orig_mod.", "model": "model."}[wrap]
    assert all(k.startswith(prefix) for k in wrapped.state_dict())
    target = nn.Sequential(nn.LSTM(10, 20))
    explained = derive.explain_error(real_error(lambda: target.load_state_dict(wrapped.state_dict())))
    assert f"the checkpoint's keys start with {prefix!r}" in explained
    assert ("0: checkpoint has bias=False, your model True" in explained) is (not bias)
    assert "num_layers" not in explained
    explained = derive.explain_error(real_error(lambda: wrapped.load_state_dict(target.state_dict())))
    assert f"your model's keys start with {prefix!r}" in explained and "num_layers" not in explained


# ---------------------------------------------------------------- never a silent under-count: every reader


class Mystery(nn.Module):
    """A module derive does not know, with parameters of its own."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.zeros(7, 3))
        self.gate = nn.Linear(3, 3)

    def forward(self, x):
        return self.gate(x) @ self.table.T


def _mystery_model():
    return nn.Sequential(nn.LSTM(3, 3), Mystery())


class _Export(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 3)
        self.mystery = Mystery()

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.mystery(out)


def _case_onnx(tmp_path):
    model = _Export().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(4, 1, 3),), str(tmp_path / "m.onnx"), dynamo=False)
    return str(tmp_path / "m.onnx"), sum(p.numel() for p in model.parameters())


def _case_file(tmp_path, suffix):
    model = _mystery_model()
    path = str(tmp_path / f"m{suffix}")
    if suffix == ".pt":
        torch.save(model.state_dict(), path)
    else:
        from safetensors.torch import save_file

        save_file(model.state_dict(), path)
    return path, sum(p.numel() for p in model.parameters())


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.gain = self.add_weight(shape=(input_shape[-1],), name="gain")

    def call(self, x):
        return x * self.gain


def _keras_model():
    return keras.Sequential(
        [keras.Input((5, 4)), keras.layers.GRU(3, return_sequences=True), Scale(), keras.layers.Dense(2)]
    )


def _case_keras_file(tmp_path, weights):
    import zipfile

    model = _keras_model()
    path = tmp_path / "m.keras"
    with warnings.catch_warnings():  # Keras' torch backend converting its own tensors in model.save
        warnings.simplefilter("ignore", DeprecationWarning)
        model.save(str(path))
    if not weights:
        bare = tmp_path / "bare.keras"
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(bare, "w") as target:
            for name in source.namelist():
                if name != "model.weights.h5":
                    target.writestr(name, source.read(name))
        path = bare
    return str(path), model.count_params()


def _case_unbuilt_keras(_):
    layer = Scale()
    built = Scale()
    built.build((None, 4))
    return layer, built.count_params()


READERS = {
    "state dict": lambda _: (_mystery_model().state_dict(), sum(p.numel() for p in _mystery_model().parameters())),
    ".pt": lambda tmp: _case_file(tmp, ".pt"),
    ".safetensors": lambda tmp: _case_file(tmp, ".safetensors"),
    ".onnx": _case_onnx,
    ".keras": lambda tmp: _case_keras_file(tmp, True),
    ".keras without weights": lambda tmp: _case_keras_file(tmp, False),
    "live torch": lambda _: (_mystery_model(), sum(p.numel() for p in _mystery_model().parameters())),
    "live Keras": lambda _: (_keras_model(), _keras_model().count_params()),
    "live Keras not built": _case_unbuilt_keras,
    "Keras config": lambda _: (_keras_model().get_config(), _keras_model().count_params()),
}


@pytest.mark.parametrize("reader", list(READERS))
def test_an_unknown_part_is_counted_refused_or_marked(reader, tmp_path):
    obj, truth = READERS[reader](tmp_path)
    if reader == "Keras config":
        from derive.read.configs.keras_functional import explain_keras_config

        report = explain_keras_config({"class_name": "Sequential", "config": obj})
    else:
        report = explain(obj)
    data = report.to_dict()
    assert data["partial"] is report.partial
    if not report.partial:
        assert report.total == truth, reader
        assert "lower bound" not in report.text()
        return
    assert report.total < truth and report.uncounted, reader
    assert [r["name"] for r in data["layers"] if r["params"] is None] == report.uncounted
    assert "the total is a lower bound" in report.text()


def test_unreadable_parts_are_refused(tmp_path):
    with pytest.raises(SourceError, match="no torch.nn RNN, LSTM or GRU has these shapes"):
        explain({"rnn.weight_ih_l0": torch.zeros(30, 5), "rnn.weight_hh_l0": torch.zeros(40, 10)})
    with pytest.raises(TypeError, match="expected a tensor or a shape"):
        explain({"rnn.weight_ih_l0": 3.5})
    with pytest.raises(TypeError, match="a shape holds non-negative ints"):
        explain({"rnn.weight_ih_l0": "not a tensor"})
