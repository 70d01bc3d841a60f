"""What every Keras layer of the mirror shares: its weights on the module tree, names, argument checks.

A layer's weights are a :class:`derive.tree.Module` named as Keras names them (``sep="/"``:
``bidirectional/forward_lstm/lstm_cell/kernel``); :class:`Weight` is the view
:func:`derive.keras.tensors` gives of it, with each recurrent tensor's cell parameters.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from ..._sympy import sympy
from ...cells import Cell, Parameter
from ...engine import validate
from ...engine.conventions import Convention
from ...engine.symbols import Size, as_expr, plain
from ...tree import Formula, Module, Param, closed_form, named_modules, named_parameters
from .conventions import KERAS

__all__ = [
    "Weight",
    "GivenInput",
    "given_input",
    "same_size",
    "InputCounted",
    "NoInput",
    "INPUT_KEYWORDS",
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
#: Keyword arguments the recurrent layers pass on to ``Layer.__init__`` (keras/src/layers/layer.py), and
#: Keras 2's input arguments (``batch_input_shape``, ``batch_size``: ``keras/engine/base_layer.py``).
LAYER_KWARGS = frozenset(
    {"name", "dtype", "trainable", "autocast", "input_dim", "input_shape", "batch_input_shape", "batch_size"}
)
#: ... and to ``RNN.__init__`` (Keras 2's recurrent layers also took ``input_length``, the steps).
RNN_KWARGS = LAYER_KWARGS | {"zero_output_for_mask", "input_length"}
#: Keyword arguments a cell passes on to ``Layer.__init__``.
CELL_KWARGS = LAYER_KWARGS | {"activity_regularizer"}

#: The keywords that give a layer its input, as Keras layers take them: ``input_dim`` and
#: ``input_shape`` (Keras 3's ``Layer.__init__``, keras/src/layers/layer.py, with a warning; Keras 2's
#: base layer) and ``batch_input_shape`` (Keras 2's, the batch axis first).
INPUT_KEYWORDS = ("input_dim", "input_shape", "batch_input_shape")

#: Where Keras refuses to count a layer not yet built (``Layer.count_params`` raises ValueError).
UNBUILT_SOURCE = "keras/src/layers/layer.py, Layer.count_params (Keras 3.15)"


def same_size(a: Size, b: Size) -> bool:
    """Whether two sizes are equal: ints compared as ints (no SymPy), expressions expanded.

    Parameters
    ----------
    a, b : int or sympy.Expr

    Returns
    -------
    bool
    """
    if type(a) is int and type(b) is int:
        return a == b
    from ..._sympy import sympy as _sympy

    return bool(_sympy.expand(as_expr(a) - as_expr(b)) == 0)


@dataclass(frozen=True)
class GivenInput:
    """The input a layer was given by its own keywords (:data:`INPUT_KEYWORDS`).

    Attributes
    ----------
    features : int, sympy.Expr or None
        What the weights read: ``input_dim``, or the features axis of the shape (the last; the
        channels axis of a ConvLSTM with ``data_format="channels_first"``); None where the shape
        leaves it unknown (a layer without recurrence, built on :attr:`shape`).
    shape : tuple or None
        The input's shape without the batch axis, when ``input_shape`` or ``batch_input_shape`` gave
        it; None when only ``input_dim`` did.
    text : str
        The keywords as written (``"input_dim=28"``), for messages and the layer's ``repr``.
    """

    features: Size | None
    shape: tuple[Any, ...] | None
    text: str


def _last(shape: tuple[Any, ...]) -> Any:
    return shape[-1] if shape else None


def given_input(
    owner: str,
    kwargs: Mapping[str, Any],
    features: Callable[[tuple[Any, ...]], Any] = _last,
    *,
    known: bool = True,
) -> GivenInput | None:
    """The input a layer's keywords give: ``input_dim``, or the features of ``input_shape`` / ``batch_input_shape``.

    Keras 3 reads ``input_dim`` as ``input_shape=(input_dim,)`` (``Layer.__init__``); the mirror reads
    it as Keras 2 did, the features the weights read (per time step for a recurrent layer).

    Parameters
    ----------
    owner : str
        The layer's class name, for the messages.
    kwargs : mapping
        The constructor's keywords.
    features : callable (shape without the batch axis) -> size or None, default the last axis
        The axis the weights read (:meth:`derive.frameworks.keras.recurrent_base.Recurrent.features`).
    known : bool, default True
        Refuse a shape whose features are unknown (None); False: keep it, the layer built on the
        whole shape (an ``Embedding`` on ``input_shape=(None,)``).

    Returns
    -------
    GivenInput or None
        None when no input keyword was given.

    Raises
    ------
    TypeError
        ``input_dim`` not an integer, a shape not a tuple or list.
    ValueError
        ``input_dim`` <= 0; a shape whose features axis is unknown (None) or missing; two of the
        keywords that disagree (both named).
    """
    readings: list[tuple[str, Any, tuple[Any, ...] | None]] = []
    if kwargs.get("input_dim") is not None:
        dim = validate.size("input_dim", kwargs["input_dim"])
        readings.append((f"input_dim={dim!r}", dim, None))
    for key, batch in (("input_shape", False), ("batch_input_shape", True)):
        value = kwargs.get(key)
        if value is None:
            continue
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{owner}: {key} must be a tuple (the input's shape), got {value!r}")
        written = tuple(value)
        shape: tuple[Any, ...] | None = written[1:] if batch else written
        width = features(shape) if shape else None
        if width is None and known:
            raise ValueError(f"{owner}: {key}={written!r} leaves the features its weights read unknown")
        readings.append((f"{key}={written!r}", None if width is None else validate.size(key, width), shape))
    if not readings:
        return None
    text, width, shape = readings[0]
    for other, other_width, other_shape in readings[1:]:
        features_differ = width is not None and other_width is not None and not same_size(width, other_width)
        if features_differ or (shape is not None and other_shape is not None and shape != other_shape):
            raise ValueError(f"{owner}: {text} and {other} disagree: give one")
        width = width if width is not None else other_width
        shape = shape if shape is not None else other_shape
    return GivenInput(width, shape, ", ".join(r[0] for r in readings))


class NoInput:
    """What ``.count`` is on a layer of :mod:`derive.keras` not given its input: no number.

    A Keras layer's weights depend on its input, and Keras itself refuses to count a layer before it
    is built (:data:`UNBUILT_SOURCE`). Every numeric use (``==``, ``<``, ``+``, ``int()``, ``bool()``,
    ``format(x, ",")``, hashing, SymPy) raises TypeError saying so and how to give the input; the
    ``repr`` says the same. Called, ``layer.count(input_dim)`` is the old spelling: it returns the count
    on ``input_dim``, with a DeprecationWarning naming the new one.

    Parameters
    ----------
    owner : InputCounted
        The layer.
    """

    __slots__ = ("_owner",)

    def __init__(self, owner: InputCounted) -> None:
        self._owner = owner

    @property
    def message(self) -> str:
        """Why there is no count, and how to give the layer its input."""
        owner = self._owner
        return (
            f"{owner!r}.count: the layer was not given its input, and a Keras layer's weights depend on its "
            f"input (Keras' own count_params() raises on a layer not yet built: {UNBUILT_SOURCE}). Give it "
            f"as Keras layers take it, {owner._input_hint()}, then read .count; or count it on an input: "
            f"derive.keras.count(layer, input_dim)"
        )

    def __call__(self, input_dim: Any) -> Any:
        """The count on ``input_dim`` (deprecated: give the layer its input and read ``.count``).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            The features the layer's weights read.

        Returns
        -------
        int or sympy.Expr
        """
        warnings.warn(
            f"{self._owner!r}.count({input_dim!r}) is deprecated: .count is the count, an attribute, on every "
            f"derive object; write {self._owner._spelled(input_dim)}.count, or derive.keras.count(layer, "
            f"{input_dim!r})",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._owner._count_on(input_dim)

    def _refuse(self, *args: Any) -> NoReturn:
        raise TypeError(self.message)

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _refuse
    __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = __round__ = _refuse
    __int__ = __float__ = __complex__ = __index__ = __bool__ = _refuse
    __hash__ = _refuse
    _sympy_ = _refuse  # sympify(x), sympy.expand(x): the same refusal

    def __format__(self, spec: str) -> str:
        if spec:
            self._refuse()
        return repr(self)

    def __repr__(self) -> str:
        return f"<{self.message}>"


class InputCounted:
    """A layer that learns its input as Keras layers do: ``.count`` is its count once it has one.

    Subclasses set :attr:`input_given` (:func:`given_input`) and write :meth:`_count_on`.
    """

    #: The input the layer's own keywords gave, or None.
    input_given: GivenInput | None = None
    #: How to give the input, for the messages.
    INPUT_HINT = "input_dim=<features> or input_shape=(..., features)"

    @property
    def count(self) -> Any:
        """The number of parameters (Keras' ``count_params()``): an ``int`` when every size is an int,
        else a SymPy closed form; a :class:`NoInput` (no number: every numeric use raises TypeError)
        while the layer has not been given its input."""
        if self.input_given is None:
            known = self._count_without_input()
            return NoInput(self) if known is None else known
        return self._count_on(None)

    def _count_on(self, input_dim: Any) -> Any:
        """The count on ``input_dim`` (None: the given input)."""
        raise NotImplementedError

    def _count_without_input(self) -> Any:
        """The count of a layer whose weights do not depend on its input; None when they do."""
        return None

    def _input_hint(self) -> str:
        return f"{self._spelled('...')} ({self.INPUT_HINT})"

    def _spelled(self, input_dim: Any) -> str:
        """The layer as written with ``input_dim`` given (``"LSTM(128, input_dim=28)"``)."""
        shown = repr(self)
        if not shown.endswith(")"):
            return shown
        return f"{shown[:-1]}{'' if shown.endswith('()') else ', '}input_dim={input_dim})"

    def input_of(self, input_dim: Any) -> Any:
        """The features the weights read: ``input_dim``, else the given input's.

        Parameters
        ----------
        input_dim : int, sympy.Expr or None

        Returns
        -------
        int or sympy.Expr

        Raises
        ------
        TypeError
            No ``input_dim`` and no input given; ``input_dim`` not an integer.
        ValueError
            ``input_dim`` <= 0, or other than the input the layer was given.
        """
        given = self.input_given
        if input_dim is None:
            if given is None:
                raise TypeError(
                    f"{self!r} was not given its input: pass input_dim (the features its weights read), or give "
                    f"the layer its input as Keras layers take it, {self._input_hint()}"
                )
            return given.features
        input_dim = validate.size("input_dim", input_dim)
        if given is not None and given.features is not None and not same_size(input_dim, given.features):
            raise ValueError(f"{self!r}: input_dim={input_dim!r} disagrees with the input it was given ({given.text})")
        return input_dim

    def _input_repr(self) -> str:
        """``", input_dim=28"`` (the given input as written) or ``""``, for the ``repr``."""
        return "" if self.input_given is None else ", " + self.input_given.text


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
