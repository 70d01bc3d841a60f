"""The base of the recurrent layers and wrappers: weights for an input width, output shapes once built.

A Keras recurrent layer knows its weights only once it knows its input. It learns it as Keras layers
do, from its own ``input_dim``, ``input_shape`` or ``batch_input_shape`` (:func:`.base.given_input`):
then :attr:`Recurrent.count` is its count. :meth:`Recurrent.module` takes the input's features (or
reads the given ones), :meth:`Recurrent.build` the whole input shape (and checks its rank as Keras
does), giving the output shape(s) and the lazy closed form in ``I`` and ``H``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..._sympy import sympy
from ...engine.symbols import Size, plain
from ...tree import Formula, Letter, Module, count
from .base import InputCounted, KerasFormula, Weight, given_input, keras_shape, weights

__all__ = ["Recurrent"]


def _module_of(layer: Recurrent, features: Size) -> Module:
    """The layer's weights on ``features`` (a closed form's recipe: a layer with letters as its
    ``units``, :meth:`Recurrent.letters`, is remade with their symbols)."""
    return layer.with_symbols()._module(features)


class Recurrent(InputCounted, ABC):
    """A recurrent layer or wrapper: its weights for an input width, its output, its shapes once built.

    :attr:`count` (:class:`.base.InputCounted`) is the layer's ``count_params()`` once it was given its
    input (``input_dim=``, ``input_shape=``, ``batch_input_shape=``).
    """

    INPUT_HINT = "input_dim=<features per time step>, or input_shape=(steps, features)"

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
    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """The weights on ``input_dim`` features (checked by :meth:`module`, not here)."""

    def module(self, input_dim: Size | None = None, prefix: str = "") -> Module:
        """The layer's weights as a module tree, named as Keras names them (``sep="/"``).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the input: features per time step (channels for ConvLSTM); default the
            input the layer was given.
        prefix : str
            Prepended to the module's name (a parent's path and ``/``).

        Returns
        -------
        derive.tree.Module

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer, other than the input the layer was given, or
            missing when the layer was given none.
        """
        return self._module(self.input_of(input_dim), prefix)

    def _take_input(self, kwargs: dict[str, Any]) -> None:
        """Keep the input the constructor's keywords give (:func:`.base.given_input`), its rank checked."""
        given = given_input(type(self).__name__, kwargs, self.features)
        if given is not None and given.shape is not None:
            self._check_rank(given.shape)
        self.input_given = given

    def _check_rank(self, input_shape: tuple) -> None:
        """Keras' refusal of an input of the wrong rank (no batch axis in ``input_shape``)."""
        rank = self.input_rank - 1
        if len(input_shape) != rank:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim={rank + 1}, found ndim={len(input_shape) + 1}. Full shape received: "
                f"{(None, *input_shape)}"
            )

    @abstractmethod
    def output_dim(self, input_dim: Size | None = None) -> Size | list[Size]:
        """Last dimension of the output: what the next layer reads.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the input (the output's width does not depend on it).
        """

    @abstractmethod
    def state_widths(self) -> list[Size]:
        """The widths of the states ``return_state=True`` returns, in Keras' order."""

    def letters(self) -> tuple[Recurrent, int] | None:
        """The same layer with its int ``units`` as the letter ``H`` (a :class:`derive.tree.Letter`,
        for the closed form), and the units; None when the closed form does not name them."""
        return None

    def with_symbols(self) -> Recurrent:
        """The layer with the letters :meth:`letters` put in made SymPy symbols (itself when none)."""
        return self

    def tensors(self, input_dim: Size | None = None, prefix: str = "") -> list[Weight]:
        """Every weight, with its Keras path and shape, for an input whose last dimension is ``input_dim``.

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Features per time step (channels for ConvLSTM); default the input the layer was given.
        prefix : str
            Prepended to every path (a wrapper's or a model's name and ``/``).

        Returns
        -------
        list of Weight
            In the order of ``layer.weights``; no ``bias`` when ``use_bias=False``.

        Raises
        ------
        TypeError, ValueError
            As :meth:`module`.
        """
        return weights(self.module(input_dim), prefix)

    def _count_on(self, input_dim: Size | None) -> int | sympy.Expr:
        """``count_params()`` on ``input_dim`` features (None: the given input): an ``int`` when every
        size is an int, else a closed form."""
        return plain(count(self.module(input_dim)))

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
        if input_shape and input_shape[0] is Ellipsis:
            features = input_shape[-1]
        else:
            self._check_rank(input_shape)
            features = self.features(input_shape)
        if features is None:
            raise ValueError(f"{self.name}: the feature (channel) dimension of its input is unknown (None)")
        out = self._output(input_shape, features)
        module = self._module(features)  # as Keras' layer.build(shape): the shape built on, whatever was given
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
            features = Letter("I")
        layer: Recurrent = self
        lettered = self.letters()
        if lettered is not None:
            layer, values["H"] = lettered
        return KerasFormula(_module_of, (layer, features), values=tuple(values.items()))

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
