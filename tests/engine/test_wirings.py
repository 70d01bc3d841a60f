"""Every wiring's count and shapes against a real construction in torch, and the wiring pages' numbers.

* deep bidirectional, unidirectional: ``torch.nn.RNN/LSTM/GRU`` themselves;
* simple concat: two unidirectional torch stacks, the backward one renamed ``*_reverse``;
* shared input weights: a bidirectional torch module whose reverse input weights are *the* forward
  ones (``m.weight_ih_l0_reverse = m.weight_ih_l0``), counted by ``m.parameters()`` (each shared
  tensor once);
* Keras ``Bidirectional`` merge modes: per layer a forward and a backward single-layer torch module,
  the next layer reading the merged output;
* modified BRNN: a torch module made of a forward stack reading ``[x_t ; c_{t-1}]``, a backward stack
  and a ``nn.Linear`` output layer, run once on one-hot labels;
* output layer: ``nn.Linear`` on a bidirectional stack.

Expected values always come from the torch objects, never from the derivation.
"""

from __future__ import annotations

import itertools

import pytest
import sympy
import torch
from torch import nn
from torch_live import MODES, KerasLikeStack, TwoStacks, tied, torch_count, torch_shapes

from derive import H, I, L, P
from derive.analysis.difference import compare
from derive.engine.stack import UPPER, Stack
from derive.engine.wirings import (
    DEEP_BIDIRECTIONAL,
    SHARED_INPUT_WEIGHTS,
    SIMPLE_CONCAT,
    UNIDIRECTIONAL,
    K,
    Labels,
    Wiring,
    keras_bidirectional,
    modified_brnn,
)
from derive.frameworks.pytorch import PYTORCH

G = {"RNN_TANH": 1, "LSTM": 4, "GRU": 3}
SIZES = [(5, 7, 1), (5, 7, 2), (3, 4, 3), (32, 128, 2)]


def stack(wiring, mode="LSTM", i=I, h=H, layers=L, proj=0, bias=True, output_features=0):
    return Stack(mode, i, h, layers, bias, proj, PYTORCH, wiring, output_features=output_features)


# --------------------------------------------------------------------------- counts and shapes


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i, h, layers", SIZES)
@pytest.mark.parametrize("bias", [True, False])
def test_simple_concat_is_two_torch_stacks(mode, i, h, layers, bias):
    model = TwoStacks(mode, i, h, layers, bias=bias)
    ours = stack(SIMPLE_CONCAT, mode, i, h, layers, bias=bias)
    assert ours.count == torch_count(model) == 2 * torch_count(model.forward_stack)
    assert dict(ours.shapes) == model.derive_names()
    assert model(torch.randn(4, 2, i)).shape[-1] == ours.wiring.top_size(ours.output_size)


@pytest.mark.parametrize("i, h, layers", SIZES)
def test_simple_concat_with_projection(i, h, layers):
    proj = h - 1
    model = TwoStacks("LSTM", i, h, layers, proj=proj)
    ours = stack(SIMPLE_CONCAT, "LSTM", i, h, layers, proj=proj)
    assert ours.count == torch_count(model)
    assert dict(ours.shapes) == model.derive_names()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i, h, layers", SIZES)
@pytest.mark.parametrize("bias", [True, False])
def test_shared_input_weights_is_a_tied_torch_module(mode, i, h, layers, bias):
    module = tied(mode, i, h, layers, bias=bias)
    ours = stack(SHARED_INPUT_WEIGHTS, mode, i, h, layers, bias=bias)
    assert ours.count == torch_count(module)
    assert list(ours.shapes.items()) == list(torch_shapes(module).items())
    # the saving: G·H·I_l per layer, I_l = I for layer 0 and 2H above, read off the untied module
    untied = MODES[mode](i, h, layers, bias=bias, bidirectional=True)
    saved = sum(getattr(untied, f"weight_ih_l{k}_reverse").numel() for k in range(layers))
    assert torch_count(untied) - ours.count == saved
    # the tied module runs, and both directions use the one tensor
    output, _ = module(torch.randn(4, 2, i))
    assert output.shape[-1] == 2 * h
    assert module.weight_ih_l0_reverse is module.weight_ih_l0


def test_shared_input_weights_with_projection():
    module = tied("LSTM", 6, 8, 3, proj=5)
    ours = stack(SHARED_INPUT_WEIGHTS, "LSTM", 6, 8, 3, proj=5)
    assert ours.count == torch_count(module)
    assert list(ours.shapes.items()) == list(torch_shapes(module).items())


@pytest.mark.parametrize("merge", ["concat", "sum", "mul", "ave"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i, h, layers", SIZES[:3])
def test_keras_merge_modes_against_torch_pairs(merge, mode, i, h, layers):
    model = KerasLikeStack(mode, i, h, layers, merge)
    ours = stack(keras_bidirectional(merge), mode, i, h, layers)
    assert ours.count == torch_count(model)
    assert dict(ours.shapes) == model.derive_names()
    assert model(torch.randn(4, 2, i)).shape[-1] == ours.wiring.top_size(ours.output_size)
    if merge == "concat":
        assert ours.count == torch_count(MODES[mode](i, h, layers, bidirectional=True))


@pytest.mark.parametrize("placement", [("states",), ("output",), ("states", "output")])
@pytest.mark.parametrize("posterior", ["forward", "backward"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i, h, layers", SIZES)
def test_modified_brnn_against_a_torch_module(placement, posterior, mode, i, h, layers):
    classes = 3
    model = TwoStacks(
        mode,
        i,
        h,
        layers,
        classes=classes,
        posterior=posterior,
        output=classes,
        labels_into_states="states" in placement,
        labels_into_output="output" in placement,
    )
    ours = stack(modified_brnn(classes, posterior, placement), mode, i, h, layers, output_features=classes)
    assert ours.count == torch_count(model)
    assert dict(ours.shapes) == model.derive_names()
    # the module is a working network: one-hot labels of the neighbouring step in, K scores per step out
    labels = nn.functional.one_hot(torch.randint(0, classes, (4, 2)), classes).float()
    assert model(torch.randn(4, 2, i), labels).shape == (4, 2, classes)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i, h, layers", SIZES)
@pytest.mark.parametrize("wiring", [UNIDIRECTIONAL, DEEP_BIDIRECTIONAL], ids=lambda w: w.name)
def test_output_layer_is_nn_linear(mode, i, h, layers, wiring):
    rnn = MODES[mode](i, h, layers, bidirectional=wiring is DEEP_BIDIRECTIONAL)
    out = nn.Linear(rnn(torch.randn(3, 1, i))[0].shape[-1], 10)
    ours = stack(wiring, mode, i, h, layers, output_features=10)
    assert ours.count == torch_count(rnn) + torch_count(out)
    assert [(t.name, tuple(int(d) for d in t.shape)) for t in ours.output_tensors] == [
        (f"output.{n}", s) for n, s in torch_shapes(out).items()
    ]


# --------------------------------------------------------------------------- closed forms


WIRINGS = {
    "simple concat": (SIMPLE_CONCAT, lambda mode, i, h, n, p: TwoStacks(mode, i, h, n, proj=p)),
    "shared": (SHARED_INPUT_WEIGHTS, lambda mode, i, h, n, p: tied(mode, i, h, n, proj=p)),
    "keras sum": (keras_bidirectional("sum"), lambda mode, i, h, n, p: KerasLikeStack(mode, i, h, n, "sum")),
    "deep": (DEEP_BIDIRECTIONAL, lambda mode, i, h, n, p: unidirectional_bi(mode, i, h, n, p)),
}


def unidirectional_bi(mode, i, h, layers, proj):
    extra = {"proj_size": proj} if proj else {}
    return MODES[mode](i, h, layers, bidirectional=True, **extra)


@pytest.mark.parametrize("name", WIRINGS)
@pytest.mark.parametrize("mode", MODES)
def test_closed_forms_substituted_equal_torch(name, mode):
    wiring, build_torch = WIRINGS[name]
    formula = stack(wiring, mode).count
    for i, h, layers in [(2, 3, 1), (5, 7, 2), (4, 9, 4)]:
        assert formula.xreplace({I: i, H: h, L: layers}) == torch_count(build_torch(mode, i, h, layers, 0))


def test_closed_forms_with_projection_substituted_equal_torch():
    for name in ("simple concat", "shared", "deep"):
        wiring, build_torch = WIRINGS[name]
        formula = stack(wiring, "LSTM", proj=P).count
        for i, h, layers, proj in [(2, 3, 1, 2), (5, 7, 2, 3), (4, 9, 4, 1)]:
            assert formula.xreplace({I: i, H: h, L: layers, P: proj}) == torch_count(
                build_torch("LSTM", i, h, layers, proj)
            )


def test_modified_brnn_closed_form_substituted_equals_torch():
    formula = stack(modified_brnn(), "LSTM", output_features=K).count
    for i, h, layers, classes in [(2, 3, 1, 2), (5, 7, 2, 3), (4, 9, 3, 10)]:
        model = TwoStacks("LSTM", i, h, layers, classes=classes, output=classes)
        assert formula.xreplace({I: i, H: h, L: layers, K: classes}) == torch_count(model)


# --------------------------------------------------------------------------- compare


@pytest.mark.parametrize("mode", MODES)
def test_deep_minus_simple_concat_is_the_upper_input_columns(mode):
    """Seed 000's answer in general: D·G·H·H_out·(L − 1), all of it in weight_ih_l{k}(_reverse)."""
    d = compare(stack(DEEP_BIDIRECTIONAL, mode), stack(SIMPLE_CONCAT, mode))
    assert sympy.expand(d.total - 2 * G[mode] * H * H * (L - 1)) == 0
    (change,) = d.changes
    assert change.tensors == ("weight_ih_l{k}", "weight_ih_l{k}_reverse")
    assert change.layer == UPPER and sympy.expand(change.times - 2 * (L - 1)) == 0
    for i, h, layers in [(3, 4, 1), (5, 7, 3)]:
        deep = MODES[mode](i, h, layers, bidirectional=True)
        two = TwoStacks(mode, i, h, layers)
        assert d.total.xreplace({I: i, H: h, L: layers}) == torch_count(deep) - torch_count(two)
        if layers > 1:
            assert tuple(change.shape_a[k].xreplace({H: h}) for k in range(2)) == tuple(deep.weight_ih_l1.shape)
            assert tuple(change.shape_b[k].xreplace({H: h}) for k in range(2)) == tuple(
                two.forward_stack.weight_ih_l1.shape
            )


def test_compare_with_ints_lists_each_layer():
    d = compare(stack(DEEP_BIDIRECTIONAL, "LSTM", 32, 128, 3), stack(SIMPLE_CONCAT, "LSTM", 32, 128, 3))
    deep, two = nn.LSTM(32, 128, 3, bidirectional=True), TwoStacks("LSTM", 32, 128, 3)
    assert d.total == torch_count(deep) - torch_count(two)
    assert [c.layer for c in d.changes] == [1, 2]
    for c in d.changes:
        assert c.shape_a == tuple(getattr(deep, c.tensors[0]).shape)
        assert c.shape_b == tuple(getattr(two.forward_stack, c.tensors[0]).shape)


def test_compare_shared_names_the_tied_tensors():
    d = compare(stack(DEEP_BIDIRECTIONAL), stack(SHARED_INPUT_WEIGHTS))
    assert {c.reason for c in d.changes} == {"tied across directions in b (stored once)"}
    assert [c.tensors for c in d.changes] == [("weight_ih_l0_reverse",), ("weight_ih_l{k}_reverse",)]
    for i, h, layers in [(3, 4, 2), (6, 2, 3)]:
        assert d.total.xreplace({I: i, H: h, L: layers}) == torch_count(
            nn.LSTM(i, h, layers, bidirectional=True)
        ) - torch_count(tied("LSTM", i, h, layers))


def test_compare_posteriors_moves_the_label_columns():
    forward = stack(modified_brnn(posterior="forward"), output_features=K)
    backward = stack(modified_brnn(posterior="backward"), output_features=K)
    d = compare(backward, forward)
    assert d.total == 0
    assert [(c.tensors, sympy.factor(c.each)) for c in d.changes] == [
        (("weight_ih_l0",), -4 * H * K),
        (("weight_ih_l0_reverse",), 4 * H * K),
    ]


def test_compare_refuses_bad_input():
    with pytest.raises(TypeError, match="a must be a derive.engine.stack.Stack"):
        compare(42, stack(UNIDIRECTIONAL))
    with pytest.raises(TypeError, match="b must be"):
        compare(stack(UNIDIRECTIONAL), nn.LSTM(3, 4))
    with pytest.raises(ValueError, match="num_layers"):
        compare(stack(UNIDIRECTIONAL), stack(UNIDIRECTIONAL, layers=2))


def test_compare_total_is_the_sum_of_its_changes():
    configs = [
        stack(w)
        for w in (
            UNIDIRECTIONAL,
            DEEP_BIDIRECTIONAL,
            SIMPLE_CONCAT,
            SHARED_INPUT_WEIGHTS,
            keras_bidirectional("ave"),
            modified_brnn(),
        )
    ]
    for a, b in itertools.permutations(configs, 2):
        d = compare(a, b)
        assert sympy.expand(d.total - (a.count - b.count)) == 0
        assert sympy.expand(sum((c.amount for c in d.changes), sympy.Integer(0)) - d.total) == 0


# --------------------------------------------------------------------------- wiring values


def test_wiring_refuses_inconsistent_values():
    with pytest.raises(ValueError, match="merge must be one of"):
        Wiring("x", ("forward", "reverse"), 2, "", merge="max")
    with pytest.raises(ValueError, match="upper_reads must be 1"):
        Wiring("x", ("forward", "reverse"), 2, "", merge="separate")
    with pytest.raises(ValueError, match="shared must hold"):
        Wiring("x", ("forward", "reverse"), 2, "", shared=(("weight", "xy"),))
    with pytest.raises(ValueError, match="two directions"):
        Wiring("x", ("forward",), 1, "", shared=(("weight", "ih"),))
    with pytest.raises(ValueError, match="cannot be shared"):
        Wiring("x", ("forward", "reverse"), 2, "", shared=(("weight", "ih"),), labels=Labels(3))
    with pytest.raises(ValueError, match="merge_mode must be one of"):
        keras_bidirectional(None)
    with pytest.raises(ValueError, match="posterior must be one of"):
        modified_brnn(3, "sideways")
    with pytest.raises(ValueError, match="placement must be"):
        modified_brnn(3, "forward", ("reverse states",))
    with pytest.raises(ValueError, match="placement must be"):
        modified_brnn(3, "forward", ())
