"""``mx.sym.RNN`` refusals: what MXNet's RNN operator requires or refuses, named (its counts are held against
MXNet 1.9.1's ``infer_shape`` in ``tests/frameworks/test_live_mxnet.py``)."""

from __future__ import annotations

import pytest

import derive
from derive.read.source import SourceError


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("mx.sym.RNN(data=data, state_size=8, mode='lstm')", "Required parameter num_layers"),
        ("mx.sym.RNN(data=data, num_layers=1, state_size=8, mode='lst')", "mode must be one of"),
        (
            "mx.sym.RNN(data=data, num_layers=1, state_size=8, mode='gru', projection_size=2)",
            "projection_size is for mode='lstm' only",
        ),
        ("mx.sym.RNN(data=data, num_layers=1, state_size=8, mode='gru', name=3)", "name should be a str"),
        (
            "mx.sym.RNN(data=data, num_layers=1, state_size=8, mode='gru', bogus=1)",
            "unexpected keyword argument 'bogus'",
        ),
    ],
)
def test_the_symbol_rnn_refuses_naming_the_argument(line: str, words: str) -> None:
    with pytest.raises(SourceError, match=words):
        derive.explain(line, framework="mxnet", input_dim=4)


def test_its_one_tensor_is_named_after_the_symbol() -> None:
    report = derive.explain(
        "mx.symbol.RNN(state_size=8, num_layers=1, mode='rnn_tanh', name='enc')", framework="mxnet", input_dim=4
    )
    assert [t["name"] for t in report.tensors] == ["enc_parameters"]
