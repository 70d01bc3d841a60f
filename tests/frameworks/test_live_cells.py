"""The new cells held against the packages that build them: ``sru`` (SRU) and ``mingru-pytorch``
(minGRU, minLSTM), random sizes and options.

The real parameters are ``named_parameters()`` of the real modules (the names torch prints),
compared in order with ``derive.frameworks.tensors``; the total with ``derive.frameworks.count``.
"""

from __future__ import annotations

import pytest

sru = pytest.importorskip("sru")
mingru = pytest.importorskip("minGRU_pytorch")
import frameworks_live_extra as extra  # noqa: E402
import live_record  # noqa: E402
import torch  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from derive import frameworks  # noqa: E402

PROPERTY = settings(max_examples=25, deadline=None)


def params(module: torch.nn.Module) -> list[tuple[str, tuple]]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def check(framework: str, cls: str, module: torch.nn.Module, i: int, h: int, **kwargs) -> None:
    got = params(module)
    assert [(r.name, r.shape) for r in frameworks.tensors(framework, cls, i, h, **kwargs)] == got
    assert frameworks.count(framework, cls, i, h, **kwargs) == sum(p.numel() for p in module.parameters())
    live_record.checked(framework, cls)


# --------------------------------------------------------------------------- sru


def test_sru_recorded_names() -> None:
    assert params(extra.sru_module("SRU", 3, 5, num_layers=2)) == [
        ("rnn_lst.0.weight", (3, 20)),
        ("rnn_lst.0.weight_c", (10,)),
        ("rnn_lst.0.bias", (10,)),
        ("rnn_lst.1.weight", (5, 15)),
        ("rnn_lst.1.weight_c", (10,)),
        ("rnn_lst.1.bias", (10,)),
    ]
    check(
        "sru",
        "SRU",
        extra.sru_module("SRU", 3, 5, num_layers=2, bidirectional=True),
        3,
        5,
        num_layers=2,
        bidirectional=True,
    )


@PROPERTY
@given(
    cls=st.sampled_from(["SRU", "SRUCell"]),
    i=st.integers(1, 12),
    h=st.integers(1, 8),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    skip=st.booleans(),
    square=st.booleans(),
)
def test_sru_random(cls, i, h, layers, bi, skip, square) -> None:
    if square:  # the input as wide as the output: the highway needs no matrix
        i = h * (2 if bi else 1)
    kwargs = {"num_layers": layers, "bidirectional": bi, "has_skip_term": skip}
    check("sru", cls, extra.sru_module(cls, i, h, **kwargs), i, h, **kwargs)


# --------------------------------------------------------------------------- mingru-pytorch


def test_mingru_recorded_names() -> None:
    assert params(mingru.minGRU(6)) == [("to_hidden_and_gate.weight", (12, 6))]
    assert params(mingru.minGRU(6, expansion_factor=2.0)) == [
        ("to_hidden_and_gate.weight", (24, 6)),
        ("to_out.weight", (6, 12)),
    ]
    assert params(extra.mingru_module("minLSTM", 6, 6)) == [("to_hidden_and_f_i_gate.weight", (18, 6))]
    check("mingru", "minGRU", mingru.minGRU(6, expansion_factor=2.0), 6, 12, proj_size=6)


@PROPERTY
@given(
    cls=st.sampled_from(["minGRU", "minLSTM"]),
    i=st.integers(1, 12),
    h=st.integers(1, 12),
    proj=st.booleans(),
    layers=st.integers(1, 3),
    bi=st.booleans(),
)
def test_mingru_random(cls, i, h, proj, layers, bi) -> None:
    if proj and bi:
        layers = 1  # to_out maps back to dim: a layer above would read 2·dim, which no to_out gives
    kwargs = {"num_layers": layers, "bidirectional": bi, "proj_size": i if proj else 0}
    check("mingru", cls, extra.mingru_module(cls, i, h, **kwargs), i, h, **kwargs)


def test_mingru_projection_must_map_back_to_the_input() -> None:
    with pytest.raises(ValueError, match="proj_size must be 0 or input_size"):
        frameworks.count("mingru", "minGRU", 6, 12, proj_size=5)
