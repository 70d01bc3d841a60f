"""``--framework cudnn``: the lines people write for cuDNN's RNNs, against torch's layers of the same sizes.

cuDNN needs a GPU and none is here: torch's ``nn.LSTM``/``GRU``/``RNN`` hold cuDNN's layout (on CUDA
their tensors are views of cuDNN's weight buffer, two biases per gate), so the length of the buffer
that TF 1's ``tf.contrib.cudnn_rnn.Cudnn*`` (``<name>/opaque_kernel``) and torch7's ``cudnn.*``
(``weight``) hold is their total; CUDNN_SKIP_INPUT (TF's ``input_mode="skip_input"``) leaves out
layer 0's ``weight_ih``/``bias_ih`` (derive/frameworks/cudnn.py cites the sources). TensorFlow's
own ``CudnnRNNParamsSize`` has GPU kernels only; the test asks it and, without a GPU, records its
refusal.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import derive
from derive import frameworks
from derive.cli import main

PROPERTY = settings(max_examples=25, deadline=None)
TORCH = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn_tanh": nn.RNN, "rnn_relu": nn.RNN}
TF = {"CudnnLSTM": "lstm", "CudnnGRU": "gru", "CudnnRNNTanh": "rnn_tanh", "CudnnRNNRelu": "rnn_relu"}
#: The layer's default name, TF's ``to_snake_case`` of its class: the variable scope of ``opaque_kernel``.
SCOPES = {
    "CudnnLSTM": "cudnn_lstm",
    "CudnnGRU": "cudnn_gru",
    "CudnnRNNTanh": "cudnn_rnn_tanh",
    "CudnnRNNRelu": "cudnn_rnn_relu",
}
LUA = {
    "LSTM": ("lstm", False),
    "BLSTM": ("lstm", True),
    "GRU": ("gru", False),
    "BGRU": ("gru", True),
    "RNNTanh": ("rnn_tanh", False),
    "RNNReLU": ("rnn_relu", False),
    "RNN": ("rnn_relu", False),  # cudnn.RNN itself: RNN.lua sets CUDNN_RNN_RELU
}


def torch_buffer(mode: str, i: int, h: int, layers: int, bidirectional: bool, skip_input: bool = False) -> int:
    options = {"nonlinearity": mode[4:]} if mode.startswith("rnn_") else {}
    with torch.device("meta"):
        layer = TORCH[mode](i, h, layers, bidirectional=bidirectional, **options)
    skipped = {"weight_ih_l0", "bias_ih_l0", "weight_ih_l0_reverse", "bias_ih_l0_reverse"} if skip_input else set()
    return sum(p.numel() for n, p in layer.named_parameters() if n not in skipped)


def run(*argv: str) -> tuple[int, dict | str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--json"])
    return status, json.loads(out.getvalue()) if status == 0 else err.getvalue()


def answer(text: str, input_dim: int | None = None) -> dict:
    status, data = run(text, "--framework", "cudnn", *(["--input-dim", str(input_dim)] if input_dim else []))
    assert status == 0, data
    assert isinstance(data, dict)
    return data


def test_the_two_questions() -> None:
    """torch7's ``cudnn.BLSTM(512,512,1,false,0)`` (cudnn.torch issue 311: 4,202,496) and TF's 3-layer
    bidirectional ``CudnnLSTM`` on 143 features (TensorFlow issue 20273: an opaque kernel of 1,315,600)."""
    lua = answer("cudnn.BLSTM(512,512,1,false,0)")
    assert lua["tensors"] == [{"name": "weight", "shape": [4202496], "parameters": 4202496}]
    assert lua["total"] == torch_buffer("lstm", 512, 512, 1, True) == 4202496
    tf = answer("tf.contrib.cudnn_rnn.CudnnLSTM(3, 143, direction='bidirectional')", 143)
    assert tf["tensors"] == [{"name": "cudnn_lstm/opaque_kernel", "shape": [1315600], "parameters": 1315600}]
    assert tf["total"] == torch_buffer("lstm", 143, 143, 3, True) == 1315600
    report = derive.explain(
        "tf.contrib.cudnn_rnn.CudnnLSTM(3, 143, direction='bidirectional')", framework="cudnn", input_dim=143
    )
    assert report.total == 1315600


@PROPERTY
@given(
    cls=st.sampled_from(sorted(LUA)),
    i=st.integers(1, 40),
    h=st.integers(1, 40),
    layers=st.integers(1, 4),
    rest=st.sampled_from(["", ", false", ", true, 0.5", ", nil, 0, true", ", false, 0, false"]),
)
def test_cudnn_torch_lines_hold_torchs_total(cls, i, h, layers, rest) -> None:
    mode, bidirectional = LUA[cls]
    data = answer(f"cudnn.{cls}({i}, {h}, {layers}{rest})")
    assert data["total"] == torch_buffer(mode, i, h, layers, bidirectional)
    assert [t["name"] for t in data["tensors"]] == ["weight"]
    I, H, L = sympy.symbols("I H L")
    formula = sympy.sympify(data["formula"], locals={"I": I, "H": H, "L": L})
    assert formula.subs({I: i, H: h, L: layers}) == data["total"]


@PROPERTY
@given(
    cls=st.sampled_from(sorted(TF)),
    i=st.integers(1, 40),
    h=st.integers(1, 40),
    layers=st.integers(1, 4),
    bidirectional=st.booleans(),
    input_mode=st.sampled_from(["linear_input", "auto_select", "skip_input", None]),
    prefix=st.sampled_from(["tf.contrib.cudnn_rnn.", "cudnn_rnn.", ""]),
    name=st.sampled_from([None, "encoder"]),
)
def test_tf_contrib_lines_hold_torchs_total(cls, i, h, layers, bidirectional, input_mode, prefix, name) -> None:
    if input_mode == "skip_input":
        i = h  # TF: "'skip_input' is only allowed when input_size == num_units"
    args = [str(layers), f"num_units={h}"]
    args += [f"input_mode={input_mode!r}"] if input_mode else []
    args += ["direction='bidirectional'"] if bidirectional else []
    args += [f"name={name!r}"] if name else []
    data = answer(f"{prefix}{cls}({', '.join(args)})", i)
    skip = input_mode == "skip_input" or (input_mode == "auto_select" and i == h)
    assert data["total"] == torch_buffer(TF[cls], i, h, layers, bidirectional, skip)
    scope = name or SCOPES[cls]
    assert data["tensors"] == [
        {"name": f"{scope}/opaque_kernel", "shape": [data["total"]], "parameters": data["total"]}
    ]


def test_skip_input_drops_layer_zeros_input_matrices_and_biases() -> None:
    """CUDNN_SKIP_INPUT: 4·H·(H + 1) fewer floats per direction for an LSTM."""
    linear = answer("CudnnLSTM(2, 8, direction='bidirectional')", 8)["total"]
    skip = answer("CudnnLSTM(2, 8, input_mode='skip_input', direction='bidirectional')", 8)["total"]
    assert linear - skip == 2 * 4 * 8 * (8 + 1)
    assert answer("CudnnGRU(1, 8, input_mode='auto_select')", 4)["total"] == torch_buffer("gru", 4, 8, 1, False)


@pytest.mark.parametrize(
    "text,input_dim,words",
    [
        (
            "CudnnLSTM(1, 8, direction='both')",
            4,
            "Invalid direction: 'both', expecting unidirectional or bidirectional",
        ),
        ("CudnnGRU(1, 8, input_mode='linear')", 4, "Invalid input_mode: 'linear', expect one of"),
        ("CudnnLSTM(1, 8, input_mode='skip_input')", 4, "'skip_input' is only allowed when input_size == num_units"),
        ("CudnnLSTM(1, 8)", None, "makes its weights when first applied: give the input width with --input-dim"),
        ("CudnnLSTM(0, 8)", 4, "num_layers"),
        ("CudnnLSTM(1, 8, name=3)", 4, "name should be a str or None"),
        ("CudnnLSTM(1, 8, dtype=tf.int32)", 4, "Only support float16, float32, float64, provided tf.int32"),
        ("cudnn.BLSTM(512, 512, 1, True, 0)", None, "True is Python's; the line is Lua (cudnn.torch)"),
        ("cudnn.LSTM(3, 4, 1, false, 0, False)", None, "rememberStates: False is Python's"),
        ("cudnn.LSTM(true, 4, 1)", None, "inputSize should be a number, got the Lua value true"),
        ("cudnn.GRU(3, 4, 1, false, true)", None, "dropout should be a number"),
        ("cudnn.LSTM(3, 4)", None, "missing 1 required positional argument: 'numLayers'"),
        ("cudnn.LSTM(inputSize=3, hiddenSize=4, numLayers=1)", None, "positional-only arguments passed as keyword"),
        ("cudnn.LSTM(3, 4, 1)", 3, "takes it as an argument"),
    ],
)
def test_refused_with_the_frameworks_reason(text, input_dim, words) -> None:
    status, err = run(text, "--framework", "cudnn", *(["--input-dim", str(input_dim)] if input_dim else []))
    assert status == 2 and words in err, err


def test_lua_booleans_are_read_as_names_never_evaluated() -> None:
    """``true``/``false``/``nil`` are Lua's, and a variable's name is kept as written: no tensor depends on them."""
    data = answer("cudnn.LSTM(3, 4, 1, opt.batchFirst, opt.dropout, true)")
    assert data["total"] == torch_buffer("lstm", 3, 4, 1, False)
    assert any("opt.batchFirst" in note for note in data["notes"])


def test_the_command_line_offers_cudnn() -> None:
    status, err = run("cudnn.LSTM(3, 4, 1)", "--framework", "cudnnn")
    assert status == 2 and "cudnn" in str(err).split("got")[0]
    status, data = run("cudnn.LSTM(3, 4, 1)")  # cudnn.* is cuDNN's alone: no --framework needed
    assert status == 0 and isinstance(data, dict) and data["framework"] == "cudnn"


def test_tensorflows_own_params_size_or_its_refusal() -> None:
    """``tf.raw_ops.CudnnRNNParamsSize`` in TensorFlow's process: with a GPU, derive's number; without
    one, TensorFlow refuses it for want of a GPU kernel (its kernels are registered for GPUs only)."""
    from frameworks_live_extra import tf_request

    request = {"kind": "cudnn_params_size", "num_layers": 3, "num_units": 143, "input_size": 143}
    try:
        size = tf_request({**request, "rnn_mode": "lstm", "direction": "bidirectional"})[0][0]
    except RuntimeError as error:
        assert "CudnnRNNParamsSize" in str(error) and "GPU" in str(error), error
        return
    assert size == 1315600  # pragma: no cover - a machine with a GPU


def test_cudnns_own_layout_is_the_same_count() -> None:
    """The cuDNN convention's tensors (``frameworks.tensors("cudnn", ...)``) add up to the buffer."""
    for mode, cell in (("lstm", "CUDNN_LSTM"), ("gru", "CUDNN_GRU"), ("rnn_tanh", "CUDNN_RNN_TANH")):
        rows = frameworks.tensors("cudnn", cell, 5, 7, num_layers=2, bidirectional=True)
        assert sum(math.prod(r.shape) for r in rows) == torch_buffer(mode, 5, 7, 2, True)
