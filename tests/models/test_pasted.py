"""The one rule of which framework pasted text is (derive.read.pasted), as the command line and
derive.explain both follow it; TF 1's compositions refused where TensorFlow refuses them. Counts
are Keras 3's (count_params() of the layer built on the same input); TF 1's names and shapes are
held against TensorFlow in tests/cli/test_cli_lines_as_written.py."""

from __future__ import annotations

import ast
import os
import re
import tempfile
import warnings

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest

import derive
from derive.cli.inputs import classify
from derive.engine.constructors import lookup
from derive.read import SourceError, detect
from derive.read.pasted import candidates, line_framework


def node(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize(
    "text,expected",
    [
        ("LSTM(64)", ("constructor", "keras")),
        ("GRU(16, input_dim=4)", ("constructor", "keras")),
        ("LSTM(units=4)", ("constructor", "keras")),
        ("LSTM(32, 128)", ("constructor", "torch")),
        ("LSTM(input_size=3, hidden_size=4)", ("constructor", "torch")),
        ("nn.LSTM(3)", ("constructor", "torch")),  # no class takes it: torch's refusal names what it takes
        ("nn.LSTMCell(features=128)", ("constructor", "flax.linen")),
        ("nn.GRUCell(8, 4, bias=False)", ("constructor", "torch")),
        ("RNN(LSTMCell(8))", ("constructor", "keras")),
        ("LSTM(*sizes)", ("constructor", "torch")),  # the constructor parser refuses *args, naming them
        ("LSTM(**config)", ("code", None)),
        ("LSTM(64, bogus=1)", ("constructor", "torch")),
        ("tf.compat.v1.nn.dynamic_rnn(LSTMCell(48))", ("constructor", "tf1")),
        ("tf.compat.v1.keras.layers.GRU(48)", ("constructor", "keras")),
        # a list of layers: Keras code (the Sequential of them), by the rule of each of its items
        ("[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]", ("code", None)),
        ("[LSTM(32), Dense(1)]", ("code", None)),
        ("[CuDNNLSTM(32, return_sequences=True), CuDNNGRU(8)]", ("code", None)),
        ("[Dense(8), Dense(1)]", ("code", None)),  # no recurrent layer: Keras' by its names, as code is
    ],
)
def test_line_framework(text, expected):
    assert line_framework(node(text), None) == expected
    assert classify(text, None) == expected


@pytest.mark.parametrize(
    "text,words",
    [
        ("LSTMCell(48)", "LSTMCell is a class of keras, tf1: say which with --framework keras or --framework tf1"),
        ("rnn.LSTMCell(12)", "rnn.LSTMCell is a class of mxnet, tf1"),
        ("rnn.GRUCell(4)", "rnn.GRUCell is a class of mxnet, tf1: say which with --framework mxnet or"),
    ],
)
def test_alike_classes_none_chooses_are_refused(text, words):
    with pytest.raises(SourceError, match=None) as info:
        line_framework(node(text), None)
    assert words in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]",
        "[layers.LSTM(8, return_sequences=True), keras.layers.GRU(units=4)]",
        "[\n    LSTM(32, return_sequences=True),\n    LSTM(16),\n]",
    ],
)
def test_a_list_of_keras_layers_is_keras_code(text):
    assert detect(text) == "keras"
    assert classify(text.replace("\n", ""), "keras") == ("code", "keras")


def test_candidates_torch_and_keras_first():
    assert candidates("LSTMCell") == ["torch", "keras", "tf1"]
    assert candidates("tf.compat.v1.nn.bidirectional_dynamic_rnn") == ["tf1"]


def test_explain_follows_the_same_rule():
    """derive.explain reads a Keras line by its arguments (Keras 3's count of the same layer)."""
    import keras

    def keras_count(layer, shape):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return keras.Sequential([keras.Input(shape), layer]).count_params()

    assert detect("GRU(16, input_dim=4)") == "keras"
    assert derive.explain("GRU(16, input_dim=4)").total == keras_count(keras.layers.GRU(16), (None, 4))
    assert derive.explain("LSTM(64, batch_input_shape=(None, 10, 8))").total == keras_count(
        keras.layers.LSTM(64), (10, 8)
    )
    assert detect("nn.LSTM(32, 128)") == "torch" and detect("x = nn.LSTM(3, 4)\ny = 1") == "torch"
    assert detect("os.GRU(3, 4)") == "torch"  # no framework writes it so: the code reader refuses it


def _cli_json(*argv: str) -> dict:
    import io
    import json
    from contextlib import redirect_stdout

    from derive.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize(
    "text,options",
    [
        ("RecurrentGemmaConfig(num_hidden_layers=3, vocab_size=64, hidden_size=32, num_attention_heads=2)", {}),
        ("eqx.nn.GRUCell(5, 3, key=key)", {"framework": "equinox"}),
        ("hk.LSTM(128)", {"input_dim": 4}),
        ("tf.compat.v1.nn.dynamic_rnn(LSTMCell(48), inputs)", {"input_dim": 5}),
        ("Mamba(\n    d_model=18,\n    d_state=16,\n)", {}),  # over several lines, as pasted
    ],
)
def test_explain_reads_a_constructor_line_as_the_command_line_does(text, options):
    """derive.explain and the command line decide a line by the one rule and read a registered
    framework's constructor alike (issue 26): the same total and tensors. The command line's answers
    are held against each package in tests/cli/test_cli_frameworks.py."""
    argv = [text]
    for key, value in options.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    cli = _cli_json(*argv)
    report = derive.explain(text, **options)
    assert report.total == cli["total"]
    counted = [(t["name"], tuple(t["shape"])) for t in cli["tensors"] if not t.get("buffer") and not t.get("tied_to")]
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == counted


def test_explain_of_a_transformers_config_line_is_transformers_model():
    """``RecurrentGemmaConfig(...)`` in a notebook: the model AutoModelForCausalLM builds (meta device)."""
    import hf_live

    config = {"num_hidden_layers": 3, "vocab_size": 64, "hidden_size": 32, "num_attention_heads": 2}
    model = hf_live.build("recurrent_gemma", config)
    report = derive.explain("RecurrentGemmaConfig(" + ", ".join(f"{k}={v}" for k, v in config.items()) + ")")
    assert report.framework == "transformers" and report.total == hf_live.total(model)
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == hf_live.tensors(model)


@pytest.mark.parametrize(
    "text,options,words",
    [
        ("eqx.nn.GRUCell(5, 3)", {"framework": "equinox"}, "missing 1 required keyword-only argument: 'key'"),
        ("hk.LSTM(128)", {}, "makes its weights when first applied: give the input width"),
        ("eqx.nn.GRUCell(5, 3, key=key)", {"framework": "equinox", "partial": True}, "partial applies to model code"),
        ("eqx.nn.GRUCell(5, 3, key=key)", {"framework": "haiku"}, "is not a class of haiku that derive knows"),
        ("RecurrentGemmaConfig(hidden_size=width)", {}, "config key 'hidden_size' must be an int"),
    ],
)
def test_explain_refuses_a_constructor_line_naming_why(text, options, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        derive.explain(text, **options)


def test_detect_names_the_command_line_for_other_frameworks():
    """detect (model code's framework) still says where another framework's constructor is read."""
    with pytest.raises(SourceError, match="is a tf1 constructor: derive reads it one constructor at a time") as info:
        detect("tf.compat.v1.nn.dynamic_rnn(LSTMCell(48))")
    assert "--framework tf1" in str(info.value)
    with pytest.raises(SourceError, match="hk.LSTM is a haiku constructor"):
        derive.read.explain_code("hk.LSTM(128)")


def make(cls: str, *args, **kwargs):
    return lookup("tf1", cls).make(*args, **kwargs)


def tensors(built, width: int = 5) -> list[tuple[str, tuple]]:
    module, _ = built.build((None, width))
    from derive.tree import named_parameters

    return [(n, p.shape) for n, p in named_parameters(module)]


def test_tf1_wrappers_add_no_variables_and_keep_the_scope():
    cell = make("LSTMCell", 4, name="enc")
    for wrapper in ("DropoutWrapper", "DeviceWrapper"):
        assert tensors(make(wrapper, cell)) == [("rnn/enc/kernel", (9, 16)), ("rnn/enc/bias", (16,))]
    assert tensors(make("dynamic_rnn", make("ResidualWrapper", make("GRUCell", 5)), scope="dec"))[0] == (
        "dec/gru_cell/gates/kernel",
        (10, 10),
    )
    assert tensors(make("ResidualWrapper", make("GRUCell", 3), residual_fn=lambda i, o: o))  # the user's own sum
    run = make("static_bidirectional_rnn", make("BasicRNNCell", 2), make("BasicRNNCell", 3))
    assert [n for n, _ in tensors(run)] == [
        "bidirectional_rnn/fw/basic_rnn_cell/kernel",
        "bidirectional_rnn/fw/basic_rnn_cell/bias",
        "bidirectional_rnn/bw/basic_rnn_cell/kernel",
        "bidirectional_rnn/bw/basic_rnn_cell/bias",
    ]


@pytest.mark.parametrize(
    "call,error,words",
    [
        (lambda: make("MultiRNNCell", []), ValueError, "Must specify at least one cell for MultiRNNCell."),
        (lambda: make("MultiRNNCell", "cells"), TypeError, "write the list of cells out"),
        (lambda: make("MultiRNNCell", [3]), TypeError, "cells must be an RNNCell"),
        (lambda: make("dynamic_rnn", make("GRUCell", 3), scope=""), TypeError, "scope: give the variable scope's"),
        (lambda: make("DropoutWrapper", make("dynamic_rnn", make("GRUCell", 3))), TypeError, "cell must be an RNNCell"),
        (lambda: tensors(make("static_rnn", make("GRUCell", 3)), 0), ValueError, "input width"),
        (lambda: tensors(make("GRUCell", 3), 0), ValueError, "input width"),
    ],
)
def test_tf1_compositions_refused_as_tensorflow_refuses(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)


def test_tf1_stacks_feed_each_cell_the_output_of_the_one_before():
    inner = make("MultiRNNCell", [make("LSTMCell", 4, num_proj=2), make("GRUCell", 3)])
    outer = make("bidirectional_dynamic_rnn", make("MultiRNNCell", [inner, make("BasicLSTMCell", 2)]), inner)
    rows = dict(tensors(outer))
    assert rows["bidirectional_rnn/fw/multi_rnn_cell/cell_0/multi_rnn_cell/cell_1/gru_cell/gates/kernel"] == (5, 6)
    assert rows["bidirectional_rnn/fw/multi_rnn_cell/cell_1/basic_lstm_cell/kernel"] == (5, 8)  # GRU's 3 + 2
    # ``inner`` is one object, applied forward first: backward it shares those variables, as TensorFlow
    # does (held against it in tests/frameworks/test_live_tf1_code.py)
    assert not [name for name in rows if name.startswith("bidirectional_rnn/bw/")]
    with pytest.raises(ValueError, match="the input width 5 must equal the output's 3"):
        tensors(make("ResidualWrapper", make("GRUCell", 3)))


@pytest.mark.parametrize(
    "text,asked,expected",
    [
        ("nn.LSTM(3, 4)", "mlx", ("constructor", "mlx")),
        ("Net(3)", "keras", ("code", "keras")),
        ("LSTMCell(48)", "tf1", ("constructor", "tf1")),
    ],
)
def test_the_framework_asked_for(text, asked, expected):
    assert line_framework(node(text), asked) == expected


@pytest.mark.parametrize(
    "text,asked,words",
    [
        ("nn.LSTM.weight", None, "expected one constructor call"),
        ("f()(3)", None, "only a call of a class name"),
        ("hk.LSTM(3)", "keras", "hk.LSTM is not a keras class derive reads as a constructor: it is haiku's"),
        ("hk.LSTM(3)", "tf1", "hk.LSTM is not a class of tf1 that derive knows (its classes:"),
        ("os.GRU(3, 4)", None, "unknown prefix 'os.' of GRU: write nn.GRU (torch), layers.GRU (keras)"),
        ("[LSTM(32, 64), LSTM(16)]", None, "item 0, LSTM(...), is a torch constructor"),  # two sizes: torch's
        ("[hk.LSTM(3)]", None, "item 0, hk.LSTM(...), is a haiku constructor"),
        ("[LSTM(32)]", "torch", "for torch, paste the one call that holds the layers (its container)"),
        ("[]", None, "the pasted list is empty"),
        ("[os.GRU(3, 4)]", None, "unknown prefix 'os.' of GRU"),
    ],
)
def test_refusals_name_what_to_write(text, asked, words):
    with pytest.raises(SourceError, match=None) as info:
        line_framework(node(text), asked)
    assert words in str(info.value)
