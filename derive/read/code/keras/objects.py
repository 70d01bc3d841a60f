"""The Keras objects the code reader builds: layers and models, symbolic tensors, weights, Keras' state.

* :class:`KLayer` — one ``keras.layers.Layer`` (or ``keras.Model``) while the code builds it: a layer
  of the Keras mirror (:mod:`derive.frameworks.keras`, kept in ``mirror``), an object of a class of
  the code (a custom ``Layer`` or a subclassed ``Model``: its own weights from ``add_weight`` and
  the layers it tracks), a ``Sequential``, a functional ``Model``, an ``Input``, or a layer derive
  does not know (``--partial``: not counted).
* :class:`KTensor` — a symbolic tensor (``keras.Input``, a layer's output, ``np.zeros``): its shape
  *with* the batch axis first, and the :class:`KNode` that made it.
* :class:`KNode` — one call of a layer (or of an operation, ``x + y``, at the top level) on
  tensors: the graph a functional model reads (``keras/src/ops/node.py``).
* :class:`KWeight` — one ``keras.Variable`` (``add_weight``), its path fixed when it is made.
* :class:`Session` — Keras' global state the code changes: the counters of automatic names
  (``keras/src/utils/naming.py``: ``dense``, ``dense_1``, ... shared by layers, operations and
  variables). It lives in the module's scope, so both ways of an unknown condition keep their own.

A list or dict assigned to a layer's attribute becomes a :class:`Tracked` one, which tracks the
layers appended to it later, as Keras' ``Tracker`` does.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ....frameworks.keras.base import snake
from ....tree import Module
from ..python.values import Class

__all__ = ["KLayer", "KTensor", "KNode", "KOp", "KWeight", "Session", "Tracked", "TrackedDict", "SESSION", "snake"]

#: The name under which the :class:`Session` lives in the module's scope (not a Python name).
SESSION = "the layers made so far"


@dataclass
class Session:
    """Keras' global naming state (``object_name_uids``).

    Attributes
    ----------
    uids : dict of str -> int
    applied : list of KLayer
        The layers called at the top level of the code, in order (the rows of loose layers).
    """

    uids: dict[str, int] = field(default_factory=dict)
    applied: list[KLayer] = field(default_factory=list)

    def auto_name(self, prefix: str) -> str:
        """``keras.src.utils.naming.auto_name``: ``prefix``, then ``prefix_1``, ...

        Parameters
        ----------
        prefix : str
            Snake case already (``dense``, ``variable``, ``add``).

        Returns
        -------
        str
        """
        count = self.uids.get(prefix, 0)
        self.uids[prefix] = count + 1
        return prefix if count == 0 else f"{prefix}_{count}"


@dataclass(eq=False)
class KWeight:
    """One variable: its name, shape, whether trainable, and its path (the name scope it was made in).

    Attributes
    ----------
    name : str
    shape : tuple of int or sympy.Expr
    trainable : bool
    path : str
    """

    name: str
    shape: tuple[Any, ...]
    trainable: bool = True
    path: str = ""


@dataclass(eq=False)
class KOp:
    """An operation (``keras.ops``) applied at the top level of functional code: a node of the graph,
    not a layer (named as Keras names it: ``add``, ``get_item``).

    Attributes
    ----------
    name : str
    type : str
    """

    name: str
    type: str = "Operation"


@dataclass(eq=False)
class KNode:
    """One call of a layer or operation.

    Attributes
    ----------
    operation : KLayer or KOp
    inputs : list of KTensor
        Every tensor of the call's arguments (``initial_state=`` included).
    is_input : bool
        The node of an ``Input``.
    """

    operation: Any
    inputs: list[KTensor] = field(default_factory=list)
    is_input: bool = False


@dataclass(eq=False)
class KTensor:
    """A symbolic tensor.

    Attributes
    ----------
    full : tuple or None
        The shape with the batch axis first (None entries unknown); None when derive does not know it.
    node : KNode or None
        What made it (None inside a layer's ``call``, for a constant, or for a plain array).
    index : int
        Which output of the node.
    why : str
        Why the shape is not known (``full`` None).
    """

    full: tuple[Any, ...] | None
    node: KNode | None = None
    index: int = 0
    why: str = ""

    @property
    def shape(self) -> tuple[Any, ...] | None:
        """The shape without the batch axis (what the mirror's layers build on), or None."""
        return None if self.full is None else tuple(self.full[1:])


@dataclass(eq=False)
class KLayer:
    """One Keras layer or model object.

    Attributes
    ----------
    type : str
        Its class name (the mirror's, the code's, ``Sequential``, ``Functional``).
    name : str
        Keras' name (given, or automatic at construction).
    kind : {"layer", "custom", "model", "sequential", "functional", "lambda", "input", "unknown"}
    cls : Class or None
        The code's class.
    mirror : object
        The mirror's layer (:mod:`derive.frameworks.keras`) for ``kind == "layer"``.
    attrs : dict
        Its attributes (plain values, tracked layers, lists of layers).
    tracked : list of KLayer
        The layers it tracks, in the order Keras tracks them (``Layer._layers``).
    weights : list of KWeight
        Its own variables (``add_weight``), in the order made.
    module : derive.tree.Module or None
        The mirror's weights, once built.
    built : bool
    path : str or None
        The name scope of its first build (its weights' paths start with it).
    layers : list of KLayer
        A Sequential's layers (no InputLayer); a functional model's layers.
    inputs, outputs : object
        A functional model's input and output tensors (as given).
    input_full : tuple or None
        A Sequential's input shape (batch axis first), or the ``input_shape=`` a layer was given.
    output : object
        The output tensor(s) of its first call.
    counted : bool
        False for a layer derive does not know.
    note : str
    line : int
        Where it was made.
    """

    type: str
    name: str = ""
    kind: str = "layer"
    cls: Class | None = None
    mirror: Any = None
    attrs: dict[str, Any] = field(default_factory=dict)
    tracked: list[KLayer] = field(default_factory=list)
    weights: list[KWeight] = field(default_factory=list)
    module: Module | None = None
    built: bool = False
    path: str | None = None
    layers: list[KLayer] = field(default_factory=list)
    inputs: Any = None
    outputs: Any = None
    input_full: tuple[Any, ...] | None = None
    output: Any = None
    counted: bool = True
    note: str = ""
    line: int = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> KLayer:
        new = copy.copy(self)
        memo[id(self)] = new
        for name in ("attrs", "tracked", "weights", "layers", "inputs", "outputs", "output"):
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    def track(self, value: Any, seen: set[int] | None = None) -> None:
        """Track the layers in ``value`` (a layer, or lists, tuples and dicts of them), in order.

        Parameters
        ----------
        value : object
        seen : set of int, optional
        """
        seen = set() if seen is None else seen
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, KLayer):
            if value is not self and all(value is not t for t in self.tracked):
                self.tracked.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self.track(item, seen)
        elif isinstance(value, dict):
            for item in value.values():
                self.track(item, seen)

    def untrack(self, value: Any) -> None:
        """Stop tracking ``value`` (a layer removed from a tracked list or dict).

        Parameters
        ----------
        value : object
        """
        self.tracked[:] = [t for t in self.tracked if t is not value]


class Tracked(list[Any]):
    """A list held by a layer's attribute, as Keras' ``TrackedList``: ``append``, ``insert`` and
    ``extend`` track the layers they add; ``remove``, ``pop``, ``clear`` and ``del`` untrack; an item
    assigned (``blocks[0] = layer``) is not tracked (``keras/src/utils/tracking.py``)."""

    owner: KLayer | None = None

    def _track(self, items: Any) -> None:
        if self.owner is not None:
            self.owner.track(list(items))

    def _untrack(self, items: Any) -> None:
        if self.owner is not None:
            for item in items:
                self.owner.untrack(item)

    def append(self, item: Any) -> None:
        """``list.append``, the layer tracked.

        Parameters
        ----------
        item : object
        """
        super().append(item)
        self._track([item])

    def extend(self, items: Any) -> None:
        """``list.extend``, the layers tracked.

        Parameters
        ----------
        items : iterable
        """
        items = list(items)
        super().extend(items)
        self._track(items)

    def insert(self, index: Any, item: Any) -> None:
        """``list.insert``, the layer tracked.

        Parameters
        ----------
        index : int
        item : object
        """
        super().insert(index, item)
        self._track([item])

    def remove(self, item: Any) -> None:
        """``list.remove``, the layer untracked.

        Parameters
        ----------
        item : object
        """
        super().remove(item)
        self._untrack([item])

    def pop(self, index: Any = -1) -> Any:
        """``list.pop``, the layer untracked.

        Parameters
        ----------
        index : int

        Returns
        -------
        object
        """
        item = super().pop(index)
        self._untrack([item])
        return item

    def clear(self) -> None:
        """``list.clear``, the layers untracked."""
        items = list(self)
        super().clear()
        self._untrack(items)

    def __delitem__(self, index: Any) -> None:
        items = self[index] if isinstance(index, slice) else [self[index]]
        super().__delitem__(index)
        self._untrack(items)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tracked:
        new = Tracked()
        memo[id(self)] = new
        list.extend(new, copy.deepcopy(list(self), memo))
        new.owner = copy.deepcopy(self.owner, memo)
        return new


class TrackedDict(dict[Any, Any]):
    """A dict held by a layer's attribute, as Keras' ``TrackedDict``: ``d[key] = layer`` and ``update``
    track; ``pop``, ``popitem`` and ``clear`` untrack; ``setdefault`` does not track (Keras' does not)."""

    owner: KLayer | None = None

    def __setitem__(self, key: Any, item: Any) -> None:
        super().__setitem__(key, item)
        if self.owner is not None:
            self.owner.track(item)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``dict.update``, the layers tracked."""
        for key, item in dict(*args, **kwargs).items():
            self[key] = item

    def pop(self, key: Any, *default: Any) -> Any:
        """``dict.pop``, the layer untracked.

        Parameters
        ----------
        key : object

        Returns
        -------
        object
        """
        item = super().pop(key, *default)
        if self.owner is not None:
            self.owner.untrack(item)
        return item

    def __deepcopy__(self, memo: dict[int, Any]) -> TrackedDict:
        new = TrackedDict()
        memo[id(self)] = new
        for key, item in self.items():
            dict.__setitem__(new, key, copy.deepcopy(item, memo))
        new.owner = copy.deepcopy(self.owner, memo)
        return new


def tracked(owner: KLayer, value: Any) -> Any:
    """``value`` as a layer's attribute holds it: a list or dict becomes a tracked one (its layers tracked).

    Parameters
    ----------
    owner : KLayer
    value : object

    Returns
    -------
    object
    """
    owner.track(value)
    if type(value) is list:
        made = Tracked(value)
        made.owner = owner
        return made
    if type(value) is dict:
        made_dict = TrackedDict(value)
        made_dict.owner = owner
        return made_dict
    return value
