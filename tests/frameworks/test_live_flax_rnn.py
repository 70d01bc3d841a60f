"""Flax's sequence wrappers as their users write them (issue 26), held against the real Flax on CPU.

``nn.RNN(cell)``, ``nn.Bidirectional(forward_rnn, backward_rnn)``, ``flax.linen.Sequential`` (linen,
applied to zeros of shape (batch, time, features) under ``jax.eval_shape``) and ``nnx.RNN``,
``nnx.Bidirectional``, ``nnx.Sequential`` (built under ``nnx.eval_shape``) are evaluated as written by the runners of
``tests/support/cli_frameworks.py``; the same line on the command line must give the real
parameter tree: every path, shape and the total. Flax lists a tree's keys sorted, so paths are
compared as sets. ``REFUSED`` holds lines derive refuses, with the words of the reason.
"""

from __future__ import annotations

import io
import json
import math
import os
from contextlib import redirect_stderr, redirect_stdout

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest

pytest.importorskip("flax")
import live_record
from cli_frameworks import RUNNERS

from derive.cli import main

#: (framework, line as written, --input-dim or None)
LINES = [
    ("flax.linen", "nn.RNN(nn.LSTMCell(64))", 32),
    ("flax.linen", "nn.RNN(nn.GRUCell(features=16), return_carry=True)", 8),
    ("flax.linen", "nn.RNN(nn.SimpleCell(4), reverse=True, keep_order=True)", 3),
    ("flax.linen", "nn.RNN(nn.MGUCell(6, reset_gate=False), time_major=True, unroll=2)", 5),
    ("flax.linen", "nn.RNN(nn.MGUCell(6))", 5),
    ("flax.linen", "nn.RNN(nn.OptimizedLSTMCell(8), split_rngs={'params': False})", 4),
    ("flax.linen", "nn.RNN(nn.ConvLSTMCell(6, kernel_size=(3, 3)))", 2),
    ("flax.linen", "nn.RNN(nn.ConvLSTMCell(4, (2,), use_bias=False))", 3),
    ("flax.linen", "flax.linen.RNN(flax.linen.LSTMCell(4, name='lstm'), name='encoder')", 3),
    (
        "flax.linen",
        "linen.RNN(cell=linen.GRUCell(5), variable_axes={'intermediates': 1}, variable_broadcast='params')",
        3,
    ),
    ("flax.linen", "nn.RNN(nn.GRUCell(5), variable_broadcast=True)", 3),
    ("flax.linen", "nn.Bidirectional(nn.RNN(nn.GRUCell(5)), nn.RNN(nn.GRUCell(5)))", 3),
    ("flax.linen", "nn.Bidirectional(nn.RNN(nn.LSTMCell(8)), nn.RNN(nn.GRUCell(4)))", 6),
    (
        "flax.linen",
        "nn.Bidirectional(nn.RNN(nn.LSTMCell(6)), nn.RNN(nn.OptimizedLSTMCell(6)), merge_fn=lambda a, b: a + b, "
        "return_carry=True)",
        5,
    ),
    (
        "flax.linen",
        "nn.Bidirectional(forward_rnn=nn.RNN(nn.SimpleCell(3)), backward_rnn=nn.RNN(nn.MGUCell(2), reverse=True, "
        "keep_order=True), time_major=False, name='bi')",
        4,
    ),
    (
        "flax.linen",
        "linen.Sequential([linen.RNN(linen.GRUCell(5)), linen.relu, linen.Bidirectional(linen.RNN(linen.GRUCell(2)), "
        "linen.RNN(linen.GRUCell(3))), linen.RNN(linen.LSTMCell(4))])",
        3,
    ),
    (
        "flax.linen",
        "flax.linen.Sequential([flax.linen.RNN(flax.linen.LSTMCell(8)), flax.linen.RNN(flax.linen.LSTMCell(8))])",
        4,
    ),
    # written nn.Sequential as Flax's users write it: Flax's where --framework flax.linen says so
    ("flax.linen", "nn.Sequential([nn.RNN(nn.GRUCell(5)), nn.relu, nn.RNN(nn.LSTMCell(4))])", 3),
    (
        "flax.linen",
        "flax.linen.Sequential([flax.linen.Bidirectional(flax.linen.RNN(flax.linen.GRUCell(2)), "
        "flax.linen.RNN(flax.linen.GRUCell(2)), merge_fn=lambda a, b: a + b), jax.nn.relu])",
        3,
    ),
    ("flax.nnx", "nnx.RNN(nnx.LSTMCell(3, 4, rngs=nnx.Rngs(0)))", None),
    (
        "flax.nnx",
        "nnx.RNN(nnx.GRUCell(8, 16, rngs=nnx.Rngs(0)), return_carry=True, reverse=True, keep_order=True)",
        None,
    ),
    ("flax.nnx", "nnx.RNN(nnx.SimpleCell(3, 5, rngs=nnx.Rngs(0)), time_major=True, unroll=2)", None),
    ("flax.nnx", "flax.nnx.RNN(flax.nnx.OptimizedLSTMCell(2, 7, rngs=nnx.Rngs(0)), rngs=nnx.Rngs(1))", None),
    (
        "flax.nnx",
        "nnx.Bidirectional(nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0))), nnx.RNN(nnx.LSTMCell(3, 4, rngs=nnx.Rngs(1))), "
        "rngs=nnx.Rngs(0))",
        None,
    ),
    (
        "flax.nnx",
        "nnx.Bidirectional(nnx.RNN(nnx.OptimizedLSTMCell(3, 4, rngs=nnx.Rngs(0))), "
        "nnx.RNN(nnx.OptimizedLSTMCell(3, 4, rngs=nnx.Rngs(1)), reverse=True), merge_fn=lambda a, b: a + b)",
        None,
    ),
    (
        "flax.nnx",
        "nnx.Sequential(nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0))), jax.nn.relu, "
        "nnx.RNN(nnx.GRUCell(5, 4, rngs=nnx.Rngs(0))))",
        None,
    ),
    (
        "flax.nnx",
        "nnx.Sequential(nnx.Bidirectional(nnx.RNN(nnx.LSTMCell(3, 4, rngs=nnx.Rngs(0))), "
        "nnx.RNN(nnx.LSTMCell(3, 4, rngs=nnx.Rngs(0)))), nnx.RNN(nnx.GRUCell(8, 2, rngs=nnx.Rngs(0))))",
        None,
    ),
]

#: (framework, line, --input-dim, words of the refusal, whether Flax builds the line: None where that is not
#: the point — a name the line does not define, a width only its input gives, a cell nnx accepts and cannot scan)
REFUSED = [
    ("flax.linen", "nn.RNN(nn.RNN(nn.GRUCell(5)))", 3, "cell must be a Flax linen cell derive knows", False),
    ("flax.linen", "nn.RNN(nn.GRUCell(5), foo=1)", 3, "unexpected keyword argument 'foo'", False),
    ("flax.linen", "nn.RNN(cell=nn.GRUCell(5), cell_size=3)", 3, "unexpected keyword argument 'cell_size'", False),
    ("flax.linen", "nn.RNN()", 3, "missing 1 required positional argument: 'cell'", False),
    (
        "flax.linen",
        "nn.Bidirectional(nn.RNN(nn.GRUCell(5)), nn.GRUCell(5))",
        3,
        "backward_rnn must be an nn.RNN of a cell derive knows (nn.RNN(nn.LSTMCell(64))), got nn.GRUCell(...)",
        False,
    ),
    ("flax.linen", "nn.Bidirectional(nn.RNN(nn.GRUCell(5)))", 3, "missing 1 required positional argument", False),
    (
        "flax.linen",
        "nn.RNN(nn.GRUCell(5), variable_broadcast=False, variable_axes={'params': 1}, split_rngs={'params': True})",
        3,
        "variable_broadcast=False is not supported by derive",
        True,  # Flax builds it: every tensor gains the time axis, (5, 5, 5) for hn/kernel
    ),
    ("flax.linen", "nn.RNN(nn.GRUCell(5), variable_axes=axes)", 3, "write the dict out", None),
    ("flax.linen", "nn.RNN(nn.LSTMCell(64))", None, "give the input width with --input-dim", None),
    (
        "flax.linen",
        "linen.Sequential([linen.Bidirectional(linen.RNN(linen.GRUCell(2)), linen.RNN(linen.GRUCell(2)), "
        "merge_fn=merge), linen.RNN(linen.GRUCell(4))])",
        3,
        "layers_1 reads the output of a merge_fn derive does not evaluate",
        None,
    ),
    ("flax.linen", "linen.Sequential([linen.GRUCell(5)])", 3, "a cell takes a carry: wrap it in nn.RNN", False),
    ("flax.linen", "linen.Sequential([linen.Dense(5)])", 3, "linen.Dense(5) is not a layer of a Sequential", None),
    ("flax.linen", "linen.Sequential([])", 3, "layers must be a non-empty list", None),
    ("flax.nnx", "nnx.RNN(nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0))))", None, "cell must be an nnx cell", None),
    (
        "flax.nnx",
        "nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0)), foo=1)",
        None,
        "unexpected keyword argument 'foo'",
        False,
    ),
    ("flax.nnx", "nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0)), True)", None, "positional argument", False),
    (
        "flax.nnx",
        "nnx.Bidirectional(nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0))), nnx.GRUCell(3, 5, rngs=nnx.Rngs(0)))",
        None,
        "backward_rnn must be an nnx.RNN of a cell derive knows",
        None,
    ),
    (
        "flax.nnx",
        "nnx.Sequential(nnx.Linear(3, 4, rngs=nnx.Rngs(0)))",
        None,
        "nnx.Linear(3, 4, rngs=nnx.Rngs(0)) is not an nnx layer derive knows",
        True,
    ),
]


def derive_answer(framework: str, text: str, input_dim: int | None) -> tuple[int, dict | None, str]:
    argv = [text, "--framework", framework, "--json"] + (["--input-dim", str(input_dim)] if input_dim else [])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, (json.loads(out.getvalue()) if status == 0 else None), err.getvalue()


def real_rows(framework: str, text: str, input_dim: int | None) -> list[tuple[str, tuple]]:
    return [(name, tuple(shape)) for name, shape, _ in RUNNERS[framework](text, input_dim)]


def _called(text: str) -> str:
    return text.split("(", 1)[0].rpartition(".")[2]


@pytest.mark.parametrize("framework,text,input_dim", LINES, ids=[f"{fw}:{t[:60]}" for fw, t, _ in LINES])
def test_line_gives_the_real_parameter_tree(framework, text, input_dim):
    real = real_rows(framework, text, input_dim)
    status, data, err = derive_answer(framework, text, input_dim)
    assert status == 0, err
    ours = [(t["name"], tuple(t["shape"])) for t in data["tensors"]]
    assert sorted(ours) == sorted(real)
    assert data["total"] == sum(math.prod(s) for _, s in real)
    assert data["partial"] is False
    live_record.checked(framework, _called(text))


def test_the_questions_lines_name_flax_s_tensors():
    """The two lines of issue 26's questions, their names and totals written out (read from Flax 0.12.8)."""
    status, data, err = derive_answer("flax.linen", "nn.RNN(nn.LSTMCell(64))", 32)
    assert status == 0, err
    assert data["total"] == 24_832 and len(data["tensors"]) == 12
    names = {t["name"]: tuple(t["shape"]) for t in data["tensors"]}
    assert (
        names["cell/ii/kernel"] == (32, 64) and names["cell/hi/kernel"] == (64, 64) and names["cell/ho/bias"] == (64,)
    )
    status, data, err = derive_answer("flax.linen", "nn.Bidirectional(nn.RNN(nn.GRUCell(5)), nn.RNN(nn.GRUCell(5)))", 3)
    assert status == 0, err
    assert data["total"] == 280
    assert {t["name"] for t in data["tensors"]} == {
        f"{side}/cell/{g}/{p}"
        for side in ("forward_rnn", "backward_rnn")
        for g, p in [
            ("ir", "kernel"), ("iz", "kernel"), ("in", "kernel"), ("hr", "kernel"), ("hz", "kernel"),
            ("hn", "kernel"), ("ir", "bias"), ("iz", "bias"), ("in", "bias"), ("hn", "bias"),
        ]
    }  # fmt: skip


def test_the_wrappers_are_read_without_framework():
    """``nn.RNN(cell)`` is Flax linen's (torch's ``nn.RNN`` takes two sizes); ``nn.RNN(3, 4)`` and
    ``nn.Sequential(...)`` stay torch's (linen's ``Sequential`` is read as ``flax.linen.Sequential``)."""
    for text, framework in [
        ("nn.RNN(nn.LSTMCell(64))", "flax.linen"),
        ("nn.Bidirectional(nn.RNN(nn.GRUCell(5)), nn.RNN(nn.GRUCell(5)))", "flax.linen"),
        ("nnx.RNN(nnx.GRUCell(3, 5, rngs=nnx.Rngs(0)))", "flax.nnx"),
    ]:
        out, err = io.StringIO(), io.StringIO()
        width = [] if framework == "flax.nnx" else ["--input-dim", "3"]
        with redirect_stdout(out), redirect_stderr(err):
            status = main([text, "--json", *width])
        assert status == 0, err.getvalue()
        assert json.loads(out.getvalue())["framework"] == framework
    for torch_line in ("nn.RNN(3, 4)", "nn.Sequential(nn.LSTM(3, 4), nn.Linear(4, 2))"):
        out = io.StringIO()
        with redirect_stdout(out):
            assert main([torch_line, "--json"]) == 0
        assert json.loads(out.getvalue())["framework"] == "torch"


@pytest.mark.parametrize(
    "framework,text,input_dim,words,builds", REFUSED, ids=[f"{fw}:{t[:60]}" for fw, t, *_ in REFUSED]
)
def test_refused(framework, text, input_dim, words, builds):
    if builds is not None:  # what Flax does with the line
        try:
            real_rows(framework, text, input_dim or 3)
            built = True
        except Exception:
            built = False
        assert built is builds
    status, _, err = derive_answer(framework, text, input_dim)
    assert status == 2 and words in err, err
    assert err.startswith("derive: error: ") and err.count("\n") == 1
