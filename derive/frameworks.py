"""``derive.frameworks``: every other framework's recurrent weights, one convention each.

One documented way to ask any framework for a parameter count and a tensor table::

    >>> from derive import frameworks
    >>> frameworks.count("onnx", "LSTM", 32, 128, num_layers=2, bidirectional=True)
    561152
    >>> frameworks.count("flax.linen", "LSTMCell", 32, 128)
    82432
    >>> [tuple(r) for r in frameworks.tensors("onnx", "GRU", 10, 20)]
    [('W', (1, 60, 10), 600, True), ('R', (1, 60, 20), 1200, True), ('B', (1, 120), 120, True)]
    >>> from derive import H, I
    >>> frameworks.count("equinox", "GRUCell", I, H)
    3*H**2 + 3*H*I + 4*H

:data:`FRAMEWORKS` lists what exists (framework key -> :class:`Framework`, each with its cells).
Each framework's layout is one :class:`derive.conventions.Convention` value (a few frameworks lay
out one cell class differently, and have one per such class); the cells are the equations of
:mod:`derive.cells`; a stack of ``num_layers`` layers, ``bidirectional`` or not, is wired as
PyTorch wires it (:data:`derive.wirings.DEEP_BIDIRECTIONAL`: layers >= 1 read both directions of
the layer below). For frameworks whose classes are single cells (Flax, Equinox, TF1 cells), that
stack is the composition each framework documents (``RNN``, ``Bidirectional``,
``Sequential`` for Flax; a list of cells for Equinox; ``MultiRNNCell`` and
``stack_bidirectional_rnn`` for TF1); its tensor names are given in :attr:`Framework.stacking`.

Which frameworks are checked against installed packages by the test suite (:attr:`Framework.packages`)
and which are read from source only (:attr:`Framework.source`) is :attr:`Framework.status`.
"""
from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple

import sympy

from . import validate
from .conventions import Convention, TensorLayout
from .stack import Stack
from .symbols import plain
from .wirings import DEEP_BIDIRECTIONAL, UNIDIRECTIONAL

__all__ = [
    "ONNX",
    "CUDNN",
    "TF_KERAS_CUDNN",
    "TF1",
    "FLAX_LINEN",
    "FLAX_LINEN_CONV",
    "FLAX_NNX",
    "FLAX_NNX_LSTM",
    "EQUINOX",
    "MXNET",
    "PADDLE",
    "CellSpec",
    "Framework",
    "FRAMEWORKS",
    "GENERIC_CELLS",
    "TensorRow",
    "stack",
    "count",
    "tensors",
]


# --------------------------------------------------------------------------- conventions


def _onnx_name(base: str, layer, direction) -> str:
    return base if layer is None else f"node{layer}.{base}"


#: ONNX ``RNN``, ``GRU``, ``LSTM`` (``onnx/defs/rnn/defs.cc``, opset 22; one node = one layer):
#: ``W`` [D, G·H, I], ``R`` [D, G·H, H], optional ``B`` [D, 2·G·H] = [Wb, Rb] (two biases),
#: optional LSTM peepholes ``P`` [D, 3H]. Every input carries the direction axis, D = 1 for
#: ``forward`` and ``reverse``. Gate order: LSTM i, o, f, c; GRU z, r, h (the spec's names).
ONNX = Convention(
    name="ONNX",
    tensors=(
        TensorLayout("W", "weight", ("ih",)),
        TensorLayout("R", "weight", ("hh",)),
        TensorLayout("B", "bias", ("ih", "hh"), join="rows"),
        TensorLayout("P", "peephole", ("c",)),
    ),
    layer_name=_onnx_name,
    source="onnx/defs/rnn/defs.cc (RNN, GRU, LSTM schemas, opset 22)",
    gate_order={"LSTM": ("i", "o", "f", "g"), "GRU": ("z", "r", "n")},
    gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
    direction_axis=True,
)


def _cudnn_name(base: str, layer, direction) -> str:
    return base if layer is None else f"l{layer}{'_reverse' if direction == 1 else ''}.{base}"


#: cuDNN (``cudnnGetRNNWeightParams``; ``aten/src/ATen/native/cudnn/RNN.cpp``): per layer and
#: direction (cuDNN's pseudo-layer) G "linear layers" on the input (IDs 0..G-1) and G on the
#: recurrent state (G..2G-1), each a matrix (H, I_l) or (H, H_out) and, in ``CUDNN_RNN_DOUBLE_BIAS``
#: mode, a bias (H,); an LSTM projection is linear layer 8, a matrix (P, H) without bias. Gate
#: order: LSTM i, f, g, o; GRU r, z, n (PyTorch's, which views cuDNN's buffer).
CUDNN = Convention(
    name="cuDNN",
    tensors=(
        TensorLayout("lin{n}.matrix", "weight", ("ih", "hh"), per_gate=True),
        TensorLayout("lin{n}.bias", "bias", ("ih", "hh"), per_gate=True),
        TensorLayout("lin8.matrix", "weight", ("hr",)),
    ),
    layer_name=_cudnn_name,
    source="aten/src/ATen/native/cudnn/RNN.cpp (_num_linear_layers, get_parameters, "
           "add_projection_weights); cuDNN API cudnnGetRNNWeightParams",
)


def _layer_path(template: str):
    """A ``layer_name`` for cell stacks: ``base`` for a single cell, else ``template`` filled in."""

    def name(base: str, layer, label) -> str:
        return base if layer is None else template.format(layer=layer, label=label, base=base)

    return name


#: tf.keras ``CuDNNLSTM`` / ``CuDNNGRU`` (TF 1.x–2.x, GPU only;
#: ``tensorflow/python/keras/layers/cudnn_recurrent.py``): ``kernel`` (I, G·H),
#: ``recurrent_kernel`` (H, G·H), ``bias`` (2·G·H,) = input biases then recurrent biases — cuDNN's
#: two biases, so twice the bias of ``LSTM``/``GRU(reset_after=False)``. Gate order LSTM i, f, c, o;
#: GRU z, r, h (Keras'); the layer permutes them into cuDNN's order when it calls cuDNN.
TF_KERAS_CUDNN = Convention(
    name="tf.keras CuDNNLSTM / CuDNNGRU",
    tensors=(
        TensorLayout("kernel", "weight", ("ih",), transpose=True),
        TensorLayout("recurrent_kernel", "weight", ("hh",), transpose=True),
        TensorLayout("bias", "bias", ("ih", "hh"), join="rows"),
    ),
    layer_name=_layer_path("layer_{layer}/{label}{base}"),
    source="tensorflow/python/keras/layers/cudnn_recurrent.py (CuDNNGRU.build, CuDNNLSTM.build)",
    gate_order={"GRU": ("z", "r", "n")},
    gate_labels={"LSTM": {"g": "c"}, "GRU": {"n": "h"}},
    direction_names={1: ("",), 2: ("forward_layer/", "backward_layer/")},
)

_LSTM_OR_RNN = ("i", "f", "g", "o", "h")

#: TF1 ``tf.compat.v1.nn.rnn_cell`` (``tensorflow/python/ops/rnn_cell_impl.py``): one weight
#: multiplies the concatenation [x_t; h_{t-1}], so input and recurrent weights are one ``kernel``
#: (I + H_r, G·H), H_r = ``num_proj`` or H, with one ``bias`` (G·H,). ``LSTMCell``: gate order
#: i, j, f, o (j = the candidate, PyTorch's g); ``use_peepholes`` adds ``w_f_diag``, ``w_i_diag``,
#: ``w_o_diag`` (H,); ``num_proj`` adds ``projection/kernel`` (H, P). ``GRUCell``: ``gates/kernel``
#: (I + H, 2H) and ``gates/bias`` (2H,) for r, u; ``candidate/kernel`` (I + H, H) and
#: ``candidate/bias`` (H,), the reset applied to the state before the product.
#: ``BasicRNNCell``: ``kernel`` (I + H, H), ``bias`` (H,).
TF1 = Convention(
    name="TF1 tf.compat.v1.nn.rnn_cell",
    tensors=(
        TensorLayout("kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=_LSTM_OR_RNN),
        TensorLayout("bias", "bias", ("ih",), gates=_LSTM_OR_RNN),
        TensorLayout("w_f_diag", "peephole", ("c",), gates=("f",)),
        TensorLayout("w_i_diag", "peephole", ("c",), gates=("i",)),
        TensorLayout("w_o_diag", "peephole", ("c",), gates=("o",)),
        TensorLayout("projection/kernel", "weight", ("hr",), transpose=True),
        TensorLayout("gates/kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=("r", "z")),
        TensorLayout("gates/bias", "bias", ("ih",), gates=("r", "z")),
        TensorLayout("candidate/kernel", "weight", ("ih", "hh"), transpose=True, join="columns", gates=("n",)),
        TensorLayout("candidate/bias", "bias", ("ih",), gates=("n",)),
    ),
    layer_name=_layer_path("cell_{layer}/{label}{base}"),
    source="tensorflow/python/ops/rnn_cell_impl.py (BasicRNNCell.build, GRUCell.build, LSTMCell.build)",
    biases={"RNN_TANH": "input", "RNN_RELU": "input", "LSTM": "input", "GRU": "input"},
    gate_order={"LSTM": ("i", "g", "f", "o")},
    gate_labels={"LSTM": {"g": "j"}, "GRU": {"z": "u", "n": "c"}},
    direction_names={1: ("",), 2: ("fw/", "bw/")},
)

_LINEN_DIRECTIONS = {1: ("cell",), 2: ("forward_rnn/cell", "backward_rnn/cell")}

#: Flax linen (``flax/linen/recurrent.py``): one ``Dense`` per gate and side, named ``i<gate>``
#: (input) and ``h<gate>`` (hidden), kernels (in, H); ``SimpleCell`` has ``i`` and ``h``. Biases:
#: only where a sum needs one — LSTM on the hidden side (``hi``, ``hf``, ``hg``, ``ho``), GRU
#: ``ir``, ``iz``, ``in`` and ``hn`` (4H), MGU ``if``, ``in`` and, with ``reset_gate``, ``hn``,
#: ``SimpleCell`` ``i``. ``OptimizedLSTMCell`` keeps ``LSTMCell``'s names and shapes.
FLAX_LINEN = Convention(
    name="Flax linen",
    tensors=(
        TensorLayout("i{gate}/kernel", "weight", ("ih",), transpose=True, per_gate=True),
        TensorLayout("i{gate}/bias", "bias", ("ih",), per_gate=True),
        TensorLayout("h{gate}/kernel", "weight", ("hh",), transpose=True, per_gate=True),
        TensorLayout("h{gate}/bias", "bias", ("hh",), per_gate=True),
    ),
    layer_name=_layer_path("layers_{layer}/{label}/{base}"),
    source="flax/linen/recurrent.py (SimpleCell, LSTMCell, OptimizedLSTMCell, GRUCell, MGUCell)",
    biases={"RNN_TANH": "input", "LSTM": "hidden", "GRU": "input", "MGU": "input"},
    gate_labels={"RNN_TANH": {"h": ""}},
    direction_names=_LINEN_DIRECTIONS,
)

#: Flax linen ``ConvLSTMCell`` (``flax/linen/recurrent.py``): two ``Conv`` layers, ``ih`` and
#: ``hh``, kernels (*kernel_size, C, 4F) and (*kernel_size, F, 4F), each with a bias (4F,) — two
#: biases where Keras' ``ConvLSTM*D`` has one. Gate order i, g, f, o.
FLAX_LINEN_CONV = Convention(
    name="Flax linen ConvLSTMCell",
    tensors=(
        TensorLayout("ih/kernel", "weight", ("ih",), transpose=True),
        TensorLayout("ih/bias", "bias", ("ih",)),
        TensorLayout("hh/kernel", "weight", ("hh",), transpose=True),
        TensorLayout("hh/bias", "bias", ("hh",)),
    ),
    layer_name=_layer_path("layers_{layer}/{label}/{base}"),
    source="flax/linen/recurrent.py (ConvLSTMCell)",
    gate_order={"CONVLSTM": ("i", "g", "f", "o")},
    direction_names=_LINEN_DIRECTIONS,
)

#: Flax nnx ``SimpleCell``, ``OptimizedLSTMCell``, ``GRUCell`` (``flax/nnx/nn/recurrent.py``): two
#: ``Linear`` layers, ``dense_i`` (I, G·H) and ``dense_h`` (H, G·H). Biases: ``SimpleCell`` and
#: ``GRUCell`` on ``dense_i`` only — so the GRU has 3H of bias, H fewer than linen's, and no
#: recurrent bias inside the reset product; ``OptimizedLSTMCell`` on ``dense_h``.
FLAX_NNX = Convention(
    name="Flax nnx",
    tensors=(
        TensorLayout("dense_i/kernel", "weight", ("ih",), transpose=True),
        TensorLayout("dense_i/bias", "bias", ("ih",)),
        TensorLayout("dense_h/kernel", "weight", ("hh",), transpose=True),
        TensorLayout("dense_h/bias", "bias", ("hh",)),
    ),
    layer_name=_layer_path("layers/{layer}/{label}/{base}"),
    source="flax/nnx/nn/recurrent.py (SimpleCell, OptimizedLSTMCell, GRUCell)",
    biases={"RNN_TANH": "input", "LSTM": "hidden", "GRU": "input_only"},
    direction_names=_LINEN_DIRECTIONS,
)

#: Flax nnx ``LSTMCell`` (``flax/nnx/nn/recurrent.py``): linen's per-gate layout as attributes
#: ``ii``, ``if_`` (``if`` is a Python keyword), ``ig``, ``io`` (no bias) and ``hi``, ``hf``,
#: ``hg``, ``ho`` (with bias).
FLAX_NNX_LSTM = Convention(
    name="Flax nnx LSTMCell",
    tensors=(
        TensorLayout("ii/kernel", "weight", ("ih",), transpose=True, gates=("i",)),
        TensorLayout("if_/kernel", "weight", ("ih",), transpose=True, gates=("f",)),
        TensorLayout("ig/kernel", "weight", ("ih",), transpose=True, gates=("g",)),
        TensorLayout("io/kernel", "weight", ("ih",), transpose=True, gates=("o",)),
        TensorLayout("h{gate}/kernel", "weight", ("hh",), transpose=True, per_gate=True),
        TensorLayout("h{gate}/bias", "bias", ("hh",), per_gate=True),
    ),
    layer_name=_layer_path("layers/{layer}/{label}/{base}"),
    source="flax/nnx/nn/recurrent.py (LSTMCell)",
    biases={"LSTM": "hidden"},
    direction_names=_LINEN_DIRECTIONS,
)

#: Equinox ``LSTMCell``, ``GRUCell`` (``equinox/nn/_rnn.py``): ``weight_ih`` (G·H, I),
#: ``weight_hh`` (G·H, H), one ``bias`` (G·H,) added to the input side; the GRU adds ``bias_n``
#: (H,), the recurrent bias inside the reset product. Gate order PyTorch's.
EQUINOX = Convention(
    name="Equinox",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias", "bias", ("ih",)),
        TensorLayout("bias_n", "bias", ("hh",)),
    ),
    layer_name=_layer_path("[{layer}]{label}.{base}"),
    source="equinox/nn/_rnn.py (LSTMCell, GRUCell)",
    biases={"LSTM": "input", "GRU": "input"},
    direction_names={1: ("",), 2: ("[0]", "[1]")},
)


def _mxnet_name(base: str, layer, direction) -> str:
    return base if layer is None else f"{'lr'[direction]}{layer}_{base}"


#: MXNet Gluon ``rnn.RNN``, ``rnn.LSTM``, ``rnn.GRU`` (mxnet 1.9.1,
#: ``python/mxnet/gluon/rnn/rnn_layer.py``, ``_RNNLayer.__init__``): per layer and direction
#: (prefix ``l``/``r``) ``i2h_weight`` (G·H, I_l), ``h2h_weight`` (G·H, H_out), ``i2h_bias``,
#: ``h2h_bias`` (G·H,), with ``projection_size`` ``h2r_weight`` (P, H); fused into one flat
#: vector for the kernel (and held as one flat ``rnn_param`` in MXNet 2). PyTorch's total.
MXNET = Convention(
    name="MXNet Gluon",
    tensors=(
        TensorLayout("i2h_weight", "weight", ("ih",)),
        TensorLayout("h2h_weight", "weight", ("hh",)),
        TensorLayout("i2h_bias", "bias", ("ih",)),
        TensorLayout("h2h_bias", "bias", ("hh",)),
        TensorLayout("h2r_weight", "weight", ("hr",)),
    ),
    layer_name=_mxnet_name,
    source="python/mxnet/gluon/rnn/rnn_layer.py (mxnet 1.9.1, _RNNLayer.__init__)",
)

#: PaddlePaddle ``paddle.nn.SimpleRNN``, ``LSTM``, ``GRU`` and their cells
#: (``python/paddle/nn/layer/rnn.py``): PyTorch's tensors per cell, ``weight_ih``, ``weight_hh``,
#: ``bias_ih``, ``bias_hh``, and with ``proj_size`` ``weight_ho`` (H, P) — the transpose of
#: PyTorch's ``weight_hr``. A layer is a list of ``RNN(cell)`` / ``BiRNN(cell_fw, cell_bw)``, so
#: names are ``<layer>.cell.<name>`` or ``<layer>.cell_fw.<name>``. ``bias_ih_attr=False`` does
#: not remove the bias: it is a zero vector with ``stop_gradient=True``, still in ``parameters()``.
PADDLE = Convention(
    name="PaddlePaddle",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_ho", "weight", ("hr",), transpose=True),
    ),
    layer_name=_layer_path("{layer}.{label}.{base}"),
    source="python/paddle/nn/layer/rnn.py (SimpleRNNCell, LSTMCell, GRUCell, RNNBase.__init__)",
    direction_names={1: ("cell",), 2: ("cell_fw", "cell_bw")},
    frozen_bias=True,
)


# --------------------------------------------------------------------------- registry

#: Generic cell names accepted by :func:`count` and :func:`tensors` in place of a class name.
GENERIC_CELLS = ("rnn", "lstm", "gru", "mgu", "convlstm")

_OPTIONS = ("bias", "proj_size", "peepholes", "reset_after", "reset_gate", "kernel_size")


@dataclass(frozen=True)
class CellSpec:
    """One recurrent class (or ONNX operator, or cuDNN mode) of a framework.

    Attributes
    ----------
    name : str
        The framework's own name: ``"LSTMCell"``, ``"LSTM"``, ``"CUDNN_GRU"`` ...
    mode : str
        The cell of :mod:`derive.cells`: ``"RNN_TANH"``, ``"LSTM"``, ``"GRU"``, ``"MGU"``, ``"CONVLSTM"``.
    generic : str
        One of :data:`GENERIC_CELLS`.
    convention : Convention
        How the framework lays this class's parameters out.
    kind : {"layer", "node", "cell"}
        ``"layer"``: one object spans all layers and directions, its tensor names always carry
        the layer (MXNet, Paddle layers, cuDNN); ``"node"``: one ONNX node per layer, names
        without a layer for one node; ``"cell"``: one time step of one layer and direction,
        composed into stacks by the user (names without a layer for one cell).
    options : mapping of option -> tuple of allowed values
        For ``bias``, ``peepholes``, ``reset_after``, ``reset_gate``: the values the class
        accepts, its default first. ``proj_size``: present if a projection is supported (its
        value is then any size, below ``hidden_size`` if ``proj_below_hidden``). ``kernel_size``:
        present (and required) for the ConvLSTM.
    proj_below_hidden : bool
        Whether the class refuses ``proj_size >= hidden_size``.
    note : str
        What is particular about the class (shown on the site).
    """

    name: str
    mode: str
    generic: str
    convention: Convention
    kind: str
    options: Mapping[str, tuple] = field(default_factory=dict)
    proj_below_hidden: bool = True
    note: str = ""


@dataclass(frozen=True)
class Framework:
    """A framework: its recurrent classes, where its convention comes from, how it was checked.

    Attributes
    ----------
    key : str
        The key of :data:`FRAMEWORKS` (``"onnx"``, ``"flax.linen"`` ...).
    title : str
        Shown on the site.
    cells : tuple of CellSpec
    packages : tuple of str
        The PyPI distributions whose installed versions the test suite checks every number
        against (ONNX: ``onnx``, whose checker and reference evaluator run the nodes, and
        ``onnxruntime``, which refuses any input of the wrong shape); empty if the framework cannot
        be installed here and its convention is read from ``source`` only.
    source : str
        The framework files the convention is read from.
    stacking : str
        How ``num_layers`` and ``bidirectional`` map onto the framework, and the names of a
        stack's tensors.
    summary : str
    """

    key: str
    title: str
    cells: tuple[CellSpec, ...]
    packages: tuple[str, ...]
    source: str
    stacking: str
    summary: str

    @property
    def versions(self) -> dict[str, str | None]:
        """Installed version of each of :attr:`packages` (None if not installed)."""
        out = {}
        for package in self.packages:
            try:
                out[package] = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                out[package] = None
        return out

    @property
    def checked(self) -> bool:
        """Whether the test suite holds this framework against installed packages."""
        return bool(self.packages)

    @property
    def status(self) -> str:
        """``"checked against <package> <version> [and ...]"`` or ``"from source: <files>"``."""
        if not self.packages:
            return f"from source: {self.source}"
        return "checked against " + " and ".join(f"{p} {v or '(not installed)'}" for p, v in self.versions.items())

    def cell(self, name: str) -> CellSpec:
        """The class named ``name``, or the class for a generic cell name (:data:`GENERIC_CELLS`).

        Parameters
        ----------
        name : str
            A class name of :attr:`cells` (``"LSTMCell"``) or a generic cell name (``"lstm"``).

        Returns
        -------
        CellSpec

        Raises
        ------
        ValueError
            ``name`` is neither one of the framework's classes nor a generic cell it has.
        """
        for spec in self.cells:
            if spec.name == name:
                return spec
        for spec in self.cells:
            if spec.generic == name:
                return spec
        names = [spec.name for spec in self.cells]
        generics = sorted({spec.generic for spec in self.cells}, key=GENERIC_CELLS.index)
        raise ValueError(f"cell must be one of {names} (or a generic name {generics}) for framework "
                         f"{self.key!r}, got {name!r}")


_YES_NO = (True, False)
_ON_OFF = (False, True)

_ONNX_STACKING = (
    "One node is one layer; a stack is a chain of nodes, node k >= 1 reading the output Y "
    "[T, D, N, H] of node k - 1 reshaped to [T, N, D·H] (as exporters do), tensors named "
    "`node<k>.W` etc. `bidirectional` is the attribute `direction=\"bidirectional\"` (D = 2); "
    "`forward` and `reverse` both have D = 1."
)

_PADDLE_LAYER_NOTE = (
    "Two things to know about paddlepaddle 3.3: (1) with `bias_ih_attr=False` and more than one layer or "
    "direction (and no projection) the layer fails to build (`IndexError` in `RNNBase.flatten_parameters`); "
    "the counts here are those of the same stack built from the cells (`RNN(cell)`, `BiRNN(cell_fw, cell_bw)` "
    "in a `LayerList`), which the tests build. (2) `named_parameters()` also lists PyTorch-style aliases "
    "(`weight_ih_l0`, ...) assigned to the parameters by position, four per cell: with `proj_size` (five per "
    "cell) or frozen biases they name the wrong tensors; the names here are the cells' own (`state_dict()`)."
)

#: Every framework this module knows, by key: ``"onnx"``, ``"cudnn"``, ``"tf.keras"``, ``"tf1"``,
#: ``"flax.linen"``, ``"flax.nnx"``, ``"equinox"``, ``"mxnet"``, ``"paddle"`` (PyTorch is
#: :mod:`derive.torch`, Keras 3 :mod:`derive.keras`).
FRAMEWORKS: dict[str, Framework] = {
    f.key: f
    for f in (
        Framework(
            "onnx", "ONNX",
            (
                CellSpec("RNN", "RNN_TANH", "rnn", ONNX, "node", {"bias": _YES_NO},
                         note="`activations` (Tanh, Relu, ...) do not change the weights."),
                CellSpec("LSTM", "LSTM", "lstm", ONNX, "node", {"bias": _YES_NO, "peepholes": _ON_OFF},
                         note="`B` and `P` are optional inputs (zero if absent); `input_forget` couples "
                              "the gates without changing the weights."),
                CellSpec("GRU", "GRU", "gru", ONNX, "node", {"bias": _YES_NO, "reset_after": (False, True)},
                         note="`reset_after` is `linear_before_reset`: 0 (the default) applies the reset "
                              "gate before the recurrent product (Cho et al.), 1 after it (PyTorch, cuDNN); "
                              "`B` holds 6H either way."),
            ),
            ("onnx", "onnxruntime"), ONNX.source, _ONNX_STACKING,
            "The ONNX operators `RNN`, `GRU` and `LSTM`: each computes one layer, forward, reverse or "
            "bidirectional, from weight inputs that carry a leading direction axis.",
        ),
        Framework(
            "cudnn", "cuDNN",
            (
                CellSpec("CUDNN_RNN_TANH", "RNN_TANH", "rnn", CUDNN, "layer", {"bias": _YES_NO}),
                CellSpec("CUDNN_LSTM", "LSTM", "lstm", CUDNN, "layer", {"bias": _YES_NO, "proj_size": ()},
                         note="A projection (`projSize` < `hiddenSize`) adds linear layer 8, a matrix "
                              "without bias."),
                CellSpec("CUDNN_GRU", "GRU", "gru", CUDNN, "layer", {"bias": _YES_NO}),
            ),
            (), CUDNN.source,
            "One RNN descriptor spans all layers and directions; each (layer, direction) is a "
            "pseudo-layer, here named `l<k>` or `l<k>_reverse`, and `lin<n>` is linear layer ID n. "
            "`bias=True` is `CUDNN_RNN_DOUBLE_BIAS`, `bias=False` `CUDNN_RNN_NO_BIAS` (the single-bias "
            "modes `CUDNN_RNN_SINGLE_INP_BIAS` / `SINGLE_REC_BIAS` are not modelled).",
            "NVIDIA's RNN kernels, which PyTorch (and tf.keras' CuDNN layers, MXNet, Paddle on GPU) call: "
            "every gate has a linear layer on the input and one on the recurrent state, each with its own bias.",
        ),
        Framework(
            "tf.keras", "tf.keras CuDNNLSTM / CuDNNGRU",
            (
                CellSpec("CuDNNLSTM", "LSTM", "lstm", TF_KERAS_CUDNN, "cell"),
                CellSpec("CuDNNGRU", "GRU", "gru", TF_KERAS_CUDNN, "cell",
                         note="cuDNN's GRU: the reset gate multiplies the recurrent product and its bias."),
            ),
            (), TF_KERAS_CUDNN.source,
            "One layer per object; a stack is a `Sequential` of them (tensors `layer_<k>/kernel`), "
            "`Bidirectional` wraps one (`layer_<k>/forward_layer/kernel`, `.../backward_layer/...`).",
            "The GPU-only Keras layers of TensorFlow 1.x and 2.x (`tf.compat.v1.keras.layers`) that call "
            "cuDNN directly: Keras' names and shapes, cuDNN's two biases.",
        ),
        Framework(
            "tf1", "TF1 tf.compat.v1.nn.rnn_cell",
            (
                CellSpec("BasicRNNCell", "RNN_TANH", "rnn", TF1, "cell"),
                CellSpec("LSTMCell", "LSTM", "lstm", TF1, "cell", {"proj_size": (), "peepholes": _ON_OFF},
                         proj_below_hidden=False,
                         note="`num_proj` is `proj_size` (any size: TF1 does not require it below "
                              "`num_units`); `use_peepholes` adds the diagonal weights; `forget_bias`, "
                              "`cell_clip` and `proj_clip` are constants, not parameters."),
                CellSpec("GRUCell", "GRU", "gru", TF1, "cell", {"reset_after": (False,)},
                         note="The reset gate multiplies the state before the product (`r * state`)."),
            ),
            (), TF1.source,
            "`MultiRNNCell([cell_0, cell_1, ...])` stacks cells (tensors `cell_<k>/kernel`; TF prefixes "
            "the scopes `multi_rnn_cell/` and the cell's own, e.g. `lstm_cell/`, left out here); "
            "`stack_bidirectional_rnn` gives the deep bidirectional stack (`cell_<k>/fw/kernel`, "
            "`cell_<k>/bw/kernel`).",
            "TensorFlow 1's RNN cells, still in TF 2 as `tf.compat.v1.nn.rnn_cell`: one weight matrix "
            "multiplies [x_t; h_{t-1}] concatenated, so there is one kernel per layer and direction.",
        ),
        Framework(
            "flax.linen", "Flax linen",
            (
                CellSpec("SimpleCell", "RNN_TANH", "rnn", FLAX_LINEN, "cell"),
                CellSpec("LSTMCell", "LSTM", "lstm", FLAX_LINEN, "cell"),
                CellSpec("OptimizedLSTMCell", "LSTM", "lstm", FLAX_LINEN, "cell",
                         note="Same parameters and names as `LSTMCell`; the four products of each side "
                              "are computed as one."),
                CellSpec("GRUCell", "GRU", "gru", FLAX_LINEN, "cell"),
                CellSpec("MGUCell", "MGU", "mgu", FLAX_LINEN, "cell", {"reset_gate": _YES_NO},
                         note="`reset_gate=False` drops the forget gate from the candidate, and with it "
                              "the bias of `hn`."),
                CellSpec("ConvLSTMCell", "CONVLSTM", "convlstm", FLAX_LINEN_CONV, "cell",
                         {"bias": _YES_NO, "kernel_size": ()},
                         note="Here `input_size` is the input channels C and `hidden_size` the `features` F."),
            ),
            ("flax", "jax"), FLAX_LINEN.source,
            "`flax.linen.RNN` scans a cell over time (its parameters under `cell/`), "
            "`flax.linen.Bidirectional` runs two of them (`forward_rnn/cell/`, `backward_rnn/cell/`) and "
            "concatenates their outputs, and `flax.linen.Sequential` stacks layers (`layers_<k>/`): a "
            "stack's tensors are `layers_<k>/cell/hi/kernel` or `layers_<k>/forward_rnn/cell/hi/kernel`. "
            "A single cell's are `hi/kernel`.",
            "Flax's classic module API: every gate has its own `Dense` on each side, and biases only "
            "where a sum needs one.",
        ),
        Framework(
            "flax.nnx", "Flax nnx",
            (
                CellSpec("SimpleCell", "RNN_TANH", "rnn", FLAX_NNX, "cell"),
                CellSpec("LSTMCell", "LSTM", "lstm", FLAX_NNX_LSTM, "cell"),
                CellSpec("OptimizedLSTMCell", "LSTM", "lstm", FLAX_NNX, "cell",
                         note="Unlike linen's `OptimizedLSTMCell`, two stacked `Linear` layers instead of "
                              "`LSTMCell`'s eight: the same count, other names and shapes."),
                CellSpec("GRUCell", "GRU", "gru", FLAX_NNX, "cell",
                         note="No recurrent bias at all: H fewer than linen's `GRUCell`."),
            ),
            ("flax", "jax"), FLAX_NNX.source,
            "`flax.nnx.RNN`, `flax.nnx.Bidirectional` and `flax.nnx.Sequential` as in linen; state paths "
            "joined with `/`: `layers/<k>/cell/dense_i/kernel`, `layers/<k>/forward_rnn/cell/dense_i/kernel`.",
            "Flax's newer object API: cells hold `nnx.Linear` layers as attributes.",
        ),
        Framework(
            "equinox", "Equinox",
            (
                CellSpec("LSTMCell", "LSTM", "lstm", EQUINOX, "cell", {"bias": _YES_NO}),
                CellSpec("GRUCell", "GRU", "gru", EQUINOX, "cell", {"bias": _YES_NO},
                         note="`bias` (3H) for the input side and `bias_n` (H) inside the reset product: 4H."),
            ),
            ("equinox", "jax"), EQUINOX.source,
            "Equinox has cells only; a stack is a list of cells, one per layer (`[k].weight_ih`), or of "
            "[forward, backward] pairs (`[k][0].weight_ih`, `[k][1].weight_ih`), as "
            "`jax.tree_util.keystr` names the leaves of such a list.",
            "JAX cells as PyTorch writes them, with one merged bias.",
        ),
        Framework(
            "mxnet", "MXNet Gluon",
            (
                CellSpec("RNN", "RNN_TANH", "rnn", MXNET, "layer"),
                CellSpec("LSTM", "LSTM", "lstm", MXNET, "layer", {"proj_size": ()},
                         note="`projection_size` is `proj_size`."),
                CellSpec("GRU", "GRU", "gru", MXNET, "layer"),
            ),
            (), MXNET.source,
            "One layer object spans all layers and directions (`num_layers`, `bidirectional`); forward "
            "tensors are prefixed `l<k>_`, reverse ones `r<k>_` (Gluon adds the block's prefix, e.g. "
            "`lstm0_`, left out here).",
            "Apache MXNet's Gluon layers (retired; 1.9.1 is the last release): PyTorch's tensors under "
            "other names, always with both biases.",
        ),
        Framework(
            "paddle", "PaddlePaddle",
            (
                CellSpec("SimpleRNN", "RNN_TANH", "rnn", PADDLE, "layer", {"bias": _YES_NO}, note=_PADDLE_LAYER_NOTE),
                CellSpec("LSTM", "LSTM", "lstm", PADDLE, "layer", {"bias": _YES_NO, "proj_size": ()},
                         note=_PADDLE_LAYER_NOTE + " With `proj_size`, `weight_ho` (H, P) is the transpose of "
                                                   "PyTorch's `weight_hr_l<k>` (P, H)."),
                CellSpec("GRU", "GRU", "gru", PADDLE, "layer", {"bias": _YES_NO}, note=_PADDLE_LAYER_NOTE),
                CellSpec("SimpleRNNCell", "RNN_TANH", "rnn", PADDLE, "cell", {"bias": _YES_NO}),
                CellSpec("LSTMCell", "LSTM", "lstm", PADDLE, "cell", {"bias": _YES_NO, "proj_size": ()}),
                CellSpec("GRUCell", "GRU", "gru", PADDLE, "cell", {"bias": _YES_NO}),
            ),
            ("paddlepaddle",), PADDLE.source,
            "A layer (`SimpleRNN`, `LSTM`, `GRU`) is a list of `RNN(cell)` or `BiRNN(cell_fw, cell_bw)`; "
            "its tensors are `<k>.cell.weight_ih` or `<k>.cell_fw.weight_ih` (the names in "
            "`state_dict()`). `bias=False` is `bias_ih_attr=False, bias_hh_attr=False`.",
            "PaddlePaddle's `paddle.nn` RNN layers and cells: PyTorch's tensors per cell, a transposed "
            "projection, and disabled biases kept as frozen zeros.",
        ),
    )
}


# --------------------------------------------------------------------------- API


class TensorRow(NamedTuple):
    """One row of a tensor table: the framework's name, shape, size and whether it is trained."""

    name: str
    shape: tuple
    count: object
    trainable: bool


def _allowed(spec: CellSpec, framework: Framework, option: str, value, default) -> None:
    allowed = spec.options.get(option, (default,))
    if value not in allowed:
        raise ValueError(f"{option} must be one of {list(allowed)} for {framework.key} {spec.name}, got {value!r}")


def stack(framework: str, cell: str, input_size, hidden_size, *, num_layers=1, bidirectional: bool = False,
          bias: bool = True, proj_size=0, peepholes: bool = False, reset_after: bool | None = None,
          reset_gate: bool = True, kernel_size=None) -> Stack:
    """The :class:`derive.stack.Stack` of ``cell`` in ``framework``: tensors, counts, cells.

    Parameters
    ----------
    framework : str
        A key of :data:`FRAMEWORKS`: ``"onnx"``, ``"cudnn"``, ``"tf.keras"``, ``"tf1"``,
        ``"flax.linen"``, ``"flax.nnx"``, ``"equinox"``, ``"mxnet"``, ``"paddle"``.
    cell : str
        The framework's class (``"LSTMCell"``, ``"GRU"``, ``"CUDNN_LSTM"`` ...) or a generic cell
        name (:data:`GENERIC_CELLS`: ``"rnn"``, ``"lstm"``, ``"gru"``, ``"mgu"``, ``"convlstm"``)
        for the framework's class of that cell.
    input_size, hidden_size : int or sympy.Expr
        I (features per time step; ConvLSTM: input channels C) and H (ConvLSTM: features F).
    num_layers : int or sympy.Expr, default 1
        L; layers >= 1 read the output of the layer below (both directions of it).
    bidirectional : bool, default False
        D = 2 (deep bidirectional wiring).
    bias : bool, default True
        False removes the biases (ONNX: no ``B``; Paddle keeps them frozen, see :data:`PADDLE`);
        only for classes that can.
    proj_size : int or sympy.Expr, default 0
        P, an LSTM projection, where the class has one (cuDNN, TF1 ``num_proj``, MXNet
        ``projection_size``, Paddle).
    peepholes : bool, default False
        LSTM peepholes (ONNX ``P``, TF1 ``use_peepholes``).
    reset_after : bool or None, default None
        GRU: where the reset gate is applied (ONNX ``linear_before_reset``); None for the class's
        default, the only value most classes allow.
    reset_gate : bool, default True
        Flax ``MGUCell``'s option.
    kernel_size : tuple of int or sympy.Expr
        ConvLSTM only (required there): the kernel's spatial size.

    Returns
    -------
    derive.stack.Stack

    Raises
    ------
    ValueError
        Unknown ``framework`` or ``cell``; an option the class does not have or a value it does not
        accept (the message names the argument and the allowed values); a size <= 0; ``proj_size``
        >= ``hidden_size`` where the class refuses it.
    TypeError
        A size that is not an integer; a flag that is not a bool.
    """
    if not isinstance(framework, str) or framework not in FRAMEWORKS:
        raise ValueError(f"framework must be one of {list(FRAMEWORKS)}, got {framework!r}")
    fw = FRAMEWORKS[framework]
    if not isinstance(cell, str):
        raise ValueError(f"cell must be a str naming one of {[s.name for s in fw.cells]}, got {cell!r}")
    spec = fw.cell(cell)
    input_size = validate.size("input_size", input_size)
    hidden_size = validate.size("hidden_size", hidden_size)
    num_layers = validate.size("num_layers", num_layers)
    proj_size = validate.size("proj_size", proj_size, minimum=0)
    for name, value in (("bidirectional", bidirectional), ("bias", bias), ("peepholes", peepholes),
                        ("reset_gate", reset_gate)):
        validate.flag(name, value)
    if reset_after is not None:
        validate.flag("reset_after", reset_after)
    _allowed(spec, fw, "bias", bias, True)
    _allowed(spec, fw, "peepholes", peepholes, False)
    _allowed(spec, fw, "reset_gate", reset_gate, True)
    default_reset = spec.options.get("reset_after", (True,))[0]
    reset_after = default_reset if reset_after is None else reset_after
    _allowed(spec, fw, "reset_after", reset_after, True)
    if proj_size != 0:
        if "proj_size" not in spec.options:
            have = [f"{f.key} {s.name}" for f in FRAMEWORKS.values() for s in f.cells if "proj_size" in s.options]
            raise ValueError(f"proj_size must be 0 for {fw.key} {spec.name}: it has no projection "
                             f"(projections: {', '.join(have)})")
        if spec.proj_below_hidden and (proj_size >= hidden_size) == True:  # noqa: E712  (SymPy: provably)
            raise ValueError("proj_size has to be smaller than hidden_size")
    options = {}
    if spec.mode == "LSTM" and peepholes:
        options["peepholes"] = True
    if spec.mode == "MGU":
        options["reset_gate"] = reset_gate
    if "kernel_size" in spec.options:
        if kernel_size is None:
            raise ValueError(f"kernel_size is required for {fw.key} {spec.name}: a tuple of 1 to 3 sizes")
        if not isinstance(kernel_size, (tuple, list)) or not 1 <= len(kernel_size) <= 3:
            raise ValueError(f"kernel_size must be a tuple of 1 to 3 sizes, got {kernel_size!r}")
        options["kernel_size"] = tuple(validate.size("kernel_size", k) for k in kernel_size)
    elif kernel_size is not None:
        raise ValueError(f"kernel_size must be None for {fw.key} {spec.name}: only a ConvLSTM has a kernel")
    wiring = DEEP_BIDIRECTIONAL if bidirectional else UNIDIRECTIONAL
    single = {"layer": False, "node": num_layers == 1, "cell": num_layers == 1 and not bidirectional}[spec.kind]
    return Stack(spec.mode, input_size, hidden_size, num_layers, bias, proj_size, spec.convention, wiring,
                 single_cell=single, reset_after=reset_after, cell_options=tuple(sorted(options.items())))


def count(framework: str, cell: str, input_size, hidden_size, *, trainable_only: bool = False, **options):
    """Number of parameters of ``cell`` in ``framework`` (all layers and directions).

    Parameters
    ----------
    framework, cell, input_size, hidden_size, **options
        As for :func:`stack` (``num_layers``, ``bidirectional``, ``bias``, ``proj_size``,
        ``peepholes``, ``reset_after``, ``reset_gate``, ``kernel_size``).
    trainable_only : bool, default False
        Leave out frozen tensors (Paddle's disabled biases). By default every tensor the framework
        creates is counted, as ``sum(p.numel() for p in model.parameters())`` does.

    Returns
    -------
    int or sympy.Expr
        An int when every size is an int; otherwise a closed form (for a symbolic ``num_layers``
        L, valid for every L >= 1).

    Raises
    ------
    ValueError, TypeError
        See :func:`stack`.

    Examples
    --------
    >>> count("paddle", "GRU", 3, 5, bias=False)
    150
    >>> count("paddle", "GRU", 3, 5, bias=False, trainable_only=True)
    120
    """
    validate.flag("trainable_only", trainable_only)
    s = stack(framework, cell, input_size, hidden_size, **options)
    if not trainable_only:
        return plain(s.count)
    if isinstance(s.num_layers, int):
        return plain(sympy.Add(*(t.numel for t in s.tensors if t.trainable)))
    from .stack import UPPER

    first = sympy.Add(*(t.numel for t in s.layer_tensors(0) if t.trainable))
    upper = sympy.Add(*(t.numel for t in s.layer_tensors(UPPER) if t.trainable))
    return plain(sympy.expand(first + (s.num_layers - 1) * upper))


def tensors(framework: str, cell: str, input_size, hidden_size, **options) -> list[TensorRow]:
    """The tensor table of ``cell`` in ``framework``: one row per tensor, in the framework's names.

    Parameters
    ----------
    framework, cell, input_size, hidden_size, **options
        As for :func:`stack`; ``num_layers`` must be an int.

    Returns
    -------
    list of TensorRow
        ``(name, shape, count, trainable)``: shapes are tuples of ints when every size is an int
        (else of SymPy expressions), ``count`` the tensor's size.

    Raises
    ------
    ValueError, TypeError
        See :func:`stack`; a symbolic ``num_layers``.
    """
    s = stack(framework, cell, input_size, hidden_size, **options)
    return [TensorRow(t.name, tuple(plain(d) for d in t.shape), plain(t.numel), t.trainable) for t in s.tensors]
