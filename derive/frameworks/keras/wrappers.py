"""Keras 3's wrappers, compositions of the layers they wrap: ``Bidirectional`` and ``TimeDistributed``.

Each is one layer for the user (one row of a model's table: ``row=True``) whose module's children
are the wrapped layers' modules, named as Keras names their weights:
``bidirectional/forward_lstm/lstm_cell/kernel``, ``time_distributed/dense/kernel``.

>>> from derive.keras import LSTM, Dense
>>> from derive.tree import named_parameters
>>> [w.path for w in Bidirectional(LSTM(128), input_dim=28).tensors()][::3]
['bidirectional/forward_lstm/lstm_cell/kernel', 'bidirectional/backward_lstm/lstm_cell/kernel']
>>> Bidirectional(LSTM(128), input_dim=28).count   # Keras: Bidirectional(LSTM(128)) on 28 features
160768
>>> module, shape = TimeDistributed(Dense(4)).build((60, 256))
>>> [name for name, _ in named_parameters(module)], shape
(['time_distributed/dense/kernel', 'time_distributed/dense/bias'], (60, 4))
"""

from __future__ import annotations

import copy
from typing import Any

from ..._sympy import sympy
from ...engine.symbols import Size, as_expr
from ...engine.wirings import merged_width
from ...tree import Formula, Module
from .base import LAYER_KWARGS, layer_name, same_size, unexpected_keywords
from .conventions import MERGE_MODES
from .layer import KerasLayer
from .recurrent import RecurrentLayer
from .recurrent_base import Recurrent

__all__ = ["Bidirectional", "TimeDistributed"]


def _same(a: Size, b: Size) -> bool:
    return sympy.expand(as_expr(a) - as_expr(b)) == 0


class Bidirectional(Recurrent):
    """``keras.layers.Bidirectional(layer, merge_mode="concat", weights=None, backward_layer=None)``.

    Holds two independent layers (``keras/src/layers/rnn/bidirectional.py``): ``forward_layer``,
    a copy of ``layer`` named ``"forward_" + layer.name``, and ``backward_layer``, either the
    given one or a copy of ``layer`` with ``go_backwards=True`` named ``"backward_" + layer.name``.
    Its weights are the forward layer's then the backward layer's, under
    ``"<name>/forward_<layer>/..."`` and ``"<name>/backward_<layer>/..."``. The merge mode adds no
    weights; it sets what the next layer reads:

    ========  ==============================================================
    concat    [forward; backward]: H_f + H_b features (2H when they match)
    sum, mul  element-wise: H (the two layers' units must be equal)
    ave       element-wise mean: H (units must be equal)
    None      a list of the two outputs: cannot feed another layer
    ========  ==============================================================

    Note: Keras 3.15's ``Bidirectional.compute_output_shape`` reports 2·H_f for ``concat``
    whatever the backward layer's units, so a model built on it sizes the next layer for 2·H_f
    and fails on data (keras-team/keras#23688); the tensor the layer produces is H_f + H_b wide,
    and that is what :func:`count` follows.

    Parameters
    ----------
    layer : SimpleRNN, LSTM, GRU, RNN or ConvLSTM{1,2,3}D
    merge_mode : {"concat", "sum", "mul", "ave", None}
    weights
        Initial values; accepted and ignored.
    backward_layer : same types as ``layer``, optional
        Must have the opposite ``go_backwards`` and the same ``return_sequences``,
        ``return_state`` and ``stateful`` as ``layer``; its ``units`` may differ (``concat``, None).
    **kwargs
        Keras' layer arguments (``name``, default ``"bidirectional"``, ``dtype``, ...) and the
        input, as Keras layers take it (``input_dim``, ``input_shape=(steps, features)``,
        ``batch_input_shape``): with it, ``.count`` is the wrapper's count. Without them the
        wrapped layer's input is read, as Keras 2 read it (Keras 3 reads only the wrapper's).

    Raises
    ------
    ValueError
        ``layer`` or ``backward_layer`` not a recurrent layer of this module (Keras also raises
        ValueError); unknown ``merge_mode``; ``merge_mode`` sum/mul/ave with unequal units;
        the two layers' ``go_backwards`` equal, or ``return_sequences``/``return_state``/
        ``stateful`` different (as Keras); a ConvLSTM with ``data_format="channels_first"`` and
        ``merge_mode="concat"`` (Keras concatenates the last axis, a spatial one; not modelled);
        input keywords that disagree (the wrapper's own, or the wrapper's and the wrapped layer's).
    TypeError
        An unknown keyword.
    """

    def __init__(
        self,
        layer: RecurrentLayer,
        merge_mode: str | None = "concat",
        weights: object = None,
        backward_layer: RecurrentLayer | None = None,
        **kwargs: Any,
    ) -> None:
        unexpected_keywords(type(self), kwargs, LAYER_KWARGS | {"activity_regularizer"})
        if not isinstance(layer, RecurrentLayer):
            raise ValueError(
                f"layer must be a recurrent layer (SimpleRNN, LSTM, GRU, RNN, ConvLSTM1D/2D/3D), got {layer!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, RecurrentLayer):
            raise ValueError(f"backward_layer must be a recurrent layer or None, got {backward_layer!r}")
        if merge_mode not in MERGE_MODES:
            raise ValueError(
                f"Invalid merge_mode {merge_mode!r}. merge_mode should be one of 'sum', 'mul', 'ave', 'concat' or None"
            )
        self.name = layer_name(kwargs.get("name"), "bidirectional")
        self.merge_mode = merge_mode
        self.forward_layer = copy.copy(layer)
        self.forward_layer.name = "forward_" + layer.name.removeprefix("forward_")
        if backward_layer is None:
            self.backward_layer = copy.copy(layer)
            self.backward_layer.go_backwards = True
            self.backward_layer.name = "backward_" + layer.name.removeprefix("backward_")
        else:
            self.backward_layer = backward_layer
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value; "
                f"both have go_backwards={forward.go_backwards}"
            )
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise ValueError(
                    f"Forward layer and backward layer are expected to have the same value for "
                    f"attribute {attribute!r}, got {getattr(forward, attribute)!r} and "
                    f"{getattr(backward, attribute)!r}"
                )
        if type(forward).spatial_rank != type(backward).spatial_rank:
            raise ValueError("layer and backward_layer must read inputs of the same rank")
        if merge_mode in ("sum", "mul", "ave") and not _same(forward.units, backward.units):
            raise ValueError(
                f"merge_mode={merge_mode!r} combines the two outputs element-wise: the forward and "
                f"backward layers need equal units, got {forward.units} and {backward.units}"
            )
        if merge_mode == "concat" and "channels_first" in (
            getattr(forward, "data_format", None),
            getattr(backward, "data_format", None),
        ):
            raise ValueError(
                "merge_mode='concat' with data_format='channels_first' concatenates a spatial axis; not supported"
            )
        self.return_sequences = forward.return_sequences
        self.return_state = forward.return_state
        self.stateful = forward.stateful
        self.backward_given = backward_layer is not None
        self.data_format = forward.data_format
        self._take_input(kwargs)
        self.own_input = self.input_given
        owners: list[tuple[str, Recurrent]] = [("Bidirectional's", self)]
        owners += [
            (f"the wrapped {type(layer).__name__}'s", layer),
            (f"the backward {type(backward).__name__}'s", backward),
        ]
        known = [(f"{who} {x.input_given.text}", x.input_given) for who, x in owners if x.input_given is not None]
        for text, given in known[1:]:
            if not same_size(given.features, known[0][1].features):
                raise ValueError(f"Bidirectional: {known[0][0]} and {text} disagree: give one")
        if known:
            self.input_given = known[0][1]  # the wrapper's, else the wrapped layer's, as Keras 2 read it

    @property
    def input_rank(self) -> int:
        """ndim of the input: the wrapped layer's."""
        return self.forward_layer.input_rank

    @property
    def output_rank(self) -> int:
        """ndim of the (merged) output: the wrapped layer's."""
        return self.forward_layer.output_rank

    def _module(self, input_dim: Size, prefix: str = "") -> Module:
        """The forward layer's weights, then the backward layer's, under ``<prefix><name>/``
        (:meth:`module`, which checks ``input_dim`` against the given input, calls it).

        Parameters
        ----------
        input_dim : int or sympy.Expr
            Last dimension of the input, read by both layers.
        prefix : str
            Prepended to the module's name.

        Returns
        -------
        derive.tree.Module
            One row of a model's table, the two layers its children; ``merge_mode`` in its config.

        Raises
        ------
        TypeError, ValueError
            ``input_dim`` not a positive integer.
        """
        children = (self.forward_layer._module(input_dim), self.backward_layer._module(input_dim))
        return Module(
            prefix + self.name,
            "Bidirectional",
            children=children,
            sep="/",
            row=True,
            config={"merge_mode": self.merge_mode},
        )

    def state_widths(self) -> list[Size]:
        """The forward layer's states, then the backward layer's.

        Returns
        -------
        list of int or sympy.Expr
        """
        return self.forward_layer.state_widths() + self.backward_layer.state_widths()

    def spatial_output(self, spatial: tuple) -> tuple:
        """The wrapped layer's output spatial axes.

        Parameters
        ----------
        spatial : tuple

        Returns
        -------
        tuple
        """
        return self.forward_layer.spatial_output(spatial)

    def letters(self) -> tuple[Recurrent, int] | None:
        """Both layers with ``units`` as ``H`` (a SimpleRNN, LSTM or GRU with its own backward copy).

        Returns
        -------
        (Recurrent, int) or None
        """
        forward, backward = self.forward_layer.letters(), self.backward_layer.letters()
        if self.backward_given or forward is None or backward is None:
            return None
        lettered = copy.copy(self)
        lettered.forward_layer, lettered.backward_layer = forward[0], backward[0]  # type: ignore[assignment]
        return lettered, forward[1]

    def with_symbols(self) -> Recurrent:
        """The wrapper with its layers' letters (:meth:`letters`) made symbols."""
        forward, backward = self.forward_layer.with_symbols(), self.backward_layer.with_symbols()
        if forward is self.forward_layer and backward is self.backward_layer:
            return self
        made = copy.copy(self)
        made.forward_layer, made.backward_layer = forward, backward  # type: ignore[assignment]
        return made

    def output_dim(self, input_dim: Size | None = None) -> Size | list[Size]:
        """Last dimension of the merged output (see the class docstring).

        Parameters
        ----------
        input_dim : int or sympy.Expr, optional
            Last dimension of the input (the output's width does not depend on it).

        Returns
        -------
        int, sympy.Expr or list
            H_f + H_b (concat), H (sum, mul, ave), or a list of the two widths (None).
        """
        forward, backward = self.forward_layer.output_dim(input_dim), self.backward_layer.output_dim(input_dim)
        if self.merge_mode is None:
            return [forward, backward]
        return merged_width(self.merge_mode, (forward, backward))

    def __repr__(self) -> str:
        parts = [repr(self.forward_layer)]
        if self.merge_mode != "concat":
            parts.append(f"merge_mode={self.merge_mode!r}")
        if self.own_input is not None:
            parts.append(self.own_input.text)
        return f"Bidirectional({', '.join(parts)})"


class TimeDistributed(KerasLayer):
    """``keras.layers.TimeDistributed(layer)``: the inner layer's weights, applied to every time step.

    Parameters
    ----------
    layer : KerasLayer
        The layer applied to each (batch, *rest) slice: any layer of the Keras mirror
        (:mod:`derive.keras`), a recurrent layer or a ``Bidirectional`` included.
    **kwargs
        Layer arguments.

    Raises
    ------
    ValueError
        The input has no time axis (Keras: "expects an input of at least rank 3").
    """

    default_name = "time_distributed"

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        self._keep({})
        self._common(kwargs)
        if not hasattr(layer, "build"):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: {layer!r}"
            )
        self.layer = layer

    def _build(self, input_shape: Any) -> tuple[Module, Any]:
        """The inner layer's weights for one step, its module a child; output (T, *inner output)."""
        if not input_shape or input_shape[0] is Ellipsis:
            inner, out = self.layer.build(input_shape)
        else:
            if len(input_shape) < 2:
                raise ValueError(
                    f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                    f"dimensions, received: {(None, *input_shape)}"
                )
            inner, out = self.layer.build(tuple(input_shape[1:]))
            out = (input_shape[0], *out)
        return Module(self.name, "TimeDistributed", children=(inner,), sep="/", row=True), out

    def recipe(self, input_shape: Any, module: Module) -> Formula | None:
        """The inner layer's closed form.

        Parameters
        ----------
        input_shape : tuple
        module : derive.tree.Module
            The layer built on ``input_shape``.

        Returns
        -------
        derive.tree.Formula or None
        """
        return module.children[0].formula
