"""``derive.torch.Linear(...)`` and friends: a ``torch.nn`` layer's numbers as objects.

Each class takes its ``torch.nn`` namesake's arguments (bound and checked as torch does, through
the registered constructor) and gives ``count``, ``shapes()`` (the tensors of
``named_parameters()``; buffers such as ``running_mean`` are not parameters), ``formula`` (the
closed form in letters and the letters' values) and ``output_shape()``.

>>> Embedding(160000, 1000).count
160000000
>>> Linear(256, 10).formula
(I*O + O, {'I': 256, 'O': 10})
"""

from __future__ import annotations

import inspect
from typing import Any

from ...engine.constructors import lookup
from ...tree import Module, count, named_parameters
from . import containers  # noqa: F401  (importing the package registers the torch.nn classes)

__all__ = [
    "TorchLayer",
    "layer_class",
    "Embedding",
    "Linear",
    "Dropout",
    "LayerNorm",
    "BatchNorm1d",
    "Conv1d",
    "MaxPool1d",
    "AvgPool1d",
]


class TorchLayer:
    """A ``torch.nn`` layer without recurrence, made by its registered constructor.

    Parameters
    ----------
    *args, **kwargs
        The ``torch.nn`` class's own arguments.

    Raises
    ------
    TypeError
        As torch refuses them: a missing or unexpected argument, a size that is not an integer, a
        flag not a bool, ...
    ValueError
        As torch refuses them: a size below 1, a probability outside [0, 1], ...
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        constructor = lookup("torch", type(self).__name__)
        if constructor is None:  # pragma: no cover  (classes are made for registered names only)
            raise TypeError(f"torch.nn.{type(self).__name__} is not known")
        self.module: Module = constructor.make(*args, **kwargs)
        bound = inspect.signature(constructor.make).bind(*args, **kwargs)
        bound.apply_defaults()
        self._arguments = dict(bound.arguments)

    @property
    def count(self) -> Any:
        """Number of parameters, ``sum(p.numel() for p in module.parameters())``."""
        return count(self.module)

    def shapes(self) -> dict[str, tuple]:
        """Parameter name -> shape, in the order of ``named_parameters()``.

        Returns
        -------
        dict of str to tuple
        """
        return {name: p.shape for name, p in named_parameters(self.module)}

    @property
    def formula(self) -> tuple[Any, dict[str, Any]]:
        """The closed form in letters and the letters' values, e.g. ``(I*O + O, {'I': 256, 'O': 10})``."""
        formula = self.module.formula
        assert formula is not None  # every registered make gives one
        return formula.expr, dict(formula.values)

    def output_shape(self) -> tuple | None:
        """Output shape in torch's notation (``*`` any leading dimensions), or None: same as the input.

        Returns
        -------
        tuple or None
        """
        shape: tuple | None = self.module.output_shape
        return shape

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self._arguments.items() if k not in ("args", "kwargs")]
        return f"{type(self).__name__}({', '.join(parts)})"


_CLASSES: dict[str, type[TorchLayer]] = {}


def layer_class(name: str) -> type[TorchLayer]:
    """The :class:`TorchLayer` subclass for ``torch.nn.<name>`` (one per name).

    Parameters
    ----------
    name : str
        A registered torch class (``"Conv2d"``, ``"ReLU"``).

    Returns
    -------
    type
    """
    if name not in _CLASSES:
        doc = f"``torch.nn.{name}``: see :class:`TorchLayer`."
        _CLASSES[name] = type(name, (TorchLayer,), {"__doc__": doc, "__module__": __name__})
    return _CLASSES[name]


#: ``torch.nn.Embedding``: see :class:`TorchLayer`.
Embedding = layer_class("Embedding")
#: ``torch.nn.Linear``: see :class:`TorchLayer`.
Linear = layer_class("Linear")
#: ``torch.nn.Dropout``: see :class:`TorchLayer`.
Dropout = layer_class("Dropout")
#: ``torch.nn.LayerNorm``: see :class:`TorchLayer`.
LayerNorm = layer_class("LayerNorm")
#: ``torch.nn.BatchNorm1d``: see :class:`TorchLayer`.
BatchNorm1d = layer_class("BatchNorm1d")
#: ``torch.nn.Conv1d``: see :class:`TorchLayer`.
Conv1d = layer_class("Conv1d")
#: ``torch.nn.MaxPool1d``: see :class:`TorchLayer`.
MaxPool1d = layer_class("MaxPool1d")
#: ``torch.nn.AvgPool1d``: see :class:`TorchLayer`.
AvgPool1d = layer_class("AvgPool1d")
