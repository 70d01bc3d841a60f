"""Wirings: how the layers and directions of a recurrent stack feed each other.

A wiring fixes the directions each layer runs in and the width of the input
that every layer above the first reads. It is independent of the cell and of
the framework convention.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Wiring", "UNIDIRECTIONAL", "DEEP_BIDIRECTIONAL"]


@dataclass(frozen=True)
class Wiring:
    """How layers and directions are connected.

    Attributes
    ----------
    name : str
    directions : tuple of str
        Directions of every layer, ``("forward",)`` or ``("forward", "reverse")``.
    upper_reads : int
        How many directions' outputs of layer l - 1 every direction of layer l >= 1
        reads, concatenated at the same time step.
    source : str
        Paper or framework file describing the wiring.
    """

    name: str
    directions: tuple[str, ...]
    upper_reads: int
    source: str

    @property
    def num_directions(self) -> int:
        """D: 1 or 2."""
        return len(self.directions)

    def layer_input_size(self, layer, input_size, output_size):
        """Width of the input of ``layer`` (an int, or a symbol standing for any layer >= 1).

        Parameters
        ----------
        layer : int or sympy.Symbol
        input_size : int or sympy.Expr
            Width of the stack's input (I).
        output_size : int or sympy.Expr
            Width of one direction's output (H_out: P if projected, else H).
        """
        return input_size if layer == 0 else self.upper_reads * output_size


#: One direction; layer l >= 1 reads the H_out-wide output of layer l - 1.
UNIDIRECTIONAL = Wiring("unidirectional", ("forward",), 1, "torch/nn/modules/rnn.py (RNNBase.__init__)")

#: Deep bidirectional RNN: both directions of layer l >= 1 read the time-aligned concatenation
#: [forward; reverse] of layer l - 1, width 2·H_out (Graves, Jaitly & Mohamed 2013, arXiv:1303.5778;
#: PyTorch ``RNNBase.__init__``, ``aten/src/ATen/native/RNN.cpp``).
DEEP_BIDIRECTIONAL = Wiring(
    "deep bidirectional",
    ("forward", "reverse"),
    2,
    "Graves, Jaitly & Mohamed 2013 (arXiv:1303.5778); torch/nn/modules/rnn.py; aten/src/ATen/native/RNN.cpp",
)
