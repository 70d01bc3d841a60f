"""The base of the Keras layers without recurrence: weights known once the input shape is.

A Keras layer knows its weights only once it sees its input, so each layer here has
``build(input_shape) -> (Module, output_shape)``: its weights as a :class:`derive.tree.Module`
named as Keras names them (with the lazy closed form and the output shape as Keras shows it), and
the output shape for the next layer. Shapes exclude the batch axis, unknown dimensions are None
and a leading ``...`` means "any leading dimensions". ``count(input_dim)`` is the short form for
a layer that reads the last axis. ``count_params()`` counts non-trainable weights too
(BatchNormalization's moving statistics), and so does ``count``.

The closed form is the layer remade with each int size argument (``SIZES``) replaced by its letter
and the input's last axis by ``I``, built only when asked (:class:`derive.tree.Formula`).
"""

from __future__ import annotations

from typing import Any

from ...engine import validate
from ...tree import Formula, Letter, Module, count
from .base import KERAS_COMMON, KerasFormula, Weight, check_kwargs, keras_shape, the_count, weights

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


class KerasLayer:
    """A Keras layer without recurrence (``name`` defaults to the snake-case class name).

    Subclasses set ``SIZES`` (constructor argument -> letter of the closed form), keep their
    arguments (:meth:`_keep`) and write :meth:`_build`.
    """

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

    def module(self, input_dim: Any, prefix: str = "") -> Module:
        """The weights for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
        prefix : str
            Prepended to the module's name (a parent's path and ``/``).

        Returns
        -------
        derive.tree.Module
        """
        module, _ = self._build((Ellipsis, input_dim))
        return module.replace(name=prefix + module.name)

    def count(self, input_dim: Any) -> Any:
        """``count_params()`` on an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr

        Returns
        -------
        int or sympy.Expr
        """
        return count(self.module(input_dim))

    def tensors(self, input_dim: Any, prefix: str = "") -> list[Weight]:
        """Every weight with its Keras path and shape, for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr
        prefix : str
            Prepended to every path.

        Returns
        -------
        list of Weight
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
        return f"{type(self).__name__}({', '.join(parts)})"
