"""A torch bidirectional stack split into single-layer, single-direction modules holding copies of its
weights, and run layer by layer as ATen runs it (``aten/src/ATen/native/RNN.cpp``, ``FullBidirectionalLayer``)
(not a test module)."""

from __future__ import annotations

import torch
from torch import nn


def output_width(module: nn.RNNBase) -> int:
    """H_out, one direction's output width: ``proj_size`` if the LSTM projects, else ``hidden_size``."""
    return module.proj_size or module.hidden_size


def single_layer_like(stack: nn.RNNBase, input_size: int) -> nn.RNNBase:
    """A one-layer, one-direction module of the same class and sizes as ``stack``."""
    extra = {"proj_size": stack.proj_size} if stack.proj_size else {}
    return type(stack)(
        input_size,
        stack.hidden_size,
        num_layers=1,
        batch_first=stack.batch_first,
        dtype=torch.float64,
        **extra,
    )


def split_stack(stack: nn.RNNBase) -> list[tuple[nn.RNNBase, nn.RNNBase]]:
    """Per layer, a ``(forward, reverse)`` pair of single-layer unidirectional modules.

    Each holds a copy of the stack's weights for its layer and direction: the stack's ``weight_ih_l1``
    becomes the forward module's ``weight_ih_l0``, ``weight_ih_l1_reverse`` the reverse module's, and
    likewise ``weight_hh``, ``bias_ih``, ``bias_hh`` and (LSTM with ``proj_size``) ``weight_hr``.
    Layer 0 reads the stack's input; every later layer reads both directions of the layer below,
    so its input width is ``2 * H_out``, in the forward direction *and* in the reverse one.
    """
    stack_weights = dict(stack.named_parameters())
    copied = set()
    layers = []
    for layer in range(stack.num_layers):
        input_size = stack.input_size if layer == 0 else 2 * output_width(stack)
        pair = []
        for suffix in ("", "_reverse"):
            module = single_layer_like(stack, input_size)
            with torch.no_grad():
                for name, weight in module.named_parameters():
                    # e.g. "weight_ih_l0" of layer 1's reverse module <- the stack's "weight_ih_l1_reverse"
                    stack_name = name.removesuffix("_l0") + f"_l{layer}{suffix}"
                    weight.copy_(stack_weights[stack_name])
                    copied.add(stack_name)
            pair.append(module)
        layers.append(tuple(pair))
    assert copied == set(stack_weights), "every weight of the stack went into exactly one small module"
    return layers


def run_by_hand(layers, x: torch.Tensor, initial_states, flip_back: bool = True):
    """Run the split stack layer by layer, as ATen does; return ``(output, final_states)``.

    ``final_states`` lists each layer's forward then reverse final state, i.e. in ``h_n`` order.
    ``flip_back=False`` is the forum user's mistake: the reverse output is concatenated in the
    reversed time order it was computed in, so forward step t is paired with reverse step T-1-t.
    """
    time_dim = 1 if layers[0][0].batch_first else 0
    layer_input = x
    final_states = []
    for (forward, reverse), (forward_state, reverse_state) in zip(layers, initial_states):
        forward_out, forward_final = forward(layer_input, forward_state)
        reverse_out, reverse_final = reverse(torch.flip(layer_input, dims=[time_dim]), reverse_state)
        if flip_back:
            reverse_out = torch.flip(reverse_out, dims=[time_dim])
        # [forward_t ; reverse_t]: what BOTH directions of the next layer read.
        layer_input = torch.cat([forward_out, reverse_out], dim=-1)
        final_states += [forward_final, reverse_final]
    return layer_input, final_states
