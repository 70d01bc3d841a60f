"""``torch.nn``'s recurrent classes in the constructor registry, as module trees.

``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and the three cells are registered (framework ``"torch"``)
with a make that binds and checks the arguments through :mod:`derive.torch` (torch's own
binding, torch's words) and gives a :class:`derive.tree.Module` with the tensors of
``named_parameters()``, the closed form in ``I``, ``H``, ``L``, ``P`` and the output shape. A
symbolic ``num_layers`` L gives layer 0's tensors and one group of the upper layers' tensors
repeated L - 1 times (``weight_ih_l{k}``), so the count holds for every L.

>>> from derive.engine.constructors import lookup
>>> lstm = lookup("torch", "LSTM").make(64, 128, 2)
>>> lstm.count, lstm.formula.expr
(231424, 8*H**2*L - 4*H**2 + 4*H*I + 8*H*L)
"""

from __future__ import annotations

import re
from typing import Any

from ..engine.symbols import plain
from ..layers.torch_nn._base import define, signature, unread
from ..tree import Module, Param
from . import pytorch as dt

__all__ = ["recurrent_module"]

_LETTERS = {"input_size": "I", "hidden_size": "H", "num_layers": "L", "proj_size": "P"}
_FIXED = {"num_layers": 1, "proj_size": 0}
# Arguments that change no tensor: a value derive does not know is read as torch's default.
_FREE = {"dropout": 0.0, "batch_first": False, "nonlinearity": "tanh", "device": None, "dtype": None}
_UPPER = re.compile(r"_l1(?=_|$)")


def _known(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any], bool]:
    """The arguments with unknown values of :data:`_FREE` arguments replaced by torch's defaults."""
    where = dt.torch_arguments(name, args, kwargs)
    args_, kwargs_ = list(args), dict(kwargs)
    guessed = False
    for argument, default in _FREE.items():
        if argument not in where:
            continue
        kind, slot = where[argument]
        value = args_[int(slot)] if kind == "arg" else kwargs_[str(slot)]
        if unread(value):
            guessed = guessed or argument == "batch_first"
            if kind == "arg":
                args_[int(slot)] = default
            else:
                kwargs_[str(slot)] = default
    return args_, kwargs_, guessed


def _params(layer: Any) -> tuple[tuple[Param, ...], tuple[Module, ...]]:
    """Layer 0's tensors and, for a symbolic num_layers, the upper layers as one repeated group."""
    layers = plain(getattr(layer, "num_layers", 1))
    if type(layers) is int:
        return tuple(Param(n, tuple(plain(d) for d in s)) for n, s in layer.shapes.items()), ()
    two = type(layer)(*_args_with_layers(layer, 2))
    first, upper = [], []
    for n, s in two.shapes.items():
        shape = tuple(plain(d) for d in s)
        if "_l0" in n:
            first.append(Param(n, shape))
        else:
            upper.append(Param(_UPPER.sub("_l{k}", n), shape))
    group = Module("", "layers", tuple(upper), repeat=layers - 1, start=1)
    return tuple(first), (group,)


def _args_with_layers(layer: Any, n: int) -> tuple[Any, ...]:
    """The positional arguments that remake ``layer`` with ``n`` layers (keywords as attributes)."""
    args: list[Any] = [layer.input_size, layer.hidden_size, n, layer.bias, layer.batch_first, layer.dropout]
    args += [layer.bidirectional]
    if isinstance(layer, dt.LSTM):
        args.append(layer.proj_size)
    elif isinstance(layer, dt.RNN):
        args.insert(3, layer.nonlinearity)
    return tuple(args)


def _output_shape(layer: Any) -> tuple[Any, ...]:
    if not hasattr(layer, "bidirectional"):
        return ("N", plain(layer.hidden_size))
    width = layer.proj_size if layer.proj_size != 0 else layer.hidden_size
    width = plain(width * (2 if layer.bidirectional else 1))
    return ("N", "T", width) if layer.batch_first else ("T", "N", width)


def recurrent_module(name: str, *args: Any, **kwargs: Any) -> Module:
    """``torch.nn.<name>(*args, **kwargs)`` as a module tree.

    Parameters
    ----------
    name : {"RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"}
    *args, **kwargs
        torch's arguments (sizes may be SymPy expressions).

    Returns
    -------
    derive.tree.Module
        Shown as one row; ``config`` holds torch's attributes; its cache the states the layer
        returns (``h_n``, and ``c_n`` for an LSTM; a cell's ``h'``, ``c'``).

    Raises
    ------
    TypeError, ValueError
        As torch (through :mod:`derive.torch`).
    """
    args_, kwargs_, guessed = _known(name, args, kwargs)
    layer = getattr(dt, name)(*args_, **kwargs_)
    params, children = _params(layer)
    config = {
        key: plain(getattr(layer, key))
        for key in ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional")
        if hasattr(layer, key)
    }
    config.update({key: getattr(layer, key) for key in ("proj_size", "nonlinearity") if hasattr(layer, key)})
    shape = None if guessed else _output_shape(layer)
    states = dt.PYTORCH.cache(layer) if dt.PYTORCH.cache is not None else ()
    return Module(
        "", name, params, children, config=config, output_shape=shape, row=True, cache=states,
        step_flops=layer.token_flops,
    )  # fmt: skip


def _make(name: str) -> Any:
    def make(*args: Any, **kwargs: Any) -> Module:
        return recurrent_module(name, *args, **kwargs)

    make.__doc__ = f"``nn.{name}`` (see :mod:`derive.torch`)."
    make.cache_key = f"torch.nn.{name}"  # type: ignore[attr-defined]  # its closed forms' key
    if name.endswith("Cell"):  # ordinary signatures; RNN, LSTM, GRU take (*args, **kwargs) as torch's do
        spec: list[Any] = ["input_size", "hidden_size", ("bias", True)]
        spec += [("nonlinearity", "tanh")] if name == "RNNCell" else []
        make.__signature__ = signature(*spec, ("device", None), ("dtype", None))  # type: ignore[attr-defined]
    return make


def _read(m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if type(m).__name__.endswith("Cell"):
        kwargs: dict[str, Any] = {"bias": m.bias}
        if hasattr(m, "nonlinearity"):
            kwargs["nonlinearity"] = m.nonlinearity
        return (m.input_size, m.hidden_size), kwargs
    kwargs = {
        "num_layers": m.num_layers,
        "bias": m.bias,
        "batch_first": m.batch_first,
        "dropout": m.dropout,
        "bidirectional": m.bidirectional,
    }
    if type(m).__name__ == "LSTM":
        kwargs["proj_size"] = m.proj_size
    if type(m).__name__ == "RNN":
        kwargs["nonlinearity"] = m.nonlinearity
    return (m.input_size, m.hidden_size), kwargs


def _slots(name: str) -> Any:
    return lambda args, kwargs: dt.torch_arguments(name, args, kwargs)


for _name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"):
    define(
        _name,
        _make(_name),
        source="torch/nn/modules/rnn.py",
        letters={k: v for k, v in _LETTERS.items() if not _name.endswith("Cell") or k in ("input_size", "hidden_size")},
        read=_read,
        fixed=_FIXED,
        slots=_slots(_name),
    )
