"""A reader of model code that follows the code: Python's construction subset, evaluated over the ``ast``.

Literals and arithmetic (ints exactly; SymPy for sizes without a value), names and attributes,
calls of the code's functions and classes (``__init__`` with the instantiation's arguments over
the defaults, ``super().__init__``, inheritance, dataclasses), helpers nested or not, ``for`` over
ranges, lists, tuples, ``zip``/``enumerate``, comprehensions, ``if``/``else`` on values it knows
(both ways read and merged when it does not), f-strings, ``len``/``max``/``min``/``int``/``math``,
``functools.partial``, ``copy.deepcopy``. Nothing imported, nothing executed, a step limit against
runaway loops. The framework's names (``nn.Linear``, ``nn.ModuleList``, ``add_module``) come from
a :class:`~.semantics.Semantics` (:mod:`.torch_semantics` for torch).

Modules: :mod:`.values` (what names hold), :mod:`.frame` (scopes, limits), :mod:`.semantics` (a
framework's hooks), :mod:`.core` (the shared state), :mod:`.expressions`,
:mod:`.calls`, :mod:`.statements`, :mod:`.flow` (both ways of an unknown condition),
:mod:`.builtins`, :mod:`.imported` (an imported name's registered class: ``mamba_ssm.Mamba``);
torch: :mod:`.torch_objects`, :mod:`.torch_tensors`, :mod:`.torch_modules`, :mod:`.torch_names`,
:mod:`.torch_semantics`, :mod:`.torch_registered` (the registered classes, configs and models
called in torch code), :mod:`.torch_tree`; Keras: :mod:`.keras_objects` (layers, tensors, weights
as the code makes them), :mod:`.keras_construct` (a layer from its constructor line), :mod:`.keras_inner` (one inside a wrapper),
:mod:`.keras_apply` (a layer called on tensors, built), :mod:`.keras_layer_api` (``build``,
``add_weight``, attributes), :mod:`.keras_models` (``Sequential``, ``Model``, ``Lambda``,
``Variable``), :mod:`.keras_ops` and :mod:`.keras_arrays` (``keras.ops`` shapes),
:mod:`.keras_graph`, :mod:`.keras_merge`, :mod:`.keras_tree`, :mod:`.keras_semantics`.
"""

from __future__ import annotations

from .interpreter import Interpreter
from .semantics import Semantics
from .values import Refused, Unknown

__all__ = ["Interpreter", "Semantics", "Refused", "Unknown"]
