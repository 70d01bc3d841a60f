"""What does layer 2 of a PyTorch bidirectional stack actually see?

``nn.RNN / nn.LSTM / nn.GRU(..., num_layers=L, bidirectional=True)`` is L layers, each made of two
single-layer, unidirectional recurrences (ATen ``FullBidirectionalLayer``, ``aten/src/ATen/native/RNN.cpp``):

* the forward direction of layer k reads the layer input in time order;
* the reverse direction reads the same input flipped in time, and its output is flipped *back*,
  so the layer output at step t is ``[forward_t ; reverse_t]`` (width ``2 * H_out``);
* that time-aligned concatenation is the input of *both* directions of layer k + 1;
* ``h_0`` / ``h_n`` (and LSTM ``c_0`` / ``c_n``) hold one state per layer and direction, at index
  ``layer * 2 + direction`` (forward = 0, reverse = 1).

Below, 4-layer stacks are rebuilt from single-layer modules holding copies of their weights and run by
hand. Skipping the flip back (the mistake in the forum thread "Hidden sizes in hidden layers of
Bidirectional RNN") keeps layer 1 right but makes layer 2 wrong.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch_split import output_width, run_by_hand, split_stack

SEQ_LEN = 7
BATCH = 3
INPUT_SIZE = 5
HIDDEN_SIZE = 6
PROJ_SIZE = 4
NUM_LAYERS = 4
SEED = 0

CASES = [
    pytest.param("RNN", 0, id="RNN"),
    pytest.param("LSTM", 0, id="LSTM"),
    pytest.param("GRU", 0, id="GRU"),
    pytest.param("LSTM", PROJ_SIZE, id="LSTM-proj_size"),
]
BATCH_FIRST = [
    pytest.param(False, id="time-major"),
    pytest.param(True, id="batch_first"),
]


# --------------------------------------------------------------------------- building blocks


def make_case(kind: str, proj_size: int, batch_first: bool):
    """The stack under test and its random inputs: ``(stack, x, h0, c0)``; ``c0`` is None unless LSTM.

    ``h0`` is ``(2 * num_layers, N, H_out)`` and ``c0`` is ``(2 * num_layers, N, H)`` whether or not
    ``batch_first`` is set; only ``x`` changes layout.
    """
    torch.manual_seed(SEED)
    extra = {"proj_size": proj_size} if proj_size else {}
    stack = getattr(nn, kind)(
        INPUT_SIZE,
        HIDDEN_SIZE,
        NUM_LAYERS,
        bidirectional=True,
        batch_first=batch_first,
        dtype=torch.float64,
        **extra,
    )
    x_shape = (BATCH, SEQ_LEN, INPUT_SIZE) if batch_first else (SEQ_LEN, BATCH, INPUT_SIZE)
    x = torch.randn(x_shape, dtype=torch.float64)
    h0 = torch.randn(2 * NUM_LAYERS, BATCH, output_width(stack), dtype=torch.float64)
    c0 = torch.randn(2 * NUM_LAYERS, BATCH, HIDDEN_SIZE, dtype=torch.float64) if kind == "LSTM" else None
    return stack, x, h0, c0


def split_initial_states(h0: torch.Tensor, c0: torch.Tensor | None = None) -> list[tuple]:
    """Per layer, the ``(forward, reverse)`` initial states: ``h0`` (and ``c0``) at ``layer * 2 + direction``.

    Each state is shaped ``(1, N, .)`` as a single-layer module takes it: ``h`` for RNN and GRU,
    ``(h, c)`` for LSTM.
    """
    num_layers = h0.shape[0] // 2
    states = []
    for layer in range(num_layers):
        pair = []
        for direction in (0, 1):
            index = layer * 2 + direction
            h = h0[index : index + 1]
            pair.append(h if c0 is None else (h, c0[index : index + 1]))
        states.append(tuple(pair))
    return states


def stack_final_states(final_states: list):
    """Concatenate per-layer, per-direction final states as torch returns them: ``h_n`` or ``(h_n, c_n)``."""
    if isinstance(final_states[0], tuple):
        h_n = torch.cat([h for h, c in final_states])
        c_n = torch.cat([c for h, c in final_states])
        return h_n, c_n
    return torch.cat(final_states)


def hidden_part(state):
    """``h_n`` out of ``h_n`` (RNN, GRU) or ``(h_n, c_n)`` (LSTM)."""
    return state[0] if isinstance(state, tuple) else state


def assert_not_close(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """The opposite of ``assert_close``, with a wide margin: the tensors differ by far more than rounding."""
    difference = (actual - expected).abs().max().item()
    assert difference > 1e-3, f"expected a clear difference, got max |difference| = {difference:.3g}"


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("batch_first", BATCH_FIRST)
@pytest.mark.parametrize("kind, proj_size", CASES)
def test_stack_equals_single_layer_modules_run_by_hand(kind, proj_size, batch_first):
    stack, x, h0, c0 = make_case(kind, proj_size, batch_first)
    initial = h0 if c0 is None else (h0, c0)

    expected_output, expected_final = stack(x, initial)
    output, final_states = run_by_hand(split_stack(stack), x, split_initial_states(h0, c0))

    torch.testing.assert_close(output, expected_output)
    torch.testing.assert_close(stack_final_states(final_states), expected_final)  # h_n, and c_n for LSTM


@pytest.mark.parametrize("batch_first", BATCH_FIRST)
@pytest.mark.parametrize("kind, proj_size", CASES)
def test_layer_two_is_wrong_without_flipping_the_reverse_output_back(kind, proj_size, batch_first):
    stack, x, h0, c0 = make_case(kind, proj_size, batch_first)
    initial = h0 if c0 is None else (h0, c0)

    expected_output, expected_final = stack(x, initial)
    output, final_states = run_by_hand(split_stack(stack), x, split_initial_states(h0, c0), flip_back=False)
    h_n = hidden_part(stack_final_states(final_states))
    expected_h_n = hidden_part(expected_final)

    # Layer 1 (indices 0, 1) reads the stack's input, so the weights were copied right ...
    torch.testing.assert_close(h_n[0:2], expected_h_n[0:2])
    # ... but layer 2 (indices 2, 3) reads a misaligned concatenation: both of its directions go wrong,
    assert_not_close(h_n[2], expected_h_n[2])
    assert_not_close(h_n[3], expected_h_n[3])
    # and so does everything built on it.
    assert_not_close(output, expected_output)


def layer_major(forward: torch.Tensor, reverse: torch.Tensor) -> torch.Tensor:
    """Interleave per-layer states the way torch reads them: ``h0[layer * 2 + direction]``."""
    num_layers = forward.shape[0]
    h0 = torch.empty(2 * num_layers, *forward.shape[1:], dtype=forward.dtype)
    for layer in range(num_layers):
        h0[layer * 2 + 0] = forward[layer]
        h0[layer * 2 + 1] = reverse[layer]
    return h0


def direction_major(forward: torch.Tensor, reverse: torch.Tensor) -> torch.Tensor:
    """The other plausible guess, all forward states first: ``h0[direction * num_layers + layer]``."""
    num_layers = forward.shape[0]
    h0 = torch.empty(2 * num_layers, *forward.shape[1:], dtype=forward.dtype)
    for layer in range(num_layers):
        h0[0 * num_layers + layer] = forward[layer]
        h0[1 * num_layers + layer] = reverse[layer]
    return h0


@pytest.mark.parametrize("batch_first", BATCH_FIRST)
@pytest.mark.parametrize("kind, proj_size", CASES)
def test_h0_index_is_layer_times_two_plus_direction(kind, proj_size, batch_first):
    stack, x, _, _ = make_case(kind, proj_size, batch_first)
    # One initial state per layer and direction, kept apart: (num_layers, N, width) each.
    forward_h = torch.randn(NUM_LAYERS, BATCH, output_width(stack), dtype=torch.float64)
    reverse_h = torch.randn(NUM_LAYERS, BATCH, output_width(stack), dtype=torch.float64)
    forward_c = torch.randn(NUM_LAYERS, BATCH, HIDDEN_SIZE, dtype=torch.float64)
    reverse_c = torch.randn(NUM_LAYERS, BATCH, HIDDEN_SIZE, dtype=torch.float64)
    is_lstm = isinstance(stack, nn.LSTM)

    # The hand run gives layer k's forward module forward_h[k], its reverse module reverse_h[k]:
    # no index arithmetic involved.
    initial_states = []
    for layer in range(NUM_LAYERS):
        forward_state = forward_h[layer : layer + 1]
        reverse_state = reverse_h[layer : layer + 1]
        if is_lstm:
            forward_state = (forward_state, forward_c[layer : layer + 1])
            reverse_state = (reverse_state, reverse_c[layer : layer + 1])
        initial_states.append((forward_state, reverse_state))
    expected_output, _ = run_by_hand(split_stack(stack), x, initial_states)

    def stack_output(interleave):
        h0 = interleave(forward_h, reverse_h)
        initial = (h0, interleave(forward_c, reverse_c)) if is_lstm else h0
        output, _ = stack(x, initial)
        return output

    torch.testing.assert_close(stack_output(layer_major), expected_output)
    assert_not_close(stack_output(direction_major), expected_output)
