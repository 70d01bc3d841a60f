"""MLX (Apple's array framework, ``mlx.nn``): ``RNN``, ``GRU``, ``LSTM`` as PyTorch writes them, one bias.

Source: ``python/mlx/nn/layers/recurrent.py`` (mlx 0.32.4). Each class is one layer, one
direction; ``bias=False`` removes every bias.
"""

from __future__ import annotations

from typing import Any

from ..engine.conventions import Convention, TensorLayout
from .registry import YES_NO, CellSpec, Framework, register

__all__ = ["MLX_RNN", "MLX_GRU", "MLX_LSTM"]

_SOURCE = "python/mlx/nn/layers/recurrent.py (mlx 0.32.4)"
#: In a stack the layers are ``nn.Sequential``'s ``layers.<n>``, n = layer·D + direction.
_DIRECTIONS = {1: ("",), 2: ("forward", "backward")}


def _mlx_name(base: str, layer: Any, label: str) -> str:
    if layer is None:
        return base
    n = layer * (2 if label else 1) + int(label == "backward")
    return f"layers.{n}.{base}"


#: ``nn.RNN(input_size, hidden_size, bias=True)``: ``Wxh`` (H, I), ``Whh`` (H, H), ``bias`` (H,).
MLX_RNN = Convention(
    name="MLX RNN",
    tensors=(
        TensorLayout("Wxh", "weight", ("ih",)),
        TensorLayout("Whh", "weight", ("hh",)),
        TensorLayout("bias", "bias", ("ih",)),
    ),
    layer_name=_mlx_name,
    source=f"{_SOURCE}, RNN.__init__",
    biases={"RNN_TANH": "input"},
    direction_names=_DIRECTIONS,
)

#: ``nn.GRU``: ``Wx`` (3H, I), ``Wh`` (3H, H), ``b`` (3H,) on the input side and ``bhn`` (H,), the
#: recurrent bias inside the reset product ``r * (W_hn h + b_hn)``; gate order r, z, n.
MLX_GRU = Convention(
    name="MLX GRU",
    tensors=(
        TensorLayout("Wx", "weight", ("ih",)),
        TensorLayout("Wh", "weight", ("hh",)),
        TensorLayout("b", "bias", ("ih",)),
        TensorLayout("bhn", "bias", ("hh",)),
    ),
    layer_name=_mlx_name,
    source=f"{_SOURCE}, GRU.__init__",
    biases={"GRU": "input"},
    direction_names=_DIRECTIONS,
)

#: ``nn.LSTM``: ``Wx`` (4H, I), ``Wh`` (4H, H), ``bias`` (4H,); gate order i, f, g, o.
MLX_LSTM = Convention(
    name="MLX LSTM",
    tensors=(
        TensorLayout("Wx", "weight", ("ih",)),
        TensorLayout("Wh", "weight", ("hh",)),
        TensorLayout("bias", "bias", ("ih",)),
    ),
    layer_name=_mlx_name,
    source=f"{_SOURCE}, LSTM.__init__",
    biases={"LSTM": "input"},
    direction_names=_DIRECTIONS,
)

register(
    Framework(
        "mlx",
        "MLX",
        (
            CellSpec("RNN", "RNN_TANH", "rnn", MLX_RNN, "cell", {"bias": YES_NO}),
            CellSpec("GRU", "GRU", "gru", MLX_GRU, "cell", {"bias": YES_NO}),
            CellSpec("LSTM", "LSTM", "lstm", MLX_LSTM, "cell", {"bias": YES_NO}),
        ),
        ("mlx",),
        _SOURCE,
        order=56,
    )
)


# --------------------------------------------------------------------------- constructors as users write them
# ``mlx.nn.LSTM(32, 128)`` (signatures of python/mlx/nn/layers/recurrent.py). After
# ``import mlx.nn as nn`` users write ``nn.LSTM``, which is torch's too: torch is read by default,
# ``--framework mlx`` chooses MLX.

from .mirror import constructor, stack_module  # noqa: E402

_PREFIXES = ("mlx.nn.", "nn.")
_LETTERS = {"input_size": "I", "hidden_size": "H"}


@constructor("mlx", "RNN", prefixes=_PREFIXES, letters=_LETTERS, source=_SOURCE)
def _rnn(input_size: Any, hidden_size: Any, bias: Any = True, nonlinearity: Any = None) -> Any:
    return stack_module("mlx", "RNN", input_size, hidden_size, bias=bias)


@constructor("mlx", "GRU", prefixes=_PREFIXES, letters=_LETTERS, source=_SOURCE)
def _gru(input_size: Any, hidden_size: Any, bias: Any = True) -> Any:
    return stack_module("mlx", "GRU", input_size, hidden_size, bias=bias)


@constructor("mlx", "LSTM", prefixes=_PREFIXES, letters=_LETTERS, source=_SOURCE)
def _lstm(input_size: Any, hidden_size: Any, bias: Any = True) -> Any:
    return stack_module("mlx", "LSTM", input_size, hidden_size, bias=bias)
