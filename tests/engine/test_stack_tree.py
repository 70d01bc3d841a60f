"""A stack as a module tree (``Stack.module``), its int path without SymPy, and the equation
language's shape-only mode; names and shapes held against torch's ``named_parameters()``."""

from __future__ import annotations

import re
import sys

import pytest
import sympy
from torch import nn

import derive
import derive.torch as dt
from derive import DEEP_BIDIRECTIONAL, PYTORCH, Stack
from derive import frameworks as fx
from derive.engine import algebra, validate
from derive.engine.equations import Equations
from derive.engine.stack_tree import COPY, CopyIndex
from derive.tree import MAX_LISTED, count, named_parameters

L = sympy.Symbol("L", integer=True, positive=True)


def _torch_names(module: nn.Module) -> list[tuple[str, tuple[int, ...]]]:
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("proj_size", [0, 3])
def test_module_names_and_shapes_are_torchs(bidirectional: bool, proj_size: int) -> None:
    ours = dt.LSTM(6, 5, 3, bidirectional=bidirectional, proj_size=proj_size).module("rnn")
    theirs = nn.LSTM(6, 5, 3, bidirectional=bidirectional, proj_size=proj_size, device="meta")
    assert [(n, p.shape) for n, p in named_parameters(ours)] == [(f"rnn.{n}", s) for n, s in _torch_names(theirs)]
    assert ours.type == "LSTM" and ours.row and [c.name for c in ours.children] == ["", "", ""]
    assert count(ours) == sum(p.numel() for p in theirs.parameters())


def test_a_symbolic_number_of_layers_is_layer_zero_and_one_repeated_group() -> None:
    tree = dt.GRU(6, 5, L, bidirectional=True).module()
    first, group = tree.children
    assert group.repeat == L - 1 and group.start == 1
    assert [p.name for p in group.params] == [
        "weight_ih_l{k}",
        "weight_hh_l{k}",
        "bias_ih_l{k}",
        "bias_hh_l{k}",
        "weight_ih_l{k}_reverse",
        "weight_hh_l{k}_reverse",
        "bias_ih_l{k}_reverse",
        "bias_hh_l{k}_reverse",
    ]
    assert count(tree) == dt.GRU(6, 5, L, bidirectional=True).count
    with pytest.raises(ValueError, match="symbolic number"):
        list(named_parameters(tree))
    # its copies, listed, are torch's layers 1 and 2
    three = tree.replace(children=(first, group.with_repeat(2, start=1)))
    theirs = nn.GRU(6, 5, 3, bidirectional=True, device="meta")
    assert [(n, p.shape) for n, p in named_parameters(three)] == _torch_names(theirs)


def test_more_layers_than_listed_count_without_listing() -> None:
    big = dt.LSTM(3, 4, MAX_LISTED + 1)
    assert len(big.module().children) == 2 and big.module().children[1].repeat == MAX_LISTED
    assert big.count == dt.LSTM(3, 4, 2).count + (MAX_LISTED - 1) * dt.LSTM(3, 4, 2).layer_count(1)
    with pytest.raises(ValueError, match="too many to list"):
        big.shapes  # noqa: B018


def test_a_plain_stack_is_named_by_its_mode_and_holds_its_output_layer() -> None:
    stack = Stack("GRU", 3, 4, 2, True, 0, PYTORCH, DEEP_BIDIRECTIONAL, output_features=7)
    tree = stack.module("net", type_name="MyGRU")
    assert tree.type == "MyGRU" and stack.module().type == "GRU"
    output = tree.child("output")
    assert [(p.name, p.shape) for p in output.params] == [("weight", (7, 8)), ("bias", (7,))]
    assert list(stack.shapes)[-2:] == ["output.weight", "output.bias"]
    assert stack.count == count(tree)


def test_paddles_disabled_bias_is_frozen_in_the_tree() -> None:
    tree = fx.stack("paddle", "GRU", 3, 5, bias=False).module()
    frozen = [p.name for _, p in named_parameters(tree) if not p.trainable]
    assert frozen == ["0.cell.bias_ih", "0.cell.bias_hh"]
    assert count(tree) - count(tree, trainable_only=True) == 30


def test_a_tied_tensor_is_held_once() -> None:
    from derive.engine.wirings import SHARED_INPUT_WEIGHTS

    stack = Stack("LSTM", 3, 4, 2, True, 0, PYTORCH, SHARED_INPUT_WEIGHTS)
    names = [n for n, _ in named_parameters(stack.module())]
    assert "weight_ih_l0" in names and "weight_ih_l0_reverse" not in names and "weight_hh_l0_reverse" in names


def test_an_int_stack_makes_no_sympy_expression() -> None:
    """The count of an int stack is integer arithmetic: SymPy is not even imported for it (a fresh process)."""
    import subprocess

    code = (
        "import sys, derive.torch as dt\n"
        "stack = dt.LSTM(301, 255, 2, bidirectional=True)\n"
        "total, tree = stack.count, stack.module()\n"
        "from derive.tree import named_parameters\n"
        "assert all(type(d) is int for _, p in named_parameters(tree) for d in p.shape)\n"
        "print(total, 'sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [
        str(sum(p.numel() for p in nn.LSTM(301, 255, 2, bidirectional=True, device="meta").parameters())),
        "False",
    ]


def test_copy_index_formats_as_the_tree_fills_it() -> None:
    assert f"{COPY}" == "{k}" and str(COPY * 2) == "2*{k}" and f"{2 * COPY + 1}" == "2*{k} + 1"
    assert COPY != 0 and bool(COPY) and CopyIndex() == COPY and len({COPY, CopyIndex(1, 0)}) == 1
    assert repr(COPY + 1) == "{k} + 1"


def test_the_old_module_paths_are_gone_and_derive_cost_stays_the_function() -> None:
    """derive/_moved.py is gone: an old path is not importable, and ``import derive.cost`` (no such
    module) never replaces the function ``derive.cost``."""
    import importlib

    for old in ("derive.conventions", "derive.stack", "derive.models", "derive.models.report", "derive.cost"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
    assert callable(derive.cost) and derive.cost.__module__ == "derive"
    assert derive.engine.conventions.Convention is not None and PYTORCH.name == "PyTorch"


def test_shape_only_helpers_refuse_nonconforming_shapes() -> None:
    a, b = algebra.Block((3, 1), "a"), algebra.Block((4, 1), "b")
    with pytest.raises(algebra.ShapeError, match="in a sum"):
        algebra.add(a, b)
    with pytest.raises(algebra.ShapeError, match="cannot multiply"):
        algebra.matmul(a, b)
    with pytest.raises(algebra.ShapeError, match="unequal columns"):
        algebra.vstack(a, algebra.Block((2, 2)))
    assert algebra.vstack(a, b).shape == (7, 1) and algebra.transpose(a).shape == (1, 3)
    assert (
        algebra.bracket(a) is a
        and algebra.reciprocal(a).shape == (3, 1)
        and repr(algebra.Block((2, 3))) == "Block(2, 3)"
    )
    s = algebra.Scalar("s")
    assert isinstance(1 / algebra.sqrt(s) * s, algebra.Scalar) and repr(s) == "s" and repr(algebra.Scalar()) == "Scalar"
    assert algebra.matmul(s, a.T, a).shape == (1, 1)
    algebra.check_conformance(a)  # a block was checked as it was built


def test_the_shape_only_mode_needs_int_sizes() -> None:
    with pytest.raises(TypeError, match="hidden_size must be an int in the shape-only mode"):
        Equations(3, sympy.Symbol("H"), 3, True, numeric=True)


def test_sizes_are_checked_by_assumptions() -> None:
    n = sympy.Symbol("n", integer=True, negative=True)
    with pytest.raises(ValueError, match="greater than zero"):
        validate.size("hidden_size", n)
    with pytest.raises(ValueError, match="positive integer or zero"):
        validate.size("proj_size", n, minimum=0)
    assert validate.size("proj_size", sympy.Symbol("p"), minimum=0) == sympy.Symbol("p")
    with pytest.raises(ValueError, match="must be >= 0|greater"):
        validate.size("window", n, minimum=2)
    assert validate.size("window", sympy.Symbol("w", integer=True, positive=True) + 1, minimum=2) is not None


def test_the_int_count_is_torchs_for_many_sizes() -> None:
    for i, h, layers in ((1, 1, 1), (7, 3, 4), (300, 256, 2)):
        for cls in ("RNN", "GRU", "LSTM"):
            ours = getattr(dt, cls)(i, h, layers, bidirectional=True)
            theirs = getattr(nn, cls)(i, h, layers, bidirectional=True, device="meta")
            assert ours.count == sum(p.numel() for p in theirs.parameters())
            by_layer = [
                sum(p.numel() for n, p in theirs.named_parameters() if re.search(rf"_l{k}(_reverse)?$", n))
                for k in range(layers)
            ]
            assert [ours.layer_count(k) for k in range(layers)] == by_layer


def test_the_short_paths_users_type_do_not_warn() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import derive.keras as dk
        import derive.torch as dt

    assert dt.LSTM(10, 20).count == 2560 and dk.LSTM(20, input_dim=10).count == 2480
