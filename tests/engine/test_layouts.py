"""Never silent: every registered cell under every registered convention is laid out whole or refused.

Each convention either places every parameter the cell declares -- the laid-out total is then the
cell's own count, in both modes of the equation language -- or raises a ValueError naming the
parameter it cannot place. The conventions and cells are read from the registries, so a new cell
or framework is swept without editing this file.
"""

from __future__ import annotations

import re

import pytest
import sympy

from derive import frameworks as fx
from derive.cells import CELLS, make_cell
from derive.engine.conventions import Convention, TensorLayout
from derive.frameworks.keras import KERAS
from derive.frameworks.pytorch import PYTORCH
from derive.tree import named_parameters

I, H = sympy.symbols("I H", integer=True, positive=True)


def _conventions() -> dict[str, Convention]:
    """Every convention a registered framework class uses (its variants too), and torch's and Keras'."""
    found: dict[int, tuple[str, Convention]] = {id(PYTORCH): ("torch", PYTORCH), id(KERAS): ("keras", KERAS)}
    for fw in fx.FRAMEWORKS.values():
        for spec in fw.cells:
            for convention in (spec.convention, *spec.variants.values()):
                found.setdefault(id(convention), (f"{fw.key} {spec.name}", convention))
    return dict(found.values())


CONVENTIONS = _conventions()


def _ints(value: object) -> object:
    """A page option with every letter replaced by 2 (int sizes for the shape-only mode)."""
    if isinstance(value, tuple):
        return tuple(_ints(v) for v in value)
    return 2 if isinstance(value, sympy.Basic) else value


def _options(mode: str, numeric: bool) -> dict:
    options = CELLS[mode].page_options
    return {k: _ints(v) for k, v in options.items()} if numeric else dict(options)


def _placed_or_named(mode: str, convention: Convention, numeric: bool) -> None:
    sizes = (8, 8) if numeric else (I, H)
    policy = convention.bias_policy(mode, True)
    cell = make_cell(mode, *sizes, bias=policy, numeric=numeric, **_options(mode, numeric))
    try:
        tensors = convention.layout(cell)
    except ValueError as refused:
        message = str(refused)
        assert convention.name in message and f"the {cell.name} cell's parameter" in message
        assert any(f"${p.symbol.name}$ (kind {p.kind!r}, group {p.group!r}" in message for p in cell.parameters)
        return
    laid_out = sum((t.numel for t in tensors), 0)
    assert sympy.expand(laid_out - cell.count) == 0, (mode, convention.name)
    if numeric:
        assert type(laid_out) is int and all(type(d) is int for t in tensors for d in t.shape)


@pytest.mark.parametrize("numeric", [False, True], ids=["symbolic", "numeric"])
@pytest.mark.parametrize("key", sorted(CONVENTIONS))
@pytest.mark.parametrize("mode", sorted(CELLS))
def test_every_cell_under_every_convention_is_whole_or_refused(mode: str, key: str, numeric: bool) -> None:
    _placed_or_named(mode, CONVENTIONS[key], numeric)


def _spec_options(spec: fx.CellSpec) -> dict:
    entry = CELLS[spec.mode]
    options = {k: _ints(v) for k, v in entry.page_options.items() if k in spec.options}
    dims = spec.options.get("kernel_size")
    if dims and "kernel_size" in options:  # a class of n spatial dimensions (Haiku's ConvNDLSTM)
        options["kernel_size"] = (2,) * dims[0]
    return options


SPECS = [(fw.key, spec.name) for fw in fx.FRAMEWORKS.values() for spec in fw.cells]


@pytest.mark.parametrize(("key", "name"), SPECS)
def test_a_framework_class_places_all_of_its_cell(key: str, name: str) -> None:
    """A class's own convention holds every parameter of its cell: the stack's count is its cells' counts."""
    spec = fx.FRAMEWORKS[key].cell(name)
    options = _spec_options(spec)
    one = fx.stack(key, name, 8, 8, **options)
    assert one.count == one.cell(0).count == one.cell(0, numeric=True).count
    deep = fx.stack(key, name, 8, 8, num_layers=3, bidirectional=True, **options)
    assert deep.count == sum(deep.cell(k, d).count for k in range(3) for d in range(2))
    assert deep.count == sum(p.numel for _, p in named_parameters(deep.module()))


@pytest.mark.parametrize("mode", sorted(CELLS))
def test_both_modes_declare_the_same_parameters(mode: str) -> None:
    """The shape-only cell and the symbolic one of the same int sizes hold the same parameters."""
    options = _options(mode, numeric=True)
    for bias in (True, False, "input"):
        symbolic = make_cell(mode, 8, 8, bias=bias, **options)
        numeric = make_cell(mode, 8, 8, bias=bias, numeric=True, **options)
        assert [
            (p.symbol.name, p.kind, p.group, p.gate, tuple(int(d) for d in p.shape)) for p in symbolic.parameters
        ] == [(p.symbol.name, p.kind, p.group, p.gate, p.shape) for p in numeric.parameters]
        assert numeric.count == symbolic.count and type(numeric.count) is int


@pytest.mark.parametrize(
    ("mode", "symbol"),
    [("INDRNN", "u"), ("SRU", "v_{f}"), ("LNLSTM", r"\alpha^{h}_{i}")],
)
def test_a_parameter_pytorch_cannot_place_is_named(mode: str, symbol: str) -> None:
    """IndRNN's u, SRU's v_f, the LN-LSTM's gains: PyTorch's RNN tensors hold none, and say so."""
    from derive import DEEP_BIDIRECTIONAL, Stack

    stack = Stack(mode, 3, 5, 2, True, 0, PYTORCH, DEEP_BIDIRECTIONAL)
    for ask in (lambda: stack.count, lambda: stack.module(), lambda: stack.layer_count(1)):
        with pytest.raises(
            ValueError, match=f"PyTorch has no tensor for the {mode} cell's parameter " + re.escape(f"${symbol}$")
        ):
            ask()


def test_a_parameter_placed_twice_is_refused() -> None:
    twice = Convention(
        "twice",
        (TensorLayout("a", "weight", ("ih",)), TensorLayout("b", "weight", ("ih", "hh"))),
        lambda base, layer, direction: base,
        "test",
    )
    with pytest.raises(ValueError, match=r"places the RNN_TANH cell's parameter \$W_\{ih\}\$ .* twice, in 'a' and 'b'"):
        twice.layout(make_cell("RNN_TANH", 3, 5))


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("biases", {"LSTMM": "input"}, r"biases key 'LSTMM' is not a cell mode"),
        ("biases", {("GRU", "no"): "input"}, r"biases key \('GRU', 'no'\)"),
        ("biases", {"LSTM": "inputs"}, r"biases\['LSTM'\] must be one of"),
        ("gate_order", {"GRUU": ("r", "z", "n")}, r"gate_order keys \['GRUU'\]"),
        ("gate_labels", {"LSTMX": {"g": "c"}}, r"gate_labels keys \['LSTMX'\]"),
    ],
)
def test_a_misspelt_key_is_refused_when_the_convention_is_made(field: str, value: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Convention("x", PYTORCH.tensors, PYTORCH.layer_name, "test", **{field: value})


@pytest.mark.parametrize(("field", "value"), [("kind", "weights"), ("join", "side")])
def test_a_misspelt_layout_is_refused(field: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"{field} must be one of"):
        TensorLayout("w", **{"kind": "weight", "groups": ("ih",), field: value})


def test_generic_names_come_from_the_registered_cells() -> None:
    assert set(fx.GENERIC_CELLS) == {t.generic for t in CELLS.values() if t.generic}
    assert {spec.generic for fw in fx.FRAMEWORKS.values() for spec in fw.cells} <= set(fx.GENERIC_CELLS)
    with pytest.raises(ValueError, match="generic must be the LSTM cell's generic name 'lstm', got 'gru'"):
        fx.CellSpec("X", "LSTM", "gru", PYTORCH, "cell")
    with pytest.raises(ValueError, match="mode must be one of the registered cells"):
        fx.CellSpec("X", "LSTMX", "lstm", PYTORCH, "cell")


def test_a_generic_name_is_registered_once() -> None:
    from derive.engine.registry import register

    with pytest.raises(ValueError, match="generic name 'lstm' names another cell already"):
        register("LSTM2", title="x", source="y", generic="lstm")(lambda *a, **k: None)
    assert "LSTM2" not in CELLS
