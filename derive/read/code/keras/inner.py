"""A layer of the code inside a wrapper of the Keras mirror (``TimeDistributed(block)``,
``Bidirectional(layer)``): the mirror builds it through the reader."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, cast

from .objects import KLayer, KTensor
from .tree import layer_module

if TYPE_CHECKING:
    from ..python.core import Core
    from .semantics import KerasSemantics

__all__ = ["Inner"]


class Inner:
    """A layer of the code inside a wrapper of the mirror (``TimeDistributed(block)``): built through the reader.

    Parameters
    ----------
    core : Interpreter
    layer : KLayer
    node : ast.AST
    """

    def __init__(self, core: Core[KerasSemantics], layer: KLayer, node: ast.AST) -> None:
        self.core, self.layer, self.node = core, layer, node

    @property
    def name(self) -> str:
        """The wrapped layer's name."""
        return self.layer.name

    def build(self, input_shape: Any) -> tuple[Any, Any]:
        """The wrapped layer called on ``input_shape`` (no batch axis): its module and output shape.

        Parameters
        ----------
        input_shape : tuple

        Returns
        -------
        (derive.tree.Module, tuple)

        Raises
        ------
        ValueError
            The wrapped layer's output is not known.
        """
        # applied as the code's semantics apply a layer called on tensors (keras_apply, a floor above)
        call = cast(ast.Call, self.node)  # the wrapper's call in the code
        out = self.core.semantics.call_object(self.core, self.layer, [KTensor((None, *input_shape))], {}, call)
        if not isinstance(out, KTensor) or out.full is None:
            raise ValueError(f"the output of {self.layer.name} inside a wrapper is not known")
        parent = "/".join(name for name, _ in self.core.semantics.scopes)
        return layer_module(self.core, self.layer, parent), out.shape

    def __repr__(self) -> str:
        return f"{self.layer.type}(...)"
