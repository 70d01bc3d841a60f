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
