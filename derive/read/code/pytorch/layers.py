"""``torch.nn``'s layers that surround recurrent ones, counted like :mod:`derive.torch`'s.

Each class takes its ``torch.nn`` namesake's arguments in the same order; ``shapes`` gives the
tensors of ``named_parameters()`` (buffers such as ``running_mean`` are not parameters), ``count``
their total, ``formula`` the closed form in letters. Sizes may be ints or SymPy expressions. The
classes are thin views of the registered constructors (:mod:`derive.layers.torch_nn`).

>>> Embedding(160000, 1000).count
160000000
>>> Linear(256, 10).formula
(I*O + O, {'I': 256, 'O': 10})

Sources: ``torch/nn/modules/*.py``, torch 2.13.
"""

from __future__ import annotations

from ....engine.constructors import CONSTRUCTORS
from ....layers.torch_nn import STATELESS as _STATELESS
from ....layers.torch_nn.legacy import (
    AvgPool1d,
    BatchNorm1d,
    Conv1d,
    Dropout,
    Embedding,
    LayerNorm,
    Linear,
    MaxPool1d,
    TorchLayer,
    layer_class,
)

__all__ = [
    "Embedding",
    "Linear",
    "Dropout",
    "LayerNorm",
    "BatchNorm1d",
    "Conv1d",
    "MaxPool1d",
    "AvgPool1d",
    "STATELESS",
    "TORCH_LAYERS",
    "stateless",
]

#: Parameter-free ``torch.nn`` modules (every one torch has).
STATELESS = tuple(sorted(_STATELESS))
_RECURRENT = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")


def stateless(name: str) -> type[TorchLayer]:
    """The class of a parameter-free module named ``name`` (one of :data:`STATELESS`).

    Parameters
    ----------
    name : str

    Returns
    -------
    type
    """
    return layer_class(name)


#: Every non-recurrent ``torch.nn`` class derive knows, by name.
TORCH_LAYERS: dict[str, type[TorchLayer]] = {
    name: layer_class(name) for (framework, name) in CONSTRUCTORS if framework == "torch" and name not in _RECURRENT
}
