"""cuDNN: NVIDIA's RNN kernels, per-gate linear layers with two biases."""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, register

__all__ = ["CUDNN"]


def _cudnn_name(base: str, layer: object, direction: int) -> str:
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


register(
    Framework(
        "cudnn",
        "cuDNN",
        (
            CellSpec("CUDNN_RNN_TANH", "RNN_TANH", "rnn", CUDNN, "layer", {"bias": YES_NO}),
            CellSpec("CUDNN_LSTM", "LSTM", "lstm", CUDNN, "layer", {"bias": YES_NO, "proj_size": ()}),
            CellSpec("CUDNN_GRU", "GRU", "gru", CUDNN, "layer", {"bias": YES_NO}),
        ),
        (),
        CUDNN.source,
        order=20,
    )
)
