"""Wirings: how the layers and directions of a recurrent stack feed each other.

A wiring fixes the directions each layer runs in, what every layer above the
first reads (and so its input width), which parameters the directions share,
and any extra inputs (class labels). It is independent of the cell and of the
framework convention: a :class:`derive.engine.stack.Stack` combines one cell, one
convention and one wiring, and the counts come from the cell's equations built
with the input width the wiring gives each layer and direction.

Wirings
-------
* :data:`UNIDIRECTIONAL` — one direction.
* :data:`DEEP_BIDIRECTIONAL` — PyTorch, cuDNN: both directions of layer l >= 1 read [fwd ; bwd] of l - 1.
* :data:`SIMPLE_CONCAT` — two independent stacks joined only at the top (AllenNLP, TF1).
* :data:`SKIP_CONNECTIONS` — one direction; layer l >= 1 reads the stack's input beside the layer below
  (Haiku ``hk.deep_rnn_with_skip_connections``).
* :func:`keras_bidirectional` — one Keras ``Bidirectional`` per layer; ``merge_mode`` sets the next width.
* :data:`SHARED_INPUT_WEIGHTS` — deep bidirectional with the input weights tied across directions
  (Deep Speech 2).
* :func:`modified_brnn` — Schuster & Paliwal's modified BRNN for dependent outputs (class-label inputs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._sympy import sympy
from . import labels as _labels
from .labels import PLACEMENTS, POSTERIORS, Labels
from .symbols import Size

if TYPE_CHECKING:
    from .conventions import Tensor

__all__ = [
    "Wiring",
    "Labels",
    "MERGES",
    "merged_width",
    "PLACEMENTS",
    "POSTERIORS",
    "UNIDIRECTIONAL",
    "DEEP_BIDIRECTIONAL",
    "SIMPLE_CONCAT",
    "SKIP_CONNECTIONS",
    "SHARED_INPUT_WEIGHTS",
    "KERAS_MERGE_MODES",
    "keras_bidirectional",
    "modified_brnn",
    "K",
]


if TYPE_CHECKING:
    #: K, the number of classes of a modified BRNN's one-hot label input (:data:`derive.engine.labels.K`).
    K: sympy.Symbol


def __getattr__(name: str) -> Any:
    """:data:`K` (:data:`derive.engine.labels.K`), made (SymPy imported) on first use."""
    if name == "K":
        return _labels.K
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: How the directions' outputs of layer l - 1 are combined into what layer l reads.
#: ``"concat"``: every direction reads [fwd ; bwd] (D·H_out wide); ``"separate"``: each direction
#: reads only its own direction below (H_out), the directions are joined (concatenated) at the top
#: only; ``"sum"``, ``"mul"``, ``"ave"``: element-wise merge, H_out wide (Keras ``merge_mode``).
MERGES = ("concat", "separate", "sum", "mul", "ave")


def merged_width(merge: str, widths: tuple[Size, ...]) -> Size:
    """Width of the directions' outputs once merged: the one place the merge rule is written.

    ``"concat"`` (and ``"separate"``, whose outputs are read side by side) puts them side by side:
    the sum of the widths; ``"sum"``, ``"mul"`` and ``"ave"`` combine them element by element: the
    common width (equal widths are the caller's to check; the first is returned).

    Parameters
    ----------
    merge : str
        One of :data:`MERGES`.
    widths : tuple of int or sympy.Expr
        Each direction's output width, in features.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Unknown ``merge`` or no widths.

    Examples
    --------
    >>> merged_width("concat", (128, 64)), merged_width("ave", (128, 128))
    (192, 128)
    """
    if merge not in MERGES or not widths:
        raise ValueError(f"merge must be one of {MERGES} with at least one width, got {merge!r}, {widths!r}")
    if merge in ("sum", "mul", "ave"):
        return widths[0]
    total = widths[0]
    for width in widths[1:]:
        total = total + width
    return total


_ROLES = {("weight", "ih"), ("weight", "hh"), ("weight", "hr"), ("bias", "ih"), ("bias", "hh")}


@dataclass(frozen=True)
class Wiring:
    """How layers and directions are connected.

    Attributes
    ----------
    name : str
    directions : tuple of str
        Directions of every layer, ``("forward",)`` or ``("forward", "reverse")``.
    upper_reads : int
        How many directions' widths every direction of layer l >= 1 reads: D for ``merge="concat"``,
        1 otherwise (checked).
    source : str
        Paper or framework file describing the wiring.
    merge : {"concat", "separate", "sum", "mul", "ave"}, default "concat"
        How the directions' outputs of a layer are combined for the layer above (see :data:`MERGES`).
    shared : tuple of (kind, group), default ()
        Parameter roles stored once for all directions of a layer (tied), e.g.
        ``(("weight", "ih"),)``: the input weights. A tied tensor is counted once.
    labels : Labels or None, default None
        Class-label inputs (modified BRNN).
    skip_inputs : bool, default False
        Layer l >= 1 also reads the stack's input: [x_t; h^{l-1}_t], I + H_out wide (one
        direction only). The stack's output is then every layer's output concatenated, L·H_out.

    Raises
    ------
    ValueError
        Unknown ``merge``, ``upper_reads`` not matching it, an unknown role in ``shared``, a
        non-bidirectional wiring with ``shared`` or ``labels``, or labels entering the states of a
        wiring that ties the input weights (the tied tensors would differ in width); ``skip_inputs``
        with two directions.
    """

    name: str
    directions: tuple[str, ...]
    upper_reads: int
    source: str
    merge: str = "concat"
    shared: tuple[tuple[str, str], ...] = ()
    labels: Labels | None = None
    skip_inputs: bool = False

    def __post_init__(self) -> None:
        if self.merge not in MERGES:
            raise ValueError(f"merge must be one of {MERGES}, got {self.merge!r}")
        expected = self.num_directions if self.merge == "concat" else 1
        if self.upper_reads != expected:
            raise ValueError(
                f"upper_reads must be {expected} for merge={self.merge!r} with "
                f"{self.num_directions} direction(s), got {self.upper_reads!r}"
            )
        bad = [role for role in self.shared if tuple(role) not in _ROLES]
        if bad:
            raise ValueError(f"shared must hold (kind, group) pairs from {sorted(_ROLES)}, got {bad!r}")
        if self.skip_inputs and self.num_directions != 1:
            raise ValueError("skip_inputs needs one direction")
        if (self.shared or self.labels) and self.num_directions != 2:
            raise ValueError("shared and labels need two directions")
        if self.shared and self.labels and "states" in self.labels.placement:
            raise ValueError(
                "labels entering the states of one direction make its input weights wider "
                "than the other's: they cannot be shared"
            )

    @property
    def num_directions(self) -> int:
        """D: 1 or 2."""
        return len(self.directions)

    def layer_input_size(
        self, layer: int | sympy.Expr, input_size: Size, output_size: Size, direction: int = 0
    ) -> Size:
        """Width of the input of ``layer``, ``direction`` (an int, or a symbol standing for any layer >= 1).

        Parameters
        ----------
        layer : int or sympy.Symbol
        input_size : int or sympy.Expr
            Width of the stack's input (I).
        output_size : int or sympy.Expr
            Width of one direction's output (H_out: P if projected, else H).
        direction : int, default 0
            0 forward, 1 reverse. Only differs with labels entering the states.
        """
        width = input_size if layer == 0 else self.upper_reads * output_size
        if self.skip_inputs and layer != 0:
            width = input_size + width
        if (
            self.labels is not None
            and "states" in self.labels.placement
            and layer == 0
            and direction == self.labels.direction
        ):
            width = width + self.labels.classes
        return width

    def top_size(self, output_size: Size) -> Size:
        """Width of what the last layer hands on (e.g. to an output layer): D·H_out, or H_out
        for an element-wise merge (``sum``, ``mul``, ``ave``).

        Parameters
        ----------
        output_size : int or sympy.Expr
            H_out, the width of one direction's output (P if projected, else H), in features.

        Returns
        -------
        int or sympy.Expr
            Features per time step.

        Raises
        ------
        ValueError
            A wiring with ``skip_inputs``: its output is L·H_out wide, not a per-layer width.
        """
        if self.skip_inputs:
            raise ValueError("a stack with skip connections outputs every layer's output concatenated (L·H_out)")
        merged = merged_width(self.merge, (output_size,) * self.num_directions)
        return sympy.expand(merged) if isinstance(merged, sympy.Expr) else merged

    def output_layer_input_size(self, output_size: Size) -> Size:
        """Width read by an output layer on top: :meth:`top_size`, plus K with labels placed there.

        Parameters
        ----------
        output_size : int or sympy.Expr
            H_out, the width of one direction's output, in features.

        Returns
        -------
        int or sympy.Expr
            Features per time step.
        """
        width = self.top_size(output_size)
        if self.labels is not None and "output" in self.labels.placement:
            width = width + self.labels.classes
        return width

    def reads(self, direction: int) -> tuple[int, ...]:
        """Directions of layer l - 1 whose outputs ``direction`` of layer l >= 1 reads.

        Parameters
        ----------
        direction : int
            0 forward, 1 reverse.

        Returns
        -------
        tuple of int
        """
        if self.merge == "separate":
            return (direction,)
        return tuple(range(self.num_directions))

    def ties(self, tensor: Tensor) -> bool:
        """True if ``tensor`` (a :class:`derive.engine.conventions.Tensor` of a direction > 0) is the
        direction-0 tensor stored once: all its parameters have a role in :attr:`shared`.

        Parameters
        ----------
        tensor : derive.engine.conventions.Tensor

        Returns
        -------
        bool
        """
        return self.shares(tensor.direction, tensor.parameters)

    def shares(self, direction: int | None, parameters: tuple[Any, ...]) -> bool:
        """:meth:`ties` of a tensor of ``direction`` holding ``parameters`` (the one rule).

        Parameters
        ----------
        direction : int or None
        parameters : tuple of derive.cells.Parameter

        Returns
        -------
        bool
        """
        return (
            (direction or 0) > 0
            and bool(parameters)
            and bool(self.shared)
            and all((p.kind, p.group) in self.shared for p in parameters)
        )


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

#: Two independent stacks, one per direction, joined (concatenated) only at the top: layer l >= 1
#: of each direction reads its own direction's H_out-wide output. Exactly twice a unidirectional
#: stack. AllenNLP ``ElmoLstm`` (``allennlp/modules/elmo_lstm.py``); TF1
#: ``tf.compat.v1.nn.bidirectional_dynamic_rnn`` over a ``MultiRNNCell`` (``tensorflow/python/ops/rnn.py``);
#: requested for PyTorch in pytorch/pytorch#4930.
SIMPLE_CONCAT = Wiring(
    "simple concat",
    ("forward", "reverse"),
    1,
    "AllenNLP ElmoLstm (allennlp/modules/elmo_lstm.py); TF1 tf.compat.v1.nn.bidirectional_dynamic_rnn "
    "over MultiRNNCell (tensorflow/python/ops/rnn.py); pytorch/pytorch#4930",
    merge="separate",
)

#: One direction with skip connections: layer l >= 1 reads [x_t; h^{l-1}_t], I + H_out features,
#: and the stack outputs [h^0_t; ...; h^{L-1}_t]. Haiku ``hk.deep_rnn_with_skip_connections``
#: (``haiku/_src/recurrent.py``, ``_DeepRNN.__call__``: the inputs concatenated before the
#: previous core's output for every core after the first, the outputs of all cores concatenated).
SKIP_CONNECTIONS = Wiring(
    "skip connections",
    ("forward",),
    1,
    "haiku/_src/recurrent.py (dm-haiku 0.0.17: deep_rnn_with_skip_connections, _DeepRNN.__call__)",
    skip_inputs=True,
)

#: Deep bidirectional with the input-to-hidden weights of each layer shared by both directions
#: (tied, stored once); each direction keeps its recurrent weights and biases. Deep Speech 2
#: (Amodei et al. 2016, arXiv:1512.02595) as implemented in PaddlePaddle/models#224
#: (``share_rnn_weights``: "Share input-hidden weights across bi-directional RNNs").
SHARED_INPUT_WEIGHTS = Wiring(
    "shared input weights",
    ("forward", "reverse"),
    2,
    "Amodei et al. 2016, Deep Speech 2 (arXiv:1512.02595); PaddlePaddle/models#224 (share_rnn_weights)",
    shared=(("weight", "ih"),),
)

#: Keras ``Bidirectional`` merge modes that feed a next layer (``None`` returns two outputs).
KERAS_MERGE_MODES = ("concat", "sum", "mul", "ave")


def keras_bidirectional(merge_mode: str = "concat") -> Wiring:
    """A stack of Keras ``Bidirectional`` layers, one per recurrent layer.

    Each ``Bidirectional`` holds a forward layer and a backward clone (``go_backwards=True``); its
    ``merge_mode`` adds no weights but sets the width the next layer reads: ``"concat"`` → 2·H
    (the deep bidirectional wiring), ``"sum"``, ``"mul"``, ``"ave"`` → H, with both directions of
    the next layer reading the merged output.

    Parameters
    ----------
    merge_mode : {"concat", "sum", "mul", "ave"}

    Returns
    -------
    Wiring

    Raises
    ------
    ValueError
        Another ``merge_mode`` (``None`` gives two separate outputs: no single next layer).

    Notes
    -----
    Keras also allows a ``backward_layer`` with other ``units``; a wiring has one hidden size, so
    such a layer is the sum of its two one-direction layers (see the Keras adapter).
    Source: ``keras/src/layers/rnn/bidirectional.py`` (Keras 3).
    """
    if merge_mode not in KERAS_MERGE_MODES:
        raise ValueError(f"merge_mode must be one of {KERAS_MERGE_MODES}, got {merge_mode!r}")
    return Wiring(
        f"Keras Bidirectional (merge_mode={merge_mode!r})",
        ("forward", "reverse"),
        2 if merge_mode == "concat" else 1,
        "keras/src/layers/rnn/bidirectional.py (Keras 3)",
        merge=merge_mode,
    )


def modified_brnn(
    classes: Size | None = None, posterior: str = "forward", placement: tuple[str, ...] = ("states",)
) -> Wiring:
    """Schuster & Paliwal's modified BRNN for dependent outputs.

    The basic BRNN's two directions never feed each other; the modified BRNN adds the one-hot
    class label of the neighbouring step on the conditioning side — c_{t-1} for the forward
    posterior Pr(c_t | c_1..c_{t-1}, x_1^T), c_{t+1} for the backward one — as K extra inputs.
    Stacked, the directions stay separate (joined at the top), as in :data:`SIMPLE_CONCAT`: were the
    reverse direction of a layer l >= 1 to read the forward states of layer l - 1 (which at step
    t + 1 have read c_t), the forward posterior would see the label it estimates.

    Parameters
    ----------
    classes : int or sympy.Expr, optional
        K, the number of classes (width of the one-hot label); default the symbol
        :data:`derive.engine.labels.K`.
    posterior : {"forward", "backward"}
    placement : tuple of {"states", "output"}
        ``("states",)``: the label is K extra input columns of layer 0's conditioning direction;
        ``("output",)``: K extra input columns of the output layer; or both.

    Returns
    -------
    Wiring

    Raises
    ------
    ValueError
        Unknown ``posterior`` or ``placement``.

    Source
    ------
    M. Schuster, K. K. Paliwal, "Bidirectional recurrent neural networks", IEEE Trans. Signal
    Processing 45(11):2673-2681, 1997, Part III. The figure of the modified structure was not
    available to us: the placement of the label input is a parameter, not a claim.
    """
    if classes is None:
        classes = _labels.K
    labels = Labels(classes, posterior, tuple(placement))
    where = " and ".join(placement)
    return Wiring(
        f"modified BRNN ({posterior} posterior, labels into {where})",
        ("forward", "reverse"),
        1,
        "Schuster & Paliwal 1997, IEEE Trans. Signal Processing 45(11):2673-2681, Part III",
        merge="separate",
        labels=labels,
    )
