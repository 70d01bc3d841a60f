"""``torch.nn``'s recurrent modules as module-tree nodes, through the :mod:`derive.torch` mirror.

:func:`recurrent_module` makes ``nn.LSTM(100, 128, num_layers=2)`` (or any of
:data:`TORCH_RECURRENT`) as a :class:`derive.tree.Module` named as torch names its tensors, with a
lazy closed form (:class:`derive.tree.Formula`: the same mirror called again with ``I``, ``H``,
``L``, ``P``). It is the registered constructor's module (:mod:`derive.frameworks.torch_recurrent`,
the one maker, whose letters the command line shows too), named and with the arguments as given.
The live-object reader and the state-dict, checkpoint and ONNX readers share it.
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

from ..engine.constructors import Constructor, lookup
from ..frameworks import pytorch as dt
from ..tree import Formula, Module, closed_form

__all__ = ["TORCH_RECURRENT", "MODES", "recurrent_module", "recurrent_formula", "gates", "constructor_text"]

#: ``torch.nn``'s recurrent modules, mirrored by :mod:`derive.torch`.
TORCH_RECURRENT = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")
#: The registered cell (:data:`derive.cells.CELLS`) each torch class lays out.
MODES = {"RNN": "RNN_TANH", "LSTM": "LSTM", "GRU": "GRU"}


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
    return int(closed_form(("cell gates", mode), lambda: len(make_cell(mode, 1, 1, numeric=True).gates)))


def recurrent_formula(kind: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Formula:
    """The closed form of ``torch.nn.<kind>(*args, **kwargs)`` in ``I``, ``H``, ``L``, ``P``, built when read.

    The registered constructor's (:mod:`derive.frameworks.torch_recurrent`), by the one letter rule
    of :func:`derive.layers.torch_nn._base.formula`: each int size argument becomes its letter
    (``num_layers`` only when not 1, ``proj_size`` only when not 0).

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
    return _constructor(kind).make(*args, **dict(kwargs)).formula


def _constructor(kind: str) -> Constructor:
    found = lookup("torch", kind)
    assert found is not None, kind  # registered by derive.frameworks.torch_recurrent
    return found


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
    made = _constructor(kind).make(*args, **dict(kwargs or {}))
    config = _bound(kind, tuple(args), dict(kwargs or {}))
    return made.replace(name=name, config=config)


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
