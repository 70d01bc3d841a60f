"""Hostile-input and differential battery (issue 13, "Keep it fixed").

Generated cases (hypothesis, derandomized so that every run tries the same ones) across the
public API and the command line. Each case ends in exactly one of:

* an answer equal to the real framework's: ``torch.nn`` built on the meta device (nothing
  allocated) or Keras 3 built and counted, tensor by tensor;
* a documented ``ValueError``/``TypeError`` whose message names the argument -- where the
  framework refuses too, or where derive is documented to be stricter (a bool or float where a
  size goes, a non-bool flag, an unknown ``nonlinearity`` of a cell, a positional ``proj_size``
  of RNN/GRU);

and never: another exception, a traceback, code run from user text (a canary file and an
object that records being converted), or output that interprets user text (escape sequences,
rich markup). The CLI is called in-process through ``main(argv)`` with captured streams; real
processes (closed stdout, ``/dev/full``, closed pipe, ASCII locale) are in ``tests/cli/test_cli_output.py``.

Case counts: :data:`EXAMPLES` per test, see the module's bottom for the total.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
from contextlib import redirect_stderr, redirect_stdout

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

import pytest
import sympy
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import derive.keras as dk
import derive.torch as dt
from derive import H, I, L, P
from derive.cli import main

#: Examples per test (the total is about 5,600; see test_case_count).
EXAMPLES = {
    "torch_api": 2200,
    "keras_api": 300,
    "cli_torch": 1500,
    "cli_keras": 250,
    "cli_text": 900,
    "api_misc": 500,
}

BATTERY = settings(
    max_examples=1,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def examples(name: str) -> settings:
    return settings(BATTERY, max_examples=EXAMPLES[name])


ESC = "\x1b"
CANARY = "derive-battery-canary"
#: User text that must never be interpreted: markup, escape sequences, code.
HOSTILE_TEXT = [
    "[red]x[/red]",
    "[link=http://example.com]y",
    ESC + "[2J",
    ESC + "]8;;http://e" + ESC + "\\z",
    "a\u202eb",
    "\x07",
    f"__import__('pathlib').Path('{CANARY}').touch()",
    ":smiley:",
    "tanh ",
    "x" * 70,
]


class Recorder:
    """An object that records being converted (int(), index(), ==, float(), bool())."""

    calls: list[str] = []

    def _record(self, name: str, value):
        Recorder.calls.append(name)
        return value

    def __int__(self):
        return self._record("__int__", 3)

    def __index__(self):
        return self._record("__index__", 3)

    def __float__(self):
        return self._record("__float__", 0.5)

    def __eq__(self, other):
        return self._record("__eq__", False)

    __hash__ = object.__hash__

    def __repr__(self):
        return "Recorder()"


def no_canary() -> None:
    assert not os.path.exists(CANARY), "user text was executed"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield
    no_canary()


# --- torch: the public API against torch.nn -----------------------------------------------------

ORDER = {
    "LSTM": ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional", "proj_size"],
    "GRU": ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional", "proj_size"],
    "RNN": ["input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first", "dropout"]
    + ["bidirectional", "proj_size"],
    "RNNCell": ["input_size", "hidden_size", "bias", "nonlinearity"],
    "LSTMCell": ["input_size", "hidden_size", "bias"],
    "GRUCell": ["input_size", "hidden_size", "bias"],
}
TAIL = ["device", "dtype"]
DEFAULTS = {"num_layers": 1, "bias": True, "batch_first": False, "dropout": 0.0, "bidirectional": False}
DEFAULTS.update(proj_size=0, nonlinearity="tanh", input_size=3, hidden_size=4)

small = st.integers(1, 6)
anything = st.sampled_from(
    [0, -1, -7, True, False, 2.0, 0.5, float("nan"), float("inf"), None, "3", "tanh", "relu", [3], (3,), b"3"]
    + HOSTILE_TEXT[:3]
) | st.builds(Recorder)
VALUES = {
    "input_size": small | anything,
    "hidden_size": small | anything,
    "num_layers": st.integers(1, 4) | anything,
    "bias": st.booleans() | anything,
    "batch_first": st.booleans() | anything,
    "dropout": st.sampled_from([0.0, 0.25, 1.0, 0, 1, -0.1, 1.5]) | anything,
    "bidirectional": st.booleans() | anything,
    "proj_size": st.integers(0, 6) | anything,
    "nonlinearity": st.sampled_from(["tanh", "relu", "sigmoid", "", None, 1]) | st.sampled_from(HOSTILE_TEXT),
    "device": st.sampled_from([None, "meta", "cpu"]),
    "dtype": st.sampled_from([None, torch.float32]),
}


@st.composite
def torch_calls(draw):
    """(class, args, kwargs): torch's own order, a prefix passed positionally, the rest by keyword,
    some arguments left out, and now and then a repeated, unknown or surplus argument."""
    cls = draw(st.sampled_from(sorted(ORDER)))
    valid = draw(st.integers(0, 9)) < 6  # mostly well-typed values, to reach answers
    names = ORDER[cls] + TAIL
    values = {}
    for name in names:
        if draw(st.integers(0, 2)) == 0 and name not in ("input_size", "hidden_size"):
            continue
        if valid:
            strategy = {
                "input_size": small,
                "hidden_size": small,
                "num_layers": st.integers(1, 4),
                "bias": st.booleans(),
                "batch_first": st.booleans(),
                "dropout": st.sampled_from([0.0, 0.5]),
                "bidirectional": st.booleans(),
                "proj_size": st.integers(0, 3),
                "nonlinearity": st.sampled_from(["tanh", "relu"]),
            }.get(name, VALUES[name])
        else:
            strategy = VALUES[name]
        values[name] = draw(strategy)
    positional = draw(st.integers(0, len(names)))
    args, kwargs = [], {}
    for k, name in enumerate(names):
        if name not in values:
            if k < positional:
                positional = k  # a gap ends the positional prefix
            continue
        if k < positional:
            args.append(values[name])
        else:
            kwargs[name] = values[name]
    anomaly = draw(st.integers(0, 12))
    if anomaly == 0:  # one positional argument too many
        args = [values.get(name, DEFAULTS.get(name)) for name in names] + [draw(small)]
        kwargs = {}
    elif anomaly == 1 and args:
        kwargs[names[0]] = args[0]  # given twice
    elif anomaly == 2:
        kwargs[draw(st.sampled_from(["hidden", "units", "mode", "foo"]))] = 1
    elif anomaly == 3 and cls in ("RNN", "GRU"):
        kwargs["proj_size"] = draw(st.integers(0, 2))  # refused whatever its value
    return cls, tuple(args), kwargs


def _torch_outcome(cls: str, args: tuple, kwargs: dict):
    try:
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            module = getattr(torch.nn, cls)(*args, **kwargs)
            return "ok", [(n, tuple(p.shape)) for n, p in module.named_parameters()]
    except Exception as error:
        return "error", error


ARGUMENT_WORDS = set(ORDER["RNN"] + ORDER["LSTM"] + TAIL) | {"positional", "keyword", "argument"}


def _names_an_argument(message: str) -> bool:
    return any(word in message for word in ARGUMENT_WORDS)


@examples("torch_api")
@given(torch_calls())
def test_torch_api_matches_torch(call):
    cls, args, kwargs = call
    Recorder.calls.clear()
    try:
        stack = getattr(dt, cls)(*args, **kwargs)
        shapes = list(stack.shapes.items())
        count = int(stack.count)
    except (TypeError, ValueError) as error:
        ours = ("error", error)
    else:
        ours = ("ok", shapes)
    assert Recorder.calls == [], f"derive converted a user object: {Recorder.calls}"
    theirs = _torch_outcome(cls, args, kwargs)
    event(f"derive {ours[0]}, torch {theirs[0]}")
    if ours[0] == "ok":
        assert theirs[0] == "ok", f"derive answered where torch refuses ({theirs[1]!r}): {cls}{args} {kwargs}"
        assert ours[1] == theirs[1]
        assert count == sum(_numel(shape) for _, shape in theirs[1])
    else:
        message = str(ours[1])
        assert message and "\n" not in message
        assert _names_an_argument(message), message
    no_canary()


def _numel(shape: tuple) -> int:
    total = 1
    for d in shape:
        total *= d
    return total


# --- Keras: the public API against keras.layers ----------------------------------------------------

LAYERS = ["SimpleRNN", "LSTM", "GRU"]


@st.composite
def keras_configs(draw):
    layer = draw(st.sampled_from(LAYERS))
    units = draw(st.integers(1, 5) | st.sampled_from([0, -2, 2.0, True, None, "4"]))
    options = {}
    if draw(st.booleans()):
        options["use_bias"] = draw(st.booleans() | st.sampled_from([1, None, "yes"]))
    if layer == "GRU" and draw(st.booleans()):
        options["reset_after"] = draw(st.booleans() | st.sampled_from([0, "no"]))
    if draw(st.integers(0, 3)) == 0:
        options["name"] = draw(st.sampled_from(HOSTILE_TEXT + ["ok_name", "a/b", ""]))
    wrap = draw(st.sampled_from([None, "concat", "sum", "mul", "ave", "max", None]))
    input_dim = draw(st.integers(1, 6))
    return layer, units, tuple(sorted(options.items())), wrap, input_dim


_KERAS_OUTCOMES: dict[str, tuple] = {}


def _keras_outcome(layer: str, units, options: tuple, wrap, input_dim: int):
    """Keras' outcome, cached by repr (lru_cache would take 2 and 2.0, or 1 and True, for one key)."""
    key = repr((layer, units, options, wrap, input_dim))
    if key not in _KERAS_OUTCOMES:
        _KERAS_OUTCOMES[key] = _keras_build(layer, units, options, wrap, input_dim)
    return _KERAS_OUTCOMES[key]


def _keras_build(layer: str, units, options: tuple, wrap, input_dim: int):
    import keras

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = getattr(keras.layers, layer)(units, **dict(options))
            if wrap is not None:
                made = keras.layers.Bidirectional(made, merge_mode=wrap)
            made.build((None, None, input_dim))
            return "ok", [tuple(w.shape) for w in made.weights], made.count_params()
    except Exception as error:
        return "error", type(error).__name__, str(error)


@examples("keras_api")
@given(keras_configs())
def test_keras_api_matches_keras(config):
    layer, units, options, wrap, input_dim = config
    theirs = _keras_outcome(*config)
    try:
        made = getattr(dk, layer)(units, **dict(options))
        if wrap is not None:
            made = dk.Bidirectional(made, merge_mode=wrap)
        weights = dk.tensors(made, input_dim)
        count = int(dk.count(made, input_dim))
    except (TypeError, ValueError) as error:
        event(f"derive error, keras {theirs[0]}")
        message = str(error)
        assert message and _names_an_argument_keras(message), message
        return
    event(f"derive ok, keras {theirs[0]}")
    if theirs[0] == "error" and _torch_backend_name_rule(theirs, dict(options)):
        return
    assert theirs[0] == "ok", f"derive answered where Keras refuses: {theirs}"
    assert [tuple(int(d) for d in w.shape) for w in weights] == theirs[1]
    assert count == theirs[2]


def _torch_backend_name_rule(outcome: tuple, options: dict) -> bool:
    """Keras on the torch backend cannot build a layer whose name holds a ".": torch's
    ``register_parameter`` refuses it (KeyError). Keras itself (and its other backends) accept such
    a name, and derive counts Keras, not one backend: not a disagreement about the count."""
    return outcome[1] == "KeyError" and "parameter name" in outcome[2] and "." in str(options.get("name", ""))


def _names_an_argument_keras(message: str) -> bool:
    words = ["units", "use_bias", "reset_after", "name", "merge_mode", "layer", "input_dim", "argument"]
    return any(w in message for w in words)


# --- the command line, in-process ----------------------------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def assert_clean(status: int, out: str, err: str) -> None:
    """Exit 0 with output and nothing on stderr, or 2 with one line on stderr; never anything else."""
    for stream in (out, err):
        assert ESC not in stream and "\x07" not in stream and "\u202e" not in stream, repr(stream[:200])
        assert "Traceback" not in stream
    assert status in (0, 2), (status, err)
    if status == 0:
        assert out and err == ""
    else:
        assert out == "" and err.startswith("derive: error: ") and err.count("\n") == 1, err
        assert len(err) < 700


LITERALS = st.sampled_from(
    ["0", "-1", "2.5", "True", "None", "'3'", "I", "H", "L", "P", "x", "[3]", "(3,)", "1e3", "0x10", "2**3", "10**30"]
    + [repr(t) for t in HOSTILE_TEXT]
    + ["__import__('os')", "open('f')", "lambda: 3", "[i for i in ()]", "f'{1}'", "*[3]", "b'3'"]
)
SIZE_TEXT = st.integers(1, 6).map(str) | LITERALS


@st.composite
def cli_torch_calls(draw):
    cls = draw(st.sampled_from(sorted(ORDER)))
    prefix = draw(st.sampled_from(["nn.", "torch.nn.", "", "nn.", "os.", "torch.nn.modules.rnn."]))
    names = ORDER[cls]
    args, kwargs = [], []
    values = {}
    for name in names:
        if name in ("input_size", "hidden_size") or draw(st.integers(0, 2)) == 0:
            good = {
                "input_size": st.integers(1, 6).map(str),
                "hidden_size": st.integers(1, 6).map(str),
                "num_layers": st.integers(1, 3).map(str),
                "bias": st.sampled_from(["True", "False"]),
                "batch_first": st.sampled_from(["True", "False"]),
                "dropout": st.sampled_from(["0.0", "0.5"]),
                "bidirectional": st.sampled_from(["True", "False"]),
                "proj_size": st.integers(0, 3).map(str),
                "nonlinearity": st.sampled_from(["'tanh'", "'relu'"]),
            }[name]
            values[name] = draw(good if draw(st.integers(0, 4)) else SIZE_TEXT)
    positional = draw(st.integers(0, len(names)))
    for k, name in enumerate(names):
        if name not in values:
            positional = min(positional, k)
            continue
        if k < positional:
            args.append(values[name])
        else:
            kwargs.append(f"{name}={values[name]}")
    text = f"{prefix}{cls}(" + ", ".join(args + kwargs) + ")"
    options = draw(st.sampled_from([[], ["--json"], ["--latex"], ["--json"], ["--cost", "--json"], ["--cost"]]))
    if "--cost" in options and draw(st.booleans()):
        options += ["--seq-len", draw(st.sampled_from(["7", "0", "-1", "x", "9" * 5001, ESC + "[2J"]))]
    return text, options, (prefix, cls, values, positional)


@examples("cli_torch")
@given(cli_torch_calls())
def test_cli_torch_matches_torch(case):
    text, options, (prefix, cls, values, positional) = case
    status, out, err = run_cli([text, *options])
    assert_clean(status, out, err)
    event(f"exit {status}")
    if status != 0 or "--json" not in options:
        return
    data = json.loads(out)
    assert "total" in data and "tensors" in data
    if "count" not in data:  # a name that is not a size symbol: read as model code (tests/models check that reader)
        return
    if isinstance(data["count"], str):
        _check_symbolic(text, cls, values, positional)
        return
    # numeric: torch's count, from the same literals
    args, kwargs = _literal_call(cls, values, positional)
    theirs = _torch_outcome(cls, tuple(args), kwargs)
    assert theirs[0] == "ok", f"the CLI answered where torch refuses: {text} -> {theirs[1]!r}"
    assert data["count"] == sum(_numel(s) for _, s in theirs[1])
    listed = [(t["name"], tuple(t["shape"])) for t in data["tensors"] if t["shape"] is not None]
    assert set(listed) <= set(theirs[1])


#: Numbers the user's symbols stand for when a symbolic answer is checked against torch.
AT = {"I": 5, "H": 6, "L": 3, "P": 2}


def _check_symbolic(text: str, cls: str, values: dict, positional: int) -> None:
    """The formula is in the user's own symbols: at the shown values it is the count, and with
    numbers for the user's symbols it is torch's count for those numbers (item 2)."""
    from derive.cli import describe

    info = describe(text)
    symbols = {"I": I, "H": H, "L": L, "P": P}
    shown = {symbols[k]: v for k, v in info["values"].items()}
    assert not set(info["values"]) & {v for v in values.values() if v in symbols}, "a user's symbol got a value"
    assert (
        sympy.expand(
            getattr(info["formula"], "to_sympy", lambda: info["formula"])().xreplace(shown) - info["object"].count
        )
        == 0
    )
    numbers = {name: (str(AT[v]) if v in symbols else v) for name, v in values.items()}
    args, kwargs = _literal_call(cls, numbers, positional)
    theirs = _torch_outcome(cls, tuple(args), kwargs)
    if theirs[0] != "ok":  # these numbers break a constraint (say proj_size >= hidden_size)
        return
    at = {symbols[k]: v for k, v in AT.items()}
    assert getattr(info["formula"], "to_sympy", lambda: info["formula"])().xreplace(shown).xreplace(at) == sum(
        _numel(s) for _, s in theirs[1]
    )


def _literal_call(cls: str, values: dict, positional: int) -> tuple[list, dict]:
    import ast

    args, kwargs = [], {}
    for k, name in enumerate(ORDER[cls]):
        if name not in values:
            continue
        value = ast.literal_eval(values[name])  # only literals reach an answer
        if k < positional:
            args.append(value)
        else:
            kwargs[name] = value
    return args, kwargs


@st.composite
def cli_keras_calls(draw):
    layer, units, options, wrap, input_dim = draw(keras_configs())
    parts = [repr(units)] + [f"{k}={v!r}" for k, v in options]
    inner = f"{draw(st.sampled_from(['', 'layers.', 'keras.layers.']))}{layer}({', '.join(parts)})"
    text = inner if wrap is None else f"Bidirectional({inner}, merge_mode={wrap!r})"
    fmt = draw(st.sampled_from([[], ["--json"], ["--latex"]]))
    return text, fmt, (layer, units, options, wrap, input_dim)


@examples("cli_keras")
@given(cli_keras_calls())
def test_cli_keras_matches_keras(case):
    text, fmt, config = case
    status, out, err = run_cli(["--keras", text, "--input-dim", str(config[-1]), *fmt])
    assert_clean(status, out, err)
    event(f"exit {status}")
    if status == 0:
        theirs = _keras_outcome(*config)
        if theirs[0] == "error" and _torch_backend_name_rule(theirs, dict(config[2])):
            return
        assert theirs[0] == "ok", f"the CLI answered where Keras refuses: {text} -> {theirs}"
        if fmt == ["--json"]:
            assert json.loads(out)["count"] == theirs[2]
        name = dict(config[2]).get("name")
        if name and not fmt and name.isprintable():
            assert name in out  # printed literally, markup and all


TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])
    | st.sampled_from(list("()[]{},.='\"*:_ ILHP0123456789")),
    max_size=80,
)


@examples("cli_text")
@given(
    st.one_of(
        TEXT,
        st.builds(lambda a, b: f"nn.LSTM({a}, {b})", TEXT, TEXT),
        st.builds(lambda a: f"nn.GRU(3, 4, {a})", TEXT),
    ),
    st.sampled_from([[], ["--json"], ["--keras", "--input-dim", "3"], ["--latex"], ["--bogus"], ["--dtype", "x"]]),
)
def test_cli_never_fails_badly_on_any_text(text, options):
    if text.startswith("-"):
        text = " " + text  # a constructor, not an option
    status, out, err = run_cli([text, *options])
    assert_clean(status, out, err)
    event(f"exit {status}")


# --- other public functions ------------------------------------------------------------------------

MISC_VALUES = st.sampled_from(
    [None, 0, -1, 3, 2.5, "x", "H", [], True, sympy.sqrt(H), H, H**2 + 1, H * I, sympy.oo, sympy.nan, sympy.I]
    + [10**400, sympy.Integer(5), Recorder(), dt.LSTM(3, 4), dt.LSTM(I, H, L), ESC + "[2J"]
)


@examples("api_misc")
@given(
    st.sampled_from(["solve", "cost", "compare", "vectorize", "layer_count", "frameworks", "keras_count"]),
    MISC_VALUES,
    MISC_VALUES,
)
def test_public_functions_answer_or_refuse_cleanly(function, a, b):
    from derive import compare, frameworks, solve
    from derive.analysis.cost import cost
    from derive.analysis.vectorize import vectorize

    calls = {
        "solve": lambda: solve(a, b),
        "cost": lambda: cost(a, b),
        "compare": lambda: compare(a, b),
        "vectorize": lambda: vectorize(a, b),
        "layer_count": lambda: dt.LSTM(3, 4, 3).layer_count(a),
        "frameworks": lambda: frameworks.count("onnx", "LSTM", a, b),
        "keras_count": lambda: dk.count(dk.LSTM(4), a),
    }
    Recorder.calls.clear()
    try:
        calls[function]()
    except (TypeError, ValueError) as error:
        assert str(error) and "\n" not in str(error).strip()
    assert "__int__" not in Recorder.calls and "__index__" not in Recorder.calls


def test_case_count():
    """At least 5,000 generated cases across the CLI and the API."""
    assert sum(EXAMPLES.values()) >= 5000
    assert EXAMPLES["cli_torch"] + EXAMPLES["cli_keras"] + EXAMPLES["cli_text"] >= 2000
