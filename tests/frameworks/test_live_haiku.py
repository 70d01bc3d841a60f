"""``derive.frameworks`` "haiku" held against dm-haiku: every class, random sizes and options.

The real parameters come from ``hk.transform(...).init`` run on CPU: their paths
(``module/name``, as Haiku prints them), shapes and order are compared with
``derive.frameworks.tensors``, their total with ``derive.frameworks.count``. Stacks are built as
the convention states: ``hk.DeepRNN`` of cores created layer by layer (forward before backward),
each layer >= 1 reading the output of the layer below (both directions concatenated).
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest

hk = pytest.importorskip("haiku")
import frameworks_live_extra as extra  # noqa: E402
import live_record  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from derive import frameworks  # noqa: E402

PROPERTY = settings(max_examples=12, deadline=None)


def real(cls: str, input_size: int, hidden: int, **kwargs) -> list[tuple[str, tuple]]:
    """[(path, shape)] of the real Haiku cores, in Haiku's order."""
    return [(name, shape) for name, shape, _ in extra.haiku_tensors(cls, input_size, hidden, **kwargs)]


def check(cls: str, i: int, h: int, **kwargs) -> None:
    got = real(cls, i, h, **kwargs)
    rows = frameworks.tensors("haiku", cls, i, h, **kwargs)
    assert [(r.name, r.shape) for r in rows] == got
    total = sum(math.prod(s) for _, s in got)
    assert frameworks.count("haiku", cls, i, h, **kwargs) == total
    live_record.checked("haiku", cls)


def test_the_recorded_names() -> None:
    assert real("VanillaRNN", 3, 5) == [
        ("vanilla_rnn/linear/w", (3, 5)),
        ("vanilla_rnn/linear/b", (5,)),
        ("vanilla_rnn/linear_1/w", (5, 5)),
        ("vanilla_rnn/linear_1/b", (5,)),
    ]
    assert real("LSTM", 3, 5) == [("lstm/linear/w", (8, 20)), ("lstm/linear/b", (20,))]
    assert real("GRU", 3, 5) == [("gru/w_i", (3, 15)), ("gru/w_h", (5, 15)), ("gru/b", (15,))]
    for cls in ("VanillaRNN", "LSTM", "GRU"):
        check(cls, 3, 5)


@pytest.mark.parametrize("cls", ["VanillaRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (3, False), (2, True)])
def test_stacks(cls, layers, bidirectional) -> None:
    check(cls, 3, 4, num_layers=layers, bidirectional=bidirectional)


@PROPERTY
@given(
    cls=st.sampled_from(["VanillaRNN", "LSTM", "GRU"]),
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    double_bias=st.booleans(),
)
def test_random_cells_and_stacks(cls, i, h, layers, bi, double_bias) -> None:
    options = {"double_bias": double_bias} if cls == "VanillaRNN" else {}
    check(cls, i, h, num_layers=layers, bidirectional=bi, **options)


@PROPERTY
@given(n=st.integers(1, 3), data=st.data(), c=st.integers(1, 5), f=st.integers(1, 5), layers=st.integers(1, 2))
def test_random_conv_lstms(n, data, c, f, layers) -> None:
    kernel = tuple(data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    check(f"Conv{n}DLSTM", c, f, kernel_size=kernel, num_layers=layers)


def check_deep(cls: str, i: int, h: int, layers: int, skip: bool, **kwargs) -> None:
    """The real ``hk.DeepRNN`` / ``hk.deep_rnn_with_skip_connections`` against ``frameworks.tensors``."""
    got, width = extra.haiku_deep_tensors(cls, i, h, layers, skip, **kwargs)
    options = {"skip_connections": True} if skip else {}
    rows = frameworks.tensors("haiku", cls, i, h, num_layers=layers, **options, **kwargs)
    assert [(r.name, r.shape) for r in rows] == [(n, s) for n, s, _ in got]
    assert frameworks.count("haiku", cls, i, h, num_layers=layers, **options, **kwargs) == sum(
        math.prod(s) for _, s, _ in got
    )
    assert width == (layers * h if skip else h)  # skip: every core's output concatenated
    live_record.checked("haiku", cls)


def test_skip_connections_names_and_widths() -> None:
    """Layer k >= 1 of hk.deep_rnn_with_skip_connections reads [x; h_{k-1}]: I + H rows."""
    got, width = extra.haiku_deep_tensors("LSTM", 3, 5, 3, True)
    assert [(n, s) for n, s, _ in got] == [
        ("lstm/linear/w", (8, 20)),
        ("lstm/linear/b", (20,)),
        ("lstm_1/linear/w", (13, 20)),
        ("lstm_1/linear/b", (20,)),
        ("lstm_2/linear/w", (13, 20)),
        ("lstm_2/linear/b", (20,)),
    ]
    assert width == 15
    check_deep("LSTM", 3, 5, 3, True)
    check_deep("GRU", 3, 5, 2, False)
    check_deep("Conv2DLSTM", 2, 3, 2, True, kernel_size=(3, 3))
    from derive import H, I, L

    skip = frameworks.count("haiku", "LSTM", I, H, num_layers=L, skip_connections=True)
    assert (skip - frameworks.count("haiku", "LSTM", I, H, num_layers=L) - 4 * H * I * (L - 1)).expand() == 0


@PROPERTY
@given(
    cls=st.sampled_from(["VanillaRNN", "LSTM", "GRU"]),
    i=st.integers(1, 9),
    h=st.integers(1, 9),
    layers=st.integers(1, 4),
    skip=st.booleans(),
)
def test_random_deep_rnns(cls, i, h, layers, skip) -> None:
    check_deep(cls, i, h, layers, skip)


def test_skip_connections_refusals() -> None:
    with pytest.raises(ValueError, match="bidirectional must be False"):
        frameworks.count("haiku", "LSTM", 3, 5, num_layers=2, bidirectional=True, skip_connections=True)
    with pytest.raises(ValueError, match="skip_connections must be one of \\[False\\] for onnx LSTM"):
        frameworks.count("onnx", "LSTM", 3, 5, skip_connections=True)
    with pytest.raises(TypeError):
        frameworks.count("haiku", "LSTM", 3, 5, skip_connections=1)


def test_double_bias_false_drops_the_recurrent_bias() -> None:
    assert real("VanillaRNN", 3, 5, double_bias=False)[-1] == ("vanilla_rnn/linear_1/w", (5, 5))
    check("VanillaRNN", 3, 5, double_bias=False)


def test_options_haiku_does_not_have_are_refused() -> None:
    with pytest.raises(ValueError, match="bias must be one of \\[True\\] for haiku LSTM"):
        frameworks.count("haiku", "LSTM", 3, 5, bias=False)
    with pytest.raises(ValueError, match="reset_after must be one of \\[False\\] for haiku GRU"):
        frameworks.count("haiku", "GRU", 3, 5, reset_after=True)
    with pytest.raises(ValueError, match="kernel_size must be a tuple of 2 sizes for haiku Conv2DLSTM"):
        frameworks.count("haiku", "Conv2DLSTM", 3, 5, kernel_size=(3,))
    with pytest.raises(ValueError, match="double_bias must be one of \\[True\\] for haiku LSTM"):
        frameworks.count("haiku", "LSTM", 3, 5, double_bias=False)
    with pytest.raises(TypeError):
        frameworks.count("haiku", "VanillaRNN", 3, 5, double_bias=1)
