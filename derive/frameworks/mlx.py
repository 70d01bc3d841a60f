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


#: The source of ``nn.Sequential`` (mlx 0.32.4): its modules, called in order, kept in the list ``layers``.
_SEQUENTIAL_SOURCE = "python/mlx/nn/layers/containers.py (mlx 0.32.4, Sequential)"
_LAYERS = ("RNN", "GRU", "LSTM")


@constructor(
    "mlx", "Sequential", prefixes=("mlx.nn.",), asked_prefixes=("nn.",), source=f"{_SEQUENTIAL_SOURCE}; {_SOURCE}"
)
def _sequential(*modules: Any) -> Any:
    """``mlx.nn.Sequential(*modules)``: each layer reads the output of the one before; the layers' parameters
    under ``layers.<position>.`` (``self.layers = list(modules)``); the container adds none.

    ``nn.Sequential`` is MLX's only where ``--framework mlx`` is asked for: on a line of no stated
    framework it is PyTorch's.

    Parameters
    ----------
    *modules : derive.tree.Module
        MLX's recurrent layers (``nn.RNN``, ``nn.GRU``, ``nn.LSTM``), as their constructors made them.

    Returns
    -------
    derive.tree.Module
        The container, its layers the children of its ``layers`` list.

    Raises
    ------
    TypeError
        No layer; a layer that is not one of MLX's recurrent layers.
    ValueError
        A layer whose ``input_size`` is not the ``hidden_size`` of the layer before (the features of
        its output); an ``nn.LSTM`` before another layer (its ``__call__`` returns the pair
        ``(hidden, cell)``, which the next layer cannot read).
    """
    from ..engine import validate
    from ..engine.symbols import equal
    from ..tree import Module

    if not modules:
        raise TypeError("Sequential needs at least one layer (mlx.nn.RNN, mlx.nn.GRU, mlx.nn.LSTM)")
    children = []
    for k, layer in enumerate(modules):
        if not isinstance(layer, Module) or layer.type not in _LAYERS:
            written = getattr(layer, "unread_source", None) or validate.shown(layer)
            raise TypeError(
                f"layer {k}, {written}, is not a layer of MLX derive knows (mlx.nn.RNN, mlx.nn.GRU, mlx.nn.LSTM)"
            )
        if k:
            before = modules[k - 1]
            if before.type == "LSTM":
                raise ValueError(
                    f"layer {k - 1} is an LSTM, whose __call__ returns the pair (hidden, cell) "
                    f"(python/mlx/nn/layers/recurrent.py, LSTM.__call__): layer {k} ({layer.type}) cannot read it"
                )
            width, given = before.config["hidden_size"], layer.config["input_size"]
            if not equal(width, given):
                raise ValueError(
                    f"layer {k} ({layer.type}) has input_size={validate.shown(given)}, but layer "
                    f"{k - 1} ({before.type}) outputs hidden_size={validate.shown(width)} features: the sizes do "
                    "not chain"
                )
        children.append(layer.replace(name=str(k)))
    return Module("", "Sequential", children=(Module("layers", "list", children=tuple(children)),))
