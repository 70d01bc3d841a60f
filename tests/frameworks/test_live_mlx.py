"""``derive.frameworks`` "mlx" held against ``mlx.nn``: every class, random sizes and options.

The real parameters are ``mlx.utils.tree_flatten(module.parameters())`` — the dotted paths MLX
prints — of the layer, or of ``nn.Sequential`` of layers for a stack (layer·D + direction), run
once on a zero input so that every width is exercised. Names, shapes and order are compared with
``derive.frameworks.tensors``, the total with ``derive.frameworks.count``.
"""

from __future__ import annotations

import pytest

mx = pytest.importorskip("mlx.core")
import frameworks_live_extra as extra  # noqa: E402
import live_record  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from derive import frameworks  # noqa: E402

PROPERTY = settings(max_examples=15, deadline=None)
CLASSES = ["RNN", "GRU", "LSTM"]


def real(cls: str, input_size: int, hidden: int, **kwargs) -> list[tuple[str, tuple]]:
    """[(path, shape)] of the real MLX layer or ``nn.Sequential`` stack."""
    return [(name, shape) for name, shape, _ in extra.mlx_tensors(cls, input_size, hidden, **kwargs)]


def check(cls: str, i: int, h: int, **kwargs) -> None:
    got = real(cls, i, h, **kwargs)
    assert [(r.name, r.shape) for r in frameworks.tensors("mlx", cls, i, h, **kwargs)] == got
    total = 0
    for _, shape in got:
        n = 1
        for d in shape:
            n *= d
        total += n
    assert frameworks.count("mlx", cls, i, h, **kwargs) == total
    live_record.checked("mlx", cls)


def test_the_recorded_names() -> None:
    assert real("RNN", 3, 5) == [("Wxh", (5, 3)), ("Whh", (5, 5)), ("bias", (5,))]
    assert real("GRU", 3, 5) == [("Wx", (15, 3)), ("Wh", (15, 5)), ("b", (15,)), ("bhn", (5,))]
    assert real("LSTM", 3, 5) == [("Wx", (20, 3)), ("Wh", (20, 5)), ("bias", (20,))]
    assert real("LSTM", 3, 5, bias=False) == [("Wx", (20, 3)), ("Wh", (20, 5))]
    for cls in CLASSES:
        check(cls, 3, 5)


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("layers,bidirectional,bias", [(2, False, True), (2, True, True), (3, True, False)])
def test_stacks(cls, layers, bidirectional, bias) -> None:
    check(cls, 4, 3, num_layers=layers, bidirectional=bidirectional, bias=bias)


@PROPERTY
@given(
    cls=st.sampled_from(CLASSES),
    i=st.integers(1, 12),
    h=st.integers(1, 12),
    layers=st.integers(1, 3),
    bi=st.booleans(),
    bias=st.booleans(),
)
def test_random_layers_and_stacks(cls, i, h, layers, bi, bias) -> None:
    check(cls, i, h, num_layers=layers, bidirectional=bi, bias=bias)


def test_gru_bias_is_equinox_s() -> None:
    assert frameworks.count("mlx", "GRU", 4, 5) == frameworks.count("equinox", "GRUCell", 4, 5)
