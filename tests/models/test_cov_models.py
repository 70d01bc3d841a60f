"""Checkpoints, state dicts, reports, error messages and live modules: the paths the other tests leave.

Every expected count, shape and name comes from real torch (modules on the meta device, checkpoints
written into ``tmp_path``, ``load_state_dict``'s own error messages).
"""

from __future__ import annotations

import json
import re
import warnings
import zipfile

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import derive  # noqa: E402
from derive.read import explain, explain_code  # noqa: E402
from derive.read.configs import keras_config  # noqa: E402
from derive.read.files import checkpoints, state_dict  # noqa: E402
from derive.read.report import Report, Row, jsonable, show  # noqa: E402
from derive.read.source import SourceError  # noqa: E402


def meta(factory):
    with torch.device("meta"):
        return factory()


def real_error(action) -> str:
    with pytest.raises(RuntimeError) as info:
        action()
    return str(info.value)


def params(module) -> int:
    return sum(p.numel() for p in module.parameters())


# ---------------------------------------------------------------- checkpoints


def test_read_text_refuses_large_and_non_utf8(tmp_path, monkeypatch):
    code = tmp_path / "m.py"
    code.write_text("nn.LSTM(10, 20)\n", encoding="utf-8")
    assert explain(str(code)).total == params(meta(lambda: nn.LSTM(10, 20)))
    latin = tmp_path / "l.py"
    latin.write_bytes("# café\nnn.LSTM(10, 20)\n".encode("latin-1"))
    with pytest.raises(SourceError, match="not UTF-8"):
        explain(str(latin))
    monkeypatch.setattr(checkpoints, "MAX_CODE_BYTES", 5)
    with pytest.raises(SourceError, match="larger than 5 bytes"):
        explain(str(code))


def test_missing_file_and_unknown_suffix(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        checkpoints.explain_file(str(tmp_path / "absent.pt"))
    other = tmp_path / "m.h5"
    other.write_bytes(b"\x89HDF")
    with pytest.raises(SourceError, match=r"unknown file type '\.h5'"):
        explain(str(other))


@pytest.mark.parametrize("key", ["state_dict", "model_state_dict", "model", "net", "module"])
def test_state_dict_nested_in_a_training_checkpoint(tmp_path, key):
    model = nn.Module()
    model.rnn = nn.GRU(12, 16, 2)
    model.head = nn.Linear(16, 3)
    path = tmp_path / "ckpt.pth"
    torch.save({"epoch": 3, "optimizer": {"lr": 0.1}, key: model.state_dict()}, path)
    report = explain(str(path))
    assert report.total == params(model)
    assert report.constructors == ["nn.GRU(12, 16, num_layers=2)"]
    names = [n for r in report.rows for n, _ in r.tensors]
    assert sorted(names) == sorted(model.state_dict())


def test_checkpoint_without_tensors_is_refused(tmp_path):
    path = tmp_path / "empty.pt"
    torch.save({"epoch": 3, "state_dict": {"nested": {"deeper": {"deepest": {"x": 1}}}}}, path)
    with pytest.raises(SourceError, match="no mapping of names to tensors"):
        explain(str(path))
    path_list = tmp_path / "list.bin"
    torch.save([torch.zeros(2)], path_list)
    with pytest.raises(SourceError, match="no mapping of names to tensors"):
        explain(str(path_list))


def test_keras_config_calls_refuses_non_configs():
    for config in ({"config": {}}, [1, 2], {"class_name": 3}):
        with pytest.raises(SourceError, match="not a Keras layer config"):
            keras_config.config_call(config)


def test_keras_file_with_huge_config_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "m.keras"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", json.dumps({"class_name": "Sequential", "config": {"layers": []}}))
    monkeypatch.setattr(checkpoints, "MAX_CONFIG_BYTES", 10)
    with pytest.raises(SourceError, match="config.json larger than 10 bytes"):
        explain(str(path))
    monkeypatch.undo()
    no_config = tmp_path / "n.keras"
    with zipfile.ZipFile(no_config, "w") as archive:
        archive.writestr("metadata.json", "{}")
    with pytest.raises(SourceError, match="not a readable .keras file"):
        explain(str(no_config))


def _export(module, args, path):
    # The legacy exporter writes LSTM/GRU/RNN nodes; its own warnings are silenced around export only.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), dynamo=False)


class _Tagger(nn.Module):
    def __init__(self, kind, bias):
        super().__init__()
        self.rnn = getattr(nn, kind)(6, 8, bias=bias)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[-1])


@pytest.mark.parametrize(("kind", "bias"), [("LSTM", True), ("RNN", False)])
def test_onnx_other_initializers_are_listed_numeric(tmp_path, kind, bias):
    model = _Tagger(kind, bias).eval()
    path = tmp_path / "t.onnx"
    _export(model, (torch.zeros(4, 1, 6),), path)
    report = explain(str(path))
    assert report.total == params(model)
    (recurrent,) = [r for r in report.rows if r.type == kind]
    assert recurrent.params == params(model.rnn)
    assert report.constructors == [f"nn.{kind}(6, 8" + ("" if bias else ", bias=False") + ")"]
    (head,) = [r for r in report.rows if r.name == "head"]
    assert head.params == params(model.head) and head.note == "numeric, not derived"
    named = {t["name"]: t["shape"] for t in report.tensors}
    assert {n: tuple(p.shape) for n, p in model.head.named_parameters(prefix="head")}.items() <= named.items()


def _onnx_lstm(path, w_shape, r_as_initializer=True):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.zeros(w_shape, dtype=np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 4 * 8, 8), dtype=np.float32), "R")
    node = helper.make_node("LSTM", ["X", "W", "R"], ["Y"], hidden_size=8, name="lstm0")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 1, 6])]
        + ([] if r_as_initializer else [helper.make_tensor_value_info("R", TensorProto.FLOAT, [1, 32, 8])]),
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        [w, r] if r_as_initializer else [w],
    )
    onnx.save(helper.make_model(graph), str(path))


def test_onnx_nodes_derive_cannot_read(tmp_path):
    # An LSTM node whose R is a graph input (not a weight in the file), and one whose W has 3·H rows.
    _onnx_lstm(tmp_path / "r.onnx", (1, 32, 6), r_as_initializer=False)
    with pytest.raises(SourceError, match="W or R is not an initializer"):
        explain(str(tmp_path / "r.onnx"))
    _onnx_lstm(tmp_path / "w.onnx", (1, 24, 6))
    with pytest.raises(SourceError, match=r"W has 24 rows, not 4·8"):
        explain(str(tmp_path / "w.onnx"))
    # torch refuses the same shapes: an LSTM's weight_ih has 4·hidden_size rows.
    lstm = nn.LSTM(6, 8)
    state = dict(lstm.state_dict())
    state["weight_ih_l0"] = torch.zeros(24, 6)
    assert "size mismatch for weight_ih_l0" in real_error(lambda: lstm.load_state_dict(state))


# ---------------------------------------------------------------- state dicts (infer)


def test_cell_state_dict_gives_the_cell_constructor():
    for kind in ("LSTMCell", "GRUCell", "RNNCell"):
        cell = meta(lambda kind=kind: getattr(nn, kind)(10, 20))
        report = explain(cell.state_dict())
        assert report.constructors == [f"nn.{kind}(10, 20)"]
        assert report.total == params(cell)
        assert report.rows[0].type == kind


def test_state_dict_missing_a_tensor_is_refused():
    state = dict(nn.LSTM(10, 20, 2).state_dict())
    del state["bias_hh_l1"]
    with pytest.raises(SourceError, match="not those of any one torch.nn.LSTM"):
        explain(state)
    message = real_error(lambda: nn.LSTM(10, 20, 2).load_state_dict(state))
    assert 'Missing key(s) in state_dict: "bias_hh_l1"' in message


def test_shapes_no_recurrent_layer_makes():
    # weight_ih with 30 rows, weight_hh with 40: torch makes no layer with two gate counts.
    with pytest.raises(SourceError, match="no torch.nn RNN, LSTM or GRU has these shapes"):
        explain({"rnn.weight_ih_l0": (30, 5), "rnn.weight_hh_l0": (40, 10)})
    for kind in ("LSTM", "GRU", "RNN"):
        shapes = {k: tuple(v.shape) for k, v in meta(lambda kind=kind: getattr(nn, kind)(5, 10)).state_dict().items()}
        assert (shapes["weight_ih_l0"], shapes["weight_hh_l0"]) != ((30, 5), (40, 10))


def test_reverse_name_without_layer_is_not_recurrent():
    report = explain({"x.weight_ih_reverse": torch.zeros(4, 3)})
    assert [(r.type, r.params) for r in report.rows] == [("tensors", 12)]


def test_state_dict_refusals(monkeypatch):
    with pytest.raises(TypeError, match="keys are str"):
        explain({1: (3, 4)})
    with pytest.raises(TypeError, match="expected a tensor or a shape, got int"):
        explain({"w": 5})
    with pytest.raises(TypeError, match="non-negative ints"):
        explain({"w": (3, -1)})
    with pytest.raises(TypeError, match="non-negative ints"):
        explain({"w": (True, 2)})
    with pytest.raises(RuntimeError):  # torch refuses a negative size too
        torch.zeros(3, -1)
    monkeypatch.setattr(state_dict, "MAX_TENSORS", 2)
    with pytest.raises(SourceError, match="more than 2 tensors"):
        explain(dict(nn.LSTM(3, 4).state_dict()))


# ---------------------------------------------------------------- error messages


def test_mismatch_outside_recurrent_layers():
    class Net(nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.rnn = nn.LSTM(10, 20)
            self.fc = nn.Linear(20, classes)

    message = real_error(lambda: Net(5).load_state_dict(Net(3).state_dict()))
    text = derive.explain_error(message)
    assert "fc.weight: checkpoint (3, 20), your model (5, 20) (not a recurrent tensor)" in text
    assert "fc.bias: checkpoint (3,), your model (5,)" in text


def test_projection_and_plain_missing_keys():
    message = real_error(lambda: nn.LSTM(10, 20).load_state_dict(nn.LSTM(10, 20, proj_size=5).state_dict()))
    assert "proj_size=5, your model 0" in derive.explain_error(message)

    class Net(nn.Module):
        def __init__(self, head):
            super().__init__()
            self.rnn = nn.GRU(4, 8)
            if head:
                self.fc = nn.Linear(8, 2)

    message = real_error(lambda: Net(True).load_state_dict(Net(False).state_dict()))
    assert "keys that your model has, the checkpoint lacks: fc.weight, fc.bias" in derive.explain_error(message)
    message = real_error(lambda: Net(False).load_state_dict(Net(True).state_dict()))
    assert "keys that the checkpoint has, your model lacks: fc.weight, fc.bias" in derive.explain_error(message)


def test_explain_error_refuses_non_text():
    with pytest.raises(TypeError, match="must be a str, got bytes"):
        derive.explain_error(b"size mismatch")
    with pytest.raises(ValueError, match="longer than 100,000 characters"):
        derive.explain_error("x" * 100_001)


# ---------------------------------------------------------------- reports


def test_report_serialisations_of_a_checkpoint():
    gru = meta(lambda: nn.GRU(7, 9, bidirectional=True))
    report = explain(
        {"enc." + k: v for k, v in gru.state_dict().items()} | {"fc.weight": torch.empty(2, 18, device="meta")}
    )
    assert report.layers is report.rows
    assert [r.name for r in report.recurrent] == ["enc"]
    data = report.to_dict()
    assert data["total"] == params(gru) + 36
    assert data["constructors"] == ["nn.GRU(7, 9, bidirectional=True)"]
    assert data["notes"] and "input_shape" not in data
    (enc,) = [layer for layer in data["layers"] if layer["name"] == "enc"]
    assert enc["config"]["hidden_size"] == gru.hidden_size and enc["constructor"].startswith("nn.GRU")
    (fc,) = [layer for layer in data["layers"] if layer["name"] == "fc"]
    assert fc["note"].startswith("numeric, not derived")
    json.dumps(data)
    assert str(report) == report.text()
    html = report._repr_html_()
    assert html.count("<tr>") == len(report.rows) + 2 and f"{report.total:,}" in html
    latex = report._repr_latex_()
    terms = sorted(r.params for r in report.rows)
    assert latex.startswith("$N = ") and f"{report.total:,}".replace(",", "{,}") in latex
    assert all(f"{t:,}".replace(",", "{,}") in latex for t in terms)


def test_report_latex_one_term_and_symbolic():
    one = explain_code("nn.LSTM(10, 20)", framework="torch")
    assert one._repr_latex_() == "$N = " + f"{params(meta(lambda: nn.LSTM(10, 20))):,}".replace(",", "{,}") + "$"
    h = sympy.Symbol("H", positive=True, integer=True)
    symbolic = Report("torch", [Row("a", "Linear", h * 3 + 3), Row("b", "?", None)])
    assert symbolic._repr_latex_() == f"$N = {sympy.latex(3 * h + 3)}$"
    assert "?" in symbolic._repr_html_()


def test_show_and_jsonable_of_ellipsis_and_shapes():
    assert show(Ellipsis) == "..." and jsonable(Ellipsis) == "..."
    assert show([(None, 3), (7,)]) == "[(None, 3), (7,)]"
    assert jsonable({"s": (sympy.Integer(4), sympy.Symbol("T"))}) == {"s": [4, "T"]}
    data = Report("keras", [Row("x", "Input", 0, output_shape=(None, ...))], input_shape=(None, 5)).to_dict()
    assert data["input_shape"] == [None, 5] and data["layers"][0]["output_shape"] == [None, "..."]


# ---------------------------------------------------------------- torch code


def test_torch_code_refusals_match_python():
    snippets = {
        "class Net(nn.Module):\n    def forward(self, x):\n        return x\n": "has no __init__",
        "class Net(nn.Module):\n    def __init__(self, h):\n        super().__init__()\n"
        "        self.rnn = nn.LSTM(h, h)\nmodel = Net(1, 2)\n": r"takes 1 positional arguments but 2 were given",
        "class Net(nn.Module):\n    def __init__(self, h):\n        super().__init__()\n"
        "        self.rnn = nn.LSTM(h, h)\nmodel = Net(g=2)\n": "unexpected keyword argument 'g'",
        "class Net(nn.Module):\n    def __init__(self, h):\n        super().__init__()\n"
        "        self.rnn = nn.LSTM(h, h)\nmodel = Net()\n": "missing required argument 'h'",
        "nn.ModuleList(nn.LSTM(3, 4))": "takes a list of modules",
        "nn.Sequential(nn.LSTM(3, 4), 5)": "holds modules; got 5",
        "nn.LSTM(*sizes)": "unpacked arguments hide the sizes",
        "x = 3\n": "no PyTorch model found",
    }
    for text, message in snippets.items():
        with pytest.raises(SourceError, match=message):
            explain_code(text, framework="torch")
    # Python and torch refuse the same calls.
    with pytest.raises(TypeError, match="ModuleList"):
        nn.ModuleList(nn.LSTM(3, 4))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        nn.Sequential(nn.LSTM(3, 4), 5)


def test_torch_class_nesting_too_deep():
    text = "".join(
        f"class C{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        self.m = {'C' + str(i + 1) + '()' if i < 22 else 'nn.Linear(2, 2)'}\n"
        for i in range(23)
    )
    with pytest.raises(SourceError, match="nested too deeply"):
        explain_code(text, framework="torch")


def test_torch_module_list_append_and_defaults():
    text = (
        "class Net(nn.Module):\n"
        "    def __init__(self, h, layers=2, *, vocab=100):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(vocab, h)\n"
        "        self.cells = nn.ModuleList()\n"
        "        self.cells.append(nn.GRUCell(h, h))\n"
        "        self.cells.append(nn.LSTMCell(h, h))\n"
        "        self.size = h * layers\n"
        "        self.fc = nn.Linear(self.size, 3)\n"
        "        self.x, self.y = 1, 2\n"
        "model = Net(16)\n"
    )

    class Net(nn.Module):
        def __init__(self, h, layers=2, *, vocab=100):
            super().__init__()
            self.emb = nn.Embedding(vocab, h)
            self.cells = nn.ModuleList()
            self.cells.append(nn.GRUCell(h, h))
            self.cells.append(nn.LSTMCell(h, h))
            self.size = h * layers
            self.fc = nn.Linear(self.size, 3)

    model = meta(lambda: Net(16))
    report = explain_code(text, framework="torch")
    assert report.total == params(model)
    expected = [n for n, m in model.named_modules() if not list(m.children())]
    assert [r.name for r in report.rows] == expected
    assert [n for r in report.rows for n, _ in r.tensors] == [n for n, _ in model.named_parameters()]


def test_torch_partial_marks_unknown_modules():
    text = "nn.Sequential(nn.Linear(4, 8), nn.Mamba(), MyBlock(8), nn.GRU(8, 8))"
    with pytest.raises(SourceError, match="unknown name 'nn.Mamba'"):
        explain_code(text, framework="torch")
    report = explain_code(text, framework="torch", partial=True)
    assert [r.params is None for r in report.rows] == [False, True, True, False]
    known = meta(lambda: nn.Sequential(nn.Linear(4, 8), nn.GRU(8, 8)))
    assert report.total == params(known)
    assert any("Mamba is not known" in n for n in report.notes)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 30), st.integers(1, 30), st.sampled_from(["LSTM", "GRU", "RNN"]))
def test_torch_single_recurrent_module_as_model(i, h, kind):
    report = explain_code(f"model = nn.{kind}({i}, {h})", framework="torch")
    module = meta(lambda: getattr(nn, kind)(i, h))
    assert report.title == f"nn.{kind}"
    assert report.total == params(module)
    assert report.rows[0].tensors == [(n, tuple(p.shape)) for n, p in module.named_parameters()]


# ---------------------------------------------------------------- explain() dispatch


def test_explain_code_framework_arguments():
    with pytest.raises(SourceError, match="input_dim is for Keras"):
        explain_code("nn.LSTM(3, 4)", framework="torch", input_dim=3)
    with pytest.raises(ValueError, match="framework must be 'torch', 'keras' or 'tf1'"):
        explain_code("nn.LSTM(3, 4)", framework="jax")
    with pytest.raises(SourceError, match="names of both PyTorch and Keras"):
        explain_code("import torch\nfrom keras import layers\nnn.LSTM(3, 4)\nkeras.layers.Dense(3)")
    assert derive.read.detect("x = nn.Linear(3, 4)\ny = Dense(3)") == "torch"
    assert derive.read.detect("import keras\nx = Linear(3, 4)") == "keras"
    assert derive.read.detect("x = 1") == "torch"


def test_explain_refuses_other_objects():
    with pytest.raises(TypeError, match="got int"):
        explain(42)


# ---------------------------------------------------------------- live objects


class _Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(5))
        self.proj = nn.Linear(5, 5)
        self.act = nn.Tanh()


def test_live_module_with_own_parameters_and_unknown_children():
    model = meta(
        lambda: nn.Sequential(
            _Gate(),
            nn.LSTM(5, 6, batch_first=True, proj_size=3),
            nn.RNN(3, 4, nonlinearity="relu"),
            nn.PReLU(),
            nn.LayerNorm(4, bias=False),
            nn.BatchNorm1d(4, affine=False),
            nn.Conv1d(4, 8, 3, groups=2, bias=False),
        )
    )
    report = explain(model)
    assert report.total == params(model)
    own = {n: sum(p.numel() for p in m.parameters(recurse=False)) for n, m in model.named_modules()}
    by_name = {r.name: r for r in report.rows}
    assert by_name["0"].params == own["0"] and "own parameters" in by_name["0"].note
    assert by_name["3"].params == own["3"]  # PReLU: derived where a constructor is registered, else numeric
    assert by_name["0.act"].params == 0 and by_name["0.act"].note == ""
    for index in ("1", "2", "4", "5", "6"):
        assert by_name[index].params == own[index]
        assert [n for n, _ in by_name[index].tensors] == [
            f"{index}.{n}" for n, _ in model[int(index)].named_parameters()
        ]


def test_base_helpers_agree_with_torch():
    from derive.layers.conv import conv_length
    from derive.tree import closed_form as remembered

    calls = []
    assert remembered(["unhashable"], lambda: calls.append(1) or 7) == 7
    assert remembered(["unhashable"], lambda: calls.append(1) or 7) == 7 and len(calls) == 2
    for length, kernel, stride in ((10, 3, 2), (11, 4, 3), (7, 1, 1)):
        conv = nn.Conv1d(1, 1, kernel, stride=stride, padding=(kernel - 1) // 2 * 0)
        out = conv(torch.zeros(1, 1, length)).shape[-1]
        assert conv_length(length, kernel, stride, 0) == out
    t = sympy.Symbol("T", positive=True, integer=True)
    assert conv_length(t, 3, 2, "same") == sympy.ceiling(t / 2)
    assert conv_length(t, 3, "x", "same") is None
    from derive.read.code.pytorch.layers import TORCH_LAYERS

    layer = TORCH_LAYERS["Linear"](3, 4)
    assert re.fullmatch(r"\w+\(in_features=3, out_features=4.*\)", repr(layer))


# ---------------------------------------------------------------- ONNX graphs written by hand (onnx.helper)


def _graph(path, nodes, initializers, inputs=("X",)):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    tensors = [numpy_helper.from_array(np.zeros(shape, dtype=dtype), name) for name, shape, dtype in initializers]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in inputs],
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
        tensors,
    )
    onnx.save(helper.make_model(graph), str(path))


def test_onnx_hand_written_graphs(tmp_path):
    import numpy as np
    from onnx import helper

    f32 = np.float32
    # Two unnamed GRU nodes in a row (no scopes): one module of two layers; a shared initializer.
    nodes = [
        helper.make_node("GRU", ["X", "W0", "R0", "B0"], ["Y0"], hidden_size=4, linear_before_reset=1, name="g0"),
        helper.make_node("Squeeze", ["Y0"], ["S0"], name="sq"),
        helper.make_node("GRU", ["S0", "W1", "R1", "B1"], ["Y1"], hidden_size=4, linear_before_reset=1, name="g1"),
        helper.make_node("MatMul", ["Y1", "M"], ["Z0"], name="mm"),
        helper.make_node("Add", ["Z0", "M2"], ["Z1"], name="add"),
        helper.make_node("Mul", ["Z1", "M2"], ["Z"], name="mul"),
    ]
    inits = [
        ("W0", (1, 12, 3), f32), ("R0", (1, 12, 4), f32), ("B0", (1, 24), f32),
        ("W1", (1, 12, 4), f32), ("R1", (1, 12, 4), f32), ("B1", (1, 24), f32),
        ("M", (4, 4), f32), ("M2", (4,), f32), ("steps", (2,), np.int64),
    ]  # fmt: skip
    _graph(tmp_path / "g.onnx", nodes, inits)
    report = explain(str(tmp_path / "g.onnx"))
    gru = meta(lambda: nn.GRU(3, 4, 2))
    assert report.constructors == ["nn.GRU(3, 4, num_layers=2)"]
    assert report.total == params(gru) + 16 + 4
    assert any("read by several nodes" in n for n in report.notes)
    assert [t["name"] for t in report.buffers] == ["steps"]
    # A GRU whose reset gate comes before the product: same tensors, not torch's GRU (no constructor).
    nodes = [helper.make_node("GRU", ["X", "W0", "R0"], ["Y"], hidden_size=4, name="g")]
    _graph(tmp_path / "r.onnx", nodes, inits[:2])
    report = explain(str(tmp_path / "r.onnx"))
    assert report.constructors == [] and "no torch.nn module" in report.rows[0].note
    assert report.total == params(meta(lambda: nn.GRU(3, 4, bias=False)))
    # Two modules of one scope are told apart: rnn, rnn_1.
    nodes = [
        helper.make_node("RNN", ["X", "W", "R"], ["Y0"], hidden_size=4, name="/rnn/RNN"),
        helper.make_node("RNN", ["X", "W", "R"], ["Y"], hidden_size=4, name="/rnn/RNN_1"),
    ]
    _graph(tmp_path / "s.onnx", nodes, [("W", (1, 4, 3), f32), ("R", (1, 4, 4), f32)])
    report = explain(str(tmp_path / "s.onnx"))
    assert [r.name for r in report.rows] == ["rnn", "rnn_1"]


@pytest.mark.parametrize(
    ("inputs", "inits", "words"),
    [
        (["X", "W", "R", "B"], [("W", (1, 16, 3)), ("R", (1, 16, 4))], "B is not an initializer"),
        (["X", "W", "R"], [("W", (16, 3)), ("R", (1, 16, 4))], "not three-dimensional"),
        (["X", "W", "R", "B"], [("W", (1, 16, 3)), ("R", (1, 16, 4)), ("B", (1, 16))], "not those of the ONNX LSTM"),
    ],
)
def test_onnx_recurrent_nodes_refused(tmp_path, inputs, inits, words):
    import numpy as np
    from onnx import helper

    node = helper.make_node("LSTM", inputs, ["Y"], hidden_size=4, name="lstm")
    extra = ("B",) if "B" in inputs and not any(n == "B" for n, _ in inits) else ()
    _graph(tmp_path / "x.onnx", [node], [(n, s, np.float32) for n, s in inits], inputs=("X", *extra))
    with pytest.raises(SourceError, match=words):
        explain(str(tmp_path / "x.onnx"))


def test_onnx_deduplicated_initializers_are_the_original_tensors(tmp_path):
    # Fresh BatchNorm: weight and running_var are both ones; the exporter keeps one and adds an Identity.
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).eval()
    _export(model, (torch.zeros(2, 4),), tmp_path / "bn.onnx")
    report = explain(str(tmp_path / "bn.onnx"))
    assert report.total == params(model)
    assert {t["name"] for t in report.buffers} <= {n for n, _ in model.named_buffers()}


# ---------------------------------------------------------------- live modules: every branch


def test_live_modules_derived_numeric_and_refused():
    from derive.read.live.pytorch import torch_tree

    class MyLinear(nn.Linear):  # a user's subclass: counted from its tensors
        pass

    odd = nn.Linear(4, 3)
    odd.weight = nn.Parameter(torch.zeros(3, 5))  # tensors not those of its arguments
    shared = nn.Module()
    shared.table = odd.bias  # a tie inside a module derive does not know
    broken = nn.Linear(2, 2)
    del broken.in_features  # its configuration cannot be read
    model = nn.Sequential(
        nn.RMSNorm(6),
        nn.GroupNorm(2, 6),
        nn.LSTMCell(6, 6),
        nn.RNNCell(6, 6, nonlinearity="relu"),
        nn.Conv2d(6, 4, (3, 2), groups=2),
        nn.ConvTranspose1d(4, 6, 3),
        nn.InstanceNorm1d(6, affine=True, track_running_stats=True),
        MyLinear(6, 6),
        odd,
        shared,
        broken,
    )
    report = explain(model)
    assert report.total == params(model)
    rows = {r.name: r for r in report.rows}
    for index in range(7):
        assert rows[str(index)].formula is not None or not rows[str(index)].params, index
        assert rows[str(index)].params == params(model[index])
    assert rows["7"].note == "numeric, not derived" and rows["10"].note == "numeric, not derived"
    assert rows["8"].note == "numeric, not derived (its tensors are not those of Linear's arguments)"
    assert "table is 8.bias (counted there)" in rows["9"].note
    deep = nn.Linear(2, 2)
    for _ in range(210):
        deep = nn.Sequential(deep)
    with pytest.raises(ValueError, match="nested more than 200 deep"):
        torch_tree(deep)


def test_live_registered_constructor(monkeypatch):
    from derive.engine import constructors
    from derive.layers.linear import linear

    class Gain(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.weight = nn.Parameter(torch.ones(n, n))

    entry = constructors.Constructor(
        "torch", "Gain", lambda n: linear(n, n, False), read=lambda m: ((m.n,), {}), module_types=(__name__,)
    )
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("torch", "Gain"), entry)
    report = explain(nn.Sequential(Gain(3)))
    assert report.total == 9 and report.rows[0].note == ""
    other = constructors.Constructor("torch", "Gain", entry.make, read=entry.read, module_types=("elsewhere",))
    monkeypatch.setitem(constructors.CONSTRUCTORS, ("torch", "Gain"), other)
    assert explain(nn.Sequential(Gain(3))).rows[0].note == "numeric, not derived"


def test_partial_listings_of_cells_and_ambiguous_shapes():
    # weight_ih alone (12 rows): an RNN of 12, a GRU of 4 or an LSTM of 3 (torch builds each).
    report = explain({"rnn.weight_ih_l0": (12, 5)}, partial=True)
    assert report.rows[0].type == "RNN/GRU/LSTM?" and report.total == 60
    for kind, hidden in (("RNN", 12), ("GRU", 4), ("LSTM", 3)):
        assert tuple(meta(lambda k=kind, h=hidden: getattr(nn, k)(5, h)).weight_ih_l0.shape) == (12, 5)
    # A cell's tensors read off an error message: one direction, one layer; the bias as given.
    cell = meta(lambda: nn.LSTMCell(3, 4))
    shapes = {f"cell.{n}": tuple(p.shape) for n, p in cell.named_parameters()}
    report = explain(shapes)
    assert report.constructors == ["nn.LSTMCell(3, 4)"] and report.total == params(cell)
