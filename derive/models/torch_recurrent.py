"""``torch.nn``'s recurrent modules as module-tree nodes, through the :mod:`derive.torch` mirror.

:func:`recurrent_module` makes ``nn.LSTM(100, 128, num_layers=2)`` (or any of
:data:`TORCH_RECURRENT`) as a :class:`derive.tree.Module` named as torch names its tensors, with a
lazy closed form (:class:`derive.tree.Formula`: the same mirror called again with ``I``, ``H``,
``L``, ``P``). The live-object reader and the state-dict, checkpoint and ONNX readers share it.
:func:`gates` is a cell's number of gate blocks, read from the registered cell (not a table).

>>> from derive.tree import named_parameters
>>> module = recurrent_module("LSTM", (100, 128), {"num_layers": 2}, name="lstm")
>>> module.count, [name for name, _ in named_parameters(module)][:2]
(249856, ['lstm.weight_ih_l0', 'lstm.weight_hh_l0'])
>>> module.formula.values
(('I', 100), ('H', 128), ('L', 2))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.symbols import H, I, L, P
from ..frameworks import pytorch as dt
from ..tree import Formula, Module, Param, closed_form

__all__ = ["TORCH_RECURRENT", "MODES", "recurrent_module", "recurrent_formula", "gates", "constructor_text"]

#: ``torch.nn``'s recurrent modules, mirrored by :mod:`derive.torch`.
TORCH_RECURRENT = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")
#: The registered cell (:data:`derive.cells.CELLS`) each torch class lays out.
MODES = {"RNN": "RNN_TANH", "LSTM": "LSTM", "GRU": "GRU"}
_SIZES = (("input_size", I), ("hidden_size", H), ("num_layers", L), ("proj_size", P))


def gates(kind: str) -> int:
    """Gate blocks of the cell ``kind`` lays out (``"LSTM"`` 4, ``"GRU"`` 3, ``"RNN"`` 1), from the cell.

    Parameters
    ----------
    kind : str
        A key of :data:`MODES` (or its cell class, ``"LSTMCell"``).

    Returns
    -------
    int
    """
    from ..cells import make_cell

    mode = MODES[kind.removesuffix("Cell")]
    return int(closed_form(("cell gates", mode), lambda: len(make_cell(mode, 1, 1).gates)))


def _count(kind: str, *args: Any, **kwargs: Any) -> Any:
    """The count of ``derive.torch.<kind>(*args, **kwargs)`` (a :class:`Formula` builder)."""
    return getattr(dt, kind)(*args, **kwargs).count


def recurrent_formula(kind: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Formula:
    """The closed form of ``torch.nn.<kind>(*args, **kwargs)`` in ``I``, ``H``, ``L``, ``P``, built when read.

    Each int size argument becomes its letter (``num_layers`` only when not 1, ``proj_size`` only
    when not 0), found where torch binds it (:func:`derive.torch.torch_arguments`).

    Parameters
    ----------
    kind : str
        One of :data:`TORCH_RECURRENT`.
    args : tuple
    kwargs : mapping

    Returns
    -------
    derive.tree.Formula
    """
    where = dt.torch_arguments(kind, tuple(args), dict(kwargs))
    letters, named = list(args), dict(kwargs)
    values = []
    for name, symbol in _SIZES:
        if name not in where:
            continue
        slot_kind, slot = where[name]
        value = letters[int(slot)] if slot_kind == "arg" else named[str(slot)]
        if type(value) is not int or (name, value) in (("proj_size", 0), ("num_layers", 1)):
            continue
        if slot_kind == "arg":
            letters[int(slot)] = symbol
        else:
            named[str(slot)] = symbol
        values.append((symbol.name, value))
    return Formula(_count, (kind, *letters), tuple(sorted(named.items())), tuple(values))


def _shapes(kind: str, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]) -> tuple[Module, Any]:
    layer = getattr(dt, kind)(*args, **dict(kwargs))
    if hasattr(layer, "module"):  # the engine's tree of the stack, with torch's names
        made = layer.module()
        return made, layer
    return Module("", kind, tuple(Param(n, tuple(s)) for n, s in layer.shapes.items())), layer


def recurrent_module(
    kind: str, args: tuple[Any, ...] = (), kwargs: Mapping[str, Any] | None = None, name: str = ""
) -> Module:
    """``torch.nn.<kind>(*args, **kwargs)`` as a tree node, its tensors from :mod:`derive.torch`.

    Parameters
    ----------
    kind : str
        One of :data:`TORCH_RECURRENT`.
    args : tuple
        Positional arguments, as torch takes them.
    kwargs : mapping, optional
    name : str
        The module's name in its parent.

    Returns
    -------
    derive.tree.Module
        Type ``kind``, the tensors of ``named_parameters()``, ``config`` the arguments,
        ``output_shape`` ``(T, N, D·H_out)`` (``(N, T, ...)`` with ``batch_first``; a cell ``(N, H)``),
        ``formula`` the lazy closed form.

    Raises
    ------
    TypeError, ValueError
        As torch refuses the arguments (:mod:`derive.torch`'s checks).
    """
    kwargs = dict(kwargs or {})
    key = (
        "torch module",
        kind,
        tuple((type(a), a) for a in args),
        tuple((k, type(v), v) for k, v in sorted(kwargs.items())),
    )
    made = closed_form(key, lambda: _made(kind, tuple(args), kwargs))
    return made if name == "" else made.replace(name=name)


def _made(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Module:
    made, layer = _shapes(kind, args, tuple(sorted(kwargs.items())))
    if kind.endswith("Cell"):
        output: tuple = ("N", layer.hidden_size)
    else:
        width = (layer.proj_size or layer.hidden_size) * (2 if layer.bidirectional else 1)
        output = ("N", "T", width) if layer.batch_first else ("T", "N", width)
    return Module(
        "",
        kind,
        made.params,
        made.children,
        made.repeat,
        made.start,
        made.sep,
        config=_bound(kind, args, kwargs),
        formula=recurrent_formula(kind, args, kwargs),
        output_shape=output,
        row=True,
    )


def _bound(kind: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    where = dt.torch_arguments(kind, tuple(args), dict(kwargs))
    return {name: (args[int(slot)] if how == "arg" else kwargs[str(slot)]) for name, (how, slot) in where.items()}


def constructor_text(kind: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    """The call as a user writes it: ``nn.GRU(20, 40, num_layers=2)``.

    Parameters
    ----------
    kind : str
    args : tuple
    kwargs : mapping

    Returns
    -------
    str
    """
    return f"nn.{kind}(" + ", ".join([str(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()]) + ")"
