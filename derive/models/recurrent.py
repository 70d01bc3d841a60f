"""The recurrent layers of :mod:`derive.torch` and :mod:`derive.keras`, seen as layers of a model.

:class:`TorchRecurrent` and :class:`KerasRecurrent` give a recurrent layer the interface of
:mod:`derive.models`' other layers — named weights, count, closed form, output shape — while the
numbers stay those of :mod:`derive.torch` and :mod:`derive.keras` (derived from the cells'
equations). The closed form is the same layer remade with its sizes as ``I``, ``H``, ``L``, ``P``.
"""

from __future__ import annotations

from typing import Any

import sympy

from ..engine.symbols import H, I, L, P, plain
from ..frameworks import keras as dk
from ..frameworks import pytorch as dt
from .base import conv_length, numel, remembered

__all__ = ["TorchRecurrent", "KerasRecurrent", "TORCH_RECURRENT", "KERAS_RECURRENT", "KERAS_INPUT_KWARGS"]

#: ``torch.nn`` recurrent modules derived from the equations (``derive.torch``).
TORCH_RECURRENT = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")
#: ``keras.layers`` recurrent layers derived from the equations (``derive.keras``).
KERAS_RECURRENT = ("SimpleRNN", "LSTM", "GRU", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "Bidirectional")
#: Keyword arguments that give a Keras model its input (read by the model, not the layer).
KERAS_INPUT_KWARGS = ("input_shape", "batch_input_shape", "input_dim", "input_length", "batch_size")
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


class KerasRecurrent:
    """A :mod:`derive.keras` recurrent layer or ``Bidirectional`` as a model's layer.

    Parameters
    ----------
    layer : derive.keras layer
        The layer (``derive.keras.LSTM(64)``, ``derive.keras.Bidirectional(...)``).
    spec : dict
        Its constructor's arguments as written, for the output shape (``strides``, ``padding``,
        ``dilation_rate``, ``data_format`` of ConvLSTM) and the closed form.
    remake : callable, optional
        ``remake(units)`` builds the same layer with every ``units`` replaced (for the closed form).
    """

    def __init__(self, layer: Any, spec: dict | None = None, remake: Any = None) -> None:
        self.layer = layer
        self.spec = dict(spec or {})
        self.remake = remake
        self.name = layer.name
        inner = layer.forward_layer if isinstance(layer, dk.Bidirectional) else layer
        self.inner = inner
        self.data_format = getattr(inner, "data_format", "channels_last")

    @property
    def rank(self) -> int:
        """Input ndim without the batch axis: 2 for RNN/LSTM/GRU, 2 + n for ConvLSTM{n}D."""
        return int(self.inner.input_rank) - 1

    def features(self, input_shape: tuple) -> Any:
        """The input dimension the weights read: the last, or the channels axis with ``channels_first``.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        int, sympy.Expr or None
        """
        if self.data_format == "channels_first" and len(input_shape) == self.rank:
            return input_shape[1]
        return input_shape[-1] if input_shape else None

    def _check(self, input_shape: tuple) -> Any:
        if input_shape and input_shape[0] is Ellipsis:
            features = input_shape[-1]
        else:
            if len(input_shape) != self.rank:
                raise ValueError(
                    f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                    f"ndim={self.rank + 1}, found ndim={len(input_shape) + 1}. Full shape received: "
                    f"{(None, *input_shape)}"
                )
            features = self.features(input_shape)
        if features is None:
            raise ValueError(f"{self.name}: the feature (channel) dimension of its input is unknown (None)")
        return features

    def build(self, input_shape: tuple) -> tuple[list[tuple[str, tuple]], Any]:
        """Weights (path below the layer, shape) and output shape(s).

        Parameters
        ----------
        input_shape : tuple
            (T, features) or (T, *spatial, channels); a leading ``...`` when only features are known.

        Returns
        -------
        tuple
            The weights, and the output shape — a list ``[output, *states]`` with ``return_state``.

        Raises
        ------
        ValueError
            Wrong rank (Keras' "expected ndim=3, found ndim=2"), unknown features.
        """
        features = self._check(input_shape)
        weights = [(w.path, tuple(w.shape)) for w in dk.tensors(self.layer, features)]
        out_dim = self.layer.output_dim(features)
        inner = self.inner
        if input_shape and input_shape[0] is Ellipsis:
            step: tuple = (Ellipsis, out_dim)
            time = None
        else:
            time = input_shape[0]
            spatial = tuple(input_shape[1:-1]) if self.data_format != "channels_first" else tuple(input_shape[2:])
            if spatial:
                spatial = self._conv_spatial(spatial)
            step = (out_dim, *spatial) if self.data_format == "channels_first" else (*spatial, out_dim)
        output = (time, *step) if inner.return_sequences and step[0] is not Ellipsis else step
        if not inner.return_state:
            return weights, output
        state = step if step[0] is Ellipsis else step
        states = [state] * (2 if isinstance(inner, (dk.LSTM, dk.ConvLSTM1D, dk.ConvLSTM2D, dk.ConvLSTM3D)) else 1)
        if isinstance(self.layer, dk.Bidirectional):
            states = states * 2
        return weights, [output, *states]

    def _conv_spatial(self, spatial: tuple) -> tuple:
        n = len(spatial)

        def per_axis(key: str, default: int) -> tuple:
            value = self.spec.get(key, default)
            return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n

        strides, dilation = per_axis("strides", 1), per_axis("dilation_rate", 1)
        conv: Any = self.inner  # a ConvLSTM layer here: it has padding and kernel_size
        return tuple(
            conv_length(s, k, st, conv.padding, d) for s, k, st, d in zip(spatial, conv.kernel_size, strides, dilation)
        )

    def formula(self, input_shape: tuple) -> tuple[Any, dict[str, Any]]:
        """Closed form with the features as ``I`` and, for RNN/LSTM/GRU, ``units`` as ``H``.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple of (sympy.Expr, dict)
        """
        features = self._check(input_shape)
        values: dict[str, Any] = {}
        layer = self.layer
        if isinstance(features, int):
            values["I"] = features
            features = I
        units = self.inner.units
        if self.remake is not None and isinstance(units, int):
            try:
                layer = self.remake(H)
                values["H"] = units
            except (TypeError, ValueError):
                layer = self.layer
        return sympy.expand(sum((numel(w.shape) for w in dk.tensors(layer, features)), sympy.Integer(0))), values

    def __repr__(self) -> str:
        return repr(self.layer)
