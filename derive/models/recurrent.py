"""The recurrent layers of :mod:`derive.torch`, seen as layers of a model.

:class:`TorchRecurrent` gives a recurrent layer the interface of :mod:`derive.models`' other
layers — named weights, count, closed form, output shape — while the numbers stay those of
:mod:`derive.torch` (derived from the cells' equations). The closed form is the same layer remade
with its sizes as ``I``, ``H``, ``L``, ``P``. The Keras layers build themselves on an input shape
(:mod:`derive.keras`: ``build(input_shape) -> (Module, output_shape)``).
"""

from __future__ import annotations

from typing import Any

import sympy

from ..engine.symbols import H, I, L, P, plain
from ..frameworks import pytorch as dt
from ..frameworks.keras.constructors import KERAS_INPUT_KWARGS, KERAS_RECURRENT
from .base import remembered

__all__ = ["TorchRecurrent", "TORCH_RECURRENT", "KERAS_RECURRENT", "KERAS_INPUT_KWARGS"]

#: ``torch.nn`` recurrent modules derived from the equations (``derive.torch``).
TORCH_RECURRENT = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")
_TORCH_SIZES = {"input_size": I, "hidden_size": H, "num_layers": L, "proj_size": P}


class TorchRecurrent:
    """A :mod:`derive.torch` layer (``nn.LSTM``, ...) as a model's module.

    Parameters
    ----------
    cls_name : str
        One of :data:`TORCH_RECURRENT`.
    args, kwargs
        The constructor's arguments.

    Raises
    ------
    TypeError, ValueError
        As the :mod:`derive.torch` class (torch's own checks).
    """

    def __init__(self, cls_name: str, args: list | tuple = (), kwargs: dict | None = None) -> None:
        self.cls = getattr(dt, cls_name)
        self.args, self.kwargs = list(args), dict(kwargs or {})
        self.layer = self.cls(*self.args, **self.kwargs)

    def shapes(self) -> dict[str, tuple]:
        """Parameter name -> shape, as ``named_parameters()``.

        Returns
        -------
        dict of str to tuple

        Raises
        ------
        ValueError
            A symbolic ``num_layers`` (the tensors cannot be listed).
        """
        if not isinstance(self.layer.num_layers, int):
            raise ValueError("a symbolic num_layers has no tensor list; the count is still exact")
        key = (
            "torch shapes",
            self.cls.__name__,
            tuple((type(a), a) for a in self.args),
            tuple((k, type(v), v) for k, v in sorted(self.kwargs.items())),
        )
        shapes = remembered(key, lambda: {k: tuple(plain(d) for d in v) for k, v in self.layer.shapes.items()})
        return dict(shapes)

    @property
    def count(self) -> Any:
        """Number of parameters."""
        return plain(self.layer.count)

    @property
    def formula(self) -> tuple[Any, dict[str, Any]]:
        """The closed form in ``I``, ``H``, ``L``, ``P`` and their values."""
        # torch's own binding (``RNN`` takes a 4th positional argument out as ``nonlinearity``)
        where = dt.torch_arguments(self.cls.__name__, tuple(self.args), dict(self.kwargs))
        args, kwargs = list(self.args), dict(self.kwargs)
        values: dict[str, Any] = {}
        for name, symbol in _TORCH_SIZES.items():
            if name not in where:
                continue
            kind, slot = where[name]
            value = args[int(slot)] if kind == "arg" else kwargs[str(slot)]
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or (name == "proj_size" and value == 0)
                or (name == "num_layers" and value == 1)
            ):
                continue
            if kind == "arg":
                args[int(slot)] = symbol
            else:
                kwargs[str(slot)] = symbol
            values[str(symbol)] = value
        key = (
            "torch",
            self.cls.__name__,
            tuple((type(a), a) for a in args),
            tuple((k, type(v), v) for k, v in sorted(kwargs.items())),
        )
        try:
            return remembered(key, lambda: sympy.expand(self.cls(*args, **kwargs).count)), values
        except (TypeError, ValueError):
            return sympy.expand(self.layer.count), {}

    def output_shape(self) -> tuple:
        """``(T, N, D·H_out)`` (``(N, T, ...)`` with ``batch_first``); a cell: ``(N, H)``.

        Returns
        -------
        tuple
        """
        layer = self.layer
        if not hasattr(layer, "bidirectional"):
            return ("N", plain(layer.hidden_size))
        width = layer.proj_size if layer.proj_size != 0 else layer.hidden_size
        width = plain(sympy.expand(width * (2 if layer.bidirectional else 1)))
        return ("N", "T", width) if layer.batch_first else ("T", "N", width)

    def __repr__(self) -> str:
        return f"nn.{self.layer!r}"
