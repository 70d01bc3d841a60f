"""``derive.torch`` counts and shapes, held against live ``torch.nn`` (torch 2.13).

Every expected value is read from a real ``torch.nn`` module (``sum(p.numel() for p in
m.parameters())`` and ``named_parameters()``), built on the ``meta`` device where only shapes
matter (a few on CPU show that meta agrees). Literals appear only where they are torch outputs
reported by users in the seed threads (``/work/shared/seeds/000_*``, ``002_*``), and those are
compared with live torch as well.
"""

from __future__ import annotations

import random
import re

import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import derive.torch as dt
from derive import H, I, L, P
from derive.engine.stack import UPPER

LAYER_CLASSES = ("RNN", "LSTM", "GRU")
CELL_CLASSES = ("RNNCell", "LSTMCell", "GRUCell")
PROPERTY = settings(max_examples=80, deadline=None)


# --------------------------------------------------------------------------- torch side


def build_torch(name: str, *args, device: str = "meta", **kwargs) -> torch.nn.Module:
    """``torch.nn.<name>(*args, **kwargs)`` on ``device`` ("meta": shapes only, no memory)."""
    return getattr(torch.nn, name)(*args, device=device, **kwargs)


def torch_count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def torch_shapes(module: torch.nn.Module) -> list[tuple[str, tuple[int, ...]]]:
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


def torch_layer(module: torch.nn.Module, layer: int) -> list[tuple[str, tuple[int, ...]]]:
    """(name, shape) of the parameters of one layer (both directions), in torch's order."""
    pattern = re.compile(rf"[a-z_]+_l{layer}(_reverse)?")
    return [(n, s) for n, s in torch_shapes(module) if pattern.fullmatch(n)]


def _drop(kwargs: dict, *keys: str) -> dict:
    return {k: v for k, v in kwargs.items() if k not in keys}


# --------------------------------------------------------------------------- derive side


def derive_listing(tensors) -> list[tuple[str, tuple[int, ...]]]:
    return [(t.name, tuple(int(d) for d in t.shape)) for t in tensors]


def assert_matches_torch(obj, module: torch.nn.Module, num_layers: int | None) -> None:
    """Everything derive states about a concrete configuration, against the torch module."""
    expected_count = torch_count(module)
    expected_shapes = torch_shapes(module)

    assert type(obj.count) is int, type(obj.count)  # every concrete count is an int (json.dumps takes it)
    assert obj.count == expected_count
    assert int(obj) == expected_count
    assert list(obj.shapes.items()) == expected_shapes
    assert all(type(d) is int for _, shape in obj.shapes.items() for d in shape)
    assert derive_listing(obj.tensors) == expected_shapes
    assert sum(int(t.numel) for t in obj.tensors) == expected_count

    if num_layers is None:  # a cell: one "layer", unsuffixed names
        assert derive_listing(obj.layer_tensors(0)) == expected_shapes
        assert obj.layer_count(0) == expected_count
        assert obj.layer_input_size(0) == module.weight_ih.shape[1]
        return
    for layer in range(num_layers):
        expected_layer = torch_layer(module, layer)
        assert expected_layer, f"no torch tensors for layer {layer}"
        assert derive_listing(obj.layer_tensors(layer)) == expected_layer
        assert obj.layer_count(layer) == sum(s[0] * (s[1] if len(s) > 1 else 1) for _, s in expected_layer)
        assert obj.layer_input_size(layer) == getattr(module, f"weight_ih_l{layer}").shape[1]


# --------------------------------------------------------------------------- 1. properties


@st.composite
def layer_configs(draw, name: str) -> dict:
    hidden = draw(st.integers(1, 128))
    config = {
        "input_size": draw(st.integers(1, 128)),
        "hidden_size": hidden,
        "num_layers": draw(st.integers(1, 5)),
        "bias": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
        "dropout": draw(st.sampled_from([0.0, 0.25, 1.0])),
        "bidirectional": draw(st.booleans()),
    }
    if name == "RNN":
        config["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    if name == "LSTM":
        config["proj_size"] = 0 if hidden == 1 else draw(st.one_of(st.just(0), st.integers(1, hidden - 1)))
    return config


@st.composite
def cell_configs(draw, name: str) -> dict:
    config = {
        "input_size": draw(st.integers(1, 128)),
        "hidden_size": draw(st.integers(1, 128)),
        "bias": draw(st.booleans()),
    }
    if name == "RNNCell":
        config["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    return config


@pytest.mark.filterwarnings("ignore:dropout option adds dropout:UserWarning")
@pytest.mark.parametrize("name", LAYER_CLASSES)
@PROPERTY
@given(data=st.data())
def test_layers_match_torch(name, data):
    config = data.draw(layer_configs(name), label="config")
    module = build_torch(name, **config)
    obj = getattr(dt, name)(**config)
    assert_matches_torch(obj, module, config["num_layers"])


@pytest.mark.parametrize("name", CELL_CLASSES)
@PROPERTY
@given(data=st.data())
def test_cells_match_torch(name, data):
    config = data.draw(cell_configs(name), label="config")
    module = build_torch(name, **config)
    obj = getattr(dt, name)(**config)
    assert_matches_torch(obj, module, None)


POSITIONAL = [
    ("RNN", (7, 5, 3, "relu", False, True, 0.0, True)),
    ("RNN", (7, 5, 2, "tanh")),
    ("LSTM", (7, 5, 3, False, True, 0.5, True, 3)),
    ("LSTM", (7, 5, 2, True, False, 0.0, False, 4)),
    ("GRU", (7, 5, 3, False, True, 0.5, True)),
    ("RNNCell", (7, 5, False, "relu")),
    ("LSTMCell", (7, 5, False)),
    ("GRUCell", (7, 5, True)),
]


@pytest.mark.parametrize(("name", "args"), POSITIONAL, ids=[f"{n}{a}" for n, a in POSITIONAL])
def test_positional_call_can_be_pasted(name, args):
    """The constructors take torch's positional order, so a torch call can be pasted as is."""
    module = build_torch(name, *args)
    obj = getattr(dt, name)(*args)
    assert_matches_torch(obj, module, None if name.endswith("Cell") else args[2])


META_VS_CPU = [
    ("LSTM", dict(input_size=10, hidden_size=20, num_layers=3, bidirectional=True, proj_size=7)),
    ("LSTM", dict(input_size=3, hidden_size=2, num_layers=2, bias=False)),
    ("GRU", dict(input_size=17, hidden_size=9, num_layers=4, bidirectional=True)),
    ("RNN", dict(input_size=5, hidden_size=11, num_layers=3, nonlinearity="relu", bidirectional=True)),
    ("LSTMCell", dict(input_size=6, hidden_size=13)),
    ("GRUCell", dict(input_size=6, hidden_size=13, bias=False)),
    ("RNNCell", dict(input_size=6, hidden_size=13, nonlinearity="relu")),
]


@pytest.mark.parametrize(("name", "config"), META_VS_CPU, ids=[n for n, _ in META_VS_CPU])
def test_meta_device_agrees_with_cpu(name, config):
    """The meta-device modules used everywhere else have the same parameters as real CPU ones."""
    cpu = build_torch(name, device="cpu", **config)
    meta = build_torch(name, device="meta", **config)
    assert torch_shapes(cpu) == torch_shapes(meta)
    assert torch_count(cpu) == torch_count(meta)
    assert all(p.device.type == "cpu" for p in cpu.parameters())
    assert_matches_torch(getattr(dt, name)(**config), cpu, config.get("num_layers") if "Cell" not in name else None)


# --------------------------------------------------------------------------- 2. seeds

# seeds/000: nn.LSTM(32, 128, 2, batch_first=True, bidirectional=...) through torchinfo.summary.
SEED000_BI_COUNT = 561152
SEED000_UNI_COUNT = 215040

# seeds/000: `for param in model.parameters(): print(param.size())`.
SEED000_UNI_SIZES = [(200, 20), (200, 50), (200, 50), (200, 50), (200, 50), (200, 50)]
SEED000_BI_SIZES = [
    (200, 20),
    (200, 50),
    (200, 20),
    (200, 50),
    (200, 100),
    (200, 50),
    (200, 100),
    (200, 50),
    (200, 100),
    (200, 50),
    (200, 100),
    (200, 50),
]


@pytest.mark.parametrize(("bidirectional", "reported"), [(True, SEED000_BI_COUNT), (False, SEED000_UNI_COUNT)])
def test_seed000_counts(bidirectional, reported):
    live = torch_count(build_torch("LSTM", 32, 128, 2, batch_first=True, bidirectional=bidirectional, device="cpu"))
    assert live == reported  # the thread's numbers are still torch's
    obj = dt.LSTM(32, 128, 2, bidirectional=bidirectional)
    assert obj.count == reported
    assert type(obj.count) is int
    assert dt.LSTM(32, 128, 2, batch_first=True, bidirectional=bidirectional).count == live


def test_seed000_bidirectional_is_more_than_twice_unidirectional():
    """The thread's puzzle: 561152 > 2 * 215040, while for one layer it is exactly twice."""
    bi, uni = dt.LSTM(32, 128, 2, bidirectional=True).count, dt.LSTM(32, 128, 2).count
    assert bi > 2 * uni
    assert bi - 2 * uni == SEED000_BI_COUNT - 2 * SEED000_UNI_COUNT
    one_bi = torch_count(build_torch("LSTM", 32, 128, 1, bidirectional=True))
    one_uni = torch_count(build_torch("LSTM", 32, 128, 1))
    assert one_bi == 2 * one_uni
    assert dt.LSTM(32, 128, 1, bidirectional=True).count == one_bi
    assert dt.LSTM(32, 128, 1).count == one_uni


@pytest.mark.parametrize(("bidirectional", "reported"), [(False, SEED000_UNI_SIZES), (True, SEED000_BI_SIZES)])
def test_seed000_shape_listing(bidirectional, reported):
    module = build_torch("LSTM", 20, 50, 3, bias=False, bidirectional=bidirectional, device="cpu")
    assert [tuple(p.size()) for p in module.parameters()] == reported
    obj = dt.LSTM(20, 50, 3, bias=False, bidirectional=bidirectional)
    assert list(obj.shapes.values()) == reported
    assert list(obj.shapes.items()) == torch_shapes(module)


def test_seed002_upper_layers_read_both_directions():
    """seeds/002: nn.RNN(25, 50, 4, batch_first=True, bidirectional=True); weight_ih_l1..3 are (50, 100)."""
    module = build_torch("RNN", 25, 50, 4, batch_first=True, bidirectional=True, device="cpu")
    obj = dt.RNN(25, 50, 4, bidirectional=True)
    assert obj.layer_input_size(1) == 100
    assert obj.layer_input_size(UPPER) == 100
    for layer in range(4):
        for suffix in ("", "_reverse"):
            width = getattr(module, f"weight_ih_l{layer}{suffix}").shape[1]
            assert obj.layer_input_size(layer) == width
            assert obj.shapes[f"weight_ih_l{layer}{suffix}"] == (50, 25 if layer == 0 else 100)
    assert list(obj.shapes.items()) == torch_shapes(module)
    assert obj.count == torch_count(module)
    assert dt.RNN(25, 50, 4, batch_first=True, bidirectional=True).count == torch_count(module)


# --------------------------------------------------------------------------- 3. symbolic forms


def _symbolic_cases():
    for bias in (True, False):
        for bidirectional in (False, True):
            for nonlinearity in ("tanh", "relu"):
                yield "RNN", dict(nonlinearity=nonlinearity, bias=bias, bidirectional=bidirectional)
            yield "GRU", dict(bias=bias, bidirectional=bidirectional)
            yield "LSTM", dict(bias=bias, bidirectional=bidirectional)
            yield "LSTM", dict(bias=bias, bidirectional=bidirectional, proj_size=P)


SYMBOLIC_CASES = list(_symbolic_cases())


def _case_id(case) -> str:
    name, kwargs = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


def _sample_sizes(name: str, kwargs: dict, n: int = 4) -> list[tuple[int, int, int]]:
    """(I, H, P) values: small edge cases plus seeded random ones; P = 0 without projection."""
    rng = random.Random(_case_id((name, kwargs)))
    projected = kwargs.get("proj_size") is P
    out = [(1, 2, 1)] if projected else [(1, 1, 0)]
    while len(out) < n:
        h = rng.randint(2, 64)
        out.append((rng.randint(1, 64), h, rng.randint(1, h - 1) if projected else 0))
    return out


def _torch_kwargs(kwargs: dict, p: int) -> dict:
    out = _drop(kwargs, "proj_size")
    if "proj_size" in kwargs:
        out["proj_size"] = p
    return out


@pytest.mark.parametrize("case", SYMBOLIC_CASES, ids=_case_id)
def test_symbolic_count_matches_torch_for_every_depth(case):
    name, kwargs = case
    obj = getattr(dt, name)(I, H, L, **kwargs)
    count = obj.count
    assert isinstance(count, sympy.Expr) and not count.is_Number
    projected = "proj_size" in kwargs
    assert count.free_symbols == ({I, H, L, P} if projected else {I, H, L})
    with pytest.raises(ValueError, match="num_layers"):
        obj.shapes  # noqa: B018  (needs an int num_layers)

    for i, h, p in _sample_sizes(name, kwargs):
        for layers in range(1, 7):
            expected = torch_count(build_torch(name, i, h, layers, **_torch_kwargs(kwargs, p)))
            values = {I: i, H: h, L: layers, P: p}
            by_xreplace = count.xreplace({s: sympy.Integer(v) for s, v in values.items()})
            by_subs = count.subs(values)
            assert by_xreplace.is_Integer and by_xreplace == expected, (i, h, p, layers)
            assert by_subs == expected, (i, h, p, layers)


@pytest.mark.parametrize("case", SYMBOLIC_CASES, ids=_case_id)
def test_symbolic_layer_tensors_match_torch(case):
    """``layer_tensors(0)`` and ``layer_tensors(UPPER)``, substituted, are torch's l0 and l1..l{L-1} tensors."""
    name, kwargs = case
    obj = getattr(dt, name)(I, H, L, **kwargs)
    first, upper = obj.layer_tensors(0), obj.layer_tensors(UPPER)
    first_count, upper_count = obj.layer_count(0), obj.layer_count(UPPER)
    upper_width = obj.layer_input_size(UPPER)
    layers = 4
    for i, h, p in _sample_sizes(name, kwargs, n=3):
        module = build_torch(name, i, h, layers, **_torch_kwargs(kwargs, p))
        values = {I: i, H: h, P: p}

        def concrete(tensors, layer):
            return [
                (t.name.replace(f"_l{UPPER}", f"_l{layer}"), tuple(int(sympy.sympify(d).subs(values)) for d in t.shape))
                for t in tensors
            ]

        assert concrete(first, 0) == torch_layer(module, 0)
        assert int(first_count.subs(values)) == sum(torch.Size(s).numel() for _, s in torch_layer(module, 0))
        for layer in range(1, layers):
            assert concrete(upper, layer) == torch_layer(module, layer)
            assert int(upper_count.subs(values)) == sum(torch.Size(s).numel() for _, s in torch_layer(module, layer))
            assert int(sympy.sympify(upper_width).subs(values)) == getattr(module, f"weight_ih_l{layer}").shape[1]


@pytest.mark.parametrize("case", SYMBOLIC_CASES, ids=_case_id)
def test_symbolic_sizes_with_int_layers_give_symbolic_shapes(case):
    """With symbolic I, H (P) and an int num_layers, ``shapes`` lists torch's tensors with symbolic dims."""
    name, kwargs = case
    obj = getattr(dt, name)(I, H, 3, **kwargs)
    shapes = obj.shapes
    for i, h, p in _sample_sizes(name, kwargs, n=3):
        module = build_torch(name, i, h, 3, **_torch_kwargs(kwargs, p))
        values = {I: i, H: h, P: p}
        concrete = [(n, tuple(int(sympy.sympify(d).subs(values)) for d in s)) for n, s in shapes.items()]
        assert concrete == torch_shapes(module)
        assert obj.count.subs(values) == torch_count(module)


# Partially symbolic: (class, args, kwargs, {symbol: values to try}).
PARTIAL = [
    ("LSTM", (32, H, 2), {}, {H: [1, 7, 128]}),
    ("LSTM", (32, H, 2), {"bidirectional": True}, {H: [1, 7, 128]}),
    ("LSTM", (32, 128, L), {"bidirectional": True}, {L: [1, 2, 3, 5]}),
    ("LSTM", (I, 128, 2), {"bidirectional": True}, {I: [1, 32, 300]}),
    ("LSTM", (I, 128, 2), {"proj_size": 64}, {I: [1, 32, 300]}),
    ("LSTM", (20, 50, L), {"bias": False, "proj_size": P}, {L: [1, 3, 4], P: [1, 49]}),
    ("GRU", (I, 64, L), {"bias": False, "bidirectional": True}, {I: [1, 9], L: [1, 2, 6]}),
    ("RNN", (25, 50, L), {"bidirectional": True}, {L: [1, 4]}),
    ("RNN", (25, H, 4), {"nonlinearity": "relu"}, {H: [1, 50]}),
    ("RNNCell", (I, 5), {}, {I: [1, 8]}),
    ("LSTMCell", (I, H), {"bias": False}, {I: [1, 8], H: [1, 3]}),
    ("GRUCell", (6, H), {}, {H: [1, 33]}),
]


def _assignments(values: dict):
    items = [{}]
    for symbol, choices in values.items():
        items = [{**a, symbol: v} for a in items for v in choices]
    return items


@pytest.mark.parametrize(("name", "args", "kwargs", "values"), PARTIAL, ids=[f"{n}{a}{k}" for n, a, k, _ in PARTIAL])
def test_partially_symbolic_matches_torch(name, args, kwargs, values):
    obj = getattr(dt, name)(*args, **kwargs)
    count = obj.count
    assert count.free_symbols == set(values)
    for assignment in _assignments(values):
        t_args = tuple(int(sympy.sympify(a).subs(assignment)) for a in args)
        t_kwargs = {k: (int(v.subs(assignment)) if isinstance(v, sympy.Basic) else v) for k, v in kwargs.items()}
        module = build_torch(name, *t_args, **t_kwargs)
        assert count.subs(assignment) == torch_count(module), assignment
        # the same configuration with ints throughout gives the same number, as an int
        concrete = getattr(dt, name)(*t_args, **t_kwargs).count
        assert type(concrete) is int and concrete == torch_count(module)


def test_seed000_from_the_symbolic_form():
    count = dt.LSTM(32, 128, L, bidirectional=True).count
    assert count.subs(L, 2) == SEED000_BI_COUNT
    assert dt.LSTM(32, 128, L).count.subs(L, 2) == SEED000_UNI_COUNT
    general = dt.LSTM(I, H, L, bidirectional=True).count
    assert general.subs({I: 32, H: 128, L: 2}) == SEED000_BI_COUNT


def test_sympy_integer_sizes_behave_as_ints():
    module = build_torch("LSTM", 5, 9, 3, proj_size=4, bidirectional=True)
    obj = dt.LSTM(sympy.Integer(5), sympy.Integer(9), sympy.Integer(3), proj_size=sympy.Integer(4), bidirectional=True)
    assert_matches_torch(obj, module, 3)


def test_a_concrete_count_is_an_int_that_json_takes():
    """Issue 26: ``dt.LSTM(...).count`` was a ``sympy.Integer`` that ``json.dumps`` refuses."""
    import json

    import derive.keras as dk

    module = build_torch("LSTM", 10, 20, 2, bidirectional=True)
    obj = dt.LSTM(10, 20, 2, bidirectional=True)
    assert json.loads(json.dumps({"count": obj.count, "layer_1": obj.layer_count(1)})) == {
        "count": torch_count(module),
        "layer_1": sum(p.numel() for n, p in module.named_parameters() if "_l1" in n),
    }
    assert type(dk.LSTM(20, input_dim=10).count) is int and type(dk.count([dk.GRU(4)], 3)) is int
