"""What every Keras layer of the mirror shares: its weights on the module tree, names, argument checks.

A layer's weights are a :class:`derive.tree.Module` named as Keras names them (``sep="/"``:
``bidirectional/forward_lstm/lstm_cell/kernel``); :class:`Weight` is the view
:func:`derive.keras.tensors` gives of it, with each recurrent tensor's cell parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..._sympy import sympy
from ...cells import Cell, Parameter
from ...engine.conventions import Convention
from ...engine.symbols import Size, plain
from ...tree import Formula, Module, Param, closed_form, named_modules, named_parameters
from .conventions import KERAS

__all__ = [
    "Weight",
    "CellModule",
    "KerasFormula",
    "the_count",
    "cell_module",
    "weights",
    "keras_shape",
    "check_kwargs",
    "unexpected_keywords",
    "layer_name",
    "snake",
    "KERAS_COMMON",
    "LAYER_KWARGS",
    "RNN_KWARGS",
    "CELL_KWARGS",
]

#: Keyword arguments every Keras layer takes (``keras/src/layers/layer.py``), plus the Keras 2 input
#: arguments derive reads as the model's input (``batch_input_shape``, ``input_length``).
KERAS_COMMON = frozenset(
    {
        "name",
        "dtype",
        "trainable",
        "autocast",
        "input_shape",
        "input_dim",
        "batch_input_shape",
        "batch_size",
        "input_length",
    }
)
#: Keyword arguments the recurrent layers pass on to ``Layer.__init__`` (keras/src/layers/layer.py).
LAYER_KWARGS = frozenset({"name", "dtype", "trainable", "autocast", "input_dim", "input_shape"})
#: ... and to ``RNN.__init__``.
RNN_KWARGS = LAYER_KWARGS | {"zero_output_for_mask"}
#: Keyword arguments a cell passes on to ``Layer.__init__``.
CELL_KWARGS = LAYER_KWARGS | {"activity_regularizer"}


@dataclass(frozen=True)
class Weight:
    """One Keras weight (``keras.Variable``) of a layer: a view of one tensor of its module tree.

    Attributes
    ----------
    path : str
        ``Variable.path`` as Keras 3 gives it for a layer built on its own or in a functional
        model, e.g. ``"bidirectional/forward_lstm/lstm_cell/kernel"`` (a ``Sequential`` prefixes
        its own name).
    shape : tuple of int or sympy.Expr
    parameters : tuple of Parameter
        The cell parameters it holds, in Keras' order (empty for a weight outside a cell).
    """

    path: str
    shape: tuple[Size, ...]
    parameters: tuple[Parameter, ...]

    @property
    def name(self) -> str:
        """``Variable.name``: the last part of the path (``"kernel"``, ``"recurrent_kernel"``, ``"bias"``)."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def numel(self) -> sympy.Expr:
        """Number of scalar parameters."""
        return sympy.Mul(*self.shape)


@dataclass(frozen=True, slots=True, eq=False)
class CellModule(Module):
    """A module whose tensors hold a recurrent cell's parameters (a Keras cell, a CuDNN layer).

    Made by :func:`cell_module`; its fields are those of :class:`derive.tree.Module` (described
    there) and :attr:`parameters`.

    Parameters
    ----------
    name : str
    type : str
    params : tuple of Param
    children : tuple of Module
    repeat : int or sympy.Expr
    start : int
    sep : str
    config : mapping
    formula : Formula or None
    counted : bool
    note : str
    output_shape : object
    row : bool
    cache : tuple of State
    routed : (top_k, num_experts) or None
    part : str
    step_flops : callable or None
    unknown : frozenset of str
        As :class:`derive.tree.Module`.

    Attributes
    ----------
    parameters : tuple of tuple of Parameter
        For each of :attr:`params`, the cell parameters it stacks, in Keras' order.
    """

    parameters: tuple[tuple[Parameter, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class KerasFormula(Formula):
    """A Keras layer's closed form: as :class:`derive.tree.Formula`, but a count without letters
    (a layer without weights, or with scalars only) is a ``sympy.Integer``, which a table shows as
    no formula.

    Parameters
    ----------
    build : callable
        ``build(*args, **kwargs)`` -> :class:`derive.tree.Module` (or an int / SymPy count).
    args : tuple
        Positional arguments, sizes replaced by letters.
    kwargs : tuple of (str, value)
        Keyword arguments, sizes replaced by letters.
    values : tuple of (str, value)
        Each letter's value in the layer it describes.
    """

    @property
    def expr(self) -> Any:
        """The closed form (expanded); a ``sympy.Integer`` for a count without letters."""
        value = closed_form(self, self._compute)
        return sympy.Integer(value) if type(value) is int else value


def the_count(count: Any) -> Any:
    """``count`` itself: the recipe of a closed form without letters.

    Parameters
    ----------
    count : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr
    """
    return count


def cell_module(name: str, type: str, cell: Cell, layout: Convention = KERAS) -> CellModule:
    """A cell's weights laid out by ``layout`` (``kernel``, ``recurrent_kernel``, ``bias``).

    Parameters
    ----------
    name : str
        The module's name (``"lstm_cell"``).
    type : str
        Its class (``"LSTMCell"``).
    cell : Cell
    layout : Convention, default :data:`KERAS`

    Returns
    -------
    CellModule
    """
    laid = layout.layout(cell)
    return CellModule(
        name,
        type,
        tuple(Param(t.name, tuple(plain(d) for d in t.shape)) for t in laid),
        sep="/",
        parameters=tuple(t.parameters for t in laid),
    )


def weights(module: Module, prefix: str = "") -> list[Weight]:
    """Every weight of ``module`` with its Keras path (``prefix`` prepended) and shape.

    Parameters
    ----------
    module : derive.tree.Module
    prefix : str
        Prepended to every path (a wrapper's or a model's name and ``/``).

    Returns
    -------
    list of Weight
        In the order of ``layer.weights``.
    """
    held = [
        ps
        for _, m in named_modules(module)
        for ps in (m.parameters if isinstance(m, CellModule) else ((),) * len(m.params))
    ]
    return [Weight(prefix + name, p.shape, ps) for (name, p), ps in zip(named_parameters(module), held, strict=True)]


def keras_shape(shape: Any) -> Any:
    """The shape Keras shows (``layer.output.shape``): the batch axis first, as None.

    Parameters
    ----------
    shape : tuple or list of tuple
        Without the batch axis; a list for several outputs.

    Returns
    -------
    tuple or list of tuple
    """
    return [(None, *s) for s in shape] if isinstance(shape, list) else (None, *shape)


def unexpected_keywords(cls: type, kwargs: dict[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
    """Refuse a keyword a recurrent layer does not take (TypeError, as Python words it).

    Parameters
    ----------
    cls : type
    kwargs : dict
    allowed : frozenset of str

    Returns
    -------
    dict
        ``kwargs``.

    Raises
    ------
    TypeError
        A keyword not in ``allowed``.
    """
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
    return kwargs


def check_kwargs(cls_name: str, kwargs: dict, allowed: frozenset[str]) -> None:
    """Refuse an unknown keyword as the framework does (TypeError naming it).

    Parameters
    ----------
    cls_name : str
        The layer's class name, for the message.
    kwargs : dict
        The extra keywords received.
    allowed : frozenset of str
        Keywords accepted and ignored.

    Raises
    ------
    TypeError
        A keyword not in ``allowed``, or ``**`` unpacking (whose keys derive cannot see).
    """
    if "**" in kwargs:
        raise TypeError(f"{cls_name}: keyword unpacking (**kwargs) hides the arguments; write them out")
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise TypeError(f"Unrecognized keyword arguments passed to {cls_name}: {unknown}")


def layer_name(name: object, default: str) -> str:
    """A layer's ``name`` argument, or ``default``; refused where Keras refuses it.

    Parameters
    ----------
    name : object
    default : str

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Not a string, or containing ``/`` (Keras' message).
    """
    if name is None:
        return default
    if not isinstance(name, str) or "/" in name:
        raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. Received: name={name!r}")
    return name


def snake(name: str) -> str:
    """Keras' automatic layer name for a class name (``keras/src/utils/naming.py``, ``to_snake_case``).

    Parameters
    ----------
    name : str
        A class name, e.g. ``"GlobalAveragePooling1D"``.

    Returns
    -------
    str

    Examples
    --------
    >>> snake("GlobalAveragePooling1D"), snake("LSTM"), snake("ConvLSTM2D"), snake("SimpleRNN")
    ('global_average_pooling1d', 'lstm', 'conv_lstm2d', 'simple_rnn')
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
