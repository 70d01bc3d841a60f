"""The base of the Keras layers without recurrence: weights known once the input shape is.

A Keras layer knows its weights only once it sees its input, so each layer here has
``build(input_shape) -> (Module, output_shape)``: its weights as a :class:`derive.tree.Module`
named as Keras names them (with the lazy closed form and the output shape as Keras shows it), and
the output shape for the next layer. Shapes exclude the batch axis, unknown dimensions are None
and a leading ``...`` means "any leading dimensions". A layer learns its input as Keras layers do,
from its own ``input_shape=`` (``batch_input_shape=``, the batch axis first) or ``input_dim=`` (the
last axis); then ``.count`` is its ``count_params()``, as it is for a layer whose weights do not
depend on its input (``Embedding``, the layers without weights). ``count_params()`` counts
non-trainable weights too (BatchNormalization's moving statistics), and so does ``.count``.

>>> from derive.keras import Dense, Embedding
>>> Dense(10, input_shape=(256,)).count, Dense(10, input_dim=256).count, Embedding(1000, 64).count
(2570, 2570, 64000)

The closed form is the layer remade with each int size argument (``SIZES``) replaced by its letter
and the input's last axis by ``I``, built only when asked (:class:`derive.tree.Formula`).
"""

from __future__ import annotations

from typing import Any

from ...engine import validate
from ...engine.symbols import plain
from ...tree import Formula, Letter, Module, count
from .base import (
    KERAS_COMMON,
    InputCounted,
    KerasFormula,
    Weight,
    check_kwargs,
    given_input,
    keras_shape,
    the_count,
    weights,
)

__all__ = ["KerasLayer", "last_axis", "Shape"]

#: A shape without the batch axis: ints, SymPy expressions, ``None`` (unknown), ``Ellipsis`` (unknown rank).
Shape = tuple


def last_axis(shape: Shape, layer: str) -> Any:
    """The input's last dimension, which the layer's weights read.

    Parameters
    ----------
    shape : tuple
    layer : str
        The layer's name, for the message.

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        Unknown rank or an unknown (None) last dimension (Keras' message).
    """
    if not shape or shape[-1] is Ellipsis:
        raise ValueError(f"{layer}: the last dimension of its input is unknown; give the model's input shape")
    if shape[-1] is None:
        raise ValueError(f"The last dimension of the input to {layer} should be defined. Found None.")
    return shape[-1]


def _remade(cls: type[KerasLayer], arguments: tuple[tuple[str, Any], ...], shape: Any) -> Module:
    """The module of ``cls(**arguments)`` built on ``shape`` (a closed form's recipe)."""
    return cls(**dict(arguments))._build(shape)[0]


class KerasLayer(InputCounted):
    """A Keras layer without recurrence (``name`` defaults to the snake-case class name).

    Subclasses set ``SIZES`` (constructor argument -> letter of the closed form), keep their
    arguments (:meth:`_keep`) and write :meth:`_build`. :attr:`count`
    (:class:`.base.InputCounted`) is the layer's ``count_params()`` once it was given its input
    (``input_shape=``, ``batch_input_shape=``, ``input_dim=``), or when its weights do not depend
    on it.
    """

    INPUT_HINT = "input_shape=<the input's shape without the batch axis>, or input_dim=<its last axis>"

    default_name = ""
    ALLOWED: frozenset[str] = frozenset()
    SIZES: dict[str, str] = {}
    READS_LAST = True
    name: str
    _arguments: dict[str, Any]

    def _keep(self, arguments: dict[str, Any]) -> None:
        self._arguments = {k: v for k, v in arguments.items() if k not in ("self", "__class__")}

    def _size(self, name: str, value: Any, minimum: int = 1) -> Any:
        return validate.size(name, value, minimum=minimum)

    def _common(self, kwargs: dict) -> None:
        check_kwargs(type(self).__name__, kwargs, KERAS_COMMON | self.ALLOWED)
        self.name = kwargs.get("name") or self.default_name
        self.kwargs = kwargs
        self.input_given = given_input(type(self).__name__, kwargs, known=False)

    def _empty(self) -> Module:
        return Module(self.name, type(self).__name__, sep="/")

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """The module and the output shape (a layer without weights: the input's shape)."""
        return self._empty(), input_shape

    def build(self, input_shape: Any) -> tuple[Module, Any]:
        """The weights and the output shape for an input of ``input_shape``.

        Parameters
        ----------
        input_shape : tuple
            Without the batch axis; None for an unknown dimension; a list of shapes for merging layers.

        Returns
        -------
        (derive.tree.Module, tuple)
            The weights, named as Keras names them, with the closed form (built when read) and the
            output shape as Keras shows it (batch axis None); the output shape without the batch axis.

        Raises
        ------
        ValueError
            The input shape does not fit the layer (worded as Keras words it).
        """
        module, out = self._build(input_shape)
        return module.replace(formula=self.recipe(input_shape, module), output_shape=keras_shape(out)), out

    def recipe(self, input_shape: Any, module: Module) -> Formula | None:
        """The closed form's recipe for an input of ``input_shape`` (``module`` the layer built on it).

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module

        Returns
        -------
        derive.tree.Formula or None
            The layer remade with letters; for a layer without size arguments, its count (the
            values name ``I``, the input's last axis, as the layers with sizes do).
        """
        values: dict[str, Any] = {}
        shape = input_shape
        if self.READS_LAST and isinstance(shape, tuple) and shape and isinstance(shape[-1], int):
            values["I"] = shape[-1]
            shape = shape[:-1] + (Letter("I"),)
        if not getattr(self, "_arguments", None):  # no size arguments: the count (no letter in it)
            return KerasFormula(the_count, (count(module),), values=tuple(values.items()))
        arguments = dict(self._arguments)
        extra = arguments.pop("kwargs", {}) or {}
        for argument, letter in self.SIZES.items():
            value = arguments.get(argument)
            if isinstance(value, int) and not isinstance(value, bool):
                arguments[argument] = Letter(letter)
                values[letter] = value
        return KerasFormula(
            _remade, (type(self), tuple(sorted({**arguments, **extra}.items())), shape), values=tuple(values.items())
        )

    def module(self, input_dim: Any = None, prefix: str = "") -> Module:
        """The weights for an input whose last dimension is ``input_dim`` (default: the input given).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            The input's last dimension; default the input the layer was given (built on its whole
            shape when ``input_shape`` or ``batch_input_shape`` gave it).
        prefix : str
            Prepended to the module's name (a parent's path and ``/``).

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer, other than the given input's last axis, or missing
            when the layer was given no input; an input shape that does not fit the layer.
        """
        features = self.input_of(input_dim)
        given = self.input_given
        shape = given.shape if input_dim is None and given is not None and given.shape is not None else None
        module, _ = self._build(shape if shape is not None else (Ellipsis, features))
        return module.replace(name=prefix + module.name)

    def _count_on(self, input_dim: Any) -> Any:
        """``count_params()`` on an input whose last dimension is ``input_dim`` (None: the given input)."""
        return plain(count(self.module(input_dim)))

    def _count_without_input(self) -> Any:
        """The count when it does not depend on the input: the layer built on ``(..., I)`` for a symbol
        I (SymPy imported) gives a count without it; None when it does depend on it, or the layer needs
        more of the input's shape."""
        from ..._sympy import symbol

        probe = symbol("input_dim_probe", integer=True)
        try:
            value = count(self._build((Ellipsis, probe))[0])
        except (TypeError, ValueError):
            return None
        if type(value) is not int and probe in getattr(value, "free_symbols", {probe}):
            return None
        return plain(value)

    def tensors(self, input_dim: Any = None, prefix: str = "") -> list[Weight]:
        """Every weight with its Keras path and shape, for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Default the input the layer was given.
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight

        Raises
        ------
        TypeError, ValueError
            As :meth:`module`.
        """
        return weights(self.module(input_dim), prefix)

    def formula(self, input_shape: Any) -> tuple[Any, dict[str, Any]]:
        """Closed form in letters (``I`` the input's last dimension) and the letters' values.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        tuple of (sympy.Expr, dict)
        """
        recipe = self.build(input_shape)[0].formula
        assert recipe is not None  # build always gives one
        return recipe.expr, dict(recipe.values)

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in getattr(self, "_arguments", {}).items() if k != "kwargs"]
        given = getattr(self, "input_given", None)
        return f"{type(self).__name__}({', '.join(parts + ([given.text] if given is not None else []))})"
