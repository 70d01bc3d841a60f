"""What every Keras layer of the mirror shares: its weights on the module tree, names, argument checks.

A layer's weights are a :class:`derive.tree.Module` named as Keras names them (``sep="/"``:
``bidirectional/forward_lstm/lstm_cell/kernel``); :class:`Weight` is the view
:func:`derive.keras.tensors` gives of it, with each recurrent tensor's cell parameters.
:class:`Recurrent` is the base of the recurrent layers and wrappers (their input width is known
only when they are built, as in Keras).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import sympy

from ...cells import Cell, Parameter
from ...engine.conventions import Convention
from ...engine.symbols import I, Size, plain
from ...tree import Formula, Module, Param, count, named_modules, named_parameters
from .conventions import KERAS

__all__ = [
    "Weight",
    "CellModule",
    "cell_module",
    "weights",
    "as_count",
    "keras_shape",
    "Recurrent",
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

    Attributes
    ----------
    parameters : tuple of tuple of Parameter
        For each of :attr:`params`, the cell parameters it stacks, in Keras' order.
    """

    parameters: tuple[tuple[Parameter, ...], ...] = ()


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


def as_count(value: Any) -> sympy.Expr:
    """A count as ``derive.keras`` gives it: a ``sympy.Integer`` for an int, an expression unchanged.

    Parameters
    ----------
    value : int or sympy.Expr

    Returns
    -------
    sympy.Expr
    """
    return sympy.Integer(value) if type(value) is int else value


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


def _module_of(layer: Recurrent, features: Size) -> Module:
    return layer.module(features)


class Recurrent(ABC):
    """A recurrent layer or wrapper: its weights for an input width, its output, its shapes once built."""

    name: str
    return_sequences: bool
    return_state: bool
    go_backwards: bool
    stateful: bool
    #: ``"channels_last"``, or a ConvLSTM's ``data_format``.
    data_format: str = "channels_last"

    @property
    @abstractmethod
    def input_rank(self) -> int:
        """ndim of the input Keras expects."""

    @property
    @abstractmethod
    def output_rank(self) -> int:
        """ndim of the output."""

    @abstractmethod
    def module(self, input_dim: Size, prefix: str = "") -> Module:
        """The layer's weights as a module tree, named as Keras names them (``sep="/"``).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input: features per time step (channels for ConvLSTM).
        prefix : str
            Prepended to the module's name (a parent's path and ``/``).

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """

    @abstractmethod
    def output_dim(self, input_dim: Size) -> Size | list[Size]:
        """Last dimension of the output: what the next layer reads.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input.
        """

    @abstractmethod
    def state_widths(self) -> list[Size]:
        """The widths of the states ``return_state=True`` returns, in Keras' order."""

    def letters(self) -> tuple[Recurrent, int] | None:
        """The same layer with its int ``units`` as the letter ``H`` (for the closed form), and the
        units; None when the closed form does not name them."""
        return None

    def tensors(self, input_dim: Size, prefix: str = "") -> list[Weight]:
        """Every weight, with its Keras path and shape, for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Features per time step (channels for ConvLSTM).
        prefix : str
            Prepended to every path (a wrapper's or a model's name and ``/``).

        Returns
        -------
        list of Weight
            In the order of ``layer.weights``; no ``bias`` when ``use_bias=False``.

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        return weights(self.module(input_dim), prefix)

    def count(self, input_dim: Size) -> sympy.Expr:
        """Number of parameters (``layer.count_params()``).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input: features per time step (channels for ConvLSTM).

        Returns
        -------
        sympy.Expr
            A ``sympy.Integer`` when every size is an int, else a closed form.
        """
        return as_count(count(self.module(input_dim)))

    def features(self, input_shape: tuple) -> Any:
        """The input dimension the weights read: the last, or the channels axis with ``channels_first``.

        Parameters
        ----------
        input_shape : tuple
            Without the batch axis.

        Returns
        -------
        int, sympy.Expr or None
        """
        if self.data_format == "channels_first" and len(input_shape) == self.input_rank - 1:
            return input_shape[1]
        return input_shape[-1] if input_shape else None

    def spatial_output(self, spatial: tuple) -> tuple:
        """The output's spatial axes for input spatial axes ``spatial`` (ConvLSTM convolves them).

        Parameters
        ----------
        spatial : tuple

        Returns
        -------
        tuple
        """
        return spatial

    def build(self, input_shape: tuple) -> tuple[Module, Any]:
        """The weights and the output shape(s) for an input of ``input_shape`` (no batch axis).

        Parameters
        ----------
        input_shape : tuple
            (T, features) or (T, *spatial, channels); a leading ``...`` when only the features
            are known.

        Returns
        -------
        (derive.tree.Module, tuple or list)
            The module (with its lazy closed form in ``I`` and ``H``, and the output shape as
            Keras shows it) and the output shape — a list with ``return_state`` (output, then
            the states) or ``merge_mode=None`` (the two outputs).

        Raises
        ------
        ValueError
            Wrong rank (Keras' "expected ndim=3, found ndim=2"), unknown features.
        """
        rank = self.input_rank - 1
        if input_shape and input_shape[0] is Ellipsis:
            features = input_shape[-1]
        else:
            if len(input_shape) != rank:
                raise ValueError(
                    f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                    f"ndim={rank + 1}, found ndim={len(input_shape) + 1}. Full shape received: "
                    f"{(None, *input_shape)}"
                )
            features = self.features(input_shape)
        if features is None:
            raise ValueError(f"{self.name}: the feature (channel) dimension of its input is unknown (None)")
        out = self._output(input_shape, features)
        module = self.module(features)
        return module.replace(formula=self.recipe(features), output_shape=keras_shape(out)), out

    def recipe(self, features: Size) -> Formula:
        """The closed form's recipe: the layer on ``I`` features (an int width) and ``H`` units.

        Parameters
        ----------
        features : int or sympy.Expr

        Returns
        -------
        derive.tree.Formula
        """
        values: dict[str, Any] = {}
        if type(features) is int:
            values["I"] = features
            features = I
        layer: Recurrent = self
        lettered = self.letters()
        if lettered is not None:
            layer, values["H"] = lettered
        return Formula(_module_of, (layer, features), values=tuple(values.items()))

    def _output(self, input_shape: tuple, features: Any) -> Any:
        unknown = bool(input_shape) and input_shape[0] is Ellipsis
        first = self.data_format == "channels_first"
        spatial = () if unknown else self.spatial_output(tuple(input_shape[2:] if first else input_shape[1:-1]))

        def step(width: Any) -> tuple:
            if unknown:
                return (Ellipsis, width)
            return (width, *spatial) if first else (*spatial, width)

        out = self.output_dim(features)
        outputs = [
            (input_shape[0], *step(w)) if self.return_sequences and not unknown else step(w)
            for w in (out if isinstance(out, list) else [out])
        ]
        if self.return_state:
            outputs += [step(w) for w in self.state_widths()]
        return outputs[0] if len(outputs) == 1 else outputs
